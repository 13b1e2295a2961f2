"""The fast search (issue 20): the shared-work evaluator gives `analyze`'s numbers and
`validate`'s verdicts, pruning never changes the front, the lower bounds hold, and the
objectives that read component costs and memory levels."""

from __future__ import annotations

import pickle
import random
from fractions import Fraction
from types import SimpleNamespace

import pytest

from tenet import analyze, load_arch, load_workload
from tenet.analysis.validate import validate
from tenet.errors import InputError
from tenet.explore.candidate_counts import (
    SharedWork,
    StampRelations,
    Stamps,
    analyze_candidate,
    runs_in_order,
    shared_work,
)
from tenet.explore.dse import enumerate_candidates, explore
from tenet.explore.objectives import OBJECTIVES, parse_objectives
from tenet.explore.prune import FloorBasis, lower_bounds
from tenet.explore.tasks import CandidateTask, count_task, signed_values
from tenet.model.dataflow import Dataflow
from tenet.model.metrics import links_for
from tenet.util.isl_util import count, parse_union_map

from ..conftest import ARCHS, WORKLOADS
from ..helpers import write_yaml

GEMM = WORKLOADS / "gemm" / "workload.yaml"
CONV = WORKLOADS / "conv2d" / "workload.yaml"

#: A recurrence along i: S[i,j] reads A[i-1,j], written by S[i-1,j] (flow dependences).
RECURRENCE = {
    "name": "recurrence",
    "params": {"N": 4},
    "statements": [
        {
            "domain": "[N] -> { S[i,j] : 1 <= i < N and 0 <= j < N }",
            "reads": {"A": "{ S[i,j] -> A[i-1,j] }"},
            "writes": {"A": "{ S[i,j] -> A[i,j] }"},
        }
    ],
}


def sample(items, n: int, seed: int = 0):
    items = list(items)
    return random.Random(seed).sample(items, min(n, len(items)))


@pytest.mark.parametrize(
    "workload_path, sets, arch_name",
    [
        (GEMM, {"M": 8, "N": 8, "K": 8}, "systolic-4x4"),
        (GEMM, {"M": 6, "N": 4, "K": 5}, "multicast-8x8"),
        (CONV, {"K": 2, "C": 2, "OX": 3, "OY": 2, "RX": 2, "RY": 1}, "mesh-16x16"),
    ],
)
def test_fast_path_gives_analyze_numbers(workload_path, sets, arch_name):
    """Every key of the analyze JSON (warnings and per-step numbers included, `read_back`
    excepted) of sampled candidates equals plain `analyze` on the same dataflow."""
    workload = load_workload(workload_path, sets)
    arch = load_arch(ARCHS / f"{arch_name}.yaml")
    _, found = enumerate_candidates(workload, arch)
    shared = shared_work(pickle.dumps((workload, arch)))
    for e in sample(found, 4):
        space = parse_union_map(e.space).intersect_domain(workload.domain)
        time = parse_union_map(e.time).intersect_domain(workload.domain)
        fast = analyze_candidate(shared, e.name, space, time, per_step=True).to_dict()
        plain = analyze(workload, arch, Dataflow(e.name, space, time)).to_dict()
        assert without_read_back(fast) == without_read_back(plain)


def without_read_back(result: dict) -> dict:
    """The JSON without the write sides' `read_back`, which the fast path does not count (no
    objective it prunes on reads it; every front member is recounted by plain `analyze`)."""
    out = dict(result)
    out["tensors"] = {
        tensor: {
            side: None if v is None else {k: x for k, x in v.items() if k != "read_back"}
            for side, v in sides.items()
        }
        for tensor, sides in result["tensors"].items()
    }
    return out


def test_order_check_agrees_with_validate(tmp_path):
    """On a recurrence, the dependence check of the fast path accepts exactly the candidates
    `validate` finds legal; some are illegal (i across PEs runs all i at once)."""
    workload = load_workload(write_yaml(tmp_path, "rec", RECURRENCE))
    arch = load_arch(ARCHS / "systolic-4x4.yaml")
    _, found = enumerate_candidates(workload, arch)
    shared = shared_work(pickle.dumps((workload, arch)))
    verdicts = []
    for e in found:
        dataflow = Dataflow(e.name, parse_union_map(e.space), parse_union_map(e.time))
        legal = validate(workload, arch, dataflow).legal
        time = parse_union_map(e.time).intersect_domain(workload.domain)
        assert runs_in_order(shared, time) == legal, e
        verdicts.append(legal)
    assert True in verdicts and False in verdicts
    result = explore(workload, arch, objectives=("latency",), prune=False)
    assert result.legal == sum(verdicts)


SPACES = [
    # (workload, sets, arch, objectives): small spaces where the bounds prune some candidates
    (GEMM, {"M": 4, "N": 2, "K": 4}, "systolic-4x4", ("steps", "latency")),
    (GEMM, {"M": 4, "N": 2, "K": 4}, "systolic-4x4", ("compute", "energy")),
    (GEMM, {"M": 4, "N": 3, "K": 2}, "multicast-8x8", ("latency", "utilization")),
    (GEMM, {"M": 2, "N": 2, "K": 2}, "systolic-4x4", ("latency", "energy")),
    (GEMM, {"M": 2, "N": 4, "K": 3}, "systolic-4x4", ("time_steps", "active_pes")),
    (CONV, {"K": 2, "C": 1, "OX": 2, "OY": 1, "RX": 2, "RY": 1}, "systolic-4x4", ("steps",)),
]


@pytest.mark.parametrize("workload_path, sets, arch_name, objectives", SPACES)
def test_pruning_never_changes_the_front(workload_path, sets, arch_name, objectives):
    """Pruned and unpruned searches give the same front, ties included."""
    workload = load_workload(workload_path, sets)
    arch = load_arch(ARCHS / f"{arch_name}.yaml")
    pruned = explore(workload, arch, objectives, prune=True).to_dict()
    full = explore(workload, arch, objectives, prune=False).to_dict()
    assert full["pruned"] == 0
    assert pruned["pareto"] == full["pareto"]
    assert pruned["ties"] == full["ties"]
    assert pruned["evaluated"] + pruned["pruned"] == full["evaluated"]


def test_pruning_prunes():
    """The bounds do prune: GEMM 4x2x8 (64 instances) on a 4x4 array, objectives steps and
    compute delay. With N (2 long) on an axis at most 2·4 = 8 PEs are busy: >= 64/8 = 8
    steps and compute delay >= 64/8 = 8, while M and K on the axes give 64/16 = 4 of
    both, so once such a candidate is counted the others are pruned."""
    workload = load_workload(GEMM, {"M": 4, "N": 2, "K": 8})
    arch = load_arch(ARCHS / "systolic-4x4.yaml")
    result = explore(workload, arch, ("steps", "compute"), prune=True)
    assert result.pruned > 0
    assert result.pareto[0].analysis.steps == 4


def test_bounds_hold_on_every_candidate():
    """Every lower bound is at most the counted value (upper bound for maximised ones), on
    every candidate of a small GEMM space."""
    workload = load_workload(GEMM, {"M": 4, "N": 3, "K": 5})
    arch = load_arch(ARCHS / "multicast-8x8.yaml")  # 8x8: every loop fits an axis
    names = tuple(
        n
        for n in OBJECTIVES
        if n not in ("energy_pj", "edp", "area", "dram", "sbw", "ibw", "peak_ingress")
    )
    blob = pickle.dumps((workload, arch))
    basis = FloorBasis.of(shared_work(blob))
    _, found = enumerate_candidates(workload, arch)
    for e in found:
        outcome = count_task(CandidateTask(blob, e.name, e.space, e.time, 0, True, names))
        assert outcome.counted
        most = 1
        for name in e.candidate.spatial:
            if name is not None:
                most *= min({"i": 4, "j": 3, "k": 5}[name], 8)
        bounds = lower_bounds(basis, most)
        for name, signed in zip(names, outcome.vector):
            if name in bounds:
                better = -bounds[name] if OBJECTIVES[name].maximize else bounds[name]
                assert better <= signed, (e.name, name)


# --- the objectives that read component costs and memory levels ---------------------------------


def fake_analysis(cost=None, levels=None, latency=100, traffic=7):
    return SimpleNamespace(
        arch="fake", cost=cost, levels=levels, latency=latency, scratchpad_traffic=traffic
    )


def fake_cost(energy: Fraction, area: Fraction):
    return SimpleNamespace(
        energy_pj=SimpleNamespace(total=energy), area_um2=SimpleNamespace(total=area)
    )


def test_cost_objectives_read_the_cost():
    """energy_pj = cost.energy_pj.total; edp = that × latency (12.5 pJ × 100 cycles =
    1250 pJ·cycles); area = cost.area_um2.total."""
    analysis = fake_analysis(fake_cost(Fraction(25, 2), Fraction(3000)))
    assert OBJECTIVES["energy_pj"].value(analysis) == 12.5
    assert OBJECTIVES["edp"].value(analysis) == 1250.0
    assert OBJECTIVES["area"].value(analysis) == 3000.0


def test_dram_reads_the_outermost_level():
    """Levels under the outermost one: its reads + writes (3 + 4); without levels, the
    scratchpad traffic."""
    inner = SimpleNamespace(reads=100, writes=50, outermost_above=False)
    outer = SimpleNamespace(reads=3, writes=4, outermost_above=True)
    assert OBJECTIVES["dram"].value(fake_analysis(levels=[inner, outer])) == 7
    assert OBJECTIVES["dram"].value(fake_analysis(levels=[])) == 7
    assert OBJECTIVES["dram"].value(fake_analysis(levels=None, traffic=11)) == 11


@pytest.mark.parametrize("name", ["energy_pj", "edp", "area"])
def test_cost_objectives_without_costs_are_bad_input(name):
    with pytest.raises(InputError) as info:
        OBJECTIVES[name].value(fake_analysis(cost=None))
    assert "components" in info.value.message
    workload = load_workload(GEMM, {"M": 2, "N": 2, "K": 2})
    arch = load_arch(ARCHS / "systolic-4x4.yaml")
    with pytest.raises(InputError) as info:
        explore(workload, arch, ("latency", name))
    assert "needs component costs" in info.value.message


def test_new_objectives_parse():
    assert parse_objectives("energy_pj,edp,area,dram") == ("energy_pj", "edp", "area", "dram")


def test_objective_only_counts_give_the_same_values():
    """The search's counting (unique in one subtraction, no per-link counts) gives every
    objective the value of the full count, on sampled candidates of two arrays."""
    names = tuple(n for n in OBJECTIVES if n not in ("energy_pj", "edp", "area", "dram"))
    for arch_name in ("systolic-4x4", "mesh-16x16"):
        workload = load_workload(GEMM, {"M": 6, "N": 5, "K": 4})
        arch = load_arch(ARCHS / f"{arch_name}.yaml")
        _, found = enumerate_candidates(workload, arch)
        shared = shared_work(pickle.dumps((workload, arch)))
        for e in sample(found, 5, seed=3):
            space = parse_union_map(e.space).intersect_domain(workload.domain)
            time = parse_union_map(e.time).intersect_domain(workload.domain)
            full = analyze_candidate(shared, e.name, space, time, True)
            fast = analyze_candidate(shared, e.name, space, time, True, names)
            assert signed_values(fast, names) == signed_values(full, names)


@pytest.mark.parametrize(
    "objectives", [("latency",), pytest.param(("ibw",), marks=pytest.mark.slow)]
)
def test_counts_shared_between_data_assignments_equal_direct_counts(objectives):
    """The search counts a tensor side once per data assignment up to the order of its
    element coordinates (GEMM's A[i,k] and B[k,j] swap roles when i and j, of equal extents, swap). On every
    candidate of a symmetric space, each side's unique words and spatial reuse equal the
    counts made afresh for that candidate alone, and half the counts were shared. `ibw` (slow)
    also counts the spatial reuse (compared on every fourth candidate)."""
    workload = load_workload(GEMM, {"M": 8, "N": 8, "K": 4})
    arch = load_arch(ARCHS / "systolic-4x4.yaml")
    _, found = enumerate_candidates(workload, arch, interleave=True)
    shared = SharedWork.of(workload, arch)  # its own, empty, cache of counts
    sides = 0
    for n, e in enumerate(found):
        space = shared.space_map(e.space)
        time = parse_union_map(e.time).intersect_domain(workload.domain)
        fast = analyze_candidate(shared, e.name, space, time, False, objectives)
        stamps = Stamps(space, time, arch.pe_domain)
        relations = StampRelations(arch, stamps.space_domain, stamps.time_domain)
        for tensor in workload.tensors:
            for side in ("read", "write"):
                access = workload.access(tensor, side)
                if access is None:
                    continue
                links = links_for(arch, tensor, side)
                assignment = stamps.data_assignment(access)
                direct = count(assignment.subtract(relations.reuse(links).apply_range(assignment)))
                got = fast.volumes[tensor][side]
                assert got.unique == direct, (e.name, tensor, side)
                if "ibw" in objectives and n % 4 == 0:
                    spatial = relations.spatial(links).apply_range(assignment)
                    assert got.spatial_reuse == count(assignment.intersect(spatial))
                sides += 1
    assert sides == 3 * len(found)
    assert len(shared.counts) == sides / 2  # the i <-> j swap pairs every side with another


#: Each instance reads two elements of A (a multi-valued access), one of B.
TWO_READS = {
    "name": "two-reads",
    "statements": [
        {
            "domain": "{ S[i,j] : 0 <= i < 4 and 0 <= j < 3 }",
            "reads": {
                "A": "{ S[i,j] -> A[i + j]; S[i,j] -> A[i + j + 1] }",
                "B": "{ S[i,j] -> B[j] }",
            },
            "writes": {"C": "{ S[i,j] -> C[i] }"},
        }
    ],
}


@pytest.mark.parametrize(
    "workload_path, sets, arch_name",
    [
        (GEMM, {"M": 6, "N": 5, "K": 4}, "systolic-4x4"),
        (CONV, {"K": 2, "C": 2, "OX": 3, "OY": 2, "RX": 2, "RY": 1}, "mesh-16x16"),
        ("two-reads", None, "multicast-8x8"),
    ],
)
def test_search_counts_equal_analyze(tmp_path, workload_path, sets, arch_name):
    """The search's counting without per-step numbers (one count per side: for a
    single-valued access the stamps with a reuse partner holding the same element, else the
    pairs reached through M) gives every objective `analyze`'s value, on sampled candidates;
    `ibw` reads the spatial reuse. One space has a multi-valued access."""
    if workload_path == "two-reads":
        workload = load_workload(write_yaml(tmp_path, "two-reads", TWO_READS))
    else:
        workload = load_workload(workload_path, sets)
    arch = load_arch(ARCHS / f"{arch_name}.yaml")
    names = ("latency", "energy", "traffic", "ingress", "egress", "ibw")
    _, found = enumerate_candidates(workload, arch)
    shared = SharedWork.of(workload, arch)
    functions = {
        (t, side): shared.single_valued(workload.access(t, side))
        for t in workload.tensors
        for side in ("read", "write")
        if workload.access(t, side) is not None
    }
    assert (False in functions.values()) == (workload_path == "two-reads")
    for e in sample(found, 6, seed=5):
        space = parse_union_map(e.space).intersect_domain(workload.domain)
        time = parse_union_map(e.time).intersect_domain(workload.domain)
        fast = analyze_candidate(shared, e.name, space, time, False, names)
        plain = analyze(workload, arch, Dataflow(e.name, space, time))
        assert signed_values(fast, names) == signed_values(plain, names), e.name


#: A triangular array (PE[i,j] with j <= i < 4), links one PE left.
TRIANGLE = {
    "name": "tri",
    "pe": {"domain": "{ PE[i,j] : 0 <= i < 4 and 0 <= j <= i }"},
    "interconnect": [{"relation": "{ PE[i,j] -> PE[i,j-1] }", "window": [1]}],
    "memory": {"word_bits": 16, "bandwidth_bits": 64, "avg_latency": 1},
}


def test_array_that_is_not_a_box(tmp_path):
    """A triangular array (PE[i,j] with j <= i < 4): a candidate whose used PEs leave the
    triangle is illegal (outside_array), as `validate` finds; the search counts exactly the
    candidates `validate` accepts as legal, and its front is the plain model's."""
    arch = load_arch(write_yaml(tmp_path, "tri", TRIANGLE))
    # one loop longer than 1: on axis 0, PE[i, 0] stays in the triangle; on axis 1, PE[0, i]
    # leaves it (two loops on both axes would always reach PE[0, 1], outside)
    workload = load_workload(GEMM, {"M": 4, "N": 1, "K": 1})
    _, found = enumerate_candidates(workload, arch)
    legal = 0
    for e in found:
        dataflow = Dataflow(e.name, parse_union_map(e.space), parse_union_map(e.time))
        legal += validate(workload, arch, dataflow).legal
    assert 0 < legal < len(found)
    result = explore(workload, arch, ("latency",), prune=False)
    assert result.legal == legal
    best = result.pareto[0]
    plain = analyze(
        workload, arch, Dataflow("b", parse_union_map(best.space), parse_union_map(best.time))
    )
    assert plain.latency == best.analysis.latency
    assert validate(
        workload, arch, Dataflow("b", parse_union_map(best.space), parse_union_map(best.time))
    ).legal
