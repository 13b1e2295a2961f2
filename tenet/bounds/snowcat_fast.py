"""The Snowcat front without materializing the mapspace (`snowcat_front`, `snowcat_at`):
the same points, mappings and ties as `front_of(mapping_front(problem))` of
`tenet.bounds.snowcat`, by a shortest path over subsets of ranks per tiling."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from math import factorial, prod
from typing import Any

import numpy as np

from tenet.bounds.front import Front, FrontPoint
from tenet.bounds.problem import Problem, divisors

# --- the Snowcat front without materializing the mapspace -------------------------------------
#
# `mapping_front` costs every (tiling, order) pair: n! orders per tiling, millions of rows for a
# real convolution. Two facts make that unnecessary, exactly:
#
# 1. For one tiling and keep choice, every order needs the same buffer (Σ kept tiles), so only
#    an order with the least accesses can be on the front; of orders with equal accesses the
#    first in `build_mapspace`'s order (itertools.permutations: lexicographic) is the one
#    `pareto_front` keeps.
# 2. `transfers` charges loop j of an order (F_j - 1) · before_j · (tile - overlap_j): before_j
#    is ∏ F over the loops outside j, i.e. P / (F_j · ∏_{q inside j} F_q) with P = ∏_r F_r,
#    and overlap_j depends only on the shift Δ (+1 on j's rank, -(F_q - 1) on every rank q
#    inside j). So each loop costs g(rank, set of ranks inside it), an order costs the sum of
#    its loops' g, and the least over orders is a shortest path over subsets of ranks:
#    best(S) = min_{r in S} g(r, S - r) + best(S - r), best(∅) = 0 (2^n states, n·2^(n-1)
#    edges, not n! orders). Unit loops (F = 1) cost 0 and shift nothing, so the subsets may
#    range over every rank. The lexicographically first optimal order is rebuilt greedily,
#    outermost first: the smallest non-unit r with g(r, S - r) + best(S - r) = best(S).
#
# Front and lookups then compare one candidate per (keep choice, tiling) by (buffer, accesses,
# then `mapping_front`'s row index: keep choice, code of non-unit ranks, tiling's flat index), which
# is the order in which `pareto_front` breaks ties. tests/bounds/test_snowcat_fast.py checks
# fronts, mappings and lookups against `mapping_front` on random small problems.


def count_dtype(problem: Problem) -> Any:
    """int64 when no count or partial product of a search can reach 2^62, else exact Python
    ints (object arrays).

    A tile is a box of ∏_d (Σ_r |a_dr| (f_r - 1) + 1) words; when no rank is in two dims of
    the tensor this is at most ∏_d (Σ_r |a_dr| + 1) ∏_{r of X} f_r, so a tile times the
    number of tile steps (∏_r F_r) is at most that constant times the MACs (else the tile is at
    most ∏_d (Σ_r |a_dr| R_r + 1), times MACs steps). Every charge and partial product of a
    search is below such a value; an output counts twice, a bypassed tensor at most 2 MACs."""
    bound = 0
    for t in problem.tensors:
        ranks = [r for dim in t.dims for r, a in enumerate(dim) if a]
        if len(ranks) == len(set(ranks)):
            factor = prod(sum(abs(a) for a in dim) + 1 for dim in t.dims)
        else:
            factor = prod(sum(abs(a) * s for a, s in zip(dim, problem.sizes)) + 1 for dim in t.dims)
        bound += (2 * factor + 2) * problem.macs
    return np.int64 if bound < 2**62 else object


@dataclass
class _Tilings:
    """Every perfect tiling (meshgrid of divisors, C order): inner and outer factors per rank,
    and the code of its non-unit outer loops (bit r set when F_r > 1)."""

    inner: np.ndarray
    outer: np.ndarray
    code: np.ndarray

    def __len__(self) -> int:
        return len(self.inner)


def _tilings(problem: Problem) -> _Tilings:
    n = len(problem.ranks)
    grids = np.meshgrid(
        *[np.array(divisors(s), dtype=np.int64) for s in problem.sizes], indexing="ij"
    )
    inner = np.stack([g.reshape(-1) for g in grids], axis=1).reshape(-1, n)
    outer = np.array(problem.sizes, dtype=np.int64)[None, :] // inner
    code = ((outer > 1) * (1 << np.arange(n))).sum(axis=1)
    return _Tilings(inner, outer, code)


def _choices(problem: Problem, bypass: bool) -> list[tuple[bool, ...]]:
    """Keep choices in `mapping_front`'s order (keep every tensor first)."""
    if not bypass:
        return [(True,) * len(problem.tensors)]
    return list(itertools.product([True, False], repeat=len(problem.tensors)))


def _bits(mask: int, n: int) -> list[int]:
    return [r for r in range(n) if mask >> r & 1]


def least_order_accesses(
    problem: Problem, inner: np.ndarray, outer: np.ndarray, weights: list[tuple[int, ...]]
) -> list[np.ndarray]:
    """For each weight vector w (per tensor: 0 bypassed, 1 input, 2 output) and each tiling,
    min over orders of Σ_X w_X (moved_X - tile_X): the subset shortest path above."""
    n = len(problem.ranks)
    dtype = count_dtype(problem)
    inner = inner.astype(dtype)
    outer = outer.astype(dtype)
    rows = len(inner)
    total = prod((outer[:, r] for r in range(n)), start=np.ones(rows, dtype=dtype))
    needed = [k for k in range(len(problem.tensors)) if any(w[k] for w in weights)]
    tiles, extents, wraps = {}, {}, {}
    for k in needed:
        tensor = problem.tensors[k]
        ext = [
            1 + sum(abs(a) * (inner[:, r] - 1) for r, a in enumerate(dim) if a)
            for dim in tensor.dims
        ]
        extents[k] = [np.broadcast_to(np.asarray(e, dtype=dtype), (rows,)) for e in ext]
        tiles[k] = prod(extents[k], start=np.ones(rows, dtype=dtype))
        # shift of a dim when rank q wraps: -a_dq · inner_q · (F_q - 1)
        wraps[k] = [
            [dim[q] * inner[:, q] * (outer[:, q] - 1) for q in range(n)] for dim in tensor.dims
        ]
    zero = np.zeros(rows, dtype=dtype)
    best: list[list[Any]] = [[None] * (1 << n) for _ in weights]
    for w in range(len(weights)):
        best[w][0] = zero
    for inside in range(1 << n):
        members = _bits(inside, n)
        shifted = {
            k: [sum((wraps[k][d][q] for q in members), start=zero) for d in range(len(wraps[k]))]
            for k in needed
        }
        held = prod((outer[:, q] for q in members), start=np.ones(rows, dtype=dtype))
        for r in range(n):
            if inside >> r & 1:
                continue
            factor = (outer[:, r] - 1) * (total // (outer[:, r] * held))
            charge = {}
            for k in needed:
                overlap = np.ones(rows, dtype=dtype)
                for d, dim in enumerate(problem.tensors[k].dims):
                    shift = dim[r] * inner[:, r] - shifted[k][d]
                    overlap = overlap * np.maximum(0, extents[k][d] - np.abs(shift))
                charge[k] = factor * (tiles[k] - overlap)
            grown = inside | 1 << r
            for w, weight in enumerate(weights):
                value = best[w][inside] + sum(
                    (weight[k] * charge[k] for k in needed if weight[k]), start=zero
                )
                current = best[w][grown]
                best[w][grown] = value if current is None else np.minimum(current, value)
    return [best[w][(1 << n) - 1] for w in range(len(weights))]


def _edge(
    problem: Problem,
    inner: list[int],
    outer: list[int],
    weight: tuple[int, ...],
    r: int,
    inside: int,
) -> int:
    """g(r, inside) of one tiling in exact Python ints (the charge of a loop of rank r with the
    ranks of `inside` inside it), weighted per tensor."""
    n = len(problem.ranks)
    total = prod(outer)
    held = prod(outer[q] for q in _bits(inside, n))
    factor = (outer[r] - 1) * (total // (outer[r] * held))
    charge = 0
    for tensor, w in zip(problem.tensors, weight):
        if not w:
            continue
        extents = [sum(abs(a) * (f - 1) for a, f in zip(dim, inner)) + 1 for dim in tensor.dims]
        overlap = 1
        for dim, extent in zip(tensor.dims, extents):
            shift = dim[r] * inner[r] - sum(
                dim[q] * inner[q] * (outer[q] - 1) for q in _bits(inside, n)
            )
            overlap *= max(0, extent - abs(shift))
        charge += w * factor * (prod(extents) - overlap)
    return charge


def best_order(
    problem: Problem, inner: list[int], weight: tuple[int, ...]
) -> tuple[list[int], int]:
    """The lexicographically first order of the non-unit outer loops (rank indices, outermost
    first) with the least Σ_X w_X (moved_X - tile_X), and that least value (exact ints)."""
    n = len(problem.ranks)
    outer = [s // f for s, f in zip(problem.sizes, inner)]
    best: dict[int, int] = {0: 0}
    for inside in range(1 << n):
        for r in range(n):
            if inside >> r & 1:
                continue
            value = best[inside] + _edge(problem, inner, outer, weight, r, inside)
            grown = inside | 1 << r
            best[grown] = min(best.get(grown, value), value)
    order: list[int] = []
    left = (1 << n) - 1
    while any(outer[r] > 1 for r in _bits(left, n)):
        for r in _bits(left, n):
            rest = left & ~(1 << r)
            if (
                outer[r] > 1
                and _edge(problem, inner, outer, weight, r, rest) + best[rest] == best[left]
            ):
                order.append(r)
                left = rest
                break
    return order, best[(1 << n) - 1]


def _mapping_info(
    problem: Problem, tiles: list[int], order: list[int], keep: tuple[bool, ...]
) -> dict[str, Any]:
    """`mapping_text`'s dictionary of one mapping given by its tiles, order and keep choice."""
    ranks = problem.ranks
    tiles_by = {r: int(t) for r, t in zip(ranks, tiles)}
    order_names = [ranks[k] for k in order]
    kept = [t.name for t, k in zip(problem.tensors, keep) if k]
    bypassed = [t.name for t, k in zip(problem.tensors, keep) if not k]
    loops = (
        " ".join(f"{r}1={problem.sizes[ranks.index(r)] // tiles_by[r]}" for r in order_names)
        or "(none)"
    )
    text = f"outer {loops} | tile " + " ".join(f"{r}0={tiles_by[r]}" for r in ranks)
    if bypassed:
        text += " | bypass " + ",".join(bypassed)
    return {"mapping": text, "tiles": tiles_by, "order": order_names, "kept": kept}


@dataclass
class _Candidates:
    """One candidate per (keep choice, tiling): buffer, least accesses over orders, and the
    keys of `mapping_front`'s row index (choice, code, flat tiling index)."""

    tilings: _Tilings
    choices: list[tuple[bool, ...]]
    buffer: np.ndarray
    accesses: np.ndarray
    choice: np.ndarray
    flat: np.ndarray

    def order(self, rows: np.ndarray) -> np.ndarray:
        """`rows` sorted by (buffer, accesses, choice, code, flat)."""
        keys = (
            self.flat[rows],
            self.tilings.code[self.flat[rows]],
            self.choice[rows],
            self.accesses[rows],
            self.buffer[rows],
        )
        return rows[np.lexsort(keys)]

    def point(self, problem: Problem, row: int) -> FrontPoint:
        keep = self.choices[int(self.choice[row])]
        flat = int(self.flat[row])
        tiles = [int(x) for x in self.tilings.inner[flat]]
        weight = tuple((2 if t.output else 1) * k for t, k in zip(problem.tensors, keep))
        order, _ = best_order(problem, tiles, weight)
        detail = _mapping_info(problem, tiles, order, keep)
        text = detail.pop("mapping")
        return FrontPoint(int(self.buffer[row]), int(self.accesses[row]), text, detail)


def _candidates(problem: Problem, bypass: bool, within: int | None = None) -> _Candidates:
    """The per-(choice, tiling) candidates; with `within`, only the tilings whose buffer for
    that choice fits `within` words are costed (buffers do not depend on the order)."""
    tilings = _tilings(problem)
    choices = _choices(problem, bypass)
    dtype = count_dtype(problem)
    inner = tilings.inner.astype(dtype)
    tile = []
    for tensor in problem.tensors:
        ext = [
            1 + sum(abs(a) * (inner[:, r] - 1) for r, a in enumerate(dim) if a)
            for dim in tensor.dims
        ]
        tile.append(prod(ext, start=np.ones(len(inner), dtype=dtype)))
    sizes = [problem.size(t) if t.output else 0 for t in problem.tensors]
    bypass_cost = [problem.ops() if t.output else problem.macs for t in problem.tensors]
    buffers, accesses, choice_ids, flats = [], [], [], []
    for c, keep in enumerate(choices):
        buffer = sum(
            (tile[k] for k in range(len(keep)) if keep[k]), start=np.zeros(len(inner), dtype)
        )
        rows = np.arange(len(inner)) if within is None else np.nonzero(buffer <= within)[0]
        weight = tuple((2 if t.output else 1) * k for t, k in zip(problem.tensors, keep))
        (least,) = least_order_accesses(problem, tilings.inner[rows], tilings.outer[rows], [weight])
        base = sum(
            (weight[k] * tile[k][rows] for k in range(len(keep)) if keep[k]),
            start=np.zeros(len(rows), dtype),
        )
        fixed = sum(sizes[k] for k in range(len(keep)) if keep[k])
        fixed = -fixed + sum(bypass_cost[k] for k in range(len(keep)) if not keep[k])
        buffers.append(buffer[rows])
        accesses.append(base + least + fixed)
        choice_ids.append(np.full(len(rows), c, dtype=np.int64))
        flats.append(rows.astype(np.int64))
    return _Candidates(
        tilings,
        choices,
        np.concatenate(buffers),
        np.concatenate(accesses),
        np.concatenate(choice_ids),
        np.concatenate(flats),
    )


def mapspace_size(problem: Problem, bypass: bool = False) -> int:
    """Mappings of the Snowcat mapspace (`mapping_front`'s rows): Σ over tilings of (non-unit
    outer loops)! orders, times the keep choices."""
    tilings = _tilings(problem)
    nonunit = (tilings.outer > 1).sum(axis=1)
    orders = sum(
        int(c) * factorial(int(k)) for k, c in zip(*np.unique(nonunit, return_counts=True))
    )
    return orders * len(_choices(problem, bypass))


def snowcat_front(
    problem: Problem, bypass: bool = False, progress: Callable[[int, int], None] | None = None
) -> tuple[Front, int]:
    """The Snowcat front (`front_of(mapping_front(problem, bypass))`, the same points, mappings and
    ties) and the size of the mapspace it covers, by the subset shortest path above. The
    last few fronts are kept (comparing the spaces asks for the same one four times)."""
    if progress:
        progress(0, 1)
    key = (tuple(problem.ranks), tuple(problem.sizes), tuple(problem.tensors), bypass)
    front, size = _snowcat_front(key)
    if progress:
        progress(1, 1)
    return front, size


@lru_cache(maxsize=8)
def _snowcat_front(key: tuple) -> tuple[Front, int]:
    ranks, sizes, tensors, bypass = key
    problem = Problem("", list(ranks), list(sizes), list(tensors))
    found = _candidates(problem, bypass)
    order = found.order(np.arange(len(found.buffer)))
    ordered = found.accesses[order]
    best = np.minimum.accumulate(ordered)
    falls = np.ones(len(order), dtype=bool)
    falls[1:] = best[1:] < best[:-1]
    keep = order[falls & (ordered == best)]
    front = Front(tuple(found.point(problem, int(row)) for row in keep.tolist()))
    return front, mapspace_size(problem, bypass)


def snowcat_at(problem: Problem, words: int, bypass: bool = False) -> FrontPoint | None:
    """`front_of(mapping_front(problem, bypass)).at(words)`: the least accesses over Snowcat mappings
    whose buffer fits `words` (of those, the smallest buffer, then `mapping_front`'s first row),
    costing only the tilings that fit."""
    found = _candidates(problem, bypass, within=words)
    if not len(found.buffer):
        return None
    rows = np.arange(len(found.buffer))
    keys = (
        found.flat,
        found.tilings.code[found.flat],
        found.choice,
        found.buffer,
        found.accesses,
    )
    first = int(rows[np.lexsort(keys)][0])
    return found.point(problem, first)
