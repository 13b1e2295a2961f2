"""The fused-segment model (`tenet.bounds.fusion`) against an independent word-level trace of the
loop nest (`tests/bounds/fusion_trace.py`): peak live words, traffic, and no intermediate ever
leaving the chip, for every plan of every strategy on small chains."""

from __future__ import annotations

import pytest

from tenet.bounds.chain import build_chain
from tenet.bounds.fusion import fuse, segment_plans

from .fusion_trace import TraceProduct, trace_segment

FFN = [
    ("fc1", "H[m,f] += X[m,d] * W1[d,f]"),
    ("fc2", "Y[m,e] += H[m,f] * W2[f,e]"),
]
FFN3 = [*FFN, ("fc3", "Z[m,g] += Y[m,e] * W3[e,g]")]
ATTENTION = [
    ("qk", "S[b,h,t,s] += Q[b,t,h,e] * K[b,s,h,e]"),
    ("softmax", "P[b,h,t,s] = S[b,h,t,s]"),
    ("av", "C[b,t,h,v] += P[b,h,t,s] * V[b,s,h,v]"),
]
STRATEGIES = ("ffmt", "flat", "flash", "full")


def gemm(template, k0, n0, streamed, text="C[m,n] += A[m,k] * B[k,n]"):
    return TraceProduct(text, template, k0, n0, streamed)


# --- self-checks of the trace, worked out by hand -----------------------------------------


def test_trace_single_tiled_k_gemm():
    # C[m,n] += A[m,k] * B[k,n], m=4, k=6, n=2, M0=2, TiledK with K0=2: `for m (2): for k (3)`,
    # 6 steps, each touching an A tile 2x2, a B tile 2x2 and the C tile 2x2 = 12 words.
    # A: every word used once, 24 loads. B (resident): its words are indexed by the k loop,
    # so a tile is dropped when k moves on and each row tile loads all of B: 2 * 12 = 24.
    # C: the innermost enclosing loop indexing C is m, so the tile accumulates over k and is
    # written once at the end of its row tile: 8. No word is kept across a step it skips.
    sizes = {"m": 4, "k": 6, "n": 2}
    resident = trace_segment([gemm("TiledK", 2, 2, False)], sizes, ["m"], 2)
    assert (resident.peak, resident.traffic, resident.steps) == (12, 24 + 24 + 8, 6)
    assert resident.tensor_traffic == {"A": 24, "B": 24, "C": 8}
    assert resident.violations == []
    # Streamed: the same traffic, and B holds one word: 4 + 1 + 4.
    streamed = trace_segment([gemm("TiledK", 2, 2, True)], sizes, ["m"], 2)
    assert (streamed.peak, streamed.traffic) == (9, 56)


def test_trace_tiled_nk_reads_partial_sums_back():
    # m=2, k=2, n=4, M0=2 (one row tile: no M loop), TiledNK K0=1, N0=2: `for k (2): for n (2)`.
    # C is indexed by the n loop, so a C tile leaves after each step: per word write, read,
    # write = (2*K1 - 1) * |C| = 3 * 8. A's tile (2x1) is indexed by k only and stays across
    # n: |A| = 4. B: each word once, 8. Peak: A 2 + B 2 + C 4 = 8.
    result = trace_segment([gemm("TiledNK", 1, 2, False)], {"m": 2, "k": 2, "n": 4}, ["m"], 2)
    assert result.tensor_traffic == {"A": 4, "B": 8, "C": 24}
    assert (result.peak, result.traffic) == (8, 36)


def test_trace_key_ffn_example():
    # for m (8 tiles of 16): for f (64, shared): { step0 (d whole) ; step1 (e whole) }.
    # X's tile 16x32 is indexed by m only: held across f. Y's tile 16x32 likewise, accumulated
    # over f. H's tile 16x1 lives from step0 to step1. Streamed weights hold one word.
    # Peak = 512 + 512 + 16 + 1. Traffic: X once 4096, W1 and W2 swept per row tile
    # 8 * 2048 each, Y written once 4096.
    products = [
        TraceProduct("H[m,f] += X[m,d] * W1[d,f]", "TiledKN", 32, 1, True),
        TraceProduct("Y[m,e] += H[m,f] * W2[f,e]", "TiledNK", 1, 32, True),
    ]
    result = trace_segment(products, {"m": 128, "d": 32, "f": 64, "e": 32}, ["m"], 16)
    assert result.peak == 512 + 512 + 16 + 1 == 1041
    assert result.tensor_traffic == {"X": 4096, "W1": 16384, "W2": 16384, "H": 0, "Y": 4096}
    assert result.traffic == 40_960
    assert result.violations == [] and result.steps == 8 * 64 * 2


def test_trace_flash_pair():
    # m=4, d=2, f=4, e=2, M0=2, [FlashN N0=2, FlashK K0=2], slabs resident:
    # `for f (2): for m (2): { step0 ; step1 }`. X (indexed by m) is re-read per f tile:
    # 2 * 8. The W1 and W2 slabs (indexed by f only) stay across m: 8 + 8. Y (indexed by m)
    # leaves after each step1: write, read, write = 3 * 8. Peak (e.g. at step0 of the second
    # row tile): X 4 + W1 slab 4 + H 4, with the W2 slab (4) kept between step1s = 16.
    products = [
        TraceProduct("H[m,f] += X[m,d] * W1[d,f]", "FlashN", 2, 2, False),
        TraceProduct("Y[m,e] += H[m,f] * W2[f,e]", "FlashK", 2, 2, False),
    ]
    result = trace_segment(products, {"m": 4, "d": 2, "f": 4, "e": 2}, ["m"], 2)
    assert result.tensor_traffic == {"X": 16, "W1": 8, "W2": 8, "H": 0, "Y": 24}
    assert (result.peak, result.traffic, result.violations) == (16, 56, [])


def test_trace_flags_an_intermediate_that_would_leave_the_chip():
    # [TiledN N0=2, Full]: `for m: { for f: step0 ; step1 }`. H is indexed by the f loop, so
    # its tiles leave before product 1 reads the whole row: every H word is a violation.
    products = [
        TraceProduct("H[m,f] += X[m,d] * W1[d,f]", "TiledN", 2, 2, False),
        TraceProduct("Y[m,e] += H[m,f] * W2[f,e]", "Full", 4, 2, False),
    ]
    result = trace_segment(products, {"m": 2, "d": 2, "f": 4, "e": 2}, ["m"], 1)
    assert result.violation_count == 2 * 4  # every word of H
    assert result.violations and "H[" in result.violations[0]


def test_trace_attention_groups_and_alias():
    # One row tile (b=1, t=2: M0 = 2 covers all rows): Full, Full with K and V resident.
    # Every tensor moves once. Step0 touches Q 2*2*2, K 2*2*2 and S 2*2*2 (24 words); step1
    # touches P (the same words as S) 8, V 8 and C 8; nothing is kept across a step, so the
    # peak is 24.
    products = [
        TraceProduct("S[b,h,t,s] += Q[b,t,h,e] * K[b,s,h,e]", "Full", 2, 2, False),
        TraceProduct("C[b,t,h,v] += P[b,h,t,s] * V[b,s,h,v]", "Full", 2, 2, False),
    ]
    sizes = {"b": 1, "t": 2, "s": 2, "h": 2, "e": 2, "v": 2}
    result = trace_segment(products, sizes, ["b", "t"], 2, aliases={"P": "S"})
    assert result.tensor_traffic == {"Q": 8, "K": 8, "V": 8, "S": 0, "C": 8}
    assert (result.peak, result.violations) == (24, [])
    # Two sequences, one per row tile: K and V differ per sequence (groups), so each row
    # tile loads its own; nothing is re-read.
    sizes = {**sizes, "b": 2}
    result = trace_segment(products, sizes, ["b", "t"], 2, aliases={"P": "S"})
    assert result.tensor_traffic == {"Q": 16, "K": 16, "V": 16, "S": 0, "C": 16}
    assert result.peak == 24


# --- the model against the trace -----------------------------------------------------------


def product_text(entry) -> str:
    def ref(tensor):
        return f"{tensor}[{','.join(entry.tensor_ranks(tensor))}]"

    return f"{ref(entry.output)} += {ref(entry.activation)} * {ref(entry.weight)}"


def trace_plan(chain, segment, plan):
    """Run the trace on a model plan of `segment` (element-wise steps become aliases)."""
    products = [e for e in segment if not chain.einsums[e].elementwise]
    aliases = {
        chain.einsums[e].output: chain.einsums[e].activation
        for e in segment
        if chain.einsums[e].elementwise
    }
    trace_products = [
        TraceProduct(product_text(chain.einsums[e]), ch.template, ch.k0, ch.n0, ch.streamed)
        for e, ch in zip(products, plan.path)
    ]
    rows = list(chain.einsums[products[0]].rows)
    return trace_segment(trace_products, dict(chain.sizes), rows, plan.m0, aliases)


def describe(plan) -> str:
    tiles = "; ".join(
        f"{ch.template} K0={ch.k0} N0={ch.n0} {'streamed' if ch.streamed else 'resident'}"
        for ch in plan.path
    )
    return f"M0={plan.m0} | {tiles}"


def compare(chain, segment, plans):
    """(unattainable, inexact): plans whose traffic differs from the trace's, whose nest
    sends an intermediate off chip, or whose buffer is below the trace's peak; and plans
    whose buffer is above the peak (attainable, but not the peak of live words)."""
    unattainable, inexact = [], []
    for plan in plans:
        trace = trace_plan(chain, segment, plan)
        text = (
            f"{describe(plan)}: model buffer {plan.buffer} accesses {plan.accesses}; "
            f"trace peak {trace.peak} traffic {trace.traffic} live per step {trace.live[:12]}"
        )
        if trace.traffic != plan.accesses or trace.peak > plan.buffer or trace.violation_count:
            unattainable.append(f"{text}; violations {trace.violations[:1]}")
        elif trace.peak < plan.buffer:
            inexact.append(text)
    return unattainable, inexact


FFN4 = [*FFN3, ("fc4", "U[m,j] += Z[m,g] * W4[g,j]")]
HEADS = [  # per-head weights: h is in A, W and O
    ("fc1", "H[m,h,f] += X[m,h,d] * W1[h,d,f]"),
    ("fc2", "Y[m,h,e] += H[m,h,f] * W2[h,f,e]"),
]

#: name: (einsums, sizes, rows); the slow ones have larger tilings to search.
CHAINS = {
    "ffn": (FFN, {"m": 8, "d": 4, "f": 6, "e": 4}, None),
    "ffn-other": (FFN, {"m": 12, "d": 3, "f": 8, "e": 6}, None),
    "ffn-heads": (HEADS, {"m": 6, "h": 2, "d": 2, "f": 4, "e": 3}, None),
    "ffn3": (FFN3, {"m": 8, "d": 4, "f": 6, "e": 4, "g": 3}, None),
    "ffn3-other": (FFN3, {"m": 12, "d": 4, "f": 6, "e": 4, "g": 6}, None),
    "ffn4": (FFN4, {"m": 8, "d": 4, "f": 6, "e": 4, "g": 3, "j": 2}, None),
    # One row tile may span several sequences (M0 = c * t) or part of one (M0 < t).
    "attention": (ATTENTION, {"b": 2, "t": 4, "s": 4, "h": 2, "e": 2, "v": 2}, ["b", "t"]),
    "attention-groups": (ATTENTION, {"b": 4, "t": 2, "s": 2, "h": 1, "e": 2, "v": 3}, ["b", "t"]),
    "attention-other": (ATTENTION, {"b": 2, "t": 6, "s": 4, "h": 2, "e": 3, "v": 2}, ["b", "t"]),
    "ffn-large": (FFN, {"m": 32, "d": 16, "f": 24, "e": 8}, None),
    "attention-large": (ATTENTION, {"b": 2, "t": 8, "s": 8, "h": 2, "e": 4, "v": 4}, ["b", "t"]),
}
SLOW = {"ffn-large", "attention-large"}
CASES = [
    pytest.param(name, strategy, marks=[pytest.mark.slow] if name in SLOW else [])
    for name in CHAINS
    for strategy in STRATEGIES
]


def chain_plans(name, strategy):
    entries, sizes, rows = CHAINS[name]
    chain = build_chain(name, entries, sizes, rows_hint=rows)
    segment = list(range(len(entries)))
    plans = segment_plans(chain, segment, strategy)
    assert plans
    return chain, segment, plans


@pytest.mark.parametrize("name,strategy", CASES)
def test_every_plan_buffer_is_the_peak(name, strategy):
    """The model's accesses are the trace's traffic, no intermediate leaves the chip, and the
    model's buffer is exactly the trace's peak of live words."""
    chain, segment, plans = chain_plans(name, strategy)
    unattainable, inexact = compare(chain, segment, plans)
    bad = unattainable + inexact
    assert not bad, f"{len(bad)} of {len(plans)} plans:\n" + "\n".join(bad[:10])


@pytest.mark.slow
def test_issue_example_fronts_are_attainable():
    chain = build_chain("ffn", FFN, {"m": 128, "d": 32, "f": 64, "e": 32})
    result = fuse(chain)
    traces = {}  # the tiled front's plans come back in best_segmentation
    problems = []
    for front_name in ("tiled", "best_segmentation"):
        for point in getattr(result, front_name):
            if point.buffer > 1024:
                continue
            parts = point.pieces
            for part in parts:
                plan = part.source
                if plan is None:
                    continue
                if plan not in traces:
                    traces[plan] = trace_plan(chain, [0, 1], plan)
                trace = traces[plan]
                where = f"{front_name} ({point.buffer}, {point.accesses}) {describe(plan)}"
                if trace.peak > point.buffer:
                    problems.append(f"{where}: trace peak {trace.peak}")
                if len(parts) == 1 and trace.traffic != point.accesses:
                    problems.append(f"{where}: trace traffic {trace.traffic}")
                if trace.violation_count:
                    problems.append(f"{where}: {trace.violations[:1]}")
    assert traces
    assert not problems, "\n".join(problems)
    # The issue's point: 40,960 accesses need more than 1,024 words.
    for point in result.tiled:
        if point.buffer <= 1024:
            assert point.accesses != 40_960, point
    # The issue's mapping: M0=16, [TiledKN K0=32 N0=1, TiledNK K0=1 N0=32], both streamed,
    # needs 512 + 512 + 16 + 1 words (test_trace_key_ffn_example).
    key = [
        plan
        for plan in segment_plans(chain, [0, 1], "ffmt")
        if plan.m0 == 16
        and [(ch.template, ch.k0, ch.n0, ch.streamed) for ch in plan.path]
        == [("TiledKN", 32, 1, True), ("TiledNK", 1, 32, True)]
    ]
    assert [(plan.buffer, plan.accesses) for plan in key] == [(1041, 40_960)]
