"""Proven lower bounds on backing-store accesses for one einsum, under every schedule.

The model (docs/bounds.md, "Lower bounds"): one PE, a buffer of S words, a backing store;
every MAC runs once; an input word is fetched into the buffer (1 access) or read directly
for one MAC (bypass, 1 access); each output word has one partial sum, whose first fill is
free and every later fill is a read, and every fill ends with a write. Q counts them all.

Segment bound. Count *arrivals*: input fetches, bypassed input reads, partial-sum reads and
first touches. There are R = Q - (writes - |O|) <= Q of them. Cut the run into segments as
soon as a segment holds t arrivals, never inside a MAC (a MAC brings its bypassed words with
it, at most J for J tensors): every segment but the last holds a in [t, t + J - 1] arrivals,
the last fewer than t. A segment's MACs use at most S + a distinct tensor words, so run at
most F(S + a) MACs. Hence, for every t >= 1,

    Q >= R >= rho_t * (MACs - F(S + t + J - 1)),   rho_t = min_{t <= a < t+J} a / F(S + a)
    Q >= R >= t * (ceil(MACs / F(S + t + J - 1)) - 1).

F comes from the fractional Shearer (discrete Hölder-Brascamp-Lieb) inequality for
coordinate projections, with rank sizes as extra factors (Dinh and Demmel's arbitrary
bounds), and, for convolutions, with some ranks fixed so that every tensor's index is an
injective map of its remaining ranks (fibres summed with Hölder's inequality):

    |V| <= N^max(0, 1 - tau) * prod_r L_r^max(0, 1 - cover_r) * prod_j |phi_j(V)|^s_j

plus, when the einsum is not projective, geometric means of |V| <= prod_{j in T} |phi_j(V)|
over sets T of tensors whose words together determine the MAC; then the weighted AM-GM
inequality bounds prod_j x_j^s_j under sum_j x_j <= X. Every value is
an exact integer: rational exponents are cleared by a common denominator D and the bound is
the integer D-th root of an exact rational.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache
from math import comb, isqrt, lcm, prod
from typing import Any

from tenet.bounds.snowcat import BoundTensor, Problem

# --- exact helpers --------------------------------------------------------------------------


def iroot(value: int, degree: int) -> int:
    """floor(value ** (1/degree)) for value >= 0, exactly (integer Newton iteration)."""
    if value < 0 or degree < 1:
        raise ValueError("iroot needs value >= 0 and degree >= 1")
    if degree == 1 or value < 2:
        return value
    if degree == 2:
        return isqrt(value)
    guess = 1 << -(-value.bit_length() // degree)  # >= the root
    while True:
        better = ((degree - 1) * guess + value // guess ** (degree - 1)) // degree
        if better >= guess:
            break
        guess = better
    while guess**degree > value:
        guess -= 1
    while (guess + 1) ** degree <= value:
        guess += 1
    return guess


def _rank(rows: list[list[Fraction]]) -> int:
    """Rank of a small rational matrix (Gaussian elimination over Q)."""
    rows = [list(r) for r in rows if any(r)]
    rank, col = 0, 0
    width = len(rows[0]) if rows else 0
    while rank < len(rows) and col < width:
        pivot = next((i for i in range(rank, len(rows)) if rows[i][col]), None)
        if pivot is None:
            col += 1
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        for i in range(len(rows)):
            if i != rank and rows[i][col]:
                factor = rows[i][col] / rows[rank][col]
                rows[i] = [a - factor * b for a, b in zip(rows[i], rows[rank])]
        rank, col = rank + 1, col + 1
    return rank


def _solve(matrix: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction] | None:
    """The unique solution of a square rational system, or None when it is singular."""
    n = len(matrix)
    rows = [list(matrix[i]) + [rhs[i]] for i in range(n)]
    for col in range(n):
        pivot = next((i for i in range(col, n) if rows[i][col]), None)
        if pivot is None:
            return None
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for i in range(n):
            if i != col and rows[i][col]:
                factor = rows[i][col] / rows[col][col]
                rows[i] = [a - factor * b for a, b in zip(rows[i], rows[col])]
    return [rows[i][n] / rows[i][i] for i in range(n)]


def _used_ranks(tensor: BoundTensor) -> frozenset[int]:
    return frozenset(r for dim in tensor.dims for r, a in enumerate(dim) if a)


def _injective(tensor: BoundTensor, ranks: Iterable[int]) -> bool:
    """The tensor's index, as a map of `ranks` (others held fixed), is one-to-one:
    its coefficient columns on those ranks are linearly independent."""
    ranks = sorted(ranks)
    if not ranks:
        return True
    rows = [[Fraction(dim[r]) for r in ranks] for dim in tensor.dims]
    return _rank(rows) == len(ranks)


def is_projective(problem: Problem) -> bool:
    """Every index of every tensor is one rank with coefficient 1, or a constant (a rank of
    size 1 that isl folded away): GEMM, BMM, MTTKRP, contractions, attention products."""
    return all(set(dim) <= {0, 1} and sum(dim) <= 1 for t in problem.tensors for dim in t.dims)


# --- views and exponent vertices ------------------------------------------------------------


@dataclass(frozen=True)
class View:
    """Ranks held fixed (R'); per tensor, the free ranks it uses (E_j), and whether its
    words determine the fixed ranks (so fibres use disjoint words of it)."""

    fixed: tuple[int, ...]
    uses: tuple[frozenset[int], ...]
    separating: tuple[bool, ...]


@dataclass(frozen=True)
class Candidate:
    """One exponent vector s of one view (or, with no view, a mix of injective tensor sets):
    |V| <= value(X) for every V whose tensor words add up to at most X, with
    value(X)^D = ratio * X^(sigma*D)."""

    view: View | None
    s: tuple[Fraction, ...]
    sigma: Fraction
    denominator: int  # D
    ratio: Fraction  # N^((1-tau)+ D) * prod L_r^((1-cover_r)+ D) * prod (s_j/sigma)^(s_j D)

    def macs_within(self, words: int) -> int:
        """floor(value(words)): most MACs that can use at most `words` tensor words."""
        power = self.ratio.numerator * words**self.exponent
        return iroot(power // self.ratio.denominator, self.denominator)

    @property
    def exponent(self) -> int:
        """sigma * D, an integer."""
        return self.sigma.numerator * (self.denominator // self.sigma.denominator)

    def never_above(self, other: Candidate) -> bool:
        """value(X) <= other's value(X) for every X >= 1: no larger exponent and no larger
        constant (ratio^(1/D) compared exactly as ratio^D' <= other.ratio^D)."""
        return (
            self.sigma <= other.sigma
            and self.ratio**other.denominator <= other.ratio**self.denominator
        )


def views(problem: Problem, limit: int = 8) -> list[View]:
    """The minimal sets of fixed ranks that leave every tensor's index injective in its
    free ranks (only the empty set for projective einsums)."""
    n = len(problem.ranks)
    used = [_used_ranks(t) for t in problem.tensors]
    found: list[tuple[int, ...]] = []
    for size in range(n + 1):
        for fixed in itertools.combinations(range(n), size):
            if any(set(f) <= set(fixed) for f in found):
                continue
            if all(_injective(t, u - set(fixed)) for t, u in zip(problem.tensors, used)):
                found.append(fixed)
        if len(found) >= limit:
            break
    out = []
    for fixed in found[:limit]:
        uses = tuple(frozenset(u - set(fixed)) for u in used)
        separating = tuple(
            set(fixed) <= u and _injective(t, u) for t, u in zip(problem.tensors, used)
        )
        out.append(View(fixed, uses, separating))
    return out


_MAX_PLANE_CHOICES = 20_000  # about a second of exact 6 x 6 solves


def _vertices(view: View, n_ranks: int) -> list[tuple[Fraction, ...]]:
    """Vertices of the arrangement {s_j = 0}, {s_j = 1}, {cover_r(s) = 1},
    {tau(s) = 1} inside [0, 1]^J: the bound's log is linear between them, apart from the
    AM-GM factor prod (s_j/sigma)^s_j <= 1."""
    n_tensors = len(view.uses)
    planes: list[tuple[tuple[Fraction, ...], Fraction]] = []
    for j in range(n_tensors):
        unit = tuple(Fraction(int(i == j)) for i in range(n_tensors))
        planes += [(unit, Fraction(0)), (unit, Fraction(1))]
    free = [r for r in range(n_ranks) if r not in view.fixed]
    for r in free:
        planes.append((tuple(Fraction(int(r in u)) for u in view.uses), Fraction(1)))
    if view.fixed:
        planes.append((tuple(Fraction(int(sep)) for sep in view.separating), Fraction(1)))
    planes = [p for p in dict.fromkeys(planes) if any(p[0])]
    if comb(len(planes), n_tensors) > _MAX_PLANE_CHOICES:
        return []  # too many tensors and ranks to enumerate; the mixes stand in
    found: dict[tuple[Fraction, ...], None] = {}
    for chosen in itertools.combinations(planes, n_tensors):
        s = _solve([list(p[0]) for p in chosen], [p[1] for p in chosen])
        if s is not None and all(0 <= x <= 1 for x in s):
            found[tuple(s)] = None
    return list(found)


def _candidate(view: View, s: tuple[Fraction, ...], sizes: list[int]) -> Candidate:
    sigma = sum(s, Fraction(0))
    tau = sum((x for x, sep in zip(s, view.separating) if sep), Fraction(0))
    fibre = max(Fraction(0), 1 - tau)
    free = [r for r in range(len(sizes)) if r not in view.fixed]
    rank_exponents = {
        r: max(Fraction(0), 1 - sum((x for x, u in zip(s, view.uses) if r in u), Fraction(0)))
        for r in free
    }
    exponents = [*s, sigma, fibre, *rank_exponents.values()]
    denominator = lcm(*(e.denominator for e in exponents))
    ratio = Fraction(prod(sizes[r] for r in view.fixed)) ** int(fibre * denominator)
    for r, e in rank_exponents.items():
        ratio *= Fraction(sizes[r]) ** int(e * denominator)
    for x in s:
        if x:
            ratio *= (x / sigma) ** int(x * denominator)
    return Candidate(view, s, sigma, denominator, ratio)


def injective_sets(problem: Problem, limit: int = 12) -> list[frozenset[int]]:
    """The minimal sets T of tensors whose words together determine the MAC (their stacked
    coefficient rows have full column rank), so |V| <= prod_{j in T} |phi_j(V)|."""
    n_ranks, n_tensors = len(problem.ranks), len(problem.tensors)
    found: list[frozenset[int]] = []
    for size in range(1, n_tensors + 1):
        for members in itertools.combinations(range(n_tensors), size):
            if any(f <= set(members) for f in found):
                continue
            rows = [[Fraction(a) for a in dim] for j in members for dim in problem.tensors[j].dims]
            if rows and _rank(rows) == n_ranks:
                found.append(frozenset(members))
    return found[:limit]


def _mixtures(problem: Problem) -> list[tuple[Fraction, ...]]:
    """Equal-weight mixes of up to three injective sets: the geometric mean of valid bounds
    |V| <= prod_{j in T} |phi_j(V)| is valid, with the mean of their exponent vectors
    (the three pairs of a 1-D convolution give (2/3, 2/3, 2/3))."""
    n_tensors = len(problem.tensors)
    sets = injective_sets(problem)
    out = []
    for k in range(1, min(3, len(sets)) + 1):
        for family in itertools.combinations(sets, k):
            out.append(tuple(Fraction(sum(j in t for t in family), k) for j in range(n_tensors)))
    return out


def _mixture_candidate(s: tuple[Fraction, ...]) -> Candidate:
    sigma = sum(s, Fraction(0))
    denominator = lcm(*(e.denominator for e in (*s, sigma)))
    ratio = Fraction(1)
    for x in s:
        if x:
            ratio *= (x / sigma) ** int(x * denominator)
    return Candidate(None, s, sigma, denominator, ratio)


@lru_cache(maxsize=256)
def _candidates_for(key: tuple) -> tuple[Candidate, ...]:
    problem = _problem_from_key(key)
    out = []
    for view in views(problem):
        for s in _vertices(view, len(problem.ranks)):
            out.append(_candidate(view, s, problem.sizes))
    if not is_projective(problem) or not out:  # Shearer's vertices already include them
        out.extend(_mixture_candidate(s) for s in _mixtures(problem))
    # Keep only candidates that no other candidate stays at or below for every X.
    kept: list[Candidate] = []
    for c in sorted(out, key=lambda c: (c.sigma, c.denominator, c.ratio)):
        if not any(k.never_above(c) for k in kept):
            kept.append(c)
    return tuple(kept)


@lru_cache(maxsize=256)
def _algorithmic_minimum(key: tuple) -> int:
    """Problem.algorithmic_minimum (exact isl counts), once per einsum and shape."""
    return _problem_from_key(key).algorithmic_minimum


def _key(problem: Problem) -> tuple:
    return (
        tuple(problem.sizes),
        tuple((t.name, t.dims, t.output) for t in problem.tensors),
    )


def _problem_from_key(key: tuple) -> Problem:
    sizes, tensors = key
    return Problem(
        "key",
        [f"r{i}" for i in range(len(sizes))],
        list(sizes),
        [BoundTensor(name, dims, output) for name, dims, output in tensors],
    )


# --- the bounds -----------------------------------------------------------------------------


def macs_within(problem: Problem, words: int) -> int:
    """F(words): a proven upper bound on the MACs any set of MACs can run when it uses at
    most `words` distinct tensor words in total (min over views, exponent vertices and
    mixes of injective tensor sets)."""
    macs = problem.macs
    best = macs
    for candidate in _candidates_for(_key(problem)):
        best = min(best, candidate.macs_within(words))
    return best


def segment_bound(macs: int, segment: int, per_segment: int) -> int:
    """t * (ceil(MACs / F) - 1): the arrivals forced when every segment of at least t
    arrivals runs at most F MACs."""
    if per_segment <= 0:
        return 0
    return segment * (-(-macs // per_segment) - 1)


def gemm_bound(m: int, n: int, k: int, buffer_words: int) -> int:
    """2S' * (ceil(MNK / floor(S'^(3/2))) - 1) >= 2MNK/sqrt(S') - 2S' with S' = S + 2:
    segments of t = 2S' arrivals see at most S + t + 2 = 3S' words, and Loomis-Whitney with
    AM-GM caps them at S'^(3/2) MACs."""
    s = buffer_words + 2
    return segment_bound(m * n * k, 2 * s, isqrt(s**3))


_EXACT_RATIO_BELOW = 256  # segment lengths up to which rho_t is found exactly


@cache
def _grid_point(i: int) -> int:
    """floor(2^(i/8)), computed once per i (every lower bound walks the grid from i = 0)."""
    return iroot(1 << i, 8)


def _segment_grid(lowest: int) -> Iterable[int]:
    """Segment lengths t to try: the fixed grid floor(2^(i/8)), i = 0, 1, ..., from the first
    point >= `lowest` on. The grid does not depend on S, so the bound never rises with S."""
    i, previous = 0, 0
    while True:
        t = _grid_point(i)
        if t != previous and t >= lowest:
            yield t
        previous, i = t, i + 1


def lower_bound(problem: Problem, buffer_words: int) -> int:
    """A proven floor on backing-store accesses for ANY schedule of the einsum with a buffer
    of `buffer_words` words, counted as tenet counts them (docs/bounds.md, Lower bounds):
    the largest of the algorithmic minimum, the segment bound at the best t of a fixed grid,
    and for a matrix product the closed form of gemm_bound."""
    if buffer_words < 0:
        raise ValueError("buffer_words must be >= 0")
    best = _algorithmic_minimum(_key(problem))
    macs = problem.macs
    if is_matrix_product_gemm(problem):
        # t = 2S + 4 exactly (the grid below may miss it by up to 0.1%); not on the fixed
        # grid, so between neighbouring sizes this term may rise by a relative 1/(S + 2).
        m, n, k = problem.sizes
        best = max(best, gemm_bound(m, n, k, buffer_words))
    if not segment_bound_applies(problem):
        return best
    candidates = _candidates_for(_key(problem))
    extra = len(problem.tensors) - 1  # a MAC's bypassed words beyond the t-th arrival
    known: dict[int, int] = {}

    def capacity(words: int) -> int:
        if words not in known:
            known[words] = min([macs] + [c.macs_within(words) for c in candidates])
        return known[words]

    # Any t gives a valid bound; t/(S + t)^sigma peaks at t = S/(sigma - 1) >= S/16 when
    # sigma <= 17, and a lower end that grows with S keeps the bound from rising with S.
    for t in _segment_grid(max(1, buffer_words // 16)):
        top = capacity(buffer_words + t + extra)
        if top >= macs:
            break  # one segment holds every MAC, and so for every longer t
        best = max(best, segment_bound(macs, t, top))
        if t <= _EXACT_RATIO_BELOW:
            ratio = min(
                Fraction(a, capacity(buffer_words + a))
                for a in range(t, t + extra + 1)
                if capacity(buffer_words + a)
            )
        else:
            ratio = Fraction(t, top)  # <= a / F(S + a) for every a in [t, t + J - 1]
        forced = ratio * (macs - top)
        best = max(best, -(-forced.numerator // forced.denominator))
    return best


def is_matrix_product_gemm(problem: Problem) -> bool:
    """A projective matrix product: three ranks, three tensors, each tensor indexed by two
    distinct ranks and each rank indexing exactly two tensors (so s = 1/2 covers it)."""
    if not (is_projective(problem) and len(problem.ranks) == 3 and len(problem.tensors) == 3):
        return False
    used = [_used_ranks(t) for t in problem.tensors]
    return all(len(u) == 2 for u in used) and all(sum(r in u for u in used) == 2 for r in range(3))


def hbl_exponents(problem: Problem, view: View | None = None) -> tuple[Fraction, ...] | None:
    """The Christ-Demmel-Knight-Scanlon-Yelick LP: minimize sum s_j over s in [0, 1]^J with
    sum_{j uses r} s_j >= 1 for every (free) rank r; exact, by vertex enumeration. Ties go
    to the lexicographically smallest s. None when some rank is in no tensor."""
    view = view or views(problem)[0]
    free = [r for r in range(len(problem.ranks)) if r not in view.fixed]
    feasible = [
        s
        for s in _vertices(view, len(problem.ranks))
        if all(sum((x for x, u in zip(s, view.uses) if r in u), Fraction(0)) >= 1 for r in free)
    ]
    if not feasible:
        return None
    return min(feasible, key=lambda s: (sum(s), s))


def segment_bound_applies(problem: Problem) -> bool:
    """False when every tensor's index is one-to-one in all the ranks (each word feeds one
    MAC, as in an elementwise product): bypassing everything then moves every word once,
    so the algorithmic minimum is attained at every buffer size and is the whole answer."""
    n_ranks = len(problem.ranks)
    return not all(_injective(t, range(n_ranks)) for t in problem.tensors)


def lower_bound_basis(problem: Problem) -> dict[str, Any]:
    """JSON-able: which theorem gives the bound, the HBL exponents, the conditions."""
    projective = is_projective(problem)
    gemm = is_matrix_product_gemm(problem)
    all_views = views(problem)
    entries = []
    for view in all_views:
        s = hbl_exponents(problem, view)
        entries.append(
            {
                "fixed_ranks": [problem.ranks[r] for r in view.fixed],
                "separating": [t.name for t, sep in zip(problem.tensors, view.separating) if sep],
                "hbl_exponents": (
                    {t.name: str(x) for t, x in zip(problem.tensors, s)} if s else None
                ),
                "hbl_sum": str(sum(s, Fraction(0))) if s else None,
            }
        )
    segment = segment_bound_applies(problem)
    if not segment:
        theorem = (
            "algorithmic minimum only, and attained: every word feeds exactly one MAC, so "
            "bypassing everything moves each word once at any buffer size"
        )
    elif projective:
        theorem = "segment bound with the HBL/Shearer inequality (projective)"
    else:
        theorem = "segment bound with the HBL/Shearer inequality on fibres of fixed ranks"
    return {
        "theorem": theorem,
        "projective": projective,
        "matrix_product": gemm,
        "gemm_constant": gemm,
        "gemm_statement": (
            "Q >= 2S'*(ceil(MNK/floor(S'^(3/2))) - 1) >= 2MNK/sqrt(S') - 2S', S' = S + 2"
            if gemm
            else None
        ),
        "views": entries if segment else [],
        "injective_sets": (
            [[problem.tensors[j].name for j in sorted(t)] for t in injective_sets(problem)]
            if segment and not projective
            else []
        ),
        "statement": (
            "Q >= max(sum of tensor sizes, max over t >= 1 of t*(ceil(MACs/F(S+t+J-1)) - 1), "
            "rho_t*(MACs - F(S+t+J-1))), rho_t = min over t <= a < t+J of a/F(S+a); "
            "F(X) = min over views and exponent vertices s (and, if not projective, mixes of "
            "injective tensor sets) of "
            "N^max(0,1-tau) * prod_r L_r^max(0,1-cover_r) * prod_j (s_j X/sigma)^s_j"
        ),
        "assumptions": [
            "every MAC runs exactly once (no recomputation)",
            "the buffer holds at most S words, each a word of an operand or one output partial sum",
            (
                "each output word has one partial sum; its first fill is free, every later "
                "fill is a read, every fill ends with a write (2W - |O|)"
            ),
            (
                "a bypassed operand costs one access per MAC (a bypassed output two, one on "
                "its first touch)"
            ),
            "each operand is its own tensor (a tensor read twice is charged twice)",
        ],
    }
