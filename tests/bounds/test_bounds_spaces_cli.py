"""`tenet bounds --space/--imperfect/--compare-spaces`, `--at` lists, and the lower bound and gap
beside every front point (issue 13, parts 3, 4 and 6), through the command line.

Expected values are worked by hand: a 64³ GEMM moves each of its three 4,096-word tensors
at least once (12,288 words); the schedule `[A] n:64 [B] m:64 [Z] k:64` reaches that with
4,096 + 64 + 1 = 4,161 words, while a Snowcat mapping with 4,161 words moves 16,384
(docs/bounds.md, "What the front is not")."""

from __future__ import annotations

import csv
import io
import json

import pytest

from ..helpers import run_cli

GEMM64 = ["--einsum", "Z[m,n] += A[m,k] * B[k,n]", "--shape", "m=64,k=64,n=64"]
MINIMUM_64 = 3 * 64 * 64


def bounds_json(capsys, *args) -> dict:
    rc, out, err = run_cli(["bounds", *GEMM64, *args, "--format", "json"], capsys)
    assert rc == 0, err
    return json.loads(out)


def test_at_accepts_lists_and_repeats(capsys):
    listed = bounds_json(capsys, "--at", "4161,16KiB")["at"]
    repeated = bounds_json(capsys, "--at", "4161", "--at", "16KiB")["at"]
    assert listed == repeated
    assert [a["words"] for a in listed] == [4161, 16 * 1024 * 8 // 16]


def test_every_point_carries_a_lower_bound_and_gap(capsys):
    report = bounds_json(capsys, "--at", "4161")
    for point in report["pareto"]:
        assert MINIMUM_64 <= point["lower_bound"] <= point["accesses"]
        assert point["gap"] == pytest.approx(point["accesses"] / point["lower_bound"])
    (answer,) = report["at"]
    assert answer["accesses"] == 16_384  # Snowcat at 4,161 words (hand, docs/bounds.md)
    assert MINIMUM_64 <= answer["lower_bound"] <= 12_288  # the uneven schedule reaches 12,288
    assert report["space"] == "snowcat" and report["imperfect"] is False
    assert report["lower_bound_basis"]["matrix_product"] is True


def test_uneven_space_reaches_the_hand_schedule(capsys):
    report = bounds_json(capsys, "--space", "uneven", "--at", "4161")
    (answer,) = report["at"]
    assert answer["accesses"] == MINIMUM_64
    assert report["space"] == "uneven"
    # The minimum needs every tensor once; no point of the front goes below it.
    assert report["pareto"][-1]["accesses"] == MINIMUM_64
    assert report["max_effectual_buffer"] <= 4161


def test_compare_spaces_orders_the_fronts(capsys):
    report = bounds_json(capsys, "--compare-spaces", "--at", "64,512,4161")
    spaces = report["spaces"]
    assert list(spaces) == ["snowcat", "snowcat-imperfect", "uneven", "uneven-imperfect"]
    for answer in report["at"]:
        got = {name: a["accesses"] for name, a in answer["spaces"].items()}
        assert got["snowcat-imperfect"] <= got["snowcat"]
        assert got["uneven"] <= got["snowcat"]
        assert got["uneven-imperfect"] <= min(got["uneven"], got["snowcat-imperfect"])
        assert answer["lower_bound"] <= min(got.values())
    for s in spaces.values():
        assert all(p["lower_bound"] <= p["accesses"] for p in s["pareto"])


@pytest.mark.slow
def test_plots_are_written(capsys, tmp_path):
    slope = tmp_path / "slope.png"
    rc, _, err = run_cli(["bounds", *GEMM64, "--space", "uneven", "--plot", slope], capsys)
    assert rc == 0, err
    assert slope.stat().st_size > 0 and (tmp_path / "slope-oi.png").exists()
    both = tmp_path / "spaces.png"
    rc, _, err = run_cli(["bounds", *GEMM64, "--compare-spaces", "--plot", both], capsys)
    assert rc == 0, err
    assert both.stat().st_size > 0


def test_tables_name_the_space_and_the_bound(capsys):
    rc, out, _ = run_cli(["bounds", *GEMM64, "--space", "uneven", "--imperfect"], capsys)
    assert rc == 0
    assert "uneven front with imperfect tiles" in out
    assert "lower bound" in out and "gap" in out
    rc, out, _ = run_cli(["bounds", *GEMM64, "--compare-spaces", "--at", "1KiB"], capsys)
    assert rc == 0
    assert "mapping spaces compared" in out and "uneven-imperfect" in out


def test_csv_rows_carry_the_bound(capsys):
    rc, out, _ = run_cli(["bounds", *GEMM64, "--compare-spaces", "--format", "csv"], capsys)
    assert rc == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert {r["front"] for r in rows} == {
        "snowcat",
        "snowcat-imperfect",
        "uneven",
        "uneven-imperfect",
    }
    assert all(int(r["lower_bound"]) <= int(r["accesses"]) for r in rows)


@pytest.mark.parametrize(
    "args, where",
    [
        (["--at", "4161,"], "--at"),
        (["--at", "lots"], "--at"),
        (["--compare-spaces", "-a", "sn40l-like"], "-a"),
    ],
)
def test_bad_input_is_one_line(capsys, args, where):
    rc, out, err = run_cli(["bounds", *GEMM64, *args], capsys)
    assert rc == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and where in err
