"""The candidate space of `dse`: the loops of a one-statement workload, the axes of a box
PE array, every candidate dataflow (a loop per PE axis, an order of the time dimensions, a
skew), the distinct ones among them (equal relations dropped), sampled to a limit, and, when
the arch has memory levels, each with every tile depth of the level just inside the outermost.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

import islpy as isl

from tenet.errors import InputError
from tenet.explore.tiling import tile_depths, tiled_level
from tenet.model.arch import Arch
from tenet.model.dataflow import Dataflow
from tenet.model.workload import Workload
from tenet.util.isl_util import parse_union_map, sets_of

# --- the design space --------------------------------------------------------------------------

_ISL_WORDS = {"and", "or", "not", "mod", "floor", "ceil", "min", "max", "exists", "true", "false"}


@dataclass(frozen=True)
class Loop:
    """A loop of the statement: `low <= name < low + extent` (its box hull)."""

    name: str
    low: int
    extent: int

    def offset(self) -> str:
        """`x - low` as isl text."""
        return self.name if self.low == 0 else f"({self.name} - {self.low})"


@dataclass(frozen=True)
class Axis:
    """A PE axis: coordinates `low <= p < low + size`."""

    low: int
    size: int


@dataclass(frozen=True)
class Candidate:
    """One dataflow of the space.

    `spatial[a]` is the loop on PE axis a (None: the axis stays at its first PE); `order`
    lists the time dimensions outermost first, ("tile", x) for floor(x/size) of a spatial
    loop and ("loop", x) for a temporal loop; `skew[a]` multiplies the PE coordinate of axis
    a added to the innermost time dimension.
    """

    spatial: tuple[str | None, ...]
    order: tuple[tuple[str, str], ...]
    skew: tuple[int, ...]


@dataclass(frozen=True)
class DesignSpace:
    """The loops of a one-statement workload and the axes of a box-shaped PE array."""

    statement: str
    loops: tuple[Loop, ...]
    pe_tuple: str
    axes: tuple[Axis, ...]
    skew_options: tuple[tuple[int, ...], ...]  # per axis: the skew coefficients to try

    def loop(self, name: str) -> Loop:
        return self._loops_by_name[name]

    @functools.cached_property
    def _loops_by_name(self) -> dict[str, Loop]:
        return {loop.name: loop for loop in self.loops}

    def axis_of(self, candidate: Candidate, name: str) -> Axis:
        return self.axes[candidate.spatial.index(name)]

    def coordinate_text(self, candidate: Candidate, axis: int) -> str:
        """PE coordinate of axis a relative to its first PE: `(x - low) % size`, or `x - low`."""
        name = candidate.spatial[axis]
        if name is None:
            return "0"
        loop, size = self.loop(name), self.axes[axis].size
        return loop.offset() if loop.extent <= size else f"{loop.offset()} % {size}"

    def space_text(self, candidate: Candidate) -> str:
        """`{ S[n] -> PE[low_a + coordinate_a, ...] }`"""
        coords = []
        for a, axis in enumerate(self.axes):
            text = self.coordinate_text(candidate, a)
            coords.append(text if axis.low == 0 else f"{axis.low} + {text}")
        return f"{{ {self._instance()} -> {self.pe_tuple}[{', '.join(coords)}] }}"

    def time_text(self, candidate: Candidate) -> str:
        """`{ S[n] -> T[dims] }`, the innermost dimension plus the skewed PE coordinates."""
        dims = []
        for kind, name in candidate.order:
            if kind == "tile":
                size = self.axis_of(candidate, name).size
                dims.append(f"floor({self.loop(name).offset()}/{size})")
            else:
                dims.append(self.loop(name).offset())
        inner = dims.pop() if dims else "0"
        for a, coefficient in enumerate(candidate.skew):  # coefficients are -1, 0 or 1
            if coefficient:
                sign = "+" if coefficient > 0 else "-"
                inner += f" {sign} {self.coordinate_text(candidate, a)}"
        dims.append(inner)
        return f"{{ {self._instance()} -> T[{', '.join(dims)}] }}"

    def stamps(self, candidate: Candidate, point: dict[str, int]) -> tuple[tuple[int, ...], ...]:
        """(PE coordinates, time stamp) of one instance, evaluated in Python."""
        loops = self._loops_by_name
        coords = []
        sizes = {}
        for name, axis in zip(candidate.spatial, self.axes):
            if name is None:
                coords.append(0)
                continue
            sizes[name] = axis.size
            coords.append((point[name] - loops[name].low) % axis.size)
        time = []
        for kind, name in candidate.order:
            offset = point[name] - loops[name].low
            time.append(offset // sizes[name] if kind == "tile" else offset)
        if not time:
            time.append(0)
        time[-1] += sum(c * x for c, x in zip(candidate.skew, coords))
        return tuple(coords), tuple(time)

    def _instance(self) -> str:
        return f"{self.statement}[{', '.join(loop.name for loop in self.loops)}]"


def statement_loops(workload: Workload) -> tuple[str, tuple[Loop, ...]]:
    """The statement name and its loops (box hull of the domain); one statement only."""
    if len(workload.statements) != 1:
        raise InputError(
            f"dse explores one-statement workloads; {workload.name!r} has "
            f"{len(workload.statements)} statements",
            workload.source,
            "statements",
        )
    name, arity = workload.statements[0]
    domain = sets_of(workload.statement_domains[name])[0]
    names = [domain.get_dim_name(isl.dim_type.set, k) for k in range(arity)]
    usable = all(n and n.isidentifier() and n not in _ISL_WORDS for n in names)
    if not usable or len(set(names)) != arity:
        names = [f"i{k}" for k in range(arity)]  # map texts name their own variables
    loops = []
    for k, loop_name in enumerate(names):
        low = int(domain.dim_min_val(k).to_python())
        high = int(domain.dim_max_val(k).to_python())
        loops.append(Loop(loop_name, low, high - low + 1))
    return name, tuple(loops)


def array_axes(arch: Arch) -> tuple[Axis, ...]:
    """The axes of the PE array's box hull."""
    pe_set = sets_of(arch.pe_domain)[0]
    axes = []
    for k in range(arch.pe_arity):
        low = int(pe_set.dim_min_val(k).to_python())
        high = int(pe_set.dim_max_val(k).to_python())
        axes.append(Axis(low, high - low + 1))
    return tuple(axes)


def skew_options(arch: Arch, axes: Sequence[Axis]) -> tuple[tuple[int, ...], ...]:
    """Per axis, 0 and each sign c such that a forward link moves a value one PE along +c per
    step: the link's delta (sender - receiver) is -c on that axis and 0 elsewhere."""
    options: list[set[int]] = [{0} for _ in axes]
    for link in arch.links:
        if link.kind != "forward" or 1 not in link.window:
            continue
        deltas = link.relation.deltas()
        for a in range(len(axes)):
            for c in (1, -1):
                unit = [0] * len(axes)
                unit[a] = -c
                point = isl.UnionSet(f"{{ {arch.pe_tuple}[{', '.join(map(str, unit))}] }}")
                if not point.intersect(deltas).is_empty():
                    options[a].add(c)
    return tuple(tuple(sorted(o, key=lambda c: (abs(c), -c))) for o in options)


def design_space(workload: Workload, arch: Arch) -> DesignSpace:
    """The loops, PE axes and link-matched skew signs of a workload on an array."""
    statement, loops = statement_loops(workload)
    axes = array_axes(arch)
    return DesignSpace(statement, loops, arch.pe_tuple, axes, skew_options(arch, axes))


def _assignments(space: DesignSpace) -> Iterator[tuple[str | None, ...]]:
    """Distinct loops (extent > 1) on the axes (size > 1); fewer loops than axes only when the
    statement has fewer such loops than the array has such axes."""
    loops = [loop.name for loop in space.loops if loop.extent > 1]
    usable = [a for a, axis in enumerate(space.axes) if axis.size > 1]
    n = min(len(loops), len(usable))
    for chosen_axes in itertools.combinations(usable, n):
        for chosen_loops in itertools.permutations(loops, n):
            spatial: list[str | None] = [None] * len(space.axes)
            for a, name in zip(chosen_axes, chosen_loops):
                spatial[a] = name
            yield tuple(spatial)


def candidates(
    space: DesignSpace, skew: bool = True, interleave: bool = False
) -> Iterator[Candidate]:
    """Every candidate: assignments × time orders × skews.

    Time orders: the tile dimensions (spatial loops longer than their axis) in every order,
    then the temporal loops (extent > 1) in every order; with `interleave`, every order of
    both together.
    """
    for spatial in _assignments(space):
        tiles = [
            ("tile", name)
            for a, name in enumerate(spatial)
            if name is not None and space.loop(name).extent > space.axes[a].size
        ]
        temporal = [
            ("loop", loop.name)
            for loop in space.loops
            if loop.extent > 1 and loop.name not in spatial
        ]
        if interleave:
            orders = itertools.permutations(tiles + temporal)
        else:
            orders = (
                t + r
                for t in itertools.permutations(tiles)
                for r in itertools.permutations(temporal)
            )
        options = [
            space.skew_options[a] if skew and name is not None else (0,)
            for a, name in enumerate(spatial)
        ]
        for order in orders:
            for skews in itertools.product(*options):
                yield Candidate(spatial, tuple(order), tuple(skews))


# --- dedupe and sampling -----------------------------------------------------------------------


def probe_points(workload: Workload, space: DesignSpace, count: int = 12) -> list[dict[str, int]]:
    """A few fixed instances of the domain (corners, then pseudo-random points of its box)."""
    rng = random.Random(0)
    lows = [loop.low for loop in space.loops]
    highs = [loop.low + loop.extent - 1 for loop in space.loops]
    guesses = [lows, highs] + [
        [rng.randint(lo, hi) for lo, hi in zip(lows, highs)] for _ in range(4 * count)
    ]
    points = []
    for guess in guesses:
        text = f"{{ {space.statement}[{', '.join(map(str, guess))}] }}"
        if isl.UnionSet(text).is_subset(workload.domain):
            points.append({loop.name: v for loop, v in zip(space.loops, guess)})
        if len(points) == count:
            break
    return points


def check_limit(limit: int | None) -> None:
    """A sample size is positive (or None: no sampling)."""
    if limit is not None and limit < 1:
        raise InputError(f"must be positive, got {limit}", "limit")


@dataclass(frozen=True)
class Enumerated:
    """A distinct candidate as isl text: its name, space map and time map, and the tile
    depths of its memory levels ((level, depth) pairs; empty when the arch has no levels)."""

    name: str
    space: str
    time: str
    candidate: Candidate | None = None
    tiles: tuple[tuple[str, int], ...] = ()


def distinct_candidates(
    workload: Workload,
    space: DesignSpace,
    all_candidates: Sequence[Candidate],
    limit: int | None = None,
    seed: int | None = None,
) -> list[Enumerated]:
    """Candidates whose (space, time) relations on the domain differ from every earlier one.

    Without `limit`, all of them in enumeration order; with it, the first `limit` distinct
    ones of a shuffle seeded by `seed` (default 0), returned in enumeration order. Equal
    relations are found with isl's `is_equal`, compared only when Python stamps of a few
    probe instances coincide (equal relations always give equal stamps).
    """
    check_limit(limit)
    order = list(range(len(all_candidates)))
    if limit is not None and limit < len(order):
        random.Random(0 if seed is None else seed).shuffle(order)
    probes = probe_points(workload, space)
    buckets: dict[tuple, list[int]] = {}
    maps: dict[int, tuple[isl.UnionMap, isl.UnionMap]] = {}

    def relations(index: int) -> tuple[isl.UnionMap, isl.UnionMap]:
        if index not in maps:
            c = all_candidates[index]
            maps[index] = tuple(
                parse_union_map(text).intersect_domain(workload.domain)
                for text in (space.space_text(c), space.time_text(c))
            )
        return maps[index]

    chosen: list[int] = []
    for index in order:
        c = all_candidates[index]
        key = tuple(space.stamps(c, p) for p in probes)
        bucket = buckets.setdefault(key, [])
        mine = None
        duplicate = False
        for other in bucket:
            mine = mine or relations(index)
            theirs = relations(other)
            if mine[0].is_equal(theirs[0]) and mine[1].is_equal(theirs[1]):
                duplicate = True
                break
        if duplicate:
            continue
        bucket.append(index)
        chosen.append(index)
        if limit is not None and len(chosen) == limit:
            break
    width = len(str(len(all_candidates)))
    return [
        Enumerated(
            f"c{index + 1:0{width}d}",
            space.space_text(all_candidates[index]),
            space.time_text(all_candidates[index]),
            all_candidates[index],
        )
        for index in sorted(chosen)
    ]


def enumerate_candidates(
    workload: Workload,
    arch: Arch,
    skew: bool = True,
    limit: int | None = None,
    seed: int | None = None,
    interleave: bool = False,
) -> tuple[int, list[Enumerated]]:
    """(size of the raw space, its distinct candidates as isl text, sampled to `limit`).

    When the arch has memory levels, each candidate is tried with every tile depth of the
    level just inside the outermost (`with_tile_depths`); the raw size counts those too."""
    space = design_space(workload, arch)
    raw = list(candidates(space, skew, interleave))
    found = distinct_candidates(workload, space, raw, limit, seed)
    level = tiled_level(arch)
    if level is None:
        return len(raw), found
    raw_size = sum(len(tile_depths(_time_arity(c))) for c in raw)
    return raw_size, with_tile_depths(found, level)


def _time_arity(candidate: Candidate) -> int:
    """The number of time coordinates of a candidate (`time_text` writes `T[0]` for none)."""
    return max(1, len(candidate.order))


def with_tile_depths(found: Sequence[Enumerated], level: str) -> list[Enumerated]:
    """Each candidate once per tile depth of `level` (`tile_depths`), named `<name>.t<d>`."""
    out = []
    for e in found:
        for depth in tile_depths(_time_arity(e.candidate)):
            out.append(replace(e, name=f"{e.name}.t{depth}", tiles=((level, depth),)))
    return out


def enumerate_dataflows(
    workload: Workload,
    arch: Arch,
    skew: bool = True,
    limit: int | None = None,
    seed: int | None = None,
    interleave: bool = False,
) -> list[Dataflow]:
    """The distinct candidate dataflows of a one-statement workload on a box-shaped array."""
    _, found = enumerate_candidates(workload, arch, skew, limit, seed, interleave)
    return [
        Dataflow(e.name, parse_union_map(e.space), parse_union_map(e.time), tiles=dict(e.tiles))
        for e in found
    ]
