"""Snowcat with imperfect tiles: one tile per rank, all at one position, a tile need not
divide its rank (the last piece is partial and its real words are counted); and the Snowcat
candidates of the other spaces' merge (`snowcat_candidates`)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from math import ceil, prod
from typing import Any

import numpy as np

from tenet.bounds.front import FrontPoint
from tenet.bounds.problem import BoundTensor, Problem, pareto_front
from tenet.bounds.snowcat_fast import snowcat_front
from tenet.bounds.uneven_mapping import Progress, UnevenMapping, uses
from tenet.bounds.uneven_tools import (
    RunningFront,
    bypass_cost,
    count_type,
    disjoint_dims,
    keep_choices,
)
from tenet.errors import InputError


def imperfect_tiles(size: int) -> list[int]:
    """Tiles t = ceil(R/q), q = 1..R: the smallest tile with q pieces. A single level with q
    pieces costs the same fetched words for every such t (Σ chunks = R, N = q) and its box
    grows with t, so no other tile of a one-level split is on a front (exact)."""
    return sorted({ceil(size / q) for q in range(1, size + 1)})


def dim_words(dim: tuple[int, ...], sizes: list[int], count: Any) -> Any:
    """Words of one dimension summed over all its chunk combinations (Σ c_r = R_r):
    Σ_r |a_r| (R_r - N_r) ∏_{r' != r} N_r' + ∏_r N_r, with N_r = count[r]."""
    ranks = [r for r, a in enumerate(dim) if a]
    return sum(
        abs(dim[r]) * (sizes[r] - count[r]) * prod((count[q] for q in ranks if q != r), start=1)
        for r in ranks
    ) + prod((count[r] for r in ranks), start=1)


def _count_matters(tensor: BoundTensor, rank: int) -> bool:
    """Whether the words of the tensor summed over its chunk combinations (`dim_words`)
    change with the rank's chunk count N: only through a dimension that holds the rank with
    |a| != 1 or together with other ranks (alone with |a| = 1, its chunks' words add up to R)."""
    return any(
        dim[rank] and (abs(dim[rank]) != 1 or sum(1 for a in dim if a) > 1) for dim in tensor.dims
    )


def _replayed_by(problem: Problem, order: Sequence[int], kept: Sequence[int]) -> list[list[int]]:
    """For each kept tensor, the ranks of the loops above its innermost indexing loop that
    do not index it: their chunk counts multiply its fetched words."""
    out = []
    for i in kept:
        tensor = problem.tensors[i]
        mine = [j for j, r in enumerate(order) if uses(tensor, r)]
        before = order[: mine[-1] + 1] if mine else ()
        out.append([r for r in before if not uses(tensor, r)])
    return out


#: Rows of tilings costed at once by the imperfect Snowcat search (memory stays bounded).
IMPERFECT_BLOCK_ROWS = 1 << 20


def _tile_blocks(options: list[list[int]], rows: int | None = None):
    """The tilings of `options` (one list of tiles per rank), C order, in blocks of at most
    about `rows` rows (IMPERFECT_BLOCK_ROWS): cut along the outermost rank with several
    options, which keeps the order of the rows."""
    rows = rows or IMPERFECT_BLOCK_ROWS
    total = prod(len(o) for o in options)
    if total <= rows:
        grids = np.meshgrid(*[np.array(o, dtype=np.int64) for o in options], indexing="ij")
        yield np.stack([g.reshape(-1) for g in grids], axis=1).reshape(-1, len(options))
        return
    r = next(k for k, o in enumerate(options) if len(o) > 1)
    step = max(1, rows // (total // len(options[r])))
    for start in range(0, len(options[r]), step):
        part = list(options)
        part[r] = options[r][start : start + step]
        yield from _tile_blocks(part, rows)


def snowcat_imperfect_candidates(
    problem: Problem, bypass: bool, sizes: dict[str, int], known: RunningFront
) -> tuple[list[tuple[int, int, Callable[[], Any]]], int]:
    """Snowcat mappings (one tile per rank, all tensors at one position, any order of the
    outer loops) with imperfect tiles, costed by the rule above.

    For one set of ranks with outer loops and one order of them, tensor X's innermost
    indexing loop is the last of its ranks in the order, so it fetches the words of its
    chunks times the chunk counts of the other ranks whose loops come before that one.

    Pruning (exact, fronts and ties unchanged): for one set of outer ranks, order and kept
    set, the accesses depend on the tiles only through the chunk counts N_r = ceil(R_r/t_r),
    and the buffer does not decrease in any tile. A rank whose N_r enters no kept tensor's
    charge (no replay, `_count_matters` false) therefore takes only its smallest tile with
    an outer loop, t_r = 1: every other tile has the same accesses and a buffer at least as
    large, and comes later in the rows (tiles ascend), so `pareto_front` would keep tile 1 on
    a tie anyway. Two orders of the same outer ranks and kept set whose kept tensors are
    replayed by the same ranks give the same rows (the same options, the same charges), so
    only the first, whose points `_merge` would prefer on every tie, is costed. The rows
    counted in the returned total are those costed."""
    for t in problem.tensors:
        if not disjoint_dims(t):
            raise InputError(
                f"imperfect tiles need each rank in one dimension of {t.name}", option="imperfect"
            )
    n = len(problem.ranks)
    dtype = count_type(problem)
    choices = [imperfect_tiles(s) for s in problem.sizes]
    keeps = keep_choices(problem, bypass)
    candidates: list[tuple[int, int, Callable[[], Any]]] = []
    evaluated = 0
    for code in range(1 << n):
        members = [r for r in range(n) if code >> r & 1]
        if any(problem.sizes[r] == 1 for r in members):
            continue  # a rank of size 1 has no outer loop
        seen: set[tuple] = set()
        for order in itertools.permutations(members):
            for kept in keeps:
                replayed = _replayed_by(problem, order, kept)
                if (kept, *(tuple(sorted(r)) for r in replayed)) in seen:
                    continue  # the same rows as an earlier order: only ties, never kept
                seen.add((kept, *(tuple(sorted(r)) for r in replayed)))
                matters = {r for ranks in replayed for r in ranks}
                matters |= {
                    r for i in kept for r in members if _count_matters(problem.tensors[i], r)
                }
                options = [
                    ([t for t in choices[r] if t < problem.sizes[r]] if r in matters else [1])
                    if code >> r & 1
                    else [problem.sizes[r]]
                    for r in range(n)
                ]
                extra = sum(
                    bypass_cost(problem, t, sizes)
                    for i, t in enumerate(problem.tensors)
                    if i not in kept
                )
                bypassed = tuple(t.name for i, t in enumerate(problem.tensors) if i not in kept)
                position = [order.index(r) if r in order else n for r in range(n)]
                for block in _tile_blocks(options):
                    tiles = block.astype(dtype)
                    counts = (-(-np.array(problem.sizes, dtype=np.int64)[None, :] // block)).astype(
                        dtype
                    )
                    rows = len(block)
                    buffer: Any = np.zeros(rows, dtype)
                    accesses: Any = np.zeros(rows, dtype)
                    for i, replays in zip(kept, replayed):
                        tensor = problem.tensors[i]
                        tile: Any = 1
                        summed: Any = 1
                        for dim in tensor.dims:
                            tile = tile * (
                                1 + sum(abs(a) * (tiles[:, r] - 1) for r, a in enumerate(dim) if a)
                            )
                            summed = summed * dim_words(dim, problem.sizes, counts.T)
                        moved = summed * prod((counts[:, r] for r in replays), start=1)
                        if tensor.output:
                            moved = 2 * moved - sizes[tensor.name]
                        buffer = buffer + tile
                        accesses = accesses + moved
                    buffer = np.broadcast_to(np.asarray(buffer, dtype=dtype), (rows,))
                    accesses = np.broadcast_to(np.asarray(accesses, dtype=dtype), (rows,)) + extra
                    evaluated += rows
                    survive = known.survivors(buffer, accesses)
                    found = []
                    for row in survive[pareto_front(buffer[survive], accesses[survive])].tolist():
                        found.append((int(buffer[row]), int(accesses[row])))
                        chosen = block[row].tolist()
                        candidates.append(
                            (
                                *found[-1],
                                lambda t=chosen, p=position, b=bypassed: snowcat_point(
                                    problem, t, p, b
                                ),
                            )
                        )
                    known.add(found)
    return candidates, evaluated


def snowcat_point(
    problem: Problem, tiles: list[int], position: list[int], bypassed: tuple[str, ...]
) -> tuple[str, UnevenMapping]:
    n = len(problem.ranks)
    order = sorted((r for r in range(n) if position[r] < n), key=lambda r: position[r])
    loops = " ".join(f"{problem.ranks[r]}1={ceil(problem.sizes[r] / tiles[r])}" for r in order)
    text = f"outer {loops or '(none)'} | tile " + " ".join(
        f"{r}0={t}" for r, t in zip(problem.ranks, tiles)
    )
    if bypassed:
        text += " | bypass " + ",".join(bypassed)
    nest = [(problem.ranks[r], tiles[r]) for r in order]
    nest += [(problem.ranks[r], 1) for r in range(n) if tiles[r] > 1]
    kept = [t.name for t in problem.tensors if t.name not in bypassed]
    return text, UnevenMapping(tuple(nest), {name: len(order) for name in kept}, bypassed)


def snowcat_candidates(
    problem: Problem, bypass: bool, progress: Progress
) -> tuple[list[tuple[int, int, Callable[[], Any]]], int]:
    """Today's Snowcat front (snowcat.snowcat_front, the points of `mapping_front`), its points
    costed as Snowcat costs them."""
    front, mappings = snowcat_front(problem, bypass, progress)
    candidates = []
    for point in front:

        def build(p: FrontPoint = point) -> tuple[str, UnevenMapping]:
            info = p.detail
            order = info["order"]
            bypassed = tuple(t.name for t in problem.tensors if t.name not in info["kept"])
            nest = [(r, info["tiles"][r]) for r in order]
            nest += [(r, 1) for r in problem.ranks if info["tiles"][r] > 1]
            mapping = UnevenMapping(
                tuple(nest), {name: len(order) for name in info["kept"]}, bypassed
            )
            return p.mapping, mapping

        candidates.append((point.buffer, point.accesses, build))
    return candidates, mappings
