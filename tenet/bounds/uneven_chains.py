"""Per-rank tile chains of the uneven search: the tile levels v_1 <= ... <= v_m <= R of one
rank over the m kept tensors using it (perfect: divisor chains; imperfect: any sizes, with
the chunk counts each level leaves), and the dominance that drops a chain no better than
another at any choice of the other ranks (docs/bounds.md, "Mapping spaces")."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from math import isqrt, prod

import numpy as np

from tenet.bounds.problem import Problem
from tenet.bounds.uneven_mapping import IMPERFECT_CHAIN_LIMIT, Chunks, split_chunks, uses
from tenet.errors import InputError


def divisor_chains(size: int, length: int) -> list[tuple[int, ...]]:
    """v_1 | v_2 | ... | v_length | size (perfect tiles: every level divides the next)."""
    if length == 0:
        return [()]
    out = []
    for top in (d for d in range(1, size + 1) if size % d == 0):
        for inner in divisor_chains(top, length - 1):
            out.append((*inner, top))
    return out


def chain_counts(size: int, values: Sequence[int]) -> list[int]:
    """Chunks at each level of a chain v_1 <= ... <= v_m <= size, levels cut outermost first."""
    levels = sorted({v for v in values if v < size}, reverse=True)
    chunks: Chunks = {size: 1}
    count = {size: 1}
    for level in levels:
        chunks = split_chunks(chunks, level)
        count[level] = sum(chunks.values())
    return [count[v] for v in values]


def undominated(columns: np.ndarray) -> np.ndarray:
    """Indices of the rows that no other row matches or beats in every column (of equal
    rows the first is kept)."""
    order = np.lexsort(columns.T[::-1])
    kept: list[int] = []
    block = np.zeros((0, columns.shape[1]), dtype=columns.dtype)
    for index in order.tolist():
        row = columns[index]
        if len(block) and np.any(np.all(block <= row, axis=1)):
            continue
        kept.append(index)
        block = np.vstack([block, row[None, :]])
    return np.array(sorted(kept), dtype=np.int64)


def rank_chains(size: int, length: int, imperfect: bool) -> np.ndarray:
    """Candidate (v_1..v_m, N_1..N_m) of one rank held by m tensors (innermost first).

    Perfect: divisor chains, N = size / v. Imperfect: every v_1 <= ... <= v_m in 1..size
    with N counted by cutting the distinct levels outermost first."""
    if length == 0:
        return np.zeros((1, 0), dtype=np.int64)
    if not imperfect:
        chains = divisor_chains(size, length)
        return np.array([(*c, *(size // v for v in c)) for c in chains], dtype=np.int64)
    total = prod(range(size, size + length)) // prod(range(1, length + 1))
    if total > IMPERFECT_CHAIN_LIMIT:
        raise InputError(
            f"a rank of size {size} held by {length} tensors has {total:,} imperfect tile "
            f"chains; the exhaustive imperfect search takes at most {IMPERFECT_CHAIN_LIMIT:,}",
            option="imperfect",
        )
    rows = [
        (*c, *chain_counts(size, c))
        for c in itertools.combinations_with_replacement(range(1, size + 1), length)
    ]
    return np.array(rows, dtype=np.int64)


def imperfect_chains(size: int, matter: tuple[bool, ...]) -> np.ndarray:
    """Imperfect chains of one rank whose chunk counts matter only at the slots `matter`
    marks (every coefficient 0 or ±1), without the chains that one of these beats:

    * a slot j >= 1 whose N_j does not matter takes the level of slot j-1: its tile shrinks
      and a level fewer leaves no more chunks at the levels inside (ceil((a+b)/t) <=
      ceil(a/t) + ceil(b/t)), while the levels outside do not change;
    * slot 0 whose N_0 does not matter takes level 1 (smallest tile, no level inside);
    * the innermost slot whose N matters has only levels inside it that are 1, so of the
      levels with the same chunk count (given the levels outside) the smallest is best.
    Other slots whose N matters take every level up to the one outside them."""
    m = len(matter)
    if m == 0:
        return np.zeros((1, 0), dtype=np.int64)
    free = [j for j in range(m) if matter[j]]
    # outer free slots take every level, the innermost one about 2 sqrt(R) (the distinct
    # values of ceil(R / v)); only used to refuse searches that would be too long
    estimate = size ** max(0, len(free) - 1) * (2 * isqrt(size) + 2 if free else 1)
    if estimate > IMPERFECT_CHAIN_LIMIT:
        raise InputError(
            f"a rank of size {size} has about {estimate:,} imperfect tile chains; the "
            f"exhaustive imperfect search takes at most {IMPERFECT_CHAIN_LIMIT:,}",
            option="imperfect",
        )
    rows: list[tuple[int, ...]] = []

    def finish(levels: dict[int, int]) -> None:
        values = []
        for j in range(m):
            values.append(levels[j] if j in levels else (values[j - 1] if j else 1))
        rows.append((*values, *chain_counts(size, values)))

    def choose(k: int, chunks: Chunks, outside: int, levels: dict[int, int]) -> None:
        if k < 0:
            finish(levels)
            return
        slot = free[k]
        if k == 0:
            steps = np.arange(1, outside + 1)
            counts = sum(c * (-(-s // steps)) for s, c in chunks.items())
            keep = np.ones(len(steps), dtype=bool)
            keep[1:] = counts[1:] != counts[:-1]
            candidates = steps[keep].tolist()
        else:
            candidates = range(1, outside + 1)
        for level in candidates:
            choose(k - 1, split_chunks(chunks, level), level, {**levels, slot: level})

    choose(len(free) - 1, {size: 1}, size, {})
    return np.array(rows, dtype=np.int64).reshape(-1, 2 * m)


def counts_matter(
    problem: Problem, order: tuple[int, ...], slots: list[int], rank: int
) -> tuple[bool, ...]:
    """For each slot j of the rank: whether its chunk count N_j can change a cost. N_j is
    the replay factor of the tensors between slot j-1 and slot j that do not use the rank,
    and enters the words summed over the slot's own chunks only through a dimension that
    mixes ranks (for |a| = 1 alone in its dimension, the chunks' words add up to R)."""
    out = []
    for previous, slot in zip([-1, *slots[:-1]], slots):
        between = any(not uses(problem.tensors[order[i]], rank) for i in range(previous + 1, slot))
        own = problem.tensors[order[slot]]
        dims = [dim for dim in own.dims if dim[rank]]
        mixed = len(dims) > 1 or any(sum(1 for a in dim if a) > 1 for dim in dims)
        out.append(between or mixed)
    return tuple(out)
