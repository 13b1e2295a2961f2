"""Mapping spaces beyond Snowcat for one einsum: per-tensor tile placement ("uneven") and
imperfect tiles, searched exhaustively with exact pruning (docs/bounds.md, "Mapping spaces").

A mapping is a nest of backing-store loops, outermost first. A loop of rank r with tile t
walks the current chunk of r in pieces of t words of r; when t does not divide the chunk the
last piece is partial (imperfect tiles). Each kept tensor X is held at its own position p
(the number of loops above its tile):

    range_r(p) = tile of the innermost r-loop above p (R_r when there is none)
    tile(X)    = prod_d (sum_r |a_dr| (range_r(p) - 1) + 1)        box of full chunks
    fetched(X) = sum, over the iterations of the loops above p down to the innermost one
                 that indexes X (j*), of the words of X's tile at that iteration
    buffer     = sum_kept tile(X)
    accesses   = sum_kept inputs fetched(X) + 2 fetched(O) - |O|   (+ bypass: MACs per input,
                 2 MACs - |O| for the output)

Loops between j* and p do not move X's tile, so it stays put across them. A tile that
changes is fetched whole (no sliding-window saving in this space); Snowcat mappings keep
Snowcat's own costs, sliding windows included, because every front here is merged with the
Snowcat front of the same flags.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from math import ceil, isqrt, prod
from typing import Any

import numpy as np

from tenet.bounds.front import Front, FrontPoint
from tenet.bounds.snowcat import (
    BoundTensor,
    Problem,
    count_dtype,
    pareto_front,
    snowcat_front,
)
from tenet.errors import InputError

Progress = Callable[[int, int], None] | None
Chunks = dict[int, int]  # chunk size -> number of chunks of that size

#: Largest number of candidate tile chains per rank that the imperfect search enumerates.
IMPERFECT_CHAIN_LIMIT = 60_000
#: Largest number of tile-chain combinations costed for one order of the tensors.
SEARCH_ROW_LIMIT = 60_000_000


@dataclass
class SpaceFront:
    """The Pareto front of one mapping space: buffer strictly rising, accesses falling."""

    space: str
    imperfect: bool
    bypass: bool
    mappings_evaluated: int
    points: list[FrontPoint]

    @property
    def front(self) -> Front:
        return Front(tuple(self.points))

    def to_dict(self) -> dict[str, Any]:
        return {
            "space": self.space,
            "imperfect": self.imperfect,
            "bypass": self.bypass,
            "mappings_evaluated": self.mappings_evaluated,
            "pareto": self.front.to_json(),
        }


@dataclass
class UnevenMapping:
    """A loop nest: (rank, tile) outermost first, each kept tensor's position (loops above
    its tile), and the bypassed tensors."""

    loops: tuple[tuple[str, int], ...]
    positions: dict[str, int]
    bypassed: tuple[str, ...] = field(default_factory=tuple)


# --- chunks and the cost of one mapping -------------------------------------------------------


def split_chunks(chunks: Chunks, tile: int) -> Chunks:
    """Cut every chunk into pieces of `tile`, the last piece of each partial."""
    out: Chunks = {}
    for size, count in chunks.items():
        full, rest = divmod(size, tile)
        if full:
            out[tile] = out.get(tile, 0) + count * full
        if rest:
            out[rest] = out.get(rest, 0) + count
    return out


def _uses(tensor: BoundTensor, rank: int) -> bool:
    return any(dim[rank] for dim in tensor.dims)


def tensor_fetch(
    problem: Problem, loops: Sequence[tuple[int, int]], tensor: BoundTensor, position: int
) -> tuple[int, int]:
    """(tile words, words fetched) of `tensor` held below loops[:position] ((rank index, tile)
    pairs): Σ over iterations of the loops down to the innermost indexing one of the tile."""
    n = len(problem.ranks)
    chunks: list[Chunks] = [{s: 1} for s in problem.sizes]
    ranges = list(problem.sizes)
    at_last_index: list[Chunks] | None = None
    for rank, tile in loops[:position]:
        chunks[rank] = split_chunks(chunks[rank], tile)
        ranges[rank] = min(ranges[rank], tile)
        if _uses(tensor, rank):
            at_last_index = [dict(c) for c in chunks]
    tile = problem.extent(tensor, ranges)
    if at_last_index is None:
        return tile, tile
    mine = [r for r in range(n) if _uses(tensor, r)]
    replays = prod(sum(at_last_index[r].values()) for r in range(n) if r not in mine)
    fetched = 0
    for combo in itertools.product(*(at_last_index[r].items() for r in mine)):
        sizes = list(ranges)
        count = 1
        for r, (size, many) in zip(mine, combo):
            sizes[r] = size
            count *= many
        fetched += count * problem.extent(tensor, sizes)
    return tile, fetched * replays


def _rank_index(problem: Problem, name: str, text: str) -> int:
    if name not in problem.ranks:
        raise InputError(f"unknown rank {name!r} in mapping {text!r}", "mapping")
    return problem.ranks.index(name)


def _indexed_loops(problem: Problem, mapping: UnevenMapping) -> list[tuple[int, int]]:
    loops = []
    for name, tile in mapping.loops:
        rank = _rank_index(problem, name, name)
        if tile < 1:
            raise InputError(f"loop {name} has tile {tile} (must be >= 1)", "mapping")
        loops.append((rank, tile))
    return loops


def mapping_cost(problem: Problem, mapping: UnevenMapping | str) -> tuple[int, int]:
    """(buffer words, backing-store words) of one explicit uneven mapping (exact ints)."""
    if isinstance(mapping, str):
        mapping = parse_mapping(problem, mapping)
    loops = _indexed_loops(problem, mapping)
    buffer = accesses = 0
    for tensor in problem.tensors:
        if tensor.name in mapping.bypassed:
            accesses += (2 * problem.macs - problem.size(tensor)) if tensor.output else problem.macs
            continue
        if tensor.name not in mapping.positions:
            raise InputError(f"tensor {tensor.name} has no position in the mapping", "mapping")
        position = mapping.positions[tensor.name]
        if not 0 <= position <= len(loops):
            raise InputError(f"position of {tensor.name} is outside the nest", "mapping")
        tile, fetched = tensor_fetch(problem, loops, tensor, position)
        buffer += tile
        accesses += 2 * fetched - problem.size(tensor) if tensor.output else fetched
    return buffer, accesses


# --- mapping text ------------------------------------------------------------------------------


def uneven_text(problem: Problem, mapping: UnevenMapping) -> str:
    """`[A] n:64 [B] m:64 [Z] k:64`: tensors at their positions, loops as rank:trips, or
    rank:trips(tile) when the tile does not divide the chunk it walks (last piece partial)."""
    at: dict[int, list[str]] = {}
    for name, position in mapping.positions.items():
        at.setdefault(position, []).append(name)
    order = [t.name for t in problem.tensors]
    chunks: dict[str, Chunks] = {r: {s: 1} for r, s in zip(problem.ranks, problem.sizes)}
    words = []
    for index, (rank, tile) in enumerate([*mapping.loops, (None, None)]):
        for name in sorted(at.get(index, []), key=order.index):
            words.append(f"[{name}]")
        if rank is None:
            break
        parent = chunks[rank]
        trips = ceil(max(parent) / tile)
        even = all(size % tile == 0 for size in parent)
        words.append(f"{rank}:{trips}" if even else f"{rank}:{trips}({tile})")
        chunks[rank] = split_chunks(parent, tile)
    text = " ".join(words) or "(no loops)"
    if mapping.bypassed:
        text += " | bypass " + ",".join(mapping.bypassed)
    return text


_TOKEN = re.compile(
    r"\[(?P<tensor>[^\]]+)\]|(?P<rank>[A-Za-z_]\w*):(?P<trips>\d+)(?:\((?P<tile>\d+)\))?"
)


def parse_mapping(problem: Problem, text: str) -> UnevenMapping:
    """The inverse of `uneven_text`: `[A] n:64 [B] m:64 [Z] k:64 | bypass X`."""
    body, _, bypass = text.partition("|")
    bypassed = tuple(b.strip() for b in bypass.replace("bypass", "", 1).split(",") if b.strip())
    names = {t.name for t in problem.tensors}
    chunks: dict[str, Chunks] = {r: {s: 1} for r, s in zip(problem.ranks, problem.sizes)}
    loops: list[tuple[str, int]] = []
    positions: dict[str, int] = {}
    rest = body.strip()
    while rest:
        match = _TOKEN.match(rest)
        if not match:
            raise InputError(f"cannot read {rest.split()[0]!r} in mapping {text!r}", "mapping")
        rest = rest[match.end() :].lstrip()
        if match["tensor"]:
            if match["tensor"] not in names:
                raise InputError(f"unknown tensor {match['tensor']!r} in {text!r}", "mapping")
            positions[match["tensor"]] = len(loops)
            continue
        rank, trips = match["rank"], int(match["trips"])
        _rank_index(problem, rank, text)
        parent = max(chunks[rank])
        if match["tile"]:
            tile = int(match["tile"])
        elif trips and parent % trips == 0:
            tile = parent // trips
        else:
            raise InputError(
                f"{rank}:{trips} does not divide {rank}'s chunk of {parent} "
                f"(write {rank}:{trips}(TILE))",
                "mapping",
            )
        chunks[rank] = split_chunks(chunks[rank], tile)
        loops.append((rank, tile))
    for name in bypassed:
        if name not in names:
            raise InputError(f"unknown tensor {name!r} in {text!r}", "mapping")
    return UnevenMapping(tuple(loops), positions, bypassed)


# --- per-rank tile chains ---------------------------------------------------------------------


def _divisor_chains(size: int, length: int) -> list[tuple[int, ...]]:
    """v_1 | v_2 | ... | v_length | size (perfect tiles: every level divides the next)."""
    if length == 0:
        return [()]
    out = []
    for top in (d for d in range(1, size + 1) if size % d == 0):
        for inner in _divisor_chains(top, length - 1):
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


def _undominated(columns: np.ndarray) -> np.ndarray:
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
        chains = _divisor_chains(size, length)
        return np.array([(*c, *(size // v for v in c)) for c in chains], dtype=np.int64)
    total = prod(range(size, size + length)) // prod(range(1, length + 1))
    if total > IMPERFECT_CHAIN_LIMIT:
        raise InputError(
            f"a rank of size {size} held by {length} tensors has {total:,} imperfect tile "
            f"chains; the exhaustive imperfect search takes at most {IMPERFECT_CHAIN_LIMIT:,}",
            "--imperfect",
        )
    rows = [
        (*c, *chain_counts(size, c))
        for c in itertools.combinations_with_replacement(range(1, size + 1), length)
    ]
    return np.array(rows, dtype=np.int64)


def _imperfect_chains(size: int, matter: tuple[bool, ...]) -> np.ndarray:
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
            "--imperfect",
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


def _counts_matter(
    problem: Problem, order: tuple[int, ...], slots: list[int], rank: int
) -> tuple[bool, ...]:
    """For each slot j of the rank: whether its chunk count N_j can change a cost. N_j is
    the replay factor of the tensors between slot j-1 and slot j that do not use the rank,
    and enters the words summed over the slot's own chunks only through a dimension that
    mixes ranks (for |a| = 1 alone in its dimension, the chunks' words add up to R)."""
    out = []
    for previous, slot in zip([-1, *slots[:-1]], slots):
        between = any(not _uses(problem.tensors[order[i]], rank) for i in range(previous + 1, slot))
        own = problem.tensors[order[slot]]
        dims = [dim for dim in own.dims if dim[rank]]
        mixed = len(dims) > 1 or any(sum(1 for a in dim if a) > 1 for dim in dims)
        out.append(between or mixed)
    return tuple(out)


# --- the uneven search ------------------------------------------------------------------------
#
# Why enumerating chains is exhaustive (brute force over every nest of tiny shapes checks it,
# tests/bounds/test_uneven.py):
#
# 1. Between two consecutive tensor positions, the loops of one rank can be replaced by one
#    loop at the innermost of them with the innermost tile. No tile changes (every position
#    is wholly above or below them). For a tensor below, the loops counted are those down to
#    its innermost indexing loop; the merged loop sits where the innermost replaced loop was,
#    so no loop joins the count, and dropping levels only removes pieces at inner levels
#    (ceil((a+b)/t) <= ceil(a/t) + ceil(b/t)). So nests with T+1 segments and at most one loop
#    per rank in each suffice.
# 2. In such a nest, let rho_X be the range of every rank just inside X's innermost indexing
#    loop (the rank sizes if none). tile(X) depends on rho_X over X's ranks, and fetched(X) =
#    (words of X's pieces at those levels) x prod_{r not in X} pieces of r at level rho_X[r].
#    The rho of one nest are ordered (loops nest), so we enumerate tensor orders and, per
#    rank, chains v_1 <= ... <= v_m <= R over the m kept tensors using it.
# 3. A tensor's other components are set to the level of the next tensor outward that uses
#    the rank (R if none): in a nest they are at most that, a larger level has no more pieces,
#    and the tile does not depend on them. So every nest is charged, by the chain of its tile
#    levels, at most what it moves, with the same buffer. Conversely every chain is charged
#    at least what the nest _chain_mapping builds from it moves (that nest's innermost
#    indexing loops can only sit further out), so no chain is charged below an attained
#    cost. Front points are repriced with mapping_cost in search_front and must agree.
# 4. When every coefficient is 0 or ±1, costs do not decrease in any level v_j (tiles) or
#    chunk count N_j (replays; a dimension's words summed over its chunks,
#    Σ_r (R_r - N_r) ∏_{r' != r} N_r' + ∏_r N_r, does not decrease in any N_r). A rank's
#    chain whose v and relevant N (_counts_matter) are all >= another's is therefore no
#    better at any choice of the other ranks, and is dropped (_undominated).


def _unit_coefficients(problem: Problem) -> bool:
    return all(abs(a) <= 1 for t in problem.tensors for dim in t.dims for a in dim)


def _disjoint_dims(tensor: BoundTensor) -> bool:
    seen: set[int] = set()
    for dim in tensor.dims:
        ranks = {r for r, a in enumerate(dim) if a}
        if ranks & seen:
            return False
        seen |= ranks
    return True


def _bypass_cost(problem: Problem, tensor: BoundTensor, sizes: dict[str, int]) -> int:
    return 2 * problem.macs - sizes[tensor.name] if tensor.output else problem.macs


def _dtype(problem: Problem) -> Any:
    """int64 when no cost or partial product can reach 2^62, else exact Python objects
    (snowcat.count_dtype states the bound)."""
    return count_dtype(problem)


class _RunningFront:
    """The best accesses found so far at each buffer size (a step function), to drop rows
    that a known point already beats before the exact Pareto sort."""

    def __init__(self) -> None:
        self.buffer = np.zeros(0, dtype=np.int64)
        self.accesses = np.zeros(0, dtype=object)

    def add(self, points: list[tuple[int, int]]) -> None:
        merged = sorted([*zip(self.buffer.tolist(), self.accesses.tolist()), *points])
        keep, best = [], None
        for b, a in merged:
            if best is None or a < best:
                keep.append((b, a))
                best = a
        self.buffer = np.array([b for b, _ in keep], dtype=np.int64)
        self.accesses = np.array([a for _, a in keep], dtype=object)

    def survivors(self, buffer: np.ndarray, accesses: np.ndarray) -> np.ndarray:
        """Rows not strictly beaten: accesses <= the front's value at their buffer size."""
        if not len(self.buffer):
            return np.arange(len(buffer))
        at = np.searchsorted(self.buffer, buffer.astype(np.int64), side="right") - 1
        if accesses.dtype == object:
            limit = np.where(at >= 0, self.accesses[np.maximum(at, 0)], None)
            keep = [i for i, (a, c) in enumerate(zip(accesses, limit)) if c is None or a <= c]
            return np.array(keep, dtype=np.int64)
        ceiling = np.array([min(a, 2**62) for a in self.accesses.tolist()], dtype=np.int64)
        limit = np.where(at >= 0, ceiling[np.maximum(at, 0)], np.iinfo(np.int64).max)
        return np.nonzero(accesses <= limit)[0]


@dataclass
class _Chain:
    kept: tuple[int, ...]  # tensor indices, innermost first
    options: list[np.ndarray]  # per rank: (n_r, 2 m_r) chains
    slots: list[list[int]]  # per rank: positions in `kept` of the tensors holding it


def _chain_costs(
    problem: Problem, chain: _Chain, sizes: dict[str, int], imperfect: bool, dtype: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Buffer and accesses of every combination of the ranks' chains (flattened, C order).

    Tensor i of `kept` sees, for each rank it uses, its own level v (tile) and chunk count N
    (fetched words: Σ over its chunks), and for every other rank the chunk count N of the
    next tensor outward that uses it (its tile is replayed that often), or 1."""
    n = len(problem.ranks)
    shape = [len(o) for o in chain.options]

    def column(r: int, c: int) -> np.ndarray:
        values = chain.options[r][:, c].astype(dtype)
        return values.reshape([-1 if k == r else 1 for k in range(n)])

    buffer: Any = 0
    accesses: Any = 0
    for i, t in enumerate(chain.kept):
        tensor = problem.tensors[t]
        level: dict[int, np.ndarray] = {}
        count: dict[int, np.ndarray] = {}
        replays: Any = 1
        for r in range(n):
            slots = chain.slots[r]
            m = len(slots)
            if i in slots:
                j = slots.index(i)
                level[r], count[r] = column(r, j), column(r, m + j)
            else:
                outer = [j for j, s in enumerate(slots) if s > i]
                if outer:
                    replays = replays * column(r, m + outer[0])
        tile: Any = 1
        words: Any = 1
        for dim in tensor.dims:
            ranks = [r for r, a in enumerate(dim) if a]
            tile = tile * (1 + sum(abs(dim[r]) * (level[r] - 1) for r in ranks))
            if imperfect:
                words = words * _dim_words(dim, problem.sizes, count)
        if not imperfect:
            words = tile * prod((count[r] for r in count), start=1)
        fetched = words * replays
        if tensor.output:
            fetched = 2 * fetched - sizes[tensor.name]
        buffer = buffer + tile
        accesses = accesses + fetched
    full = tuple(shape)
    return (
        np.broadcast_to(np.asarray(buffer, dtype=dtype), full).reshape(-1),
        np.broadcast_to(np.asarray(accesses, dtype=dtype), full).reshape(-1),
    )


def _chain_mapping(
    problem: Problem, chain: _Chain, flat: int, bypassed: tuple[str, ...]
) -> UnevenMapping:
    """The nest of one chain combination: tensors outermost first, each segment's loops with
    one that indexes the tensor below it innermost (where there is one), tile-1 loops last."""
    n = len(problem.ranks)
    pick = np.unravel_index(flat, [len(o) for o in chain.options])
    k = len(chain.kept)
    rho = [[0] * n for _ in range(k)]
    for r in range(n):
        row = chain.options[r][int(pick[r])]
        slots = chain.slots[r]
        for i in range(k):
            outer = [j for j, s in enumerate(slots) if s >= i]
            rho[i][r] = int(row[outer[0]]) if outer else problem.sizes[r]
    current = list(problem.sizes)
    loops: list[tuple[str, int]] = []
    positions: dict[str, int] = {}
    for i in reversed(range(k)):
        tensor = problem.tensors[chain.kept[i]]
        moved = [r for r in range(n) if rho[i][r] < current[r]]
        moved.sort(key=lambda r: _uses(tensor, r))
        loops += [(problem.ranks[r], rho[i][r]) for r in moved]
        positions[tensor.name] = len(loops)
        current = rho[i]
    loops += [(problem.ranks[r], 1) for r in range(n) if current[r] > 1]
    return UnevenMapping(tuple(loops), positions, bypassed)


def _keep_choices(problem: Problem, bypass: bool) -> list[tuple[int, ...]]:
    everything = tuple(range(len(problem.tensors)))
    if not bypass:
        return [everything]
    return [tuple(t for t in everything if keep >> t & 1) for keep in range(1 << len(everything))]


def _uneven_chains(
    problem: Problem, imperfect: bool, bypass: bool
) -> list[tuple[tuple[int, ...], _Chain]]:
    """Every kept set and order of its tensors (innermost first) with each rank's chains;
    a one-line error when the search would be too large."""
    if imperfect:
        for t in problem.tensors:
            if not _disjoint_dims(t):
                raise InputError(
                    f"imperfect tiles need each rank in one dimension of {t.name}", "--imperfect"
                )
    prune = _unit_coefficients(problem)
    n = len(problem.ranks)
    tables: dict[tuple[int, int], np.ndarray] = {}
    cache: dict[tuple[int, int, tuple[bool, ...] | None], np.ndarray] = {}
    chains = []
    for kept in _keep_choices(problem, bypass):
        for order in itertools.permutations(kept):
            slots = [
                [i for i, t in enumerate(order) if _uses(problem.tensors[t], r)] for r in range(n)
            ]
            options = []
            for r in range(n):
                size, length = problem.sizes[r], len(slots[r])
                matter = _counts_matter(problem, order, slots[r], r) if prune else None
                if (size, length, matter) not in cache:
                    if imperfect and matter is not None:
                        table = _imperfect_chains(size, matter)
                    else:
                        if (size, length) not in tables:
                            tables[size, length] = rank_chains(size, length, imperfect)
                        table = tables[size, length]
                    if matter is not None and length:
                        columns = [
                            *range(length),
                            *(length + j for j in range(length) if matter[j]),
                        ]
                        table = table[_undominated(table[:, columns])]
                    cache[size, length, matter] = table
                options.append(cache[size, length, matter])
            chains.append((kept, _Chain(order, options, slots)))
    largest = max(prod(len(o) for o in chain.options) for _, chain in chains)
    if largest > SEARCH_ROW_LIMIT:
        raise InputError(
            f"the {'imperfect ' if imperfect else ''}uneven search would cost {largest:,} "
            f"tile combinations per tensor order (at most {SEARCH_ROW_LIMIT:,}); "
            "use smaller ranks",
            "--imperfect" if imperfect else "--space",
        )
    return chains


def _uneven_candidates(
    problem: Problem,
    chains: list[tuple[tuple[int, ...], _Chain]],
    imperfect: bool,
    sizes: dict[str, int],
    progress: Progress,
    known: _RunningFront,
) -> tuple[list[tuple[int, int, Callable[[], UnevenMapping]]], int]:
    """Front candidates of the per-tensor placement search and the combinations costed."""
    dtype = _dtype(problem)
    candidates: list[tuple[int, int, Callable[[], UnevenMapping]]] = []
    evaluated = 0
    for done, (kept, whole) in enumerate(chains):
        bypassed = tuple(t.name for i, t in enumerate(problem.tensors) if i not in kept)
        extra = sum(
            _bypass_cost(problem, problem.tensors[i], sizes)
            for i in range(len(problem.tensors))
            if i not in kept
        )
        for chain in _blocks(whole):
            buffer, accesses = _chain_costs(problem, chain, sizes, imperfect, dtype)
            accesses = accesses + extra
            evaluated += len(buffer)
            rows = known.survivors(buffer, accesses)
            found = []
            for index in rows[pareto_front(buffer[rows], accesses[rows])].tolist():
                found.append((int(buffer[index]), int(accesses[index])))
                candidates.append(
                    (
                        *found[-1],
                        lambda c=chain, f=index, b=bypassed: _chain_mapping(problem, c, f, b),
                    )
                )
            known.add(found)
        if progress:
            progress(done + 1, len(chains))
    return candidates, evaluated


def _blocks(chain: _Chain, rows: int = 1 << 21) -> list[_Chain]:
    """The chain combinations cut along the rank with most options into blocks of at most
    about `rows` rows (memory stays bounded)."""
    sizes = [len(o) for o in chain.options]
    total = prod(sizes)
    if total <= rows:
        return [chain]
    r = max(range(len(sizes)), key=lambda k: sizes[k])
    step = max(1, rows // (total // sizes[r]))
    out = []
    for start in range(0, sizes[r], step):
        options = list(chain.options)
        options[r] = options[r][start : start + step]
        out.append(_Chain(chain.kept, options, chain.slots))
    return out


# --- Snowcat with imperfect tiles -------------------------------------------------------------


def imperfect_tiles(size: int) -> list[int]:
    """Tiles t = ceil(R/q), q = 1..R: the smallest tile with q pieces. A single level with q
    pieces costs the same fetched words for every such t (Σ chunks = R, N = q) and its box
    grows with t, so no other tile of a one-level split is on a front (exact)."""
    return sorted({ceil(size / q) for q in range(1, size + 1)})


def _dim_words(dim: tuple[int, ...], sizes: list[int], count: Any) -> Any:
    """Words of one dimension summed over all its chunk combinations (Σ c_r = R_r):
    Σ_r |a_r| (R_r - N_r) ∏_{r' != r} N_r' + ∏_r N_r, with N_r = count[r]."""
    ranks = [r for r, a in enumerate(dim) if a]
    return sum(
        abs(dim[r]) * (sizes[r] - count[r]) * prod((count[q] for q in ranks if q != r), start=1)
        for r in ranks
    ) + prod((count[r] for r in ranks), start=1)


def _count_matters(tensor: BoundTensor, rank: int) -> bool:
    """Whether the words of the tensor summed over its chunk combinations (`_dim_words`)
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
        mine = [j for j, r in enumerate(order) if _uses(tensor, r)]
        before = order[: mine[-1] + 1] if mine else ()
        out.append([r for r in before if not _uses(tensor, r)])
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


def _snowcat_imperfect_candidates(
    problem: Problem, bypass: bool, sizes: dict[str, int], known: _RunningFront
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
        if not _disjoint_dims(t):
            raise InputError(
                f"imperfect tiles need each rank in one dimension of {t.name}", "--imperfect"
            )
    n = len(problem.ranks)
    dtype = _dtype(problem)
    choices = [imperfect_tiles(s) for s in problem.sizes]
    keeps = _keep_choices(problem, bypass)
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
                    _bypass_cost(problem, t, sizes)
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
                            summed = summed * _dim_words(dim, problem.sizes, counts.T)
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
                                lambda t=chosen, p=position, b=bypassed: _snowcat_point(
                                    problem, t, p, b
                                ),
                            )
                        )
                    known.add(found)
    return candidates, evaluated


def _snowcat_point(
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


def _snowcat_candidates(
    problem: Problem, bypass: bool, progress: Progress
) -> tuple[list[tuple[int, int, Callable[[], Any]]], int]:
    """Today's Snowcat front (snowcat.snowcat_front, the points of `evaluate`), its points
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


# --- fronts -----------------------------------------------------------------------------------


def _detail(problem: Problem, mapping: UnevenMapping, space: str, rule: str) -> dict[str, Any]:
    loops = []
    chunks = {r: {s: 1} for r, s in zip(problem.ranks, problem.sizes)}
    for rank, tile in mapping.loops:
        parent = chunks[rank]
        loops.append({"rank": rank, "trips": ceil(max(parent) / tile), "tile": tile})
        chunks[rank] = split_chunks(parent, tile)
    index = [(problem.ranks.index(r), t) for r, t in mapping.loops]
    tiles = {
        t.name: tensor_fetch(problem, index, t, mapping.positions[t.name])[0]
        for t in problem.tensors
        if t.name in mapping.positions
    }
    return {
        "space": space,
        "cost_rule": rule,
        "loops": loops,
        "positions": dict(mapping.positions),
        "tiles": tiles,
        "kept": [t.name for t in problem.tensors if t.name not in mapping.bypassed],
        "bypassed": list(mapping.bypassed),
    }


_PREFERENCE = {"uneven": 0, "snowcat-imperfect": 1, "snowcat": 2}


def _merge(candidates: list[tuple[int, int, Callable[[], Any], str]]) -> list[int]:
    """Indices of the candidates on the front; on ties an uneven nest is shown first, then
    an imperfect Snowcat mapping, then today's Snowcat mapping."""
    order = sorted(
        range(len(candidates)),
        key=lambda i: (candidates[i][0], candidates[i][1], _PREFERENCE[candidates[i][3]], i),
    )
    keep, best = [], None
    for i in order:
        if best is None or candidates[i][1] < best:
            keep.append(i)
            best = candidates[i][1]
    return keep


def search_front(
    problem: Problem,
    space: str = "snowcat",
    imperfect: bool = False,
    bypass: bool = False,
    progress: Progress = None,
) -> SpaceFront:
    """The least backing-store traffic at each buffer size over one mapping space.

    `snowcat`: today's space (one tile per rank, all tiles at one position); `uneven`: each
    tensor's tile at its own position in a nest where a rank may be split several times.
    `imperfect`: tiles need not divide (last piece partial, real words counted). Every
    space's front is merged with the Snowcat front of the same bypass flag, so it is never
    above it. `progress(done, total)` counts search steps."""
    if space not in ("snowcat", "uneven"):
        raise InputError(f"unknown mapping space {space!r} (snowcat or uneven)", "--space")
    sizes = {t.name: problem.size(t) for t in problem.tensors}
    chains = _uneven_chains(problem, imperfect, bypass) if space == "uneven" else []
    # The uneven chains already price every imperfect Snowcat mapping by the same rule, so
    # imperfect Snowcat is searched on its own only for the Snowcat space.
    snowcat_imperfect = imperfect and space == "snowcat"
    total = 1 + int(snowcat_imperfect) + len(chains)
    tagged: list[tuple[int, int, Callable[[], Any], str]] = []
    found, evaluated = _snowcat_candidates(problem, bypass, None)
    tagged += [(b, a, make, "snowcat") for b, a, make in found]
    if progress:
        progress(1, total)
    known = _RunningFront()
    known.add([(b, a) for b, a, _, _ in tagged])
    if snowcat_imperfect:
        found, count = _snowcat_imperfect_candidates(problem, bypass, sizes, known)
        tagged += [(b, a, make, "snowcat-imperfect") for b, a, make in found]
        known.add([(b, a) for b, a, _ in found])
        evaluated += count
        if progress:
            progress(2, total)
    if space == "uneven":

        def step(done: int, _jobs: int) -> None:
            if progress:
                progress(1 + done, total)

        found, count = _uneven_candidates(problem, chains, imperfect, sizes, step, known)
        tagged += [(b, a, make, "uneven") for b, a, make in found]
        evaluated += count
    points = []
    for i in _merge(tagged):
        buffer, accesses, make, source = tagged[i]
        if source == "uneven":
            mapping = make()
            text = uneven_text(problem, mapping)
        else:
            text, mapping = make()
        rule = "snowcat" if source == "snowcat" else "uneven"
        if rule == "uneven" and mapping_cost(problem, mapping) != (buffer, accesses):
            raise AssertionError(f"front point {text} is not costed as its nest")
        detail = _detail(problem, mapping, "uneven" if source == "uneven" else "snowcat", rule)
        points.append(FrontPoint(buffer, accesses, text, detail))
    return SpaceFront(space, imperfect, bypass, evaluated, points)
