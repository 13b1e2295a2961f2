"""`tenet dse --tile-sizes` (tenet/cli/dse.py over tenet/explore/tile_sizes.py): the front in
JSON with its closed forms beside analyze's values, the emitted dataflow analyzed again, and
the flags it refuses."""

from __future__ import annotations

import json

from ..helpers import run_cli
from .test_tile_sizes import arch_file

GEMM = ["-w", "gemm", "--set", "M=8", "--set", "N=16", "--set", "K=8"]


def test_tile_sizes_json_and_emit(tmp_path, capsys):
    arch = arch_file(tmp_path, 4, 4, 256, True)
    front = tmp_path / "front"
    args = ["dse", *GEMM, "-a", arch, "--tile-sizes", "--jobs", "1"]
    rc, out, err = run_cli([*args, "--format", "json", "--emit", front], capsys)
    assert rc == 0, err
    report = json.loads(out)
    best = report["pareto"][0]
    assert report["objectives"] == ["energy_pj"]
    assert best["closed_form"]["energy_pj"] == best["cost"]["energy_pj"]["total"]
    assert best["dram_vs_capacity_bound"] >= 1 or best["dram_vs_capacity_bound"] is None
    assert report["complete"] is True
    rc, out, err = run_cli(
        ["analyze", *GEMM, "-a", arch, "-d", front / "dse-001.yaml", "--format", "json"], capsys
    )
    assert rc == 0, err
    assert json.loads(out)["cost"]["energy_pj"]["total"] == best["cost"]["energy_pj"]["total"]


def test_tile_sizes_table(tmp_path, capsys):
    arch = arch_file(tmp_path, 4, 4, 256, False)
    args = [
        "dse",
        *GEMM,
        "-a",
        arch,
        "--tile-sizes",
        "--imperfect",
        "--objectives",
        "energy_pj,dram",
    ]
    rc, out, err = run_cli([*args, "--jobs", "1"], capsys)
    assert rc == 0, err
    assert "dse-001" in out


def test_tile_sizes_refusals(tmp_path, capsys):
    arch = arch_file(tmp_path, 4, 4, 256, False)
    base = ["dse", *GEMM, "-a", arch, "--jobs", "1"]
    for extra, flag in (
        (["--imperfect"], "--imperfect"),
        (["--tile-sizes", "--interleave"], "--interleave"),
        (["--tile-sizes", "--objectives", "hierarchy"], "--objectives"),
    ):
        rc, _, err = run_cli([*base, *extra], capsys)
        assert rc == 2, (extra, err)
        assert flag in err and len(err.strip().splitlines()) == 1, err


def test_ctrl_c_keeps_the_tile_sizes_visited(tmp_path, capsys, monkeypatch):
    """SIGINT while the tile vectors are ranked (sent here as the second vector's outer
    orders are formed): `dse --tile-sizes` prints the front of the vectors visited, marked
    incomplete, each member counted by analyze, says so on stderr and exits 130."""
    import os
    import signal

    from tenet.explore import tile_sizes

    calls = []
    original = tile_sizes._order_front

    def interrupting(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            os.kill(os.getpid(), signal.SIGINT)
        return original(*args, **kwargs)

    monkeypatch.setattr(tile_sizes, "_order_front", interrupting)
    arch = arch_file(tmp_path, 4, 4, 256, True)
    args = ["dse", *GEMM, "-a", arch, "--tile-sizes", "--jobs", "1", "--format", "json"]
    rc, out, err = run_cli(args, capsys)
    assert rc == 130 and "interrupted" in err
    report = json.loads(out)
    assert report["complete"] is False and report["stopped_by"] == "interrupt"
    assert 0 < report["evaluated"] < report["candidates"]
    best = report["pareto"][0]
    assert best["objectives"]["energy_pj"] == best["cost"]["energy_pj"]["total"]
