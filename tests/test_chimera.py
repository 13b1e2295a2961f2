"""Chimera's block-order model (tenet/chimera.py): hand-derived DV/MU, the paper's closed
form, brute force against the search, and input errors."""

from __future__ import annotations

import itertools
import re

import pytest

from tenet.chimera import (
    algorithmic_minimum,
    chain_loops,
    chimera_ops,
    closed_form_tiles,
    evaluate_order,
    parse_order,
    search,
    tile_candidates,
)
from tenet.errors import InputError

GEMM_PAIR = [("mm1", "C[m,l] += A[m,k] * B[k,l]"), ("mm2", "E[m,n] += C[m,l] * D[l,n]")]
ATTENTION = [("qk", "S[b,m,l] += Q[b,m,k] * K[b,k,l]"), ("sv", "O[b,m,n] += S[b,m,l] * V[b,l,n]")]
BERT = {"b": 12, "m": 512, "k": 64, "l": 512, "n": 64}
FFN = [("fc1", "H[m,l] += X[m,k] * W1[k,l]"), ("fc2", "Y[m,n] += H[m,l] * W2[l,n]")]
FFN_SIZES = {"m": 32768, "k": 4096, "l": 16384, "n": 4096}


@pytest.fixture
def small():
    # |A| = 8*4 = 32, |B| = 4*6 = 24, |D| = 6*2 = 12, |E| = 8*2 = 16
    return chimera_ops(GEMM_PAIR, {"m": 8, "k": 4, "l": 6, "n": 2})


# ----------------------------------------------------------------------------- hand values


def test_paper_order_mlkn_by_hand(small):
    # Order m l k n (m outermost), tiles m=2, k=4, l=3, n=2: trips m 4, k 1, l 2, n 1.
    # mm1 sees m l k n: A[m,k] innermost indexing loop k, outside it l -> 32*2 = 64;
    #   B[k,l] innermost k, outside it m -> 24*4 = 96.
    # k is private to mm1 and leaves; mm2 sees m l n: D[l,n] innermost n, outside m -> 12*4
    #   = 48; E[m,n] innermost n, outside l -> 16*2 = 32.
    # The paper's formula MK*ceil(L/TL) + KL*ceil(M/TM) + NL*ceil(M/TM) + MN*ceil(L/TL) gives
    # the same 240.  MU: mm1 2*4 + 4*3 + 2*3 = 26, mm2 6 + 3*2 + 2*2 = 16.
    result = evaluate_order(small, "mlkn", {"m": 2, "l": 3})
    assert result["per_tensor"] == {"A": 64, "B": 96, "D": 48, "E": 32}
    assert result["dv"] == 240
    assert result["mu"] == 26
    assert result["order"] == "mlkn"
    assert result["tiles"] == {"m": 2, "k": 4, "l": 3, "n": 2}
    # E is reloaded twice: read-modify-write costs 2*32 - 16 = 48, i.e. 16 more.
    assert result["dv_rmw"] == 256
    # Nothing stays on chip across the other operator (each tensor's innermost loop is the
    # innermost loop of its operator).
    assert result["mu_live"] == 26


def test_recomputing_order_with_edge_tiles_by_hand(small):
    # Order m n l k, tiles m=3 (trips 3: 3+3+2 rows), k=4 (1), l=4 (2: 4+2), n=1 (2).
    # mm1 sees m n l k (n belongs to mm2 but encloses mm1, which is re-run per n trip):
    #   A[m,k] innermost k, outside n and l -> 32*2*2 = 128; B[k,l] innermost k, outside m, n
    #   -> 24*3*2 = 144.  mm2 sees m n l: D[l,n] innermost l, outside m -> 12*3 = 36;
    #   E[m,n] innermost n, outside nothing that skips it -> 16.  DV = 324.
    # MU with full-size tiles 3, 4, 4, 1: mm1 3*4 + 4*4 + 3*4 = 40; mm2 12 + 4*1 + 3*1 = 19.
    # E's tile (3) stays on chip across the l loop, inside which mm1 runs: mu_live = 43.
    result = evaluate_order(small, ["m", "n", "l", "k"], {"m": 3, "l": 4, "n": 1})
    assert result["per_tensor"] == {"A": 128, "B": 144, "D": 36, "E": 16}
    assert result["dv"] == result["dv_rmw"] == 324
    assert result["mu"] == 40
    assert result["mu_live"] == 43


def test_batched_attention_reaches_the_minimum_by_hand():
    # b=2, m=4, k=2, l=4, n=2; order b k m n l, tiles b=1, l=1, the rest whole.
    # qk sees b k m n l: Q[b,m,k] innermost loop m, nothing outside skips Q -> |Q| = 16;
    #   K[b,k,l] innermost l, outside m and n have one trip -> 16.  qk's k leaves.
    # sv sees b m n l: V[b,l,n] innermost l, outside m (one trip) -> 16; O innermost n -> 16.
    # DV = 64 = |Q|+|K|+|V|+|O|.  MU: qk 4*2 + 2*1 + 4*1 = 14, sv 4 + 1*2 + 4*2 = 14.
    # Live: Q (8 words) is reused across the l loop, which encloses sv; O (8) across l,
    # which encloses qk -> 22.
    ops = chimera_ops(ATTENTION, {"b": 2, "m": 4, "k": 2, "l": 4, "n": 2})
    result = evaluate_order(ops, "bkmnl", {"b": 1, "l": 1})
    assert result["per_tensor"] == {"Q": 16, "K": 16, "V": 16, "O": 16}
    assert result["dv"] == result["dv_rmw"] == 64
    assert result["mu"] == 14
    assert result["mu_live"] == 22


def test_whole_reduction_loop_may_go_outside(small):
    # m k l n with l whole is legal (l has one trip): A innermost k, outside m indexes it
    # -> 32; B innermost l, outside m -> 24*4 = 96; D innermost n, outside m -> 48; E
    # innermost n, outside l (one trip) -> 16.  DV = 192.
    result = evaluate_order(small, "mkln", {"m": 2, "k": 2, "l": 6})
    assert result["dv"] == 192


def test_full_tiles_move_each_tensor_once(small):
    # Whole tiles: every order moves the inputs and the output once, 32 + 24 + 12 + 16 = 84,
    # and MU is the larger operator, max(32 + 24 + 48, 48 + 12 + 16) = 104.
    assert algorithmic_minimum(small) == 84
    for order in itertools.permutations(chain_loops(small)):
        result = evaluate_order(small, list(order))
        assert (result["dv"], result["dv_rmw"], result["mu"]) == (84, 84, 104)


# ----------------------------------------------------------------------------- closed form


def _brute_mlkn(sizes: dict[str, int], capacity: int, alpha: int) -> int:
    """Least DV of order m l k n with T_K = T_N = alpha, over every integer T_M, T_L."""
    m, k, l, n = (sizes[r] for r in "mkln")
    best = None
    for tm in range(1, m + 1):
        for tl in range(1, l + 1):
            mu = max(tm * alpha + alpha * tl + tm * tl, tm * tl + tl * alpha + tm * alpha)
            if mu > capacity:
                continue
            nm, nl = -(-m // tm), -(-l // tl)
            dv = m * k * nl + k * l * nm + n * l * nm + m * n * nl
            best = dv if best is None else min(best, dv)
    return best


@pytest.mark.parametrize(
    "capacity, alpha, side", [(24, 1, 4), (32, 2, 4), (35, 1, 5), (99, 1, 9), (100, 3, 7)]
)
def test_closed_form_is_the_largest_square(capacity, alpha, side):
    # T = -a + sqrt(a^2 + MC) floored: the largest T with T^2 + 2aT <= MC (checked by hand:
    # 16+8 <= 24 < 25+10; 16+16 <= 32 < 25+20; 25+10 <= 35; 81+18 <= 99; 49+42 <= 100 < 64+48).
    assert side * side + 2 * alpha * side <= capacity < (side + 1) ** 2 + 2 * alpha * (side + 1)
    ops = chimera_ops(GEMM_PAIR, {"m": 64, "k": 8, "l": 64, "n": 8})
    result = closed_form_tiles(ops, capacity, alpha)
    assert result["tiles"] == {"m": side, "k": alpha, "l": side, "n": alpha}
    assert result["order"] == "mlkn"
    assert result["mu"] <= capacity


@pytest.mark.parametrize(
    "sizes, capacity, alpha",
    [
        ({"m": 16, "k": 4, "l": 16, "n": 4}, 24, 1),  # T = 4
        ({"m": 16, "k": 4, "l": 16, "n": 4}, 32, 2),  # T = 4
        ({"m": 16, "k": 4, "l": 16, "n": 4}, 96, 2),  # T = 8
        ({"m": 20, "k": 4, "l": 20, "n": 4}, 120, 1),  # T = 10
    ],
)
def test_closed_form_matches_brute_force_when_the_square_divides(sizes, capacity, alpha):
    # When T divides M = L, the closed form is the paper's DV* = 2ML(K+N)/T and no integer
    # (T_M, T_L) of the same order does better.
    ops = chimera_ops(GEMM_PAIR, sizes)
    result = closed_form_tiles(ops, capacity, alpha)
    side = result["tiles"]["m"]
    assert sizes["m"] % side == 0
    assert result["dv"] == 2 * sizes["m"] * sizes["l"] * (sizes["k"] + sizes["n"]) // side
    assert result["dv"] == _brute_mlkn(sizes, capacity, alpha)


def test_closed_form_elsewhere():
    # Sizes the square does not divide: the closed form's DV is the paper's formula at its
    # tiles, fits, and is no better than the best integer (T_M, T_L).
    sizes = {"m": 23, "k": 5, "l": 17, "n": 3}
    ops = chimera_ops(GEMM_PAIR, sizes)
    for capacity in range(3, 200, 7):
        result = closed_form_tiles(ops, capacity)
        nm, nl = -(-23 // result["tiles"]["m"]), -(-17 // result["tiles"]["l"])
        assert result["dv"] == 23 * 5 * nl + 5 * 17 * nm + 3 * 17 * nm + 23 * 3 * nl
        assert result["mu"] <= capacity
        assert result["dv"] >= _brute_mlkn(sizes, capacity, 1)


def test_closed_form_on_bert_attention():
    # Bert's pair per head (M = L = 512, K = N = 64), 12 heads; C = 32^2 + 2*32 = 1088 gives
    # T = 32 and DV = 12 * 2*512*512*(64+64)/32 = 25,165,824.
    ops = chimera_ops(ATTENTION, BERT)
    result = closed_form_tiles(ops, 1088)
    assert result["tiles"] == {"b": 1, "m": 32, "k": 1, "l": 32, "n": 1}
    assert result["order"] == "bmlkn"
    assert result["dv"] == 12 * 2 * 512 * 512 * 128 // 32 == 25_165_824


def test_closed_form_takes_a_short_loop_whole():
    # M = 4 < T: m is whole and l grows: 4*1 + 1*tl + 4*tl <= 100 -> tl = 19.
    ops = chimera_ops(GEMM_PAIR, {"m": 4, "k": 8, "l": 64, "n": 8})
    result = closed_form_tiles(ops, 100)
    assert result["tiles"]["m"] == 4
    assert result["tiles"]["l"] == 19
    assert result["mu"] <= 100


# ----------------------------------------------------------------------------- search


def _all_points(ops, model: str) -> list[tuple[int, int]]:
    """(DV, MU) of every legal order and tiling."""
    loops = chain_loops(ops)
    sizes = {r: n for op in ops for r, n in op.sizes.items()}
    dv_key, mu_key = ("dv", "mu") if model == "chimera" else ("dv_rmw", "mu_live")
    points = []
    for order in itertools.permutations(loops):
        for choice in itertools.product(*(range(1, sizes[r] + 1) for r in loops)):
            try:
                result = evaluate_order(ops, list(order), dict(zip(loops, choice)))
            except InputError:
                continue  # a reduction outside its output's loops
            points.append((result[dv_key], result[mu_key]))
    return points


def _brute_best(points: list[tuple[int, int]], capacity: int) -> tuple[int, int] | None:
    return min((p for p in points if p[1] <= capacity), default=None)


@pytest.mark.parametrize("model", ["chimera", "strict"])
def test_search_equals_brute_force(model):
    ops = chimera_ops(GEMM_PAIR, {"m": 4, "k": 2, "l": 3, "n": 2})
    points = _all_points(ops, model)
    key = ("dv", "mu") if model == "chimera" else ("dv_rmw", "mu_live")
    for capacity in (3, 4, 6, 9, 13, 20, 40):
        found = search(ops, capacity, model=model)["best"]
        assert (found[key[0]], found[key[1]]) == _brute_best(points, capacity)


def test_search_equals_brute_force_on_three_operators():
    chain = GEMM_PAIR + [("mm3", "G[m,p] += E[m,n] * F[n,p]")]
    ops = chimera_ops(chain, {"m": 3, "k": 2, "l": 2, "n": 2, "p": 2})
    points = _all_points(ops, "chimera")
    for capacity in (4, 7, 12):
        found = search(ops, capacity)["best"]
        assert (found["dv"], found["mu"]) == _brute_best(points, capacity)


def test_perfect_tiles_are_divisors():
    assert tile_candidates(12, perfect=True) == [1, 2, 3, 4, 6, 12]
    # ceil(10/n) for n = 1..10: 10, 5, 4, 3, 2, 2, 2, 2, 2, 1
    assert tile_candidates(10) == [1, 2, 3, 4, 5, 10]
    ops = chimera_ops(ATTENTION, BERT)
    best = search(ops, 1000, perfect=True)["best"]
    assert all(BERT[r] % t == 0 for r, t in best["tiles"].items())


@pytest.mark.parametrize("model", ["chimera", "strict"])
def test_more_capacity_is_never_worse(model):
    ops = chimera_ops(GEMM_PAIR, {"m": 12, "k": 5, "l": 9, "n": 4})
    key = "dv" if model == "chimera" else "dv_rmw"
    previous = None
    for capacity in range(4, 400, 9):
        dv = search(ops, capacity, model=model)["best"][key]
        assert previous is None or dv <= previous
        previous = dv
    assert previous == algorithmic_minimum(ops)  # 60 + 45 + 36 + 48 = 189
    assert previous == 189


def test_bert_and_ffn_searches():
    bert = chimera_ops(ATTENTION, BERT)
    ticks = []
    result = search(bert, 1088, progress=lambda done, total: ticks.append((done, total)))
    assert ticks and ticks[-1] == (result["classes"], result["classes"])
    assert result["best"]["mu"] <= 1088
    assert result["best"]["dv"] <= result["closed_form"]["dv"] == 25_165_824
    # whole tensors: 4 * 12*512*64 words
    assert search(bert, 1 << 20)["best"]["dv"] == 4 * 12 * 512 * 64 == 1_572_864
    ffn = chimera_ops(FFN, FFN_SIZES)
    # C = 1024^2 + 2*1024: T = 1024 divides M and L; DV* = 2*M*L*(K+N)/T = 8,589,934,592.
    result = search(ffn, 1024 * 1024 + 2048)
    assert result["closed_form"]["dv"] == 2 * 32768 * 16384 * 8192 // 1024 == 8_589_934_592
    assert result["best"]["dv"] <= result["closed_form"]["dv"]
    assert result["best"]["mu"] <= 1024 * 1024 + 2048
    # |X| + |W1| + |W2| + |Y| = 2*32768*4096 + 2*4096*16384
    assert search(ffn, 1 << 28)["best"]["dv"] == 402_653_184


# ----------------------------------------------------------------------------- input


def test_parse_order_forms():
    assert parse_order("mlkn", ["m", "k", "l", "n"]) == ["m", "l", "k", "n"]
    assert parse_order("m, l, k, n", ["m", "k", "l", "n"]) == ["m", "l", "k", "n"]
    assert parse_order("mm,kk", ["kk", "mm"]) == ["mm", "kk"]
    ops = chimera_ops([("g", "C[mm,nn] += A[mm,kk] * B[kk,nn]")], {"mm": 2, "kk": 2, "nn": 2})
    assert evaluate_order(ops, "nn,mm,kk")["order"] == "nn,mm,kk"


@pytest.mark.parametrize(
    "text, message",
    [
        ("mlkx", "unknown loop 'x'"),
        ("mlkk", "appears twice"),
        ("mlk", "missing: n"),
        ("", "expected a loop order"),
    ],
)
def test_bad_orders(small, text, message):
    with pytest.raises(InputError, match=message) as info:
        evaluate_order(small, text)
    assert info.value.key == "--order"


def test_long_loop_names_need_commas():
    with pytest.raises(InputError, match="separate them with commas"):
        parse_order("mmkk", ["mm", "kk"])


@pytest.mark.parametrize(
    "tiles, message",
    [
        ({"m": 0}, "outside 1..8"),
        ({"m": 9}, "outside 1..8"),
        ({"x": 2}, "unknown loop 'x'"),
        ({"m": 2.5}, "expected an integer tile"),
    ],
)
def test_bad_tiles(small, tiles, message):
    with pytest.raises(InputError, match=message):
        evaluate_order(small, "mlkn", tiles)


def test_reduction_outside_the_intermediate_is_illegal(small):
    # k (reduced by mm1) outside l (indexes C), both with two trips: C would be handed over
    # before it is complete.
    with pytest.raises(InputError, match="loop k .* lies outside loop l") as info:
        evaluate_order(small, "mkln", {"k": 2, "l": 3})
    assert info.value.key == "--order"


@pytest.mark.parametrize(
    "einsums, key, message",
    [
        (
            [("a", "C[m,l] += A[m,k] * B[k,l]"), ("b", "E[m,n] += X[m,l] * D[l,n]")],
            "einsums[1]",
            "does not read C",
        ),
        (
            [("a", "C[m,l] += A[m,k] * B[k,l]"), ("b", "E[m,n] += C[l,m] * D[l,n]")],
            "einsums[1]",
            "the ranks must match",
        ),
        (
            GEMM_PAIR + [("c", "G[m,p] += E[m,n] * C[m,l]")],
            "einsums[2]",
            "C is also used by einsums[0]",
        ),
        ([("a", "C[m,l] += A[m+1,k] * B[k,l]")], "einsums[0]", "plain rank names"),
        ([("a", "C[m,l] += A[m,k] * A[k,l]")], "einsums[0]", "reads each tensor once"),
        ([], "einsums", "non-empty list"),
    ],
)
def test_bad_chains(einsums, key, message):
    sizes = {"m": 4, "k": 4, "l": 4, "n": 4, "p": 4}
    used = {r: n for r, n in sizes.items() if any(r in text for _, text in einsums)}
    with pytest.raises(InputError, match=re.escape(message)) as info:
        chimera_ops(einsums, used, "chain.yaml")
    assert info.value.key == key
    assert info.value.source == "chain.yaml"


def test_bad_sizes():
    with pytest.raises(InputError, match="has no size") as info:
        chimera_ops(GEMM_PAIR, {"m": 4, "k": 4, "l": 4})
    assert info.value.key == "bounds.n"
    with pytest.raises(InputError, match="must be positive"):
        chimera_ops(GEMM_PAIR, {"m": 4, "k": 4, "l": 4, "n": 0})
    with pytest.raises(InputError, match="appears in no einsum"):
        chimera_ops(GEMM_PAIR, {"m": 4, "k": 4, "l": 4, "n": 4, "z": 2})


def test_bad_capacities_and_models(small):
    with pytest.raises(InputError, match="at least 3") as info:
        search(small, 2)  # tiles of 1 need one word per tensor of an operator
    assert info.value.key == "--capacity"
    with pytest.raises(InputError, match="positive number of words"):
        search(small, 0)
    with pytest.raises(InputError, match="unknown model"):
        search(small, 100, model="fast")
    with pytest.raises(InputError, match="below 3"):
        closed_form_tiles(small, 2)


def test_closed_form_needs_a_gemm_pair():
    chain = GEMM_PAIR + [("mm3", "G[m,p] += E[m,n] * F[n,p]")]
    ops = chimera_ops(chain, {"m": 4, "k": 4, "l": 4, "n": 4, "p": 4})
    with pytest.raises(InputError, match="two matrix products"):
        closed_form_tiles(ops, 100)
    assert "closed_form" not in search(ops, 100)
