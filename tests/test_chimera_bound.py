"""Chimera's best block order and tiles never move less data than the Orojenesis fused bound
at the same capacity (issue 6), when both count the same things: outputs read-modify-write,
every live tile, and tiles that divide their loops (the Snowcat mapspace)."""

from __future__ import annotations

import pytest

from tenet import chimera
from tenet.chain import build_chain, load_chain
from tenet.errors import InputError
from tenet.fusion import fuse, read_front
from tenet.presets import resolve_workload


def lowest_bound(result, words):
    """The least accesses any front (unfused, untiled, tiled, segmented) reaches at `words`."""
    values = [
        point["accesses"]
        for front in (result.unfused, result.untiled, result.tiled, result.best_segmentation)
        if (point := read_front(front, words)) is not None
    ]
    return min(values) if values else None


def check_never_below(chain, capacities):
    result = fuse(chain)
    ops = chimera.chimera_ops([(e.name, e.text) for e in chain.einsums], chain.sizes)
    compared = 0
    for capacity in capacities:
        bound = lowest_bound(result, capacity)
        try:
            best = chimera.search(ops, capacity, model="strict", perfect=True)["best"]
        except InputError:  # no legal choice fits in so few words
            continue
        if bound is None:
            continue
        assert best["dv_rmw"] >= bound, (capacity, best, bound)
        compared += 1
    assert compared >= len(capacities) // 2


def test_bert_attention_pair():
    chain = load_chain(resolve_workload("bert-attention"))
    check_never_below(chain, [2**k for k in range(2, 23, 2)])


@pytest.mark.parametrize(
    "sizes", [{"m": 64, "k": 16, "n": 32, "p": 16}, {"m": 32, "k": 8, "n": 64, "p": 8}]
)
def test_small_gemm_pairs(sizes):
    chain = build_chain(
        "pair",
        [("g1", "B[m,n] += A[m,k] * W1[k,n]"), ("g2", "C[m,p] += B[m,n] * W2[n,p]")],
        sizes,
    )
    check_never_below(chain, [2**k for k in range(4, 16)])


def test_whole_tiles_reach_the_fused_minimum():
    # With every loop whole, Chimera moves each input and output once: the fused minimum.
    chain = load_chain(resolve_workload("bert-attention"))
    ops = chimera.chimera_ops([(e.name, e.text) for e in chain.einsums], chain.sizes)
    one = chimera.evaluate_order(ops, chimera.parse_order("hmlkn", list(chain.sizes)), {})
    h, t, e = 12, 512, 64
    assert one["dv"] == 4 * h * t * e  # Q, K, V, O
    assert fuse(chain, segment=False).tiled[-1]["accesses"] == one["dv"]


def test_cli_json_contract(capsys):
    import json

    from .helpers import run_cli

    code, out, err = run_cli(
        [
            "fuse",
            "-w",
            "bert-attention",
            "--chimera",
            "--order",
            "hmlkn",
            "--tiles",
            "h=1,m=64,l=64",
            "--format",
            "json",
        ],
        capsys,
    )
    assert code == 0, err
    one = json.loads(out)
    assert one["order"] == "hmlkn" and one["tiles"]["m"] == 64 and one["tiles"]["k"] == 64
    # Algorithm 1: a tensor moves its tile times the trips of every loop from the innermost
    # loop indexing it outward. In h m l k n that loop is k (qk) or n (sv), innermost, so
    # each of Q, K, V, O moves tile * 12 * 8 * 8 = 8 times its size (l and m have 8 trips).
    h, t, e = 12, 512, 64
    assert one["dv"] == 8 * 4 * h * t * e
    code, out, err = run_cli(
        ["fuse", "-w", "bert-attention", "--chimera", "--capacity", "4096", "--format", "json"],
        capsys,
    )
    assert code == 0, err
    best = json.loads(out)["best"]
    assert best["mu"] <= 4096 and best["dv"] >= 4 * h * t * e


def test_bad_capacity_names_its_flag(capsys):
    from .helpers import run_cli

    code, _out, err = run_cli(
        ["fuse", "-w", "bert-attention", "--chimera", "--capacity", "-5"], capsys
    )
    assert code == 2 and err.startswith("tenet: error: --capacity:") and err.count("\n") == 1
