"""The energy_pj and edp objectives prune with a proven floor: the MACs, one register read
per operand access and one register write per output access, the output's accumulation
reads and the scratchpad rows of each side's first accesses (docs/dse.md). No candidate
costs less, and the front is the same with and without pruning."""

from __future__ import annotations

from fractions import Fraction

import pytest
import yaml

from tenet import load_arch, load_workload
from tenet.explore.candidate_counts import shared_work
from tenet.explore.dse import explore
from tenet.explore.prune import floors
from tenet.explore.space import enumerate_candidates
from tenet.model.dataflow import Dataflow
from tenet.model.metrics import analyze
from tenet.util.isl_util import parse_union_map

GEMM = "workloads/gemm/workload.yaml"


def priced_arch(tmp_path):
    data = {
        "name": "sys2-priced",
        "pe": {"shape": [2, 2]},
        "interconnect": [
            {"relation": "{ PE[i,j] -> PE[i-1,j] }"},
            {"relation": "{ PE[i,j] -> PE[i,j-1] }"},
        ],
        "components": {
            "mac": {"energy_pj": 1, "area_um2": 1},
            "register": {"read_pj": 0.1, "write_pj": 0.2, "area_um2": 1},
            "scratchpad": {
                "size_bytes": 2048,
                "width_bits": 16,
                "read_pj": 5,
                "write_pj": 6,
                "area_um2": 1,
            },
            "wire": {"pj_per_bit_mm": 0},
        },
    }
    path = tmp_path / "arch.yaml"
    path.write_text(yaml.safe_dump(data))
    return load_arch(str(path))


def test_the_floor_by_hand_and_below_every_candidate(tmp_path):
    """GEMM 4x4x2: 32 MACs (32 pJ); 64 operand reads x 0.1; 32 accumulator writes x 0.2;
    32 − 16 accumulation reads x 0.1; A (8) and B (8) fetched once at least x 5; C's 16
    elements written back once at least x 6: 32 + 6.4 + 6.4 + 1.6 + 80 + 96 = 222.4 pJ."""
    workload = load_workload(GEMM, {"M": 4, "N": 4, "K": 2})
    arch = priced_arch(tmp_path)
    import pickle

    basis = shared_work(pickle.dumps((workload, arch))).floor_basis()
    assert basis.energy_pj == Fraction("222.4")
    floor = floors(basis, 4).energy_pj
    _, found = enumerate_candidates(workload, arch)
    for e in found[:24]:
        flow = Dataflow(e.name, parse_union_map(e.space), parse_union_map(e.time))
        assert floor <= float(analyze(workload, arch, flow).cost.energy_pj.total)


@pytest.mark.slow
@pytest.mark.parametrize("objectives", [("energy_pj", "latency"), ("edp",)])
def test_pruning_with_the_energy_floor_keeps_the_front(tmp_path, objectives):
    workload = load_workload(GEMM, {"M": 4, "N": 4, "K": 2})
    arch = priced_arch(tmp_path)
    pruned = explore(workload, arch, objectives=objectives)
    full = explore(workload, arch, objectives=objectives, prune=False)
    assert pruned.to_dict()["pareto"] == full.to_dict()["pareto"]
    assert pruned.ties == full.ties
