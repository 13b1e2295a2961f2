"""`dram_vs_bound`: each front member's DRAM words (as the bounds charge them) over the least
traffic of Snowcat mappings whose buffer is the member's `capacity_needed_single` on the
tiled level, checked against `tenet analyze --bound` of the emitted dataflow and by hand."""

from __future__ import annotations

import json

import pytest

from ..helpers import run_cli, write_yaml

GEMM_16 = ["-w", "gemm", "--set", "M=16", "--set", "N=16", "--set", "K=16"]


def glb_arch(tmp_path, name: str, capacity: int, double_buffered: bool):
    """A 4x4 systolic array with a GLB under DRAM (docs/dse.md's systolic-4x4-glb)."""
    return write_yaml(
        tmp_path,
        name,
        {
            "name": name,
            "pe": {"shape": [4, 4]},
            "interconnect": [
                {"relation": "{ PE[i,j] -> PE[i-1,j] }"},
                {"relation": "{ PE[i,j] -> PE[i,j-1] }"},
            ],
            "memory": {"word_bits": 16, "bandwidth_bits": 64, "avg_latency": 16},
            "levels": [
                {"name": "GLB", "capacity": capacity, "double_buffered": double_buffered},
                {"name": "DRAM", "capacity": "1GiB", "bandwidth_gbps": 16},
            ],
        },
    )


def dse_json(capsys, arch, folder, *more) -> dict:
    rc, out, err = run_cli(["dse", *GEMM_16, "-a", arch, "--emit", folder, *more,
                            "--format", "json", "-q"], capsys)  # fmt: skip
    assert rc == 0, err
    return json.loads(out)


def analyze_bound(capsys, arch, dataflow) -> dict:
    rc, out, err = run_cli(["analyze", *GEMM_16, "-a", arch, "-d", dataflow, "--bound",
                            "--format", "json", "-q"], capsys)  # fmt: skip
    assert rc == 0, err
    return json.loads(out)


def test_single_buffered_glb_matches_analyze_bound_and_the_hand_count(tmp_path, capsys):
    """Single-buffered, `analyze --bound` takes the same buffer (capacity_needed is the single
    figure). By hand (docs/dse.md): dse-001 tiles (I, K) blocks of 4, 144 words, and moves
    1,536 words. Snowcat with 144 words: tiles i0 = j0 = 8, k0 = 1 (8 + 8 + 64 = 80 words)
    under 2 x 2 x 16 outer loops, k innermost: A 2·2·16·8 = 512, B 512, C written back once,
    256 (its first fill is free): 1,280; so dram_vs_bound = 1,536 / 1,280 = 1.2."""
    arch = glb_arch(tmp_path, "glb-single", 256, False)
    data = dse_json(capsys, arch, tmp_path / "front", "--objectives", "dram,latency")
    (member,) = data["pareto"]
    block = member["dram_bound"]
    assert (block["capacity_words"], block["dram_words"], block["bound_words"]) == (144, 1536, 1536)
    assert block["snowcat_accesses"] == 1280
    assert member["dram_vs_bound"] == pytest.approx(1.2)
    bound = analyze_bound(capsys, arch, tmp_path / "front" / "dse-001.yaml")["bound"]["dram"]
    assert bound["capacity_words"] == block["capacity_words"]
    assert bound["dataflow_words"] == block["dram_words"]
    assert bound["bound_words"] == block["bound_words"]
    assert bound["snowcat_accesses"] == block["snowcat_accesses"]
    assert member["dram_vs_bound"] == bound["bound_words"] / bound["snowcat_accesses"]


def test_double_buffered_glb_takes_the_single_figure(tmp_path, capsys):
    """Double-buffered, the Snowcat buffer is `capacity_needed_single` (the schedule's own
    buffer, not the doubled one): `analyze --bound` of the emitted dataflow on the same
    array with a single-buffered GLB (same tiles, so the same single figure) gives it."""
    arch = glb_arch(tmp_path, "glb-double", 512, True)
    single = glb_arch(tmp_path, "glb-as-single", 512, False)
    data = dse_json(capsys, arch, tmp_path / "front", "--objectives", "dram,latency")
    assert data["pareto"]
    for member in data["pareto"]:
        path = tmp_path / "front" / f"{member['name']}.yaml"
        levels = analyze_bound(capsys, arch, path)["levels"]
        glb = next(level for level in levels if level["name"] == "GLB")
        block = member["dram_bound"]
        assert block["capacity_words"] == glb["capacity_needed_single"] < glb["capacity_needed"]
        bound = analyze_bound(capsys, single, path)["bound"]["dram"]
        assert bound["capacity_words"] == block["capacity_words"]
        assert bound["snowcat_accesses"] == block["snowcat_accesses"]
        assert member["dram_vs_bound"] == bound["bound_words"] / bound["snowcat_accesses"]


def test_table_shows_the_ratio(tmp_path, capsys):
    arch = glb_arch(tmp_path, "glb-single", 256, False)
    rc, out, err = run_cli(["dse", *GEMM_16, "-a", arch, "--objectives", "dram,latency", "-q"],
                           capsys)  # fmt: skip
    assert rc == 0, err
    assert "Snowcat (words)" in out and "dram_vs_bound" in out
    row = next(line for line in out.splitlines() if "dse-001" in line)
    assert row.split()[-2:] == ["1,280", "1.20"]


def test_no_ratio_without_levels(capsys):
    rc, out, err = run_cli(["dse", *GEMM_16, "-a", "systolic-4x4", "--no-skew", "--limit", "4",
                            "--format", "json", "-q"], capsys)  # fmt: skip
    assert rc == 0, err
    for member in json.loads(out)["pareto"]:
        assert "dram_vs_bound" not in member and "dram_bound" not in member
