"""The search's plain counts take three shortcuts (tenet/explore/tasks.py `_count_plain`):
no `validate` when legality is known (`known_legal`), no per-step numbers when no objective
reads them, and reuse relations left unsimplified (`simplify_relations=False`). Each must
give what `validate` and the default `analyze` give."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tenet import analyze, load_arch, load_workload
from tenet.analysis.validate import validate
from tenet.explore.candidate_counts import SharedWork
from tenet.explore.dse import enumerate_candidates
from tenet.explore.tasks import known_legal
from tenet.model.arch import with_topology
from tenet.model.dataflow import Dataflow
from tenet.util.isl_util import parse_union_map

from ..conftest import WORKLOADS
from ..helpers import write_yaml
from .test_dse_fast import TRIANGLE

GEMM = WORKLOADS / "gemm" / "workload.yaml"
CONV = WORKLOADS / "conv2d" / "workload.yaml"


def dataflow_of(e) -> Dataflow:
    return Dataflow(e.name, parse_union_map(e.space), parse_union_map(e.time))


def test_known_legal_is_validate_on_an_array_that_is_not_a_box(tmp_path):
    """On a triangular array some candidates leave the array: `known_legal` holds exactly for
    the candidates `validate` finds legal."""
    arch = load_arch(write_yaml(tmp_path, "tri", TRIANGLE))
    workload = load_workload(GEMM, {"M": 4, "N": 1, "K": 1})
    shared = SharedWork.of(workload, arch)
    _, found = enumerate_candidates(workload, arch)
    verdicts = []
    for e in found:
        task = SimpleNamespace(candidate=e.candidate, space=e.space)
        legal = validate(workload, arch, dataflow_of(e)).legal
        assert known_legal(shared, task) == legal
        verdicts.append(legal)
    assert True in verdicts and False in verdicts  # both kinds were checked


def test_not_known_with_flow_dependences(tmp_path):
    """A workload with a flow dependence: the order must be checked, so no candidate is
    known legal (and some are indeed illegal)."""
    path = write_yaml(
        tmp_path,
        "recurrence",
        {
            "name": "recurrence",
            "statements": [
                {
                    "domain": "{ S[i,j] : 1 <= i < 4 and 0 <= j < 4 }",
                    "reads": {"A": "{ S[i,j] -> A[i-1,j] }"},
                    "writes": {"A": "{ S[i,j] -> A[i,j] }"},
                }
            ],
        },
    )
    workload = load_workload(path)
    arch = load_arch("archs/systolic-4x4.yaml")
    shared = SharedWork.of(workload, arch)
    _, found = enumerate_candidates(workload, arch)
    assert not any(
        known_legal(shared, SimpleNamespace(candidate=e.candidate, space=e.space)) for e in found
    )
    assert not all(validate(workload, arch, dataflow_of(e)).legal for e in found)


def priced_arch(tmp_path, topology: str):
    """A 4x4 array of the topology with the built-in 40 nm costs."""
    data = {
        "name": "array-4x4",
        "pe": {"shape": [4, 4]},
        "interconnect": [{"relation": "{ PE[i,j] -> PE[i-1,j] }"}],
        "memory": {"word_bits": 16, "bandwidth_bits": 64, "avg_latency": 16},
        "technology": {"node_nm": 40},
    }
    return with_topology(load_arch(write_yaml(tmp_path, "array", data)), topology)


@pytest.mark.parametrize("topology", ["mesh", "torus", "row-multicast", "systolic-2d"])
def test_unsimplified_relations_count_the_same(tmp_path, topology):
    """Every volume and the energy in pJ of sampled conv candidates: the same with the
    relations simplified (the default) and as built, with and without per-step numbers
    (mesh and torus have same-step cycles: their starved groups are counted as well)."""
    workload = load_workload(CONV, {"K": 4, "C": 4, "OX": 4, "OY": 4, "RX": 2, "RY": 2})
    arch = priced_arch(tmp_path, topology)
    _, found = enumerate_candidates(workload, arch)
    for e in found[:: max(1, len(found) // 6)][:6]:
        reference = analyze(workload, arch, dataflow_of(e))
        fast = analyze(workload, arch, dataflow_of(e), per_step=False, simplify_relations=False)
        assert fast.cost.energy_pj == reference.cost.energy_pj
        assert fast.volumes == reference.volumes
        assert fast.time_steps == reference.time_steps


def test_energy_with_levels_needs_no_per_step_numbers(tmp_path):
    """With a GLB under DRAM and tile depths, energy_pj (DRAM words priced) is the same
    without the per-step numbers."""
    arch = load_arch(
        write_yaml(
            tmp_path,
            "glb",
            {
                "name": "glb",
                "pe": {"shape": [2, 2]},
                "interconnect": [
                    {"relation": "{ PE[i,j] -> PE[i-1,j] }"},
                    {"relation": "{ PE[i,j] -> PE[i,j-1] }"},
                ],
                "memory": {"word_bits": 16, "bandwidth_bits": 64, "avg_latency": 16},
                "levels": [
                    {"name": "GLB", "capacity": 24, "double_buffered": False},
                    {"name": "DRAM", "capacity": "1GiB", "bandwidth_gbps": 100},
                ],
                "technology": {"node_nm": 45},
            },
        )
    )
    workload = load_workload(GEMM, {"M": 4, "N": 4, "K": 4})
    space = parse_union_map("{ S[i, j, k] -> PE[i % 2, j % 2] }")
    time = parse_union_map("{ S[i, j, k] -> T[floor(i/2), floor(j/2), k] }")
    for depth in (1, 2):
        dataflow = Dataflow(f"d{depth}", space, time, tiles={"GLB": depth})
        reference = analyze(workload, arch, dataflow)
        fast = analyze(workload, arch, dataflow, per_step=False, simplify_relations=False)
        assert reference.cost.energy_pj.dram > 0  # the DRAM words are priced
        assert fast.cost.energy_pj == reference.cost.energy_pj
