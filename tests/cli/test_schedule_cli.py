"""The schedule-time numbers on the command line: `analyze --profile` (JSON and table),
`--verbose`, the CSV column order, `compare` rows and the `dse` objectives."""

from __future__ import annotations

import csv
import io
import json

import pytest

from ..helpers import run_cli

GEMM_64 = ["-w", "gemm", "--set", "M=64", "--set", "N=64", "--set", "K=64"]
OS = [*GEMM_64, "-a", "systolic-8x8", "-d", "os-systolic-8x8"]


def test_profile_json_shape_and_sums(capsys):
    rc, out, err = run_cli(["analyze", *OS, "--profile", "--format", "json"], capsys)
    assert rc == 0, err
    result = json.loads(out)
    profile = result["profile"]
    assert set(profile) == {"ingress", "egress"}
    keys = {"steps_set", "words", "steps", "peak", "total"}
    for side, pieces in profile.items():
        assert pieces and all(set(p) == keys for p in pieces), side
    # The pieces add up to the whole: Σ words = Σ unique of the side; busiest = the peak.
    unique = {
        side: sum(s[side]["unique"] for s in result["tensors"].values() if s[side] is not None)
        for side in ("read", "write")
    }
    assert sum(p["total"] for p in profile["ingress"]) == unique["read"] == 2 * 64 * 64 * 8
    assert sum(p["total"] for p in profile["egress"]) == unique["write"] == 64 * 64
    assert max(p["peak"] for p in profile["ingress"]) == result["bandwidth"]["peak_ingress"]
    assert max(p["peak"] for p in profile["egress"]) == result["bandwidth"]["peak_egress"]
    # 8 x 8 folds; A and B enter at row 0 / column 0 while the skew fills: 2 + 2t words
    # at t = 0..7 of each fold, then 16 a step; C leaves 1 + t words at t = 0..7.
    fill = [p for p in profile["ingress"] if p["words"].replace(" ", "") in ("2+2*i2", "2*i2+2")]
    assert len(fill) == 1 and fill[0]["steps"] == 64 * 8
    assert fill[0]["total"] == 64 * sum(2 + 2 * t for t in range(8))
    # Without --profile the key is absent.
    rc, out, _ = run_cli(["analyze", *OS, "--format", "json"], capsys)
    assert "profile" not in json.loads(out)


def test_profile_table_and_verbose(capsys):
    rc, out, err = run_cli(["analyze", *OS, "--profile", "--verbose"], capsys)
    assert rc == 0
    assert "schedule time" in out and "words per step, piece by piece" in out
    assert "  steps " in out and "4,992" in out  # 64 folds of 64 + 8 + 8 - 2 steps
    assert "per-step words: 5 piece(s)" in err and "0 not quasi-affine" in err


def test_profile_refused_with_symbolic(capsys):
    rc, _, err = run_cli(["analyze", *OS, "--profile", "--symbolic"], capsys)
    assert rc == 2 and "--profile" in err


def test_csv_keeps_tenet_columns_in_place(capsys):
    rc, out, _ = run_cli(["analyze", *OS, "--format", "csv"], capsys)
    assert rc == 0
    header = next(csv.reader(io.StringIO(out)))
    assert header[10:15] == [
        "delay.ingress",
        "delay.egress",
        "delay.compute",
        "delay.latency",
        "energy",
    ]
    assert header[-1] == "warning_kinds"  # the one column added after them (docs/reference.md)
    assert header[-9:-1] == [
        "delay.steps",
        "delay.schedule",
        "delay.overlapped",
        "utilization_schedule",
        "bandwidth.peak_ingress",
        "bandwidth.peak_egress",
        "bandwidth.avg_ingress",
        "bandwidth.avg_egress",
    ]


def test_compare_rows_and_json(capsys):
    args = [
        "compare",
        *GEMM_64,
        "-d",
        "os-systolic-8x8",
        "-a",
        "systolic-8x8",
        "-a",
        "multicast-8x8",
    ]
    rc, out, err = run_cli(args, capsys)
    assert rc == 0, err
    for row in ("time steps", "schedule delay (cycles)", "peak ingress (words/step)"):
        assert row in out
    rc, out, _ = run_cli([*args, "--format", "json"], capsys)
    results = json.loads(out)["results"]
    # One dataflow: the same time steps on both arrays.
    assert [r["delay"]["steps"] for r in results] == [4992, 4992]
    # Without skew-matching links every PE of multicast-8x8's rows fetches its own A.
    assert results[0]["bandwidth"]["peak_ingress"] < results[1]["bandwidth"]["peak_ingress"]


@pytest.mark.slow
def test_dse_objectives(capsys):
    args = ["dse", "-w", "gemm", "-a", "systolic-4x4", "--set", "M=8", "--set", "N=8"]
    args += ["--set", "K=16", "--objectives", "steps,schedule,peak_ingress", "--format", "json"]
    rc, out, err = run_cli(args, capsys)
    assert rc == 0, err
    report = json.loads(out)
    assert report["pareto"]
    for entry in report["pareto"]:
        assert entry["objectives"] == {
            "steps": entry["delay"]["steps"],
            "schedule": entry["delay"]["schedule"],
            "peak_ingress": entry["bandwidth"]["peak_ingress"],
        }
    with pytest.raises(SystemExit):
        run_cli(["dse", "--help"], capsys)
    help_text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    assert "peak_ingress = bandwidth.peak_ingress" in help_text
    assert "schedule = delay.schedule" in help_text
