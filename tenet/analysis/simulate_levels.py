"""Brute-force reference for the traffic of the memory levels (docs/levels.md).

The tiles of each level are walked one after another, in lexicographic order, with the set
of elements each tile accesses: what was not in the previous tile enters, what is not in the
next one leaves, and a stay that wrote its element writes it back. No barvinok here.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from tenet.analysis.points import relation_pairs, unique_rows
from tenet.model.arch import Arch
from tenet.model.dataflow import BoundDataflow
from tenet.model.hierarchy_time import HierarchyTime, LevelTime, bound_by
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
) -> tuple[list[int], list[int]]:
    """(reads at each tile, writes after each tile) of one tensor: walk the tiles in order;
    `free_first[e]` is the tile of e's first access when that access is a write (its entry
    there is no read)."""
    reads, writes = [0] * n_tiles, [0] * n_tiles
    dirty: set[int] = set()
    for u in range(n_tiles):
        before = footprint[u - 1] if u else set()
        after = footprint[u + 1] if u + 1 < n_tiles else set()
        for e in footprint[u] - before:
            if free_first.get(e) != u:
                reads[u] += 1
        dirty |= written[u]
        for e in footprint[u] - after:
            if e in dirty:
                writes[u] += 1
                dirty.discard(e)
    return reads, writes


@dataclass(frozen=True)
class TileWalk:
    """One level's tiles as the walk saw them: the tile of each used step (ids in
    lexicographic order), and per tile the words filled from the level above and written
    back after it."""

    name: str
    tile_of_step: np.ndarray
    fills: list[int]
    drains: list[int]


def simulate_levels(
    run, workload: Workload, arch: Arch, bound: BoundDataflow, source: str | None = None
) -> list[LevelTraffic]:
    """The LevelTraffic of every level with a tile depth, by enumeration (`run` is the
    simulator's Enumeration of the instances)."""
    return [traffic for traffic, _ in simulate_level_walks(run, workload, arch, bound, source)]


def simulate_level_walks(
    run, workload: Workload, arch: Arch, bound: BoundDataflow, source: str | None = None
) -> list[tuple[LevelTraffic, TileWalk]]:
    """`simulate_levels`, each level with its walk (`TileWalk`)."""
    if not bound.tiles:
        return []
    chosen = check_tile_depths(bound.tiles, arch.levels, bound.time_tuple[1], source)
    accesses = {tensor: _accesses(run, workload, tensor) for tensor in workload.tensors}
    out = []
    for index, depth in chosen:
        level, above = arch.levels[index], arch.levels[index + 1]
        _, tile_of_step = unique_rows(run.times[:, :depth])  # rows sorted: ids in lex order
        n_tiles = int(tile_of_step.max()) + 1
        step_tile = tile_of_step[run.instance_step]
        per_tile = [0] * n_tiles
        fills, drains = [0] * n_tiles, [0] * n_tiles
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
            reads, writes = _walk(n_tiles, footprint, written, free_first)
            tensors[tensor] = (sum(reads), sum(writes))
            for u in range(n_tiles):
                per_tile[u] += len(footprint[u])
                fills[u] += reads[u]
                drains[u] += writes[u]
        single = max(per_tile)
        # double buffered: tile u, the words arriving for next(u), those prev(u) writes back
        double = max(
            per_tile[u] + (fills[u + 1] if u + 1 < n_tiles else 0) + (drains[u - 1] if u else 0)
            for u in range(n_tiles)
        )
        out.append(
            (
                LevelTraffic(
                    name=level.name,
                    above=above.name,
                    tile_depth=depth,
                    tiles=n_tiles,
                    capacity_needed=double if level.double_buffered else single,
                    capacity=level.capacity_words,
                    tensors=tensors,
                    word_bits=arch.memory.word_bits,
                    bandwidth_gbps=above.bandwidth_gbps,
                    outermost_above=index + 1 == len(arch.levels) - 1,
                    capacity_needed_single=single,
                    double_buffered=level.double_buffered,
                ),
                TileWalk(level.name, tile_of_step, fills, drains),
            )
        )
    return out


def _transfer(words: int, word_bits: int, bits_per_cycle: Fraction) -> int:
    """ceil(words · word_bits / bits_per_cycle)."""
    return -(-Fraction(words * word_bits) // bits_per_cycle)


def walk_hierarchy(
    walks: list[tuple[LevelTraffic, TileWalk]], arch: Arch, step_costs: list[int]
) -> HierarchyTime | None:
    """The time through the hierarchy (docs/levels.md) by walking the tiles of each level
    in order, innermost first, from the cost of each used step (in time order)."""
    if not walks:
        return None
    by_name = {level.name: level for level in arch.levels}
    inner_tile = walks[0][1].tile_of_step
    compute = [0] * len(walks[0][1].fills)
    for step, cost in enumerate(step_costs):
        compute[int(inner_tile[step])] += cost
    out, ends_total, s = [], 0, compute
    for n, (traffic, walk) in enumerate(walks):
        n_tiles = len(walk.fills)
        if n:  # the inner tiles' s(v), summed into the tile holding them
            compute = [0] * n_tiles
            inner = walks[n - 1][1].tile_of_step
            seen = {}
            for step in range(len(step_costs)):
                seen[int(inner[step])] = int(walk.tile_of_step[step])
            for v, u in seen.items():
                compute[u] += s[v]
        b = by_name[traffic.above].bits_per_cycle(arch.clock_ghz)
        fill = [_transfer(w, traffic.word_bits, b) for w in walk.fills]
        drain = [_transfer(w, traffic.word_bits, b) for w in walk.drains]
        double = by_name[traffic.name].double_buffered
        if double:
            s = [
                max(
                    compute[u],
                    (fill[u + 1] if u + 1 < n_tiles else 0) + (drain[u - 1] if u else 0),
                )
                for u in range(n_tiles)
            ]
            ends = fill[0] + drain[-1]
        else:
            s = [fill[u] + compute[u] + drain[u] for u in range(n_tiles)]
            ends = 0
        ends_total += ends
        stall = sum(s) + ends - sum(compute)
        out.append(LevelTime(traffic.name, sum(fill), sum(drain), double, stall, ends))
    total = sum(s) + ends_total
    levels = tuple(out)
    return HierarchyTime(total, bound_by(total, sum(step_costs), len(step_costs), levels), levels)
