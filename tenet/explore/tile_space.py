"""The tile-size search's space (docs/dse.md, "Tile sizes"): the problem, a design (spatial
loops, GLB tile extents, outer order, innermost loop) and its space and time maps."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import islpy as isl

from tenet.bounds.snowcat import problem_from_workload
from tenet.errors import InputError
from tenet.explore.space import array_axes, skew_options
from tenet.model.arch import Arch
from tenet.model.dataflow import Dataflow
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
    """Spatial loops (axis 0, axis 1), GLB tile extents, outer order and innermost loop;
    `flat` (outermost first): the temporal coordinates inside the GLB tile folded into the
    skewed one with the innermost loop, so each PE runs them all on consecutive steps."""

    spatial: tuple[str, str]
    tile: tuple[tuple[str, int], ...]  # (loop, T_x) in the statement's loop order
    outer: tuple[str, ...]  # loops with Q_x > 1, outermost first
    innermost: str
    flat: tuple[str, ...] = ()

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


def temporal_inner(problem: TileProblem, design: TiledDesign) -> list[str]:
    """The temporal coordinates inside the GLB tile (`inner_order` without the spatial
    blocks): what a flat design folds into its skewed coordinate."""
    sizes = _axis_sizes(problem, design)
    return [x for x in inner_order(problem, design) if x not in sizes]


def flattened(problem: TileProblem, design: TiledDesign) -> list[TiledDesign]:
    """The flat variants of a design: its temporal coordinates inside the GLB tile and its
    innermost loop (when T_r > 1) folded into one, once with each of them innermost and
    the others in the statement's order; none when there is nothing to fold."""
    folded = temporal_inner(problem, design)
    if design.flat or not folded:
        return []
    run = [*folded, design.innermost] if design.extent(design.innermost) > 1 else folded
    order = {x: n for n, x in enumerate(problem.loops)}
    out = []
    for last in run:
        rest = sorted((x for x in run if x != last), key=order.__getitem__)
        if design.extent(design.innermost) == 1:  # r takes one value: it stays innermost
            out.append(replace(design, flat=(*rest, last)))
        else:
            out.append(replace(design, innermost=last, flat=tuple(rest)))
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
    """`{ S[n] -> T[floor(x/T_x) outer..., inner..., x_r % T_r + s0 % P_0 + s1 % P_1] }`;
    a `flat` design keeps only the spatial blocks as inner coordinates and folds the
    temporal ones into the last: `Σ_x (x % T_x) · Π_{y after x} T_y · T_r + x_r % T_r + ...`
    (x, y over `flat`, outermost first): one PE's stamps are distinct, since each x % T_x < T_x."""
    sizes = _axis_sizes(problem, design)
    q = quotients(problem, design)

    def within(x: str) -> str:  # x inside its GLB tile
        return x if q[x] == 1 else f"({x} % {design.extent(x)})"

    dims = [x if design.extent(x) == 1 else f"floor({x}/{design.extent(x)})" for x in design.outer]
    folded = list(design.flat)
    for x in inner_order(problem, design):
        if x in folded:
            continue
        dims.append(f"floor({within(x)}/{sizes[x]})" if x in sizes else within(x))
    r = design.innermost
    last = r if q[r] == 1 else f"{r} % {design.extent(r)}"
    if design.extent(r) == 1:
        last = "0"
    stride = design.extent(r)
    for x in reversed(folded):
        last = f"{stride}*{within(x)} + {last}"
        stride *= design.extent(x)
    s0, s1 = design.spatial
    dims.append(f"{last} + {s0} % {problem.rows} + {s1} % {problem.cols}")
    return f"{{ {problem.statement}[{', '.join(problem.loops)}] -> T[{', '.join(dims)}] }}"


def notation(design: TiledDesign) -> str:
    """`(K%P, OY%P - P | OX/1 - GLB | C+p - T) tile K=64 C=64 OX=1 ...`: the spatial loops,
    the outer coordinates outermost first with their tile extents, the innermost loop
    (skewed by the PE coordinates; a flat design's folded loops and it, as `(RX,RY,C)+p`),
    then every loop's GLB tile extent."""
    s0, s1 = design.spatial
    outer = ", ".join(f"{x.upper()}/{design.extent(x)}" for x in design.outer)
    tile = " ".join(f"{x.upper()}={t}" for x, t in design.tile)
    inner = design.innermost.upper()
    if design.flat:  # the folded loops, outermost first
        inner = ",".join(x.upper() for x in (*design.flat, design.innermost))
        inner = f"({inner})"
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
