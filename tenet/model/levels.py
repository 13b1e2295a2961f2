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
quasi-affine piece of the per-tile count (pieces of higher degree are sliced). What does
not depend on the level is found once, an outer level starts from the inner level's tiles
and footprints, and each per-tile count is counted once and shared by the capacity and the
time through the hierarchy (docs/levels.md, "Speed").
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import islpy as isl

from tenet.errors import InputError
from tenet.model.arch import Arch, MemoryLevel
from tenet.model.dataflow import BoundDataflow
from tenet.model.schedule_time import affine_pieces, combine_pw_affs, peak
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
) -> list[tuple[int, int]]:
    """(level index, depth) of every level given a tile depth, innermost first; InputError
    for a level not in `levels`, the outermost level, a depth outside [1, time_arity], or
    an inner level with a smaller depth than a level outside it. The error names the
    dataflow's key `tiles.LEVEL` (the command line names its own flag for a level it set)."""
    names = [level.name for level in levels]

    def where(name: str) -> tuple[str | None, str]:
        return (source, f"tiles.{name}")

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


@functools.lru_cache(maxsize=64)
def tile_map(time_tuple: tuple[str, int], depth: int) -> isl.UnionMap:
    """τ = { T[t_0, ..., t_{k-1}] -> Tile[t_0, ..., t_{d-1}] } (parsed once; isl objects are
    values)."""
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
    touches them and not read at it (within one instance, reads come before writes). With
    no read access at all, that is every element written."""
    if writes is None:
        return None
    if reads is None:
        return writes.range()
    stamps_reverse = time_map.reverse()
    written_at = stamps_reverse.apply_range(writes).reverse()  # X -> T
    read_at = stamps_reverse.apply_range(reads).reverse()
    first = simplify(written_at.union(read_at).lexmin())
    return first.intersect(written_at).domain().subtract(first.intersect(read_at).domain())


@dataclass(frozen=True)
class TensorAccess:
    """One tensor's accesses (S -> X), the same at every level, and the elements whose first
    access is a write (`write_first_elements`), found once for all levels."""

    name: str
    reads: isl.UnionMap | None
    writes: isl.UnionMap | None
    first_written: isl.UnionSet | None

    @property
    def accesses(self) -> isl.UnionMap:
        return _union(self.reads, self.writes)

    @functools.cached_property
    def elements(self) -> int:
        """How many elements the workload accesses."""
        return count(self.accesses.range())

    @functools.cached_property
    def written_count(self) -> int:
        """How many elements the workload writes."""
        return 0 if self.writes is None else count(self.writes.range())

    @functools.cached_property
    def first_written_count(self) -> int:
        """How many elements are written first."""
        return 0 if self.first_written is None else count(self.first_written)


def tensor_accesses(workload: Workload, time_map: isl.UnionMap) -> list[TensorAccess]:
    """Every tensor's `TensorAccess`, in the workload's order."""
    out = []
    for tensor in workload.tensors:
        reads, writes = workload.access(tensor, "read"), workload.access(tensor, "write")
        out.append(
            TensorAccess(tensor, reads, writes, write_first_elements(time_map, reads, writes))
        )
    return out


@dataclass(frozen=True)
class TensorMaps:
    """One tensor at one level, as relations Tile -> X: its footprint F_X, the words that
    fill a tile from the level above (its entries that are reads; None: none) and the words
    written back at the exits after a tile; `first_tile` (X -> Tile) is the first tile of
    each write-first element; `one_stay`: every element enters once; `counts`: (|fills|,
    |drains|) when known without counting them."""

    footprint: isl.UnionMap
    fills: isl.UnionMap | None
    drains: isl.UnionMap | None
    first_tile: isl.UnionMap | None = None
    one_stay: bool = False
    counts: tuple[int, int] | None = None

    def traffic(self) -> tuple[int, int]:
        """(reads, writes) = (|fills|, |drains|)."""
        if self.counts is not None:
            return self.counts
        return (
            0 if self.fills is None else count(self.fills),
            0 if self.drains is None else count(self.drains),
        )


def tensor_maps(
    instance_tile: isl.UnionMap | Callable[[], isl.UnionMap],
    prev: isl.UnionMap,
    tiles_le: isl.UnionMap | Callable[[], isl.UnionMap],
    access: TensorAccess,
    inner_first_tile: tuple[isl.UnionMap, isl.UnionMap] | None = None,
    footprint: isl.UnionMap | None = None,
    one_stay: bool | None = None,
) -> TensorMaps:
    """The relations of one tensor at one level: fills = the entries F_X \\ (prev ; F_X) less
    each write-first element's first entry; drains = { exits (u, e) : e written in some
    tile w, s(u,e) <= w <= u }, s(u, e) the stay's entry. `tiles_le` = { u -> v : v <= u }
    over the used tiles.

    When there are as many entries as elements, each element enters once: its one entry is
    its first, and its one stay holds every tile that touches it, so an exit writes back
    exactly when the element is written at all; then |fills| = |elements| − |write-first
    elements| and |drains| = |written elements|. `one_stay` says so when it is known (an
    element that enters once at a level enters once at every level outside it: the tiles
    outside are unions of consecutive tiles inside). Otherwise a write-first element's first
    tile is the lexmin of F_X⁻¹, or, given `inner_first_tile` = (its first tile at a level
    inside, the map from that level's tiles to their prefix here), the prefix of the inner
    one (the prefix of a lexmin is the lexmin of the prefixes). A tensor that is never read
    is written in every tile that touches it, so each of its exits writes back.
    `instance_tile` (S -> Tile) and `tiles_le` may be given as functions that build them,
    and `footprint` when it is known already (from a level inside)."""

    def to_tile() -> isl.UnionMap:
        return (instance_tile() if callable(instance_tile) else instance_tile).reverse()

    if footprint is None:
        footprint = simplify(to_tile().apply_range(access.accesses))  # Tile -> X
    entries = simplify(footprint.subtract(prev.apply_range(footprint)))
    if access.writes is None:
        return TensorMaps(footprint, entries, None)
    exits = simplify(footprint.subtract(prev.reverse().apply_range(footprint)))
    if one_stay is None:
        one_stay = count(entries) == access.elements
    if one_stay:
        if access.reads is None:  # every element is written first, in every stay
            counts = (0, access.elements)
            return TensorMaps(footprint, None, exits, entries.reverse(), True, counts)
        first_entries = entries.intersect_range(access.first_written)
        fills = entries.subtract(first_entries)
        counts = (access.elements - access.first_written_count, access.written_count)
        drains = exits.intersect_range(access.writes.range())
        return TensorMaps(footprint, fills, drains, first_entries.reverse(), True, counts)
    # a write-first element's first entry is at its first tile: no read there
    if inner_first_tile is not None:
        first_tile = inner_first_tile[0].apply_range(inner_first_tile[1])
    elif access.reads is None:
        first_tile = footprint.reverse().lexmin()
    else:
        first_tile = footprint.reverse().intersect_domain(access.first_written).lexmin()
    fills = simplify(entries.subtract(first_tile.reverse()))
    if access.reads is None:
        return TensorMaps(footprint, fills, exits, first_tile)
    written = simplify(to_tile().apply_range(access.writes))  # Tile -> X, tiles that write it
    order = tiles_le() if callable(tiles_le) else tiles_le
    return TensorMaps(footprint, fills, written_stays(exits, entries, written, order), first_tile)


def written_stays(
    exits: isl.UnionMap, entries: isl.UnionMap, written: isl.UnionMap, tiles_le: isl.UnionMap
) -> isl.UnionMap:
    """The exits (u, e) after which e is written back: e written in some tile w with
    s(u, e) <= w <= u, s(u, e) the stay's entry (the lexmax of the entries of e at or before
    u). An exit whose own tile writes e (w = u) needs no search; only the others look for
    the stay's entry and a write inside it."""
    direct = exits.intersect(written)
    rest = exits.subtract(written)
    if rest.is_empty():
        return simplify(direct)
    same_element = rest.range_map()  # [u -> e] -> e
    at_or_before = rest.domain_map().apply_range(tiles_le)  # [u -> e] -> v, v <= u
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
    return simplify(direct.union(dirty.unwrap()))


def tensor_traffic(
    instance_tile: isl.UnionMap,
    prev: isl.UnionMap,
    tiles_le: isl.UnionMap,
    time_map: isl.UnionMap,
    reads: isl.UnionMap | None,
    writes: isl.UnionMap | None,
) -> tuple[int, int, TensorMaps]:
    """(reads, writes, maps) of one tensor at one level: reads = |fills|, writes = |drains|
    (`tensor_maps`)."""
    access = TensorAccess("", reads, writes, write_first_elements(time_map, reads, writes))
    maps = tensor_maps(instance_tile, prev, tiles_le, access)
    return (*maps.traffic(), maps)


def max_of_counts(pieces: list[isl.PwQPolynomial]) -> tuple[int, bool]:
    """(max_u of a per-tile count, exact): each quasi-affine piece is maximised by isl
    (exact); a piece of higher degree is sliced into one constant per value of the tile
    coordinates it involves, or, when that is more than MAX_SLICED_TILES values, bounded by
    isl's bound, exact only when isl reports the bound tight (attained by some tile)."""
    best, exact = 0, True
    for pw in pieces:
        for domain, qp in pw.get_pieces():
            if qp.isa_aff():
                best = max(best, peak([(domain, qp.as_aff())]))
                continue
            single = isl.PwQPolynomial.alloc(domain, qp)
            if _slice_points(domain, qp) > MAX_SLICED_TILES:
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
    return _merged(out)


def _merged(pw: isl.PwQPolynomial | None) -> isl.PwQPolynomial | None:
    """`pw` with its pieces merged (isl's coalesce) when every piece is quasi-affine (the
    pieces of higher degree are left as they are: they are sliced one by one)."""
    if pw is None or not all(qp.isa_aff() for _, qp in pw.get_pieces()):
        return pw
    return pw.coalesce()


def shifted_words(
    words: isl.PwQPolynomial | None,
    umap: isl.UnionMap | None,
    step: isl.UnionMap,
    step_function: isl.PwMultiAff | None = None,
) -> isl.PwQPolynomial | None:
    """u -> words(step(u)) = |umap(step(u))| for a function `step` between used tiles (next
    or prev; `step_function` is the same as a PwMultiAff, when known) and `words` =
    `per_tile_words(umap)`: when every piece of `words` is quasi-affine, `words` pulled
    back through `step` (isl); otherwise barvinok's card() of step ; umap. None when there
    are no such words."""
    if words is None or umap is None or step.is_empty():
        return None
    pieces = words.get_pieces()
    if all(qp.isa_aff() for _, qp in pieces):
        function = combine_pw_affs(
            [isl.PwAff.alloc(domain, qp.as_aff()) for domain, qp in pieces], "union_add"
        )
        if step_function is None:
            step_function = isl.PwMultiAff.from_map(isl.Map.from_union_map(step))
        return isl.PwQPolynomial.from_pw_aff(function.pullback_pw_multi_aff(step_function))
    return per_tile_words(step.apply_range(umap))


def affine_function(words: isl.PwQPolynomial | None) -> isl.PwAff | None:
    """A per-tile count as a PwAff when every piece is quasi-affine (the pieces are
    disjoint); None when there is none or a piece is of higher degree."""
    if words is None:
        return None
    pieces = words.get_pieces()
    if not all(qp.isa_aff() for _, qp in pieces):
        return None
    return combine_pw_affs([isl.PwAff.alloc(d, qp.as_aff()) for d, qp in pieces], "union_add")


def constant_pieces(words: isl.PwQPolynomial | None) -> list[tuple[isl.Set, int]] | None:
    """The pieces (domain, value) of a per-tile count that is a constant on each piece ([]
    for no words); None when some piece is not a constant."""
    if words is None:
        return []
    out = []
    for domain, qp in words.get_pieces():
        if not qp.isa_aff():
            return None
        aff = qp.as_aff()
        if not aff.is_cst():
            return None
        out.append((domain, int(aff.get_constant_val().floor().to_python())))
    return out


def _moved_pieces(
    pieces: list[tuple[isl.Set, int]] | None, prev: isl.UnionMap, forward: bool
) -> list[tuple[isl.Set, int]] | None:
    """The pieces of u -> words(next u) (`forward`: each domain D becomes prev(D)) or
    u -> words(prev u) (D becomes next(D) = prev⁻¹(D)); prev is injective, so the pieces
    stay disjoint."""
    if pieces is None:
        return None
    if not pieces or prev.is_empty():
        return []
    step = isl.Map.from_union_map(prev if forward else prev.reverse())
    moved = [(domain.apply(step), value) for domain, value in pieces]
    return [(domain, value) for domain, value in moved if not domain.is_empty()]


#: At most this many combinations of pieces are tried by `max_of_sums`.
MAX_CELLS = 64


def max_of_sums(parts: list[list[tuple[isl.Set, int]]], tiles: isl.Set) -> int | None:
    """max_u Σ_k f_k(u) over the tiles for functions f_k >= 0 given as disjoint constant
    pieces (absent = 0): the combinations of one piece per function (or "outside all of
    its pieces") in decreasing order of their sum, the first whose tiles are not empty
    (isl). None when there are more than MAX_CELLS combinations."""
    options = [[*part, (None, 0)] for part in parts]
    if math.prod(len(o) for o in options) > MAX_CELLS:
        return None
    outside: dict[int, isl.Set] = {}
    for combo in sorted(itertools.product(*options), key=lambda c: -sum(v for _, v in c)):
        cell = tiles
        for k, (domain, _) in enumerate(combo):
            if domain is None:
                if k not in outside:
                    outside[k] = tiles
                    for piece, _ in parts[k]:
                        outside[k] = outside[k].subtract(piece)
                domain = outside[k]
            cell = cell.intersect(domain)
            if cell.is_empty():
                break
        else:
            return sum(v for _, v in combo)
    return 0


def tile_predecessor(used_tiles: isl.UnionSet) -> tuple[isl.UnionMap, isl.PwMultiAff | None]:
    """prev = { u -> u' : u' the lexicographically largest used tile below u } as a
    relation and as a PwMultiAff (isl's lexmax; None when there is one tile)."""
    below = used_tiles.lex_gt_union_set(used_tiles)
    if below.is_empty():
        return below, None
    function = isl.Map.from_union_map(below).lexmax_pw_multi_aff()
    return isl.UnionMap.from_map(isl.Map.from_pw_multi_aff(function)), function


def _add(
    total: isl.PwQPolynomial | None, more: isl.PwQPolynomial | None
) -> isl.PwQPolynomial | None:
    """total + more, None standing for no words."""
    if more is None:
        return total
    return more if total is None else total.add(more)


def tensor_words(
    maps: TensorMaps,
) -> tuple[isl.PwQPolynomial | None, isl.PwQPolynomial | None, isl.PwQPolynomial | None]:
    """u -> |F_X(u)|, |fills(u)| and |drains(u)| of one tensor at one level (barvinok's
    card(); the fill and drain words taken from the footprint's when they can be,
    `_same_words`)."""
    held = per_tile_words(maps.footprint)
    return (
        held,
        _same_words(maps.fills, maps.footprint, held),
        _same_words(maps.drains, maps.footprint, held),
    )


def words_total(words: isl.PwQPolynomial | None, umap: isl.UnionMap | None) -> int:
    """|umap| = Σ_u words(u) for words = `per_tile_words(umap)`: Σ over the pieces of
    value · |tiles of the piece| when every piece is a constant (the tiles are fewer
    coordinates to count than the relation), else barvinok's count of umap."""
    if words is None or umap is None:
        return 0
    pieces = words.get_pieces()
    if not all(qp.isa_aff() and qp.as_aff().is_cst() for _, qp in pieces):
        return count(umap)
    return sum(int(qp.as_aff().get_constant_val().to_python()) * count(d) for d, qp in pieces)


def _same_words(
    umap: isl.UnionMap | None, footprint: isl.UnionMap, held: isl.PwQPolynomial | None
) -> isl.PwQPolynomial | None:
    """`per_tile_words(umap)`, taken from the footprint's (`held`) when umap is the whole
    footprint (a tensor that fills or drains all it holds, every tile), or the whole
    footprint of the tiles it touches (then `held` on those tiles)."""
    if umap is None or umap.is_empty():
        return None
    if umap is footprint or umap.is_equal(footprint):
        return held
    if held is not None:
        touched = umap.domain()
        if touched.n_set() == 1 and umap.is_equal(footprint.intersect_domain(touched)):
            return _merged(held.intersect_domain(isl.Set.from_union_set(touched)))
    return per_tile_words(umap)


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
    counted once, when first asked for, and shared by the double-buffered capacity and
    the time through the hierarchy."""

    depth: int
    tau: isl.UnionMap
    used_tiles: isl.UnionSet
    prev: isl.UnionMap
    fills: isl.UnionMap | None
    drains: isl.UnionMap | None
    # per-tile words counted already ("fill", "drain"), and prev as a PwMultiAff ("prev")
    known: dict[str, Any] = field(default_factory=dict, compare=False)

    @functools.cached_property
    def fill_words(self) -> isl.PwQPolynomial | None:
        """u -> |fills(u)|."""
        return self.known["fill"] if "fill" in self.known else per_tile_words(self.fills)

    @functools.cached_property
    def drain_words(self) -> isl.PwQPolynomial | None:
        """u -> |drains(u)|."""
        return self.known["drain"] if "drain" in self.known else per_tile_words(self.drains)

    @functools.cached_property
    def fill_function(self) -> isl.PwAff | None:
        """`fill_words` as a quasi-affine PwAff; None when there are no fill words or a
        piece is not quasi-affine."""
        return affine_function(self.fill_words)

    @functools.cached_property
    def drain_function(self) -> isl.PwAff | None:
        """`drain_words` as a quasi-affine PwAff (None as for `fill_function`)."""
        return affine_function(self.drain_words)

    @functools.cached_property
    def next_step(self) -> isl.PwMultiAff | None:
        """next = prev⁻¹ as a PwMultiAff (None when there is one tile)."""
        if self.prev.is_empty():
            return None
        return isl.PwMultiAff.from_map(isl.Map.from_union_map(self.prev.reverse()))

    @functools.cached_property
    def prev_step(self) -> isl.PwMultiAff | None:
        """prev as a PwMultiAff (None when there is one tile)."""
        if self.prev.is_empty():
            return None
        if self.known.get("prev") is not None:
            return self.known["prev"]
        return isl.PwMultiAff.from_map(isl.Map.from_union_map(self.prev))

    @functools.cached_property
    def next_fill_function(self) -> isl.PwAff | None:
        """u -> |fills(next u)|, `fill_function` pulled back through next (None when
        `fill_function` is, or there is one tile)."""
        if self.fill_function is None or self.next_step is None:
            return None
        return self.fill_function.pullback_pw_multi_aff(self.next_step).coalesce()

    @functools.cached_property
    def prev_drain_function(self) -> isl.PwAff | None:
        """u -> |drains(prev u)|, `drain_function` pulled back through prev."""
        if self.drain_function is None or self.prev_step is None:
            return None
        return self.drain_function.pullback_pw_multi_aff(self.prev_step).coalesce()

    @functools.cached_property
    def next_fill_words(self) -> isl.PwQPolynomial | None:
        """u -> |fills(next u)| (tiles with a next)."""
        if self.next_fill_function is not None:
            return isl.PwQPolynomial.from_pw_aff(self.next_fill_function)
        return shifted_words(self.fill_words, self.fills, self.prev.reverse())

    @functools.cached_property
    def prev_drain_words(self) -> isl.PwQPolynomial | None:
        """u -> |drains(prev u)| (tiles with a prev)."""
        if self.prev_drain_function is not None:
            return isl.PwQPolynomial.from_pw_aff(self.prev_drain_function)
        return shifted_words(self.drain_words, self.drains, self.prev, self.known.get("prev"))

    @functools.cached_property
    def next_fill_pieces(self) -> list[tuple[isl.Set, int]] | None:
        """u -> |fills(next u)| as disjoint constant pieces: a piece (D, v) of the fill
        words gives (prev(D), v), the tiles whose next is in D. None when some piece of the
        fill words is not a constant."""
        return _moved_pieces(constant_pieces(self.fill_words), self.prev, forward=True)

    @functools.cached_property
    def prev_drain_pieces(self) -> list[tuple[isl.Set, int]] | None:
        """u -> |drains(prev u)| as disjoint constant pieces: (next(E), w) for each piece
        (E, w) of the drain words. None when some piece is not a constant."""
        return _moved_pieces(constant_pieces(self.drain_words), self.prev, forward=False)

    def words_at(self, words: isl.PwQPolynomial | None, tile: isl.UnionSet) -> int:
        """words(u) at the one tile `tile` (0 where `words` is not defined)."""
        if words is None or tile.is_empty():
            return 0
        point = isl.Set.from_union_set(tile).sample_point()
        return int(words.eval(point).to_python())


def level_traffic(
    workload: Workload,
    arch: Arch,
    bound: BoundDataflow,
    source: str | None = None,
) -> list[LevelTraffic]:
    """The traffic of every level of `arch.levels` given a tile depth in the dataflow's
    `tiles`, innermost first (empty when it gives none)."""
    return [traffic for traffic, _ in level_traffic_maps(workload, arch, bound, source)]


@functools.lru_cache(maxsize=64)
def prefix_map(depth: int, outer: int) -> isl.UnionMap:
    """{ Tile[u_0, ..., u_{depth-1}] -> Tile[u_0, ..., u_{outer-1}] }: a tile of depth
    `depth` to the tile of depth `outer` <= depth that holds it."""
    dims = [f"u{k}" for k in range(depth)]
    return isl.UnionMap(f"{{ Tile[{', '.join(dims)}] -> Tile[{', '.join(dims[:outer])}] }}")


def level_traffic_maps(
    workload: Workload,
    arch: Arch,
    bound: BoundDataflow,
    source: str | None = None,
) -> list[tuple[LevelTraffic, LevelMaps]]:
    """`level_traffic`, each level with its relations (`LevelMaps`). What does not depend
    on the level (the accesses, the write-first elements) is found once; a write-first
    element's first tile at an outer level is the prefix of its first tile inside."""
    tiles = bound.tiles
    if not tiles:
        return []
    chosen = check_tile_depths(tiles, arch.levels, bound.time_tuple[1], source)
    accesses = tensor_accesses(workload, bound.time_map)
    first_tiles: dict[str, isl.UnionMap] = {}  # of the level inside, by tensor
    inner_footprints: dict[str, isl.UnionMap] = {}
    one_stay: set[str] = set()  # tensors whose elements enter once at a level inside
    inner_depth = inner_used = None
    out = []
    for index, depth in chosen:
        level, above = arch.levels[index], arch.levels[index + 1]
        tau = tile_map(bound.time_tuple, depth)
        instance_tile = functools.cache(lambda tau=tau: simplify(bound.time_map.apply_range(tau)))
        outward = None if inner_depth is None else prefix_map(inner_depth, depth)
        if outward is None:
            used_tiles = simplify(instance_tile().range())
        else:  # the prefixes of the tiles inside
            used_tiles = simplify(inner_used.apply(outward))
        prev, prev_function = tile_predecessor(used_tiles)
        # u -> v with v <= u, built when a stay's entry is searched for
        tiles_le = functools.cache(lambda used=used_tiles: used.lex_ge_union_set(used))
        per_tensor: dict[str, tuple[int, int]] = {}
        footprints = fills = drains = words = fill_words = drain_words = None
        for access in accesses:
            inner = first_tiles.get(access.name)
            maps = tensor_maps(
                instance_tile,
                prev,
                tiles_le,
                access,
                None if inner is None or outward is None else (inner, outward),
                None
                if outward is None
                else simplify(inner_footprints[access.name].apply_domain(outward)),
                True if access.name in one_stay else None,
            )
            if maps.first_tile is not None:
                first_tiles[access.name] = maps.first_tile
            if maps.one_stay:
                one_stay.add(access.name)
            inner_footprints[access.name] = maps.footprint
            footprints = _union(footprints, maps.footprint)
            fills = _union(fills, maps.fills)
            drains = _union(drains, maps.drains)
            held, filled, drained = tensor_words(maps)
            per_tensor[access.name] = maps.counts or (
                words_total(filled, maps.fills),
                words_total(drained, maps.drains),
            )
            words = _add(words, held)
            fill_words = _add(fill_words, filled)
            drain_words = _add(drain_words, drained)
        inner_used = used_tiles
        inner_depth = depth
        words, fill_words, drain_words = _merged(words), _merged(fill_words), _merged(drain_words)
        known = {"fill": fill_words, "drain": drain_words, "prev": prev_function}
        maps = LevelMaps(depth, tau, used_tiles, prev, fills, drains, known)
        single, exact_single = max_of_counts([] if words is None else [words])
        needed, exact = single, exact_single
        if level.double_buffered:
            needed, exact = double_buffered_capacity(footprints, maps, words)
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


def double_buffered_capacity(
    footprints: isl.UnionMap, maps: LevelMaps, words: isl.PwQPolynomial | None = None
) -> tuple[int, bool]:
    """(max_u [Σ_X |F_X(u)| + fill words of next(u) + drain words of prev(u)], exact): a
    double-buffered level holds tile u while next(u) arrives and prev(u) still leaves.
    `words`, when given, is Σ_X |F_X(u)| (`per_tile_words(footprints)`) counted already.
    When the three are quasi-affine on every piece, their sum is one (isl's union_add of
    quasi-affine functions) and its maximum isl's, piece by piece."""
    total = per_tile_words(footprints) if words is None else words
    held_pieces = constant_pieces(total)
    coming_pieces, leaving_pieces = maps.next_fill_pieces, maps.prev_drain_pieces
    if None not in (held_pieces, coming_pieces, leaving_pieces):
        best = max_of_sums(
            [held_pieces, coming_pieces, leaving_pieces], isl.Set.from_union_set(maps.used_tiles)
        )
        if best is not None:
            return best, True
    held = affine_function(total)
    coming = maps.next_fill_function if maps.fill_words is not None else None
    leaving = maps.prev_drain_function if maps.drain_words is not None else None
    affine = (
        (total is None or held is not None)
        and (maps.fill_words is None or maps.fill_function is not None)
        and (maps.drain_words is None or maps.drain_function is not None)
    )
    if affine:
        summed = combine_pw_affs([held, coming, leaving], "union_add", tidy=False)
        return (0 if summed is None else peak(summed.get_pieces())), True
    for extra in (maps.next_fill_words, maps.prev_drain_words):
        if extra is not None:
            total = extra if total is None else total.add(extra)
    return max_of_counts([] if total is None else [total])


def levels_dram_words(levels: list[LevelTraffic]) -> int | None:
    """Words crossing into the outermost memory level: reads + writes of the level just
    inside it; None when that level has no tile depth."""
    for level in levels:
        if level.outermost_above:
            return level.words
    return None
