"""Uneven fused segments of three or more products (`long_front`).

Blocks run one after another inside the row loops: a product alone, or two products sharing
the loop over their intermediate's columns. Between blocks the intermediate stays on chip as
a whole row tile (spilling it there is never better than cutting the segment, which the
uneven front also tries). When the innermost row loop has at least three trips, every tile
kept across row tiles (P) is live at every step of a middle row tile, and the other tiles
live only inside their block's row tile, so the peak is sum(P) + max over blocks of the
block's own peak (A): exact, and separable.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from tenet.bounds.fusion_uneven.nest import (
    Mapping,
    SegmentSpec,
    Step,
    Tile,
    lone_nest,
    pair_nest,
    row_loops,
    steps_of,
)
from tenet.bounds.fusion_uneven.options import (
    Option,
    intermediate_options,
    option_choices,
    tensor_options,
    tile_classes,
)
from tenet.bounds.snowcat import divisors, pareto_front


def _held(spec: SegmentSpec, steps: list[Step], m0: int, e: int, side: str, rows: int) -> Tile:
    """The whole-row intermediate a block receives (side 'in', read by product e) or hands
    on (side 'out', written by product e): live from the block's start or to its end."""
    step = next(i for i, s in enumerate(steps) if s.product == e)
    if side == "in":
        words = m0 * spec.c[e] * spec.factor_a[e]
    else:
        words = m0 * spec.c[e + 1] * spec.factor_o[e]
    return Tile(f"H{side}{e}", [step], rows, rows, words, 0, "kept")


@dataclass
class _BlockChoices:
    """Every choice of one block: own peak A, words kept across row tiles P, accesses, and
    what rebuilds each choice's part of the mapping."""

    peak: np.ndarray
    kept: np.ndarray
    accesses: np.ndarray
    parts: list[Callable[[], dict]]


def _block_nests(spec: SegmentSpec, m0: int, block: tuple[int, ...]) -> list[tuple]:
    """(tile sizes, nest, loop order) of every nest shape of a block: one product alone
    (K, N tiles; either order), or two sharing S (K, S, N tiles)."""
    e = block[0]
    shapes = []
    if len(block) == 1:
        sizes = (spec.c[e], spec.c[e + 1])
        combos = itertools.product(divisors(sizes[0]), divisors(sizes[1]))
        for combos_ in tile_classes(combos, sizes).values():
            arr = np.array(combos_, dtype=np.int64)
            both = sizes[0] // combos_[0][0] > 1 and sizes[1] // combos_[0][1] > 1
            for order in ("KN", "NK") if both else ("KN",):
                shapes.append((arr, lone_nest(spec, m0, e, arr[:, 0], arr[:, 1], order), order))
    else:
        sizes = (spec.c[e], spec.c[e + 1], spec.c[e + 2])
        combos = itertools.product(
            divisors(sizes[0]), [s for s in divisors(sizes[1]) if s < sizes[1]], divisors(sizes[2])
        )
        for combos_ in tile_classes(combos, sizes).values():
            arr = np.array(combos_, dtype=np.int64)
            shapes.append((arr, pair_nest(spec, m0, e, arr[:, 0], arr[:, 1], arr[:, 2]), "KN"))
    return shapes


def _block_groups(
    spec: SegmentSpec, steps: list[Step], m0: int, block: tuple[int, ...], rows: int
) -> list[list[Option]]:
    """Option lists of a block's tensors: its input (A0, or the whole-row intermediate it
    receives), weights, inner intermediate, and its output (the last O, or the whole-row
    intermediate it hands on)."""
    e, last = block[0], block[-1]
    groups: list[list[Option]] = []
    if e == 0:
        groups.append(tensor_options(spec, steps, "A", 0, "input", rows))
    else:
        groups.append([Option((), [_held(spec, steps, m0, e, "in", rows)])])
    groups.append(tensor_options(spec, steps, "W", e, "input", rows))
    if len(block) == 2:
        groups.append(intermediate_options(spec, steps, e, rows))
        groups.append(tensor_options(spec, steps, "W", e + 1, "input", rows))
    if last == spec.products - 1:
        groups.append(tensor_options(spec, steps, "O", last, "output", rows))
    else:
        groups.append([Option((), [_held(spec, steps, m0, last, "out", rows)])])
    return groups


def _block_part(block: tuple[int, ...], tiles: list[int], order: str, choice: tuple) -> dict:
    """A block's part of the mapping: its tile sizes, loop orders and placements."""
    e = block[0]
    out: dict = {"placement": choice}
    if len(block) == 1:
        out["k0"] = {e: tiles[0]}
        out["n0"] = {e: tiles[1]}
        out["order"] = {e: order}
    else:
        out["k0"] = {e: tiles[0], e + 1: tiles[1]}
        out["n0"] = {e: tiles[1], e + 1: tiles[2]}
        out["order"] = {e: "KN", e + 1: "KN"}
        out["shared"] = {e: True}
        out["kept"] = {e: not any(k == f"O{e}" for k, _ in choice)}
    return out


def _block_choices(spec: SegmentSpec, m0: int, block: tuple[int, ...]) -> _BlockChoices:
    """Every choice of a block over every nest shape and tile size."""
    rows = len(row_loops(spec, m0))
    peaks, kepts, traffics, parts = [], [], [], []
    for arr, nest, order in _block_nests(spec, m0, block):
        steps = steps_of(nest)
        groups = _block_groups(spec, steps, m0, block, rows)
        for c in option_choices(groups, steps, len(arr), rows):
            peaks.append(c.peak)
            kepts.append(c.kept)
            traffics.append(c.accesses)
            parts.extend(
                (
                    lambda i=i, arr=arr, order=order, choice=c.choice: _block_part(
                        block, [int(x) for x in arr[i]], order, choice
                    )
                )
                for i in range(len(arr))
            )
    return _BlockChoices(
        np.concatenate(peaks), np.concatenate(kepts), np.concatenate(traffics), parts
    )


def _prune_block(choices: _BlockChoices) -> _BlockChoices:
    """Drop choices another beats on own peak and accesses with the same kept words."""
    keep_idx = []
    for value in np.unique(choices.kept):
        idx = np.flatnonzero(choices.kept == value)
        keep_idx.append(idx[pareto_front(choices.peak[idx], choices.accesses[idx])])
    k = np.concatenate(keep_idx)
    return _BlockChoices(
        choices.peak[k], choices.kept[k], choices.accesses[k], [choices.parts[i] for i in k]
    )


def _structures(count: int) -> Iterator[list[tuple[int, ...]]]:
    """Every way to group products 0..count-1 into blocks of one or two neighbours."""
    if count == 0:
        yield []
        return
    for rest in _structures(count - 1):
        yield [*rest, (count - 1,)]
    if count >= 2:
        for rest in _structures(count - 2):
            yield [*rest, (count - 2, count - 1)]


def _minkowski(a: tuple[np.ndarray, np.ndarray, list], b: tuple[np.ndarray, np.ndarray, list]):
    """Ski slope of the sums of two (kept words, accesses) slopes, with their picks."""
    kept = (a[0][:, None] + b[0][None, :]).ravel()
    accesses = (a[1][:, None] + b[1][None, :]).ravel()
    keep_idx = pareto_front(kept, accesses)
    picks = [a[2][i // len(b[0])] + b[2][i % len(b[0])] for i in keep_idx.tolist()]
    return kept[keep_idx], accesses[keep_idx], picks


def long_front(spec: SegmentSpec) -> list[tuple[int, int, Mapping]]:
    """Ski slope of a segment of three or more products over the block nests above. With
    two trips in the innermost row loop (no middle row tile), only mappings that keep no
    tile across row tiles are searched: their peak is the largest block peak."""
    E = spec.products
    found_buffer, found_accesses, found = [], [], []
    for m0 in divisors(spec.m):
        rows = row_loops(spec, m0)
        if rows is None:
            continue
        two = bool(rows) and rows[-1].two  # no middle row tile: keep nothing across them
        cache: dict[tuple[int, ...], _BlockChoices] = {}
        for structure in _structures(E):
            blocks = []
            for block in structure:
                if len(block) == 2 and spec.c[block[0] + 1] == 1:
                    break
                if block not in cache:
                    choices = _prune_block(_block_choices(spec, m0, block))
                    if two:
                        idx = np.flatnonzero(choices.kept == 0)
                        choices = _BlockChoices(
                            choices.peak[idx],
                            choices.kept[idx],
                            choices.accesses[idx],
                            [choices.parts[i] for i in idx],
                        )
                    cache[block] = choices
                blocks.append(cache[block])
            else:
                levels = np.unique(np.concatenate([b.peak for b in blocks]))
                for level in levels.tolist():
                    total = (np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), [()])
                    for j, b in enumerate(blocks):
                        idx = np.flatnonzero(b.peak <= level)
                        if len(idx) == 0:
                            break
                        front = pareto_front(b.kept[idx], b.accesses[idx])
                        chosen = idx[front]
                        total = _minkowski(
                            total,
                            (b.kept[chosen], b.accesses[chosen], [((j, int(i)),) for i in chosen]),
                        )
                    else:
                        for kept, accesses, pick in zip(*total):
                            found_buffer.append(int(kept) + level)
                            found_accesses.append(int(accesses))
                            found.append((m0, structure, blocks, pick))
    if not found:
        return []
    keep_idx = pareto_front(
        np.array(found_buffer, dtype=np.int64), np.array(found_accesses, dtype=np.int64)
    )
    out = []
    for i in keep_idx.tolist():
        m0, structure, blocks, pick = found[i]
        k0, n0, order = [0] * E, [0] * E, ["KN"] * E
        shared, kept = [False] * (E - 1), [True] * (E - 1)
        placement: list[tuple[str, str]] = []
        for j, row in pick:
            part = blocks[j].parts[row]()
            for e, v in part["k0"].items():
                k0[e] = v
            for e, v in part["n0"].items():
                n0[e] = v
            for e, v in part["order"].items():
                order[e] = v
            for e, v in part.get("shared", {}).items():
                shared[e] = v
            for e, v in part.get("kept", {}).items():
                kept[e] = v
            placement.extend(part["placement"])
        mp = Mapping(
            m0, tuple(k0), tuple(n0), tuple(order), tuple(shared), tuple(kept), tuple(placement)
        )
        out.append((found_buffer[i], found_accesses[i], mp))
    return out
