"""Mapping spaces beyond Snowcat (issue 13, parts 1 and 2): the costs of explicit mappings
against a word-level run (uneven_trace.py), the searched fronts against brute force over
every nest of tiny shapes, and the containments: uneven <= Snowcat, imperfect <= perfect,
every point >= the proven lower bound."""

from __future__ import annotations

import itertools
import random
from functools import cache
from math import factorial

import numpy as np
import pytest

from tenet.bounds.lower_bound import lower_bound
from tenet.bounds.snowcat import evaluate, problem_from_einsum
from tenet.bounds.uneven import (
    UnevenMapping,
    mapping_cost,
    parse_mapping,
    search_front,
    tensor_fetch,
    uneven_text,
)
from tenet.errors import InputError

from .uneven_trace import run

GEMM = "Z[m,n] += A[m,k] * B[k,n]"
BMM = "C[h,m,n] += A[h,m,k] * B[h,k,n]"
MTTKRP = "O[i,j] += A[i,k,l] * B[k,j] * C[l,j]"
CONV = "O[k,p] += I[c, 2*p + r] * W[k,c,r]"  # 1-D conv with stride 2


def lookup(points, words):
    """The front's accesses at a buffer size (a step function); None below its first point."""
    fitting = [p.accesses for p in points if p.buffer <= words]
    return fitting[-1] if fitting else None


# --- the issue's example, by hand ------------------------------------------------------------


def test_issue_example_64_cubed_by_hand():
    # [A] n:64 [B] m:64 [Z] k:64 on Z[m,n] += A[m,k] * B[k,n], 64^3:
    # A above every loop: tile 64*64 = 4096, fetched once.
    # B inside n, above m (which does not index B): tile B[:, n] = 64 words, fetched once per
    #   n: 64 * 64 = 4096.
    # Z inside m, above k (which does not index Z): one word per (n, m), held while k runs:
    #   4096 fills, charged 2 * 4096 - 4096 = 4096.
    problem = problem_from_einsum(GEMM, {"m": 64, "k": 64, "n": 64})
    assert mapping_cost(problem, "[A] n:64 [B] m:64 [Z] k:64") == (4096 + 64 + 1, 3 * 4096)
    uneven = search_front(problem, "uneven").points
    snowcat = search_front(problem, "snowcat").points
    assert lookup(uneven, 4161) == 12288 and lookup(uneven, 4160) > 12288
    assert lookup(snowcat, 4161) == 16384 and lookup(snowcat, 4224) == 12288


def test_issue_example_traced_on_16_cubed():
    # The same nest on 16^3 run word by word: buffer 16^2 + 16 + 1, every tensor moved once.
    problem = problem_from_einsum(GEMM, {"m": 16, "k": 16, "n": 16})
    mapping = parse_mapping(problem, "[A] n:16 [B] m:16 [Z] k:16")
    assert run(problem, mapping) == mapping_cost(problem, mapping) == (273, 3 * 256)


def test_text_round_trip_and_errors():
    problem = problem_from_einsum(GEMM, {"m": 37, "k": 37, "n": 37})
    text = "[A] n:2(19) [B] m:37 [Z] k:37 n:19 | bypass"
    mapping = parse_mapping(problem, text)
    assert mapping.loops == (("n", 19), ("m", 1), ("k", 1), ("n", 1))
    assert uneven_text(problem, mapping) == "[A] n:2(19) [B] m:37 [Z] k:37 n:19"
    for bad in ("[A] x:2", "[Q] m:37", "[A] m:5", "[A] m:?"):
        with pytest.raises(InputError):
            parse_mapping(problem, bad)


# --- random mappings against the word-level run -----------------------------------------------


def tile_sequences(size: int, imperfect: bool, longest: int = 99) -> list[tuple[int, ...]]:
    """Every strictly falling tile sequence below `size` that ends at 1 (perfect: each tile
    divides the one before), at most `longest` loops."""
    if size == 1:
        return [()]
    out = []

    def extend(previous, sequence):
        for tile in range(previous - 1, 0, -1):
            if imperfect or previous % tile == 0:
                if tile == 1:
                    out.append((*sequence, 1))
                elif len(sequence) + 2 <= longest:
                    extend(tile, (*sequence, tile))

    extend(size, ())
    return out


def interleavings(sequences):
    """Every merge of the per-rank loop lists that keeps each rank's order."""
    if all(not s for s in sequences):
        yield ()
        return
    for r, s in enumerate(sequences):
        if s:
            rest = list(sequences)
            rest[r] = s[1:]
            for tail in interleavings(rest):
                yield (s[0], *tail)


def random_mapping(problem, rng, imperfect, bypass):
    per_rank = [
        [(r, t) for t in rng.choice(tile_sequences(s, imperfect, 4))]
        for r, s in zip(problem.ranks, problem.sizes)
    ]
    loops = []
    while any(per_rank):
        r = rng.choice([i for i, s in enumerate(per_rank) if s])
        loops.append(per_rank[r].pop(0))
    bypassed = tuple(t.name for t in problem.tensors if bypass and rng.random() < 0.25)
    positions = {
        t.name: rng.randrange(len(loops) + 1) for t in problem.tensors if t.name not in bypassed
    }
    return UnevenMapping(tuple(loops), positions, bypassed)


@pytest.mark.parametrize(
    ("einsum", "shape"),
    [
        (GEMM, {"m": 4, "k": 6, "n": 3}),
        (GEMM, {"m": 5, "k": 7, "n": 3}),
        (MTTKRP, {"i": 3, "j": 4, "k": 2, "l": 3}),
        (BMM, {"h": 2, "m": 3, "k": 4, "n": 2}),
        (CONV, {"k": 2, "c": 2, "p": 5, "r": 3}),
        ("O[p,q] += I[p + r, q + s] * W[r,s]", {"p": 4, "q": 3, "r": 2, "s": 3}),
    ],
)
@pytest.mark.parametrize("imperfect", [False, True])
def test_trace_reproduces_mapping_cost(einsum, shape, imperfect):
    problem = problem_from_einsum(einsum, shape)
    rng = random.Random(f"{einsum}{shape}{imperfect}")
    for _ in range(25):
        mapping = random_mapping(problem, rng, imperfect, bypass=True)
        assert run(problem, mapping) == mapping_cost(problem, mapping), uneven_text(
            problem, mapping
        )


# --- brute force: every nest of tiny shapes ---------------------------------------------------


def brute_front(problem, imperfect, bypass, longest=99):
    """Pareto front over every nest (each rank's strictly falling tiles ending at 1, every
    interleaving), every position of every tensor, and with `bypass` every keep/bypass
    choice; costed tensor by tensor with tensor_fetch (checked against the run above)."""
    sizes = {t.name: problem.size(t) for t in problem.tensors}
    total = sum(
        problem.extent(t, problem.sizes) for t in problem.tensors
    )  # no tile exceeds its tensor's box
    best = np.full(total + 1, np.iinfo(np.int64).max, dtype=np.int64)

    @cache
    def cost(t, prefix):
        tensor = problem.tensors[t]
        tile, fetched = tensor_fetch(problem, prefix, tensor, len(prefix))
        return tile, 2 * fetched - sizes[tensor.name] if tensor.output else fetched

    per_rank = [
        [[(r, t) for t in seq] for seq in tile_sequences(s, imperfect, longest)]
        for r, s in enumerate(problem.sizes)
    ]
    for combo in itertools.product(*per_rank):
        for loops in interleavings(list(combo)):
            buffer = np.zeros(1, dtype=np.int64)
            accesses = np.zeros(1, dtype=np.int64)
            for t, tensor in enumerate(problem.tensors):
                options = [cost(t, loops[:p]) for p in range(len(loops) + 1)]
                if bypass:
                    options.append(
                        (
                            0,
                            2 * problem.macs - sizes[tensor.name]
                            if tensor.output
                            else problem.macs,
                        )
                    )
                tiles = np.array([o[0] for o in options], dtype=np.int64)
                moved = np.array([o[1] for o in options], dtype=np.int64)
                buffer = (buffer[:, None] + tiles[None, :]).reshape(-1)
                accesses = (accesses[:, None] + moved[None, :]).reshape(-1)
            np.minimum.at(best, buffer, accesses)
    front, lowest = [], None
    for words, moved in enumerate(best.tolist()):
        if moved != np.iinfo(np.int64).max and (lowest is None or moved < lowest):
            front.append((words, moved))
            lowest = moved
    return front


def front_of(problem, space, imperfect=False, bypass=False):
    return [(p.buffer, p.accesses) for p in search_front(problem, space, imperfect, bypass).points]


@pytest.mark.parametrize("bypass", [False, True])
def test_brute_force_gemm_4x6x8(bypass):
    problem = problem_from_einsum(GEMM, {"m": 4, "k": 6, "n": 8})
    assert front_of(problem, "uneven", bypass=bypass) == brute_front(problem, False, bypass)


def test_brute_force_mttkrp_and_bmm():
    for einsum, shape in (
        (MTTKRP, {"i": 4, "j": 2, "k": 3, "l": 2}),
        (BMM, {"h": 2, "m": 2, "k": 4, "n": 3}),
    ):
        problem = problem_from_einsum(einsum, shape)
        assert front_of(problem, "uneven") == brute_front(problem, False, False), einsum


def test_brute_force_imperfect_3x4x5():
    problem = problem_from_einsum(GEMM, {"m": 3, "k": 4, "n": 5})
    assert front_of(problem, "uneven", imperfect=True) == brute_front(problem, True, False)


@pytest.mark.slow
def test_brute_force_imperfect_3x5x7():
    # 294,218 nests: every strictly falling tile sequence per rank, every interleaving
    problem = problem_from_einsum(GEMM, {"m": 3, "k": 5, "n": 7})
    assert front_of(problem, "uneven", imperfect=True) == brute_front(problem, True, False)


def test_brute_force_imperfect_small_mttkrp():
    problem = problem_from_einsum(MTTKRP, {"i": 3, "j": 2, "k": 3, "l": 2})
    assert front_of(problem, "uneven", imperfect=True) == brute_front(problem, True, False)


def test_brute_force_counts_are_what_the_test_claims():
    # the imperfect 3x5x7 brute force really walks 294,218 nests (a multinomial per choice of
    # tile sequences), and 4x6x8 perfect 1,286
    def nests(shape, imperfect):
        total = 0
        for combo in itertools.product(*(tile_sequences(s, imperfect) for s in shape)):
            lengths = [len(c) for c in combo]
            total += factorial(sum(lengths)) // np.prod([factorial(n) for n in lengths])
        return total

    assert nests((3, 5, 7), True) == 294_218
    assert nests((4, 6, 8), False) == 1_286
    assert len(list(interleavings([(1, 2), (3,)]))) == 3


# --- the Snowcat space is today's evaluate ----------------------------------------------------


@pytest.mark.parametrize("bypass", [False, True])
def test_snowcat_space_is_todays_front(bypass):
    problem = problem_from_einsum(CONV, {"k": 4, "c": 3, "p": 6, "r": 3})
    result = evaluate(problem, bypass)
    expected = [(int(result.buffer[i]), int(result.accesses[i])) for i in result.front]
    found = search_front(problem, "snowcat", bypass=bypass)
    assert [(p.buffer, p.accesses) for p in found.points] == expected
    assert found.mappings_evaluated == result.mappings


# --- containments and the lower bound ---------------------------------------------------------


def random_problems(count, seed):
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        kind = rng.choice(["gemm", "bmm", "mttkrp", "conv", "conv2"])
        size = lambda: rng.randint(1, 9)
        if kind == "gemm":
            out.append(problem_from_einsum(GEMM, {"m": size(), "k": size(), "n": size()}))
        elif kind == "bmm":
            shape = {"h": rng.randint(1, 3), "m": size(), "k": size(), "n": size()}
            out.append(problem_from_einsum(BMM, shape))
        elif kind == "mttkrp":
            shape = {"i": size(), "j": rng.randint(1, 4), "k": rng.randint(1, 4), "l": size()}
            out.append(problem_from_einsum(MTTKRP, shape))
        elif kind == "conv":
            shape = {"k": rng.randint(1, 4), "c": rng.randint(1, 4), "p": size(), "r": 3}
            out.append(problem_from_einsum(CONV, shape))
        else:
            shape = {"p": size(), "q": rng.randint(1, 5), "r": rng.randint(1, 3), "s": 2}
            out.append(problem_from_einsum("O[p,q] += I[p + r, q + s] * W[r,s]", shape))
    return out


def never_above(lower, upper):
    """Every point of `upper` is matched or beaten by `lower` at its buffer size."""
    return all(
        lookup(lower, p.buffer) is not None and lookup(lower, p.buffer) <= p.accesses for p in upper
    )


@pytest.mark.parametrize("bypass", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_uneven_never_above_snowcat(bypass):
    for problem in random_problems(30, f"uneven{bypass}"):
        snowcat = search_front(problem, "snowcat", bypass=bypass).points
        uneven = search_front(problem, "uneven", bypass=bypass).points
        assert never_above(uneven, snowcat), (problem.name, problem.sizes)
        snowcat_i = search_front(problem, "snowcat", True, bypass).points
        uneven_i = search_front(problem, "uneven", True, bypass).points
        assert never_above(uneven_i, snowcat_i), (problem.name, problem.sizes)


def test_imperfect_never_above_perfect():
    for problem in random_problems(30, "imperfect"):
        for space in ("snowcat", "uneven"):
            perfect = search_front(problem, space).points
            imperfect = search_front(problem, space, imperfect=True).points
            assert never_above(imperfect, perfect), (space, problem.name, problem.sizes)


def test_fronts_strictly_fall_and_are_costed_as_their_mappings():
    for problem in random_problems(12, "costed"):
        for space, imperfect in itertools.product(("snowcat", "uneven"), (False, True)):
            points = search_front(problem, space, imperfect).points
            assert all(
                a.buffer < b.buffer and a.accesses > b.accesses
                for a, b in itertools.pairwise(points)
            )
            for p in points:
                if p.detail["cost_rule"] == "uneven":
                    mapping = (
                        parse_mapping(problem, p.mapping) if p.detail["space"] == "uneven" else None
                    )
                    if mapping is not None:
                        assert mapping_cost(problem, mapping) == (p.buffer, p.accesses)


def test_every_point_at_or_above_the_lower_bound():
    for problem in random_problems(25, "lower bound"):
        for space, imperfect in (("uneven", False), ("uneven", True)):
            for p in search_front(problem, space, imperfect, bypass=True).points:
                assert p.accesses >= lower_bound(problem, p.buffer), (problem.name, p.mapping)


def test_imperfect_37_cubed_gains_over_snowcat():
    # The issue's awkward shape: Snowcat has 3 points; with imperfect tiles the 47-word tiling
    # m0=5 n0=7 k0=1 moves 6*1369 + 8*1369 + 1369 = 20,535 words (docs/bounds.md, §1), and
    # the per-tensor nest [A] n:37 [B] m:37 [Z] k:37 moves each tensor once with 1,407 words.
    problem = problem_from_einsum(GEMM, {"m": 37, "k": 37, "n": 37})
    assert len(search_front(problem, "snowcat").points) == 3
    assert mapping_cost(problem, "[A] n:37 [B] m:37 [Z] k:37") == (1369 + 37 + 1, 3 * 1369)
    snowcat_i = search_front(problem, "snowcat", imperfect=True).points
    assert lookup(snowcat_i, 47) <= 6 * 1369 + 8 * 1369 + 1369
    uneven_i = search_front(problem, "uneven", imperfect=True).points
    assert lookup(uneven_i, 1407) <= 3 * 1369
    assert never_above(uneven_i, snowcat_i)


def pareto(points):
    front, lowest = [], None
    for words, moved in sorted(points):
        if lowest is None or moved < lowest:
            front.append((words, moved))
            lowest = moved
    return front


@pytest.mark.parametrize("imperfect", [False, True])
def test_brute_force_strided_conv_with_snowcat_costs(imperfect):
    # Sliding tiles: every nest costed by the uneven rule (whole tile refetched on change),
    # merged with today's Snowcat front (Snowcat's sliding-window costs), is the search's front.
    problem = problem_from_einsum(CONV, {"k": 2, "c": 2, "p": 4, "r": 3})
    result = evaluate(problem)
    snowcat = [(int(result.buffer[i]), int(result.accesses[i])) for i in result.front]
    expected = pareto(brute_front(problem, imperfect, False) + snowcat)
    assert front_of(problem, "uneven", imperfect=imperfect) == expected
    assert expected != pareto(snowcat)  # per-tensor placement does change this front


@pytest.mark.parametrize(
    ("einsum", "shape"),
    [(GEMM, {"m": 3, "k": 5, "n": 7}), (CONV, {"k": 2, "c": 3, "p": 5, "r": 3})],
)
def test_brute_force_snowcat_imperfect(einsum, shape):
    # Every tile size 1..R per rank (short tile last), every order of the outer loops, all
    # tiles at one position, merged with today's perfect Snowcat front.
    problem = problem_from_einsum(einsum, shape)
    result = evaluate(problem)
    points = [(int(result.buffer[i]), int(result.accesses[i])) for i in result.front]
    for tiles in itertools.product(*(range(1, s + 1) for s in problem.sizes)):
        outer = [r for r, (t, s) in enumerate(zip(tiles, problem.sizes)) if t < s]
        for order in itertools.permutations(outer):
            loops = [(problem.ranks[r], tiles[r]) for r in order]
            loops += [(r, 1) for r, t in zip(problem.ranks, tiles) if t > 1]
            positions = {t.name: len(order) for t in problem.tensors}
            points.append(mapping_cost(problem, UnevenMapping(tuple(loops), positions)))
    assert front_of(problem, "snowcat", imperfect=True) == pareto(points)


def test_progress_counts_up_to_its_total():
    problem = problem_from_einsum(GEMM, {"m": 8, "k": 4, "n": 6})
    calls = []
    search_front(problem, "uneven", True, True, progress=lambda d, t: calls.append((d, t)))
    totals = {t for _, t in calls}
    assert len(totals) == 1 and calls[-1][0] == totals.pop()
    assert all(a[0] <= b[0] for a, b in itertools.pairwise(calls))


def test_too_large_imperfect_search_is_one_line_error():
    # a stride of 2: no chain is dropped, and 1000 has 500,500 chains over two tensors
    problem = problem_from_einsum("O[p] += I[2*p + r] * W[r]", {"p": 1000, "r": 3})
    with pytest.raises(InputError) as caught:
        search_front(problem, "uneven", imperfect=True)
    assert "\n" not in str(caught.value) and caught.value.option == "imperfect"
    with pytest.raises(InputError):
        search_front(problem, "other")


def test_exact_object_arithmetic_gives_the_same_fronts(monkeypatch):
    # Problems whose costs could pass 2^62 are searched with Python ints in object arrays;
    # forcing that path on small problems must change nothing.
    from tenet.bounds import uneven, uneven_imperfect

    problems = [
        problem_from_einsum(GEMM, {"m": 6, "k": 5, "n": 4}),
        problem_from_einsum(CONV, {"k": 2, "c": 2, "p": 4, "r": 3}),
    ]
    expected = {
        (i, space, imperfect): front_of(p, space, imperfect, bypass=True)
        for i, p in enumerate(problems)
        for space in ("snowcat", "uneven")
        for imperfect in (False, True)
    }
    monkeypatch.setattr(uneven, "count_type", lambda problem: object)
    monkeypatch.setattr(uneven_imperfect, "count_type", lambda problem: object)
    for (i, space, imperfect), front in expected.items():
        assert front_of(problems[i], space, imperfect, bypass=True) == front


def test_detail_is_json_and_describes_the_nest():
    import json

    problem = problem_from_einsum(CONV, {"k": 2, "c": 2, "p": 4, "r": 3})
    front = search_front(problem, "uneven", imperfect=True, bypass=True)
    data = json.loads(json.dumps(front.to_dict()))
    assert data["space"] == "uneven" and data["imperfect"] and data["bypass"]
    for point, row in zip(front.points, data["pareto"]):
        detail = point.detail
        assert set(detail) >= {"loops", "positions", "tiles", "kept", "bypassed", "cost_rule"}
        assert sorted(detail["kept"] + detail["bypassed"]) == sorted(
            t.name for t in problem.tensors
        )
        assert sum(detail["tiles"].values()) == point.buffer == row["buffer"]
        for loop in detail["loops"]:
            assert loop["rank"] in problem.ranks and loop["trips"] >= 1 and loop["tile"] >= 1


@pytest.mark.parametrize(
    "shape",
    [{"m": 64, "k": 64, "n": 64}, {"m": 256, "k": 256, "n": 256}, {"m": 96, "k": 60, "n": 200}],
)
def test_issue_figures_per_tensor_placement_beats_snowcat(shape):
    # Issue 13: on these GEMMs per-tensor placement beats the Snowcat front at more than half
    # of the front's breakpoints, by up to 1.5x.
    problem = problem_from_einsum(GEMM, shape)
    snowcat = search_front(problem, "snowcat").points
    uneven = search_front(problem, "uneven").points
    ratios = [lookup(snowcat, p.buffer) / p.accesses for p in uneven if lookup(snowcat, p.buffer)]
    assert sum(r > 1 for r in ratios) > len(uneven) / 2
    assert 1 < max(ratios) <= 1.5


def test_brute_force_shared_rank_dims_and_a_fourth_tensor():
    # A[i, i + j] uses rank i in two dimensions (perfect tiles only); a vector operand C[j]
    # makes four tensors, with bypass and imperfect tiles.
    problem = problem_from_einsum("O[i] += A[i, i + j] * B[j]", {"i": 4, "j": 3})
    result = evaluate(problem)
    snowcat = [(int(result.buffer[i]), int(result.accesses[i])) for i in result.front]
    assert front_of(problem, "uneven") == pareto(brute_front(problem, False, False) + snowcat)
    with pytest.raises(InputError):
        search_front(problem, "uneven", imperfect=True)
    problem = problem_from_einsum("O[i,j] += A[i,k] * B[k,j] * C[j]", {"i": 4, "j": 3, "k": 2})
    assert front_of(problem, "uneven", True) == brute_front(problem, True, False)
    assert front_of(problem, "uneven", bypass=True) == brute_front(problem, False, True)


@pytest.mark.slow
def test_imperfect_4096_cubed_reaches_the_minimum_and_stays_below_perfect():
    problem = problem_from_einsum(GEMM, {"m": 4096, "k": 4096, "n": 4096})
    imperfect = search_front(problem, "uneven", imperfect=True).points
    assert imperfect[-1].accesses == 3 * 4096**2
    assert never_above(imperfect, search_front(problem, "uneven").points)
