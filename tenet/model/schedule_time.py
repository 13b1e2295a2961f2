"""Time that follows the schedule (docs/metrics.md, "Schedule time"), counted exactly.

The unique words of each step, in(t) and out(t), are the unique sets of `metrics.py` counted
with the time stamp as a parameter: barvinok's `card()` of { T[t] -> [PE[p] -> F[e]] } is a
piecewise quasi-polynomial in t. Where a piece is quasi-affine in t, its maximum is an integer
linear program (isl) and ceil(in(t) · word_bits / bandwidth_bits) is quasi-affine, so the sum
of the step costs over the piece is one more barvinok sum. Pieces of higher degree are the
only ones whose time points are enumerated (they are counted and reported).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import islpy as isl

from tenet.util.isl_util import maps_of, sets_of


@dataclass(frozen=True)
class StepCounts:
    """The per-step numbers of one analysis, all exact ints.

    peak_ingress = max_t in(t), peak_egress = max_t out(t), and
    step_cycles = Σ_{t ∈ T_used} max(1, ceil(in(t)·word_bits/bandwidth_bits),
    ceil(out(t)·word_bits/bandwidth_bits)). `pieces` is how many pieces in(t) and out(t)
    have; `enumerated_pieces` how many of them are not quasi-affine, and `enumerated_points`
    how many values of their time coordinates were enumerated to slice them."""

    peak_ingress: int
    peak_egress: int
    step_cycles: int
    pieces: int = 0
    enumerated_pieces: int = 0
    enumerated_points: int = 0


def step_cost(words_in: int, words_out: int, word_bits: int, bandwidth_bits: int) -> int:
    """max(1, ceil(in·word_bits/bandwidth_bits), ceil(out·word_bits/bandwidth_bits)): the
    cycles one step takes when its unique words must cross the scratchpad port."""
    return max(
        1, -(-words_in * word_bits // bandwidth_bits), -(-words_out * word_bits // bandwidth_bits)
    )


def per_step_words(fetched: Iterable[isl.UnionMap]) -> dict[str, isl.PwQPolynomial]:
    """t -> Σ_F |{ (p, e) : ((p, t), e) ∈ U_F }| for the unique sets U_F ([PE -> T] -> F) of
    one side, summed over tensors: one piecewise quasi-polynomial per time space (its name)."""
    by_time: isl.UnionMap | None = None
    for umap in fetched:
        for m in maps_of(umap):
            turned = isl.UnionMap.from_map(m.domain_reverse().curry())  # T -> [PE -> F]
            by_time = turned if by_time is None else by_time.union(turned)
    out: dict[str, isl.PwQPolynomial] = {}
    if by_time is None:
        return out
    pieces: list[isl.PwQPolynomial] = []
    by_time.card().foreach_pw_qpolynomial(pieces.append)
    for pw in pieces:
        name = pw.get_domain_space().get_tuple_name(isl.dim_type.set)
        out[name] = out[name].add(pw) if name in out else pw
    return out


def _value(val: isl.Val) -> int:
    return int(val.to_python())


def _points(domain: isl.Set) -> list[isl.Point]:
    points: list[isl.Point] = []
    domain.foreach_point(points.append)
    return points


def _constant(domain: isl.Set, value: isl.Val) -> isl.Aff:
    """The affine function equal to `value` on the space of `domain`."""
    zero = isl.Aff.zero_on_domain(isl.LocalSpace.from_space(domain.get_space()))
    return zero.set_constant_val(value)


def _slices(
    domain: isl.Set, qp: isl.QPolynomial, tally: list[int]
) -> list[tuple[isl.Set, isl.Aff]]:
    """A piece whose quasi-polynomial is not quasi-affine, as constant pieces: one per value
    of the time coordinates it involves (those values are enumerated, the other coordinates
    are not); tally: [pieces, points] enumerated."""
    n = domain.dim(isl.dim_type.set)
    involved = [i for i in range(n) if qp.involves_dims(isl.dim_type.in_, i, 1)]
    shadow = domain
    for i in reversed(range(n)):
        if i not in involved:
            shadow = shadow.project_out(isl.dim_type.set, i, 1)
    tally[0] += 1
    out = []
    for point in _points(shadow):
        tally[1] += 1
        piece = domain
        for k, i in enumerate(involved):
            piece = piece.fix_val(
                isl.dim_type.set, i, point.get_coordinate_val(isl.dim_type.set, k)
            )
        out.append((piece, _constant(domain, qp.eval(piece.sample_point()))))
    return out


def affine_pieces(pw: isl.PwQPolynomial | None, tally: list[int]) -> list[tuple[isl.Set, isl.Aff]]:
    """The pieces of in(t) or out(t) as (domain, quasi-affine function): quasi-affine pieces
    as they are, the others sliced into constants (`_slices`)."""
    out: list[tuple[isl.Set, isl.Aff]] = []
    for domain, qp in [] if pw is None else pw.get_pieces():
        if qp.isa_aff():
            out.append((domain, qp.as_aff()))
        else:
            out.extend(_slices(domain, qp, tally))
    return out


def peak(pieces: list[tuple[isl.Set, isl.Aff]]) -> int:
    """max_t of a piecewise quasi-affine function (0 when it has no piece): isl's integer
    maximum of each piece's function over its domain."""
    best = 0
    for domain, aff in pieces:
        if domain.is_empty():
            continue
        if aff.is_cst():  # a constant: its value (an integer, as every count is)
            best = max(best, _value(aff.get_constant_val().floor()))
            continue
        # isl maximises integer expressions: scale by the denominator (the count is an
        # integer at every point, so the maximum of d·a divided by d is exact)
        d = aff.get_denominator_val()
        top = _value(domain.max_val(aff.scale_val(d)))
        best = max(best, top // _value(d))
    return best


def _cycles(
    pieces: list[tuple[isl.Set, isl.Aff]], word_bits: int, bandwidth_bits: int
) -> isl.PwAff | None:
    """ceil(words(t) · word_bits / bandwidth_bits), piece by piece (quasi-affine; the pieces'
    domains are disjoint), leaving out the pieces where it is at most 1 everywhere."""
    parts = []
    constant: dict[int, isl.Set] = {}  # constant pieces (slices), grouped by their cycles
    for domain, aff in pieces:
        if aff.is_cst():
            cycles = step_cost(_value(aff.get_constant_val()), 0, word_bits, bandwidth_bits)
            if cycles > 1:
                constant[cycles] = constant[cycles].union(domain) if cycles in constant else domain
            continue
        if peak([(domain, aff)]) * word_bits <= bandwidth_bits:
            continue  # at most one cycle on this piece: the max(1, ...) already counts it
        scaled = aff.scale_val(isl.Val(word_bits)).scale_down_val(isl.Val(bandwidth_bits))
        parts.append(isl.PwAff.alloc(domain, scaled.ceil()))
    for cycles, domain in constant.items():
        parts.append(isl.PwAff.alloc(domain, _constant(domain, isl.Val(cycles))))
    return combine_pw_affs(parts, "union_add", tidy=False)


def combine_pw_affs(parts: list[isl.PwAff | None], how: str, tidy: bool = True) -> isl.PwAff | None:
    """parts[0] ∘ parts[1] ∘ ... with `how` = "union_add" or "union_max" (absent = 0 for
    a sum, no bound for a max), pairwise, so that no union grows one piece at a time; then
    coalesced unless `tidy` is False. None when there are no parts."""
    present = [p for p in parts if p is not None]
    while len(present) > 1:
        present = [
            getattr(present[n], how)(present[n + 1]) if n + 1 < len(present) else present[n]
            for n in range(0, len(present), 2)
        ]
    if not present:
        return None
    return present[0].coalesce() if tidy else present[0]


def _sum_over(pw_aff: isl.PwAff) -> int:
    """Σ_t f(t) over the domain of a quasi-affine f >= 0: |{ (t, c) : 0 <= c < f(t) }|
    (barvinok counts the points, nested floors included)."""
    from tenet.util.isl_util import count

    below = isl.Map("{ [x] -> [c] : 0 <= c < x }")
    total = 0
    for domain, aff in pw_aff.get_pieces():  # disjoint: counted one by one
        total += count(isl.Map.from_pw_aff(isl.PwAff.alloc(domain, aff)).apply_range(below))
    return total


def _total_cost(used: isl.Set, cycles_in: isl.PwAff | None, cycles_out: isl.PwAff | None) -> int:
    """Σ_{t ∈ used} max(1, X(t)) for X = max(cycles_in, cycles_out) (each >= 0 where defined,
    absent = 0): Σ_{dom X} X + |{t ∈ dom X : X(t) = 0}| + |used \\ dom X|."""
    from tenet.util.isl_util import count

    parts = [p.intersect_domain(used) for p in (cycles_in, cycles_out) if p is not None]
    if not parts:
        return count(used)
    busy = parts[0] if len(parts) == 1 else parts[0].union_max(parts[1])
    return _sum_over(busy) + count(busy.zero_set()) + count(used.subtract(busy.domain()))


def step_counts(
    time_domain: isl.UnionSet,
    words_in: dict[str, isl.PwQPolynomial],
    words_out: dict[str, isl.PwQPolynomial],
    word_bits: int,
    bandwidth_bits: int,
) -> StepCounts:
    """Peaks of in(t) and out(t) and Σ_t of the step cost over T_used (`time_domain`), from
    the per-step words of the read sides (`words_in`) and write sides (`words_out`), as
    `per_step_words` gives them."""
    return step_counts_and_costs(time_domain, words_in, words_out, word_bits, bandwidth_bits)[0]


def step_counts_and_costs(
    time_domain: isl.UnionSet,
    words_in: dict[str, isl.PwQPolynomial],
    words_out: dict[str, isl.PwQPolynomial],
    word_bits: int,
    bandwidth_bits: int,
) -> tuple[StepCounts, dict[str, isl.PwAff]]:
    """`step_counts`, and the step cost itself, cost(t) = max(1, ceil(in(t)·word_bits /
    bandwidth_bits), ceil(out(t)·word_bits / bandwidth_bits)), as one quasi-affine PwAff
    per time space (its name) defined on every used step (pieces that are not quasi-affine
    are sliced into constants, as for the sum)."""
    tally = [0, 0]
    n_pieces = sum(pw.n_piece() for pw in [*words_in.values(), *words_out.values()])
    peak_in = peak_out = cycles = 0
    costs: dict[str, isl.PwAff] = {}
    for used in sets_of(time_domain):
        name = used.get_tuple_name()
        pieces_in = affine_pieces(words_in.get(name), tally)
        pieces_out = affine_pieces(words_out.get(name), tally)
        peak_in = max(peak_in, peak(pieces_in))
        peak_out = max(peak_out, peak(pieces_out))
        cycles_in = _cycles(pieces_in, word_bits, bandwidth_bits)
        cycles_out = _cycles(pieces_out, word_bits, bandwidth_bits)
        cycles += _total_cost(used, cycles_in, cycles_out)
        costs[name] = _cost_function(used, cycles_in, cycles_out)
    return StepCounts(peak_in, peak_out, cycles, n_pieces, tally[0], tally[1]), costs


def _cost_function(
    used: isl.Set, cycles_in: isl.PwAff | None, cycles_out: isl.PwAff | None
) -> isl.PwAff:
    """t -> max(1, cycles_in(t), cycles_out(t)) on every step of `used` (absent = 0)."""
    out = isl.PwAff.alloc(used, _constant(used, isl.Val(1)))
    for part in (cycles_in, cycles_out):
        if part is not None:
            out = out.union_max(part.intersect_domain(used))
    return out.coalesce()


@dataclass(frozen=True)
class ProfilePiece:
    """One piece of in(t) or out(t): the time stamps it covers, its formula, and exact
    counts over it (steps, the busiest step's words, the words of all its steps)."""

    steps_set: str
    words: str
    steps: int
    peak: int
    total: int

    def to_dict(self) -> dict[str, object]:
        return {
            "steps_set": self.steps_set,
            "words": self.words,
            "steps": self.steps,
            "peak": self.peak,
            "total": self.total,
        }


def _first_stamp(piece: tuple[isl.Set, isl.QPolynomial]) -> tuple[int, ...]:
    """The lexicographically first time stamp of a piece (pieces are listed in time order)."""
    first = piece[0].lexmin().sample_point()
    n = first.get_space().dim(isl.dim_type.set)
    return tuple(_value(first.get_coordinate_val(isl.dim_type.set, i)) for i in range(n))


def profile_pieces(pw: isl.PwQPolynomial | None) -> list[ProfilePiece]:
    """The pieces of one side's per-step words, each with its exact counts: its steps
    |domain|, its busiest step and the words of all its steps (Σ over the piece, counted
    as the points (t, c) with 0 <= c < words(t))."""
    from tenet.util.isl_util import count

    out = []
    for domain, qp in sorted([] if pw is None else pw.get_pieces(), key=_first_stamp):
        affine = affine_pieces(isl.PwQPolynomial.alloc(domain, qp), [0, 0])
        formula = str(isl.PwQPolynomial.alloc(isl.Set.universe(domain.get_space()), qp))
        out.append(
            ProfilePiece(
                steps_set=str(domain),
                words=_formula_text(formula),
                steps=count(domain),
                peak=peak(affine),
                total=sum(_sum_over(isl.PwAff.alloc(d, a)) for d, a in affine),
            )
        )
    return out


@dataclass(frozen=True)
class StepProfile:
    """in(t) (reads) and out(t) (writes), piece by piece: `analyze --profile`."""

    ingress: list[ProfilePiece]
    egress: list[ProfilePiece]

    @classmethod
    def of(
        cls, words_in: dict[str, isl.PwQPolynomial], words_out: dict[str, isl.PwQPolynomial]
    ) -> StepProfile:
        return cls(
            [p for pw in words_in.values() for p in profile_pieces(pw)],
            [p for pw in words_out.values() for p in profile_pieces(pw)],
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "ingress": [p.to_dict() for p in self.ingress],
            "egress": [p.to_dict() for p in self.egress],
        }


def _formula_text(text: str) -> str:
    """`{ T[i0, i1] -> (2 + 3 * i1) }` -> `2 + 3 * i1` (the quasi-polynomial alone)."""
    inner = text.strip()
    if inner.startswith("{") and inner.endswith("}"):
        inner = inner[1:-1].strip()
    if "->" in inner:
        inner = inner.split("->", 1)[1].strip()
    if ":" in inner:
        inner = inner.split(":", 1)[0].strip()
    if inner.startswith("(") and inner.endswith(")"):
        inner = inner[1:-1]
    return inner
