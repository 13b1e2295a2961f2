"""Brute-force reference for the traffic of the memory levels (docs/levels.md).

The tiles of each level are walked one after another, in lexicographic order, with the set
of elements each tile accesses: what was not in the previous tile enters, what is not in the
next one leaves, and a stay that wrote its element writes it back. No barvinok here.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from tenet.analysis.points import relation_pairs, unique_rows
from tenet.model.arch import Arch
from tenet.model.dataflow import BoundDataflow
from tenet.model.levels import LevelTraffic, check_tile_depths
from tenet.model.workload import SIDES, Workload


def _accesses(run, workload: Workload, tensor: str) -> dict[str, list[tuple[int, int]]]:
    """(instance, element id) pairs of each side of one tensor, element ids shared by both
    sides."""
    parts: dict[str, tuple[list, list]] = {}
    for side in SIDES:
        access = workload.access(tensor, side)
        if access is None:
            continue
        instances, coords = [], []
        for src, idx, _dst, img in relation_pairs(access, run.points):
            instances.append(run.offsets[src] + idx)
            coords.append(img)
        parts[side] = (np.concatenate(instances), np.concatenate(coords))
    _, ids = unique_rows(np.concatenate([c for _, c in parts.values()]))
    out, start = {side: [] for side in SIDES}, 0
    for side, (instances, coords) in parts.items():
        elements = ids[start : start + len(coords)]
        start += len(coords)
        out[side] = list(zip(instances.tolist(), elements.tolist()))
    return out


def _walk(
    n_tiles: int,
    footprint: list[set[int]],
    written: list[set[int]],
    free_first: dict[int, int],
) -> tuple[int, int]:
    """(reads, writes) of one tensor: walk the tiles in order; `free_first[e]` is the tile
    of e's first access when that access is a write (its entry there is no read)."""
    reads = writes = 0
    dirty: set[int] = set()
    for u in range(n_tiles):
        before = footprint[u - 1] if u else set()
        after = footprint[u + 1] if u + 1 < n_tiles else set()
        for e in footprint[u] - before:
            if free_first.get(e) != u:
                reads += 1
        dirty |= written[u]
        for e in footprint[u] - after:
            if e in dirty:
                writes += 1
                dirty.discard(e)
    return reads, writes


def simulate_levels(
    run, workload: Workload, arch: Arch, bound: BoundDataflow, source: str | None = None
) -> list[LevelTraffic]:
    """The LevelTraffic of every level with a tile depth, by enumeration (`run` is the
    simulator's Enumeration of the instances)."""
    if not bound.tiles:
        return []
    chosen = check_tile_depths(
        bound.tiles, arch.levels, bound.time_tuple[1], source, bound.tile_flags
    )
    accesses = {tensor: _accesses(run, workload, tensor) for tensor in workload.tensors}
    out = []
    for index, depth in chosen:
        level, above = arch.levels[index], arch.levels[index + 1]
        _, tile_of_step = unique_rows(run.times[:, :depth])  # rows sorted: ids in lex order
        n_tiles = int(tile_of_step.max()) + 1
        step_tile = tile_of_step[run.instance_step]
        per_tile = [0] * n_tiles
        tensors = {}
        for tensor, sides in accesses.items():
            footprint: list[set[int]] = [set() for _ in range(n_tiles)]
            written: list[set[int]] = [set() for _ in range(n_tiles)]
            first: dict[int, int] = {}  # element -> first step
            kinds: dict[tuple[int, int], set[str]] = defaultdict(set)  # (element, step)
            for side, pairs in sides.items():
                for instance, e in pairs:
                    step = int(run.instance_step[instance])
                    tile = int(step_tile[instance])
                    footprint[tile].add(e)
                    if side == "write":
                        written[tile].add(e)
                    first[e] = min(first.get(e, step), step)
                    kinds[(e, step)].add(side)
            free_first = {
                e: int(tile_of_step[step])
                for e, step in first.items()
                if kinds[(e, step)] == {"write"}
            }
            tensors[tensor] = _walk(n_tiles, footprint, written, free_first)
            for u in range(n_tiles):
                per_tile[u] += len(footprint[u])
        out.append(
            LevelTraffic(
                name=level.name,
                above=above.name,
                tile_depth=depth,
                tiles=n_tiles,
                capacity_needed=max(per_tile),
                capacity=level.capacity_words,
                tensors=tensors,
                word_bits=arch.memory.word_bits,
                bandwidth_gbps=above.bandwidth_gbps,
                outermost_above=index + 1 == len(arch.levels) - 1,
            )
        )
    return out
