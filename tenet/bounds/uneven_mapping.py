"""A mapping of the uneven space of one einsum (`UnevenMapping`: a nest of backing-store
loops and each kept tensor's position) and what it costs (`mapping_cost`, by the chunks each
loop cuts a rank into), with its text form (`uneven_text`, `parse_mapping`). The rules are
those of `tenet.bounds.uneven`'s docstring."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from math import ceil, prod

from tenet.bounds.problem import BoundTensor, Problem
from tenet.errors import InputError

Progress = Callable[[int, int], None] | None
Chunks = dict[int, int]  # chunk size -> number of chunks of that size

#: Largest number of candidate tile chains per rank that the imperfect search enumerates.
IMPERFECT_CHAIN_LIMIT = 60_000
#: Largest number of tile-chain combinations costed for one order of the tensors.
SEARCH_ROW_LIMIT = 60_000_000


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


def uses(tensor: BoundTensor, rank: int) -> bool:
    """Whether the tensor's index involves the rank."""
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
        if uses(tensor, rank):
            at_last_index = [dict(c) for c in chunks]
    tile = problem.extent(tensor, ranges)
    if at_last_index is None:
        return tile, tile
    mine = [r for r in range(n) if uses(tensor, r)]
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
