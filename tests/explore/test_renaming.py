"""Candidates equal up to a renaming of loops share their counts (tenet.explore.renaming):
every shared count equals the count made for that candidate alone, the keys tell apart
candidates that no renaming relates, and workloads where the argument does not hold are
counted per candidate."""

from __future__ import annotations

import pickle

import islpy as isl
import pytest

from tenet import analyze, load_arch, load_workload
from tenet.explore.candidate_counts import (
    SharedWork,
    analyze_candidate,
    forget_shared_work,
    shared_work,
)
from tenet.explore.dse import enumerate_candidates, explore
from tenet.explore.renaming import access_shape, box_domain, candidate_key
from tenet.explore.space import Candidate, Loop, statement_loops
from tenet.explore.tasks import CandidateTask, count_task, signed_values
from tenet.model.dataflow import Dataflow
from tenet.util.isl_util import parse_union_map

from ..conftest import ARCHS, WORKLOADS
from ..helpers import write_yaml

GEMM = WORKLOADS / "gemm" / "workload.yaml"
CONV = WORKLOADS / "conv2d" / "workload.yaml"

#: Loops that start at 1 and 2 (i and j alike), and an access coordinate that sums two loops.
SHIFTED = {
    "name": "shifted",
    "statements": [
        {
            "domain": "{ S[i,j,k] : 1 <= i <= 4 and 1 <= j <= 4 and 2 <= k <= 4 }",
            "reads": {"A": "{ S[i,j,k] -> A[i + k, j] }", "B": "{ S[i,j,k] -> B[k, j] }"},
            "writes": {"C": "{ S[i,j,k] -> C[i, j] }"},
        }
    ],
}

#: Triangular: not a box, so no renaming maps it onto itself in general.
TRIANGLE = {
    "name": "triangle",
    "statements": [
        {
            "domain": "{ S[i,j,k] : 0 <= i < 4 and 0 <= j <= i and 0 <= k < 3 }",
            "reads": {"A": "{ S[i,j,k] -> A[i, k] }", "B": "{ S[i,j,k] -> B[k, j] }"},
            "writes": {"C": "{ S[i,j,k] -> C[i, j] }"},
        }
    ],
}

NAMES = ("latency", "energy", "traffic", "ingress", "egress", "steps", "active_pes", "ibw")


def renamed_and_direct(workload, arch, interleave: bool):
    """Per candidate, (signed objective values from the search's task with the candidate, so
    counts are shared between renamed candidates; the same from `analyze_candidate` on a
    fresh SharedWork that shares nothing by renaming), and the search's SharedWork."""
    _, found = enumerate_candidates(workload, arch, interleave=interleave)
    blob = pickle.dumps((workload, arch))
    forget_shared_work()
    searched = shared_work(blob)  # the one count_task uses, empty
    direct = SharedWork.of(workload, arch)
    pairs = []
    for e in found:
        task = CandidateTask(blob, e.name, e.space, e.time, 0, False, NAMES, None, (), e.candidate)
        outcome = count_task(task)
        space = parse_union_map(e.space).intersect_domain(workload.domain)
        time = parse_union_map(e.time).intersect_domain(workload.domain)
        alone = analyze_candidate(direct, e.name, space, time, False, NAMES)
        pairs.append((e.name, list(outcome.vector), signed_values(alone, NAMES)))
    forget_shared_work()
    return pairs, searched


@pytest.mark.parametrize(
    "workload_path, sets, arch_name, interleave",
    [
        (GEMM, {"M": 8, "N": 8, "K": 4}, "systolic-4x4", True),
        pytest.param(
            CONV,
            {"K": 2, "C": 1, "OX": 3, "OY": 3, "RX": 2, "RY": 2},
            "systolic-4x4",
            False,
            marks=pytest.mark.slow,  # 5 s: the default run's budget (docs/contributing.md)
        ),
        ("shifted", None, "systolic-8x8-rev", True),
    ],
)
def test_shared_counts_equal_counts_made_alone(
    tmp_path, workload_path, sets, arch_name, interleave
):
    """Every objective of every candidate (spatial reuse included) is the same whether its
    counts came from a renamed candidate or were made for it alone; on each space some
    counts were shared (fewer counts kept than sides counted)."""
    if workload_path == "shifted":
        workload = load_workload(write_yaml(tmp_path, "shifted", SHIFTED))
    else:
        workload = load_workload(workload_path, sets)
    arch = load_arch(ARCHS / f"{arch_name}.yaml")
    pairs, searched = renamed_and_direct(workload, arch, interleave)
    for name, shared_vector, alone_vector in pairs:
        assert shared_vector == alone_vector, name
    assert searched.renaming() is not None
    sides = sum(1 for t in workload.tensors for s in ("read", "write") if workload.access(t, s))
    assert 0 < len(searched.renamed_counts) < sides * len(pairs)


def test_symmetric_gemm_counts_once_per_orbit():
    """GEMM 8x8x8 on a 4x4 array (i, j and k all run 8; every side may use both links): each
    access names two of the three loops, and the renaming that swaps those two keeps the
    access up to the order of its coordinates, so per side the 144 interleaved candidates
    pair off into 72 classes; a renaming that carries one side's pair of loops onto
    another's makes the three sides share those classes: 72 counts for 432 sides."""
    workload = load_workload(GEMM, {"M": 8, "N": 8, "K": 8})
    arch = load_arch(ARCHS / "systolic-4x4.yaml")
    pairs, searched = renamed_and_direct(workload, arch, True)
    assert len(pairs) == 144
    assert all(a == b for _, a, b in pairs)
    assert len(searched.renamed_counts) == 72


def test_keys_tell_apart_what_no_renaming_relates():
    """i and k both on PE axes and both tiled: the order (tile i, tile k) against (tile k,
    tile i) is no renaming of the same candidate (a renaming that swaps i and k also swaps
    the axes), so the keys differ; swapping i and j everywhere is a renaming, and with the
    access A[i, k] written A[j, k] for it the keys are equal."""
    loops = (Loop("i", 0, 8), Loop("j", 0, 8), Loop("k", 0, 8))
    first = Candidate(("i", "k"), (("tile", "i"), ("tile", "k"), ("loop", "j")), (0, 0))
    second = Candidate(("i", "k"), (("tile", "k"), ("tile", "i"), ("loop", "j")), (0, 0))
    assert candidate_key(loops, first) != candidate_key(loops, second)
    swapped = Candidate(("j", "k"), (("tile", "j"), ("tile", "k"), ("loop", "i")), (0, 0))
    a_ik = access_of("{ S[i,j,k] -> A[i, k] : 0 <= i,j,k < 8 }")
    a_jk = access_of("{ S[i,j,k] -> A[k, j] : 0 <= i,j,k < 8 }")
    assert candidate_key(loops, first, a_ik) == candidate_key(loops, swapped, a_jk)
    assert candidate_key(loops, first, a_ik) != candidate_key(loops, swapped, a_ik)
    a_2ik = access_of("{ S[i,j,k] -> A[2i, k] : 0 <= i,j,k < 8 }")
    assert candidate_key(loops, first, a_ik) != candidate_key(loops, first, a_2ik)
    a_ik1 = access_of("{ S[i,j,k] -> A[i, k + 1] : 0 <= i,j,k < 8 }")
    assert candidate_key(loops, first, a_ik) != candidate_key(loops, first, a_ik1)
    # a loop of another extent is no renaming
    other = (Loop("i", 0, 8), Loop("j", 0, 4), Loop("k", 0, 8))
    assert candidate_key(other, first) != candidate_key(other, swapped)


def access_of(text: str):
    domain = isl.UnionSet("{ S[i,j,k] : 0 <= i,j,k < 8 }")
    return access_shape(isl.UnionMap(text), domain)


def test_access_shapes():
    """Integer affine terms of each coordinate; None for a quasi-affine, partial or
    piecewise access (those sides are counted per candidate)."""
    shape = access_of("{ S[i,j,k] -> I[2i + k, j - 1] : 0 <= i,j,k < 8 }")
    assert shape.coordinates == ((((0, 2), (2, 1)), 0), (((1, 1),), -1))
    assert access_of("{ S[i,j,k] -> A[floor(i/2), k] : 0 <= i,j,k < 8 }") is None
    assert access_of("{ S[i,j,k] -> A[i, k] : 0 <= i < 4 and 0 <= j,k < 8 }") is None
    piecewise = "{ S[i,j,k] -> A[i, k] : 0 <= i < 4 and 0 <= j,k < 8; S[i,j,k] -> A[k, i] : 4 <= i < 8 and 0 <= j,k < 8 }"
    assert access_of(piecewise) is None


def test_box_domain(tmp_path):
    box = load_workload(GEMM, {"M": 3, "N": 2, "K": 4})
    statement, loops = statement_loops(box)
    assert box_domain(box.domain, statement, loops)
    triangle = load_workload(write_yaml(tmp_path, "triangle", TRIANGLE))
    statement, loops = statement_loops(triangle)
    assert not box_domain(triangle.domain, statement, loops)


def test_triangle_is_counted_per_candidate(tmp_path):
    """A domain that is not a box shares nothing by renaming, and the search's front is the
    plain model's (explore checks every front member with `analyze`)."""
    workload = load_workload(write_yaml(tmp_path, "triangle", TRIANGLE))
    arch = load_arch(ARCHS / "systolic-4x4.yaml")
    assert SharedWork.of(workload, arch).renaming() is None
    result = explore(workload, arch, ("latency",), prune=False)
    best = result.pareto[0]
    plain = analyze(
        workload, arch, Dataflow("best", parse_union_map(best.space), parse_union_map(best.time))
    )
    assert plain.latency == best.analysis.latency
