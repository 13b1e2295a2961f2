"""Chimera's block-order models (tenet/chimera.py): Algorithm 1 as printed ("paper", the
default) and the producer-rerun and strict variants, by hand; Table III's closed form; brute
force against the search; the command line; and input errors."""

from __future__ import annotations

import itertools
import json
import re
from math import ceil

import pytest

from tenet.bounds.chimera import (
    algorithmic_minimum,
    chain_loops,
    chimera_ops,
    closed_form_tiles,
    evaluate_order,
    order_classes,
    parse_order,
    search,
    tile_candidates,
)
from tenet.errors import InputError

from ..helpers import run_cli, write_yaml

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
# Algorithm 1 as printed ("paper"): a moved tensor of operator i starts at its tile (the tile
# as given, edge or not); walking the order from the innermost loop outwards, from the
# innermost loop indexing the tensor on, every loop of operator i multiplies it by its trip
# count, and loops of other operators are skipped. After operator i, its private loops leave.

BIG = {"m": 512, "k": 64, "l": 512, "n": 64}


def _tiles_and_trips(sizes, tiles):
    return tiles, {r: ceil(sizes[r] / tiles[r]) for r in sizes}


PAPER_CASES = {
    # The brief's example. Order l m n k, tiles m=128 (4 trips), l=32 (16), k=64 (1), n=16 (4).
    # mm1 walks k n m l: A[m,k] from k: k, (n is mm2's), m, l; B[k,l] from k: k, m, l.
    # k leaves; mm2 walks n m l: D[l,n] from n: n, m, l; E[m,n] from n: n, m, l.
    "lmnk": (
        BIG,
        "lmnk",
        {"m": 128, "l": 32, "k": 64, "n": 16},
        {
            "A": 128 * 64 * (ceil(64 / 64) * ceil(512 / 128) * ceil(512 / 32)),  # 524,288
            "B": 64 * 32 * (ceil(64 / 64) * ceil(512 / 128) * ceil(512 / 32)),  # 131,072
            "D": 32 * 16 * (ceil(64 / 16) * ceil(512 / 128) * ceil(512 / 32)),  # 131,072
            "E": 128 * 16 * (ceil(64 / 16) * ceil(512 / 128) * ceil(512 / 32)),  # 524,288
        },
        128 * 64 + 64 * 32 + 128 * 32,  # mm1's A, B, C tiles (mm2: 4096 + 512 + 2048)
        0,
    ),
    # Order m n l k, same tiles. mm1 walks k l n m: A from k: k, l, m; B from k: k, l, m.
    # mm2 walks l n m: D[l,n] from l: l, n, m; E[m,n] from n (l inside is not counted): n, m.
    "mnlk": (
        BIG,
        "mnlk",
        {"m": 128, "l": 32, "k": 64, "n": 16},
        {
            "A": 128 * 64 * (1 * 16 * 4),  # 524,288
            "B": 64 * 32 * (1 * 16 * 4),  # 131,072
            "D": 32 * 16 * (16 * 4 * 4),  # 131,072
            "E": 128 * 16 * (4 * 4),  # 32,768
        },
        128 * 64 + 64 * 32 + 128 * 32,
        0,
    ),
    # Order m k n l, tiles m=128 (4), k=16 (4), l=32 (16), n=16 (4): the reduction k of mm1
    # lies outside l, which indexes C (producer-rerun rejects it; here: a warning).
    # mm1 walks l n k m: A[m,k] from k (l inside does not index A): k, m; B[k,l] from l: l,
    # k, m (n skipped). k leaves; mm2 walks l n m: D from l: l, n, m; E from n: n, m.
    "mknl": (
        BIG,
        "mknl",
        {"m": 128, "k": 16, "l": 32, "n": 16},
        {
            "A": 128 * 16 * (4 * 4),  # 32,768
            "B": 16 * 32 * (16 * 4 * 4),  # 131,072
            "D": 32 * 16 * (16 * 4 * 4),  # 131,072
            "E": 128 * 16 * (4 * 4),  # 32,768
        },
        128 * 16 + 16 * 32 + 128 * 32,  # 6656 (mm2: 4096 + 512 + 2048, the same)
        1,
    ),
    # Non-divisor tiles: order m l k n, m=96 and l=96 (ceil(512/96) = 6 trips, the last tile
    # 32 rows), k and n whole. Every tile counts whole: 6 * 96 = 576 rows of m and of l.
    # mm1 walks n k l m: A from k: k, l, m; B from k: k, l, m. mm2 walks n l m: D, E from n.
    "mlkn-96": (
        BIG,
        "mlkn",
        {"m": 96, "l": 96},
        {
            "A": 96 * 64 * (1 * 6 * 6),  # 221,184 = 576 * 64 * 6
            "B": 64 * 96 * (1 * 6 * 6),  # 221,184
            "D": 96 * 64 * (1 * 6 * 6),  # 221,184
            "E": 96 * 64 * (1 * 6 * 6),  # 221,184
        },
        96 * 64 + 64 * 96 + 96 * 96,  # 21,504
        0,
    ),
    # Small sizes m=8, k=4, l=6, n=2, order m n l k, tiles m=3 (3 trips), l=4 (2), n=1 (2),
    # k whole. A from k: k, l, m; B from k: k, l, m; D from l: l, n, m; E from n: n, m.
    "small-mnlk": (
        {"m": 8, "k": 4, "l": 6, "n": 2},
        "mnlk",
        {"m": 3, "l": 4, "n": 1},
        {
            "A": 3 * 4 * (1 * 2 * 3),
            "B": 4 * 4 * (1 * 2 * 3),
            "D": 4 * 1 * (2 * 2 * 3),
            "E": 3 * 1 * (2 * 3),
        },
        max(3 * 4 + 4 * 4 + 3 * 4, 3 * 4 + 4 * 1 + 3 * 1),  # 40
        0,
    ),
    # Small sizes, order m k n l, tiles m=2 (4), k=2 (2), l=3 (2), n whole: k outside l with
    # two trips each (a warning). A from k (l inside does not index A): k, m; B from l: l, k,
    # m; D from l: l, n, m; E from n: n, m.
    "small-mknl": (
        {"m": 8, "k": 4, "l": 6, "n": 2},
        "mknl",
        {"m": 2, "k": 2, "l": 3},
        {
            "A": 2 * 2 * (2 * 4),
            "B": 2 * 3 * (2 * 2 * 4),
            "D": 3 * 2 * (2 * 1 * 4),
            "E": 2 * 2 * (1 * 4),
        },
        max(2 * 2 + 2 * 3 + 2 * 3, 2 * 3 + 3 * 2 + 2 * 2),  # 16
        1,
    ),
}


@pytest.mark.parametrize("case", sorted(PAPER_CASES))
def test_paper_model_by_hand(case):
    sizes, order, tiles, per_tensor, mu, warned = PAPER_CASES[case]
    ops = chimera_ops(GEMM_PAIR, sizes)
    result = evaluate_order(ops, order, tiles)  # the default model is the paper's
    assert result["model"] == "paper"
    assert result["per_tensor"] == per_tensor
    assert result["dv"] == sum(per_tensor.values())
    assert result["mu"] == mu
    assert len(result["warnings"]) == warned
    assert result["dv"] == evaluate_order(ops, order, tiles, "paper")["dv"]


def test_paper_lmnk_is_the_brief_example():
    # The example of the task: Algorithm 1 as printed gives 1,310,720; producer-rerun charges
    # A the trips of l and of mm2's n outside k (32768 * 16 * 4), B those of m and n, D those
    # of m, E those of l: 2,097,152 + 524,288 + 131,072 + 524,288 = 3,276,800.
    ops = chimera_ops(GEMM_PAIR, BIG)
    tiles = {"m": 128, "l": 32, "k": 64, "n": 16}
    assert evaluate_order(ops, "lmnk", tiles)["dv"] == 1_310_720
    rerun = evaluate_order(ops, "lmnk", tiles, "producer-rerun")
    assert rerun["per_tensor"] == {
        "A": 512 * 64 * 16 * 4,
        "B": 64 * 512 * 4 * 4,
        "D": 512 * 64 * 4,
        "E": 512 * 64 * 16,
    }
    assert rerun["dv"] == 3_276_800
    assert rerun["model"] == "producer-rerun" and rerun["warnings"] == []


def test_paper_model_on_three_operators_by_hand():
    # m=6, k=4, l=6, n=4, p=3; order p n m l k; tiles m=4 (2 trips, 4 + 2), k=2 (2), l=3 (2),
    # n=2 (2), p whole (1). Moved: A, B (mm1), D (mm2), F, G (mm3); C and E stay on chip.
    # mm1 walks k l m n p: A[m,k] from k: k, l, m (n, p are not mm1's) -> 4*2 * 2*2*2 = 64;
    #   B[k,l] from k: k, l, m -> 2*3 * 8 = 48.  k leaves.
    # mm2 walks l m n p: D[l,n] from l: l, m, n -> 3*2 * 8 = 48.  l leaves.
    # mm3 walks m n p: F[n,p] from n (m inside does not index F): n, p -> 2*3 * 2*1 = 12;
    #   G[m,p] from m: m, n, p -> 4*3 * 2*2*1 = 48.  DV = 220.
    # MU: mm1 8 + 6 + 12, mm2 12 + 6 + 8, mm3 8 + 6 + 12: 26 each.
    chain = GEMM_PAIR + [("mm3", "G[m,p] += E[m,n] * F[n,p]")]
    ops = chimera_ops(chain, {"m": 6, "k": 4, "l": 6, "n": 4, "p": 3})
    result = evaluate_order(ops, "pnmlk", {"m": 4, "k": 2, "l": 3, "n": 2})
    assert result["per_tensor"] == {
        "A": 4 * 2 * (2 * 2 * 2),
        "B": 2 * 3 * (2 * 2 * 2),
        "D": 3 * 2 * (2 * 2 * 2),
        "F": 2 * 3 * (2 * 1),
        "G": 4 * 3 * (2 * 2 * 1),
    }
    assert result["dv"] == 220
    assert result["mu"] == 26
    assert result["warnings"] == []


def test_incomplete_tiles_warn_under_the_paper_model(small):
    # m k n l, tiles m=2, k=2, l=3: k (mm1's reduction, 2 trips) lies outside l (2 trips),
    # which indexes C. Algorithm 1 counts it (see "small-mknl": 192 words) with a warning;
    # the strict numbers are absent because the strict model rejects the order.
    result = evaluate_order(small, "mknl", {"m": 2, "k": 2, "l": 3})
    assert result["dv"] == 32 + 96 + 48 + 16
    warning = (
        "order 'mknl': loop k (a reduction of mm1) lies outside loop l, which indexes its "
        "output C[m, l], so mm1 would hand over incomplete tiles of C"
    )
    assert result["warnings"] == [warning]
    assert result["dv_rmw"] is None and result["mu_live"] is None
    for model in ("producer-rerun", "strict"):
        with pytest.raises(InputError, match="loop k .* lies outside loop l"):
            evaluate_order(small, "mknl", {"m": 2, "k": 2, "l": 3}, model)


@pytest.mark.parametrize(
    "tiles",
    [
        {"m": 4, "k": 2, "l": 3, "n": 1},
        {"m": 8, "k": 8, "l": 6, "n": 2},
        {"m": 2, "k": 4, "l": 12, "n": 4},
        {"m": 16, "k": 1, "l": 4, "n": 2},
        {"m": 1, "k": 1, "l": 1, "n": 1},
    ],
)
def test_table_iii_closed_form_for_mlkn(tiles):
    # Table III, order m l k n with tiles dividing the loops. By Algorithm 1: mm1 walks n k l
    # m; A[m,k] from k: k, l, m -> T_M*T_K * (K/T_K)(L/T_L)(M/T_M) = M*K * L/T_L; B[k,l]
    # from k: k, l, m -> K*L * M/T_M.  mm2 walks n l m: D[l,n] from n: n, l, m -> N*L *
    # M/T_M; E[m,n] from n: n, l, m -> M*N * L/T_L.  So DV = (MK + MN) L/T_L + (KL + NL) M/T_M,
    # free of T_K and T_N; MU = max(T_M T_K + T_K T_L + T_M T_L, T_M T_L + T_L T_N + T_M T_N).
    M, K, L, N = 16, 8, 12, 4
    ops = chimera_ops(GEMM_PAIR, {"m": M, "k": K, "l": L, "n": N})
    tm, tk, tl, tn = (tiles[r] for r in "mkln")
    result = evaluate_order(ops, "mlkn", tiles)
    assert result["per_tensor"] == {
        "A": M * K * (L // tl),
        "B": K * L * (M // tm),
        "D": N * L * (M // tm),
        "E": M * N * (L // tl),
    }
    assert result["dv"] == (M * K + M * N) * (L // tl) + (K * L + N * L) * (M // tm)
    assert result["mu"] == max(tm * tk + tk * tl + tm * tl, tm * tl + tl * tn + tm * tn)
    # with divisor tiles the producer-rerun model agrees on this order
    assert evaluate_order(ops, "mlkn", tiles, "producer-rerun")["dv"] == result["dv"]


@pytest.mark.parametrize("model", ["paper", "producer-rerun"])
def test_paper_order_mlkn_by_hand(small, model):
    # Order m l k n (m outermost), tiles m=2, k=4, l=3, n=2: trips m 4, k 1, l 2, n 1.
    # mm1 sees m l k n: A[m,k] innermost indexing loop k, outside it l -> 32*2 = 64;
    #   B[k,l] innermost k, outside it m -> 24*4 = 96.
    # k is private to mm1 and leaves; mm2 sees m l n: D[l,n] innermost n, outside m -> 12*4
    #   = 48; E[m,n] innermost n, outside l -> 16*2 = 32.
    # The paper's formula MK*ceil(L/TL) + KL*ceil(M/TM) + NL*ceil(M/TM) + MN*ceil(L/TL) gives
    # the same 240 (the tiles divide the loops, so both models agree).  MU: mm1 2*4 + 4*3 +
    # 2*3 = 26, mm2 6 + 3*2 + 2*2 = 16.
    result = evaluate_order(small, "mlkn", {"m": 2, "l": 3}, model)
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
    # Producer-rerun, order m n l k, tiles m=3 (trips 3: 3+3+2 rows), k=4 (1), l=4 (2: 4+2),
    # n=1 (2).
    # mm1 sees m n l k (n belongs to mm2 but encloses mm1, which is re-run per n trip):
    #   A[m,k] innermost k, outside n and l -> 32*2*2 = 128; B[k,l] innermost k, outside m, n
    #   -> 24*3*2 = 144.  mm2 sees m n l: D[l,n] innermost l, outside m -> 12*3 = 36;
    #   E[m,n] innermost n, outside nothing that skips it -> 16.  DV = 324.
    # MU with full-size tiles 3, 4, 4, 1: mm1 3*4 + 4*4 + 3*4 = 40; mm2 12 + 4*1 + 3*1 = 19.
    # E's tile (3) stays on chip across the l loop, inside which mm1 runs: mu_live = 43.
    result = evaluate_order(
        small, ["m", "n", "l", "k"], {"m": 3, "l": 4, "n": 1}, model="producer-rerun"
    )
    assert result["per_tensor"] == {"A": 128, "B": 144, "D": 36, "E": 16}
    assert result["dv"] == result["dv_rmw"] == 324
    assert result["mu"] == 40
    assert result["mu_live"] == 43
    # The same order and tiles under Algorithm 1 ("small-mnlk" above): 72 + 96 + 48 + 18.
    assert evaluate_order(small, "mnlk", {"m": 3, "l": 4, "n": 1})["dv"] == 234


@pytest.mark.parametrize("model", ["paper", "producer-rerun"])
def test_batched_attention_reaches_the_minimum_by_hand(model):
    # b=2, m=4, k=2, l=4, n=2; order b k m n l, tiles b=1, l=1, the rest whole.
    # Producer-rerun: qk sees b k m n l: Q[b,m,k] innermost loop m, nothing outside skips Q
    #   -> |Q| = 16; K[b,k,l] innermost l, outside m and n have one trip -> 16.  qk's k leaves.
    #   sv sees b m n l: V[b,l,n] innermost l, outside m (one trip) -> 16; O innermost n -> 16.
    # Paper: Q's tile 1*4*2 times m, k, b from m outwards (n, l skipped or inside) -> 8*2;
    #   K's 1*2*1 times l, m, k, b -> 2*4*2; V's 1*1*2 times l, n, m, b -> 2*4*2; O's 1*4*2
    #   times n, m, b -> 8*2.  Each is 16 either way.
    # DV = 64 = |Q|+|K|+|V|+|O|.  MU: qk 4*2 + 2*1 + 4*1 = 14, sv 4 + 1*2 + 4*2 = 14.
    # Live: Q (8 words) is reused across the l loop, which encloses sv; O (8) across l,
    # which encloses qk -> 22.
    ops = chimera_ops(ATTENTION, {"b": 2, "m": 4, "k": 2, "l": 4, "n": 2})
    result = evaluate_order(ops, "bkmnl", {"b": 1, "l": 1}, model)
    assert result["per_tensor"] == {"Q": 16, "K": 16, "V": 16, "O": 16}
    assert result["dv"] == result["dv_rmw"] == 64
    assert result["mu"] == 14
    assert result["mu_live"] == 22


def test_whole_reduction_loop_may_go_outside(small):
    # Producer-rerun: m k l n with l whole is legal (l has one trip): A innermost k, outside
    # m indexes it -> 32; B innermost l, outside m -> 24*4 = 96; D innermost n, outside m ->
    # 48; E innermost n, outside l (one trip) -> 16.  DV = 192.
    result = evaluate_order(small, "mkln", {"m": 2, "k": 2, "l": 6}, model="producer-rerun")
    assert result["dv"] == 192


@pytest.mark.parametrize("model", ["paper", "producer-rerun", "strict"])
def test_full_tiles_move_each_tensor_once(small, model):
    # Whole tiles: every order moves the inputs and the output once, 32 + 24 + 12 + 16 = 84,
    # and MU is the larger operator, max(32 + 24 + 48, 48 + 12 + 16) = 104.
    assert algorithmic_minimum(small) == 84
    for order in itertools.permutations(chain_loops(small)):
        result = evaluate_order(small, list(order), model=model)
        assert (result["dv"], result["dv_rmw"], result["mu"]) == (84, 84, 104)
        assert result["warnings"] == []


# The side-by-side examples of docs/chimera.md (the paper's numbers are PAPER_CASES above):
# producer-rerun charges |T| times the loops of the view outside T's innermost indexing loop
# that do not index T; strict adds 2W - |O| for the output and the tiles held across.
RERUN_CASES = {
    # l m n k (trips m 4, l 16, k 1, n 4): A outside k: l, n; B: m, n; D outside n: m; E: l.
    "lmnk": ({"A": 32768 * 16 * 4, "B": 32768 * 4 * 4, "D": 32768 * 4, "E": 32768 * 16}, 14336),
    # m n l k: A outside k: n, l; B: m, n; D outside l: m; E: nothing (m indexes E).
    # E's tile 128*16 is held across l, which encloses mm1: mu_live = 14336 + 2048.
    "mnlk": ({"A": 32768 * 4 * 16, "B": 32768 * 4 * 4, "D": 32768 * 4, "E": 32768}, 16384),
    # m l k n, m = l = 96 (6 trips): A, E reloaded over l; B, D over m.
    "mlkn-96": ({"A": 32768 * 6, "B": 32768 * 6, "D": 32768 * 6, "E": 32768 * 6}, 21504),
}


@pytest.mark.parametrize("case", sorted(RERUN_CASES))
def test_docs_side_by_side(case):
    sizes, order, tiles, paper, mu, _ = PAPER_CASES[case]
    rerun, mu_live = RERUN_CASES[case]
    ops = chimera_ops(GEMM_PAIR, sizes)
    for model in ("producer-rerun", "strict"):
        result = evaluate_order(ops, order, tiles, model)
        assert result["per_tensor"] == rerun
        assert result["dv"] == sum(rerun.values())
        assert result["mu"] == mu
        # E moves W = rerun["E"] words; read-modify-write adds W - |E|
        assert result["dv_rmw"] == sum(rerun.values()) + rerun["E"] - 32768
        assert result["mu_live"] == mu_live
    # the paper's result carries the same strict numbers
    assert evaluate_order(ops, order, tiles)["dv_rmw"] == sum(rerun.values()) + rerun["E"] - 32768
    table = {"lmnk": (1_310_720, 3_276_800), "mnlk": (819_200, 2_785_280)}
    table["mlkn-96"] = (884_736, 786_432)
    assert (sum(paper.values()), sum(rerun.values())) == table[case]
    assert {"lmnk": 3_768_320, "mnlk": 2_785_280, "mlkn-96": 950_272}[case] == (
        sum(rerun.values()) + rerun["E"] - 32768
    )


def test_docs_mknl_is_rejected_outside_the_paper_model():
    ops = chimera_ops(GEMM_PAIR, BIG)
    tiles = {"m": 128, "k": 16, "l": 32, "n": 16}
    assert evaluate_order(ops, "mknl", tiles)["dv"] == 327_680
    for model in ("producer-rerun", "strict"):
        with pytest.raises(InputError, match="incomplete tiles of C"):
            evaluate_order(ops, "mknl", tiles, model)


def test_docs_bert_searches_at_64kib():
    # docs/chimera.md's table: Bert's pair at 32,768 words under each model.
    bert = chimera_ops(ATTENTION, BERT)
    best = search(bert, 32768)["best"]
    assert (best["order"], best["dv"], best["mu"]) == ("bmknl", 1_572_864, 512 + 1 + 512)
    assert best["tiles"] == {"b": 1, "m": 512, "k": 1, "l": 1, "n": 1}
    # Q's tile 1*512*1 times the trips of k, m, b; K's 1*1*1 times l, k, m, b
    assert best["per_tensor"]["Q"] == 512 * (64 * 1 * 12)
    assert best["per_tensor"]["K"] == 1 * (512 * 64 * 1 * 12)
    assert len(best["warnings"]) == 1 and "incomplete tiles of S" in best["warnings"][0]
    best = search(bert, 32768, model="producer-rerun")["best"]
    assert (best["order"], best["dv"], best["mu"]) == ("kbmnl", 2_359_296, 16_704)
    assert best["tiles"] == {"b": 1, "m": 256, "k": 64, "l": 1, "n": 64}
    best = search(bert, 32768, model="strict", perfect=True)["best"]
    assert (best["order"], best["dv_rmw"], best["mu_live"]) == ("bmknl", 3_145_728, 24_896)
    assert best["tiles"] == {"b": 1, "m": 256, "k": 64, "l": 1, "n": 32}
    best = search(bert, 1 << 20, model="producer-rerun")["best"]
    assert (best["order"], best["dv"]) == ("kbmnl", 1_572_864)
    assert best["tiles"] == {"b": 1, "m": 512, "k": 64, "l": 1, "n": 64}


def test_docs_search_numbers():
    from math import factorial

    from tenet.bounds.chimera import MAX_CANDIDATE_ORDERS

    assert len(tile_candidates(32768)) == 362
    assert [t * ceil(5 / t) for t in range(1, 6)] == [5, 6, 6, 8, 5]

    def orders(c):  # (whole loops, order) pairs with whole loops outermost
        return sum(factorial(c) // factorial(k) for k in range(c + 1))

    assert MAX_CANDIDATE_ORDERS == 1_000_000
    assert orders(9) <= MAX_CANDIDATE_ORDERS < orders(10)
    assert 2**7 * factorial(7) <= MAX_CANDIDATE_ORDERS < 2**8 * factorial(8)


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
    # Sizes the square does not divide: under producer-rerun the closed form's DV is the
    # paper's formula at its tiles, fits, and is no better than the best integer (T_M, T_L).
    sizes = {"m": 23, "k": 5, "l": 17, "n": 3}
    ops = chimera_ops(GEMM_PAIR, sizes)
    for capacity in range(3, 200, 7):
        result = closed_form_tiles(ops, capacity, model="producer-rerun")
        nm, nl = -(-23 // result["tiles"]["m"]), -(-17 // result["tiles"]["l"])
        assert result["dv"] == 23 * 5 * nl + 5 * 17 * nm + 3 * 17 * nm + 23 * 3 * nl
        assert result["mu"] <= capacity
        assert result["dv"] >= _brute_mlkn(sizes, capacity, 1)


def test_closed_form_under_the_paper_model_counts_whole_edge_tiles():
    # Algorithm 1 multiplies tiles by trips, so an edge tile counts whole: with T_K = T_N = 1
    # the padded sizes are T_M*ceil(M/T_M) rows and T_L*ceil(L/T_L) columns, e.g.
    # A = T_M*1 * (K * ceil(L/T_L) * ceil(M/T_M)).
    sizes = {"m": 23, "k": 5, "l": 17, "n": 3}
    ops = chimera_ops(GEMM_PAIR, sizes)
    for capacity in range(3, 200, 7):
        result = closed_form_tiles(ops, capacity)
        assert result["model"] == "paper"
        tm, tl = result["tiles"]["m"], result["tiles"]["l"]
        pm, pl = tm * ceil(23 / tm), tl * ceil(17 / tl)  # padded M and L
        nm, nl = ceil(23 / tm), ceil(17 / tl)
        assert result["dv"] == pm * 5 * nl + 5 * pl * nm + 3 * pl * nm + pm * 3 * nl
        assert result["dv"] >= closed_form_tiles(ops, capacity, model="producer-rerun")["dv"]


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

KEYS = {"paper": ("dv", "mu"), "producer-rerun": ("dv", "mu"), "strict": ("dv_rmw", "mu_live")}


def _all_points(ops, model: str, perfect: bool = False) -> list[tuple[int, int]]:
    """(DV, MU) of every order and tiling the model accepts (divisor tiles with `perfect`)."""
    loops = chain_loops(ops)
    sizes = {r: n for op in ops for r, n in op.sizes.items()}
    dv_key, mu_key = KEYS[model]
    ranges = [
        [t for t in range(1, sizes[r] + 1) if not perfect or sizes[r] % t == 0] for r in loops
    ]
    points = []
    for order in itertools.permutations(loops):
        for choice in itertools.product(*ranges):
            try:
                result = evaluate_order(ops, list(order), dict(zip(loops, choice)), model)
            except InputError:
                assert model != "paper"  # the paper's model rejects no order
                continue  # a reduction outside its output's loops
            points.append((result[dv_key], result[mu_key]))
    return points


def _brute_best(points: list[tuple[int, int]], capacity: int) -> tuple[int, int] | None:
    return min((p for p in points if p[1] <= capacity), default=None)


@pytest.mark.parametrize("model", ["paper", "producer-rerun", "strict"])
def test_search_equals_brute_force(model):
    ops = chimera_ops(GEMM_PAIR, {"m": 4, "k": 2, "l": 3, "n": 2})
    points = _all_points(ops, model)
    key = KEYS[model]
    for capacity in (3, 4, 6, 9, 13, 20, 40):
        result = search(ops, capacity, model=model)
        assert result["model"] == result["best"]["model"] == model
        found = result["best"]
        assert (found[key[0]], found[key[1]]) == _brute_best(points, capacity)


@pytest.mark.parametrize("perfect", [False, True])
def test_paper_search_equals_brute_force_with_edge_tiles(perfect):
    # Sizes 5 and 6 give tiles whose padding is not monotone (ceil(5/t)*t for t = 1..5:
    # 5, 6, 6, 8, 5), so the largest tile that fits is not always the best one.
    ops = chimera_ops(GEMM_PAIR, {"m": 5, "k": 3, "l": 6, "n": 2})
    points = _all_points(ops, "paper", perfect)
    for capacity in (3, 5, 7, 10, 14, 19, 27, 40, 60):
        found = search(ops, capacity, perfect=perfect)["best"]
        assert (found["dv"], found["mu"]) == _brute_best(points, capacity)


@pytest.mark.parametrize("model", ["paper", "producer-rerun"])
def test_search_equals_brute_force_on_three_operators(model):
    chain = GEMM_PAIR + [("mm3", "G[m,p] += E[m,n] * F[n,p]")]
    ops = chimera_ops(chain, {"m": 3, "k": 2, "l": 2, "n": 2, "p": 2})
    points = _all_points(ops, model)
    for capacity in (4, 7, 12):
        found = search(ops, capacity, model=model)["best"]
        assert (found["dv"], found["mu"]) == _brute_best(points, capacity)


def test_paper_search_takes_every_order():
    # The paper's model accepts every (whole loops, order) pair: sum of 4!/k! over k = 0..4
    # = 24 + 24 + 12 + 4 + 1 = 65; producer-rerun skips those handing over incomplete tiles.
    ops = chimera_ops(GEMM_PAIR, {"m": 4, "k": 2, "l": 3, "n": 2})
    assert order_classes(ops, "paper")[1] == 65
    assert order_classes(ops, "producer-rerun")[1] < 65


def test_perfect_tiles_are_divisors():
    assert tile_candidates(12, perfect=True) == [1, 2, 3, 4, 6, 12]
    # ceil(10/n) for n = 1..10: 10, 5, 4, 3, 2, 2, 2, 2, 2, 1
    assert tile_candidates(10) == [1, 2, 3, 4, 5, 10]
    ops = chimera_ops(ATTENTION, BERT)
    best = search(ops, 1000, perfect=True)["best"]
    assert all(BERT[r] % t == 0 for r, t in best["tiles"].items())


@pytest.mark.parametrize("model", ["paper", "producer-rerun", "strict"])
def test_more_capacity_is_never_worse(model):
    ops = chimera_ops(GEMM_PAIR, {"m": 12, "k": 5, "l": 9, "n": 4})
    key = KEYS[model][0]
    previous = None
    for capacity in range(4, 400, 9):
        dv = search(ops, capacity, model=model)["best"][key]
        assert previous is None or dv <= previous
        previous = dv
    assert previous == algorithmic_minimum(ops)  # 60 + 45 + 36 + 48 = 189
    assert previous == 189


@pytest.mark.parametrize("model", ["paper", "producer-rerun"])
def test_bert_and_ffn_searches(model):
    bert = chimera_ops(ATTENTION, BERT)
    ticks = []
    result = search(
        bert, 1088, progress=lambda done, total: ticks.append((done, total)), model=model
    )
    assert ticks and ticks[-1] == (result["classes"], result["classes"])
    assert result["best"]["mu"] <= 1088
    # T = 32 divides M and L, so both models give the closed form's DV
    assert result["best"]["dv"] <= result["closed_form"]["dv"] == 25_165_824
    # whole tensors: 4 * 12*512*64 words
    assert search(bert, 1 << 20, model=model)["best"]["dv"] == 4 * 12 * 512 * 64 == 1_572_864
    ffn = chimera_ops(FFN, FFN_SIZES)
    # C = 1024^2 + 2*1024: T = 1024 divides M and L; DV* = 2*M*L*(K+N)/T = 8,589,934,592.
    result = search(ffn, 1024 * 1024 + 2048, model=model)
    assert result["closed_form"]["dv"] == 2 * 32768 * 16384 * 8192 // 1024 == 8_589_934_592
    assert result["best"]["dv"] <= result["closed_form"]["dv"]
    assert result["best"]["mu"] <= 1024 * 1024 + 2048
    # |X| + |W1| + |W2| + |Y| = 2*32768*4096 + 2*4096*16384
    assert search(ffn, 1 << 28, model=model)["best"]["dv"] == 402_653_184


def test_paper_search_reaches_the_minimum_through_incomplete_tiles():
    # Algorithm 1 as printed lets a reduction run outside its output's loops. In b m k n l
    # with m whole and every other tile 1, each tensor moves once: Q's tile 1*512*1 times k,
    # m, b from k outwards (n is sv's, l inside) = 512 * 64 * 12 = |Q|; K's 1*1*1 times l,
    # k, m, b = 512 * 64 * 12; V's and O's likewise. MU = 512 + 1 + 512 (qk's Q, K, S tiles)
    # = 1025. qk would hand S over incomplete (k outside l), which the search reports.
    bert = chimera_ops(ATTENTION, BERT)
    one = evaluate_order(bert, "bmknl", {"b": 1, "k": 1, "l": 1, "n": 1})
    assert one["dv"] == 4 * 12 * 512 * 64 and one["mu"] == 512 + 1 + 512
    assert one["warnings"] and one["dv_rmw"] is None
    best = search(bert, 1088)["best"]
    assert (best["dv"], best["mu"]) == (1_572_864, 1025)
    assert best["warnings"]


def test_bert_search_at_64kib_is_quick():
    # 64 KiB of 16-bit words: 32,768 words, under each model, in well under a few seconds.
    import time

    bert = chimera_ops(ATTENTION, BERT)
    for model in ("paper", "producer-rerun", "strict"):
        for perfect in (False, True):
            start = time.perf_counter()
            search(bert, 32768, model=model, perfect=perfect)
            assert time.perf_counter() - start < 5


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
    assert info.value.option == "order"


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


@pytest.mark.parametrize("model", ["producer-rerun", "strict"])
def test_reduction_outside_the_intermediate_is_illegal(small, model):
    # k (reduced by mm1) outside l (indexes C), both with two trips: C would be handed over
    # before it is complete.
    with pytest.raises(InputError, match="loop k .* lies outside loop l") as info:
        evaluate_order(small, "mkln", {"k": 2, "l": 3}, model)
    assert info.value.option == "order"
    # the paper's model evaluates it and warns
    assert len(evaluate_order(small, "mkln", {"k": 2, "l": 3})["warnings"]) == 1


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
    assert info.value.option == "capacity"
    with pytest.raises(InputError, match="positive number of words"):
        search(small, 0)
    with pytest.raises(InputError, match="unknown model"):
        search(small, 100, model="fast")
    with pytest.raises(InputError, match=r"unknown model 'chimera' \(choose paper, producer-rerun"):
        evaluate_order(small, "mlkn", model="chimera")
    with pytest.raises(InputError, match="below 3"):
        closed_form_tiles(small, 2)


def test_closed_form_needs_a_gemm_pair():
    chain = GEMM_PAIR + [("mm3", "G[m,p] += E[m,n] * F[n,p]")]
    ops = chimera_ops(chain, {"m": 4, "k": 4, "l": 4, "n": 4, "p": 4})
    with pytest.raises(InputError, match="two matrix products"):
        closed_form_tiles(ops, 100)
    assert "closed_form" not in search(ops, 100)


# ----------------------------------------------------------------------------- command line


def _chain_file(tmp_path):
    return write_yaml(
        tmp_path,
        "pair",
        {
            "name": "pair",
            "einsums": [{"name": name, "einsum": text} for name, text in GEMM_PAIR],
            "bounds": BIG,
        },
    )


def test_cli_default_model_is_the_papers(tmp_path, capsys):
    chain = _chain_file(tmp_path)
    args = ["fuse", "-w", chain, "--chimera", "--order", "lmnk", "--tiles", "m=128,l=32,k=64,n=16"]
    code, out, err = run_cli([*args, "--format", "json"], capsys)
    assert code == 0, err
    one = json.loads(out)
    assert one["model"] == "paper"
    assert one["dv"] == 1_310_720  # PAPER_CASES["lmnk"]
    assert one["warnings"] == []
    code, out, err = run_cli(
        [*args, "--chimera-model", "producer-rerun", "--format", "json"], capsys
    )
    assert code == 0, err
    assert json.loads(out)["model"] == "producer-rerun"
    assert json.loads(out)["dv"] == 3_276_800
    code, out, err = run_cli(
        ["fuse", "-w", chain, "--chimera", "--capacity", "4096", "--format", "json"], capsys
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["model"] == report["best"]["model"] == "paper"


def test_cli_warns_of_incomplete_tiles(tmp_path, capsys):
    chain = _chain_file(tmp_path)
    args = ["fuse", "-w", chain, "--chimera", "--order", "mknl", "--tiles", "m=128,k=16,l=32,n=16"]
    code, out, err = run_cli([*args, "--format", "json"], capsys)
    assert code == 0, err
    one = json.loads(out)
    assert one["dv"] == 32_768 + 131_072 + 131_072 + 32_768  # PAPER_CASES["mknl"]
    assert len(one["warnings"]) == 1 and "incomplete tiles of C" in one["warnings"][0]
    assert one["dv_rmw"] is None
    code, out, err = run_cli(args, capsys)
    assert code == 0, err
    assert "model: paper" in out
    assert "warning: order 'mknl': loop k (a reduction of mm1) lies outside loop l" in out
    assert "strict: rejects this order" in out
    code, out, err = run_cli([*args, "--chimera-model", "producer-rerun"], capsys)
    assert code == 2 and out == ""
    assert err.startswith(f"tenet: error: {chain}: --order: order 'mknl'")
    assert err.count("\n") == 1


def test_cli_unknown_model_is_one_line(tmp_path, capsys):
    chain = _chain_file(tmp_path)
    code, out, err = run_cli(
        ["fuse", "-w", chain, "--chimera", "--order", "mlkn", "--chimera-model", "chimera"],
        capsys,
    )
    assert code == 2 and out == ""
    assert err == (
        "tenet: error: --chimera-model: unknown model 'chimera' "
        "(choose paper, producer-rerun or strict)\n"
    )
