"""`tenet compare` shows delay.hierarchy (docs/levels.md) as a ranked row when every
column times its memory levels; the faster DRAM wins."""

from __future__ import annotations

from tenet import analyze, load_arch, load_dataflow, load_workload
from tenet.analysis.compare import comparison_rows
from tenet.model.dataflow import with_tiles

from ..conftest import ROOT, WORKLOADS

DATA = ROOT / "tests" / "data" / "hierarchy"


def test_hierarchy_row_ranks_the_faster_dram():
    workload = load_workload(WORKLOADS / "gemm" / "workload.yaml", {"M": 16, "N": 16, "K": 16})
    flow = with_tiles(
        load_dataflow(WORKLOADS / "gemm" / "dataflows" / "os-systolic-8x8.yaml"), {"GLB": 2}
    )
    results = [
        analyze(workload, load_arch(DATA / name), flow)
        for name in ("sys8-glb-dram.yaml", "sys8-glb-dram128.yaml")
    ]
    rows = comparison_rows([r.to_dict() for r in results])
    (row,) = [r for r in rows if r.label == "delay through the hierarchy (cycles)"]
    assert row.values == [r.hierarchy_delay for r in results]
    # 2 GB/s moves one 16-bit word a cycle: the 1,024 DRAM words alone take 1,024 cycles
    assert row.values[0] >= results[0].dram_words() == 1_024
    assert row.best() == {1}


def test_no_hierarchy_row_without_levels():
    workload = load_workload(WORKLOADS / "gemm" / "workload.yaml", {"M": 8, "N": 8, "K": 8})
    flow = load_dataflow(WORKLOADS / "gemm" / "dataflows" / "os-systolic-8x8.yaml")
    result = analyze(workload, load_arch(DATA / "sys8-glb-dram.yaml"), flow).to_dict()
    labels = [r.label for r in comparison_rows([result, result])]
    assert "delay through the hierarchy (cycles)" not in labels
