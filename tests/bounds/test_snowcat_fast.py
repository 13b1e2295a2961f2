"""The fast Snowcat paths against the searches they replace (tests/bounds/snowcat_reference.py
and `evaluate`, which materializes every tiling times every order): the same front points,
mappings and ties, the same lookups at one capacity, on many small random problems; and the
real-size figure of `analyze --bound` on a 3x3 convolution by hand."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tenet.bounds import snowcat_fast, uneven, uneven_imperfect
from tenet.bounds.lower_bound import lower_bound
from tenet.bounds.snowcat import (
    best_order,
    evaluate,
    front_of,
    mapspace_size,
    problem_from_einsum,
    snowcat_at,
    snowcat_front,
)
from tenet.bounds.uneven import search_front
from tenet.errors import InputError

from .snowcat_reference import reference_imperfect_candidates, reference_snowcat_candidates

SHAPES = [
    ("Z[m,n] += A[m,k] * B[k,n]", "m k n"),
    ("C[h,m,n] += A[h,m,k] * B[h,k,n]", "h m k n"),
    ("O[i,j] += A[i,k,l] * B[k,j] * C[l,j]", "i j k l"),
    ("O[k,p] += I[c, 2*p + r] * W[k,c,r]", "k c p r"),
    ("O[k,p] += I[c, p + 2*r] * W[k,c,r]", "k c p r"),
    ("O[p] += I[p - r] * W[r]", "p r"),
    ("O[k,x,y] += I[c, x + r, y + s] * W[k,c,r,s]", "k c x y r s"),
]


def random_problems(count: int, seed: int, largest: int = 12):
    rng = random.Random(seed)
    for _ in range(count):
        text, ranks = rng.choice(SHAPES)
        names = ranks.split()
        top = 4 if len(names) > 4 else largest
        shape = {
            r: rng.choice([v for v in (1, 2, 3, 4, 5, 6, 8, 9, 12) if v <= top]) for r in names
        }
        yield problem_from_einsum(text, shape)


def described(points):
    return [(p.buffer, p.accesses, p.mapping, dict(p.detail)) for p in points]


@pytest.mark.parametrize("seed", range(3))
def test_front_is_evaluates_front(seed):
    for problem in random_problems(15, seed):
        for bypass in (False, True):
            result = evaluate(problem, bypass)
            front, size = snowcat_front(problem, bypass)
            assert described(front) == described(front_of(result)), (problem.name, bypass)
            assert size == result.mappings == mapspace_size(problem, bypass)


@pytest.mark.parametrize("seed", range(3))
def test_lookup_at_one_capacity_is_the_fronts(seed):
    for problem in random_problems(5, 10 + seed):
        for bypass in (False, True):
            front = front_of(evaluate(problem, bypass))
            sizes = {0, 1, 7, 100, 10**9}
            sizes |= {p.buffer + d for p in front for d in (-1, 0)}
            for words in sorted(sizes):
                old, new = front.at(words), snowcat_at(problem, words, bypass)
                assert (old is None) == (new is None), words
                if old is not None:
                    assert described([new]) == described([old]), (problem.name, bypass, words)


def test_best_order_is_the_first_cheapest_permutation():
    # Every order of the non-unit loops costed by `evaluate`: the least accesses, and of the
    # orders reaching it the first in itertools.permutations order, for every tiling.
    for problem in random_problems(12, 20, largest=6):
        result = evaluate(problem)
        space = result.space
        weight = tuple(2 if t.output else 1 for t in problem.tensors)
        for tiling in np.unique(space.inner, axis=0):
            rows = np.nonzero((space.inner == tiling).all(axis=1))[0]
            cheapest = rows[np.argmin(result.accesses[rows])]  # argmin: first of equals
            order, _ = best_order(problem, tiling.tolist(), weight)
            assert [int(k) for k in space.order[cheapest] if k >= 0] == order


def test_exact_python_ints_give_the_same_front(monkeypatch):
    # The object-array path (taken when a charge could reach 2^62) agrees with int64.
    problems = list(random_problems(6, 30))
    expected = [described(snowcat_front(p, True)[0]) for p in problems]
    snowcat_fast._snowcat_front.cache_clear()
    monkeypatch.setattr(snowcat_fast, "count_dtype", lambda problem: object)
    try:
        for problem, front in zip(problems, expected):
            assert described(snowcat_front(problem, True)[0]) == front
    finally:
        snowcat_fast._snowcat_front.cache_clear()


def reference_search(monkeypatch, problem, space, imperfect, bypass):
    with monkeypatch.context() as patch:
        patch.setattr(uneven, "snowcat_candidates", reference_snowcat_candidates)
        patch.setattr(uneven, "snowcat_imperfect_candidates", reference_imperfect_candidates)
        return search_front(problem, space, imperfect, bypass)


@pytest.mark.parametrize("seed", range(3))
def test_searched_fronts_are_the_unpruned_searches(monkeypatch, seed):
    # Whole fronts of every space, with the points' mappings and details, against the
    # unpruned imperfect grid and `evaluate`'s Snowcat candidates.
    for problem in random_problems(10, 40 + seed):
        for space in ("snowcat", "uneven"):
            for imperfect in (False, True):
                for bypass in (False, True):
                    try:
                        expected = reference_search(monkeypatch, problem, space, imperfect, bypass)
                    except InputError as error:  # e.g. imperfect tiles on a mixed dimension
                        with pytest.raises(type(error)):
                            search_front(problem, space, imperfect, bypass)
                        continue
                    found = search_front(problem, space, imperfect, bypass)
                    key = (problem.name, problem.sizes, space, imperfect, bypass)
                    assert described(found.points) == described(expected.points), key
                    if imperfect and space == "snowcat":
                        assert found.mappings_evaluated <= expected.mappings_evaluated
                    else:
                        assert found.mappings_evaluated == expected.mappings_evaluated


def test_imperfect_blocks_keep_the_row_order(monkeypatch):
    # Costing the imperfect grid in small blocks changes nothing.
    problem = problem_from_einsum("Z[m,n] += A[m,k] * B[k,n]", {"m": 23, "k": 19, "n": 29})
    whole = search_front(problem, "snowcat", imperfect=True, bypass=True)
    monkeypatch.setattr(uneven_imperfect, "IMPERFECT_BLOCK_ROWS", 7)
    blocked = search_front(problem, "snowcat", imperfect=True, bypass=True)
    assert described(blocked.points) == described(whole.points)
    assert blocked.mappings_evaluated == whole.mappings_evaluated


def test_conv_224_at_on_chip_capacity_by_hand():
    # analyze --bound on conv2d K=C=16, OX=OY=224, 3x3 (systolic-8x8: 64 PEs x 256 words +
    # 1,024 = 17,408 words). The mapping `outer ox1=224 | tile k0=16 c0=16 ox0=1 oy0=224
    # rx0=3 ry0=3` holds W (16*16*3*3 = 2,304), an I window of 16 * 3 * 226 = 10,848 and an
    # O row of 16 * 224 = 3,584 words: 16,736 <= 17,408. W is fetched once; each step of ox
    # brings one new I row (16 * 226 words), so I moves 16 * 226 * 226 = 817,216 words once
    # each; O moves 16 * 224 * 224 = 802,816 words once (2W - |O| = |O|). Sum 1,622,336: the
    # algorithmic minimum, which is also the lower bound there.
    problem = problem_from_einsum(
        "O[k,ox,oy] += I[c,ox+rx,oy+ry] * W[k,c,rx,ry]",
        {"k": 16, "c": 16, "ox": 224, "oy": 224, "rx": 3, "ry": 3},
    )
    point = snowcat_at(problem, 17_408)
    assert point.buffer == 2_304 + 10_848 + 3_584 == 16_736
    assert point.accesses == 2_304 + 817_216 + 802_816 == 1_622_336
    assert point.mapping == "outer ox1=224 | tile k0=16 c0=16 ox0=1 oy0=224 rx0=3 ry0=3"
    assert lower_bound(problem, 17_408) == 1_622_336
    assert mapspace_size(problem) == 2_146_933


@pytest.mark.slow
def test_a_medium_conv_front_is_evaluates():
    # 8 * 8 * 24 * 24 * 3 * 3: 96,768 mappings materialized by `evaluate`.
    problem = problem_from_einsum(
        "O[k,x,y] += I[c, x + r, y + s] * W[k,c,r,s]",
        {"k": 8, "c": 8, "x": 24, "y": 24, "r": 3, "s": 3},
    )
    for bypass in (False, True):
        result = evaluate(problem, bypass)
        front, size = snowcat_front(problem, bypass)
        assert described(front) == described(front_of(result))
        assert size == result.mappings
        for point in front_of(result):
            assert described([snowcat_at(problem, point.buffer, bypass)]) == described([point])
