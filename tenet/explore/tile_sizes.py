"""GLB tile sizes in the search (docs/dse.md, "Tile sizes: `explore_tile_sizes`").

`tenet dse` splits each loop once, by the array, so a GLB tile is a prefix of its time stamp
and its extents are fixed. Here every loop `x` of extent `N_x` is split three ways: an outer
coordinate `floor(x/T_x)` (when `Q_x = ceil(N_x/T_x) > 1`), a coordinate inside the GLB tile, and,
for the two spatial loops, the PE coordinate `x % P`. A design is

* the spatial loops `s0, s1` (on PE axes 0 and 1; `P | T_s`, or `T_s = N_s` when P does not
  divide N_s, whose last block of PEs is then narrower);
* the GLB tile extents `T_x` (divisors of `N_x`; with `imperfect`, any, the last tile
  shorter);
* the order of the outer coordinates (the loops with `Q_x > 1`, outermost first);
* the innermost loop `r` of the GLB tile (a temporal loop), skewed by both PE coordinates:
  the last time coordinate is `x_r % T_r + s0 % P_0 + s1 % P_1`.

The time stamp is `T[outer..., inner..., innermost]` and `tiles: {GLB: d}` with `d` the number
of outer coordinates, so `analyze` reads a design as it reads any dataflow.

Every count the search ranks by is a closed form in the tile sizes (exact Python ints, checked
against barvinok in tests/explore/test_tile_sizes.py): the array side follows from which of
`s0`, `s1`, `r` each tensor depends on (one *run* of the innermost loop is the same on every
value of the other coordinates but its length, and no reuse crosses runs), the GLB <-> DRAM
traffic from the rule of docs/levels.md applied to the box footprints of consecutive tiles. Every front member is
counted again by plain `analyze`.
"""

from __future__ import annotations

import functools
import itertools
import math
import multiprocessing
import time as clock
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import islpy as isl

from tenet.bounds.snowcat import divisors, problem_from_workload, snowcat_at
from tenet.errors import InputError
from tenet.explore.dram_bound import dram_against_snowcat
from tenet.explore.dse import TIME_LIMIT, DseResult, FrontEntry, pareto_indices
from tenet.explore.space import array_axes, skew_options
from tenet.model.arch import Arch
from tenet.model.cost import (
    BoundaryWords,
    TensorActions,
    area_counts,
    level_components_of,
    level_energy,
    priced_on,
    tensor_energy,
)
from tenet.model.dataflow import Dataflow
from tenet.model.metrics import Analysis, analyze
from tenet.model.workload import Workload
from tenet.util.isl_util import parse_union_map

#: The objectives a tile-size search ranks by closed forms (each re-checked by `analyze`).
TILE_SIZE_OBJECTIVES = ("energy_pj", "dram", "time_steps", "latency")

#: `stopped_by` of a search that `limit` stopped (`TIME_LIMIT`: `time_limit` did).
LIMIT = "limit"

#: The objectives the array side alone decides (not the GLB tile order).
ARRAY_OBJECTIVES = ("time_steps", "latency")


# --- the problem ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TensorShape:
    """A tensor: per index dimension, the loops whose sum it is (coefficients 1)."""

    name: str
    dims: tuple[tuple[str, ...], ...]
    output: bool

    def loops(self) -> frozenset[str]:
        return frozenset(x for dim in self.dims for x in dim)


@dataclass(frozen=True)
class TileProblem:
    """A one-statement einsum on a 2-D systolic array with a GLB under DRAM."""

    statement: str
    loops: tuple[str, ...]
    extents: dict[str, int]
    tensors: tuple[TensorShape, ...]
    rows: int  # P_0, PE axis 0
    cols: int  # P_1, PE axis 1
    level: str  # the GLB: levels[0], tiled
    above: str  # DRAM: levels[1]
    capacity: int
    double_buffered: bool
    sizes: dict[str, int]  # distinct elements each tensor touches
    word_bits: int = 16
    bandwidth_bits: int = 64
    avg_latency: int = 16

    @property
    def macs(self) -> int:
        return math.prod(self.extents.values())


def tile_problem(workload: Workload, arch: Arch) -> TileProblem:
    """The loops, tensors, array and GLB of a search; InputError when the tile-size search
    does not model them (one line naming the file and key)."""
    problem = problem_from_workload(workload)
    if len(arch.levels) != 2:
        raise InputError(
            "the tile-size search needs exactly two memory levels (a GLB under DRAM)",
            arch.source,
            "levels",
        )
    _check_systolic(arch)
    axes = array_axes(arch)
    tensors = []
    for tensor in problem.tensors:
        dims = []
        for coefficients in tensor.dims:
            if any(c not in (0, 1) for c in coefficients):
                raise InputError(
                    f"the tile-size search needs indices that are sums of loops; "
                    f"{tensor.name} has coefficients {coefficients}",
                    workload.source,
                    "einsum",
                )
            dims.append(tuple(r for r, c in zip(problem.ranks, coefficients) if c))
        used = [x for dim in dims for x in dim]
        if len(used) != len(set(used)):
            raise InputError(
                f"the tile-size search needs each loop in one index of {tensor.name}",
                workload.source,
                "einsum",
            )
        tensors.append(TensorShape(tensor.name, tuple(dims), tensor.output))
    output = next(t.name for t in tensors if t.output)
    if output in workload.accesses["read"]:
        raise InputError(
            f"the tile-size search needs an output that is not read ({output} is)",
            workload.source,
            "einsum",
        )
    glb = arch.levels[0]
    return TileProblem(
        statement=workload.statements[0][0],
        loops=tuple(problem.ranks),
        extents=dict(zip(problem.ranks, problem.sizes)),
        tensors=tuple(tensors),
        rows=axes[0].size,
        cols=axes[1].size,
        level=glb.name,
        above=arch.levels[1].name,
        capacity=glb.capacity_words,
        double_buffered=glb.double_buffered,
        sizes={t.name: problem.size(t) for t in problem.tensors},
        word_bits=arch.memory.word_bits,
        bandwidth_bits=arch.memory.bandwidth_bits,
        avg_latency=arch.memory.avg_latency,
    )


def _check_systolic(arch: Arch) -> None:
    """A 2-D box array whose links all move a value one PE along +axis 0 or +axis 1 per step
    (as `systolic-16x16`), with such a link on both axes."""
    axes = array_axes(arch)
    if len(axes) != 2 or any(a.size < 2 or a.low != 0 for a in axes):
        raise InputError("the tile-size search needs a 2-D PE array", arch.source, "pe")
    if arch.pe_count != axes[0].size * axes[1].size:
        raise InputError("the tile-size search needs a box PE array", arch.source, "pe")
    allowed = isl.UnionSet(f"{{ {arch.pe_tuple}[-1, 0]; {arch.pe_tuple}[0, -1] }}")
    for link in arch.links:
        if link.kind != "forward" or not set(link.window) <= {0, 1}:
            raise InputError(
                "the tile-size search models forward links of window 0 or 1 only",
                arch.source,
                "interconnect",
            )
        if not link.relation.deltas().is_subset(allowed):
            raise InputError(
                "the tile-size search models links one PE along +axis (systolic) only",
                arch.source,
                "interconnect",
            )
        if link.tensors is not None or link.access != "both":
            raise InputError(
                "the tile-size search models links that carry every tensor both ways",
                arch.source,
                "interconnect",
            )
    if any(1 not in options for options in skew_options(arch, axes)):
        raise InputError(
            "the tile-size search needs a link of window 1 along +axis 0 and +axis 1",
            arch.source,
            "interconnect",
        )


# --- a design ------------------------------------------------------------------------------


@dataclass(frozen=True)
class TiledDesign:
    """Spatial loops (axis 0, axis 1), GLB tile extents, outer order and innermost loop."""

    spatial: tuple[str, str]
    tile: tuple[tuple[str, int], ...]  # (loop, T_x) in the statement's loop order
    outer: tuple[str, ...]  # loops with Q_x > 1, outermost first
    innermost: str

    def extent(self, name: str) -> int:
        return dict(self.tile)[name]


def quotients(problem: TileProblem, design: TiledDesign) -> dict[str, int]:
    """Q_x = ceil(N_x / T_x)."""
    return {x: -(-problem.extents[x] // t) for x, t in design.tile}


def inner_order(problem: TileProblem, design: TiledDesign) -> list[str]:
    """The coordinates inside the GLB tile before the innermost: the loops in statement order,
    a spatial loop when T_x > P, a temporal one when T_x > 1."""
    sizes = _axis_sizes(problem, design)
    out = []
    for x, t in design.tile:
        if x == design.innermost:
            continue
        if t > sizes.get(x, 1):
            out.append(x)
    return out


def _axis_sizes(problem: TileProblem, design: TiledDesign) -> dict[str, int]:
    return {design.spatial[0]: problem.rows, design.spatial[1]: problem.cols}


def space_text(problem: TileProblem, design: TiledDesign) -> str:
    """`{ S[n] -> PE[s0 % P_0, s1 % P_1] }`"""
    s0, s1 = design.spatial
    return (
        f"{{ {problem.statement}[{', '.join(problem.loops)}] -> "
        f"PE[{s0} % {problem.rows}, {s1} % {problem.cols}] }}"
    )


def time_text(problem: TileProblem, design: TiledDesign) -> str:
    """`{ S[n] -> T[floor(x/T_x) outer..., inner..., x_r % T_r + s0 % P_0 + s1 % P_1] }`"""
    sizes = _axis_sizes(problem, design)
    q = quotients(problem, design)
    dims = [x if design.extent(x) == 1 else f"floor({x}/{design.extent(x)})" for x in design.outer]
    for x in inner_order(problem, design):
        within = x if q[x] == 1 else f"({x} % {design.extent(x)})"
        dims.append(f"floor({within}/{sizes[x]})" if x in sizes else within)
    r = design.innermost
    last = r if q[r] == 1 else f"{r} % {design.extent(r)}"
    if design.extent(r) == 1:
        last = "0"
    s0, s1 = design.spatial
    dims.append(f"{last} + {s0} % {problem.rows} + {s1} % {problem.cols}")
    return f"{{ {problem.statement}[{', '.join(problem.loops)}] -> T[{', '.join(dims)}] }}"


def notation(design: TiledDesign) -> str:
    """`(K%P, OY%P - P | OX/1 - GLB | C+p - T) tile K=64 C=64 OX=1 ...`: the spatial loops,
    the outer coordinates outermost first with their tile extents, the innermost loop
    (skewed by the PE coordinates), then every loop's GLB tile extent."""
    s0, s1 = design.spatial
    outer = ", ".join(f"{x.upper()}/{design.extent(x)}" for x in design.outer)
    tile = " ".join(f"{x.upper()}={t}" for x, t in design.tile)
    inner = design.innermost.upper()
    return f"({s0.upper()}%P, {s1.upper()}%P - P | {outer} - GLB | {inner}+p - T) tile {tile}"


def dataflow_of(problem: TileProblem, design: TiledDesign, name: str) -> Dataflow:
    """The design as a dataflow `analyze` reads: its maps and `tiles: {GLB: d}`."""
    return Dataflow(
        name,
        parse_union_map(space_text(problem, design)),
        parse_union_map(time_text(problem, design)),
        tiles={problem.level: len(design.outer)},
    )


# --- closed forms: the array side -----------------------------------------------------------


def blocks(problem: TileProblem, design: TiledDesign) -> list[tuple[int, int, int, int]]:
    """The runs of the innermost loop by the PEs they use and their length:
    (runs, P_0', P_1', T_r').

    A spatial loop of extent N on an axis of P PEs gives N // P blocks of P PEs and, when P
    does not divide N, one block of N mod P PEs (P divides T_s, so the blocks are the same
    whatever the GLB tiles). A run is one block of each spatial loop, one tile of r and one
    value of every other coordinate but the innermost: MACs / (N_s0 · N_s1 · N_r) runs per
    pair of blocks and r tile; r's tiles are T_r long but the last, N_r − (Q_r − 1) T_r."""
    s0, s1 = design.spatial
    r = design.innermost
    n0, n1, n_r = problem.extents[s0], problem.extents[s1], problem.extents[r]
    per_pair = problem.macs // (n0 * n1 * n_r)
    out = []
    for count0, width0 in _axis_blocks(n0, problem.rows):
        for count1, width1 in _axis_blocks(n1, problem.cols):
            for count_r, length in _loop_tiles(n_r, design.extent(r)):
                out.append((per_pair * count0 * count1 * count_r, width0, width1, length))
    return out


def _loop_tiles(extent: int, tile: int) -> list[tuple[int, int]]:
    """(how many tiles, their extent): Q − 1 tiles of T and the last of N − (Q − 1)·T (one
    entry when T divides N)."""
    q = -(-extent // tile)
    last = extent - (q - 1) * tile
    return [(q, tile)] if last == tile else [(q - 1, tile), (1, last)]


def _axis_blocks(extent: int, size: int) -> list[tuple[int, int]]:
    """(how many blocks, PEs in each): full blocks, then the remainder's."""
    out = [(extent // size, size)] if extent >= size else []
    if extent % size:
        out.append((1, extent % size))
    return out


def runs(problem: TileProblem, design: TiledDesign) -> int:
    """Runs of the innermost loop, over every pair of blocks."""
    return sum(n for n, _, _, _ in blocks(problem, design))


def time_steps(problem: TileProblem, design: TiledDesign) -> int:
    """A run of T_r' steps on P_0' x P_1' PEs takes T_r' + P_0' − 1 + P_1' − 1 steps (the
    skew), and no two runs share a step: Σ over runs."""
    return sum(n * (t + p0 + p1 - 2) for n, p0, p1, t in blocks(problem, design))


def latency_cycles(problem: TileProblem, design: TiledDesign) -> int:
    """TENET's delay.latency, max(ingress, egress, compute) (docs/metrics.md): ingress and
    egress are floor(words · word_bits / bandwidth_bits) + avg_latency − 1 of the words
    the read sides fetch and the write side's chain starts (one per exit: every chain of
    partial sums here starts and ends once), compute is floor(MACs / the PEs used)."""
    actions = array_actions(problem, design)
    fetched = sum(a.scratchpad_read_words for x, a in actions.items() if not _is_output(problem, x))
    starts = sum(a.scratchpad_write_words for a in actions.values())
    delays = [
        words * problem.word_bits // problem.bandwidth_bits + problem.avg_latency - 1
        for words in (fetched, starts)
    ]
    s0, s1 = design.spatial
    used = min(problem.extents[s0], problem.rows) * min(problem.extents[s1], problem.cols)
    return max(*delays, problem.macs // used)


def _is_output(problem: TileProblem, name: str) -> bool:
    return any(t.output for t in problem.tensors if t.name == name)


def _sources(tensor: TensorShape, design: TiledDesign, p0: int, p1: int) -> tuple[int, int]:
    """(words, Σ edge pitches) per slice of one run at the PEs that fetch a read tensor's word
    (no PE holds it at the previous step): all PEs when it depends on both spatial loops, the
    column b = 0 (its P_0 rows) when only on s0 (it moves along axis 1), the row a = 0 when
    only on s1 (along axis 0), PE (0, 0) when on neither. The edge is at a = -1: a word at row
    a travels a + 1 pitches. (p0, p1: the PEs of the run's blocks.)"""
    dep0, dep1 = (s in tensor.loops() for s in design.spatial)
    if dep0 and dep1:
        return p0 * p1, p1 * p0 * (p0 + 1) // 2
    if dep0:
        return p0, p0 * (p0 + 1) // 2
    if dep1:
        return p1, p1
    return 1, 1


def _sinks(tensor: TensorShape, design: TiledDesign, p0: int, p1: int) -> tuple[int, int]:
    """(words, Σ edge pitches) per slice leaving the array for the output: every PE when it
    depends on both spatial loops; the column b = P_1 - 1 when only on s0; the row
    a = P_0 - 1 when only on s1; PE (P_0 - 1, P_1 - 1) when on neither."""
    dep0, dep1 = (s in tensor.loops() for s in design.spatial)
    if dep0 and dep1:
        return p0 * p1, p1 * p0 * (p0 + 1) // 2
    if dep0:
        return p0, p0 * (p0 + 1) // 2
    if dep1:
        return p1, p1 * p0
    return 1, p0


def array_actions(problem: TileProblem, design: TiledDesign) -> dict[str, TensorActions]:
    """Each tensor's actions on the array side (docs/energy.md), in closed form.

    Per run, each PE is busy T_r consecutive steps. A slice is one step of every PE (T_r
    slices per run) when the tensor depends on the innermost loop r, else the whole run
    (the PE keeps its word: own-register reuse). Read side: unique = runs · slices · w
    (w from `_sources`), the rest of the first uses arrive over a link (one register write
    and one pitch each). Output: exits = runs · slices · w (`_sinks`), read_back = exits − |O|,
    accumulations read all but each element's first partial sum."""
    macs = problem.macs
    out: dict[str, TensorActions] = {}
    for tensor in problem.tensors:
        words = pitches = others = 0  # Σ over runs: fetched (or leaving), their pitches, the rest
        for n, p0, p1, t_r in blocks(problem, design):
            per_run = t_r if design.innermost in tensor.loops() else 1
            ends = _sinks if tensor.output else _sources
            w, d = ends(tensor, design, p0, p1)
            words += n * per_run * w
            pitches += n * per_run * d
            others += n * per_run * (p0 * p1 - w)
        if not tensor.output:
            out[tensor.name] = TensorActions(
                register_reads=macs,
                register_writes=words,
                link_register_writes=others,
                scratchpad_read_words=words,
                forward_pitches=Fraction(others),
                distribution_pitches=Fraction(pitches),
            )
            continue
        elements = problem.sizes[tensor.name]
        read_back = words - elements
        back_pitches = Fraction(pitches * read_back, words)  # every element exits alike
        out[tensor.name] = TensorActions(
            register_writes=macs + read_back,
            link_register_writes=others,
            scratchpad_read_words=read_back,
            scratchpad_write_words=words,
            read_back_words=read_back,
            forward_pitches=Fraction(others),
            distribution_pitches=pitches + back_pitches,
            accumulator_reads=macs - elements,
            register_read_outs=words + others,
        )
    return out


# --- closed forms: GLB <-> DRAM --------------------------------------------------------------


def footprint(tensor: TensorShape, tile: dict[str, int]) -> int:
    """|F_X| of one GLB tile: Π over index dims of (Σ_x (T_x − 1) + 1)."""
    return math.prod(sum(tile[x] - 1 for x in dim) + 1 for dim in tensor.dims)


def _overlap(tensor: TensorShape, tile: dict[str, int], shift: dict[str, int]) -> int:
    """|F_X(t) ∩ F_X(t')| when tile t' starts shift[x] · T_x further along each loop x: per
    dim, the two intervals of length L are Δ = Σ_x shift[x]·T_x apart: max(0, L − |Δ|)."""
    words = 1
    for dim in tensor.dims:
        length = sum(tile[x] - 1 for x in dim) + 1
        delta = sum(shift.get(x, 0) * tile[x] for x in dim)
        words *= max(0, length - abs(delta))
    return words


def transitions(outer: Sequence[str], q: dict[str, int]) -> list[tuple[int, dict[str, int]]]:
    """Per outer position j: (how many tile changes advance coordinate j, the shift of each
    loop then: +1 on o_j, −(Q_k − 1) on every o_k inside it, which restart)."""
    out = []
    before = 1
    for j, x in enumerate(outer):
        shift = {x: 1, **{y: -(q[y] - 1) for y in outer[j + 1 :]}}
        out.append((before * (q[x] - 1), shift))
        before *= q[x]
    return out


@dataclass(frozen=True)
class GlbTraffic:
    """Per tensor (reads, writes) between the GLB and DRAM, and the GLB's capacity needed
    (`capacity_needed`, and `footprint`, `capacity_needed_single`), exact."""

    tensors: dict[str, tuple[int, int]]
    capacity: int
    footprint: int

    @property
    def words(self) -> int:
        return sum(r + w for r, w in self.tensors.values())


@dataclass(frozen=True)
class _Boundary:
    """The words of one tile extent and outer order, before the capacity: per tensor
    (reads, writes), per kind of tile change the words entering (`fills`, the output's
    first entries included) and leaving (`backs`), and Σ_X |F_X|."""

    tensors: dict[str, tuple[int, int]]
    fills: list[int]
    backs: list[int]
    footprint: int
    tile: dict[str, int] | None = None  # set when some T_x leaves a remainder

    @property
    def words(self) -> int:
        return sum(r + w for r, w in self.tensors.values())


def _sizes_length(dim: tuple[str, ...], sizes: dict[str, int]) -> int:
    """The interval of an index Σ_x x over a box of the given extents: Σ (size − 1) + 1."""
    return sum(sizes[x] - 1 for x in dim) + 1


def _box_words(tensor: TensorShape, sizes: dict[str, int]) -> int:
    return math.prod(_sizes_length(dim, sizes) for dim in tensor.dims)


def _box_overlap(
    tensor: TensorShape, first: dict[str, int], second: dict[str, int], shift: dict[str, int]
) -> int:
    """|F ∩ F'| of two tile boxes of extents `first` and `second`, the second starting
    shift[x] elements further along each loop x: per dim, two intervals Δ apart."""
    words = 1
    for dim in tensor.dims:
        a, b = _sizes_length(dim, first), _sizes_length(dim, second)
        delta = sum(shift.get(x, 0) for x in dim)
        words *= max(0, min(a, delta + b) - max(0, delta))
    return words


def _uneven_boundary(
    problem: TileProblem, tile: dict[str, int], outer: Sequence[str], q: dict[str, int]
) -> _Boundary:
    """`_boundary` when some T_x leaves a last tile of L_x = N_x − (Q_x − 1)·T_x. A tile
    change of kind j takes o_j from c to c + 1 and the loops inside it from their last tile
    to their first; its words depend on whether c + 1 is o_j's last tile and on whether each
    loop outside it sits at its last tile, so each kind is summed over those cases, each
    with its number of tile changes."""
    last = {x: problem.extents[x] - (q[x] - 1) * t for x, t in tile.items()}
    words: dict[str, tuple[int, int]] = {}
    for tensor in problem.tensors:
        entries = _box_words(tensor, tile)
        for j, x in enumerate(outer):
            inside = outer[j + 1 :]
            shift = {x: tile[x], **{y: -(q[y] - 1) * tile[y] for y in inside}}
            for cases in itertools.product(*(_last_cases(y, q, tile, last) for y in outer[:j])):
                before = dict(tile)
                count = 1
                for y, (n, size) in zip(outer[:j], cases):
                    before[y] = size
                    count *= n
                for n, size in _next_cases(x, q, tile, last):
                    if not n:
                        continue
                    now = {**before, **{y: last[y] for y in inside}}
                    then = {**before, x: size}
                    fresh = _box_words(tensor, then) - _box_overlap(tensor, now, then, shift)
                    entries += count * n * fresh
        if tensor.output:
            words[tensor.name] = (entries - problem.sizes[tensor.name], entries)
        else:
            words[tensor.name] = (entries, 0)
    footprint = sum(_box_words(t, tile) for t in problem.tensors)
    return _Boundary(words, [], [], footprint, dict(tile))


def _last_cases(
    x: str, q: dict[str, int], tile: dict[str, int], last: dict[str, int]
) -> list[tuple[int, int]]:
    """(how many coordinates, the tile's extent) of a loop outside the changing one."""
    if last[x] == tile[x]:
        return [(q[x], tile[x])]
    return [(q[x] - 1, tile[x]), (1, last[x])]


def _next_cases(
    x: str, q: dict[str, int], tile: dict[str, int], last: dict[str, int]
) -> list[tuple[int, int]]:
    """(how many changes c -> c + 1, the extent of tile c + 1) of the changing loop."""
    return [(q[x] - 2, tile[x]), (1, last[x])]


def _uneven_capacity(
    problem: TileProblem, tile: dict[str, int], outer: Sequence[str], q: dict[str, int]
) -> int:
    """max over tiles t of Σ_X |F_X(t)| + fill words of next(t) + write-back words of
    prev(t), double-buffered. Every term depends on each coordinate only through whether it
    is 0, Q − 2 or Q − 1 (extents, which loop changes, whether the output's tile is new), so
    the tiles whose coordinates are in {0, 1, Q − 2, Q − 1} take every value there is."""
    last = {x: problem.extents[x] - (q[x] - 1) * t for x, t in tile.items()}
    output = next(t for t in problem.tensors if t.output)
    out_loops = output.loops()
    sliding = any(len(dim) != 1 for dim in output.dims)  # then "fresh" is not known: never
    values = [sorted({0, 1, q[x] - 2, q[x] - 1} & set(range(q[x]))) for x in outer]
    best = 0
    for coords in itertools.product(*values):
        here = dict(zip(outer, coords))
        total = sum(_box_words(t, _extents(tile, last, q, here)) for t in problem.tensors)
        o = max((k for k, x in enumerate(outer) if here[x] < q[x] - 1), default=None)
        if o is not None:
            ahead = {**here, outer[o]: here[outer[o]] + 1, **{y: 0 for y in outer[o + 1 :]}}
            fresh = not sliding and all(ahead[x] == 0 for x in outer if x not in out_loops)
            for tensor in problem.tensors:
                if tensor.output and fresh:
                    continue  # its words enter for the first time: written, not read
                total += _entering(tensor, tile, last, q, here, ahead)
        i = max((k for k, x in enumerate(outer) if here[x] > 0), default=None)
        if i is not None:
            behind = {**here, outer[i]: here[outer[i]] - 1}
            behind.update({y: q[y] - 1 for y in outer[i + 1 :]})
            total += _entering(output, tile, last, q, here, behind)  # |F(prev) \ F(t)|
        best = max(best, total)
    return best


def _extents(
    tile: dict[str, int], last: dict[str, int], q: dict[str, int], coords: dict[str, int]
) -> dict[str, int]:
    """The extents of the tile at `coords` (the loops not in it: their whole tile)."""
    return {x: last[x] if coords.get(x, 0) == q[x] - 1 else t for x, t in tile.items()}


def _entering(
    tensor: TensorShape,
    tile: dict[str, int],
    last: dict[str, int],
    q: dict[str, int],
    here: dict[str, int],
    there: dict[str, int],
) -> int:
    r"""|F(there) \ F(here)|: the words of tile `there` that tile `here` does not hold."""
    a, b = _extents(tile, last, q, here), _extents(tile, last, q, there)
    shift = {x: (there[x] - here[x]) * tile[x] for x in here}
    return _box_words(tensor, b) - _box_overlap(tensor, a, b, shift)


def _boundary(
    problem: TileProblem, tile: dict[str, int], outer: Sequence[str], q: dict[str, int]
) -> _Boundary:
    if any(problem.extents[x] % t for x, t in tile.items()):
        return _uneven_boundary(problem, tile, outer, q)
    moves = transitions(outer, q)
    words: dict[str, tuple[int, int]] = {}
    fills = [0] * len(moves)
    backs = [0] * len(moves)
    total_footprint = 0
    for tensor in problem.tensors:
        size = footprint(tensor, tile)
        total_footprint += size
        entries = size
        for j, (n, shift) in enumerate(moves):
            fresh = size - _overlap(tensor, tile, shift)
            entries += n * fresh
            fills[j] += fresh
            if tensor.output:
                backs[j] += fresh
        if tensor.output:
            words[tensor.name] = (entries - problem.sizes[tensor.name], entries)
        else:
            words[tensor.name] = (entries, 0)
    return _Boundary(words, fills, backs, total_footprint)


def _capacity(
    problem: TileProblem, outer: Sequence[str], q: dict[str, int], boundary: _Boundary
) -> int:
    """`capacity_needed`: Σ_X |F_X| single-buffered, plus `_double_buffer_extra`."""
    if not problem.double_buffered or not outer:
        return boundary.footprint
    if boundary.tile is not None:
        return _uneven_capacity(problem, boundary.tile, outer, q)
    extra = _double_buffer_extra(problem, outer, q, boundary.fills, boundary.backs)
    return boundary.footprint + extra


def glb_traffic(problem: TileProblem, design: TiledDesign) -> GlbTraffic:
    """The rule of docs/levels.md on the tiles `floor(x/T_x)` in the outer order.

    Tiles are boxes; a tile change that advances outer coordinate j moves every tile box by
    the same shift, so each tensor's entries are |F_X| at the first tile plus
    Σ_j n_j (|F_X| − overlap_j). An input's entries are its reads; the output's exits (as
    many as its entries) are its writes and its entries but each element's first its reads."""
    tile = dict(design.tile)
    q = quotients(problem, design)
    boundary = _boundary(problem, tile, design.outer, q)
    capacity = _capacity(problem, design.outer, q, boundary)
    return GlbTraffic(boundary.tensors, capacity, boundary.footprint)


def _double_buffer_extra(
    problem: TileProblem,
    outer: Sequence[str],
    q: dict[str, int],
    fills: list[int],
    backs: list[int],
) -> int:
    """max over tiles t of (fill words of next(t) + write-back words of prev(t)).

    A tile with coordinates c is entered by the change of its last non-zero coordinate i
    and left by the change of its last coordinate o below its Q − 1; next(t) holds only
    output elements never seen (no fill read) exactly when o_o is an output loop and every
    non-output loop before o is at 0 (the output's tile depends on its own loops only). So
    the maximum is over the (i, o, fresh) that some c satisfies."""
    output = next(t for t in problem.tensors if t.output)
    if any(len(dim) != 1 for dim in output.dims):  # a sliding output: the bound of all fills
        return max(backs) + max(fills)
    out_loops = output.loops()
    member = tuple(x in out_loops for x in outer)
    wide = tuple(q[x] >= 3 for x in outer)
    best = 0
    for i, o, fresh in _feasible_kinds(member, wide):
        value = backs[i] if i is not None else 0
        if o is not None:
            value += fills[o] - (backs[o] if fresh else 0)  # the output enters as it leaves
        best = max(best, value)
    return best


@functools.lru_cache(maxsize=4096)
def _feasible_kinds(
    member: tuple[bool, ...], wide: tuple[bool, ...]
) -> tuple[tuple[int | None, int | None, bool], ...]:
    """The (i, o, fresh) some tile coordinates satisfy, given which outer loops the output
    uses and which have Q >= 3 (every outer loop has Q >= 2)."""
    d = len(member)
    out = []
    for i in [None, *range(d)]:
        for o in [None, *range(d)]:
            for fresh in (True, False):
                if o is None and not fresh:
                    continue
                if _feasible(member, wide, i, o, fresh):
                    out.append((i, o, fresh))
    return tuple(out)


def _feasible(
    member: tuple[bool, ...], wide: tuple[bool, ...], i: int | None, o: int | None, fresh: bool
) -> bool:
    """Some tile coordinates c (0 <= c_k < Q_k) have last non-zero position i (None: all
    zero), last non-maximal position o (None: all maximal), and next(t) fresh or not."""
    d = len(member)
    need: list[set[str]] = [set() for _ in range(d)]
    for k in range(d):
        if i is None or k > i:
            need[k].add("=0")
        if o is None or k > o:
            need[k].add("=max")
    if i is not None:
        need[i].add("!=0")
    if o is not None:
        need[o].add("!=max")
    if o is not None and fresh:
        if not member[o]:
            return False
        for k in range(o):
            if not member[k]:
                need[k].add("=0")
        return all(_possible(n, wide[k]) for k, n in enumerate(need))
    if o is not None and member[o]:  # not fresh: some non-output loop before o is not 0
        for k in range(o):
            if member[k]:
                continue
            trial = [set(n) for n in need]
            trial[k].add("!=0")
            if all(_possible(n, wide[m]) for m, n in enumerate(trial)):
                return True
        return False
    return all(_possible(n, wide[k]) for k, n in enumerate(need))


def _possible(need: set[str], wide: bool) -> bool:
    """Some c in 0..Q−1 meets every constraint of `need` (Q >= 2; Q >= 3 when `wide`)."""
    values = (0, 1, 2) if wide else (0, 1)
    top = values[-1]
    checks = {
        "=0": lambda c: c == 0,
        "!=0": lambda c: c != 0,
        "=max": lambda c: c == top,
        "!=max": lambda c: c != top,
    }
    return any(all(checks[n](c) for n in need) for c in values)


# --- pricing ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Prices:
    """pJ per action of the arch's components, exact: per TensorActions field, per fill and
    per write-back word at the GLB <-> DRAM boundary, per MAC."""

    action: dict[str, Fraction]
    fill: Fraction
    back: Fraction
    mac: Fraction

    @property
    def fill_float(self) -> float:
        return float(self.fill)

    @property
    def back_float(self) -> float:
        return float(self.back)


def prices_of(arch: Arch, problem: TileProblem) -> Prices:
    """Energy is linear in every count: price one of each (InputError without components)."""
    if arch.components is None:
        raise InputError(
            "energy_pj needs component costs (technology: or components:)",
            arch.source,
            "components",
        )
    components = arch.components
    action = {}
    for name in TensorActions.__dataclass_fields__:
        kind = Fraction(1) if name.endswith("pitches") else 1
        parts = tensor_energy(TensorActions(**{name: kind}), components)
        action[name] = parts.total
    levels = level_components_of(arch)
    by_fill = BoundaryWords(problem.level, problem.above, True, (("X", 1, 0),))
    by_back = BoundaryWords(problem.level, problem.above, True, (("X", 0, 1),))
    fill = sum(level_energy([by_fill], levels, components.word_bits, arch.source)[0].values())
    back = sum(level_energy([by_back], levels, components.word_bits, arch.source)[0].values())
    return Prices(action, Fraction(fill), Fraction(back), Fraction(components.mac_energy_pj.value))


def actions_energy(actions: dict[str, TensorActions], prices: Prices) -> Fraction:
    """Σ over tensors and fields of count × price."""
    total = Fraction(0)
    for acts in actions.values():
        for name, price in prices.action.items():
            value = getattr(acts, name)
            if value:
                total += value * price
    return total


def traffic_energy(traffic: GlbTraffic, prices: Prices) -> Fraction:
    """Fills and write-backs priced at both ends."""
    return sum(
        (r * prices.fill + w * prices.back for r, w in traffic.tensors.values()), Fraction(0)
    )


def energy_pj(problem: TileProblem, design: TiledDesign, prices: Prices) -> Fraction:
    """cost.energy_pj.total of the design, in closed form: MACs + array side + boundary."""
    return (
        problem.macs * prices.mac
        + actions_energy(array_actions(problem, design), prices)
        + traffic_energy(glb_traffic(problem, design), prices)
    )


def priced(arch: Arch, problem: TileProblem, design: TiledDesign) -> Fraction:
    """The same energy through `tenet.model.cost.priced_on` (the pricing `analyze` uses)."""
    traffic = glb_traffic(problem, design)
    words = tuple((x, r, w) for x, (r, w) in traffic.tensors.items())
    boundary = BoundaryWords(problem.level, problem.above, True, words)
    cost = priced_on(
        arch, array_actions(problem, design), problem.macs, area_counts(arch), [boundary]
    )
    return cost.energy_pj.total


# --- the search -------------------------------------------------------------------------------


def _tile_choices(
    problem: TileProblem, spatial: tuple[str, str], imperfect: bool = False
) -> list[list[int]]:
    """Per loop, the extents T_x tried: divisors of N_x; on a spatial loop the multiples of
    its axis' P, or N_x alone when P does not divide it (its last block is narrower). With
    `imperfect`, the least T_x of each number of tiles Q_x = ceil(N_x / T_x) (a larger T_x
    with the same Q_x only grows the tiles), multiples of P on a spatial loop, and N_x."""
    sizes = {spatial[0]: problem.rows, spatial[1]: problem.cols}
    out = []
    for x in problem.loops:
        n, p = problem.extents[x], sizes.get(x, 1)
        if imperfect:
            least: dict[int, int] = {}  # Q -> the least extent (a multiple of p) giving it
            for t in range(p, n + 1, p):
                least.setdefault(-(-n // t), t)
            out.append(sorted(set(least.values()) | {n}))
        else:
            out.append([t for t in divisors(n) if t % p == 0] if n % p == 0 else [n])
    return out


def separable(problem: TileProblem, spatial: tuple[str, str], innermost: str) -> bool:
    """Whether the closed forms of `array_actions` hold for these spatial and innermost
    loops: r is temporal; no index holds two of s0, s1 and r (a sliding index `ox + rx` over
    the skewed PEs meets the same word on a diagonal); the blocks do not include a single PE
    (its run would hand its words to the next run's first step); and an output that does not
    depend on s0 has one block width on axis 0 (its partial sums leave at one row)."""
    if innermost in spatial:
        return False
    chosen = {*spatial, innermost}
    if any(len(chosen & set(dim)) > 1 for t in problem.tensors for dim in t.dims):
        return False
    widths0 = {w for _, w in _axis_blocks(problem.extents[spatial[0]], problem.rows)}
    widths1 = {w for _, w in _axis_blocks(problem.extents[spatial[1]], problem.cols)}
    if 1 in widths0 and 1 in widths1:
        return False
    output = next(t for t in problem.tensors if t.output)
    return spatial[0] in output.loops() or len(widths0) == 1


def spatial_pairs(problem: TileProblem) -> list[tuple[str, str]]:
    """Ordered pairs of distinct loops of extent > 1 (for axis 0, axis 1)."""
    loops = [x for x in problem.loops if problem.extents[x] > 1]
    return list(itertools.permutations(loops, 2))


@dataclass
class _Scored:
    vector: tuple[float, ...]
    design: TiledDesign


@dataclass
class TileSizeResult(DseResult):
    """`DseResult` of a tile-size search, with per front member its closed-form objective
    values and its DRAM words over the Snowcat front at the GLB's capacity
    (`dram_vs_capacity_bound`; each entry's `dram_vs_bound` is dse's, at the buffer its
    tiles need, `capacity_needed_single`), and whether `limit` or `time_limit` stopped the search before it visited every tile vector
    (`stopped_by`: `LIMIT` or `TIME_LIMIT`, and `complete` False, as `DseResult` says it)."""

    closed_forms: list[dict[str, Any]] = field(default_factory=list)
    dram_vs_capacity_bound: list[float | None] = field(default_factory=list)
    snowcat_words: int | None = None
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        ratios = self.dram_vs_capacity_bound
        for entry, closed, ratio in zip(out["pareto"], self.closed_forms, ratios):
            entry["closed_form"] = closed
            entry["dram_vs_capacity_bound"] = ratio
        out["snowcat_words"] = self.snowcat_words
        return out


def designs(problem: TileProblem, imperfect: bool = False) -> Iterator[TiledDesign]:
    """Every design (spatial pair × tile extents × innermost × outer order), unpruned; the
    outer coordinates need at least one loop with Q_x > 1 (a GLB tile depth ≥ 1)."""
    for spatial in spatial_pairs(problem):
        for tile in itertools.product(*_tile_choices(problem, spatial, imperfect)):
            yield from _designs_of(problem, spatial, tile)


def _designs_of(
    problem: TileProblem, spatial: tuple[str, str], tile: Sequence[int]
) -> Iterator[TiledDesign]:
    pairs = tuple(zip(problem.loops, tile))
    tiled = [x for x, t in pairs if problem.extents[x] > t]
    if not tiled:
        return
    for r in problem.loops:
        if not separable(problem, spatial, r):
            continue
        for outer in itertools.permutations(tiled):
            yield TiledDesign(spatial, pairs, tuple(outer), r)


def explore_tile_sizes(
    workload: Workload,
    arch: Arch,
    objectives: Sequence[str] = ("energy_pj",),
    jobs: int = 1,
    imperfect: bool = False,
    limit: int | None = None,
    time_limit: float | None = None,
) -> TileSizeResult:
    """The Pareto front of GLB tile sizes, spatial loops, outer orders and innermost loops,
    ranked by closed forms and pruned with lower bounds, each member counted again by plain
    `analyze` (its objective values are analyze's)."""
    started = clock.monotonic()
    unknown = [o for o in objectives if o not in TILE_SIZE_OBJECTIVES]
    if unknown:
        raise InputError(
            f"the tile-size search ranks by {', '.join(TILE_SIZE_OBJECTIVES)}; not {unknown[0]}",
            None,
            "--objectives",
        )
    problem = tile_problem(workload, arch)
    prices = prices_of(arch, problem) if "energy_pj" in objectives else None
    front, counts = _search(
        problem, prices, tuple(objectives), limit, time_limit, started, imperfect
    )
    entries, closed, ratios = _recheck(workload, arch, problem, front, objectives, jobs)
    bound = snowcat_at(problem_from_workload(workload), problem.capacity)
    snowcat_words = bound.accesses if bound is not None else None
    ratios = [
        None if snowcat_words in (None, 0) else entry.analysis.dram_words() / snowcat_words
        for entry in entries
    ]
    return TileSizeResult(
        workload=workload.name,
        arch=arch.name,
        objectives=tuple(objectives),
        candidates=counts.candidates,
        evaluated=counts.evaluated,
        legal=counts.evaluated,
        pruned=counts.pruned,
        skipped=0,
        ties=0,
        pareto=entries,
        closed_forms=closed,
        dram_vs_capacity_bound=ratios,
        snowcat_words=snowcat_words,
        stopped_by=counts.stopped_by,
        distinct=counts.candidates,
        seconds=clock.monotonic() - started,
    )


def _search(
    problem: TileProblem,
    prices: Prices | None,
    objectives: tuple[str, ...],
    limit: int | None,
    time_limit: float | None,
    started: float,
    imperfect: bool = False,
) -> tuple[list[_Scored], SearchCounts]:
    """Best first over tile vectors, by their lower bounds (`_tile_vectors`); a vector whose
    bounds some front member reaches on every objective cannot improve the front and is
    skipped. Within a vector the array side depends only on (spatial, r) and the boundary
    only on the outer order, so the designs are the pairs of their two fronts."""
    vectors = _tile_vectors(problem, prices, objectives, imperfect)
    front: list[_Scored] = []
    counts = SearchCounts()
    counts.candidates = sum(len(c) * math.factorial(_tiled(problem, t)) for _, t, c in vectors)
    for floors, tile, choices in vectors:
        designs_here = len(choices) * math.factorial(_tiled(problem, tile))
        if limit is not None and counts.evaluated >= limit:
            counts.stopped_by = LIMIT
            break
        if time_limit is not None and clock.monotonic() - started > time_limit:
            counts.stopped_by = TIME_LIMIT
            break
        if _dominated(front, floors):
            counts.pruned += designs_here
            continue
        counts.evaluated += designs_here
        orders = _order_front(problem, tile, prices, objectives)
        for spatial, r, array_energy, array_values in choices:
            for boundary_energy, words, outer in orders:
                energy = array_energy + boundary_energy
                vector = _vector(objectives, energy, words, array_values)
                if _dominated(front, vector):
                    continue
                front = [f for f in front if not _covers(vector, f.vector)]
                front.append(_Scored(vector, TiledDesign(spatial, tile, outer, r)))
    return front, counts


@dataclass
class SearchCounts:
    """Designs whose tiles fit the GLB alone (`candidates`), those of the tile vectors whose
    counts were formed (`evaluated`) and of those skipped by their floors (`pruned`); whether
    why the search stopped before it visited every tile vector (`stopped_by`, None if not)."""

    candidates: int = 0
    evaluated: int = 0
    pruned: int = 0
    stopped_by: str | None = None


def _tiled(problem: TileProblem, tile: tuple[tuple[str, int], ...]) -> int:
    """The outer coordinates of a tile vector: loops with Q_x > 1."""
    return sum(1 for x, t in tile if problem.extents[x] > t)


def _vector(
    objectives: tuple[str, ...], energy: float, words: int, array_values: dict[str, int]
) -> tuple[float, ...]:
    values = {"energy_pj": energy, "dram": float(words)}
    return tuple(float(array_values[n]) if n in array_values else values[n] for n in objectives)


def _covers(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """a is no worse than b on every objective."""
    return all(x <= y for x, y in zip(a, b))


def _dominated(front: list[_Scored], vector: tuple[float, ...]) -> bool:
    return any(_covers(f.vector, vector) for f in front)


def _order_front(
    problem: TileProblem,
    tile: tuple[tuple[str, int], ...],
    prices: Prices | None,
    objectives: tuple[str, ...],
) -> list[tuple[float, int, tuple[str, ...]]]:
    """The outer orders of one tile vector that fit the GLB and that no other fitting order
    beats on both boundary energy and DRAM words: (boundary pJ, words, order), by pJ.
    The capacity is computed only for the orders that would join."""
    extents = dict(tile)
    q = {x: -(-problem.extents[x] // t) for x, t in tile}
    tiled = [x for x, _ in tile if q[x] > 1]
    rows = []
    for outer in itertools.permutations(tiled):
        boundary = _boundary(problem, extents, outer, q)
        energy = 0.0
        if prices is not None:
            energy = sum(
                r * prices.fill_float + w * prices.back_float for r, w in boundary.tensors.values()
            )
        rows.append((energy, boundary.words, outer, boundary))
    rows.sort(key=lambda row: (row[0], row[1]))
    wants_words = "dram" in objectives
    out: list[tuple[float, int, tuple[str, ...]]] = []
    least_words: int | None = None
    for energy, words, outer, boundary in rows:
        if least_words is not None and words >= least_words:
            continue
        if _capacity(problem, outer, q, boundary) > problem.capacity:
            continue
        out.append((energy, words, outer))
        least_words = words
        if not wants_words:
            break
    return out


def _tile_vectors(
    problem: TileProblem,
    prices: Prices | None,
    objectives: tuple[str, ...],
    imperfect: bool = False,
) -> list[tuple[tuple[float, ...], tuple[tuple[str, int], ...], list[tuple]]]:
    """Each tile vector that some (spatial pair, innermost loop) allows and whose tiles fit
    alone (Σ_X |F_X| <= capacity, needed by every order): its lower bounds, itself, and its
    (spatial, r, array pJ, time steps) choices, best first. The bounds: the least array pJ
    plus every touched element moved once (inputs read, the output written once: docs/dse.md
    proves `dram` >= Σ_X |X|), Σ_X |X| words, the least time steps. Sorted by the bounds."""
    compulsory = sum(problem.sizes.values())
    output = next(t.name for t in problem.tensors if t.output)
    least_boundary = 0.0
    if prices is not None:
        inputs = compulsory - problem.sizes[output]
        least_boundary = inputs * prices.fill_float + problem.sizes[output] * prices.back_float
    arrays: dict[tuple[tuple[str, str], str, int], tuple[float, int]] = {}
    by_tile: dict[tuple[tuple[str, int], ...], list[tuple]] = {}
    for spatial in spatial_pairs(problem):
        for extents in itertools.product(*_tile_choices(problem, spatial, imperfect)):
            tile = tuple(zip(problem.loops, extents))
            if all(problem.extents[x] == t for x, t in tile):
                continue  # one tile: no outer coordinate, no tile depth
            fits = sum(footprint(t, dict(tile)) for t in problem.tensors) <= problem.capacity
            if not fits:
                continue
            for r in problem.loops:
                if not separable(problem, spatial, r):
                    continue
                key = (spatial, r, dict(tile)[r])
                if key not in arrays:
                    design = TiledDesign(spatial, tile, (), r)
                    energy = 0.0
                    if prices is not None:
                        actions = array_actions(problem, design)
                        energy = float(problem.macs * prices.mac + actions_energy(actions, prices))
                    values = {
                        "time_steps": time_steps(problem, design),
                        "latency": latency_cycles(problem, design),
                    }
                    arrays[key] = (energy, values)
                energy, values = arrays[key]
                by_tile.setdefault(tile, []).append((spatial, r, energy, values))
    out = []
    for tile, choices in by_tile.items():
        choices.sort(key=lambda c: c[2])
        least = {
            "energy_pj": choices[0][2] + least_boundary,
            "dram": float(compulsory),
            **{n: float(min(c[3][n] for c in choices)) for n in ARRAY_OBJECTIVES},
        }
        out.append((tuple(least[name] for name in objectives), tile, choices))
    out.sort(key=lambda row: row[0])
    return out


def _recheck(
    workload: Workload,
    arch: Arch,
    problem: TileProblem,
    front: list[_Scored],
    objectives: Sequence[str],
    jobs: int,
) -> tuple[list[FrontEntry], list[dict[str, Any]], list[float | None]]:
    """Each front member counted by plain `analyze` (on `jobs` processes), sorted by the
    objectives; its closed-form values kept beside it."""
    front = sorted(front, key=lambda s: s.vector)
    names = [f"dse-{k + 1:03d}" for k in range(len(front))]
    tasks = [(s.design, n) for s, n in zip(front, names)]
    _SHARED[:] = [workload, arch, problem]
    try:
        if jobs > 1 and len(tasks) > 1:
            context = multiprocessing.get_context("fork")
            with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
                records = list(pool.map(_analyze_design, tasks))
        else:
            records = [_analyze_design(t) for t in tasks]
    finally:
        _SHARED.clear()
    analyses = [
        Analysis.from_dict(r["analysis"], arch, r["stamps"], exact_cost=r.get("cost"))
        for r in records
    ]
    entries, closed = [], []
    snowcat: dict[int, Any] = {}  # Snowcat's least words per buffer, shared by the members
    for scored, analysis in zip(front, analyses):
        design = scored.design
        entries.append(
            FrontEntry(
                analysis,
                notation(design),
                space_text(problem, design),
                time_text(problem, design),
                tuple(objectives),
                {problem.level: len(design.outer)},
                dram_against_snowcat(workload, analysis, snowcat),
            )
        )
        closed.append(dict(zip(objectives, (_plain(v) for v in scored.vector))))
    order = sorted(range(len(entries)), key=lambda k: entries[k].objective_values().values())
    keep = pareto_indices([tuple(entries[k].objective_values().values()) for k in order])
    entries = [entries[order[k]] for k in keep]
    closed = [closed[order[k]] for k in keep]
    return entries, closed, [None] * len(entries)


def _plain(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


#: (workload, arch, problem) of the re-check in progress: the workers are forked, and isl
#: objects do not pickle.
_SHARED: list[Any] = []


def _analyze_design(task: tuple[TiledDesign, str]) -> dict[str, Any]:
    """`analyze` of one design, as its JSON object (what a worker sends back)."""
    design, name = task
    workload, arch, problem = _SHARED
    dataflow = dataflow_of(problem, design, name)
    analysis = analyze(workload, arch, dataflow, cost=arch.components is not None)
    record = {"analysis": analysis.to_dict(), "stamps": analysis.stamps}
    if analysis.cost is not None:  # the JSON's cost has float lengths: keep the exact counts
        record["cost"] = analysis.cost.to_exact()
    return record


__all__ = [
    "TILE_SIZE_OBJECTIVES",
    "TileProblem",
    "TileSizeResult",
    "TiledDesign",
    "array_actions",
    "dataflow_of",
    "designs",
    "energy_pj",
    "explore_tile_sizes",
    "glb_traffic",
    "latency_cycles",
    "priced",
    "prices_of",
    "tile_problem",
    "time_steps",
]
