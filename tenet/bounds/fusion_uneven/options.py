"""The choices of the uneven fused search: where each tensor's tile may sit (its options),
and the one loop that combines one option per tensor into costs, vectorised over a batch of
tile sizes.

A choice's buffer is the peak over the probes of the words of its live tiles; tiles kept
across row tiles (above the innermost row loop) are summed apart, since the searches of
long segments and of separate blocks add them on top of the peak of the rest.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from tenet.bounds.fusion_uneven.nest import (
    FIRST,
    LAST,
    MIDDLE,
    STREAM,
    NestLoop,
    SegmentSpec,
    Step,
    Tile,
    common_depth,
    indexes,
    keep,
    loop_depth,
    place,
    probes,
    tensor_dims,
    written_in_time,
)


def positions(spec: SegmentSpec, path: list[NestLoop], kind: str, e: int, rows: int) -> list[str]:
    """Positions that can change a tensor's cost: just inside a loop that indexes it, or
    above every loop. Moving a tile above a loop that does not index it changes nothing;
    an activation above a row loop only grows (every row loop indexes it)."""
    dims = tensor_dims(spec, kind, e)
    names = ["top"] + [lp.name for lp in path if indexes(spec, lp, dims)]
    if kind != "W" and rows and all(lp.dim == "M" for lp in path[:rows]):
        names = [lp.name for lp in path[rows - 1 :] if indexes(spec, lp, dims)]
    return names


def broadcast(value: Any, n: int) -> np.ndarray:
    """An int or an array over the batch, as an int64 array of n entries."""
    return np.broadcast_to(np.asarray(value, dtype=np.int64), (n,))


@dataclass
class Option:
    """One choice for a group of tiles: the (tensor, position) pairs and the tiles."""

    choice: tuple[tuple[str, str], ...]
    tiles: list[Tile]


def tensor_options(
    spec: SegmentSpec,
    steps: list[Step],
    kind: str,
    e: int,
    role: str,
    rows: int,
) -> list[Option]:
    """Every useful position of tensor `kind`e's tile (a weight may also stream)."""
    path = next(s.path for s in steps if s.product == e)
    key = f"{kind}{e}"
    out = []
    stream = None
    if kind == "W":
        stream = place(spec, steps, kind, e, 0, "stream", key)
        out.append(Option(((key, "stream"),), [stream]))
    for name in positions(spec, path, kind, e, rows):
        tile = place(spec, steps, kind, e, loop_depth(path, name), role, key)
        if stream is not None and np.all(np.asarray(tile.traffic) >= np.asarray(stream.traffic)):
            continue  # no reuse a streamed weight lacks: streaming is never worse
        out.append(Option(((key, name),), [tile]))
    return out


def intermediate_options(
    spec: SegmentSpec, steps: list[Step], e: int, rows: int, kept_allowed: bool = True
) -> list[Option]:
    """Product e's output, read by product e + 1: kept on chip, or spilled (the producer's O
    tile and the consumer's A tile placed, both where the write comes in time)."""
    options = [Option((), [keep(spec, steps, e)])] if kept_allowed else []
    for o in tensor_options(spec, steps, "O", e, "output", rows):
        if not written_in_time(steps, e, o.tiles[0]):
            continue
        for a in tensor_options(spec, steps, "A", e + 1, "input", rows):
            if written_in_time(steps, e, a.tiles[0]):
                options.append(Option(o.choice + a.choice, o.tiles + a.tiles))
    return options


def group_options(
    spec: SegmentSpec, steps: list[Step], rows: int, kept_allowed: bool = True
) -> list[list[Option]]:
    """Option lists of the segment's tensors: A0, each W, each intermediate (kept, or the
    producer's O and consumer's A placed), the last O."""
    E = spec.products
    groups = [tensor_options(spec, steps, "A", 0, "input", rows)]
    for e in range(E):
        groups.append(tensor_options(spec, steps, "W", e, "input", rows))
        if e + 1 < E:
            groups.append(intermediate_options(spec, steps, e, rows, kept_allowed))
    groups.append(tensor_options(spec, steps, "O", E - 1, "output", rows))
    return groups


def tile_classes(
    combos: Iterator[tuple[int, ...]], sizes: tuple[int, ...]
) -> dict[tuple, list[tuple[int, ...]]]:
    """Tile combinations grouped by which loops exist and which have exactly two trips (the
    nest's shape, so its liveness, is the same within a group)."""
    out: dict[tuple, list[tuple[int, ...]]] = {}
    for combo in combos:
        key = tuple(min(size // t, 3) for t, size in zip(combo, sizes))
        out.setdefault(key, []).append(combo)
    return out


# --- liveness over every probe, vectorised --------------------------------------------------


def _live_vector(tile: Tile, steps: list[Step], cache: dict) -> np.ndarray:
    """Whether the tile is live at each probe (tiles of the same users, position and L*
    share one vector)."""
    key = (tuple(tile.users), tile.depth, tile.star)
    if key not in cache:
        cache[key] = _live_array(tile, steps, cache)
    return cache[key]


def _patterns(steps: list[Step], s: int, cache: dict) -> np.ndarray:
    """Every first/middle/last pattern of step s's loops, in `probes` order."""
    key = ("patterns", s)
    if key not in cache:
        options = [(FIRST, LAST) if lp.two else (FIRST, MIDDLE, LAST) for lp in steps[s].path]
        rows = list(itertools.product(*options))
        cache[key] = np.array(rows, dtype=np.int8).reshape(len(rows), len(options))
    return cache[key]


def _live_array(tile: Tile, steps: list[Step], cache: dict) -> np.ndarray:
    """`live` at every probe, one step's patterns at a time (the same rule, vectorized)."""
    out = []
    first, last = steps[tile.users[0]], steps[tile.users[-1]]
    for s, here in enumerate(steps):
        patterns = _patterns(steps, s, cache)
        if tile.depth == STREAM:
            out.append(np.full(len(patterns), s == tile.users[0]))
            continue
        q_first, q_last = common_depth(here, first), common_depth(here, last)
        if min(q_first, q_last) < tile.star:
            out.append(np.zeros(len(patterns), dtype=bool))
            continue
        after = (patterns[:, tile.star : q_first] != FIRST).any(axis=1)
        if s == tile.users[0] or here.address[q_first] > first.address[q_first]:
            after[:] = True
        before = (patterns[:, tile.star : q_last] != LAST).any(axis=1)
        if s == tile.users[-1] or here.address[q_last] < last.address[q_last]:
            before[:] = True
        out.append(after & before)
    return np.concatenate(out)


def _relevant_probes(tiles: list[Tile], steps: list[Step], cache: dict) -> np.ndarray:
    """Indices of the probes whose live set is not contained in another probe's for every
    choice of tiles (words are never negative, so only these can hold the peak)."""
    if not tiles:
        return np.arange(min(1, len(probes(steps))))
    matrix = np.array([_live_vector(t, steps, cache) for t in tiles], dtype=bool)
    _, first = np.unique(matrix, axis=1, return_index=True)
    first = np.sort(first)
    columns = matrix[:, first]
    covers = (columns[:, :, None] >= columns[:, None, :]).all(axis=0)  # i covers j
    np.fill_diagonal(covers, False)
    dominated = covers.any(axis=0)
    return first[~dominated]


# --- the option loop -----------------------------------------------------------------------


@dataclass
class Choice:
    """One option per group, over a batch of n tile sizes: `peak` of the words not kept
    across row tiles, `kept` the words kept across row tiles, `accesses` the traffic."""

    choice: tuple[tuple[str, str], ...]
    peak: np.ndarray
    kept: np.ndarray
    accesses: np.ndarray


def option_choices(
    groups: list[list[Option]],
    steps: list[Step],
    n: int,
    rows: int | None = None,
    probed: bool = True,
) -> Iterator[Choice]:
    """Every choice of one option per group, in `itertools.product` order. A tile is kept
    across row tiles when it is not streamed and its L* is above the innermost of `rows`
    row loops (never, with rows None). peak = max over probes of the live words of the
    other tiles; unprobed (`probed=False`), their sum (every one counted live at once)."""

    def local(t: Tile) -> bool:
        return rows is None or t.depth == STREAM or t.star >= rows

    cache: dict = {}
    if probed:
        local_tiles = [t for options in groups for o in options for t in o.tiles if local(t)]
        keep_probes = _relevant_probes(local_tiles, steps, cache)
        count = len(keep_probes)
    else:
        count = 1
    contrib = []
    for options in groups:
        per = []
        for o in options:
            words = np.zeros((count, n), dtype=np.int64)
            kept = np.zeros(n, dtype=np.int64)
            traffic = np.zeros(n, dtype=np.int64)
            for t in o.tiles:
                w = broadcast(t.words, n)
                traffic += broadcast(t.traffic, n)
                if not local(t):
                    kept += w
                elif probed:
                    words[_live_vector(t, steps, cache)[keep_probes]] += w
                else:
                    words[0] += w
            per.append((words, kept, traffic))
        contrib.append(per)
    for pick in itertools.product(*(range(len(g)) for g in groups)):
        words = sum(contrib[g][i][0] for g, i in enumerate(pick))
        yield Choice(
            tuple(c for g, i in enumerate(pick) for c in groups[g][i].choice),
            words.max(axis=0),
            sum(contrib[g][i][1] for g, i in enumerate(pick)),
            sum(contrib[g][i][2] for g, i in enumerate(pick)),
        )
