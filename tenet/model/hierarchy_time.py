"""Time through the memory hierarchy (docs/levels.md, "Time through the hierarchy"), exact.

For each level L with a tile depth, innermost first, and its tiles u in order:

* C(u), the compute of u: for the innermost tiled level Σ_{t ∈ u} cost(t), the step cost of
  delay.schedule; for a level further out Σ of the inner level's s(v) over its tiles v in u;
* F(u) = ceil(fill_words(u) · word_bits / b), D(u) = ceil(writeback_words(u) · word_bits / b),
  b the bits per cycle of the level above (bandwidth_gbps · 8 / clock_ghz);
* s(u) = max(C(u), F(next u) + D(prev u)) when L is double buffered (plus a prologue F(first)
  and an epilogue D(last)), s(u) = F(u) + C(u) + D(u) when it is not.

The total is Σ_U s(U) over the outermost tiled level's tiles plus every prologue and
epilogue; delay.hierarchy adds avg_latency − 1 once (formulas.hierarchy_delay).

Every per-tile function is a barvinok count as a function of the tile coordinates; maxima
and sums are taken on its quasi-affine pieces (isl's union_max and union_add, and the points
under a piece counted by barvinok). A piece that is not quasi-affine is sliced into
constants, one per value of the tile coordinates it involves; how many is reported. Where
the pieces allow it, less is built (docs/levels.md, "Speed"): C(u) one constant per piece
that is a product of tiles and other coordinates, Σ_u C(u) of the innermost level taken
from Σ_t cost(t), and s(u) kept as C(u) raised on the constant pieces where a transfer
outlasts it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import islpy as isl

from tenet.model.arch import Arch
from tenet.model.levels import LevelMaps, LevelTraffic
from tenet.model.schedule_time import affine_pieces, combine_pw_affs
from tenet.util.isl_util import count


@dataclass(frozen=True)
class LevelTime:
    """The transfer cycles of one level's boundary with the level above: fill_cycles =
    Σ_u F(u), drain_cycles = Σ_u D(u); stall_cycles = Σ_u s(u) + prologue + epilogue −
    Σ_u C(u), the cycles the level adds above the compute it wraps; end_cycles = prologue
    + epilogue (not in the JSON)."""

    name: str
    fill_cycles: int
    drain_cycles: int
    double_buffered: bool
    stall_cycles: int
    # the prologue F(first) and epilogue D(last) of a double-buffered level: part of
    # stall_cycles that any schedule pays to start and end the pipeline
    end_cycles: int = field(default=0, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "fill_cycles": self.fill_cycles,
            "drain_cycles": self.drain_cycles,
            "double_buffered": self.double_buffered,
            "stall_cycles": self.stall_cycles,
        }


@dataclass(frozen=True)
class HierarchyTime:
    """Σ_U s(U) + the prologues and epilogues (`cycles`, without avg_latency), what bounds
    it (`bound_by`), per level its transfers, and how many pieces of per-tile functions
    were not quasi-affine (`sliced_pieces`) and how many tile values slicing them took
    (`sliced_points`)."""

    cycles: int
    bound_by: str
    levels: tuple[LevelTime, ...]
    sliced_pieces: int = 0
    sliced_points: int = 0


@functools.cache
def _below() -> isl.Map:
    """{ [x] -> [c] : 0 <= c < x }: the points under a function, to sum it with barvinok."""
    return isl.Map("{ [x] -> [c] : 0 <= c < x }")


def as_pw_aff(pw: isl.PwQPolynomial | None, tally: list[int]) -> isl.PwAff | None:
    """A per-tile count as a quasi-affine PwAff (pieces of higher degree sliced into
    constants, counted in `tally`)."""
    pieces = [isl.PwAff.alloc(d, a) for d, a in affine_pieces(pw, tally)]
    return combine_pw_affs(pieces, "union_add")


def ceil_cycles(
    pw: isl.PwQPolynomial | None, word_bits: int, bits_per_cycle: Fraction, tally: list[int]
) -> isl.PwAff | None:
    """u -> ceil(words(u) · word_bits / bits_per_cycle), piece by piece (quasi-affine)."""
    num, den = word_bits * bits_per_cycle.denominator, bits_per_cycle.numerator
    parts = []
    for domain, aff in affine_pieces(pw, tally):
        scaled = aff.scale_val(isl.Val(str(num))).scale_down_val(isl.Val(str(den))).ceil()
        parts.append(isl.PwAff.alloc(domain, scaled))
    return combine_pw_affs(parts, "union_add", tidy=False)


def cycles_of(
    words: isl.PwQPolynomial | None,
    function: isl.PwAff | None,
    word_bits: int,
    bits_per_cycle: Fraction,
    tally: list[int],
) -> isl.PwAff | None:
    """u -> ceil(words(u) · word_bits / bits_per_cycle): on the quasi-affine `function`
    (words as a PwAff) at once when it is given, else piece by piece (`ceil_cycles`)."""
    if function is None:
        return ceil_cycles(words, word_bits, bits_per_cycle, tally)
    num, den = word_bits * bits_per_cycle.denominator, bits_per_cycle.numerator
    return function.scale_val(isl.Val(str(num))).scale_down_val(isl.Val(str(den))).ceil()


def sum_over(f: isl.PwAff | None) -> int:
    """Σ_x f(x) over the domain of a quasi-affine f >= 0: |{ (x, c) : 0 <= c < f(x) }|."""
    if f is None:
        return 0
    total = 0
    for domain, aff in f.get_pieces():  # disjoint: counted one by one
        if aff.is_cst():  # a constant c: ceil(c) values of c' below it at each point
            below = int(aff.get_constant_val().ceil().to_python())
            total += below * count(domain) if below > 0 else 0
            continue
        total += count(isl.Map.from_pw_aff(isl.PwAff.alloc(domain, aff)).apply_range(_below()))
    return total


def per_tile_sum(f: isl.PwAff, depth: int) -> isl.PwQPolynomial:
    """U -> Σ_{x : x_0..x_{depth-1} = U} f(x) for f >= 0 on a set space X[x_0, ..., x_{n-1}]:
    the tile U is the first `depth` coordinates; barvinok sums f's quasi-polynomial over
    the others (isl_pw_qpolynomial_sum on the domain read as [Tile[U] -> [rest]])."""
    n = f.dim(isl.dim_type.in_)
    dims = [f"x{k}" for k in range(n)]
    split = isl.Map(
        f"{{ Tile[{', '.join(dims[:depth])}] -> [{', '.join(dims[depth:])}] }}"
    ).get_space()
    return isl.PwQPolynomial.from_pw_aff(f).reset_domain_space(split.wrap()).sum()


def per_tile_total(
    f: isl.PwAff, depth: int, tally: list[int], known_total: int | None = None
) -> isl.PwAff | None:
    """`per_tile_sum` as a quasi-affine PwAff (`as_pw_aff`), or, when every piece of f is a
    product of tiles and other coordinates or a constant (`product_piece_sums`), without
    summing a function with barvinok. `known_total` is Σ_x f(x), when known."""
    fast = product_piece_sums(f, depth, known_total)
    return as_pw_aff(per_tile_sum(f, depth), tally) if fast is None else fast


def _product_split(
    domain: isl.Set, aff: isl.Aff, depth: int
) -> tuple[isl.Set, isl.Set, isl.Aff] | None:
    """(P, R, a on R) when domain = P × R, P its shadow on the first `depth` coordinates
    (as Tile) and R on the others, and `aff` involves none of the first `depth`; else None."""
    if aff.involves_dims(isl.dim_type.in_, 0, depth):
        return None
    n = domain.dim(isl.dim_type.set)
    tiles = domain.project_out(isl.dim_type.set, depth, n - depth)
    rest = domain.project_out(isl.dim_type.set, 0, depth)
    product = tiles.insert_dims(isl.dim_type.set, depth, n - depth).intersect(
        rest.insert_dims(isl.dim_type.set, 0, depth)
    )
    if not product.is_equal(domain.reset_tuple_id()):
        return None
    return tiles.set_tuple_name("Tile"), rest, aff.drop_dims(isl.dim_type.in_, 0, depth)


def _constant_on(tiles: isl.Set, value: int) -> isl.PwAff:
    zero = isl.Aff.zero_on_domain(isl.LocalSpace.from_space(tiles.get_space()))
    return isl.PwAff.alloc(tiles, zero.set_constant_val(isl.Val(str(value))))


def product_piece_sums(
    f: isl.PwAff, depth: int, known_total: int | None = None
) -> isl.PwAff | None:
    """`per_tile_sum` piece by piece, without summing a function with barvinok, when each
    piece (D, a) of f is one of:

    * D = P × R, P its shadow on the first `depth` coordinates and R on the others, and a
      involving none of the first `depth`: Σ_{x ∈ D, x_tile = U} a(x) = Σ_{r ∈ R} a(r)
      for U ∈ P (`sum_over`);
    * a constant c: Σ_{x ∈ D, x_tile = U} c = c · |{ r : (U, r) ∈ D }| (barvinok's card()
      of D read as a relation Tile -> rest), when that count is quasi-affine in U.

    The pieces' sums add up (products on the same tiles first). When every piece is a
    product on the same tiles P and Σ_x f(x) is `known_total`, the sum is the constant
    known_total / |P| on P. None when some piece is neither."""
    products: list[tuple[isl.Set, isl.Set, isl.Aff]] = []
    counted: list[isl.PwAff] = []  # c · |D(U)|
    for domain, aff in f.get_pieces():
        split = _product_split(domain, aff, depth)
        if split is not None:
            products.append(split)
            continue
        if not aff.is_cst():
            return None
        value = aff.get_constant_val()
        as_map = isl.Map.from_range(domain).move_dims(
            isl.dim_type.in_, 0, isl.dim_type.out, 0, depth
        )
        card = as_map.set_tuple_name(isl.dim_type.in_, "Tile").card()
        pieces = card.get_pieces()
        if not all(qp.isa_aff() for _, qp in pieces):
            return None
        counted.extend(isl.PwAff.alloc(d, qp.as_aff().scale_val(value)) for d, qp in pieces)
    if known_total is not None and products and not counted:
        tiles = products[0][0]
        if all(other.is_equal(tiles) for other, _, _ in products[1:]):
            size = count(tiles)
            if known_total % size == 0:
                return _constant_on(tiles, known_total // size)
    sums: list[tuple[isl.Set, int]] = []
    for tiles, rest, aff in products:
        value = sum_over(isl.PwAff.alloc(rest, aff))
        for k, (known, total) in enumerate(sums):
            if known.is_equal(tiles):
                sums[k] = (known, total + value)
                break
        else:
            sums.append((tiles, value))
    parts = counted + [_constant_on(tiles, total) for tiles, total in sums]
    return combine_pw_affs(parts, "union_add")


def _cycles(words: int, word_bits: int, b: Fraction) -> int:
    """ceil(words · word_bits / b) for words moved at once."""
    return -(-words * word_bits * b.denominator // b.numerator)


def _constants(f: isl.PwAff | None) -> list[int] | None:
    """The values of f's pieces when every piece is a constant (integers); None when some
    piece is not."""
    if f is None:
        return []
    values = []
    for _, aff in f.get_pieces():
        if not aff.is_cst():
            return None
        values.append(int(aff.get_constant_val().floor().to_python()))
    return values


def hidden_max(
    compute: isl.PwAff, coming: isl.PwAff | None, leaving: isl.PwAff | None
) -> isl.PwAff:
    """s(u) = max(C(u), F(next u) + D(prev u)), C = `compute` defined on every used tile,
    the transfers on some of them (absent = 0). When C and the transfers are constant on
    their pieces, transfer pieces no larger than the least C cannot raise the maximum: they
    are left out, and when the largest F plus the largest D is no larger than the least C,
    s is C itself (the same object: its sum is C's)."""
    least = _constants(compute)
    came, left = _constants(coming), _constants(leaving)
    if least and came is not None and left is not None:
        if max(came, default=0) + max(left, default=0) <= min(least):
            return compute
        transfer = combine_pw_affs([coming, leaving], "union_add", tidy=False)
        floor = min(least)
        kept = [
            isl.PwAff.alloc(domain, aff)
            for domain, aff in transfer.get_pieces()
            if aff.get_constant_val().floor().to_python() > floor
        ]
        if not kept:
            return compute
        return combine_pw_affs([compute, *kept], "union_max")
    transfer = combine_pw_affs([coming, leaving], "union_add", tidy=False)
    return combine_pw_affs([compute, transfer], "union_max")


def _cycle_pieces(
    pieces: list[tuple[isl.Set, int]] | None, word_bits: int, b: Fraction
) -> list[tuple[isl.Set, int]] | None:
    """Constant pieces of words as pieces of ceil(words · word_bits / b) cycles."""
    if pieces is None:
        return None
    return [(domain, _cycles(words, word_bits, b)) for domain, words in pieces]


def _cells_above(
    came: list[tuple[isl.Set, int]],
    left: list[tuple[isl.Set, int]],
    floor: int,
    tiles: isl.Set,
) -> list[tuple[isl.Set, int]]:
    """F(next u) + D(prev u) as constant pieces, keeping only those above `floor` (the
    least C(u)): each pair of a piece of F(next ·) or none and a piece of D(prev ·) or
    none, on the tiles where both hold (isl), when its sum is above the floor."""
    outside: dict[int, isl.Set] = {}

    def rest(k: int, pieces: list[tuple[isl.Set, int]]) -> isl.Set:
        if k not in outside:
            outside[k] = tiles
            for domain, _ in pieces:
                outside[k] = outside[k].subtract(domain)
        return outside[k]

    out = []
    for a, va in [*came, (None, 0)]:
        for d, vd in [*left, (None, 0)]:
            if va + vd <= floor:
                continue
            cell = rest(0, came) if a is None else a
            cell = cell.intersect(rest(1, left) if d is None else d)
            if not cell.is_empty():
                out.append((cell, va + vd))
    return out


def _pieces_pw_affs(pieces: list[tuple[isl.Set, int]]) -> list[isl.PwAff]:
    out = []
    for domain, value in pieces:
        zero = isl.Aff.zero_on_domain(isl.LocalSpace.from_space(domain.get_space()))
        out.append(isl.PwAff.alloc(domain, zero.set_constant_val(isl.Val(str(value)))))
    return out


def _from_pieces(pieces: list[tuple[isl.Set, int]]) -> isl.PwAff | None:
    """The PwAff equal to value on each domain of disjoint (domain, value) pieces."""
    return combine_pw_affs(_pieces_pw_affs(pieces), "union_add", tidy=False)


def _shifted_cycles(
    maps: LevelMaps, which: str, word_bits: int, b: Fraction, tally: list[int]
) -> isl.PwAff | None:
    """F(next u) (`which` = "next_fill") or D(prev u) ("prev_drain"): from the quasi-affine
    shifted words when the level has them, else from their per-tile count."""
    function = getattr(maps, f"{which}_function")
    words = None if function is not None else getattr(maps, f"{which}_words")
    return cycles_of(words, function, word_bits, b, tally)


@dataclass(frozen=True)
class Raised:
    """s = C + excess: `compute` C on every used tile, raised by constant amounts on
    disjoint pieces of tiles where a transfer outlasts C."""

    compute: isl.PwAff
    excess: tuple[tuple[isl.Set, int], ...]

    def as_pw_aff(self) -> isl.PwAff:
        """C + excess as one PwAff."""
        return combine_pw_affs([self.compute, _from_pieces(list(self.excess))], "union_add")


def level_time(
    maps: LevelMaps,
    compute: isl.PwAff,
    word_bits: int,
    b: Fraction,
    double_buffered: bool,
    tally: list[int],
    compute_cycles: int | None = None,
) -> tuple[isl.PwAff, int, int, int, int]:
    """(s, prologue + epilogue, Σ F, Σ D, Σ C) of one level, `compute` = C(u) on its used
    tiles, b its boundary's bits per cycle; `compute_cycles`, when given, is Σ C (known
    already: Σ_t cost(t) for the innermost level, the inner level's Σ s further out)."""
    s, *rest = _level_time(maps, compute, word_bits, b, double_buffered, tally, compute_cycles)
    return (s.as_pw_aff() if isinstance(s, Raised) else s, *rest)


def _level_time(
    maps: LevelMaps,
    compute: isl.PwAff,
    word_bits: int,
    b: Fraction,
    double_buffered: bool,
    tally: list[int],
    compute_cycles: int | None = None,
) -> tuple[isl.PwAff | Raised, int, int, int, int]:
    """`level_time`, s possibly as C raised on a few pieces (`Raised`)."""
    fill = cycles_of(maps.fill_words, maps.fill_function, word_bits, b, tally)
    drain = cycles_of(maps.drain_words, maps.drain_function, word_bits, b, tally)
    if double_buffered:
        came = _cycle_pieces(maps.next_fill_pieces, word_bits, b)  # F(next u)
        left = _cycle_pieces(maps.prev_drain_pieces, word_bits, b)  # D(prev u)
        held = _constant_pieces(compute)
        s: isl.PwAff | Raised
        if held and came is not None and left is not None:
            least = min(v for _, v in held)
            tiles = isl.Set.from_union_set(maps.used_tiles)
            excess = []
            for cell, value in _cells_above(came, left, least, tiles):
                for domain, c in held:
                    if value > c:
                        piece = cell.intersect(domain)
                        if not piece.is_empty():
                            excess.append((piece, value - c))
            s = Raised(compute, tuple(excess)) if excess else compute
        else:
            coming = (
                _shifted_cycles(maps, "next_fill", word_bits, b, tally)
                if came is None
                else _from_pieces(came)
            )
            leaving = (
                _shifted_cycles(maps, "prev_drain", word_bits, b, tally)
                if left is None
                else _from_pieces(left)
            )
            s = hidden_max(compute, coming, leaving)
        # F(first) and D(last): the per-tile words at those two tiles
        first, last = maps.used_tiles.lexmin(), maps.used_tiles.lexmax()
        ends = _cycles(maps.words_at(maps.fill_words, first), word_bits, b) + _cycles(
            maps.words_at(maps.drain_words, last), word_bits, b
        )
    else:
        s = combine_pw_affs([compute, fill, drain], "union_add")
        ends = 0
    computed = sum_over(compute) if compute_cycles is None else compute_cycles
    return s, ends, sum_over(fill), sum_over(drain), computed


def _constant_pieces(f: isl.PwAff) -> list[tuple[isl.Set, int]] | None:
    """(domain, value) of each piece of f when every piece is a constant; else None."""
    out = []
    for domain, aff in f.get_pieces():
        if not aff.is_cst():
            return None
        out.append((domain, int(aff.get_constant_val().floor().to_python())))
    return out


def bound_by(total: int, step_cycles: int, time_steps: int, levels: tuple[LevelTime, ...]) -> str:
    """What binds the schedule: the level whose transfers outlast the compute of some tile,
    the one with the most such cycles (`stall_cycles − end_cycles`: the prologue and
    epilogue every pipeline pays are left out; innermost first on a tie); else "scratchpad
    port" when some step waits for its words (Σ_t cost(t) > |T_used|); else "compute"."""
    steady = [(level.stall_cycles - level.end_cycles, -n) for n, level in enumerate(levels)]
    if steady and max(steady)[0] > 0:
        return levels[-max(steady)[1]].name
    if step_cycles > time_steps:
        return "scratchpad port"
    return "compute"


def inner_sum(
    s: isl.PwAff | Raised, depth: int, tally: list[int], computed: int, wrapped: int
) -> isl.PwAff | None:
    """U -> Σ_{u in U} s(u) (`per_tile_total`), for s = C + excess piece by piece: Σ C is
    `computed`, Σ s is `wrapped`."""
    if not isinstance(s, Raised):
        return per_tile_total(s, depth, tally, wrapped)
    base = per_tile_total(s.compute, depth, tally, computed)
    extra = per_tile_total(_from_pieces(list(s.excess)), depth, tally, wrapped - computed)
    return combine_pw_affs([base, extra], "union_add")


def hierarchy_time(
    levels: list[tuple[LevelTraffic, LevelMaps]],
    arch: Arch,
    step_cost: isl.PwAff,
    step_cycles: int,
    time_steps: int,
) -> HierarchyTime | None:
    """The time through the hierarchy of the tiled levels (innermost first, as
    `level_traffic_maps` gives them) from the step cost cost(t) (a PwAff on the used time
    stamps, `schedule_time.step_counts_and_costs`); None when no level has a tile depth.
    `step_cycles` must be Σ_t cost(t) over those same stamps (`StepCounts.step_cycles`):
    it is taken as Σ_u C(u) of the innermost level."""
    if not levels:
        return None
    tally = [0, 0]
    by_name = {level.name: level for level in arch.levels}
    compute = per_tile_total(step_cost, levels[0][1].depth, tally, step_cycles)
    out: list[LevelTime] = []
    ends_total = 0
    s = compute
    wrapped = step_cycles  # Σ_u C(u) of the innermost level: every used step is in a tile
    computed = step_cycles
    for n, (traffic, maps) in enumerate(levels):
        if n:  # C(U) = Σ of the inner level's s over its tiles inside U
            compute = inner_sum(s, maps.depth, tally, computed, wrapped)
        b = by_name[traffic.above].bits_per_cycle(arch.clock_ghz)
        double = by_name[traffic.name].double_buffered
        s, ends, fills, drains, computed = _level_time(
            maps, compute, traffic.word_bits, b, double, tally, compute_cycles=wrapped
        )
        ends_total += ends
        if isinstance(s, Raised):
            wrapped = computed + sum(value * count(piece) for piece, value in s.excess)
        else:
            wrapped = computed if s is compute else sum_over(s)
        out.append(LevelTime(traffic.name, fills, drains, double, wrapped + ends - computed, ends))
    total = wrapped + ends_total
    chosen = tuple(out)
    return HierarchyTime(
        total, bound_by(total, step_cycles, time_steps, chosen), chosen, tally[0], tally[1]
    )
