"""The traffic of each memory level between it and the level above it (docs/levels.md).

A level L with tile depth d cuts the used time stamps into tiles: the distinct values of the
first d time coordinates, run in lexicographic order. F_X(u) is the set of elements of tensor
X that the instances of tile u access (reads and writes). With prev(u) and next(u) the
lexicographically previous and next USED tiles:

* entries E_X = F_X \\ (prev ; F_X): each is a read from the level above, except an
  element's first entry when its first access (in time-stamp order) is a write;
* exits  Q_X = F_X \\ (next ; F_X) (the last tile has no next, so all of it exits): an
  exit writes back when the element was written in some tile of that stay, i.e. between
  the stay's entry (the last entry at or before the exit) and the exit;
* capacity_needed = max_u Σ_X |F_X(u)| (single-buffered); a double-buffered level also
  holds the words filling next(u) and the words prev(u) still writes back.

Everything is counted with barvinok; the maximum is isl's integer maximum of each
quasi-affine piece of the per-tile count (pieces of higher degree are sliced).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import islpy as isl

from tenet.errors import InputError
from tenet.model.arch import Arch, MemoryLevel
from tenet.model.dataflow import BoundDataflow
from tenet.model.relations import time_predecessor
from tenet.model.schedule_time import affine_pieces, peak
from tenet.model.workload import Workload
from tenet.util.isl_util import count, simplify

#: Above this many tile values to enumerate, a piece of the per-tile count that is not
#: quasi-affine is maximised with isl's bound (an upper bound, exact when isl says tight).
MAX_SLICED_TILES = 100_000


@dataclass(frozen=True)
class LevelTraffic:
    """The words one memory level exchanges with the level above it, for one dataflow.

    `tensors[X] = (reads, writes)`: words of X read from the level above into this one,
    and written back from this one to the level above."""

    name: str
    above: str
    tile_depth: int
    tiles: int
    capacity_needed: int
    capacity: int
    tensors: dict[str, tuple[int, int]]
    word_bits: int
    bandwidth_gbps: float  # of the level above
    capacity_exact: bool = True
    outermost_above: bool = False  # the level above is the outermost one (DRAM, say)
    # max_u Σ_X |F_X(u)|, the capacity one tile needs (capacity_needed is this figure for
    # a single-buffered level); None: not known (read back from an older JSON)
    capacity_needed_single: int | None = None
    double_buffered: bool = False

    @property
    def reads(self) -> int:
        return sum(r for r, _ in self.tensors.values())

    @property
    def writes(self) -> int:
        return sum(w for _, w in self.tensors.values())

    @property
    def words(self) -> int:
        """reads + writes: every word crossing between this level and the one above."""
        return self.reads + self.writes

    @property
    def fits(self) -> bool:
        return self.capacity_needed <= self.capacity

    @property
    def transfer_ns(self) -> float:
        """(reads + writes) · word_bits / 8 bytes at the level above's bandwidth_gbps (GB/s):
        bytes / (GB/s) = ns."""
        return self.words * self.word_bits / 8 / self.bandwidth_gbps

    def warning(self) -> str | None:
        if self.fits:
            return None
        from tenet.model.checks import AnalysisWarning  # checks imports the relations

        return AnalysisWarning(
            "level_capacity",
            f"level {self.name!r}: the dataflow's tiles of depth {self.tile_depth} need "
            f"{self.capacity_needed:,} words, more than its capacity of {self.capacity:,}",
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "above": self.above,
            "tile_depth": self.tile_depth,
            "tiles": self.tiles,
            "capacity_needed": self.capacity_needed,
            "capacity_exact": self.capacity_exact,
            "capacity": self.capacity,
            "fits": self.fits,
            **(
                {}
                if self.capacity_needed_single is None
                else {"capacity_needed_single": self.capacity_needed_single}
            ),
            "double_buffered": self.double_buffered,
            "tensors": {x: {"reads": r, "writes": w} for x, (r, w) in self.tensors.items()},
            "reads": self.reads,
            "writes": self.writes,
            "transfer_ns": self.transfer_ns,
        }


def levels_from_dict(data: list[dict[str, Any]], arch: Arch) -> list[LevelTraffic]:
    """The LevelTraffic list whose `to_dict()`s are `data` (a journalled result); the
    word size and the bandwidth of the level above come from `arch`."""
    names = [level.name for level in arch.levels]
    out = []
    for entry in data:
        above = names.index(entry["above"])
        out.append(
            LevelTraffic(
                name=entry["name"],
                above=entry["above"],
                tile_depth=entry["tile_depth"],
                tiles=entry["tiles"],
                capacity_needed=entry["capacity_needed"],
                capacity=entry["capacity"],
                tensors={x: (t["reads"], t["writes"]) for x, t in entry["tensors"].items()},
                word_bits=arch.memory.word_bits,
                bandwidth_gbps=arch.levels[above].bandwidth_gbps,
                capacity_exact=entry["capacity_exact"],
                outermost_above=above == len(names) - 1,
                capacity_needed_single=entry.get("capacity_needed_single"),
                double_buffered=entry.get("double_buffered", False),
            )
        )
    return out


def check_tile_depths(
    tiles: Mapping[str, int],
    levels: list[MemoryLevel],
    time_arity: int,
    source: str | None,
    flags: frozenset[str] = frozenset(),
) -> list[tuple[int, int]]:
    """(level index, depth) of every level given a tile depth, innermost first; InputError
    for a level not in `levels`, the outermost level, a depth outside [1, time_arity], or
    an inner level with a smaller depth than a level outside it. A name in `flags` came
    from --tile and its error names the flag."""
    names = [level.name for level in levels]

    def where(name: str) -> tuple[str | None, str]:
        return ("--tile", name) if name in flags else (source, f"tiles.{name}")

    chosen = []
    for name, depth in tiles.items():
        src, key = where(name)
        if name not in names:
            known = ", ".join(names[:-1]) or "none (the arch has no 'levels:')"
            raise InputError(
                f"{name!r} is not a memory level of the arch below the outermost "
                f"(levels that take a tile: {known})",
                src,
                key,
            )
        index = names.index(name)
        if index == len(levels) - 1:
            raise InputError(
                f"{name!r} is the outermost level: it has no level above it and takes no tile",
                src,
                key,
            )
        if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= time_arity:
            raise InputError(
                f"tile depth {depth!r} must be an integer from 1 to {time_arity}, the number "
                "of time coordinates",
                src,
                key,
            )
        chosen.append((index, depth))
    chosen.sort()
    for (inner, d_in), (outer, d_out) in itertools.pairwise(chosen):
        if d_in < d_out:
            raise InputError(
                f"level {names[inner]!r} (depth {d_in}) is inside {names[outer]!r} (depth "
                f"{d_out}): an inner level's tiles must be at least as deep",
                *where(names[inner]),
            )
    return chosen


def tile_map(time_tuple: tuple[str, int], depth: int) -> isl.UnionMap:
    """τ = { T[t_0, ..., t_{k-1}] -> Tile[t_0, ..., t_{d-1}] }."""
    name, arity = time_tuple
    dims = [f"t{k}" for k in range(arity)]
    return isl.UnionMap(f"{{ {name}[{', '.join(dims)}] -> Tile[{', '.join(dims[:depth])}] }}")


def _union(*maps: isl.UnionMap | None) -> isl.UnionMap | None:
    present = [m for m in maps if m is not None]
    if not present:
        return None
    out = present[0]
    for m in present[1:]:
        out = out.union(m)
    return out


def write_first_elements(
    time_map: isl.UnionMap, reads: isl.UnionMap | None, writes: isl.UnionMap | None
) -> isl.UnionSet | None:
    """The elements whose first access is a write: written at the first time stamp that
    touches them and not read at it (within one instance, reads come before writes)."""
    if writes is None:
        return None
    stamps_reverse = time_map.reverse()
    written_at = stamps_reverse.apply_range(writes).reverse()  # X -> T
    read_at = None if reads is None else stamps_reverse.apply_range(reads).reverse()
    first = simplify(_union(written_at, read_at).lexmin())
    out = first.intersect(written_at).domain()
    if read_at is not None:
        out = out.subtract(first.intersect(read_at).domain())
    return out


@dataclass(frozen=True)
class TensorMaps:
    """One tensor at one level, as relations Tile -> X: its footprint F_X, the words that
    fill a tile from the level above (its entries that are reads) and the words written
    back at the exits after a tile."""

    footprint: isl.UnionMap
    fills: isl.UnionMap
    drains: isl.UnionMap | None


def tensor_traffic(
    instance_tile: isl.UnionMap,
    prev: isl.UnionMap,
    tiles_le: isl.UnionMap,
    time_map: isl.UnionMap,
    reads: isl.UnionMap | None,
    writes: isl.UnionMap | None,
) -> tuple[int, int, TensorMaps]:
    """(reads, writes, maps) of one tensor at one level: reads = |fills|, the entries less
    each write-first element's first entry; writes = |{ exits (u, e) : e written in some
    tile w, s(u,e) <= w <= u }|, s(u, e) the stay's entry. `tiles_le` = { u -> v : v <= u }
    over the used tiles."""
    to_tile = instance_tile.reverse()
    footprint = simplify(to_tile.apply_range(_union(reads, writes)))  # Tile -> X
    entries = simplify(footprint.subtract(prev.apply_range(footprint)))
    fills = entries
    first_written = write_first_elements(time_map, reads, writes)
    if first_written is not None:
        # a write-first element's first entry is at its first tile: no read there
        first_tile = footprint.reverse().lexmin().intersect_domain(first_written)
        fills = simplify(entries.subtract(first_tile.reverse()))
    drains = None
    if writes is not None:
        written = simplify(to_tile.apply_range(writes))  # Tile -> X, tiles that write it
        exits = simplify(footprint.subtract(prev.reverse().apply_range(footprint)))
        same_element = exits.range_map()  # [u -> e] -> e
        at_or_before = exits.domain_map().apply_range(tiles_le)  # [u -> e] -> v, v <= u
        stay_entry = simplify(
            same_element.apply_range(entries.reverse()).intersect(at_or_before).lexmax()
        )  # [u -> e] -> s(u, e)
        since_entry = stay_entry.apply_range(tiles_le.reverse())  # [u -> e] -> w, w >= s
        dirty = (
            same_element.apply_range(written.reverse())
            .intersect(at_or_before)
            .intersect(since_entry)
            .domain()
        )
        drains = simplify(dirty.unwrap())
    n_writes = 0 if drains is None else count(drains)
    return count(fills), n_writes, TensorMaps(footprint, fills, drains)


def max_per_tile(footprints: isl.UnionMap) -> tuple[int, bool]:
    """(max_u Σ_X |F_X(u)|, exact): the per-tile count is barvinok's card() of the union of
    the footprints (see `max_of_counts`)."""
    pieces: list[isl.PwQPolynomial] = []
    footprints.card().foreach_pw_qpolynomial(pieces.append)
    return max_of_counts(pieces)


def max_of_counts(pieces: list[isl.PwQPolynomial]) -> tuple[int, bool]:
    """(max_u of a per-tile count, exact): each quasi-affine piece is maximised by isl
    (exact); a piece of higher degree is sliced into one constant per value of the tile
    coordinates it involves, or, when that is more than MAX_SLICED_TILES values, bounded by
    isl's bound, exact only when isl reports the bound tight (attained by some tile)."""
    best, exact = 0, True
    for pw in pieces:
        for domain, qp in pw.get_pieces():
            single = isl.PwQPolynomial.alloc(domain, qp)
            if not qp.isa_aff() and _slice_points(domain, qp) > MAX_SLICED_TILES:
                # isl's bound: `tight` says some tile attains it (isl_pw_qpolynomial_bound)
                bound, tight = single.bound(isl.fold.max)
                value = bound.eval(isl.Point.zero(bound.get_domain_space())).to_python()
                best, exact = max(best, int(value)), exact and bool(tight)
                continue
            best = max(best, peak(affine_pieces(single, [0, 0])))
    return best, exact


def per_tile_words(umap: isl.UnionMap | None) -> isl.PwQPolynomial | None:
    """u -> |{ e : (u, e) ∈ umap }| for a relation Tile -> elements (barvinok's card()),
    as one piecewise quasi-polynomial on the tiles (None when empty)."""
    if umap is None or umap.is_empty():
        return None
    out = None
    pieces: list[isl.PwQPolynomial] = []
    umap.card().foreach_pw_qpolynomial(pieces.append)
    for pw in pieces:
        out = pw if out is None else out.add(pw)
    return out


def _slice_points(domain: isl.Set, qp: isl.QPolynomial) -> int:
    """How many values of the coordinates `qp` involves the domain has."""
    shadow = domain
    for i in reversed(range(domain.dim(isl.dim_type.set))):
        if not qp.involves_dims(isl.dim_type.in_, i, 1):
            shadow = shadow.project_out(isl.dim_type.set, i, 1)
    return count(shadow)


@dataclass(frozen=True)
class LevelMaps:
    """The relations of one level that its time through the hierarchy needs
    (tenet.model.hierarchy_time): the tile map τ (T -> Tile), the used tiles, prev
    (Tile -> Tile), and the words that fill each tile and drain after it (Tile -> X, all
    tensors; a tensor's elements keep its name). The per-tile counts of these words are
    counted once, when first asked for."""

    depth: int
    tau: isl.UnionMap
    used_tiles: isl.UnionSet
    prev: isl.UnionMap
    fills: isl.UnionMap | None
    drains: isl.UnionMap | None

    @functools.cached_property
    def fill_words(self) -> isl.PwQPolynomial | None:
        """u -> |fills(u)|."""
        return per_tile_words(self.fills)

    @functools.cached_property
    def drain_words(self) -> isl.PwQPolynomial | None:
        """u -> |drains(u)|."""
        return per_tile_words(self.drains)

    @functools.cached_property
    def next_fill_words(self) -> isl.PwQPolynomial | None:
        """u -> |fills(next u)| (tiles with a next)."""
        return (
            None
            if self.fills is None
            else per_tile_words(self.prev.reverse().apply_range(self.fills))
        )

    @functools.cached_property
    def prev_drain_words(self) -> isl.PwQPolynomial | None:
        """u -> |drains(prev u)| (tiles with a prev)."""
        return None if self.drains is None else per_tile_words(self.prev.apply_range(self.drains))


def level_traffic(
    workload: Workload,
    arch: Arch,
    bound: BoundDataflow,
    source: str | None = None,
) -> list[LevelTraffic]:
    """The traffic of every level of `arch.levels` given a tile depth in the dataflow's
    `tiles`, innermost first (empty when it gives none)."""
    return [traffic for traffic, _ in level_traffic_maps(workload, arch, bound, source)]


def level_traffic_maps(
    workload: Workload,
    arch: Arch,
    bound: BoundDataflow,
    source: str | None = None,
) -> list[tuple[LevelTraffic, LevelMaps]]:
    """`level_traffic`, each level with its relations (`LevelMaps`)."""
    tiles = bound.tiles
    if not tiles:
        return []
    chosen = check_tile_depths(tiles, arch.levels, bound.time_tuple[1], source, bound.tile_flags)
    out = []
    for index, depth in chosen:
        level, above = arch.levels[index], arch.levels[index + 1]
        tau = tile_map(bound.time_tuple, depth)
        instance_tile = simplify(bound.time_map.apply_range(tau))
        used_tiles = simplify(instance_tile.range())
        prev = time_predecessor(used_tiles)
        tiles_le = used_tiles.lex_ge_union_set(used_tiles)  # u -> v with v <= u
        per_tensor: dict[str, tuple[int, int]] = {}
        footprints = fills = drains = None
        for tensor in workload.tensors:
            r, w, maps = tensor_traffic(
                instance_tile,
                prev,
                tiles_le,
                bound.time_map,
                workload.access(tensor, "read"),
                workload.access(tensor, "write"),
            )
            per_tensor[tensor] = (r, w)
            footprints = _union(footprints, maps.footprint)
            fills = _union(fills, maps.fills)
            drains = _union(drains, maps.drains)
        maps = LevelMaps(depth, tau, used_tiles, prev, fills, drains)
        single, exact_single = max_per_tile(footprints)
        needed, exact = single, exact_single
        if level.double_buffered:
            needed, exact = double_buffered_capacity(footprints, maps)
        out.append(
            (
                LevelTraffic(
                    name=level.name,
                    above=above.name,
                    tile_depth=depth,
                    tiles=count(used_tiles),
                    capacity_needed=needed,
                    capacity=level.capacity_words,
                    tensors=per_tensor,
                    word_bits=arch.memory.word_bits,
                    bandwidth_gbps=above.bandwidth_gbps,
                    capacity_exact=exact,
                    outermost_above=index + 1 == len(arch.levels) - 1,
                    capacity_needed_single=single,
                    double_buffered=level.double_buffered,
                ),
                maps,
            )
        )
    return out


def double_buffered_capacity(footprints: isl.UnionMap, maps: LevelMaps) -> tuple[int, bool]:
    """(max_u [Σ_X |F_X(u)| + fill words of next(u) + drain words of prev(u)], exact): a
    double-buffered level holds tile u while next(u) arrives and prev(u) still leaves."""
    total = per_tile_words(footprints)
    for words in (maps.next_fill_words, maps.prev_drain_words):
        if words is not None:
            total = words if total is None else total.add(words)
    return max_of_counts([] if total is None else [total])


def levels_dram_words(levels: list[LevelTraffic]) -> int | None:
    """Words crossing into the outermost memory level: reads + writes of the level just
    inside it; None when that level has no tile depth."""
    for level in levels:
        if level.outermost_above:
            return level.words
    return None
