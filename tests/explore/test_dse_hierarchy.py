"""The `hierarchy` objective (delay.hierarchy, docs/levels.md) in the search: every front
member's value is what plain `analyze` of its dataflow gives, pruning with its bound
(delay.hierarchy >= delay.schedule >= steps + avg_latency − 1) keeps the front, and `edp`
multiplies by delay.hierarchy once levels are counted."""

from __future__ import annotations

import pytest
import yaml

from tenet import load_arch, load_workload
from tenet.explore.dse import explore
from tenet.model.dataflow import Dataflow
from tenet.model.metrics import analyze
from tenet.util.isl_util import parse_union_map

GEMM = "workloads/gemm/workload.yaml"


def write_arch(tmp_path, dram_gbps: float):
    arch = {
        "name": "sys2-glb",
        "pe": {"shape": [2, 2]},
        "interconnect": [
            {"relation": "{ PE[i,j] -> PE[i-1,j] }"},
            {"relation": "{ PE[i,j] -> PE[i,j-1] }"},
        ],
        "memory": {"word_bits": 16, "bandwidth_bits": 64, "avg_latency": 4},
        "levels": [
            {"name": "GLB", "capacity": 64},
            {"name": "DRAM", "capacity": "1GiB", "bandwidth_gbps": dram_gbps},
        ],
        "technology": {"node_nm": 45},
    }
    path = tmp_path / "arch.yaml"
    path.write_text(yaml.safe_dump(arch))
    return load_arch(str(path))


def plain(workload, arch, entry):
    flow = Dataflow(
        entry.name, parse_union_map(entry.space), parse_union_map(entry.time), tiles=entry.tiles
    )
    return analyze(workload, arch, flow)


@pytest.mark.slow
def test_hierarchy_objective_is_plain_analyze_and_pruning_keeps_the_front(tmp_path):
    workload = load_workload(GEMM, {"M": 4, "N": 4, "K": 2})
    arch = write_arch(tmp_path, 1)  # 8 bits a cycle: DRAM binds
    objectives = ("hierarchy", "time_steps")
    pruned = explore(workload, arch, objectives=objectives)
    full = explore(workload, arch, objectives=objectives, prune=False)
    assert pruned.to_dict()["pareto"] == full.to_dict()["pareto"]
    assert pruned.ties == full.ties
    for entry in pruned.pareto:
        result = plain(workload, arch, entry)
        values = entry.objective_values()
        assert values["hierarchy"] == result.hierarchy_delay
        assert result.hierarchy_delay >= result.schedule_delay
        # every DRAM word crosses at 1 byte a cycle: 2 cycles a 16-bit word
        assert result.hierarchy_delay >= 2 * result.dram_words()


def test_edp_uses_the_hierarchy_delay(tmp_path):
    workload = load_workload(GEMM, {"M": 4, "N": 4, "K": 2})
    arch = write_arch(tmp_path, 1)
    found = explore(workload, arch, objectives=("edp",))
    entry = found.pareto[0]
    result = plain(workload, arch, entry)
    assert entry.tiles  # the levels are counted
    expected = float(result.cost.energy_pj.total * result.hierarchy_delay)
    assert entry.objective_values()["edp"] == expected
