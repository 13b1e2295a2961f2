"""Network totals of the physical cost and the memory levels (docs/networks.md) against
each layer analyzed on its own (`tenet.analyze`) and summed here, run count times."""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction

import pytest

from tenet import analyze, load_arch, load_dataflow, load_workload
from tenet.explore.network import analyze_network, load_network
from tenet.model.cost import EnergyParts
from tenet.model.metrics import Totals

from ..conftest import ARCHS, WORKLOADS
from ..helpers import run_cli, write_yaml

#: systolic-8x8 with 45 nm components and a GLB below DRAM.
ARCH = {
    "name": "sys-levels",
    "pe": {"shape": [8, 8]},
    "interconnect": [
        {"relation": "{ PE[i,j] -> PE[i-1,j] }"},
        {"relation": "{ PE[i,j] -> PE[i,j-1] }"},
    ],
    "memory": {"word_bits": 16, "bandwidth_bits": 64, "avg_latency": 16},
    "technology": {"node_nm": 45},
    "levels": [
        {"name": "GLB", "capacity": 600, "bandwidth_gbps": 100},
        {"name": "DRAM", "capacity": "1GiB", "bandwidth_gbps": 10},
    ],
}

#: os-systolic-8x8 with one GLB tile per 8x8 block of C.
OS_TILED = {
    "name": "os-tiled",
    "space": "{ S[i,j,k] -> PE[i % 8, j % 8] }",
    "time": "{ S[i,j,k] -> T[floor(i/8), floor(j/8), i % 8 + j % 8 + k] }",
    "tiles": {"GLB": 2},
}

#: (name, runs, GEMM sizes M, N, K)
LAYERS = [("a", 1, (16, 16, 8)), ("b", 3, (8, 24, 4)), ("c", 2, (20, 8, 5))]


@pytest.fixture
def setup(tmp_path):
    arch_path = write_yaml(tmp_path, "arch", ARCH)
    flow_path = write_yaml(tmp_path, "os-tiled", OS_TILED)
    layers = [
        {
            "name": name,
            "workload": "gemm",
            "params": {"M": m, "N": n, "K": k},
            "dataflow": "os-tiled.yaml",
            "count": runs,
        }
        for name, runs, (m, n, k) in LAYERS
    ]
    net_path = write_yaml(tmp_path, "net", {"name": "net", "layers": layers})
    return net_path, arch_path, flow_path


def independent(arch_path, flow_path):
    """(runs, Analysis) of every layer, each analyzed on its own."""
    arch, flow = load_arch(arch_path), load_dataflow(flow_path)
    out = []
    for _, runs, (m, n, k) in LAYERS:
        workload = load_workload(WORKLOADS / "gemm" / "workload.yaml", {"M": m, "N": n, "K": k})
        out.append((runs, analyze(workload, arch, flow)))
    return out


def test_cost_and_levels_totals_are_sums_of_layers(setup):
    net_path, arch_path, flow_path = setup
    result = analyze_network(load_network(net_path), load_arch(arch_path))
    runs = independent(arch_path, flow_path)
    total = result.total

    # Energy: Σ runs · each part, exactly.
    expected = EnergyParts()
    for n, a in runs:
        for _ in range(n):
            expected = expected + a.cost.energy_pj
    assert total.cost.energy_pj == expected
    assert total.cost.energy_pj.mac == sum(n * a.macs for n, a in runs) * Fraction(
        load_arch(arch_path).components.mac_energy_pj.value
    )
    # Area: the design's, one array for every layer, not a sum.
    areas = {a.cost.area_um2 for _, a in runs}
    assert len(areas) == 1 and total.cost.area_um2 == areas.pop()

    # Levels: reads and writes Σ runs · Σ_tensors; capacity_needed the largest of any layer.
    (glb,) = total.levels
    layer_glbs = [(n, a.levels[0]) for n, a in runs]
    reads = sum(n * sum(r for r, _ in lv.tensors.values()) for n, lv in layer_glbs)
    writes = sum(n * sum(w for _, w in lv.tensors.values()) for n, lv in layer_glbs)
    assert (glb.name, glb.above) == ("GLB", "DRAM")
    assert (glb.reads, glb.writes) == (reads, writes)
    assert glb.tiles == sum(n * lv.tiles for n, lv in layer_glbs)
    assert glb.capacity_needed == max(lv.capacity_needed for _, lv in layer_glbs)
    assert glb.capacity == 600 and glb.fits == (glb.capacity_needed <= 600)

    # The JSON `total`: floats of those numbers; transfer_ns = words · 16 / 8 bytes / 10 GB/s.
    data = json.loads(json.dumps(result.to_dict()))["total"]
    assert data["cost"]["energy_pj"]["total"] == float(expected.total)
    assert data["cost"]["energy_pj"]["dram"] == float(expected.dram)
    assert data["cost"]["area_um2"]["total"] == float(runs[0][1].cost.area_um2.total)
    assert data["levels"] == [
        {
            "name": "GLB",
            "above": "DRAM",
            "tiles": glb.tiles,
            "capacity_needed": glb.capacity_needed,
            "capacity_exact": True,
            "capacity": 600,
            "fits": glb.capacity_needed <= 600,
            "reads": reads,
            "writes": writes,
            "transfer_ns": (reads + writes) * 16 / 8 / 10,
        }
    ]


def test_hand_count_of_the_dram_traffic(setup):
    """GEMM M×N×K with one GLB tile per 8x8 block of C, blocks in row-major order. A's
    block of 8 rows stays while the block column moves, so each A word enters once (M·K).
    B's block of 8 columns enters with every tile, except when there is one block column
    (N <= 8): then it stays from tile to tile and enters once. So B reads are
    ceil(M/8)·N·K, or N·K when N <= 8. C is written first (no reads) and each block leaves
    once: M·N writes."""
    net_path, arch_path, _ = setup
    total = analyze_network(load_network(net_path), load_arch(arch_path)).total

    def ceil8(x):
        return -(-x // 8)

    def reads(m, n, k):
        return m * k + (ceil8(m) if ceil8(n) > 1 else 1) * n * k

    # a: 16·8 + 2·16·8 = 384; b: 8·4 + 1·24·4 = 128; c (N = 8): 20·5 + 8·5 = 140
    assert [reads(*size) for _, _, size in LAYERS] == [384, 128, 140]
    expected_reads = sum(runs * reads(m, n, k) for _, runs, (m, n, k) in LAYERS)
    expected_writes = sum(runs * m * n for _, runs, (m, n, k) in LAYERS)
    (glb,) = total.levels
    assert (glb.reads, glb.writes) == (expected_reads, expected_writes)


def test_runs_scale_and_add(setup):
    """`n * t == t + ... + t` for the cost and the levels as for every other total."""
    _, arch_path, flow_path = setup
    (_, a), (_, b), _ = independent(arch_path, flow_path)
    one, other = Totals.of(a), Totals.of(b)
    assert 3 * one == one + one + one
    both = one + other
    assert both.cost.energy_pj == a.cost.energy_pj + b.cost.energy_pj
    assert both.cost.area_um2 == a.cost.area_um2
    assert both.levels[0].capacity_needed == max(
        a.levels[0].capacity_needed, b.levels[0].capacity_needed
    )
    # Totals(pe_count) is the total of no runs: adding it changes nothing.
    assert Totals(64) + one == one


def test_no_cost_or_levels_total_unless_every_layer_has_them(setup):
    _, arch_path, flow_path = setup
    arch = load_arch(arch_path)
    (_, a), _, _ = independent(arch_path, flow_path)
    untiled = load_dataflow(WORKLOADS / "gemm" / "dataflows" / "os-systolic-8x8.yaml")
    workload = load_workload(WORKLOADS / "gemm" / "workload.yaml", {"M": 8, "N": 8, "K": 4})
    no_levels = analyze(workload, arch, untiled)
    assert no_levels.levels == [] and no_levels.cost is not None
    mixed = Totals.of(a) + Totals.of(no_levels)
    assert mixed.levels is None and mixed.cost is not None
    plain = analyze(workload, load_arch(ARCHS / "systolic-8x8.yaml"), untiled)
    assert plain.cost is None
    no_cost = Totals.of(plain) + Totals.of(plain)
    assert no_cost.cost is None
    data = no_cost.to_dict()
    assert "cost" not in data and "levels" not in data


def test_cli_table_and_csv(setup, capsys):
    net_path, arch_path, flow_path = setup
    runs = independent(arch_path, flow_path)
    energy = sum((n * a.cost.energy_pj.total for n, a in runs), Fraction(0))
    rc, out, _ = run_cli(["analyze", "-n", net_path, "-a", arch_path, "--format", "csv"], capsys)
    assert rc == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["layer"] for r in rows] == ["a", "b", "c", "total"]
    total = rows[-1]
    assert float(total["cost.energy_pj.total"]) == float(energy)
    assert float(rows[0]["cost.energy_pj.total"]) == float(runs[0][1].cost.energy_pj.total)
    assert json.loads(total["levels"])[0]["reads"] == sum(n * a.levels[0].reads for n, a in runs)

    rc, out, _ = run_cli(["analyze", "-n", net_path, "-a", arch_path, "--wide"], capsys)
    assert rc == 0
    assert "energy (pJ)" in out and "GLB words" in out
    assert f"{float(energy):,.2f}" in out
    words = sum(n * a.levels[0].words for n, a in runs)
    assert f"{words:,}" in out
