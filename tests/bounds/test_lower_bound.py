"""Proven lower bounds (tenet.bounds.lower_bound): the HBL exponents worked by hand, the GEMM
closed form recomputed independently, exact integers on huge shapes, and every front point
of every mapping space on or above the bound over many random shapes."""

from __future__ import annotations

import itertools
import json
import random
from fractions import Fraction
from math import prod
from pathlib import Path

import pytest

from tenet import load_workload
from tenet.bounds.lower_bound import (
    gemm_bound,
    hbl_exponents,
    iroot,
    is_matrix_product_gemm,
    is_projective,
    lower_bound,
    lower_bound_basis,
    macs_within,
    views,
)
from tenet.bounds.snowcat import evaluate, problem_from_einsum, problem_from_workload
from tenet.bounds.uneven import search_front

GEMM = "Z[m,n] += A[m,k] * B[k,n]"
BMM = "Z[b,m,n] += A[b,m,k] * B[b,k,n]"
MTTKRP = "O[i,r] += X[i,j,k] * B[j,r] * C[k,r]"
CONTRACTION = "O[a,b,c,d] += A[a,b,e,f] * B[e,f,c,d]"
CHAIN3 = "O[i,j] += A[i,k] * B[k,l] * C[l,j]"
ATTENTION = "S[h,m,n] += Q[h,m,d] * K[h,n,d]"
CONV = "O[n,k,p,q] += I[n,c,{s}*p+{d}*r,{s}*q+{d}*s] * W[k,c,r,s]"
CONV1D = "O[p] += I[{s}*p+{d}*r] * W[r]"

half, third = Fraction(1, 2), Fraction(1, 3)


def floor_root(value: Fraction, degree: int) -> int:
    """floor(value^(1/degree)) by bisection on integers (independent of iroot)."""
    low, high = 0, 1
    while Fraction(high) ** degree <= value:
        high *= 2
    while high - low > 1:
        mid = (low + high) // 2
        if Fraction(mid) ** degree <= value:
            low = mid
        else:
            high = mid
    return low


def test_iroot_is_the_exact_floor_root():
    rng = random.Random(7)
    for _ in range(300):
        degree = rng.randint(1, 9)
        value = rng.randint(0, 10 ** rng.randint(1, 80))
        root = iroot(value, degree)
        assert root**degree <= value < (root + 1) ** degree


# --- HBL exponents worked by hand ----------------------------------------------------------


@pytest.mark.parametrize(
    "einsum, shape, expected",
    [
        # each rank in two of A, B, Z: s_A + s_B, s_A + s_Z, s_B + s_Z >= 1 -> 1/2 each, sum 3/2
        (GEMM, {"m": 4, "k": 4, "n": 4}, (half, half, half)),
        # b in all three changes nothing: the same three pair constraints
        (BMM, {"b": 2, "m": 4, "k": 4, "n": 4}, (half, half, half)),
        # s_X = a, the others >= 1 - a and their sum >= 1: min a + max(1, 3 - 3a) at a = 2/3
        (MTTKRP, {"i": 4, "j": 4, "k": 4, "r": 4}, (2 * third, third, third, third)),
        # (a,b), (e,f), (c,d) grouped: a GEMM over three groups
        (CONTRACTION, {r: 2 for r in "abcdef"}, (half, half, half)),
        # attention scores Q.K^T: a batched GEMM (h in all three)
        (ATTENTION, {"h": 2, "m": 4, "n": 4, "d": 4}, (half, half, half)),
    ],
)
def test_hbl_exponents_by_hand(einsum, shape, expected):
    problem = problem_from_einsum(einsum, shape)
    assert is_projective(problem)
    assert views(problem)[0].fixed == ()
    assert hbl_exponents(problem) == expected
    basis = lower_bound_basis(problem)
    json.dumps(basis)
    assert basis["views"][0]["hbl_sum"] == str(sum(expected))
    assert basis["projective"] and "projective" in basis["theorem"]


def test_a_folded_rank_of_size_one_stays_projective():
    # attention-mha has X = 1 query per group; isl turns the index x into the constant 0
    workload = load_workload(Path(__file__).parents[2] / "workloads/attention-mha/workload.yaml")
    problem = problem_from_workload(workload)
    assert (0, 0, 0, 0, 0) in problem.tensors[0].dims
    assert is_projective(problem)
    assert lower_bound_basis(problem)["theorem"].endswith("(projective)")


def test_hbl_sum_of_a_three_matrix_chain_is_two():
    # s_A + s_O >= 1 (i) and s_B + s_C >= 1 (l) already force a sum of 2; (1/2,...) attains it
    problem = problem_from_einsum(CHAIN3, {r: 3 for r in "ijkl"})
    s = hbl_exponents(problem)
    assert sum(s) == 2
    a, b, c, o = s  # tensors in order A, B, C, O
    assert a + o >= 1 and a + b >= 1 and b + c >= 1 and c + o >= 1


def test_convolution_views_fix_a_rank_of_each_window():
    problem = problem_from_einsum(
        CONV.format(s=2, d=1), {"n": 1, "k": 4, "c": 4, "p": 4, "q": 4, "r": 3, "s": 3}
    )
    assert not is_projective(problem)
    fixed = {tuple(problem.ranks[r] for r in v.fixed) for v in views(problem)}
    # I[c, 2p + r, ...] is one-to-one in its free ranks only once p or r (and q or s) is fixed
    assert fixed == {("p", "q"), ("p", "s"), ("q", "r"), ("r", "s")}
    basis = lower_bound_basis(problem)
    json.dumps(basis)
    by_fixed = {tuple(v["fixed_ranks"]): v for v in basis["views"]}
    assert by_fixed[("r", "s")]["separating"] == ["W"]  # W[k,c,r,s] tells (r,s) apart
    assert by_fixed[("p", "q")]["separating"] == ["O"]
    assert by_fixed[("r", "s")]["hbl_sum"] == "3/2"  # with (r,s) fixed: a GEMM over (npq,k,c)


def words_used(problem, macs) -> int:
    """Distinct words of every tensor that a set of MACs touches (brute force)."""
    return sum(
        len({tuple(sum(a * v for a, v in zip(dim, mac)) for dim in t.dims) for mac in macs})
        for t in problem.tensors
    )


@pytest.mark.parametrize(
    "einsum, shape",
    [
        (GEMM, {"m": 4, "k": 3, "n": 5}),
        (MTTKRP, {"i": 3, "j": 3, "k": 2, "r": 3}),
        (CHAIN3, {r: 3 for r in "ijkl"}),
        (CONV1D.format(s=2, d=1), {"p": 6, "r": 3}),
        (CONV1D.format(s=1, d=2), {"p": 6, "r": 4}),
        (
            "O[k,p,q] += I[c,2*p+r,2*q+s] * W[k,c,r,s]",
            {"k": 2, "c": 2, "p": 3, "q": 2, "r": 3, "s": 2},
        ),
        ("O[c,p,q] += I[c,p+2*r,q+s] * W[c,r,s]", {"c": 2, "p": 4, "q": 3, "r": 2, "s": 3}),
    ],
)
def test_no_sampled_mac_set_beats_the_segment_capacity(einsum, shape):
    # |V| <= F(words V uses), for random subsets, boxes and scattered products of the MACs
    problem = problem_from_einsum(einsum, shape)
    rng = random.Random(5)
    points = list(itertools.product(*[range(n) for n in problem.sizes]))
    for trial in range(600):
        if trial % 3 == 0:
            macs = rng.sample(points, rng.randint(1, len(points)))
        else:
            sides = []
            for n in problem.sizes:
                if trial % 3 == 1:
                    low = rng.randrange(n)
                    sides.append(range(low, rng.randint(low, n - 1) + 1))
                else:
                    sides.append(rng.sample(range(n), rng.randint(1, n)))
            macs = list(itertools.product(*sides))
        assert len(macs) <= macs_within(problem, words_used(problem, macs))


# --- closed forms --------------------------------------------------------------------------


def gemm_by_hand(m: int, n: int, k: int, s: int) -> int:
    """2S'(ceil(MNK / floor(S'^1.5)) - 1) with S' = S + 2, written out independently."""
    s2 = s + 2
    root = floor_root(Fraction(s2**3), 2)
    segments = (m * n * k + root - 1) // root
    return 2 * s2 * (segments - 1)


@pytest.mark.parametrize(
    "m, n, k, s, expected",
    [
        # S' = 102: floor(102^1.5) = 1030 (1030^2 = 1,060,900 <= 102^3 = 1,061,208 < 1031^2);
        # ceil(262,144 / 1030) = 255; 204 * 254 = 51,816
        (64, 64, 64, 100, 51_816),
        # S' = 3: floor(3^1.5) = 5; ceil(262,144 / 5) = 52,429; 6 * 52,428 = 314,568
        (64, 64, 64, 1, 314_568),
        # S' = 4098: floor(4098^1.5) = 262,336 >= MNK, one segment: the formula gives 0
        (64, 64, 64, 4096, 0),
    ],
)
def test_gemm_closed_form(m, n, k, s, expected):
    assert gemm_bound(m, n, k, s) == gemm_by_hand(m, n, k, s) == expected
    problem = problem_from_einsum(GEMM, {"m": m, "k": k, "n": n})
    # lower_bound tries t on a fixed grid (ratio 2^(1/8)), not exactly 2S': within 0.1%
    bound = lower_bound(problem, s)
    assert 1000 * bound >= 999 * expected and bound >= 3 * 64 * 64


@pytest.mark.parametrize("s", [1, 2, 7, 63, 64, 255, 1000, 4095, 65_537])
def test_gemm_bound_is_at_least_two_mnk_over_root_s_minus_2s(s):
    m, n, k = 1024, 768, 512
    problem = problem_from_einsum(GEMM, {"m": m, "k": k, "n": n})
    bound = lower_bound(problem, s)
    assert 1000 * bound >= 999 * gemm_by_hand(m, n, k, s)
    s2 = s + 2
    # bound >= 0.999 * 2MNK/sqrt(S') - 2S'  <=>  (1000 (bound + 2S'))^2 S' >= (999 * 2MNK)^2
    assert (1000 * (bound + 2 * s2)) ** 2 * s2 >= (999 * 2 * m * n * k) ** 2


def test_a_diagonal_operand_is_not_a_matrix_product():
    # A[m,m] puts m in two dims of one tensor: s = 1/2 would cover m only by half, so the
    # GEMM closed form must not apply (the general bound still does)
    problem = problem_from_einsum("O[n,k] += A[m,m] * B[n,k]", {"m": 8, "n": 8, "k": 8})
    assert problem.is_matrix_product() and not is_matrix_product_gemm(problem)
    assert hbl_exponents(problem) == (1, 0, 1)  # A covers m, and B or O covers n and k
    result = evaluate(problem, bypass=True)
    assert_above(problem, [(int(result.buffer[i]), int(result.accesses[i])) for i in result.front])


def test_mttkrp_segment_capacity_by_hand():
    # s = (2/3, 1/3, 1/3, 1/3), sigma = 5/3: F(X) = (2X/5)^(2/3) * (X/5)^(3*1/3)
    #   = (4 X^5 / 5^5)^(1/3), the least over the vertices when every rank is huge
    problem = problem_from_einsum(MTTKRP, {r: 10**6 for r in "ijkr"})
    for x in (1000, 12_345, 10**6 + 7):
        assert macs_within(problem, x) == floor_root(Fraction(4 * x**5, 5**5), 3)


def test_one_dimensional_convolution_capacity_by_hand():
    # O[p] += I[p+r] * W[r]: any two of the three words fix (p, r), so |V| <= x_O x_W,
    # x_I x_W and x_I x_O; their geometric mean has s = (2/3, 2/3, 2/3), and AM-GM gives
    # F(X) = (X/3)^2 (the CDKSY exponents of this convolution). Huge ranks keep the other
    # candidates, which carry a rank size, above it.
    problem = problem_from_einsum(CONV1D.format(s=1, d=1), {"p": 10**6, "r": 10**6})
    basis = lower_bound_basis(problem)
    assert sorted(basis["injective_sets"]) == [["I", "O"], ["I", "W"], ["W", "O"]]
    for x in (3000, 3001, 123_456):
        assert macs_within(problem, x) == floor_root(Fraction(x * x, 9), 1)


def test_issue_64_cube_schedule_is_above_the_bound():
    # [A] n:64 [B] m:64 [Z] k:64 moves 3 * 4096 = 12,288 words with 4,096 + 64 + 1 words
    problem = problem_from_einsum(GEMM, {"m": 64, "k": 64, "n": 64})
    assert lower_bound(problem, 4096 + 64 + 1) <= 12_288
    # the bound never drops below the algorithmic minimum, so here it is exactly that
    assert lower_bound(problem, 4161) == problem.algorithmic_minimum == 12_288


def test_huge_shapes_give_exact_integers():
    problem = problem_from_einsum(GEMM, {"m": 16384, "k": 16384, "n": 16384})
    s = 10**6 + 7
    bound = lower_bound(problem, s)
    assert type(bound) is int
    assert 1000 * bound >= 999 * gemm_by_hand(16384, 16384, 16384, s)
    assert (1000 * (bound + 2 * (s + 2))) ** 2 * (s + 2) >= (999 * 2 * 16384**3) ** 2
    huge = problem_from_einsum(MTTKRP, {"i": 10**5, "j": 10**4, "k": 10**4, "r": 10**3})
    assert type(lower_bound(huge, 10**9 + 7)) is int


def test_bound_never_rises_with_the_buffer():
    # the segment lengths tried form a fixed grid, so each term falls as S grows
    for einsum, shape in [
        (MTTKRP, {"i": 8, "j": 6, "k": 5, "r": 4}),
        (CHAIN3, {r: 9 for r in "ijkl"}),
        (CONV1D.format(s=2, d=1), {"p": 9, "r": 3}),
    ]:
        problem = problem_from_einsum(einsum, shape)
        values = [lower_bound(problem, s) for s in range(0, 400, 3)]
        assert all(a >= b for a, b in itertools.pairwise(values))
        assert values[-1] >= problem.algorithmic_minimum


def test_gemm_bound_rises_at_most_by_the_exact_t_term():
    # a matrix product also takes t = 2S + 4 exactly, a term 2S'(c - 1) that grows with S'
    # while c = ceil(MNK / floor(S'^1.5)) stays put: at most a relative 1/S' per word
    problem = problem_from_einsum(GEMM, {"m": 37, "k": 37, "n": 37})
    values = [lower_bound(problem, s) for s in range(400)]
    for s, (a, b) in enumerate(itertools.pairwise(values)):
        assert b * (s + 2) <= a * (s + 3)
    assert lower_bound(problem, 800) == problem.algorithmic_minimum == 3 * 37 * 37


@pytest.mark.parametrize(
    "einsum, shape",
    [("O[i] += A[i] * B[i]", {"i": 1000}), ("O[i,j] += A[i,j] * B[i,j]", {"i": 30, "j": 40})],
)
def test_elementwise_products_get_the_algorithmic_minimum(einsum, shape):
    # every tensor indexes every rank: s = (1, 0, 0) sums to 1, no reuse to limit
    problem = problem_from_einsum(einsum, shape)
    assert lower_bound(problem, 0) == lower_bound(problem, 10**6) == 3 * prod(shape.values())
    basis = lower_bound_basis(problem)
    assert basis["theorem"].startswith("algorithmic minimum only") and basis["views"] == []
    result = evaluate(problem, bypass=True)
    assert int(result.accesses[result.front[0]]) == 3 * prod(shape.values())


def test_conv_with_holes_floor_is_the_words_read():
    # stride 2 > filter 1: only 4 of the 7 input words are read; the minimum counts 4 + 1 + 4
    problem = problem_from_einsum(CONV1D.format(s=2, d=1), {"p": 4, "r": 1})
    assert problem.algorithmic_minimum == 9
    assert lower_bound(problem, 10**6) == 9
    result = evaluate(problem)
    assert int(result.accesses[result.front[-1]]) == 9


# --- every front point is on or above the bound -------------------------------------------


def random_problems(seed: int, count: int):
    rng = random.Random(seed)
    small = [1, 2, 3, 4, 5, 6, 7, 8, 12, 16]
    out = []
    for i in range(count):
        kind = i % 7
        if kind == 0:  # GEMM, often skinny or tiny
            shape = {r: rng.choice(small + [24, 32, 48, 64, 96]) for r in "mkn"}
            if rng.random() < 0.4:
                shape[rng.choice("mkn")] = 1
            out.append(problem_from_einsum(GEMM, shape))
        elif kind == 1:
            out.append(problem_from_einsum(BMM, {r: rng.choice(small) for r in "bmkn"}))
        elif kind == 2:
            out.append(problem_from_einsum(MTTKRP, {r: rng.choice(small[:8]) for r in "ijkr"}))
        elif kind == 3:
            shape = {r: rng.choice([1, 2, 3, 4]) for r in "abcdef"}
            out.append(problem_from_einsum(CONTRACTION, shape))
        elif kind == 4:
            out.append(problem_from_einsum(CHAIN3, {r: rng.choice(small[:8]) for r in "ijkl"}))
        elif kind == 5:
            stride, dilation = rng.choice([(1, 1), (2, 1), (1, 2), (2, 2), (3, 1)])
            shape = {
                "n": rng.choice([1, 2]),
                "k": rng.choice([1, 2, 4]),
                "c": rng.choice([1, 2, 3]),
                "p": rng.choice([2, 3, 4]),
                "q": rng.choice([1, 2, 4]),
                "r": rng.choice([1, 2, 3]),
                "s": rng.choice([1, 3]),
            }
            out.append(problem_from_einsum(CONV.format(s=stride, d=dilation), shape))
        else:
            stride, dilation = rng.choice([(1, 1), (2, 1), (1, 2), (2, 3)])
            shape = {"p": rng.choice([4, 6, 8, 12, 16]), "r": rng.choice([1, 2, 3, 5])}
            out.append(problem_from_einsum(CONV1D.format(s=stride, d=dilation), shape))
    return out


def assert_above(problem, points):
    for buffer, accesses in points:
        bound = lower_bound(problem, buffer)
        assert accesses >= bound, (problem.name, problem.sizes, buffer, accesses, bound)


@pytest.mark.parametrize("bypass", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_snowcat_fronts_are_above_the_bound(bypass):
    problems = random_problems(seed=13, count=49)
    for problem in problems:
        result = evaluate(problem, bypass)
        points = [(int(result.buffer[i]), int(result.accesses[i])) for i in result.front]
        assert_above(problem, points)


@pytest.mark.parametrize(
    "einsum, shape",
    [
        (GEMM, {"m": 4096, "k": 4096, "n": 4096}),
        (GEMM, {"m": 16384, "k": 1024, "n": 1024}),
        (GEMM, {"m": 96, "k": 60, "n": 200}),
        (ATTENTION, {"h": 8, "m": 64, "n": 64, "d": 32}),
        pytest.param(
            CONV.format(s=1, d=1),
            {"n": 1, "k": 8, "c": 16, "p": 8, "q": 4, "r": 3, "s": 3},
            marks=pytest.mark.slow,
        ),
    ],
)
def test_published_shapes_fronts_are_above_the_bound(einsum, shape):
    problem = problem_from_einsum(einsum, shape)
    for bypass in (False, True):
        result = evaluate(problem, bypass)
        points = [(int(result.buffer[i]), int(result.accesses[i])) for i in result.front]
        assert_above(problem, points)


def test_gemm_square_tiles_sit_just_above_the_bound():
    # a x a output tiles with k innermost: a^2 + 2a words, 2MNK/a + MN accesses; the bound's
    # 2MNK/sqrt(a^2 + 2a + 2) is within 10% of 2MNK/a once a >= 16
    m = n = k = 4096
    problem = problem_from_einsum(GEMM, {"m": m, "k": k, "n": n})
    for a in (16, 64, 512):
        bound = lower_bound(problem, a * a + 2 * a)
        attained = 2 * m * n * k // a + m * n
        assert bound <= attained
        assert 10 * attained <= 11 * bound + 10 * m * n  # within 10% plus the MN term


def test_many_tensors_fall_back_to_mixes_and_stay_below_the_front():
    # six tensors over eight ranks: C(29, 6) plane choices is too many to enumerate, so the
    # capacity comes from mixes of covering tensor sets alone
    einsum = "O[a,b,g,h] += A[a,c,d,g] * B[c,e,h] * C[d,f] * D[e,f,b] * E[g,h]"
    problem = problem_from_einsum(
        einsum, dict.fromkeys("abcdefgh", 1) | {"a": 2, "c": 2, "d": 3, "h": 2}
    )
    assert lower_bound_basis(problem)["projective"]
    for bypass in (False, True):
        result = evaluate(problem, bypass)
        points = [(int(result.buffer[i]), int(result.accesses[i])) for i in result.front]
        assert_above(problem, points)
    assert lower_bound(problem, 0) > problem.algorithmic_minimum


@pytest.mark.slow
def test_uneven_fronts_are_above_the_bound():
    problems = random_problems(seed=29, count=14)
    for problem in problems:
        if prod(problem.sizes) > 5000:
            continue
        for imperfect in (False, True):
            for bypass in (False, True):
                front = search_front(problem, "uneven", imperfect, bypass)
                points = [(p.buffer, p.accesses) for p in front.points]
                assert_above(problem, points)


def test_segment_grid_is_floor_of_powers_of_the_eighth_root_of_two():
    # The grid is cached once per point; each point is still floor(2^(i/8)), checked here
    # against the integer root by bisection (t^8 <= 2^i < (t+1)^8).
    from tenet.bounds import lower_bound as module

    for i in range(400):
        t = module._grid_point(i)
        assert t**8 <= 1 << i < (t + 1) ** 8
    grid = module._segment_grid(1)
    assert [next(grid) for _ in range(14)] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]
