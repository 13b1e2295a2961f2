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

from dataclasses import dataclass
from typing import Any

from tenet.bounds.lower_bound import lower_bound
from tenet.bounds.problem import problem_from_workload
from tenet.bounds.snowcat_fast import snowcat_at
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


@dataclass(frozen=True)
class DramBound:
    """The `bound.dram` block: the dataflow's backing-store words at the level just inside
    the outermost (`dataflow_words`; `bound_words` charged as the lower bound's model
    charges them, None with `note` saying why not), the least Snowcat traffic and the
    proven lower bound at the capacity its tiles need; ratio = bound_words / lower_bound."""

    level: str
    above: str
    capacity_words: int
    dataflow_words: int
    bound_words: int | None
    note: str | None = None
    snowcat_accesses: int | None = None
    snowcat_mapping: str | None = None
    lower_bound: int | None = None

    @property
    def ratio_to_lower_bound(self) -> float | None:
        """bound_words / lower_bound (None without both, or with a 0 floor)."""
        if self.bound_words is None or not self.lower_bound:
            return None
        return self.bound_words / self.lower_bound

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of `bound.dram`."""
        return {
            "level": self.level,
            "above": self.above,
            "capacity_words": self.capacity_words,
            "dataflow_words": self.dataflow_words,
            "bound_words": self.bound_words,
            "snowcat_accesses": self.snowcat_accesses,
            "snowcat_mapping": self.snowcat_mapping,
            "lower_bound": self.lower_bound,
            "ratio_to_lower_bound": self.ratio_to_lower_bound,
            "note": self.note,
        }


def dram_bound(workload: Workload, analysis: Analysis) -> DramBound | None:
    """The `bound.dram` comparison: None when no level just inside the outermost has a tile."""
    level = backing_level(analysis)
    if level is None:
        return None
    words, why = bound_words(workload, level)
    if words is None:
        return DramBound(
            level.name, level.above, level.capacity_needed, level.words, None, note=why
        )
    problem = problem_from_workload(workload)
    point = snowcat_at(problem, level.capacity_needed)
    return DramBound(
        level.name,
        level.above,
        level.capacity_needed,
        level.words,
        words,
        note=why,
        snowcat_accesses=point.accesses if point else None,
        snowcat_mapping=point.mapping if point else None,
        lower_bound=lower_bound(problem, level.capacity_needed),
    )


def dram_against_bound(workload: Workload, analysis: Analysis) -> dict[str, Any] | None:
    """`dram_bound(...).to_dict()`, the `bound.dram` block as JSON (None without a level),
    for callers that still take a dictionary."""
    bound = dram_bound(workload, analysis)
    return bound.to_dict() if bound is not None else None
