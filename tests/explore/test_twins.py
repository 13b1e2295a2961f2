"""Twins (tenet/explore/renaming.py `twin_key`): candidates equal up to one renaming of loops
that maps every access onto itself. The search counts one of each group and settles the
others with its outcome; here the claim is checked by counting both with plain `analyze`."""

from __future__ import annotations

import json

import pytest

from tenet import analyze, load_workload
from tenet.analysis.validate import flow_dependences
from tenet.explore.dse import enumerate_candidates, explore
from tenet.explore.renaming import LoopRenaming, twins_of
from tenet.model.dataflow import Dataflow
from tenet.util.isl_util import parse_union_map

from ..conftest import WORKLOADS
from .test_plain_count_path import priced_arch

CONV = WORKLOADS / "conv2d" / "workload.yaml"
GEMM = WORKLOADS / "gemm" / "workload.yaml"
# OX = OY and RX = RY: swapping (OX, RX) with (OY, RY) maps I[ox+rx, oy+ry, c],
# W[k, c, rx, ry] and O[k, ox, oy] each onto itself, its element coordinates swapped
SQUARE = {"K": 4, "C": 2, "OX": 4, "OY": 4, "RX": 2, "RY": 2}


def twins_in(workload, arch):
    _, found = enumerate_candidates(workload, arch)
    renaming = LoopRenaming.of(workload, flow_dependences(workload))
    return found, twins_of(renaming, found)


def whole(workload, arch, e) -> str:
    """The analyze JSON of a candidate, without its name and notation."""
    flow = Dataflow("x", parse_union_map(e.space), parse_union_map(e.time))
    data = analyze(workload, arch, flow).to_dict()
    data.pop("notation", None)
    return json.dumps(data, sort_keys=True)


@pytest.mark.parametrize("topology", ["mesh", "row-multicast", "systolic-2d"])
def test_twins_have_equal_analyses(tmp_path, topology):
    """Every twin pair sampled: the whole analysis (volumes, energy in pJ, latency, warnings)
    is the same; on the square conv each candidate has exactly one twin."""
    workload = load_workload(CONV, SQUARE)
    arch = priced_arch(tmp_path, topology)
    found, twins = twins_in(workload, arch)
    assert twins and all(len(later) == 1 for later in twins.values())
    assert 2 * len(twins) == len(found)
    pairs = sorted(twins.items())
    for first, (second,) in pairs[:: max(1, len(pairs) // 6)][:6]:
        assert whole(workload, arch, found[first]) == whole(workload, arch, found[second])


def test_no_twins_without_a_symmetry(tmp_path):
    """GEMM's three tensors have different shapes, and a conv with OX != OY has no loop
    renaming that keeps the extents: no twins."""
    arch = priced_arch(tmp_path, "mesh")
    assert twins_in(load_workload(GEMM, {"M": 4, "N": 4, "K": 4}), arch)[1] == {}
    oblong = dict(SQUARE, OY=2)
    assert twins_in(load_workload(CONV, oblong), arch)[1] == {}


def test_search_settles_twins_with_the_plain_models_numbers(tmp_path):
    """`explore` by energy_pj on the square conv counts half the candidates itself; its best
    value is the least plain `analyze` gives over every candidate, its ties are every other
    candidate at that value (a twin among them), and evaluated + pruned covers them all."""
    workload = load_workload(CONV, dict(SQUARE, K=2, C=1, OX=2, OY=2))
    arch = priced_arch(tmp_path, "row-multicast")
    result = explore(workload, arch, ("energy_pj",))
    found, _ = twins_in(workload, arch)
    assert result.twins == len(found) // 2
    assert result.evaluated + result.pruned == len(found)
    values = []
    for e in found:
        flow = Dataflow("x", parse_union_map(e.space), parse_union_map(e.time))
        values.append(analyze(workload, arch, flow).cost.energy_pj.total)
    best = min(values)
    assert float(best) == result.pareto[0].objective_values()["energy_pj"]
    assert result.ties == values.count(best) - 1 >= 1
