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

This module holds the uneven search and the merged front (`search_front`); the mapping and
its cost (`tenet.bounds.uneven_mapping`), the per-rank tile chains (`uneven_chains`), what
the searches share (`uneven_tools`) and imperfect Snowcat (`uneven_imperfect`) have modules
of their own, whose public names this module re-exports.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from math import ceil, prod
from typing import Any

import numpy as np

from tenet.bounds.front import Front, FrontPoint
from tenet.bounds.problem import Problem, pareto_front
from tenet.bounds.uneven_chains import (
    chain_counts,
    counts_matter,
    imperfect_chains,
    rank_chains,
    undominated,
)
from tenet.bounds.uneven_imperfect import (
    IMPERFECT_BLOCK_ROWS,
    dim_words,
    imperfect_tiles,
    snowcat_candidates,
    snowcat_imperfect_candidates,
)
from tenet.bounds.uneven_mapping import (
    IMPERFECT_CHAIN_LIMIT,
    SEARCH_ROW_LIMIT,
    Chunks,
    Progress,
    UnevenMapping,
    mapping_cost,
    parse_mapping,
    split_chunks,
    tensor_fetch,
    uneven_text,
    uses,
)
from tenet.bounds.uneven_tools import (
    RunningFront,
    bypass_cost,
    count_type,
    disjoint_dims,
    keep_choices,
    unit_coefficients,
)
from tenet.errors import InputError


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
#    chain whose v and relevant N (counts_matter) are all >= another's is therefore no
#    better at any choice of the other ranks, and is dropped (undominated).


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
                words = words * dim_words(dim, problem.sizes, count)
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
        moved.sort(key=lambda r: uses(tensor, r))
        loops += [(problem.ranks[r], rho[i][r]) for r in moved]
        positions[tensor.name] = len(loops)
        current = rho[i]
    loops += [(problem.ranks[r], 1) for r in range(n) if current[r] > 1]
    return UnevenMapping(tuple(loops), positions, bypassed)


def _uneven_chains(
    problem: Problem, imperfect: bool, bypass: bool
) -> list[tuple[tuple[int, ...], _Chain]]:
    """Every kept set and order of its tensors (innermost first) with each rank's chains;
    a one-line error when the search would be too large."""
    if imperfect:
        for t in problem.tensors:
            if not disjoint_dims(t):
                raise InputError(
                    f"imperfect tiles need each rank in one dimension of {t.name}",
                    option="imperfect",
                )
    prune = unit_coefficients(problem)
    n = len(problem.ranks)
    tables: dict[tuple[int, int], np.ndarray] = {}
    cache: dict[tuple[int, int, tuple[bool, ...] | None], np.ndarray] = {}
    chains = []
    for kept in keep_choices(problem, bypass):
        for order in itertools.permutations(kept):
            slots = [
                [i for i, t in enumerate(order) if uses(problem.tensors[t], r)] for r in range(n)
            ]
            options = []
            for r in range(n):
                size, length = problem.sizes[r], len(slots[r])
                matter = counts_matter(problem, order, slots[r], r) if prune else None
                if (size, length, matter) not in cache:
                    if imperfect and matter is not None:
                        table = imperfect_chains(size, matter)
                    else:
                        if (size, length) not in tables:
                            tables[size, length] = rank_chains(size, length, imperfect)
                        table = tables[size, length]
                    if matter is not None and length:
                        columns = [
                            *range(length),
                            *(length + j for j in range(length) if matter[j]),
                        ]
                        table = table[undominated(table[:, columns])]
                    cache[size, length, matter] = table
                options.append(cache[size, length, matter])
            chains.append((kept, _Chain(order, options, slots)))
    largest = max(prod(len(o) for o in chain.options) for _, chain in chains)
    if largest > SEARCH_ROW_LIMIT:
        raise InputError(
            f"the {'imperfect ' if imperfect else ''}uneven search would cost {largest:,} "
            f"tile combinations per tensor order (at most {SEARCH_ROW_LIMIT:,}); "
            "use smaller ranks",
            option="imperfect" if imperfect else "space",
        )
    return chains


def _uneven_candidates(
    problem: Problem,
    chains: list[tuple[tuple[int, ...], _Chain]],
    imperfect: bool,
    sizes: dict[str, int],
    progress: Progress,
    known: RunningFront,
) -> tuple[list[tuple[int, int, Callable[[], UnevenMapping]]], int]:
    """Front candidates of the per-tensor placement search and the combinations costed."""
    dtype = count_type(problem)
    candidates: list[tuple[int, int, Callable[[], UnevenMapping]]] = []
    evaluated = 0
    for done, (kept, whole) in enumerate(chains):
        bypassed = tuple(t.name for i, t in enumerate(problem.tensors) if i not in kept)
        extra = sum(
            bypass_cost(problem, problem.tensors[i], sizes)
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
        raise InputError(f"unknown mapping space {space!r} (snowcat or uneven)", option="space")
    sizes = {t.name: problem.size(t) for t in problem.tensors}
    chains = _uneven_chains(problem, imperfect, bypass) if space == "uneven" else []
    # The uneven chains already price every imperfect Snowcat mapping by the same rule, so
    # imperfect Snowcat is searched on its own only for the Snowcat space.
    snowcat_imperfect = imperfect and space == "snowcat"
    total = 1 + int(snowcat_imperfect) + len(chains)
    tagged: list[tuple[int, int, Callable[[], Any], str]] = []
    found, evaluated = snowcat_candidates(problem, bypass, None)
    tagged += [(b, a, make, "snowcat") for b, a, make in found]
    if progress:
        progress(1, total)
    known = RunningFront()
    known.add([(b, a) for b, a, _, _ in tagged])
    if snowcat_imperfect:
        found, count = snowcat_imperfect_candidates(problem, bypass, sizes, known)
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


__all__ = [
    "IMPERFECT_BLOCK_ROWS",
    "IMPERFECT_CHAIN_LIMIT",
    "SEARCH_ROW_LIMIT",
    "Chunks",
    "Progress",
    "SpaceFront",
    "UnevenMapping",
    "chain_counts",
    "imperfect_tiles",
    "mapping_cost",
    "parse_mapping",
    "rank_chains",
    "search_front",
    "split_chunks",
    "tensor_fetch",
    "uneven_text",
]
