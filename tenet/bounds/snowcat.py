"""The Orojenesis ski slope on the Snowcat architecture (one PE, a buffer, a backing store).

A mapping tiles every rank r of size R into inner r0 and outer r1 = R / r0 (perfect
factors), orders the non-unit outer loops, holds one tile per tensor at that one buffer
level, and optionally bypasses tensors. Costs are evaluated for the whole mapspace at once
with numpy (docs/bounds.md). The front is the least traffic over these Snowcat
mappings: every point is attained, so it is an upper bound on the least traffic possible,
not a lower bound (per-tensor tile placement or imperfect tiles can move less; see
docs/bounds.md).

Tiles are boxes: a tensor dimension indexed by Σ_r a_r·r spans E = Σ_r |a_r|(r0 - 1) + 1
words per tile (the convolution rule stride·(p0-1) + dilation·(r0-1) + 1). Consecutive
tiles in time overlap by ∏_d max(0, E_d - |Δ_d|); only the part not held by the previous
tile is fetched, so stationary tiles cost nothing and sliding windows fetch their new part.

The problem (`tenet.bounds.problem`), the front without the mapspace
(`tenet.bounds.snowcat_fast`) and what the front says at a capacity or an area
(`tenet.bounds.capacity`) have modules of their own; this module re-exports their names, so
the old imports keep working. `evaluate` is the old name of `mapping_front`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from math import prod
from typing import Any

import numpy as np

from tenet.bounds.capacity import (
    CapacityBound,
    area_constants,
    area_split,
    bound_at_capacity,
    capacity_bound,
    fused_area_split,
    hierarchy_report,
    word_count,
)
from tenet.bounds.front import Front, FrontPoint
from tenet.bounds.problem import (
    BoundTensor,
    Problem,
    divisors,
    pareto_front,
    problem_from_einsum,
    problem_from_workload,
)
from tenet.bounds.snowcat_fast import (
    best_order,
    count_dtype,
    least_order_accesses,
    mapspace_size,
    snowcat_at,
    snowcat_front,
)


@dataclass
class Mapspace:
    """Every (tiling, order) pair: inner factors, outer factors, and the outer order."""

    inner: np.ndarray  # (n, R)
    outer: np.ndarray  # (n, R)
    order: np.ndarray  # (n, R) rank indices outermost first, -1 padded (non-unit loops only)
    position: np.ndarray  # (n, R) position of each rank in the order, R for unit loops

    def __len__(self) -> int:
        return len(self.inner)


def build_mapspace(
    problem: Problem, progress: Callable[[int, int], None] | None = None
) -> Mapspace:
    """All divisor tilings x all orders of their non-unit outer loops."""
    n_ranks = len(problem.ranks)
    grids = np.meshgrid(
        *[np.array(divisors(s), dtype=np.int64) for s in problem.sizes], indexing="ij"
    )
    inner = np.stack([g.reshape(-1) for g in grids], axis=1)
    outer = np.array(problem.sizes, dtype=np.int64)[None, :] // inner
    nonunit = outer > 1
    codes = (nonunit * (1 << np.arange(n_ranks))).sum(axis=1)
    parts_inner, parts_order = [], []
    for done, code in enumerate(range(1 << n_ranks)):
        rows = np.nonzero(codes == code)[0]
        if len(rows):
            members = [r for r in range(n_ranks) if code >> r & 1]
            perms = np.array(list(itertools.permutations(members)), dtype=np.int64)
            perms = perms.reshape(len(perms), len(members))
            orders = np.full((len(perms), n_ranks), -1, dtype=np.int64)
            orders[:, : len(members)] = perms
            parts_inner.append(np.repeat(inner[rows], len(perms), axis=0))
            parts_order.append(np.tile(orders, (len(rows), 1)))
        if progress:
            progress(done + 1, 1 << n_ranks)
    inner = np.concatenate(parts_inner)
    order = np.concatenate(parts_order)
    outer = np.array(problem.sizes, dtype=np.int64)[None, :] // inner
    position = np.full(inner.shape, n_ranks, dtype=np.int64)
    for j in range(n_ranks):
        valid = order[:, j] >= 0
        position[np.nonzero(valid)[0], order[valid, j]] = j
    return Mapspace(inner, outer, order, position)


def tile_words(tensor: BoundTensor, inner: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """Words of each mapping's tile of `tensor`, and its extent per dimension."""
    extents = [
        np.abs(np.array(dim))[None, :].dot((inner - 1).T).reshape(-1) + 1 for dim in tensor.dims
    ]
    return (prod(extents) if extents else np.ones(len(inner), dtype=np.int64)), extents


def transfers(tensor: BoundTensor, space: Mapspace) -> tuple[np.ndarray, np.ndarray]:
    """(tile words, words moved into the buffer) for every mapping.

    Σ over steps of |tile(t) \\ tile(prev t)|: the first tile, then for each position j,
    (F_j - 1)·∏_{i<j} F_i steps where loop j advances and the loops below it wrap.
    """
    n, n_ranks = space.inner.shape
    tile, extents = tile_words(tensor, space.inner)
    moved = tile.copy()
    before = np.ones(n, dtype=np.int64)
    rows = np.arange(n)
    for j in range(n_ranks):
        loop = space.order[:, j]
        valid = loop >= 0
        if not valid.any():
            break
        factor = np.where(valid, space.outer[rows, np.maximum(loop, 0)], 1)
        # Δr1 per rank: +1 for loop j, -(F - 1) for loops below it (they wrap), 0 above.
        delta = np.where(space.position > j, -(space.outer - 1), 0)
        delta[rows, np.maximum(loop, 0)] = np.where(valid, 1, delta[rows, np.maximum(loop, 0)])
        overlap = np.ones(n, dtype=np.int64)
        for dim, extent in zip(tensor.dims, extents):
            shift = (delta * space.inner * np.array(dim)[None, :]).sum(axis=1)
            overlap *= np.maximum(0, extent - np.abs(shift))
        moved += np.where(valid, (factor - 1) * before * (tile - overlap), 0)
        before *= factor
    return tile, moved


@dataclass
class BoundResult:
    """Every Snowcat mapping's buffer words and accesses (`mapping_front`), its kept tensors,
    and the indices of the front among them."""

    problem: Problem
    bypass: bool
    buffer: np.ndarray
    accesses: np.ndarray
    space: Mapspace
    kept: np.ndarray  # (n, tensors) bool
    front: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @property
    def mappings(self) -> int:
        """How many mappings were costed."""
        return len(self.buffer)


def mapping_front(
    problem: Problem, bypass: bool = False, progress: Callable[[int, int], None] | None = None
) -> BoundResult:
    """Buffer requirement and backing-store accesses of every mapping, and the indices of
    its front (the least accesses per buffer, `pareto_front`).

    `progress(done, total)` counts the steps: the mapspace, each tensor's transfers, each
    keep/bypass choice and the front."""
    choices = (
        list(itertools.product([True, False], repeat=len(problem.tensors)))
        if bypass
        else [(True,) * len(problem.tensors)]
    )
    steps = 1 + len(problem.tensors) + len(choices) + 1
    done = 0

    def step() -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, steps)

    if progress:
        progress(0, steps)
    space = build_mapspace(problem)
    step()
    tiles, moved = [], []
    for tensor in problem.tensors:
        tile, words = transfers(tensor, space)
        if tensor.output:
            words = 2 * words - problem.size(tensor)  # read-modify-write, first read skipped
        tiles.append(tile)
        moved.append(words)
        step()
    tiles_arr, moved_arr = np.stack(tiles, axis=1), np.stack(moved, axis=1)
    bypass_cost = np.array(
        [problem.ops() if t.output else problem.macs for t in problem.tensors], dtype=np.int64
    )
    buffers, accesses, kept = [], [], []
    for choice in choices:
        keep = np.array(choice)
        buffers.append((tiles_arr * keep).sum(axis=1))
        accesses.append((moved_arr * keep).sum(axis=1) + int((bypass_cost * ~keep).sum()))
        kept.append(np.repeat(keep[None, :], len(space), axis=0))
        step()
    result = BoundResult(
        problem,
        bypass,
        np.concatenate(buffers),
        np.concatenate(accesses),
        space,
        np.concatenate(kept),
    )
    result.front = pareto_front(result.buffer, result.accesses)
    step()
    return result


def mapping_text(result: BoundResult, index: int) -> dict[str, Any]:
    """Tiles, order and kept tensors of one mapping (index into the evaluated arrays)."""
    problem, space = result.problem, result.space
    row = index % len(space)
    ranks = problem.ranks
    tiles = {r: int(space.inner[row, k]) for k, r in enumerate(ranks)}
    order = [ranks[k] for k in space.order[row].tolist() if k >= 0]
    kept = [t.name for t, keep in zip(problem.tensors, result.kept[index]) if keep]
    bypassed = [t.name for t, keep in zip(problem.tensors, result.kept[index]) if not keep]
    loops = " ".join(f"{r}1={problem.sizes[ranks.index(r)] // tiles[r]}" for r in order) or "(none)"
    text = f"outer {loops} | tile " + " ".join(f"{r}0={tiles[r]}" for r in ranks)
    if bypassed:
        text += " | bypass " + ",".join(bypassed)
    return {"mapping": text, "tiles": tiles, "order": order, "kept": kept}


def front_of(result: BoundResult) -> Front:
    """The Snowcat front of `mapping_front`, each point with its mapping text and, as detail,
    its tiles per rank, outer order and kept tensors."""
    points = []
    for i in result.front.tolist():
        detail = mapping_text(result, i)
        text = detail.pop("mapping")
        points.append(FrontPoint(int(result.buffer[i]), int(result.accesses[i]), text, detail))
    return Front(tuple(points))


evaluate = mapping_front  # the old name of `mapping_front` (docs/architecture.md, "Names")

__all__ = [
    "BoundResult",
    "BoundTensor",
    "CapacityBound",
    "Mapspace",
    "Problem",
    "area_constants",
    "area_split",
    "best_order",
    "bound_at_capacity",
    "build_mapspace",
    "capacity_bound",
    "count_dtype",
    "divisors",
    "evaluate",
    "front_of",
    "fused_area_split",
    "hierarchy_report",
    "least_order_accesses",
    "mapping_front",
    "mapping_text",
    "mapspace_size",
    "pareto_front",
    "problem_from_einsum",
    "problem_from_workload",
    "snowcat_at",
    "snowcat_front",
    "tile_words",
    "transfers",
    "word_count",
]
