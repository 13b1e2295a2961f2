"""delay.hierarchy (docs/levels.md, "Time through the hierarchy"): `analyze` (barvinok, per
tile as a function of the tile coordinates) against `simulate` (walks the steps and the
tiles one by one), on GEMM output- and weight-stationary, a conv, one and two tiled levels,
single- and double-buffered, low and high bandwidths, and sizes that leave remainder tiles."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from tenet import analyze, load_arch, load_dataflow, load_workload, simulate

from ..conftest import WORKLOADS
from ..helpers import write_yaml

DATA = Path(__file__).parent.parent / "data" / "hierarchy"
GEMM = WORKLOADS / "gemm"
CONV = WORKLOADS / "conv2d"


def hierarchy_numbers(data: dict) -> dict:
    """The numbers of the time through the hierarchy in an analysis' JSON."""
    level_keys = (
        "capacity_needed",
        "capacity_needed_single",
        "double_buffered",
        "fill_cycles",
        "drain_cycles",
        "stall_cycles",
    )
    return {
        "hierarchy": data["delay"]["hierarchy"],
        "bound_by": data["delay"]["bound_by"],
        "schedule": data["delay"]["schedule"],
        "levels": [{k: level[k] for k in ("name", *level_keys)} for level in data["levels"]],
    }


def with_dram_bandwidth(tmp_path: Path, arch_file: str, gbps: float, clock_ghz: float = 1.0):
    """An arch of tests/data/hierarchy with its outermost level at `gbps` GB/s."""
    data = yaml.safe_load((DATA / arch_file).read_text())
    data["levels"][-1]["bandwidth_gbps"] = gbps
    data["clock_ghz"] = clock_ghz
    return load_arch(write_yaml(tmp_path, f"arch-{gbps}-{clock_ghz}", data))


def run_both(workload, arch, dataflow, tiles: dict[str, int]) -> tuple[dict, dict]:
    flow = dataclasses.replace(dataflow, tiles=tiles)
    engine = analyze(workload, arch, flow).to_dict()
    reference = simulate(workload, arch, flow).to_dict()
    return engine, reference


def check_properties(data: dict, avg_latency: int = 16) -> None:
    """delay.hierarchy >= delay.schedule, and >= each boundary's transfer cycles plus the
    latency (docs/levels.md)."""
    delay = data["delay"]
    assert delay["hierarchy"] >= delay["schedule"]
    for level in data["levels"]:
        transfers = level["fill_cycles"] + level["drain_cycles"]
        assert delay["hierarchy"] >= transfers + avg_latency - 1


GEMM_SIZES = {"M": 20, "N": 12, "K": 9}  # 20 = 2·8 + 4, 12 = 8 + 4: remainder tiles


@pytest.mark.parametrize("flow", ["os-systolic-8x8", "ws-systolic-8x8"])
@pytest.mark.parametrize("gbps", [0.5, 2, 128])
@pytest.mark.parametrize("arch_file", ["sys8-glb-dram.yaml", "sys8-glb-dram-single.yaml"])
@pytest.mark.parametrize("depth", [1, 2])
def test_gemm_one_level(tmp_path, flow, gbps, arch_file, depth):
    workload = load_workload(GEMM / "workload.yaml", GEMM_SIZES)
    arch = with_dram_bandwidth(tmp_path, arch_file, gbps)
    dataflow = load_dataflow(GEMM / "dataflows" / f"{flow}.yaml")
    engine, reference = run_both(workload, arch, dataflow, {"GLB": depth})
    assert hierarchy_numbers(engine) == hierarchy_numbers(reference)
    check_properties(engine)


@pytest.mark.parametrize("flow", ["os-systolic-8x8", "ws-systolic-8x8"])
@pytest.mark.parametrize("tiles", [{"GLB": 2, "L2": 1}, {"GLB": 3, "L2": 2}, {"GLB": 2, "L2": 2}])
def test_gemm_two_levels(flow, tiles):
    workload = load_workload(GEMM / "workload.yaml", {"M": 20, "N": 17, "K": 9})
    arch = load_arch(DATA / "sys8-glb-l2-dram.yaml")
    dataflow = load_dataflow(GEMM / "dataflows" / f"{flow}.yaml")
    engine, reference = run_both(workload, arch, dataflow, tiles)
    assert hierarchy_numbers(engine) == hierarchy_numbers(reference)
    assert [level["name"] for level in engine["levels"]] == ["GLB", "L2"]
    check_properties(engine)


def test_two_levels_single_buffered_l2(tmp_path):
    """The inner level double-buffered, the outer one not."""
    data = yaml.safe_load((DATA / "sys8-glb-l2-dram.yaml").read_text())
    data["levels"][1]["double_buffered"] = False
    arch = load_arch(write_yaml(tmp_path, "three-single", data))
    workload = load_workload(GEMM / "workload.yaml", {"M": 12, "N": 20, "K": 7})
    dataflow = load_dataflow(GEMM / "dataflows" / "os-systolic-8x8.yaml")
    engine, reference = run_both(workload, arch, dataflow, {"GLB": 2, "L2": 1})
    assert hierarchy_numbers(engine) == hierarchy_numbers(reference)
    assert [level["double_buffered"] for level in engine["levels"]] == [True, False]
    check_properties(engine)


@pytest.mark.parametrize("gbps", [1, 64])
@pytest.mark.parametrize("depth", [2, 3])
def test_conv(tmp_path, gbps, depth):
    sizes = {"K": 2, "C": 3, "OX": 10, "OY": 9, "RX": 3, "RY": 3}
    workload = load_workload(CONV / "workload.yaml", sizes)
    arch = with_dram_bandwidth(tmp_path, "sys8-glb-dram.yaml", gbps)
    dataflow = load_dataflow(CONV / "dataflows" / "os-8x8.yaml")
    engine, reference = run_both(workload, arch, dataflow, {"GLB": depth})
    assert hierarchy_numbers(engine) == hierarchy_numbers(reference)
    check_properties(engine)


def test_clock_turns_gbps_into_bits_per_cycle(tmp_path):
    """2 GB/s at 2 GHz is 8 bits a cycle, as 1 GB/s at 1 GHz."""
    workload = load_workload(GEMM / "workload.yaml", GEMM_SIZES)
    dataflow = load_dataflow(GEMM / "dataflows" / "os-systolic-8x8.yaml")
    fast_clock = with_dram_bandwidth(tmp_path, "sys8-glb-dram.yaml", 2, clock_ghz=2)
    slow = with_dram_bandwidth(tmp_path, "sys8-glb-dram.yaml", 1)
    a = run_both(workload, fast_clock, dataflow, {"GLB": 2})
    b = run_both(workload, slow, dataflow, {"GLB": 2})
    assert hierarchy_numbers(a[0]) == hierarchy_numbers(a[1]) == hierarchy_numbers(b[0])


def test_triangular_pieces_are_sliced(tmp_path):
    """k <= j <= i < 11, one GLB tile per i: a tile's steps and B's words grow with i
    quadratically (a triangle), so those per-tile pieces are sliced into one constant per
    tile value, and still match the walk."""
    workload = load_workload(
        write_yaml(
            tmp_path,
            "tri",
            {
                "name": "tri",
                "params": {"N": 11},
                "statements": [
                    {
                        "domain": "[N] -> { S[i,j,k] : 0 <= k <= j <= i < N }",
                        "reads": {"B": "{ S[i,j,k] -> B[j,k] }", "A": "{ S[i,j,k] -> A[i,k] }"},
                        "writes": {"C": "{ S[i,j,k] -> C[i,j] }"},
                    }
                ],
            },
        ),
        {},
    )
    arch = load_arch(
        write_yaml(
            tmp_path,
            "chain-4",
            {
                "name": "chain-4",
                "pe": {"shape": [4]},
                "memory": {"bandwidth_bits": 32},
                "levels": [
                    {"name": "GLB", "capacity": 4096},
                    {"name": "DRAM", "capacity": "1GiB", "bandwidth_gbps": 1},
                ],
            },
        )
    )
    dataflow = load_dataflow(
        write_yaml(
            tmp_path,
            "tri-flow",
            {
                "name": "tri-flow",
                "space": "{ S[i,j,k] -> PE[k % 4] }",
                "time": "{ S[i,j,k] -> T[i, j, floor(k/4)] }",
            },
        )
    )
    flow = dataclasses.replace(dataflow, tiles={"GLB": 1})
    engine = analyze(workload, arch, flow)
    reference = simulate(workload, arch, flow)
    assert hierarchy_numbers(engine.to_dict()) == hierarchy_numbers(reference.to_dict())
    assert engine.hierarchy.sliced_pieces > 0
    assert engine.hierarchy.sliced_points <= 11 * engine.hierarchy.sliced_pieces
    check_properties(engine.to_dict())
