"""The one seam from counts to results (`tenet.model.assemble`): barvinok's Counts and the
brute-force enumeration's Counts assemble into the same Analysis; the closed forms
evaluated at a size assemble into analyze's counts; results are not changed once built;
and `Analysis(` is built in one place only."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from tenet import analyze, load_arch, load_dataflow, load_workload
from tenet.analysis.simulate import simulate_counts
from tenet.analysis.symbolic import analysis_at, counts_at, symbolic_analysis
from tenet.model.assemble import assemble, in_kind_order
from tenet.model.counting import analyze_counts
from tenet.model.warning_kinds import WARNING_KINDS, AnalysisWarning

from ..conftest import ARCHS, WORKLOADS

GEMM = WORKLOADS / "gemm"
HIERARCHY = Path(__file__).parent.parent / "data" / "hierarchy"
TENET = Path(__file__).parent.parent.parent / "tenet"

CASES = {
    # no warning, no cost
    "os-systolic": (ARCHS / "systolic-8x8.yaml", "os-systolic-8x8", {}),
    # both links reversed: two idle_link warnings
    "reversed-links": (ARCHS / "systolic-8x8-rev.yaml", "os-systolic-8x8", {}),
    # a GLB tiled at depth 2 below DRAM, with components: levels, hierarchy time and cost
    "levels-and-cost": (HIERARCHY / "sys8-glb-dram.yaml", "ws-systolic-8x8", {"GLB": 2}),
}


def case(name: str):
    arch_path, flow, tiles = CASES[name]
    workload = load_workload(GEMM / "workload.yaml", {"M": 10, "N": 9, "K": 6})
    dataflow = dataclasses.replace(load_dataflow(GEMM / "dataflows" / f"{flow}.yaml"), tiles=tiles)
    return workload, load_arch(arch_path), dataflow


@pytest.mark.parametrize("name", list(CASES))
def test_engine_and_enumeration_counts_assemble_alike(name):
    workload, arch, dataflow = case(name)
    engine = analyze_counts(workload, arch, dataflow)
    reference = simulate_counts(workload, arch, dataflow)
    assert engine.volumes == reference.volumes
    assert engine.actions == reference.actions
    assert engine.levels == reference.levels
    from_engine = assemble(engine, workload, arch, dataflow)
    from_reference = assemble(reference, workload, arch, dataflow)
    assert from_engine.to_dict() == from_reference.to_dict()
    assert from_engine.to_dict() == analyze(workload, arch, dataflow).to_dict()


def test_the_cases_cover_warnings_levels_and_cost():
    workload, arch, dataflow = case("reversed-links")
    kinds = [w.kind for w in analyze(workload, arch, dataflow).warnings]
    # both interconnect entries point from receiver to sender the wrong way round
    assert kinds == ["idle_link", "idle_link"]
    workload, arch, dataflow = case("levels-and-cost")
    result = analyze(workload, arch, dataflow)
    assert result.cost is not None and result.levels and result.hierarchy is not None
    # the DRAM part is priced from the GLB's words with DRAM, counted before the cost
    assert result.cost.energy_pj.dram > 0


def test_closed_forms_evaluated_assemble_into_analyze_counts():
    workload, arch, dataflow = case("os-systolic")
    result = symbolic_analysis(workload, arch, dataflow, {"K": 6})
    params = {"M": 10, "N": 9}
    counts = counts_at(result, params)
    direct = analyze_counts(workload, arch, dataflow, per_step=False)
    assert counts.volumes == direct.volumes
    assert (counts.instances, counts.stamps, counts.active_pes, counts.time_steps) == (
        direct.instances,
        direct.stamps,
        direct.active_pes,
        direct.time_steps,
    )
    evaluated = analysis_at(result, params, workload, arch, dataflow).to_dict()
    expected = analyze(workload, arch, dataflow, per_step=False).to_dict()
    # the closed forms give no levels; their bandwidth sums are exact, rounded once
    for key in ("bandwidth", "levels"):
        expected.pop(key, None)
        evaluated.pop(key, None)
    assert evaluated == expected


def test_results_are_not_changed_once_built():
    workload, arch, dataflow = case("os-systolic")
    counts = analyze_counts(workload, arch, dataflow)
    analysis = assemble(counts, workload, arch, dataflow)
    volumes = analysis.volumes["C"]["write"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        counts.instances = 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        analysis.warnings = []
    with pytest.raises(dataclasses.FrozenInstanceError):
        volumes.read_back = 0
    # read_back comes with the Volumes: C is written once per k at each PE and stays there
    # (output-stationary), so no partial sum leaves early: exits = elements, read_back 0
    assert volumes.read_back == 0


def test_warnings_follow_the_order_of_their_kinds():
    kinds = list(WARNING_KINDS)
    shuffled = [AnalysisWarning(kind, f"w{n}") for n, kind in enumerate(reversed(kinds))]
    assert [w.kind for w in in_kind_order(shuffled)] == kinds


def constructions(text: str) -> int:
    """Calls of the name `Analysis` (not `EvaluatedAnalysis(`, not `Analysis.from_dict(`)."""
    return len(re.findall(r"(?<![\w.])Analysis\(", text))


def test_analysis_is_built_in_one_place():
    found = {
        str(path.relative_to(TENET)): n
        for path in sorted(TENET.rglob("*.py"))
        if path.name != "results.py" and (n := constructions(path.read_text()))
    }
    assert found == {"model/assemble.py": 1}


def test_warning_kinds_keep_their_old_import_path():
    from tenet.model import checks, warning_kinds

    for name in ("AnalysisWarning", "WARNING_KINDS", "SUSPECT_KINDS", "warning_kind", "with_kinds"):
        assert getattr(checks, name) is getattr(warning_kinds, name)


def test_analysis_at_equals_analyze_at_that_size():
    """`analysis_at` (closed forms -> Counts -> assemble) gives the counts `analyze` gives
    at each size: every number but those with no closed form (warnings, the per-step
    numbers, levels and cost, which analysis_at leaves out)."""
    workload, arch, dataflow = case("os-systolic")
    result = symbolic_analysis(workload, arch, dataflow, {"K": 6})
    for params in ({"M": 10, "N": 9}, {"M": 17, "N": 3}):
        at_size = load_workload(GEMM / "workload.yaml", {**params, "K": 6})
        plain = analyze(at_size, arch, dataflow, per_step=False).to_dict()
        formulas = analysis_at(result, params, workload, arch, dataflow).to_dict()
        for key in ("instances", "macs", "active_pes", "time_steps", "tensors", "links", "energy"):
            assert formulas[key] == plain[key], key
        assert formulas["delay"] == plain["delay"]
