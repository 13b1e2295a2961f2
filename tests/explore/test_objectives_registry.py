"""The objectives' registry (`tenet.explore.objectives.OBJECTIVES`): every entry has a unit, a
direction and a getter equal to its value in the `analyze` JSON; every table of objectives is
derived from it; a floor (pruning's lower bound) never beats the plain model's value; and the
search's task and outcome records read the journal lines written before they were dataclasses."""

from __future__ import annotations

import json
import pickle
import random
from dataclasses import replace

import pytest
import yaml

from tenet import analyze, load_arch, load_dataflow, load_workload
from tenet.analysis.validate import validate
from tenet.errors import InputError
from tenet.explore import objectives as registry
from tenet.explore.candidate_counts import shared_work
from tenet.explore.dse import enumerate_candidates, explore
from tenet.explore.objectives import OBJECTIVES
from tenet.explore.prune import lower_bounds, most_active_pes
from tenet.explore.space import Candidate, design_space
from tenet.explore.tasks import CandidateTask, Outcome
from tenet.explore.tiling import dram_floor
from tenet.model.components import technology_components
from tenet.model.dataflow import Dataflow
from tenet.util.isl_util import parse_union_map

from ..conftest import ARCHS, WORKLOADS

GEMM = WORKLOADS / "gemm" / "workload.yaml"
GEMM_FLOWS = WORKLOADS / "gemm" / "dataflows"


def levels_arch(tmp_path, technology: bool = True):
    """A 2x2 systolic array under a GLB of 64 words (single-buffered) and DRAM, priced at
    45 nm when `technology`."""
    arch = {
        "name": "sys2-glb64",
        "pe": {"shape": [2, 2]},
        "interconnect": [
            {"relation": "{ PE[i,j] -> PE[i-1,j] }"},
            {"relation": "{ PE[i,j] -> PE[i,j-1] }"},
        ],
        "memory": {"word_bits": 16, "bandwidth_bits": 64, "avg_latency": 16},
        "levels": [
            {"name": "GLB", "capacity": 64, "double_buffered": False},  # words
            {"name": "DRAM", "capacity": "1GiB", "bandwidth_gbps": 100},
        ],
    }
    if technology:
        arch["technology"] = {"node_nm": 45}
    path = tmp_path / "arch.yaml"
    path.write_text(yaml.safe_dump(arch))
    return load_arch(str(path))


def priced_analyses(tmp_path):
    """A GEMM output stationary on the 8x8 systolic array with 45 nm costs (no memory level
    is timed), and a 4³ GEMM on a 2x2 array under a GLB tiled at depth 2 (delay.hierarchy
    and the DRAM words of levels[] are there)."""
    arch = load_arch(ARCHS / "systolic-8x8.yaml")
    priced = replace(arch, components=technology_components(45, 16, 2048))
    workload = load_workload(GEMM, {"M": 8, "N": 8, "K": 32})
    flat = analyze(workload, priced, load_dataflow(GEMM_FLOWS / "os-systolic-8x8.yaml"))
    small = load_workload(GEMM, {"M": 4, "N": 4, "K": 4})
    tiled = Dataflow(
        "ij-ij-2",
        parse_union_map("{ S[i, j, k] -> PE[i % 2, j % 2] }"),
        parse_union_map("{ S[i, j, k] -> T[floor(i/2), floor(j/2), k] }"),
        tiles={"GLB": 2},
    )
    return [flat, analyze(small, levels_arch(tmp_path), tiled)]


def outermost_level(analysis) -> str | None:
    """The name of the arch's outermost memory level, from the analysis's levels."""
    return next((level.above for level in analysis.levels or [] if level.outermost_above), None)


def test_every_objective_has_a_unit_a_direction_and_a_json_getter(tmp_path):
    """value(analysis) is the number at the objective's place in `analyze`'s JSON (read back
    from the JSON text), with and without memory levels; edp is the exact energy times the
    delay rounded once, the JSON's product is of a rounded energy (relative 1e-15)."""
    cases = priced_analyses(tmp_path)
    assert cases[1].hierarchy_delay is not None  # the GLB's transfers are timed
    assert cases[1].dram_words() is not None
    for name, objective in OBJECTIVES.items():
        assert objective.name == name
        assert objective.unit, name
        assert isinstance(objective.maximize, bool), name
        assert objective.json_value is not None, name
        for analysis in cases:
            data = json.loads(json.dumps(analysis.to_dict()))
            outermost = outermost_level(analysis)
            value, expected = objective.value(analysis), objective.json_value(data, outermost)
            if name == "edp":
                assert value == pytest.approx(expected, rel=1e-15)
            else:
                assert value == expected, name


def test_hierarchy_and_dram_read_the_levels(tmp_path):
    """On the tiled case the two objectives read the levels, not their fallbacks: hierarchy
    is delay.hierarchy and dram the GLB's reads + writes. By hand: GLB tiles
    (floor(i/2), floor(j/2)) in that order, 4 tiles of 2x2 outputs over K = 4; A's 2x4 block
    stays while j's tile changes (2 blocks · 8 = 16 words), B's 4x2 block is read for every
    tile (4 · 8 = 32), C's 2x2 block written once per tile (4 · 4 = 16): 64 words."""
    tiled = priced_analyses(tmp_path)[1]
    data = tiled.to_dict()
    assert OBJECTIVES["hierarchy"].value(tiled) == data["delay"]["hierarchy"]
    assert OBJECTIVES["dram"].value(tiled) == 16 + 32 + 16
    assert OBJECTIVES["traffic"].value(tiled) != 64  # not the fallback


def test_the_tables_of_objectives_are_derived_from_the_registry():
    """Each table lists exactly the entries with its property, in registry order."""
    tables = {
        "COST_OBJECTIVES": lambda o: o.needs_cost,
        "ADDITIVE_OBJECTIVES": lambda o: o.additive,
        "PER_STEP_OBJECTIVES": lambda o: o.per_step,
        "SPATIAL_OBJECTIVES": lambda o: o.spatial,
        "PLAIN_OBJECTIVES": lambda o: o.plain,
        "PRUNABLE_OBJECTIVES": lambda o: o.floor is not None,
    }
    for table, test in tables.items():
        assert getattr(registry, table) == tuple(n for n, o in OBJECTIVES.items() if test(o))
    # what the search needs, by hand from the metrics' definitions (docs/metrics.md)
    assert set(registry.COST_OBJECTIVES) == {"energy_pj", "edp", "area"}
    assert set(registry.SPATIAL_OBJECTIVES) == {"ibw"}  # the only one reading M_x
    assert {"utilization", "active_pes"} == {n for n, o in OBJECTIVES.items() if o.maximize}


def floor_cases(tmp_path):
    """(workload, arch): a 4x3x5 GEMM on the 8x8 multicast array (no levels), and a 4³ GEMM
    on the 2x2 array under a GLB (every candidate with a GLB tile depth)."""
    return [
        (load_workload(GEMM, {"M": 4, "N": 3, "K": 5}), load_arch(ARCHS / "multicast-8x8.yaml")),
        (load_workload(GEMM, {"M": 4, "N": 4, "K": 4}), levels_arch(tmp_path, technology=False)),
    ]


@pytest.mark.parametrize("case", [0, 1])
def test_a_floor_never_beats_the_plain_value(tmp_path, case):
    """On 8 random candidates, every floor is at most the value `validate` + `analyze` count
    (at least it, for the maximised ones); every prunable objective has a floor."""
    workload, arch = floor_cases(tmp_path)[case]
    _, found = enumerate_candidates(workload, arch)
    basis = shared_work(pickle.dumps((workload, arch))).floor_basis()
    space = design_space(workload, arch)
    dram = dram_floor(workload, arch, basis.first_reads + basis.first_writes)
    checked = 0
    for e in random.Random(case).sample(found, 8):
        dataflow = Dataflow(
            e.name, parse_union_map(e.space), parse_union_map(e.time), tiles=dict(e.tiles)
        )
        if not validate(workload, arch, dataflow).legal:
            continue
        analysis = analyze(workload, arch, dataflow)
        floors = lower_bounds(basis, most_active_pes(space, e), dram_words=dram)
        priced = arch.components is not None  # the cost floors need component costs
        expected = {
            n for n in registry.PRUNABLE_OBJECTIVES if priced or not OBJECTIVES[n].needs_cost
        }
        assert set(floors) == expected
        for name, floor in floors.items():
            value = OBJECTIVES[name].value(analysis)
            if OBJECTIVES[name].maximize:
                assert value <= floor, (e.name, name)
            else:
                assert floor <= value, (e.name, name)
        checked += 1
    assert checked >= 4


# --- the worker's task and outcome ---------------------------------------------------------------


def test_outcome_records_are_the_journal_lines_of_before():
    """The four kinds of outcome write the JSON objects the journal held before outcomes were
    dataclasses, and read them (and objects with keys they do not know) back."""
    old = [
        {"legal": False, "violations": ["dependence"]},
        {"legal": True, "vector": [12, 3.5]},
        {"legal": True, "pruned": True},
        {"legal": True, "error": "isl gave up"},
    ]
    for record in old:
        outcome = Outcome.from_record(record, 2)
        assert outcome.to_record() == record
        assert Outcome.from_record({**record, "a_later_key": 1}, 2) == outcome
    assert Outcome.from_record(old[1], 2).vector == (12, 3.5)
    assert [Outcome.from_record(r, 2).counted for r in old] == [False, True, False, False]


@pytest.mark.parametrize(
    "record", [{"vector": [1, 2]}, {"legal": True}, {"legal": True, "vector": [1]}, [1, 2]]
)
def test_a_damaged_outcome_names_the_journal(record):
    with pytest.raises(InputError, match="delete the journal") as error:
        Outcome.from_record(record, 2, "dse.jsonl")
    assert "dse.jsonl" in str(error.value)


def test_task_record_round_trip():
    """A task's JSON object (without the pickled workload and arch) gives the task back."""
    candidate = Candidate(("i", None), (("tile", "i"), ("loop", "k")), (1, 0))
    task = CandidateTask(
        b"context", "c-1", "{ S[i] -> PE[i % 2] }", "{ S[i] -> T[i] }", 0, True,
        ("latency", "energy"), [[3, 4.5]], (("GLB", 2),), candidate,
    )  # fmt: skip
    record = json.loads(json.dumps(task.to_record()))
    assert "context" not in record
    assert CandidateTask.from_record(record, b"context") == task
    plain = replace(task, candidate=None, tiles=(), front_so_far=None)
    assert CandidateTask.from_record(plain.to_record(), b"context") == plain


def test_a_journal_of_before_resumes_and_foreign_lines_are_ignored(tmp_path):
    """A journal whose outcome records carry a key this version does not write, plus a record
    under a key no task of this search has, resumes the search: the same result, nothing
    counted again, nothing appended."""
    workload = load_workload(GEMM, {"M": 4, "N": 4, "K": 8})
    arch = load_arch(ARCHS / "systolic-4x4.yaml")
    journal = tmp_path / "dse.jsonl"
    first = explore(workload, arch, limit=12, seed=3, journal=journal).to_dict()
    lines = []
    for line in journal.read_text().splitlines():
        record = json.loads(line)
        for outcome in record["result"].values():
            assert set(outcome) <= {"legal", "vector", "violations", "pruned", "error"}
            outcome["a_later_key"] = True
        lines.append(json.dumps(record))
    lines.append(json.dumps({"key": "chunk-of-another-search", "result": {"x": {"legal": 1}}}))
    journal.write_text("\n".join(lines) + "\n")
    assert explore(workload, arch, limit=12, seed=3, journal=journal).to_dict() == first
    assert journal.read_text().splitlines() == lines
