"""Chimera's strict model (outputs read-modify-write, every live tile, divisor tiles) against
the Orojenesis fusion fronts at the same capacity. The fronts are the least traffic over
fused schedules that compute each intermediate once; Chimera's block orders also re-run a
producer under a loop of a later operator. So wherever Chimera's best is below the lowest
front, its order must re-run the producer (tested), and elsewhere it is not below."""

from __future__ import annotations

import pytest

from tenet.bounds import chimera
from tenet.bounds.chain import build_chain, load_chain
from tenet.bounds.fusion import fuse
from tenet.errors import InputError
from tenet.formats.presets import resolve_workload


def lowest_front(result, words):
    """The least accesses any front (unfused, untiled, tiled, segmented) reaches at `words`."""
    values = [
        point.accesses
        for front in (result.unfused, result.untiled, result.tiled, result.best_segmentation)
        if (point := front.at(words)) is not None
    ]
    return min(values) if values else None


def reruns_a_producer(ops, order, tiles) -> bool:
    """A loop of a later operator only, with more than one trip, lies outside the innermost
    loop (with more than one trip) of an earlier operator: the earlier one runs again for
    each of its trips."""
    trips = {r: -(-ops[0].sizes[r] // tiles[r]) if r in ops[0].sizes else None for r in order}
    for op in ops[1:]:
        trips.update({r: -(-op.sizes[r] // tiles[r]) for r in op.loops})
    for i, producer in enumerate(ops[:-1]):
        own = [p for p, r in enumerate(order) if r in producer.loops and trips[r] > 1]
        if not own:
            continue
        later = {r for op in ops[i + 1 :] for r in op.loops} - set(producer.loops)
        if any(r in later and trips[r] > 1 for r in order[: max(own)]):
            return True
    return False


def check_against_fronts(chain, capacities):
    result = fuse(chain)
    ops = chimera.chimera_ops([(e.name, e.text) for e in chain.einsums], chain.sizes)
    compared = below = 0
    for capacity in capacities:
        front = lowest_front(result, capacity)
        try:
            best = chimera.search(ops, capacity, model="strict", perfect=True)["best"]
        except InputError:  # no legal choice fits in so few words
            continue
        if front is None:
            continue
        compared += 1
        if best["dv_rmw"] < front:
            below += 1
            assert reruns_a_producer(ops, best["order"], best["tiles"]), (capacity, best, front)
    assert compared >= len(capacities) // 2
    return below


@pytest.mark.slow
def test_bert_attention_pair():
    chain = load_chain(resolve_workload("bert-attention"))
    # At 16,384 words Chimera's best is order h m k n l with tiles m=128, n=32, l=1: the loop
    # over n (2 tiles) encloses QK^T, which runs twice, so K moves 4 * 2 = 8 times (12 heads
    # x 64 x 512 words each time): 3,145,728 words of K alone. The fronts never re-run QK^T.
    assert check_against_fronts(chain, [2**k for k in range(2, 23, 2)]) >= 1


@pytest.mark.parametrize(
    "sizes", [{"m": 64, "k": 16, "n": 32, "p": 16}, {"m": 32, "k": 8, "n": 64, "p": 8}]
)
def test_small_gemm_pairs(sizes):
    chain = build_chain(
        "pair",
        [("g1", "B[m,n] += A[m,k] * W1[k,n]"), ("g2", "C[m,p] += B[m,n] * W2[n,p]")],
        sizes,
    )
    check_against_fronts(chain, [2**k for k in range(4, 16)])


def test_optimistic_models_can_fall_below_the_fronts():
    # docs/chimera.md: the paper's and producer-rerun's best DV can be below every front.
    chain = load_chain(resolve_workload("bert-attention"))
    ops = chimera.chimera_ops([(e.name, e.text) for e in chain.einsums], chain.sizes)
    front = lowest_front(fuse(chain), 1024)
    for model in ("paper", "producer-rerun"):
        assert chimera.search(ops, 1024, model=model)["best"]["dv"] < front


def test_whole_tiles_reach_the_fused_minimum():
    # With every loop whole, Chimera moves each input and output once: the fused minimum.
    chain = load_chain(resolve_workload("bert-attention"))
    ops = chimera.chimera_ops([(e.name, e.text) for e in chain.einsums], chain.sizes)
    one = chimera.evaluate_order(ops, chimera.parse_order("hmlkn", list(chain.sizes)), {})
    h, t, e = 12, 512, 64
    assert one["dv"] == 4 * h * t * e  # Q, K, V, O
    assert fuse(chain, segment=False).tiled[-1].accesses == one["dv"]


def test_cli_json_contract(capsys):
    import json

    from ..helpers import run_cli

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
    assert one["model"] == "paper" and one["warnings"] == []
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
    from ..helpers import run_cli

    code, _out, err = run_cli(
        ["fuse", "-w", "bert-attention", "--chimera", "--capacity", "-5"], capsys
    )
    assert code == 2 and err.startswith("tenet: error: --capacity:") and err.count("\n") == 1
