"""The tile-size search's closed forms (docs/dse.md, "Tile sizes"): a design's array-side
actions, time steps and latency, its GLB <-> DRAM words and capacities, and their pJ, exact
in Python ints and checked against barvinok in tests/explore/test_tile_sizes.py."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from tenet.errors import InputError
from tenet.explore.tile_space import (
    TensorShape,
    TiledDesign,
    TileProblem,
    quotients,
)
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
