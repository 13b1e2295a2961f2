"""The whole uneven space of a two-product segment (`pair_front`): the two products share
the loop S over the intermediate's columns, or each runs in its own block inside the row
loops; every tile size, loop order and tile placement, vectorised over the tile sizes."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tenet.bounds.fusion_uneven.nest import (
    Mapping,
    SegmentSpec,
    build_nest,
    lone_nest,
    row_loops,
    steps_of,
)
from tenet.bounds.fusion_uneven.options import (
    Choice,
    broadcast,
    group_options,
    option_choices,
    tensor_options,
    tile_classes,
)
from tenet.bounds.snowcat import divisors, pareto_front


@dataclass
class _Found:
    """Front candidates of one batch: arrays plus what rebuilds their mappings."""

    buffer: np.ndarray
    accesses: np.ndarray
    rebuild: list[Callable[[], Mapping]]


def _keep_slopes(
    choices: Iterable[Choice], make: Callable[[tuple, int], Mapping], found: list[_Found]
) -> None:
    """Each choice's ski slope over the batch (buffer: its peak), with its rebuilders."""
    for c in choices:
        keep_idx = pareto_front(c.peak, c.accesses)
        found.append(
            _Found(
                c.peak[keep_idx],
                c.accesses[keep_idx],
                [(lambda c=c.choice, k=int(k): make(c, k)) for k in keep_idx.tolist()],
            )
        )


def _shared_pair(spec: SegmentSpec, m0: int, found: list[_Found]) -> None:
    """Two products sharing the loop S over the intermediate's columns: rows > S > { K:
    product 0 ; N: product 1 }, or S > rows > { ... } (S outside, as in FlashAttention),
    every placement."""
    rows = row_loops(spec, m0)
    c0, c1, c2 = spec.c[:3]
    combos = itertools.product(divisors(c0), [s for s in divisors(c1) if s < c1], divisors(c2))
    for combos_ in tile_classes(combos, (c0, c1, c2)).values():
        arr = np.array(combos_, dtype=np.int64)
        k0, s0, n0 = combos_[0]
        for outer in (False, True) if rows else (False,):
            mp = Mapping(m0, (k0, s0), (s0, n0), ("KN", "KN"), (True,), (True,), (), outer)
            batch = {
                ("k", 0): arr[:, 0],
                ("n", 0): arr[:, 1],
                ("k", 1): arr[:, 1],
                ("n", 1): arr[:, 2],
            }
            nest = build_nest(spec, mp, batch)
            steps = steps_of(nest)
            groups = group_options(spec, steps, len(rows))

            def make(choice: tuple, i: int, arr=arr, outer=outer) -> Mapping:
                k, s, n = (int(x) for x in arr[i])
                kept = not any(key == "O0" for key, _ in choice)
                return Mapping(m0, (k, s), (s, n), ("KN", "KN"), (True,), (kept,), choice, outer)

            _keep_slopes(option_choices(groups, steps, len(arr)), make, found)


def _lone_side(spec: SegmentSpec, m0: int, e: int, kept: bool) -> list[tuple]:
    """Product e of a pair in its own block: per choice (local words, words kept across row
    tiles, accesses, rebuild info). A kept intermediate is whole-row on chip in both blocks."""
    rows = len(row_loops(spec, m0))
    c_k, c_n = spec.c[e], spec.c[e + 1]
    out = []
    combos = itertools.product(divisors(c_k), divisors(c_n))
    for combos_ in tile_classes(combos, (c_k, c_n)).values():
        arr = np.array(combos_, dtype=np.int64)
        n = len(arr)
        both = c_k // combos_[0][0] > 1 and c_n // combos_[0][1] > 1
        for order in ("KN", "NK") if both else ("KN",):
            nest = lone_nest(spec, m0, e, arr[:, 0], arr[:, 1], order)
            steps = steps_of(nest)
            groups = [tensor_options(spec, steps, "W", e, "input", rows)]
            if e == 0:
                groups.insert(0, tensor_options(spec, steps, "A", 0, "input", rows))
            elif not kept:
                groups.insert(0, tensor_options(spec, steps, "A", e, "input", rows))
            if e == spec.products - 1 or not kept:
                groups.append(tensor_options(spec, steps, "O", e, "output", rows))
            held = broadcast(m0 * spec.c[1] * spec.factor_o[0] if kept else 0, n)
            for c in option_choices(groups, steps, n, rows, probed=False):
                out.append((held + c.peak, c.kept, c.accesses, arr, order, c.choice))
    return out


def _prune_side(side: list[tuple]) -> tuple[np.ndarray, ...]:
    """Flatten one side's choices and drop those another beats on local words and accesses
    with the same persistent words."""
    local = np.concatenate([s[0] for s in side])
    persistent = np.concatenate([s[1] for s in side])
    traffic = np.concatenate([s[2] for s in side])
    which = np.concatenate([np.full(len(s[0]), i) for i, s in enumerate(side)])
    row = np.concatenate([np.arange(len(s[0])) for s in side])
    keep = []
    for value in np.unique(persistent):
        idx = np.flatnonzero(persistent == value)
        keep.append(idx[pareto_front(local[idx], traffic[idx])])
    k = np.concatenate(keep)
    return local[k], persistent[k], traffic[k], which[k], row[k]


def _lone_pair(spec: SegmentSpec, m0: int, found: list[_Found]) -> None:
    """Two products, each in its own block inside the row loops. Live words at a step of
    block b: its own tiles, the kept intermediate, and the other block's tiles kept across
    row tiles (live there in the first or last row tile), so the peak is
    P0 + P1 + max(L0, L1) (P: tiles kept across row tiles, L: the rest of a block)."""
    for kept in (True, False):
        sides = [_lone_side(spec, m0, e, kept) for e in (0, 1)]
        l0, p0, t0, w0, r0 = _prune_side(sides[0])
        l1, p1, t1, w1, r1 = _prune_side(sides[1])
        buffer = (p0[:, None] + p1[None, :] + np.maximum(l0[:, None], l1[None, :])).ravel()
        traffic = (t0[:, None] + t1[None, :]).ravel()
        keep_idx = pareto_front(buffer, traffic)

        def make(_: Any, flat: int, kept=kept, sides=sides, idx=(w0, r0, w1, r1)) -> Mapping:
            i, j = divmod(flat, len(idx[2]))
            a = sides[0][int(idx[0][i])]
            b = sides[1][int(idx[2][j])]
            ka, na = (int(x) for x in a[3][int(idx[1][i])])
            kb, nb = (int(x) for x in b[3][int(idx[3][j])])
            return Mapping(m0, (ka, kb), (na, nb), (a[4], b[4]), (False,), (kept,), a[5] + b[5])

        found.append(
            _Found(
                buffer[keep_idx],
                traffic[keep_idx],
                [(lambda k=int(k), make=make: make(None, k)) for k in keep_idx.tolist()],
            )
        )


def pair_front(spec: SegmentSpec) -> list[tuple[int, int, Mapping]]:
    """Ski slope of a two-product segment over the whole space: (buffer, accesses, mapping)."""
    found: list[_Found] = []
    for m0 in divisors(spec.m):
        if row_loops(spec, m0) is None:
            continue
        if spec.c[1] > 1:
            _shared_pair(spec, m0, found)
        _lone_pair(spec, m0, found)
    buffer = np.concatenate([f.buffer for f in found])
    accesses = np.concatenate([f.accesses for f in found])
    rebuild = [r for f in found for r in f.rebuild]
    keep_idx = pareto_front(buffer, accesses)
    return [(int(buffer[i]), int(accesses[i]), rebuild[i]()) for i in keep_idx.tolist()]
