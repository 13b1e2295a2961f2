"""Fusion bounds (`tenet fuse`): hand-computed chains, a loop-nest simulation of every FFMT
template, closed-form minima, and the published GPT-3 findings."""

from __future__ import annotations

import itertools
import json

import pytest

from tenet.bounds.chain import build_chain, load_chain
from tenet.bounds.front import Front, FrontPoint
from tenet.bounds.fusion import (
    algorithmic_minima,
    choices,
    compositions,
    fuse,
    product_shape,
    snowcat_front,
    step_sum,
    tiled_front,
    untiled_front,
)
from tenet.bounds.snowcat import evaluate, problem_from_einsum
from tenet.bounds.templates import TEMPLATES
from tenet.formats.presets import resolve_workload

from ..helpers import run_cli, write_yaml

MIB_WORDS = 2**19  # 1 MiB of 16-bit words

SMALL = [
    ("G1", "B[m,n] += A[m,k] * W1[k,n]"),
    ("G2", "C[m,p] += B[m,n] * W2[n,p]"),
]


def small_chain(m=8, k=4, n=4, p=4):
    return build_chain("small", SMALL, {"m": m, "k": k, "n": n, "p": p})


def points(front):
    return [(p.buffer, p.accesses) for p in front]


# --- a loop-nest simulation of one product under a template ------------------------------

LOOPS = {  # backing-store loops, outermost first
    "Full": ("m",),
    "TiledK": ("m", "k"),
    "TiledN": ("m", "n"),
    "TiledKN": ("m", "n", "k"),
    "TiledNK": ("m", "k", "n"),
    "FlashN": ("n", "m"),
    "FlashK": ("k", "m"),
}


def simulate_product(shape, template, m0, k0, n0, streamed):
    """Walk the outer loops; a tile is fetched when its id changes (one tile per tensor in
    the buffer), a streamed weight every step; the output is written when its tile changes
    and read back when it was written before. Returns (A, W, O) accesses."""
    m1, k1, n1 = shape.m // m0, shape.k // k0, shape.n // n0
    trips = {"m": m1, "k": k1, "n": n1}
    inner = shape.m // shape.groups
    h = shape.heads
    loops = LOOPS[template]
    a = w = o = 0
    last = {"A": None, "W": None, "O": None}
    written = set()
    for step in itertools.product(*[range(trips[x]) for x in loops]):
        idx = dict(zip(loops, step))
        idx.update({x: 0 for x in "mkn" if x not in idx})
        rows = range(idx["m"] * m0, (idx["m"] + 1) * m0)
        groups = frozenset(r // inner for r in rows)
        tile_a, tile_w, tile_o = (
            (idx["m"], idx["k"]),
            (groups, idx["k"], idx["n"]),
            (idx["m"], idx["n"]),
        )
        if tile_a != last["A"]:
            a += m0 * k0 * h
        if streamed or tile_w != last["W"]:
            w += len(groups) * k0 * n0 * h
        if tile_o != last["O"]:
            if last["O"] is not None:
                o += m0 * n0 * h  # write back the previous output tile
                written.add(last["O"])
            if tile_o in written:
                o += m0 * n0 * h  # read back partial sums
        last.update(A=tile_a, W=tile_w, O=tile_o)
    o += m0 * n0 * h  # the final write-back
    return a, w, o


@pytest.mark.parametrize("template", TEMPLATES)
@pytest.mark.parametrize(
    "einsum,sizes",
    [
        (SMALL, {"m": 8, "k": 4, "n": 4, "p": 4}),
        (
            [
                ("qk", "S[b,t,s] += Q[b,t,e] * K[b,e,s]"),
                ("av", "C[b,t,v] += S[b,t,s] * V[b,s,v]"),
            ],
            {"b": 2, "t": 4, "s": 4, "e": 2, "v": 2},
        ),
    ],
)
def test_template_costs_match_a_loop_nest_walk(template, einsum, sizes):
    chain = build_chain("c", einsum, sizes)
    shape = product_shape(chain, 0, set())
    for m0 in [d for d in range(1, shape.m + 1) if shape.m % d == 0]:
        for ch in choices(shape, template, m0):
            streamed = ch.weight_tile == 1
            a, w, o = simulate_product(shape, template, m0, ch.k0, ch.n0, streamed)
            assert (ch.first_input, ch.weight, ch.last_output) == (a, w, o), (m0, ch)


# --- hand-computed small chain -----------------------------------------------------------


def test_small_chain_hand_points():
    chain = small_chain()
    front = points(tiled_front(chain, [0, 1], "ffmt"))
    # M0=1 with every tile one word: G1 W1 streamed 16*8, A re-read per N tile 32*4; G2 W2
    # 16*8, C re-read and re-written (2*4-1)*32 = 224; buffer: 1 + 1 + 1 per product.
    assert front[0] == (3, 128 + 128 + 128 + 224)
    # M0=2, K0=1, N0=2 then K0'=2, N0'=1: A 32*2, W1 16*4, W2 16*4, C (2*2-1)*32; buffer
    # per product 1 + 2 + 4 and 1 + 4 + 2.
    assert (7, 64 + 64 + 64 + 96) in front
    # The fused minimum A + W1 + W2 + C = 32 + 16 + 16 + 32 at M0=1 with both weights
    # resident: 16 + 16 persist, plus the largest row pair 4 + 4.
    assert front[-1] == (40, 96)
    assert algorithmic_minima(chain) == {"fused": 96, "unfused": 32 + 16 + 32 + 32 + 16 + 32}


def test_small_chain_untiled_matches_exhaustive_hand_search():
    # G1 keeps B whole (32) and streams k outermost: A 1 word, a W1 row of 4 (W1 once,
    # A once): 37 words, 48 accesses; G2 symmetric; 96 = the fused minimum.
    assert points(untiled_front(small_chain(), [0, 1])) == [(34, 304), (35, 176), (37, 96)]


def test_unfused_is_the_step_sum_of_each_einsums_own_slope():
    chain = small_chain()
    slopes = []
    for text, shape in (
        (SMALL[0][1], {"m": 8, "k": 4, "n": 4}),
        (SMALL[1][1], {"m": 8, "n": 4, "p": 4}),
    ):
        result = evaluate(problem_from_einsum(text, shape))
        slopes.append(
            Front(
                tuple(
                    FrontPoint(int(result.buffer[i]), int(result.accesses[i]))
                    for i in result.front.tolist()
                )
            )
        )
    expected = step_sum(slopes)
    result = fuse(chain, segment=False)
    assert points(result.unfused) == points(expected)
    # At every size the sum of the two slopes read there.
    for size in range(3, 30):
        got = result.unfused.at(size)
        want = sum(s.at(size).accesses for s in slopes)
        assert got.accesses == want


def test_merged_ranks_give_the_same_slope_as_separate_ranks():
    chain = build_chain(
        "att",
        [("qk", "S[b,h,t,s] += Q[b,t,h,e] * K[b,s,h,e]")],
        {"b": 2, "h": 2, "t": 4, "s": 4, "e": 2},
    )
    merged = points(snowcat_front(chain, 0))
    result = evaluate(
        problem_from_einsum(
            "S[b,h,t,s] += Q[b,t,h,e] * K[b,s,h,e]", {"b": 2, "h": 2, "t": 4, "s": 4, "e": 2}
        )
    )
    separate = sorted(
        (int(result.buffer[i]), int(result.accesses[i])) for i in result.front.tolist()
    )
    assert merged == separate


def test_segmentation_count_and_best_is_never_worse():
    assert [len(list(compositions(n))) for n in (1, 2, 3, 6)] == [1, 2, 4, 32]
    result = fuse(small_chain())
    assert result.segmentations == 2
    for size in range(3, 60):
        best = result.best_segmentation.at(size)
        for other in (result.unfused, result.tiled, result.untiled):
            point = other.at(size)
            if point is not None:
                assert best is not None and best.accesses <= point.accesses


def test_fronts_fall_strictly():
    result = fuse(small_chain(), extra_strategies=("flat", "flash", "full"))
    for front in (
        result.unfused,
        result.untiled,
        result.tiled,
        result.best_segmentation,
        *result.strategies.values(),
    ):
        for a, b in itertools.pairwise(front):
            assert a.buffer < b.buffer and a.accesses > b.accesses


# --- GPT-3 shapes: closed forms and the published findings ----------------------------------


@pytest.fixture(scope="module")
def ffn():
    return fuse(load_chain(resolve_workload("gpt3-ffn")))


def test_ffn_minima_closed_forms(ffn):
    tokens, d, f = 32768, 4096, 16384
    fused_min = 2 * tokens * d + 2 * d * f  # X, Y, W1, W2
    assert ffn.tiled[-1].accesses == fused_min == 402_653_184
    # M0 = 1, weights resident (d*f each) plus one token's row pair: d + f.
    assert ffn.tiled[-1].buffer == 2 * d * f + d + f
    assert ffn.unfused[-1].accesses == fused_min + 2 * tokens * f  # H written and read


def test_ffn_live_front_holds_the_shared_loop_tiles(ffn):
    tokens, d, f = 32768, 4096, 16384
    # fc1 TiledKN with d whole and f in 1-column tiles, fc2 TiledNK with e whole, both weights
    # streamed: X's M0 x d tile is reused and Y's M0 x d tile accumulates across the shared f
    # loop, so both are live with the M0 x 1 column of H and one weight word. X and Y move
    # once, each weight once per row tile.
    for m0 in (2048, 4096, 8192, 16384):
        buffer = 2 * m0 * d + m0 + 1
        accesses = 2 * tokens * d + 2 * (tokens // m0) * d * f
        assert ffn.tiled.at(buffer).accesses <= accesses
        assert ffn.tiled.at(buffer - 1).accesses > accesses


def test_ffn_paper_rule_matches_the_paper_shape():
    ffn = fuse(load_chain(resolve_workload("gpt3-ffn")), segment=False, rule="paper")

    def ratio(mib):
        words = int(mib * MIB_WORDS)
        return ffn.unfused.at(words).accesses / ffn.tiled.at(words).accesses

    # Orojenesis Fig. 18: fusion worse than unfused below ~10 MB, up to 3.7x above 256 MB.
    assert ratio(4) < 1 and ratio(8) < 1
    assert ratio(10) > 1 and ratio(16) > 1
    assert 3.6 < ratio(257) < 3.7


@pytest.mark.slow
def test_attention_flash_and_flat_meet_at_the_kv_footprint():
    chain = load_chain(resolve_workload("gpt3-attention"))
    result = fuse(chain, "flat", ("flash", "ffmt"), segment=False)
    flat, flash, ffmt = result.tiled, result.strategies["flash"], result.strategies["ffmt"]
    b, t, h, e = 16, 2048, 32, 128
    minimum = 4 * b * t * h * e  # Q, K, V, C once each
    assert flat[-1].accesses == flash[-1].accesses == ffmt[-1].accesses == minimum
    # One query row of all heads; the K and V of one sequence stay (2 * t*h*e), plus the
    # largest row pair: h*e in, t*h scores out.
    assert flat[-1].buffer == flash[-1].buffer == 2 * t * h * e + h * e + t * h
    # The FlashAttention-2 order (ffmt) moves K and V once with a whole sequence of queries
    # per tile: its Q and output tiles (t*h*e each) stay across the key loop, with one
    # column of scores (t*h) and one streamed word.
    assert ffmt[-1].buffer == 2 * t * h * e + t * h + 1
    at16 = 16 * MIB_WORDS
    gain = flat.at(at16).accesses / flash.at(at16).accesses
    assert gain > 4  # the paper: more than 6x with one K/V slab counted (docs/fusion.md)


@pytest.mark.slow
def test_gpt3_block_minimum_holds_every_weight():
    result = fuse(load_chain(resolve_workload("gpt3-6.7b-block")))
    assert result.segmentations == 32 + 1 + 1
    minima = algorithmic_minima(result.chain)
    assert result.best_segmentation[-1].accesses == minima["fused"]
    assert result.unfused[-1].accesses == minima["unfused"]
    # At the fused minimum every weight of the six-product run is reused by every row, so all
    # stay: W_q and W_o (d x d), one sequence's K and V (t x d each), W1 and W2 (d x f); plus
    # the largest row pair, a query row in (d) and its scores out (t x heads).
    d, f, t, heads = 4096, 16384, 2048, 32
    weights = 2 * d * d + 2 * t * d + 2 * d * f
    assert result.best_segmentation[-1].buffer == weights + d + t * heads


@pytest.mark.slow
def test_gpt3_block_paper_rule_published_shape():
    result = fuse(load_chain(resolve_workload("gpt3-6.7b-block")), rule="paper")
    words = 50 * MIB_WORDS
    gain = result.unfused.at(words).accesses / result.best_segmentation.at(words).accesses
    assert gain >= 2.5  # the paper: 2.5x at 50 MB


# --- CLI -----------------------------------------------------------------------------------


def test_cli_json_has_the_contract_keys(tmp_path, capsys):
    path = write_yaml(
        tmp_path,
        "chain",
        {
            "einsums": [{"name": n, "einsum": t} for n, t in SMALL],
            "bounds": {"m": 8, "k": 4, "n": 4, "p": 4},
        },
    )
    code, out, err = run_cli(["fuse", "-w", path, "--format", "json", "--at", "40"], capsys)
    assert code == 0, err
    report = json.loads(out)
    for key in ("unfused", "untiled", "tiled", "best_segmentation"):
        assert report[key] and {"buffer", "accesses"} <= set(report[key][0])
    assert report["at"][0]["tiled"] == 96


@pytest.mark.parametrize(
    "chain,message",
    [
        ({"einsums": ["B[m,n] += A[m,k] * W[k,n]"], "bounds": {"m": 2, "k": 2}}, "rank 'n'"),
        (
            {"einsums": ["B[m,n+1] += A[m,k] * W[k,n]"], "bounds": {"m": 2, "k": 2, "n": 2}},
            "plain rank",
        ),
        ({"einsums": ["P[m,n] = S[m,n]"], "bounds": {"m": 2, "n": 2}}, "must follow a product"),
        (
            {
                "einsums": ["B[m,n] += A[m,k] * W[k,n]", "C[q] += B[m,n] * W2[m,q]"],
                "bounds": {"m": 2, "k": 2, "n": 2, "q": 2},
            },
            "row rank",
        ),
        ({"einsums": "x", "bounds": {"m": 2}}, "einsums"),
        (
            {"einsum": "B[m,n] += A[m,k] * W[k,n]", "bounds": {"m": 2, "k": 2, "n": 2}},
            "tenet bounds",
        ),
        (
            {
                "einsums": ["B[m,n] += A[m,k] * W[k,n]"],
                "bounds": {"m": 2, "k": 2, "n": 2},
                "rows": ["z"],
            },
            "not a rank",
        ),
        (
            {"einsums": ["B[m,n] += A[m,k] * W[k,n]"], "bounds": {"m": 0, "k": 2, "n": 2}},
            "positive",
        ),
    ],
)
def test_bad_chains_exit_2_with_one_line(tmp_path, capsys, chain, message):
    path = write_yaml(tmp_path, "bad", chain)
    code, _out, err = run_cli(["fuse", "-w", path], capsys)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_unknown_strategy_exits_2(capsys):
    code, _, err = run_cli(["fuse", "-w", "gpt3-ffn", "--templates", "ffmt,nope"], capsys)
    assert code == 2 and "--templates" in err


def test_fuse_reports_each_memory_level(capsys):
    code, out, err = run_cli(
        ["fuse", "-w", "gpt3-ffn", "-a", "sn40l-like", "--format", "json"], capsys
    )
    assert code == 0, err
    levels = json.loads(out)["hierarchy"]["levels"]
    # 520 MiB of SRAM holds the fused minimum's 256.04 MiB: X, Y, W1, W2 once each.
    fused_min = 2 * 32768 * 4096 + 2 * 4096 * 16384
    assert [(p["inner"], p["outer"], p["accesses"]) for p in levels] == [
        ("SRAM", "HBM", fused_min),
        ("HBM", "DDR", fused_min),
    ]
    assert levels[0]["seconds"] == pytest.approx(fused_min * 2 / 2000e9)
    assert levels[1]["seconds"] == pytest.approx(fused_min * 2 / 200e9)
    assert json.loads(out)["hierarchy"]["bottleneck"] == "HBM <-> DDR"


def test_chain_workloads_are_refused_by_single_einsum_commands(capsys):
    code, _out, err = run_cli(["bounds", "-w", "gpt3-ffn"], capsys)
    assert code == 2 and "tenet fuse" in err
