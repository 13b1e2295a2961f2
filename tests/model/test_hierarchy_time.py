"""delay.hierarchy, time through the memory levels (docs/levels.md, "Time through the
hierarchy"): hand counts of the worked example, the acceptance figures against another
modeler's, the properties the rule guarantees, the JSON keys and their round trip, the sums
over a network, and the arch keys clock_ghz and double_buffered."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
import yaml

from tenet import InputError, analyze, load_arch, load_dataflow, load_workload, simulate
from tenet.model.hierarchy_time import LevelTime, bound_by
from tenet.model.metrics import Analysis, Totals

from ..conftest import WORKLOADS
from ..helpers import run_cli, write_yaml

DATA = Path(__file__).parent.parent / "data" / "hierarchy"
WORKED = DATA / "worked"
GEMM = WORKLOADS / "gemm"


def worked(tmp_path: Path, gbps: float = 16, double: bool = True, tiles: int = 2):
    """The worked example of docs/levels.md (16³ GEMM, 4x4 array, GLB tiles of depth 2),
    its DRAM at `gbps`."""
    data = yaml.safe_load((WORKED / "array-4x4.yaml").read_text())
    data["levels"][1]["bandwidth_gbps"] = gbps
    data["levels"][0]["double_buffered"] = double
    arch = load_arch(write_yaml(tmp_path, f"array-{gbps}-{double}", data))
    flow = load_dataflow(WORKED / "os-tiled.yaml")
    flow = dataclasses.replace(flow, tiles={"GLB": tiles})
    return load_workload(WORKED / "gemm-16.yaml", {}), arch, flow


# By hand (docs/levels.md): a tile (I, J) runs steps s = 0..21 (i%4 + j%4 + k); at step s
# the n(s) PEs (a, b) with a + b <= s <= a + b + 15 read a fresh A and B word each (no
# links), so cost(s) = max(1, ceil(2·n(s)·16/64)) = max(1, ceil(n(s)/2)) (the C write-backs,
# at most 4 a step, cost at most 1): n = 1, 3, 6, 10, 13, 15, 16 (x10), 15, 13, 10, 6, 3, 1,
# costs 1, 2, 3, 5, 7, 8, 8 (x10), 8, 7, 5, 3, 2, 1: C(u) = 132 for every tile, 16 tiles:
# Σ_t cost(t) = 2,112, delay.schedule = 2,112 + 15 = 2,127.
# Fills: tile (I, 0) reads A (64) and B (64), a tile (I, J > 0) B only (64); every tile
# writes back its 16 C words.
COMPUTE_PER_TILE = 132


def test_worked_example_16_gbps(tmp_path):
    """DRAM 16 GB/s = 128 bits = 8 words a cycle: F(I,0) = 16, F(I,J>0) = 8, D = 2. The
    transfers (at most 16 + 2) hide under C = 132: Σ s = 16·132 = 2,112, prologue F(0,0)
    = 16, epilogue D(3,3) = 2: 2,130, + avg_latency 16 − 1 = 2,145."""
    result = analyze(*worked(tmp_path)).to_dict()
    assert result["delay"]["schedule"] == 16 * COMPUTE_PER_TILE + 15
    assert result["delay"]["hierarchy"] == 2145
    # only the prologue and epilogue show: every transfer hides under its tile's compute,
    # and the steps wait for the scratchpad port (2,112 cycles for 352 steps)
    assert result["delay"]["bound_by"] == "scratchpad port"
    glb = result["levels"][0]
    assert (glb["fill_cycles"], glb["drain_cycles"]) == (4 * 16 + 12 * 8, 16 * 2)
    assert glb["stall_cycles"] == 16 + 2
    assert glb["double_buffered"] is True


def test_worked_example_1_gbps(tmp_path):
    """DRAM 1 GB/s = 8 bits = half a word a cycle: F(I,0) = 256, F(I,J>0) = 128, D = 32.
    s(u) = max(132, F(next u) + D(prev u)): the first tile 132 (128, no prev); (I, J<3)
    otherwise 128 + 32 = 160 (11 tiles); (I, 3) for I < 3: 256 + 32 = 288 (3 tiles); the
    last 132 (32, no next). Σ s = 132 + 1,760 + 864 + 132 = 2,888, + F(first) 256 +
    D(last) 32 = 3,176, + 15 = 3,191."""
    result = analyze(*worked(tmp_path, gbps=1)).to_dict()
    assert result["delay"]["hierarchy"] == 3191
    glb = result["levels"][0]
    assert (glb["fill_cycles"], glb["drain_cycles"]) == (4 * 256 + 12 * 128, 16 * 32)
    assert glb["stall_cycles"] == 3176 - 2112


def test_worked_example_single_buffered(tmp_path):
    """Single-buffered at 1 GB/s: Σ (F + C + D) = 2,560 + 2,112 + 512 = 5,184, + 15."""
    inputs = worked(tmp_path, gbps=1, double=False)
    result = analyze(*inputs).to_dict()
    assert result["delay"]["hierarchy"] == 5184 + 15
    glb = result["levels"][0]
    assert glb["double_buffered"] is False
    # single buffered: the capacity is one tile's, 64 + 64 + 16 = 144
    assert glb["capacity_needed"] == glb["capacity_needed_single"] == 144
    assert simulate(*inputs).to_dict()["delay"] == result["delay"]


def test_double_buffered_capacity(tmp_path):
    """A tile holds 144 words; while (I, 3) runs, (I+1, 0)'s A and B (128) arrive and
    (I, 2)'s 16 C words leave: 144 + 128 + 16 = 288. Depth 1: a block row holds 384
    words; the next row's A (64) arrives and the previous row's C (64) leaves: 512."""
    for tiles, single, double in ((2, 144, 288), (1, 384, 512)):
        inputs = worked(tmp_path, tiles=tiles)
        for result in (analyze(*inputs), simulate(*inputs)):
            glb = result.levels[0]
            assert (glb.capacity_needed_single, glb.capacity_needed) == (single, double)


def test_no_tile_depth_no_hierarchy():
    workload = load_workload(GEMM / "workload.yaml", {"M": 16, "N": 16, "K": 8})
    arch = load_arch(DATA / "sys8-glb-dram.yaml")
    flow = load_dataflow(GEMM / "dataflows" / "os-systolic-8x8.yaml")
    result = analyze(workload, arch, flow)
    assert result.hierarchy is None and result.hierarchy_delay is None
    assert "hierarchy" not in result.to_dict()["delay"]
    assert "bound_by" not in result.to_dict()["delay"]


def test_bound_by(tmp_path):
    """With DRAM at 100,000 GB/s (800,000 bits a cycle) every F and D is one cycle, under
    C = 132; the prologue F(first) and epilogue D(last) still add 2 cycles above the
    schedule, which every pipeline pays: the scratchpad port binds (2,112 cycles for 352
    steps). At 1 GB/s the fills outlast the compute of 14 tiles: the GLB binds. The rule's
    other branches on hand-made levels."""
    data = yaml.safe_load((WORKED / "array-4x4.yaml").read_text())
    data["levels"][1]["bandwidth_gbps"] = 100000
    arch = load_arch(write_yaml(tmp_path, "fast", data))
    flow = dataclasses.replace(load_dataflow(WORKED / "os-tiled.yaml"), tiles={"GLB": 2})
    result = analyze(load_workload(WORKED / "gemm-16.yaml", {}), arch, flow)
    assert result.to_dict()["delay"]["hierarchy"] == 2112 + 2 + 15
    assert result.hierarchy.bound_by == "scratchpad port"
    assert analyze(*worked(tmp_path, gbps=1)).hierarchy.bound_by == "GLB"
    ends_only = (LevelTime("GLB", 10, 2, True, 2, 2),)  # its 2 stall cycles are its ends
    assert bound_by(2114, 2112, 352, ends_only) == "scratchpad port"
    assert bound_by(354, 352, 352, ends_only) == "compute"
    two = (LevelTime("GLB", 10, 2, True, 5), LevelTime("L2", 10, 2, True, 5))
    assert bound_by(2122, 2112, 352, two) == "GLB"  # a tie: the inner level
    assert bound_by(2122, 2112, 352, (two[0], LevelTime("L2", 10, 2, True, 8))) == "L2"


def test_round_trip_and_totals(tmp_path):
    inputs = worked(tmp_path, gbps=1)
    analysis = analyze(*inputs)
    data = json.loads(json.dumps(analysis.to_dict()))
    again = Analysis.from_dict(data, inputs[1], analysis.stamps)
    assert again.to_dict() == data
    assert again.hierarchy_delay == 3191
    total = Totals.of(analysis) + 2 * Totals.of(analysis)
    assert total.to_dict()["delay"]["hierarchy"] == 3 * 3191
    untiled = dataclasses.replace(load_dataflow(WORKED / "os-tiled.yaml"), tiles={})
    none = analyze(*inputs[:2], untiled)
    assert "hierarchy" not in (Totals.of(analysis) + Totals.of(none)).to_dict()["delay"]


# --- the acceptance figures ---------------------------------------------------------------


def gemm64(arch_path: Path, flow: str):
    workload = load_workload(GEMM / "workload.yaml", {"M": 64, "N": 64, "K": 64})
    dataflow = load_dataflow(GEMM / "dataflows" / f"{flow}.yaml")
    return workload, load_arch(arch_path), dataclasses.replace(dataflow, tiles={"GLB": 2})


@pytest.mark.parametrize(
    "flow, arch_file, zigzag, tolerance",
    [
        # ZigZag's latency for the 64³ GEMM on this 8x8 array with a GLB and DRAM at 2 GB/s:
        # 40,978 cycles output-stationary, 40,964 weight-stationary (ZigZag's figures)
        ("os-systolic-8x8", "sys8-glb-dram.yaml", 40978, 0.05),
        ("ws-systolic-8x8", "sys8-glb-dram.yaml", 40964, 0.05),
        # with DRAM at 128 GB/s, output-stationary: 17,678 cycles (ZigZag's figure)
        ("os-systolic-8x8", "sys8-glb-dram128.yaml", 17678, 0.10),
    ],
)
def test_acceptance_against_zigzag(flow, arch_file, zigzag, tolerance):
    result = analyze(*gemm64(DATA / arch_file, flow))
    cycles = result.hierarchy_delay
    assert abs(cycles - zigzag) <= tolerance * zigzag, cycles
    # 40,960 DRAM words (A 4,096, B 32,768, C 4,096 for OS) at 16 bits a cycle: one word
    # a cycle; the time is never below the DRAM transfers
    words = result.dram_words()
    bits = 2 * 8 if arch_file == "sys8-glb-dram.yaml" else 128 * 8
    assert cycles >= -(-words * 16 // bits)
    if arch_file == "sys8-glb-dram.yaml":
        assert cycles >= 40960


def test_monotone_in_bandwidth(tmp_path):
    workload, arch, flow = gemm64(DATA / "sys8-glb-dram.yaml", "os-systolic-8x8")
    data = yaml.safe_load((DATA / "sys8-glb-dram.yaml").read_text())
    times = []
    for gbps in (1, 2, 4, 8, 16, 128):
        data["levels"][1]["bandwidth_gbps"] = gbps
        arch = load_arch(write_yaml(tmp_path, f"bw{gbps}", data))
        times.append(analyze(workload, arch, flow).hierarchy_delay)
    assert times == sorted(times, reverse=True), times
    assert times[0] > times[-1]


# --- the arch keys --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "change, key",
    [
        ({"clock_ghz": 0}, "clock_ghz"),
        ({"clock_ghz": -1.5}, "clock_ghz"),
        ({"clock_ghz": "fast"}, "clock_ghz"),
        ({"levels.0.double_buffered": "yes"}, "levels[0].double_buffered"),
        ({"levels.0.double_buffered": 1}, "levels[0].double_buffered"),
    ],
)
def test_bad_arch_keys(tmp_path, capsys, change, key):
    data = yaml.safe_load((DATA / "sys8-glb-dram.yaml").read_text())
    for path, value in change.items():
        if path.startswith("levels."):
            data["levels"][0]["double_buffered"] = value
        else:
            data[path] = value
    path = write_yaml(tmp_path, "bad", data)
    with pytest.raises(InputError) as caught:
        load_arch(path)
    assert caught.value.key == key
    rc, out, err = run_cli(["analyze", "-w", "gemm", "-a", path, "-d", "os-systolic-8x8"], capsys)
    assert rc == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and key in err and str(path) in err


def test_arch_key_defaults():
    arch = load_arch(DATA / "sys8-glb-dram.yaml")
    assert arch.clock_ghz == 1.0
    assert [level.double_buffered for level in arch.levels] == [True, True]
    assert arch.levels[1].bits_per_cycle(arch.clock_ghz) == 16
