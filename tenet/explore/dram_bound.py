"""A search's front member against the bounds: its DRAM words next to the least over
Snowcat mappings with the buffer its schedule needs (docs/dse.md, `dram_vs_bound`)."""

from __future__ import annotations

from typing import Any

from tenet.model.metrics import Analysis
from tenet.model.workload import Workload


def dram_against_snowcat(
    workload: Workload, analysis: Analysis, cache: dict[int, Any] | None = None
) -> dict[str, Any] | None:
    """A front member's DRAM words next to the least over Snowcat mappings whose buffer is
    the tiled level's `capacity_needed_single` words (the buffer the member's schedule
    needs, docs/levels.md "Against the bounds"); None when no level just inside the
    outermost has a tile depth. `ratio` = bound_words / snowcat_accesses, where
    `bound_words` = DRAM words charged as the bounds charge them (`bound_words`)."""
    from tenet.bounds.level_bound import backing_level, bound_words
    from tenet.bounds.snowcat import problem_from_workload, snowcat_at

    level = backing_level(analysis)
    if level is None:
        return None
    capacity = level.capacity_needed_single
    if capacity is None:  # pragma: no cover - always counted by analyze
        capacity = level.capacity_needed
    words, why = bound_words(workload, level)
    block: dict[str, Any] = {
        "level": level.name,
        "above": level.above,
        "capacity_words": capacity,
        "capacity_basis": "capacity_needed_single",
        "dram_words": level.words,
        "bound_words": words,
        "snowcat_accesses": None,
        "snowcat_mapping": None,
        "ratio": None,
        "note": why,
    }
    if words is None:
        return block
    cache = {} if cache is None else cache
    if capacity not in cache:
        cache[capacity] = snowcat_at(problem_from_workload(workload), capacity)
    point = cache[capacity]
    if point is None:
        block["note"] = f"no Snowcat mapping fits {capacity:,} words"
        return block
    block.update(snowcat_accesses=point.accesses, snowcat_mapping=point.mapping)
    if point.accesses:
        block["ratio"] = words / point.accesses
    return block
