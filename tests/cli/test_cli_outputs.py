"""The CLI's output formats: JSON against a schema of the contract's keys, CSV, table."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from fractions import Fraction

import jsonschema
import pytest

from tenet import __version__
from tenet.cli import main

from ..conftest import ROOT
from ..helpers import GEMM_OS_ARGS, SMALL_GEMM_ARGS, run_cli

VOLUME = {
    "type": "object",
    "required": [
        "total",
        "unique",
        "reuse",
        "temporal_reuse",
        "spatial_reuse",
        "reuse_factor",
        "ibw",
        "sbw",
    ],
    "properties": {
        **{
            k: {"type": "integer", "minimum": 0}
            for k in ("total", "unique", "reuse", "temporal_reuse", "spatial_reuse")
        },
        "reuse_factor": {"type": ["number", "null"]},
        "ibw": {"type": "number"},
        "sbw": {"type": "number"},
        "read_back": {"type": "integer"},  # write sides only (docs/energy.md)
    },
    "additionalProperties": False,
}
ANALYZE_SCHEMA = {
    "type": "object",
    "required": [
        "workload",
        "arch",
        "dataflow",
        "instances",
        "macs",
        "pe_count",
        "active_pes",
        "avg_active_pes",
        "time_steps",
        "utilization",
        "delay",
        "energy",
        "tensors",
    ],
    "properties": {
        "workload": {"type": "string"},
        "arch": {"type": "string"},
        "dataflow": {"type": "string"},
        **{
            k: {"type": "integer", "minimum": 1}
            for k in ("instances", "macs", "pe_count", "active_pes", "time_steps")
        },
        "avg_active_pes": {"type": "number"},
        "utilization": {"type": "number"},
        "energy": {"type": "number"},
        "delay": {
            "type": "object",
            "required": ["ingress", "egress", "compute", "latency"],
            "properties": {
                k: {"type": "integer"}
                for k in (
                    "ingress",
                    "egress",
                    "compute",
                    "latency",
                    "steps",
                    "schedule",
                    "overlapped",
                )
            },
            "additionalProperties": False,
        },
        "tensors": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["read", "write"],
                "additionalProperties": False,
                "properties": {
                    "read": {"oneOf": [{"type": "null"}, VOLUME]},
                    "write": {"oneOf": [{"type": "null"}, VOLUME]},
                },
            },
        },
    },
}


@pytest.mark.parametrize("command", ["analyze", "simulate"])
def test_json_matches_schema(command, capsys):
    rc, out, _ = run_cli([command, *SMALL_GEMM_ARGS, "--format", "json"], capsys)
    assert rc == 0
    result = json.loads(out)
    jsonschema.validate(result, ANALYZE_SCHEMA)
    assert result["instances"] == 16 * 16 * 8
    assert result["tensors"]["A"]["write"] is None and result["tensors"]["C"]["read"] is None


def test_json_keeps_big_integers_exact(capsys):
    rc, out, _ = run_cli(
        [
            "analyze",
            *GEMM_OS_ARGS,
            "--set",
            "M=16384",
            "--set",
            "N=16384",
            "--set",
            "K=16384",
            "--format",
            "json",
        ],
        capsys,
    )
    assert rc == 0
    result = json.loads(out)
    assert result["instances"] == 16384**3  # 4.4e12, beyond 32 bits and exact in JSON
    assert result["tensors"]["A"]["read"]["unique"] == 16384**3 // 8


def test_csv_one_row_with_dotted_columns(capsys):
    rc, out, _ = run_cli(["analyze", *SMALL_GEMM_ARGS, "--format", "csv"], capsys)
    assert rc == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 1
    row = rows[0]
    assert row["tensors.A.read.unique"] == str(16 * 8 * 2)
    assert row["delay.compute"] == str(16 * 16 * 8 // 64)
    assert row["tensors.A.write"] == ""


def table_rows(out: str) -> tuple[dict[str, str], dict[tuple[str, str], list[str]]]:
    """The analyze table as (summary label -> value, (tensor, side) -> the other cells)."""
    summary, tensors = {}, {}
    for line in out.splitlines():
        cells = line.split()
        if len(cells) == 10 and cells[1] in ("read", "write"):
            tensors[cells[0], cells[1]] = cells[2:]
            continue
        match = re.fullmatch(r"  (\S.*?\S)  +(\S.*?)\s*", line)
        if match:
            summary[match[1]] = match[2]
    return summary, tensors


def test_table_lists_every_tensor_and_metric_with_hand_counts(capsys):
    """GEMM M=16, N=16, K=8, output stationary on systolic-8x8: PE[i%8, j%8], stamp
    T[i//8, j//8, i%8 + j%8 + k]; words of 16 bits through a 64-bit port (4 words a cycle),
    avg_latency 16; energy weights mac 1.0, l1 1.68, l2 18.61. By hand:

    * instances = MACs = 16*16*8 = 2,048, on all 8*8 = 64 PEs; stamps 2*2 tiles x 22
      (i%8 + j%8 + k in 0..21) = 88, so 2,048/88 = 23.27 active PEs on average.
    * A[i,k] (128 values) enters PE[i%8, 0] and moves right through the row's 8 PEs in
      consecutive steps, once in each of the 2 column tiles: unique 2*128 = 256, spatial
      reuse 7*256 = 1,792, temporal 0; B[k,j] the same down the columns. C[i,j] (256 values)
      stays in its PE for its 8 k: unique 256, temporal reuse 7*256 = 1,792, spatial 0.
      Reuse factor 2,048/256 = 8.00 for each.
    * compute = 2,048/64 = 32 cycles; IBW per side = spatial/32 (56, 56, 0: in all 112),
      SBW = unique/32 = 8 each (24).
    * ingress = floor((256 + 256)*16/64) + 16 - 1 = 143; egress = floor(256*16/64) + 15 = 79;
      latency = max(143, 79, 32) = 143; utilization = 2,048/(64*143) = 22.38%.
    * per tile, step s: words in = 2n, n = #{(a, k): a + k = s} for a, k in 0..7 (A enters
      at a + k, B likewise), words out = #{(a, b): a + b = s} (C counts at its first write,
      k = 0). Peaks 2*8 = 16 in, 8 out. A step costs max(1, ceil(in/4), ceil(out/4)):
      1,1,2,2,3,3,4,4,4,3,3,2,2,1,1 for s = 0..14 (the reads bound it; 36) and 1 for
      s = 15..21 (7): 43 a tile; schedule = 4*43 + 15 = 187.
    * energy = 2,048*1.0 + 1.68*(l1 reads + writes = 2*3*2,048) + 18.61*(l2 reads + writes
      = 2*3*256) = 2,048 + 20,643.84 + 28,584.96 = 51,276.80.
    """
    rc, out, _ = run_cli(["analyze", *SMALL_GEMM_ARGS], capsys)
    assert rc == 0
    summary, tensors = table_rows(out)
    expected = {
        "instances": "2,048",
        "MACs": "2,048",
        "PEs (active / array)": "64 / 64",
        "average active PEs": "23.27",
        "time steps": "88",
        "ingress delay (cycles)": "143",
        "egress delay (cycles)": "79",
        "compute delay (cycles)": "32",
        "latency (cycles)": "143",
        "schedule delay (cycles)": "187",
        "peak words/step (in / out)": "16 / 8",
        "PE utilization": "22.38%",
        "interconnect bandwidth (IBW, words/cycle)": "112.00",
        "scratchpad bandwidth (SBW, words/cycle)": "24.00",
        "energy (TENET, unitless)": "51,276.80",
    }
    assert {label: summary.get(label) for label in expected} == expected
    assert f"{2048 / 88:.2f}" == "23.27" and f"{2048 / (64 * 143):.2%}" == "22.38%"
    l1_words, l2_words = 2 * 3 * 2048, 2 * 3 * 256
    by_hand = 2048 + Fraction("1.68") * l1_words + Fraction("18.61") * l2_words
    assert by_hand == Fraction("51276.80")
    # total, unique, reuse, temporal, spatial, reuse factor, IBW, SBW
    assert tensors == {
        ("A", "read"): ["2,048", "256", "1,792", "0", "1,792", "8.00", "56.00", "8.00"],
        ("B", "read"): ["2,048", "256", "1,792", "0", "1,792", "8.00", "56.00", "8.00"],
        ("C", "write"): ["2,048", "256", "1,792", "1,792", "0", "8.00", "0.00", "8.00"],
    }


def test_output_file(tmp_path, capsys):
    target = tmp_path / "out.json"
    rc, out, _ = run_cli(
        ["analyze", *SMALL_GEMM_ARGS, "--format", "json", "-o", str(target)], capsys
    )
    assert rc == 0 and out == ""
    assert json.loads(target.read_text())["macs"] == 16 * 16 * 8


def test_module_entry_point_and_version():
    done = subprocess.run(
        [sys.executable, "-m", "tenet", "--version"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and done.stdout.strip() == f"tenet {__version__}"


def test_help_lists_commands():
    done = subprocess.run(
        [sys.executable, "-m", "tenet", "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0
    for command in ("analyze", "simulate", "presets"):
        assert command in done.stdout


def test_presets_lists_archs_and_workloads(capsys):
    rc, out, _ = run_cli(["presets"], capsys)
    assert rc == 0
    assert "systolic-8x8" in out and "gemm: " in out and "os-systolic-8x8" in out


def test_energy_is_labelled_tenets_unitless_model(capsys):
    small = [*GEMM_OS_ARGS, "--set", "M=16", "--set", "N=16", "--set", "K=16"]
    rc, out, _ = run_cli(["analyze", *small], capsys)
    assert rc == 0 and "energy (TENET, unitless)" in out
    rc, out, _ = run_cli(["analyze", *small, "--format", "json"], capsys)
    assert "energy" in json.loads(out)  # the JSON key is unchanged
    with pytest.raises(SystemExit):
        main(["analyze", "--help"])
    assert "unitless" in capsys.readouterr().out
    for doc in ("metrics.md", "reference.md"):
        text = (ROOT / "docs" / doc).read_text()
        line = next(x for x in text.splitlines() if x.startswith("| `energy` |"))
        assert "unitless" in line, doc
