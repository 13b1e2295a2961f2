"""Typed fronts (tenet.bounds.front): the staircase, the lookup, the step sum and the JSON,
each checked by hand on small fronts, and the staircase against its definition."""

from __future__ import annotations

import random

from tenet.bounds.front import Front, FrontPoint


def pairs(front: Front) -> list[tuple[int, int]]:
    return [(p.buffer, p.accesses) for p in front]


def front_of(*points: tuple[int, int]) -> Front:
    return Front(tuple(FrontPoint(b, a) for b, a in points))


def test_pareto_by_hand():
    given = [(4, 10), (2, 20), (3, 20), (5, 10), (1, 30), (6, 5), (6, 7), (2, 25)]
    # Sorted: (1,30) (2,20) (2,25) (3,20) (4,10) (5,10) (6,5) (6,7); a point stays when its
    # accesses are below every point before it: 30, 20, 10, 5.
    front = Front.pareto(FrontPoint(b, a) for b, a in given)
    assert pairs(front) == [(1, 30), (2, 20), (4, 10), (6, 5)]


def test_pareto_keeps_the_first_of_equal_points():
    first, second = FrontPoint(3, 7, "first"), FrontPoint(3, 7, "second")
    assert [p.mapping for p in Front.pareto([first, second])] == ["first"]
    assert [p.mapping for p in Front.pareto([second, first])] == ["second"]


def test_pareto_is_the_set_of_undominated_points():
    rng = random.Random(11)
    for _ in range(200):
        given = {(rng.randrange(1, 12), rng.randrange(0, 40)) for _ in range(rng.randrange(1, 15))}
        # By the definition: no other point has at most its buffer and at most its accesses.
        undominated = sorted(
            (b, a)
            for b, a in given
            if not any((c, d) != (b, a) and c <= b and d <= a for c, d in given)
        )
        assert pairs(Front.pareto(FrontPoint(b, a) for b, a in given)) == undominated


def test_at_is_the_last_point_that_fits():
    front = front_of((1, 30), (2, 20), (4, 10), (6, 5))
    assert front.at(0) is None and front.accesses_at(0) is None
    assert [front.accesses_at(words) for words in (1, 2, 3, 4, 5, 6, 100)] == [
        30,
        20,
        20,  # 3 words: the point at 2 is the last that fits
        10,
        10,
        5,
        5,
    ]
    assert Front().at(10) is None


def test_step_sum_by_hand():
    a = front_of((2, 10), (5, 4))
    b = front_of((3, 7), (4, 6), (8, 1))
    # Starts at 3 (b has nothing below); at 3: 10 + 7, at 4: 10 + 6, at 5: 4 + 6, at 8: 4 + 1.
    total = Front.step_sum([a, b])
    assert pairs(total) == [(3, 17), (4, 16), (5, 10), (8, 5)]
    assert [(q.buffer, q.accesses) for q in total.at(5).pieces] == [(5, 4), (4, 6)]
    assert not Front.step_sum([a, Front()])
    assert Front.step_sum([a]) is a


def test_adding_fronts_keeps_the_better_point_at_every_size():
    a = front_of((2, 10), (5, 4))
    b = front_of((3, 7), (4, 6), (8, 1))
    # (2,10) (3,7) (4,6) (5,4) fall strictly; (8,1) too.
    assert pairs(a + b) == [(2, 10), (3, 7), (4, 6), (5, 4), (8, 1)]


def test_to_json_keeps_the_keys_in_order():
    point = FrontPoint(3, 17, "outer m1=2 | tile m0=2", {"tiles": {"m": 2}, "kept": ["A"]})
    assert list(point.to_dict()) == ["buffer", "accesses", "mapping", "tiles", "kept"]
    assert Front((point,)).to_json() == [
        {
            "buffer": 3,
            "accesses": 17,
            "mapping": "outer m1=2 | tile m0=2",
            "tiles": {"m": 2},
            "kept": ["A"],
        }
    ]


def test_counts_stay_exact_python_ints():
    big = 2**70
    front = Front.pareto([FrontPoint(big, big + 1), FrontPoint(big + 1, big)])
    assert pairs(front) == [(big, big + 1), (big + 1, big)]
    assert front.accesses_at(big + 5) == big
