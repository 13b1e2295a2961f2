"""The uneven fusion space (`tenet fuse --space uneven`) and the chain floor: an independent
word-level trace of sampled mappings, brute force over tiny chains, every FFMT template
mapping inside the space with the same costs, uneven <= tiled, every front >= the floor."""

from __future__ import annotations

import itertools
import json
import random
from math import isqrt

import pytest

from tenet.bounds.chain import build_chain, load_chain
from tenet.bounds.fusion import fuse, product_shape, segment_plans
from tenet.bounds.fusion_uneven import (
    Mapping,
    build_nest,
    chain_lower_bound,
    chain_tensors,
    evaluate,
    indexes,
    keep,
    live,
    long_front,
    mapping_tiles,
    monotone_floors,
    pair_front,
    place,
    probes,
    product_floor,
    row_loops,
    segment_spec,
    steps_of,
    tensor_dims,
    total_traffic,
    uneven_front,
)
from tenet.bounds.snowcat import divisors, pareto_front
from tenet.formats.presets import resolve_workload

from ..helpers import run_cli
from .fusion_uneven_trace import TLoop, parse, trace

THREE = [
    ("g1", "B[m,n] += A[m,k] * W1[k,n]"),
    ("g2", "C[m,p] += B[m,n] * W2[n,p]"),
    ("g3", "D[m,q] += C[m,p] * W3[p,q]"),
]


FFN = [("fc1", "H[m,f] += X[m,d] * W1[d,f]"), ("fc2", "Y[m,e] += H[m,f] * W2[f,e]")]
ATT = [
    ("qk", "S[b,h,t,s] += Q[b,t,h,x] * K[b,s,h,x]"),
    ("av", "C[b,t,h,v] += S[b,h,t,s] * V[b,s,h,v]"),
]


def ffn(m=4, d=2, f=4, e=2):
    return build_chain("ffn", FFN, {"m": m, "d": d, "f": f, "e": e})


def att(b=2, t=4, s=4, h=2, x=2, v=2):
    return build_chain("att", ATT, {"b": b, "t": t, "s": s, "h": h, "x": x, "v": v})


# --- mappings of the space, written out naively ---------------------------------------


def skeletons(spec):
    """Every row tile, tiles, sharing, orders and kept/spilled choice of a two-product
    segment, with its nest."""
    c0, c1, c2 = spec.c
    for m0 in divisors(spec.m):
        if row_loops(spec, m0) is None:
            continue
        for k0, na, kb, n0 in itertools.product(
            divisors(c0), divisors(c1), divisors(c1), divisors(c2)
        ):
            for shared in (False, True):
                if shared and (na != kb or na == c1):
                    continue
                for order in itertools.product(("KN", "NK"), repeat=2):
                    for kept in (True, False):
                        for outer in (False, True) if shared else (False,):
                            base = Mapping(
                                m0, (k0, kb), (na, n0), order, (shared,), (kept,), (), outer
                            )
                            nest = build_nest(spec, base)
                            if nest is not None:
                                yield base, nest


def placements(spec, base, nest, canonical_only=False):
    """Every tensor at every loop of its path, above all loops, or streamed (weights)."""
    paths = {s.product: s.path for s in steps_of(nest)}
    keys = [("A", 0), ("W", 0), ("W", 1), ("O", 1)]
    if not base.kept[0]:
        keys += [("O", 0), ("A", 1)]
    options = []
    for kind, e in keys:
        names = ["top"] + [lp.name for lp in paths[e]]
        if canonical_only:
            dims = tensor_dims(spec, kind, e)
            names = ["top"] + [lp.name for lp in paths[e] if indexes(spec, lp, dims)]
        if kind == "W":
            names.append("stream")
        options.append([(f"{kind}{e}", n) for n in names])
    return options


def all_mappings(spec, canonical_only=False):
    for base, nest in skeletons(spec):
        for placement in itertools.product(*placements(spec, base, nest, canonical_only)):
            yield Mapping(*list(base.__dict__.values())[:6], placement, base.outer)


def brute_front(spec, canonical_only=False):
    """The ski slope of every mapping, each costed by the model's own tiles and liveness at
    every probe, with no pruning and no decomposition. A spilled intermediate's two tiles
    must sit inside every loop the two products share (else the consumer would read words
    not yet written back), as the space requires."""
    import numpy as np

    costs = set()
    for base, nest in skeletons(spec):
        steps = steps_of(nest)
        every = probes(steps)
        fixed = [keep(spec, steps, 0)] if base.kept[0] else []
        p, c = (next(s for s in steps if s.product == e) for e in (0, 1))
        shared_depth = 0
        while (
            shared_depth < min(len(p.path), len(c.path))
            and p.path[shared_depth] is c.path[shared_depth]
        ):
            shared_depth += 1
        options = []
        for choices in placements(spec, base, nest, canonical_only):
            per = []
            for key, where in choices:
                kind, e = key[0], int(key[1:])
                path = next(s.path for s in steps if s.product == e)
                if where == "stream":
                    tile = place(spec, steps, kind, e, 0, "stream", key)
                else:
                    depth = 0 if where == "top" else 1 + [lp.name for lp in path].index(where)
                    role = "input" if kind != "O" else "output"
                    tile = place(spec, steps, kind, e, depth, role, key)
                    if key in ("O0", "A1") and depth < shared_depth:
                        continue
                vector = np.array([live(tile, steps, q) for q in every], dtype=np.int64)
                per.append((vector * int(tile.words), int(tile.traffic)))
            options.append(per)
        base_words = sum(
            (
                np.array([live(t, steps, q) for q in every], dtype=np.int64) * int(t.words)
                for t in fixed
            ),
            np.zeros(len(every), dtype=np.int64),
        )
        for pick in itertools.product(*options):
            words = base_words + sum(v for v, _ in pick)
            costs.add((int(words.max()), sum(t for _, t in pick)))
    costs = list(costs)
    keep_idx = pareto_front(
        np.array([c[0] for c in costs], dtype=np.int64),
        np.array([c[1] for c in costs], dtype=np.int64),
    )
    return sorted(costs[i] for i in keep_idx.tolist())


@pytest.mark.parametrize(
    "chain",
    [
        ffn(2, 2, 2, 2),
        ffn(4, 2, 2, 1),
        ffn(2, 1, 4, 2),
        pytest.param(ffn(4, 2, 4, 2), marks=pytest.mark.slow),
        pytest.param(att(2, 2, 2, 1, 2, 2), marks=pytest.mark.slow),
    ],
    ids=["2222", "4221", "2142", "4242", "att"],
)
def test_search_equals_brute_force_over_every_position(chain):
    spec = segment_spec(chain, [0, 1])
    assert sorted((b, a) for b, a, _ in pair_front(spec)) == brute_front(spec)


@pytest.mark.parametrize(
    "chain",
    [
        ffn(6, 3, 2, 2),
        pytest.param(ffn(8, 4, 6, 2), marks=pytest.mark.slow),
        pytest.param(att(2, 4, 4, 2, 2, 2), marks=pytest.mark.slow),
    ],
    ids=["ffn6322", "ffn8462", "att"],
)
def test_search_equals_brute_force_over_canonical_positions(chain):
    spec = segment_spec(chain, [0, 1])
    assert sorted((b, a) for b, a, _ in pair_front(spec)) == brute_front(spec, True)


def long_skeletons(spec):
    """Mappings of a segment of three or more products in the searched part of the space:
    blocks of one product or of two sharing their columns, whole-row intermediates kept
    between blocks, a pair's own intermediate kept or spilled (with two trips in the
    innermost row loop, no tile kept across row tiles: filtered in `long_brute_front`)."""
    E = spec.products
    for m0 in divisors(spec.m):
        rows = row_loops(spec, m0)
        if rows is None:
            continue
        for shared in itertools.product((False, True), repeat=E - 1):
            if any(shared[i] and shared[i + 1] for i in range(E - 2)):
                continue
            for k0 in itertools.product(*(divisors(spec.c[e]) for e in range(E))):
                for n0 in itertools.product(*(divisors(spec.c[e + 1]) for e in range(E))):
                    if any(
                        shared[e] and (n0[e] != k0[e + 1] or n0[e] == spec.c[e + 1])
                        for e in range(E - 1)
                    ):
                        continue
                    for order in itertools.product(("KN", "NK"), repeat=E):
                        for kept in itertools.product((True, False), repeat=E - 1):
                            if any(not kept[e] and not shared[e] for e in range(E - 1)):
                                continue
                            base = Mapping(m0, k0, n0, order, shared, kept, ())
                            nest = build_nest(spec, base)
                            if nest is not None:
                                yield base, nest


def long_brute_front(spec):
    """Every mapping of `long_skeletons` with every tensor at every position that indexes it
    (or above all, or streamed), costed by the model's tiles and liveness at every probe."""
    import numpy as np

    E = spec.products
    costs = set()
    for base, nest in long_skeletons(spec):
        steps = steps_of(nest)
        every = probes(steps)
        paths = {st.product: st.path for st in steps}
        keys = [("A", 0)] + [("W", e) for e in range(E)] + [("O", E - 1)]
        for e in range(E - 1):
            if not base.kept[e]:
                keys += [("O", e), ("A", e + 1)]
        options = []
        for kind, e in keys:
            dims = tensor_dims(spec, kind, e)
            names = ["top"] + [lp.name for lp in paths[e] if indexes(spec, lp, dims)]
            if kind == "W":
                names.append("stream")
            options.append([(f"{kind}{e}", n) for n in names])
        vectors = {}
        for placement in itertools.product(*options):
            mp = Mapping(base.m0, base.k0, base.n0, base.order, base.shared, base.kept, placement)
            tiles = mapping_tiles(spec, mp, nest)
            if tiles is None:
                continue
            rows = row_loops(spec, base.m0)
            if (
                rows
                and rows[-1].trips == 2
                and any(t.depth >= 0 and t.star < len(rows) for t in tiles)
            ):
                continue  # two row tiles: only mappings keeping nothing across them
            words = np.zeros(len(every), dtype=np.int64)
            for t in tiles:
                key = (t.tensor, t.depth, t.label, tuple(t.users))
                if key not in vectors:
                    vectors[key] = np.array([live(t, steps, q) for q in every], dtype=np.int64)
                words = words + vectors[key] * int(t.words)
            costs.add((int(words.max()), int(total_traffic(tiles))))
    costs = list(costs)
    keep_idx = pareto_front(
        np.array([c[0] for c in costs], dtype=np.int64),
        np.array([c[1] for c in costs], dtype=np.int64),
    )
    return sorted(costs[i] for i in keep_idx.tolist())


THREE_SIZES = [
    pytest.param({"m": 3, "k": 1, "n": 2, "p": 2, "q": 1}, marks=pytest.mark.slow),
    pytest.param({"m": 2, "k": 1, "n": 2, "p": 2, "q": 1}, marks=pytest.mark.slow),
    pytest.param({"m": 9, "k": 2, "n": 3, "p": 2, "q": 2}, marks=pytest.mark.slow),
    pytest.param({"m": 3, "k": 2, "n": 2, "p": 3, "q": 2}, marks=pytest.mark.slow),
]


@pytest.mark.parametrize("sizes", THREE_SIZES, ids=["m3small", "m2", "m9", "m3"])
def test_long_search_equals_brute_force(sizes):
    chain = build_chain("three", THREE, sizes)
    spec = segment_spec(chain, [0, 1, 2])
    assert sorted((b, a) for b, a, _ in long_front(spec)) == long_brute_front(spec)


def test_trace_reproduces_long_front_mappings():
    chain = build_chain("three", THREE, {"m": 3, "k": 2, "n": 2, "p": 3, "q": 2})
    spec = segment_spec(chain, [0, 1, 2])
    for b, a, mp in long_front(spec):
        assert evaluate(spec, mp) == (b, a)
        out = run_trace(chain, mp)
        assert out.errors == []
        assert (out.peak, out.traffic) == (b, a)


def test_every_front_point_rebuilds_to_its_costs():
    for chain in (ffn(8, 4, 6, 4), att()):
        spec = segment_spec(chain, [0, 1])
        for b, a, mp in pair_front(spec):
            assert evaluate(spec, mp) == (b, a)


# --- the word-level trace ------------------------------------------------------------------


def trace_nest(chain, mp):
    """The trace's own nest for a mapping: flattened rows split at weight-group sizes,
    then shared / own column loops over the einsums' real ranks."""
    entries = [e for e in chain.einsums if not e.elementwise]
    rows = list(entries[0].rows)
    m = chain.size_of(tuple(rows))
    inner = sorted(
        {m // chain.size_of(e.groups) for e in entries if chain.size_of(e.groups) > 1},
        reverse=True,
    )
    levels = [i for i in inner if i > mp.m0] + [mp.m0]
    loops, outer = [], m
    for i, size in enumerate(levels):
        if outer // size > 1:
            loops.append(TLoop(f"rows{i}", "@rows", size, outer // size))
        outer = size
    if len(loops) == 1:
        loops[0].name = "rows"

    def k_rank(e):
        (_o, oranks), (_a, aranks), (_w, wranks) = parse(entries[e].text)
        return next(r for r in aranks if r in wranks and r not in oranks and r not in rows)

    def n_rank(e):
        (_o, oranks), (_a, aranks), (_w, wranks) = parse(entries[e].text)
        return next(r for r in wranks if r in oranks and r not in aranks and r not in rows)

    def own(e, axis):
        rank = k_rank(e) if axis == "K" else n_rank(e)
        tile = mp.k0[e] if axis == "K" else mp.n0[e]
        trips = chain.sizes[rank] // tile
        return TLoop(f"{entries[e].name}.{axis}", rank, tile, trips) if trips > 1 else None

    body = []
    e = 0
    while e < len(entries):
        if e + 1 < len(entries) and mp.shared[e]:
            rank = n_rank(e)
            s = TLoop(
                f"{entries[e].name}/{entries[e + 1].name}.S",
                rank,
                mp.n0[e],
                chain.sizes[rank] // mp.n0[e],
            )
            for prod, axis in ((e, "K"), (e + 1, "N")):
                lp = own(prod, axis)
                if lp:
                    lp.body = [prod]
                s.body.append(lp or prod)
            body.append(s)
            e += 2
            continue
        loops_e = [lp for lp in (own(e, "K"), own(e, "N")) if lp]
        if mp.order[e] == "NK":
            loops_e.reverse()
        node = e
        for lp in reversed(loops_e):
            lp.body = [node]
            node = lp
        body.append(node)
        e += 1
    if mp.outer:  # the shared loop outside the row loops
        (s,) = body
        inner = s.body
        for lp in reversed(loops):
            lp.body = inner
            inner = [lp]
        s.body = inner
        return [e.text for e in entries], rows, [s]
    for lp in reversed(loops):
        lp.body = body
        body = [lp]
    return [e.text for e in entries], rows, body


def run_trace(chain, mp):
    texts, rows, nest = trace_nest(chain, mp)
    return trace(texts, chain.sizes, rows, nest, dict(mp.placement), list(mp.kept))


@pytest.mark.parametrize("chain", [ffn(4, 2, 4, 2), att(2, 2, 4, 2, 2, 2)], ids=["ffn", "att"])
def test_trace_reproduces_sampled_mappings(chain):
    spec = segment_spec(chain, [0, 1])
    rng = random.Random(13)
    bases = list(skeletons(spec))
    mappings = []
    for _ in range(160):  # a random skeleton, then every tensor at a random position
        base, nest = rng.choice(bases)
        placement = tuple(rng.choice(o) for o in placements(spec, base, nest))
        mappings.append(Mapping(*list(base.__dict__.values())[:6], placement, base.outer))
    checked = 0
    for mp in mappings:
        cost = evaluate(spec, mp)
        if cost is None:
            continue
        out = run_trace(chain, mp)
        assert out.errors == [], (mp, out.errors[:3])
        assert (out.peak, out.traffic) == cost, mp
        checked += 1
    assert checked > 40


def test_trace_reproduces_front_mappings():
    for chain in (ffn(4, 2, 4, 2), att(2, 4, 4, 2, 2, 2)):
        spec = segment_spec(chain, [0, 1])
        for b, a, mp in pair_front(spec):
            out = run_trace(chain, mp)
            assert out.errors == []
            assert (out.peak, out.traffic) == (b, a)


def test_hand_checked_mapping():
    """FFN m=4, d=2, f=4, e=2, M0=2; fc1 and fc2 share f with tile 1; X kept for the row
    tile (2x2), W1 and W2 streamed, H kept (2x1), Y kept across f (2x2). Live: X 4 + Y 4 +
    H 2 + 1 streamed word = 11. Accesses: X 8 + W1 per row tile 8 (x2) + W2 8 (x2) + Y 8."""
    chain = ffn(4, 2, 4, 2)
    spec = segment_spec(chain, [0, 1])
    mp = Mapping(
        2,
        (2, 1),
        (1, 2),
        ("KN", "KN"),
        (True,),
        (True,),
        (("A0", "rows"), ("W0", "stream"), ("W1", "stream"), ("O1", "rows")),
    )
    assert evaluate(spec, mp) == (11, 8 + 16 + 16 + 8)
    assert (run_trace(chain, mp).peak, run_trace(chain, mp).traffic) == (11, 48)


# --- the FFMT templates are inside the space -------------------------------------------


def template_mapping(chain, segment, spec, plan):
    """A template plan as a mapping: tiles at their template positions (innermost loop
    indexing them), weights resident at the row loop that changes their group, or streamed."""
    products = [e for e in segment if not chain.einsums[e].elementwise]
    run = next(r for r in chain.runs if segment[0] in r)
    heads = {h for e in run for h in chain.einsums[e].heads}
    shapes = [product_shape(chain, e, heads) for e in products]
    rows = row_loops(spec, plan.m0)
    E = len(products)

    def at_rows(kind, e):
        name = "top"
        for lp in rows:
            if indexes(spec, lp, tensor_dims(spec, kind, e)):
                name = lp.name
        return name

    first, last = plan.path[0], plan.path[-1]
    shared = tuple(plan.path[e].n1 > 1 for e in range(E - 1))
    flash = first.template == "FlashN" and E == 2 and shared[0]
    slab = f"{spec.names[0]}/{spec.names[1]}.S"

    def resident(e):
        where = at_rows("W", e)
        return slab if flash and where == "top" else where

    placement = [("A0", f"{spec.names[0]}.K" if first.k1 > 1 else at_rows("A", 0))]
    for e, ch in enumerate(plan.path):
        placement.append((f"W{e}", "stream" if ch.streamed else resident(e)))
    placement.append((f"O{E - 1}", f"{spec.names[-1]}.N" if last.n1 > 1 else at_rows("O", E - 1)))
    return Mapping(
        plan.m0,
        tuple(ch.k0 // s.k_whole for ch, s in zip(plan.path, shapes)),
        tuple(ch.n0 // s.n_whole for ch, s in zip(plan.path, shapes)),
        tuple("NK" if ch.template == "TiledKN" else "KN" for ch in plan.path),
        shared,
        (True,) * (E - 1),
        tuple(placement),
        flash and bool(rows),
    )


@pytest.mark.parametrize(
    "name,segment,strategy",
    [
        ("gpt3-ffn", None, "ffmt"),
        ("gpt3-attention", None, "ffmt"),
        ("gpt3-attention", None, "flat"),
        ("gpt3-attention", None, "flash"),
        ("gpt3-ffn", None, "flash"),
        ("bert-attention", None, "ffmt"),
        ("bert-attention", None, "flash"),
        ("three", None, "ffmt"),
        ("three", None, "flat"),
        pytest.param("gpt3-6.7b-block", 2, "ffmt", marks=pytest.mark.slow),
    ],
)
def test_template_plans_have_the_same_costs_in_the_space(name, segment, strategy):
    if name == "three":
        chain = build_chain("three", THREE, {"m": 8, "k": 4, "n": 4, "p": 6, "q": 2})
    else:
        chain = load_chain(resolve_workload(name))
    seg = chain.runs[segment or 0]
    spec = segment_spec(chain, seg)
    plans = segment_plans(chain, seg, strategy)
    rng = random.Random(5)
    for plan in rng.sample(plans, min(150, len(plans))):
        mp = template_mapping(chain, seg, spec, plan)
        assert evaluate(spec, mp) == (plan.buffer, plan.accesses), mp


# --- fronts: uneven <= tiled, everything >= the floor ----------------------------------------


def below_everywhere(low, high):
    """`low` is at or below `high` at every buffer size where `high` has a point."""
    return all(
        low.at(p.buffer) is not None and low.at(p.buffer).accesses <= p.accesses for p in high
    )


def random_chain(rng):
    count = rng.choice([2, 2, 3])
    ranks = ["k", "n", "p", "q"][: count + 1]
    entries = []
    for i in range(count):
        a = "A" if i == 0 else f"T{i}"
        out = f"T{i + 1}" if i + 1 < count else "Z"
        entries.append(
            (
                f"e{i}",
                f"{out}[m,{ranks[i + 1]}] += {a}[m,{ranks[i]}] * W{i}[{ranks[i]},{ranks[i + 1]}]",
            )
        )
    sizes = {"m": rng.choice([4, 6, 8, 12])} | {r: rng.choice([1, 2, 3, 4, 6, 8]) for r in ranks}
    return build_chain("random", entries, sizes)


# with `-m slow` (the default run checks small chains below)
PRESETS = [
    pytest.param("gpt3-ffn", marks=pytest.mark.slow),
    pytest.param("gpt3-attention", marks=pytest.mark.slow),
    pytest.param("bert-attention", marks=pytest.mark.slow),
]


class _PresetFronts(dict):
    """name -> (chain, fuse with flat and flash, uneven front), computed when first asked."""

    def __missing__(self, name):
        chain = load_chain(resolve_workload(name))
        self[name] = (chain, fuse(chain, extra_strategies=("flat", "flash")), uneven_front(chain))
        return self[name]


@pytest.fixture(scope="module")
def preset_fronts():
    return _PresetFronts()


@pytest.mark.parametrize("name", PRESETS)
def test_uneven_is_never_above_tiled_or_best_segmentation(preset_fronts, name):
    _chain, result, uneven = preset_fronts[name]
    assert below_everywhere(uneven, result.tiled)
    assert below_everywhere(uneven, result.best_segmentation)
    # two-product runs: the FLAT-like and FlashAttention-like templates are inside too
    assert below_everywhere(uneven, result.strategies["flat"])
    assert below_everywhere(uneven, result.strategies["flash"])


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("gpt3-ffn", marks=pytest.mark.slow),
        pytest.param("bert-attention", marks=pytest.mark.slow),
    ],
)
def test_preset_front_points_rebuild_to_their_costs(name):
    chain = load_chain(resolve_workload(name))
    spec = segment_spec(chain, chain.runs[0])
    for b, a, mp in pair_front(spec):
        assert evaluate(spec, mp) == (b, a)


def test_uneven_without_segmentation_is_never_above_tiled():
    rng = random.Random(3)
    for chain in [ffn(8, 4, 6, 4), att(), random_chain(rng), random_chain(rng)]:
        assert below_everywhere(uneven_front(chain, segment=False), fuse(chain).tiled)


@pytest.mark.slow
def test_uneven_beats_tiled_somewhere_on_the_ffn(preset_fronts):
    _chain, result, uneven = preset_fronts["gpt3-ffn"]
    assert any(uneven.at(p.buffer).accesses < p.accesses for p in result.tiled)


@pytest.mark.parametrize("name", PRESETS)
def test_every_front_is_above_the_chain_floor(preset_fronts, name):
    chain, result, uneven = preset_fronts[name]
    fronts = [
        result.unfused,
        result.untiled,
        result.tiled,
        result.tiled_pipelined,
        result.best_segmentation,
        uneven,
    ]
    for front in fronts:
        for p in front:
            assert p.accesses >= chain_lower_bound(chain, p.buffer)


@pytest.mark.slow
def test_random_chains_uneven_below_tiled_and_above_floor():
    rng = random.Random(7)
    for _ in range(12):
        chain = random_chain(rng)
        result = fuse(chain, extra_strategies=("flat",))
        uneven = uneven_front(chain)
        assert below_everywhere(uneven, result.tiled)
        assert below_everywhere(uneven, result.best_segmentation)
        for front in (
            result.unfused,
            result.untiled,
            result.tiled,
            result.best_segmentation,
            uneven,
        ):
            for p in front:
                assert p.accesses >= chain_lower_bound(chain, p.buffer)


@pytest.mark.slow
def test_block_uneven_below_tiled_and_above_floor():
    chain = load_chain(resolve_workload("gpt3-6.7b-block"))
    result = fuse(chain)
    uneven = uneven_front(chain)
    assert below_everywhere(uneven, result.tiled)
    assert below_everywhere(uneven, result.best_segmentation)
    for front in (result.unfused, result.tiled, result.best_segmentation, uneven):
        for p in front:
            assert p.accesses >= chain_lower_bound(chain, p.buffer)


# --- the floor --------------------------------------------------------------------------


def test_chain_tensors_of_the_block():
    chain = load_chain(resolve_workload("gpt3-6.7b-block"))
    inputs, outputs = chain_tensors(chain)
    assert set(inputs) == {"Xk", "Wk", "Xv", "Wv", "X", "Wq", "Wo", "W1", "W2"}
    assert set(outputs) == {"Out"}


def test_floor_is_the_external_minimum_with_a_large_buffer():
    chain = load_chain(resolve_workload("gpt3-ffn"))
    # X, W1, W2 and Y once (the fused minimum), reached by the fronts at 256 MiB.
    assert chain_lower_bound(chain, 2**40) == 32768 * 4096 * 2 + 4096 * 16384 * 2


def test_floor_does_not_rise_with_the_buffer_on_gpt3_ffn(capsys):
    """Issue 21, defect 10: the raw floor of gpt3-ffn is 864,188,416 at 4,195,329 words and
    864,350,208 at 4,196,353 (numbers from the issue). Any schedule fitting 4,195,329 words
    fits 4,196,353, so the reported floor at the smaller size is at least 864,350,208."""
    rc, out, err = run_cli(
        ["fuse", "-w", "gpt3-ffn", "--no-segmentation", "--at", "4195329,4196353"]
        + ["--format", "json"],
        capsys,
    )
    assert rc == 0, err
    small, large = json.loads(out)["at"]
    assert (small["words"], large["words"]) == (4195329, 4196353)
    assert large["lower_bound"] >= 864350208
    assert small["lower_bound"] >= large["lower_bound"]


def test_monotone_floors_is_the_running_maximum_from_above():
    chain = load_chain(resolve_workload("gpt3-ffn"))
    rng = random.Random(21)
    sizes = [rng.randrange(2**10, 2**28) for _ in range(300)] + [4195329, 4196353]
    floors = monotone_floors(chain, sizes)
    ordered = sorted(set(sizes))
    raw = {s: chain_lower_bound(chain, s) for s in ordered}
    for n, s in enumerate(ordered):
        # brute force: the largest raw floor at this size or above
        assert floors[s] == max(raw[t] for t in ordered[n:])
    assert floors[4195329] >= raw[4196353] == 864350208


def test_product_floor_by_hand():
    """K = 4 reduction, S = 16: t = S // 64 rounds up to 1, then doubles. At t = 16:
    pair = 32^2 / 4 = 256, outputs = 32 + 16 + 1024 // 64 = 64, F = isqrt(16384) = 128;
    MACs 4096 -> 16 * (32 - 1) = 496. The grid's best is at least that."""
    assert isqrt(256 * 64) == 128
    floor = product_floor(4096, 4, 16)
    assert floor >= 496
    # Never above the accesses of a real schedule: a 16x16x16 GEMM with a 16-word buffer
    # streaming everything moves at least its three tensors (768).
    assert product_floor(16 * 16 * 16, 16, 16) <= 16**3 * 3


# --- the command ----------------------------------------------------------------------


def test_cli_json_has_uneven_and_the_floor(capsys):
    rc, out, err = run_cli(
        ["fuse", "-w", "gpt3-ffn", "--space", "uneven", "--at", "10MiB,4195329,4196353"]
        + ["--format", "json"],
        capsys,
    )
    assert rc == 0, err
    report = json.loads(out)
    chain = load_chain(resolve_workload("gpt3-ffn"))
    assert report["uneven"] and all(
        set(p) >= {"buffer", "accesses", "oi", "mapping"} for p in report["uneven"]
    )
    points = [(r["words"], r["lower_bound"], None) for r in report["at"]]
    for key in ("unfused", "untiled", "tiled", "best_segmentation", "uneven"):
        for p in report[key]:
            assert p["lower_bound"] >= chain_lower_bound(chain, p["buffer"])
            assert p["accesses"] >= p["lower_bound"]
            points.append((p["buffer"], p["lower_bound"], p["accesses"]))
    # the floor never rises with the buffer, over every point of every front and every row
    for buffer, floor, _ in points:
        assert all(f >= floor for b, f, _ in points if b <= buffer)
    row = report["at"][0]
    assert row["lower_bound"] >= chain_lower_bound(chain, 10 * 2**19)
    assert row["uneven"] <= row["tiled"]


def test_cli_without_the_flag_has_no_uneven_front(capsys):
    rc, out, _ = run_cli(
        ["fuse", "-w", "gpt3-ffn", "--format", "json", "--no-segmentation"], capsys
    )
    assert rc == 0
    report = json.loads(out)
    assert "uneven" not in report
    assert all("lower_bound" in p for p in report["tiled"])


@pytest.mark.slow
def test_cli_table_shows_uneven_and_the_floor(capsys):
    rc, out, err = run_cli(
        ["fuse", "-w", "gpt3-ffn", "--space", "uneven", "--no-segmentation", "--at", "10MiB"],
        capsys,
    )
    assert rc == 0, err
    assert "uneven space (ski slope)" in out and "floor" in out


@pytest.mark.slow
def test_cli_plot(tmp_path, capsys):
    path = tmp_path / "f.png"
    rc, _, err = run_cli(
        ["fuse", "-w", "gpt3-ffn", "--space", "uneven", "--no-segmentation", "--plot", path],
        capsys,
    )
    assert rc == 0, err
    assert path.stat().st_size > 0


def test_cli_unknown_space_is_one_line(capsys):
    with pytest.raises(SystemExit) as info:
        run_cli(["fuse", "-w", "gpt3-ffn", "--space", "nope"], capsys)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--space" in err


def test_cli_uneven_with_the_paper_rule_is_refused(capsys):
    rc, _out, err = run_cli(
        ["fuse", "-w", "gpt3-ffn", "--space", "uneven", "--buffer-rule", "paper"], capsys
    )
    assert rc == 2
    assert len(err.strip().splitlines()) == 1 and "--buffer-rule" in err


def test_cli_at_takes_comma_separated_sizes(capsys):
    rc, out, err = run_cli(
        [
            "fuse",
            "-w",
            "gpt3-ffn",
            "--no-segmentation",
            "--at",
            "10MiB,257MiB",
            "--at",
            "4096",
            "--format",
            "json",
        ],
        capsys,
    )
    assert rc == 0, err
    rows = json.loads(out)["at"]
    assert [r["words"] for r in rows] == [10 * 2**19, 257 * 2**19, 4096]
    chain = load_chain(resolve_workload("gpt3-ffn"))
    assert all(r["lower_bound"] >= chain_lower_bound(chain, r["words"]) for r in rows)


def test_cli_at_empty_size_is_refused(capsys):
    rc, _, err = run_cli(["fuse", "-w", "gpt3-ffn", "--at", "10MiB,"], capsys)
    assert rc == 2
    assert len(err.strip().splitlines()) == 1 and "--at" in err


def test_cli_uneven_with_chimera_is_refused(capsys):
    rc, _, err = run_cli(
        ["fuse", "-w", "bert-attention", "--chimera", "--order", "hmlkn", "--space", "uneven"],
        capsys,
    )
    assert rc == 2
    assert len(err.strip().splitlines()) == 1 and "--space" in err


def test_a_segment_too_large_for_64_bit_counts_is_refused():
    from tenet.bounds.fusion_uneven import segment_front
    from tenet.errors import InputError

    chain = ffn(2**40, 2**12, 2**12, 2**12)
    with pytest.raises(InputError, match="too large for the uneven search"):
        segment_front(chain, [0, 1])
