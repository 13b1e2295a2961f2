"""The cost model's barvinok counts (analyze) against enumeration (simulate): same
actions, same pJ and µm², same read_back, on every kind of link."""

from __future__ import annotations

import dataclasses

import pytest

from tenet import analyze, load_arch, load_dataflow, load_workload, simulate
from tenet.model.cost import area_counts

from ..conftest import ARCHS, WORKLOADS
from ..helpers import write_yaml
from ..model.test_cost import hand_components

GEMM = WORKLOADS / "gemm"

CASES = {
    # skewed weight-stationary: partial sums run down the columns and are read back
    "ws-systolic": ("systolic-8x8", "ws-systolic-8x8", None),
    # row and column buses
    "multicast": ("multicast-8x8", "os-multicast-8x8", None),
    "mtia": ("mtia-8x8", "os-multicast-8x8", None),
    # broadcast over 64 PEs
    "broadcast": ("broadcast-64", "ncf-yxp-os-64", None),
    # torus: C moves one row per k, wrapping from row 7 to row 0 (lengths 1 and 7)
    "torus-wrap": (
        "torus-8x8",
        None,
        ("{ S[i,j,k] -> PE[(i + k) % 8, j % 8] }", "{ S[i,j,k] -> T[floor(i/8), floor(j/8), k] }"),
    ),
    # diagonal mesh: B moves along a diagonal (length √2), A along a row (1)
    "mesh-diagonal": (
        "mesh-diag-16x16",
        None,
        ("{ S[i,j,k] -> PE[i, (j + i) % 16] }", "{ S[i,j,k] -> T[k + i] }"),
    ),
    # binary reduction tree: links of many lengths, partial sums merged
    "reduction-tree": ("maeri-64", None, ("{ S[i,j,k] -> PE[k] }", "{ S[i,j,k] -> T[i, j] }")),
}


def case(name: str, tmp_path):
    arch_name, preset, own = CASES[name]
    if preset is not None:
        dataflow = load_dataflow(GEMM / "dataflows" / f"{preset}.yaml")
    else:
        space, time = own
        path = write_yaml(tmp_path, "flow", {"name": name, "space": space, "time": time})
        dataflow = load_dataflow(path)
    arch = load_arch(ARCHS / f"{arch_name}.yaml")
    return dataclasses.replace(arch, components=hand_components()), dataflow


QUICK = ("ws-systolic", "multicast", "torus-wrap", "reduction-tree")


@pytest.mark.parametrize(
    "name", [n if n in QUICK else pytest.param(n, marks=pytest.mark.slow) for n in CASES]
)
def test_cost_matches_enumeration(name, tmp_path):
    arch, dataflow = case(name, tmp_path)
    workload = load_workload(GEMM / "workload.yaml", {"M": 10, "N": 9, "K": 10})
    engine, reference = analyze(workload, arch, dataflow), simulate(workload, arch, dataflow)
    assert engine.cost.actions == reference.cost.actions
    assert engine.cost == reference.cost
    assert engine.to_dict() == reference.to_dict()
    assert engine.cost.energy_pj.interconnect > 0


@pytest.mark.slow
def test_k_hop_bus_matches_enumeration(tmp_path):
    """A 2-hop multicast neighbourhood (not a partition: events keyed by the lexmin of
    the receiver's neighbourhood, spans of different sizes near the edges)."""
    arch = load_arch(
        write_yaml(
            tmp_path,
            "khop",
            {
                "name": "khop-6x6",
                "pe": {"shape": [6, 6]},
                "interconnect": [{"topology": "k-hop-multicast", "hops": 2, "access": "read"}],
            },
        )
    )
    arch = dataclasses.replace(arch, components=hand_components())
    path = write_yaml(
        tmp_path,
        "flow",
        {"name": "os", "space": "{ S[i,j,k] -> PE[i % 6, j % 6] }", "time": "{ S[i,j,k] -> T[k] }"},
    )
    workload = load_workload(GEMM / "workload.yaml", {"M": 6, "N": 6, "K": 5})
    dataflow = load_dataflow(path)
    engine, reference = analyze(workload, arch, dataflow), simulate(workload, arch, dataflow)
    assert engine.cost == reference.cost
    assert engine.cost.actions["A"].bus_pitches > 0


def test_without_components_no_cost(tmp_path):
    workload = load_workload(GEMM / "workload.yaml", {"M": 4, "N": 4, "K": 4})
    arch = load_arch(ARCHS / "systolic-8x8.yaml")
    dataflow = load_dataflow(GEMM / "dataflows" / "ws-systolic-8x8.yaml")
    engine, reference = analyze(workload, arch, dataflow), simulate(workload, arch, dataflow)
    assert engine.cost is None and reference.cost is None
    assert "cost" not in engine.to_dict()
    assert analyze(workload, arch, dataflow, cost=False).cost is None


@pytest.mark.slow
@pytest.mark.parametrize("name", ["ws-systolic", "multicast", "reduction-tree"])
def test_cost_matches_enumeration_larger(name, tmp_path):
    arch, dataflow = case(name, tmp_path)
    workload = load_workload(GEMM / "workload.yaml", {"M": 24, "N": 20, "K": 19})
    assert analyze(workload, arch, dataflow).cost == simulate(workload, arch, dataflow).cost


@pytest.mark.parametrize("bus", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_32x32_bus_and_forwarding_match_enumeration(bus, tmp_path):
    """The 32x32 arrays of docs/energy.md's last worked example, at a small size (the
    bus case is slow: simulate enumerates the 2·32,768 pairs of the two bus relations)."""
    from ..model.test_cost import arch_32x32

    if bus:
        links = [
            {"topology": "row-multicast", "access": "read"},
            {"topology": "column-multicast", "access": "read"},
        ]
        time = "{ S[i,j,k] -> T[floor(i/32), floor(j/32), k] }"
    else:
        links = [{"topology": "systolic-2d"}]
        time = "{ S[i,j,k] -> T[floor(i/32), floor(j/32), i % 32 + j % 32 + k] }"
    arch = arch_32x32(tmp_path, links)
    path = write_yaml(
        tmp_path,
        "flow",
        {"name": "os", "space": "{ S[i,j,k] -> PE[i % 32, j % 32] }", "time": time},
    )
    workload = load_workload(GEMM / "workload.yaml", {"M": 40, "N": 8, "K": 6})
    dataflow = load_dataflow(path)
    engine, reference = analyze(workload, arch, dataflow), simulate(workload, arch, dataflow)
    assert engine.cost == reference.cost


@pytest.mark.parametrize("self_pairs", [True, False])
def test_bus_group_with_or_without_self_pairs(self_pairs, tmp_path):
    """A 4-PE broadcast group written with or without its (p, p) pairs is the same group
    (docs/topologies.md writes one without): one bus driver, and every broadcast event
    drives all 4 PEs. GEMM 4x1x3 with i on the PE: B[k,j] (3 elements) is wanted by all
    4 PEs at step k, fetched once by PE 0 and broadcast: 3 events x 4 PEs = 12 bus
    pitches. The enumeration agrees."""
    relation = "{ PE[i] -> PE[j] }" if self_pairs else "{ PE[i] -> PE[j] : j != i }"
    arch = load_arch(
        write_yaml(
            tmp_path,
            "group",
            {
                "name": "group-4",
                "pe": {"shape": [4]},
                "interconnect": [{"relation": relation, "kind": "multicast", "window": [0]}],
                "memory": {"word_bits": 16, "bandwidth_bits": 64, "avg_latency": 1},
            },
        )
    )
    arch = dataclasses.replace(arch, components=hand_components())
    path = write_yaml(
        tmp_path,
        "flow",
        {"name": "os", "space": "{ S[i,j,k] -> PE[i] }", "time": "{ S[i,j,k] -> T[k] }"},
    )
    workload = load_workload(GEMM / "workload.yaml", {"M": 4, "N": 1, "K": 3})
    dataflow = load_dataflow(path)
    engine, reference = analyze(workload, arch, dataflow), simulate(workload, arch, dataflow)
    assert engine.cost.actions["B"].bus_pitches == 12
    assert area_counts(arch).bus_groups == 1
    assert engine.cost == reference.cost
