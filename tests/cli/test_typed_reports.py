"""The report takes typed results and turns them into JSON itself: the same output as from
their dicts (analyze, analyze --bound, validate, trace)."""

from __future__ import annotations

from tenet import analyze, load_arch, load_dataflow, load_workload
from tenet.analysis.trace import trace
from tenet.analysis.validate import validate
from tenet.bounds.bounded_analysis import BoundedAnalysis, bounded_analysis
from tenet.report.tables import render, trace_table, validation_text

from ..conftest import ARCHS, WORKLOADS


def inputs():
    workload = load_workload(WORKLOADS / "gemm" / "workload.yaml", {"M": 8, "N": 8, "K": 4})
    arch = load_arch(ARCHS / "systolic-8x8.yaml")
    flow = load_dataflow(WORKLOADS / "gemm" / "dataflows" / "os-systolic-8x8.yaml")
    return workload, arch, flow


def test_analysis_renders_as_its_dict():
    result = analyze(*inputs())
    for fmt in ("table", "json", "csv"):
        assert render([result], fmt) == render([result.to_dict()], fmt)


def test_bounded_analysis_is_the_analysis_with_its_bound_block():
    workload, arch, flow = inputs()
    result = analyze(workload, arch, flow)
    bounded = bounded_analysis(workload, arch, result)
    assert isinstance(bounded, BoundedAnalysis) and bounded.dram is None  # no levels
    data = bounded.to_dict()
    assert {k: v for k, v in data.items() if k != "bound"} == result.to_dict()
    # the bound block is at the buffer the dataflow needs: 64 PEs x 256 + 1,024 words
    assert data["bound"]["capacity_words"] == 64 * 256 + 1024
    assert render([bounded], "json") == render([data], "json")


def test_validation_and_trace_render_as_their_dicts():
    workload, arch, flow = inputs()
    verdict = validate(workload, arch, flow)
    assert validation_text(verdict) == validation_text(verdict.to_dict())
    steps = trace(workload, arch, flow, "A", "read", 4, 4, 10_000)
    assert trace_table(steps, "t") == trace_table(steps.to_dict(), "t")
