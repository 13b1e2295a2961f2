"""Same-step links give nothing for free (docs/topologies.md, "Same-step links"): a group of
PEs joined by window-0 forward links that all need one value in one step fetches it once,
so mesh and torus columns are ranked; `same_step: tenet` keeps TENET's literal counting."""

from __future__ import annotations

import dataclasses
import json

import pytest

from tenet import analyze, load_arch, load_dataflow, load_workload, simulate

from ..conftest import WORKLOADS
from ..helpers import run_cli, write_yaml
from ..model.test_cost import hand_components

GEMM = WORKLOADS / "gemm" / "workload.yaml"

ARCHS = {
    "mesh": {"pe": {"shape": [4, 4]}, "interconnect": [{"topology": "mesh"}]},
    "torus": {"pe": {"shape": [4, 4]}, "interconnect": [{"topology": "torus"}]},
    "ring": {
        "pe": {"shape": [4]},
        "interconnect": [{"relation": "{ PE[p] -> PE[q] : q = (p + 3) % 4 }", "window": [0]}],
    },
    # a mesh whose same-step links meet a row bus: the bus supplies from its lowest member
    "mesh+bus": {
        "pe": {"shape": [4, 4]},
        "interconnect": [{"topology": "mesh"}, {"topology": "row-multicast", "access": "read"}],
    },
}
FLOWS = {
    "os-flat": ("{ S[i,j,k] -> PE[i % 4, j % 4] }", "{ S[i,j,k] -> T[floor(i/4), floor(j/4), k] }"),
    "os-held": ("{ S[i,j,k] -> PE[i % 4, j % 4] }", "{ S[i,j,k] -> T[floor(i/4), k, floor(j/4)] }"),
    "ring": ("{ S[i,j,k] -> PE[j % 4] }", "{ S[i,j,k] -> T[i, k, floor(j/4)] }"),
    "ring-reduce": ("{ S[i,j,k] -> PE[k] }", "{ S[i,j,k] -> T[i, j] }"),
    "skewed": (
        "{ S[i,j,k] -> PE[i % 4, j % 4] }",
        "{ S[i,j,k] -> T[floor(i/4), floor(j/4), i % 4 + j % 4 + k] }",
    ),
}
PAIRS = [
    ("mesh", "os-flat"),
    ("mesh", "os-held"),
    ("mesh", "skewed"),
    ("torus", "os-flat"),
    ("ring", "ring"),
    ("ring", "ring-reduce"),
    ("mesh+bus", "os-flat"),
]


def inputs(tmp_path, arch_name: str, flow_name: str, rule: str | None = None):
    data = {"name": arch_name, **ARCHS[arch_name]}
    if rule is not None:
        data["same_step"] = rule
    arch = load_arch(write_yaml(tmp_path, "arch", data))
    space, time = FLOWS[flow_name]
    flow = load_dataflow(
        write_yaml(tmp_path, "flow", {"name": flow_name, "space": space, "time": time})
    )
    return arch, flow


@pytest.mark.parametrize("arch_name,flow_name", PAIRS)
def test_analyze_matches_the_enumeration(tmp_path, arch_name, flow_name):
    arch, flow = inputs(tmp_path, arch_name, flow_name)
    arch = dataclasses.replace(arch, components=hand_components())
    workload = load_workload(GEMM, {"M": 8, "N": 6, "K": 5})
    engine, reference = analyze(workload, arch, flow), simulate(workload, arch, flow)
    assert engine.to_dict() == reference.to_dict()
    assert not [w for w in engine.warnings if w.kind == "same_step_cycle"]


def test_mesh_rows_fetch_once_per_step_by_hand(tmp_path):
    """8x8x5 GEMM on a 4x4 mesh, C[i,j] on PE[i%4, j%4], every k in one step: the 4 PEs
    of a row need A[i,k] at once and pass it along the row within the step. One of them
    fetches it: 4 rows x 2x2 tiles x 5 steps = 80 words of A (TENET's literal rule: 0,
    each PE taking it from a neighbour). B likewise by columns: 80."""
    arch, flow = inputs(tmp_path, "mesh", "os-flat")
    workload = load_workload(GEMM, {"M": 8, "N": 8, "K": 5})
    result = analyze(workload, arch, flow)
    assert result.volumes["A"]["read"].unique == result.volumes["B"]["read"].unique == 80
    literal = analyze(workload, dataclasses.replace(arch, same_step="tenet"), flow)
    assert literal.volumes["A"]["read"].unique == literal.volumes["B"]["read"].unique == 0
    assert [w.kind for w in literal.warnings] == ["same_step_cycle"]


def test_a_ring_fetches_once_per_value(tmp_path):
    """A ring of 4 PEs with window [0]: at step (i, k, 0) the four PEs j%4 all need A[i,k]
    and form the ring: one fetch. At the next step (i, k, 1), j = 4, 5 on PEs 0 and 1 need
    it again and held it a step before: no fetch. 3 x 4 = 12 (TENET's literal rule: 0)."""
    arch, flow = inputs(tmp_path, "ring", "ring")
    workload = load_workload(GEMM, {"M": 3, "N": 6, "K": 4})
    assert analyze(workload, arch, flow).volumes["A"]["read"].unique == 12
    literal = analyze(workload, dataclasses.replace(arch, same_step="tenet"), flow)
    assert literal.volumes["A"]["read"].unique == 0


def test_acyclic_links_keep_tenets_numbers(tmp_path):
    """On a chain (one direction, window [0, 1]) there is no cycle: both rules count alike."""
    chain = {
        "name": "chain",
        "pe": {"shape": [4]},
        "interconnect": [{"relation": "{ PE[p] -> PE[p - 1] }"}],
    }
    workload = load_workload(GEMM, {"M": 3, "N": 8, "K": 4})
    space, time = FLOWS["ring"]
    flow = load_dataflow(write_yaml(tmp_path, "flow", {"name": "f", "space": space, "time": time}))
    groups = analyze(workload, load_arch(write_yaml(tmp_path, "a", chain)), flow).to_dict()
    literal_arch = load_arch(write_yaml(tmp_path, "b", {**chain, "same_step": "tenet"}))
    assert groups == analyze(workload, literal_arch, flow).to_dict()


def test_bad_same_step_rule_is_refused(tmp_path, capsys):
    path = write_yaml(tmp_path, "arch", {"name": "m", **ARCHS["mesh"], "same_step": "free"})
    rc, _, err = run_cli(
        ["analyze", "-w", "gemm", "-a", str(path), "-d", "os-systolic-8x8"], capsys
    )
    assert rc == 2 and "same_step" in err and "Traceback" not in err


@pytest.mark.slow
def test_compare_ranks_the_mesh_column(capsys):
    """The search can no longer pick a mesh dataflow that fetches nothing: both columns
    fetch words (peak ingress > 0) and the mesh column is ranked."""
    args = ["compare", "-w", "gemm", "-a", "systolic-8x8", "--topologies", "systolic-2d,mesh"]
    sizes = ["--set", "M=16", "--set", "N=16", "--set", "K=16", "--format", "json"]
    rc, out, _ = run_cli([*args, "--best", "latency", *sizes], capsys)
    assert rc == 0
    data = json.loads(out)
    for column in data["results"]:
        assert column["bandwidth"]["peak_ingress"] > 0
        assert "same_step_cycle" not in column["warning_kinds"]


def test_a_partial_sum_passed_round_a_ring_leaves_once(tmp_path):
    """2x2x4 GEMM, C[i,j]'s four products on the four PEs of a window-0 ring in one step:
    each PE's partial sum is taken on by its neighbour, so no triple is an exit of its own.
    Each element still leaves once, from its largest (step, PE), PE 3: 4 exits, no read-back
    (TENET's exits alone would give 0 exits and a read-back of -4). That PE is 4 pitches
    from the edge: 4 x 4 pitches of distribution wire."""
    arch, flow = inputs(tmp_path, "ring", "ring-reduce")
    arch = dataclasses.replace(arch, components=hand_components())
    workload = load_workload(GEMM, {"M": 2, "N": 2, "K": 4})
    result = analyze(workload, arch, flow)
    assert result.volumes["C"]["write"].read_back == 0
    actions = result.cost.actions["C"]
    assert actions.scratchpad_write_words == 4
    # 16 writes, one starved group per element charged the start (4): 12 partial sums
    # sent round the ring, each read out of its register, and the 4 exits
    assert actions.register_read_outs == 12 + 4
    assert actions.distribution_pitches == 16
    assert simulate(workload, arch, flow).to_dict() == result.to_dict()
