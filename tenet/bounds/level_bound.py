"""`analyze --bound` with memory levels: the dataflow's own backing-store traffic (the level
just inside the outermost one, docs/levels.md) next to the least traffic over Snowcat
mappings and the proven lower bound, both at the capacity the dataflow's tiles need.

Like with like: the lower bound's model (docs/bounds.md, "Lower bounds") charges an input
word once per fetch and an output word 2W - |O| (its first fill free, every later fill a
read, every fill a write-back). The level rule charges a schedule of tiles the same way,
except that an output the workload also reads (a read-modify-write `C = C + ...`) pays a
read at its first entry: those |O| reads are taken off before comparing (`bound_words`).
A tiled dataflow is a schedule of that model with a buffer of `capacity_needed` words (a
tile's words stay while it runs; between tiles the leaving words go before the entering
ones arrive), so `bound_words >= lower_bound` always.
"""

from __future__ import annotations

from typing import Any

from tenet.bounds.lower_bound import lower_bound
from tenet.bounds.snowcat import problem_from_workload, snowcat_at
from tenet.errors import InputError
from tenet.model.levels import LevelTraffic
from tenet.model.metrics import Analysis
from tenet.model.workload import Workload


def backing_level(analysis: Analysis) -> LevelTraffic | None:
    """The level whose level above is the outermost (None when it has no tile depth)."""
    return next((level for level in analysis.levels if level.outermost_above), None)


def bound_words(workload: Workload, level: LevelTraffic) -> tuple[int | None, str | None]:
    """(words charged as the lower bound's model charges them, None) or (None, why not)."""
    try:
        problem = problem_from_workload(workload)
    except InputError as exc:
        return None, exc.message
    words = level.words
    for tensor in problem.tensors:
        if not tensor.output:
            continue
        read = workload.access(tensor.name, "read")
        if read is None:
            continue
        if not read.is_equal(workload.access(tensor.name, "write")):
            return None, f"output {tensor.name} is read at other elements than it is written"
        words -= problem.size(tensor)  # each output word's first entry is a read here
    return words, None


def dram_against_bound(workload: Workload, analysis: Analysis) -> dict[str, Any] | None:
    """The `bound.dram` block: None when no level just inside the outermost has a tile."""
    level = backing_level(analysis)
    if level is None:
        return None
    words, why = bound_words(workload, level)
    out: dict[str, Any] = {
        "level": level.name,
        "above": level.above,
        "capacity_words": level.capacity_needed,
        "dataflow_words": level.words,
        "bound_words": words,
        "snowcat_accesses": None,
        "snowcat_mapping": None,
        "lower_bound": None,
        "ratio_to_lower_bound": None,
        "note": why,
    }
    if words is None:
        return out
    problem = problem_from_workload(workload)
    point = snowcat_at(problem, level.capacity_needed)
    floor = lower_bound(problem, level.capacity_needed)
    out.update(
        snowcat_accesses=point.accesses if point else None,
        snowcat_mapping=point.mapping if point else None,
        lower_bound=floor,
        ratio_to_lower_bound=words / floor if floor else None,
    )
    return out
