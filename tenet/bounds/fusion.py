"""Fusion bounds for chains of einsums (Orojenesis on Snowcat, Huang et al., ISCA 2024).

Every front is a ski slope: (buffer words, backing-store accesses) points whose accesses
strictly fall as the buffer grows; a front is read at size B as its last point with
buffer <= B. Fronts of work that runs one piece after another (unfused einsums, segments,
runs of a chain) add pointwise: each piece gets the whole buffer (`Front.step_sum`). Fronts
are `tenet.bounds.front.Front`s of `FrontPoint`s; a tiled point keeps its `Plan` as `source`.

* unfused: each einsum's own Snowcat slope, intermediates through the backing store;
* untiled: every intermediate stays whole on chip (Snowcat per einsum, intermediate
  tiles = whole tensors, no traffic for them);
* tiled: FFMT templates, the row ranks outermost and shared, intermediates exchanged tile
  by tile on chip; accesses = Σ weights + the first input + the last output;
* best segmentation: every way to cut each run (2^(U-1)), each segment fused (tiled or
  untiled, whichever is lower) or, if it is one einsum, unfused.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

import numpy as np

from tenet.bounds.chain import Chain
from tenet.bounds.front import Front, FrontPoint
from tenet.bounds.snowcat import (
    BoundTensor,
    Problem,
    build_mapspace,
    divisors,
    pareto_front,
    transfers,
)
from tenet.bounds.templates import strategy_templates
from tenet.errors import InputError

#: Pieces run one after another, each with the whole buffer (`Front.step_sum`).
step_sum = Front.step_sum


# --- per-einsum Snowcat fronts ----------------------------------------------------------


def merged_problem(chain: Chain, e: int) -> tuple[Problem, dict[str, int]]:
    """Snowcat problem of einsum `e` with ranks of identical tensor membership merged (their
    tilings and orders give the same costs, and divisors of a product are products of
    divisors), plus each tensor's exact size."""
    entry = chain.einsums[e]
    refs = [*entry.einsum.inputs, entry.einsum.output]
    membership = {r: tuple(r in ref.indices for ref in refs) for r in entry.ranks}
    groups: dict[tuple[bool, ...], list[str]] = {}
    for r in entry.ranks:
        groups.setdefault(membership[r], []).append(r)
    merged = list(groups.values())
    names = ["_".join(g) for g in merged]
    sizes = [chain.size_of(tuple(g)) for g in merged]
    tensors = []
    for ref in refs:
        dims = tuple(
            tuple(1 if k == j else 0 for k in range(len(merged)))
            for j, g in enumerate(merged)
            if g[0] in ref.indices
        )
        tensors.append(BoundTensor(ref.tensor, dims, output=ref is entry.einsum.output))
    problem = Problem(entry.name, names, sizes, tensors)
    tensor_sizes = {ref.tensor: chain.size_of(ref.indices) for ref in refs}
    return problem, tensor_sizes


def snowcat_front(
    chain: Chain,
    e: int,
    on_chip: frozenset[str] = frozenset(),
    label: str | None = None,
    slopes: dict | None = None,
) -> Front:
    """Snowcat slope of einsum `e`; tensors in `on_chip` stay whole in the buffer and cost
    nothing (untiled fusion's intermediates). `slopes` keeps slopes already searched."""
    if slopes is not None:
        key = (e, on_chip, label)
        if key not in slopes:
            slopes[key] = snowcat_front(chain, e, on_chip, label)
        return slopes[key]
    problem, sizes = merged_problem(chain, e)
    space = build_mapspace(problem)
    buffer = np.zeros(len(space), dtype=np.int64)
    accesses = np.zeros(len(space), dtype=np.int64)
    for tensor in problem.tensors:
        if tensor.name in on_chip:
            buffer += sizes[tensor.name]
            continue
        tile, moved = transfers(tensor, space)
        buffer += tile
        accesses += 2 * moved - sizes[tensor.name] if tensor.output else moved
    keep = pareto_front(buffer, accesses)
    name = chain.einsums[e].name
    points = []
    for i in keep.tolist():
        tiles = " ".join(f"{r}0={int(space.inner[i, k])}" for k, r in enumerate(problem.ranks))
        order = ">".join(problem.ranks[k] for k in space.order[i].tolist() if k >= 0) or "-"
        how = label or "unfused"
        points.append(
            FrontPoint(
                int(buffer[i]), int(accesses[i]), f"{name}: {how}, outer {order}, tile {tiles}"
            )
        )
    return Front(tuple(points))


# --- tiled fusion (FFMT) ----------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """One product's tiles and costs in a fused segment at a fixed row tile M0 (words)."""

    template: str
    k0: int  # K tile (ranks of K, heads of the run included whole)
    n0: int
    in_row: int  # words of one row of the input tile (K0 * heads)
    out_row: int
    in_tile: int
    out_tile: int
    weight_tile: int
    weight: int  # backing-store accesses of the weight
    first_input: int  # accesses of the input if this product starts the segment
    last_output: int  # accesses of the output if this product ends the segment
    persist: bool  # the weight tile is reused across row tiles, so it stays between them
    whole: bool  # K and N untiled with the whole weight on chip (the paper's "resident")
    streamed: bool = False  # the weight passes through a one-word buffer
    m1: int = 1  # trips of the row loops
    k1: int = 1  # trips of the K loop
    n1: int = 1  # trips of the N loop
    span: int = 1  # consecutive row tiles that reuse the weight tile (1: none)


@dataclass(frozen=True)
class ProductShape:
    """Sizes of `O[M, N] += A[M, K] * W[K, N]` with heads and weight groups."""

    m: int
    k_tiled: int
    k_whole: int  # product of K ranks that are heads of the run (never tiled)
    n_tiled: int
    n_whole: int
    heads: int
    groups: int

    @property
    def k(self) -> int:
        return self.k_tiled * self.k_whole

    @property
    def n(self) -> int:
        return self.n_tiled * self.n_whole

    @property
    def size_a(self) -> int:
        return self.m * self.k * self.heads

    @property
    def size_w(self) -> int:
        return self.groups * self.k * self.n * self.heads

    @property
    def size_o(self) -> int:
        return self.m * self.n * self.heads


def product_shape(chain: Chain, e: int, run_heads: set[str]) -> ProductShape:
    entry = chain.einsums[e]
    k_whole = tuple(r for r in entry.k if r in run_heads)
    n_whole = tuple(r for r in entry.n if r in run_heads)
    return ProductShape(
        chain.size_of(entry.rows),
        chain.size_of(tuple(r for r in entry.k if r not in run_heads)),
        chain.size_of(k_whole),
        chain.size_of(tuple(r for r in entry.n if r not in run_heads)),
        chain.size_of(n_whole),
        chain.size_of(entry.heads),
        chain.size_of(entry.groups),
    )


def groups_per_tile(shape: ProductShape, m0: int) -> int | None:
    """Weight groups a row tile spans (None if tiles straddle groups unevenly)."""
    inner = shape.m // shape.groups
    if m0 % inner == 0:
        return m0 // inner
    if inner % m0 == 0:
        return 1
    return None


def choices(shape: ProductShape, template: str, m0: int) -> list[Choice]:
    """Every tile choice of one product under a template at row tile `m0`."""
    c = groups_per_tile(shape, m0)
    if c is None:
        return []
    m1 = shape.m // m0
    h = shape.heads
    # A weight tile is reused by the next row tiles that lie in the same groups.
    span = max(1, shape.m // shape.groups // m0)
    reused = span > 1
    k_options = (
        [shape.k_tiled] if template in ("Full", "TiledN", "FlashN") else divisors(shape.k_tiled)
    )
    n_options = (
        [shape.n_tiled] if template in ("Full", "TiledK", "FlashK") else divisors(shape.n_tiled)
    )
    streamed = m1 * c * shape.k * shape.n * h  # each row tile sweeps the weights of its groups
    out = []
    for k0t in k_options:
        for n0t in n_options:
            k1, n1 = shape.k_tiled // k0t, shape.n_tiled // n0t
            k0, n0 = k0t * shape.k_whole, n0t * shape.n_whole
            in_tile, out_tile = m0 * k0 * h, m0 * n0 * h
            first_input, last_output = shape.size_a, shape.size_o
            # (tile words, accesses, reused across row tiles, streamed through one word)
            weights: list[tuple[int, int, bool, bool]] = [(1, streamed, False, True)]
            if template in ("Full", "TiledK", "TiledN", "TiledKN", "TiledNK"):
                if template in ("TiledK", "TiledKN") and k1 > 1:
                    first_input = shape.size_a * n1  # A tile re-read for each N tile
                if template == "TiledNK" and n1 > 1:
                    last_output = (2 * k1 - 1) * shape.size_o  # partial outputs go out and back
                if k1 * n1 == 1:
                    weights.append((c * shape.k * shape.n * h, shape.size_w, reused, False))
            elif template == "FlashN":
                if m1 > 1:
                    first_input = shape.size_a * n1  # query rows re-read per key tile
                weights.append((c * shape.k * n0 * h, shape.size_w, reused, False))
            elif template == "FlashK":
                if m1 > 1:
                    last_output = (2 * k1 - 1) * shape.size_o
                weights.append((c * k0 * shape.n * h, shape.size_w, reused, False))
            for weight_tile, weight, persist, is_streamed in weights:
                out.append(
                    Choice(
                        template,
                        k0,
                        n0,
                        k0 * h,
                        n0 * h,
                        in_tile,
                        out_tile,
                        weight_tile,
                        weight,
                        first_input,
                        last_output,
                        persist,
                        k1 == 1 and n1 == 1 and weight_tile > 1,
                        is_streamed,
                        m1,
                        k1,
                        n1,
                        span if persist else 1,
                    )
                )
    return out


# --- the buffer of a fused path -----------------------------------------------------------
#
# The loop nest of a segment: the row loops (M) are outermost and shared; inside a row tile
# the products run one after another. Where product e tiles its output columns (N1 > 1), the
# next product tiles the same columns as its reduction (K1 = N1, the same tile), and the two
# share that loop S: `for M: for S: { e's K loop: step e ; e+1's N loop: step e+1 }`. A Flash
# pair puts S outside the row loops: `for S: for M: { step e ; step e+1 }`. A tile stays on
# chip across the loops between its position (inside the innermost loop that indexes its
# tensor) and its product's step; so a tile of one product of a shared pair can be live
# while the other product runs.

#: Templates whose row loops are outermost (a shared loop S then sits inside the row loops).
_M_OUTER = ("Full", "TiledK", "TiledN", "TiledKN", "TiledNK")


def shares_loop(producer: Choice) -> bool:
    """Product e and the next share the loop over the intermediate's columns (N1 of e > 1)."""
    return producer.n1 > 1


def valid_nest(path: list[Choice]) -> bool:
    """The path describes one fused loop nest without recomputation: a shared loop S encloses
    only the two products around it, so the producer has no loop of its own outside S
    other than the row loops (its K loop inside S), the consumer likewise (its N loop inside S),
    no product shares on both sides, and an S outside the row loops (a Flash pair) is the
    whole segment."""
    shared = [shares_loop(ch) for ch in path[:-1]]
    for e, is_shared in enumerate(shared):
        if not is_shared:
            continue
        producer, consumer = path[e], path[e + 1]
        if consumer.k1 != producer.n1:
            return False
        if e + 1 < len(shared) and shared[e + 1]:
            return False  # the middle product would sit inside two different S loops
        flash = producer.template == "FlashN" and consumer.template == "FlashK"
        if flash and producer.m1 > 1:
            if len(path) != 2:
                return False
            continue
        if producer.template == "TiledNK" and producer.k1 > 1:
            return False  # its K loop encloses S: the consumer would read partial sums
        if consumer.template == "TiledKN" and consumer.n1 > 1:
            return False  # its N loop encloses S: the producer would run again per N tile
        if producer.m1 > 1 and (
            producer.template not in _M_OUTER or consumer.template not in _M_OUTER
        ):
            return False  # a row loop between a Flash template's S and its step
    return True


def _input_held(producer: Choice) -> bool:
    """The producer's input tile stays across the shared loop S: no loop of the producer
    inside S indexes it (its K loop for row-outer templates, the row loops for FlashN)."""
    return producer.m1 == 1 if producer.template == "FlashN" else producer.k1 == 1


def _output_held(consumer: Choice) -> bool:
    """The consumer's output tile accumulates across S: no loop of the consumer inside S
    indexes it (its N loop for row-outer templates, the row loops for FlashK)."""
    return consumer.m1 == 1 if consumer.template == "FlashK" else consumer.n1 == 1


def _working_set(ch: Choice) -> int:
    """Words a product's step needs: its input, output and (unless held all along) weight tiles."""
    return ch.in_tile + ch.out_tile + (0 if ch.persist else ch.weight_tile)


def _row_tile_samples(path: list[Choice]) -> list[int]:
    """Row tiles that show every pattern of first / middle / last tile of each weight's reuse
    span (spans divide the row-tile count, so tiles near 0, near each span and at the end)."""
    count = path[0].m1
    near = {0, 1, 2, count - 3, count - 2, count - 1}
    for ch in path:
        near |= {ch.span - 2, ch.span - 1, ch.span, ch.span + 1}
    return sorted(i for i in near if 0 <= i < count)


def live_buffer(path: list[Choice]) -> int:
    """Peak live words of the path's loop nest. During the step of product j in row tile i:
    its working set; the tile its shared-loop partner keeps across S (the producer's input
    while the consumer runs, the consumer's output while the producer runs); and every
    weight tile reused across row tiles that is live then: from its first use (product e
    in the first tile of its span) to its last use (product e in the span's last tile)."""
    phase = []  # words of each product's step, without the reused weights
    e = 0
    while e < len(path):
        ch = path[e]
        if e + 1 < len(path) and shares_loop(ch):
            nxt = path[e + 1]
            phase.append(_working_set(ch) + (nxt.out_tile if _output_held(nxt) else 0))
            phase.append(_working_set(nxt) + (ch.in_tile if _input_held(ch) else 0))
            e += 2
        else:
            phase.append(_working_set(ch))
            e += 1
    reused = [(e, ch.span, ch.weight_tile) for e, ch in enumerate(path) if ch.persist]
    if not reused:
        return max(phase)
    if all(span > 2 for _, span, _ in reused):
        # Tile 1 is in the middle of every span, so every reused weight is live at every step.
        return max(phase) + sum(tile for _, _, tile in reused)
    peak = 0
    for i in _row_tile_samples(path):
        for j, words in enumerate(phase):
            for e, span, tile in reused:
                first, last = i % span == 0, i % span == span - 1
                if not (first and j < e) and not (last and j > e):
                    words += tile
            peak = max(peak, words)
    return peak


def pipelined_buffer(path: list[Choice]) -> int:
    """Pipelined fusion: every product works at once on its own tiles, so all working sets
    add up (an intermediate tile twice: the producer fills one while the consumer drains
    the other), and every weight tile is held."""
    return sum(ch.in_tile + ch.out_tile + ch.weight_tile for ch in path)


def paper_buffer(path: list[Choice]) -> int:
    """The published artifact's rule (scheme 2): a product whose weight is not whole on chip
    needs its weight, input and output tiles; a maximal run of neighbours with whole
    weights needs all their weights, the run's first input and last output tile, and one
    row of each intermediate inside the run; the segment needs the largest of these.
    Tiles live across a loop shared by two products are missed, so a point may be
    unattainable."""
    entries, e = [], 0
    while e < len(path):
        if not path[e].whole:
            entries.append(path[e].in_tile + path[e].out_tile + path[e].weight_tile)
            e += 1
            continue
        b = e
        while b + 1 < len(path) and path[b + 1].whole:
            b += 1
        rows = max(
            (ch.in_row if i > e else 0) + (ch.out_row if i < b else 0)
            for i, ch in enumerate(path[e : b + 1], start=e)
        )
        weights = sum(ch.weight_tile for ch in path[e : b + 1])
        entries.append(weights + path[e].in_tile + path[b].out_tile + rows)
        e = b + 1
    return max(entries)


def paper_pipelined_buffer(path: list[Choice]) -> int:
    """The paper's pipelined rule: all weight tiles plus the largest input+output pair."""
    return sum(ch.weight_tile for ch in path) + max(ch.in_tile + ch.out_tile for ch in path)


#: Buffer of a fused path by (rule, model): `live` is the peak of live words of the nest,
#: `paper` the published artifact's rule (its points may be unattainable).
BUFFER_RULES: dict[tuple[str, str], Callable[[list[Choice]], int]] = {
    ("live", "sequential"): live_buffer,
    ("live", "pipelined"): pipelined_buffer,
    ("paper", "sequential"): paper_buffer,
    ("paper", "pipelined"): paper_pipelined_buffer,
}


def _paths(options: list[list[Choice]]) -> Iterator[list[Choice]]:
    """Consistent paths: each product's input row equals the previous product's output row."""

    def extend(prefix: list[Choice], position: int) -> Iterator[list[Choice]]:
        if position == len(options):
            yield prefix
            return
        for ch in options[position]:
            if not prefix or ch.in_row == prefix[-1].out_row:
                yield from extend(prefix + [ch], position + 1)

    yield from extend([], 0)


@dataclass(frozen=True)
class Plan:
    """One fused mapping of a segment: the row tile, each product's choice, and its costs."""

    m0: int
    path: tuple[Choice, ...]
    buffer: int
    accesses: int


def segment_plans(
    chain: Chain,
    segment: list[int],
    strategy: str = "ffmt",
    model: str = "sequential",
    rule: str = "live",
) -> list[Plan]:
    """Every fused mapping of a segment (einsum indices of one run, at least two products)
    under a strategy, with its buffer (by `rule` and `model`) and backing-store accesses
    (Σ weights + the first input + the last output)."""
    products = [e for e in segment if not chain.einsums[e].elementwise]
    templates = strategy_templates(strategy, len(products))
    run = next(r for r in chain.runs if segment[0] in r)
    run_heads = {h for e in run for h in chain.einsums[e].heads}
    shapes = [product_shape(chain, e, run_heads) for e in products]
    buffer_of = BUFFER_RULES[(rule, model)]
    plans = []
    for m0 in divisors(shapes[0].m):
        options = [choices(s, t, m0) for s, t in zip(shapes, templates)]
        if any(not o for o in options):
            continue
        # Every consistent path is scored: a few thousand per M0 even for six products.
        for path in _paths(options):
            if not valid_nest(path):
                continue
            accesses = sum(ch.weight for ch in path) + path[0].first_input + path[-1].last_output
            plans.append(Plan(m0, tuple(path), buffer_of(path), accesses))
    return plans


def _describe(names: list[str], plan: Plan) -> str:
    parts = []
    for name, ch in zip(names, plan.path):
        weight = "W streamed" if ch.streamed else "W resident"
        parts.append(f"{name}: {ch.template} K0={ch.k0} N0={ch.n0} {weight}")
    return f"M0={plan.m0} | " + "; ".join(parts)


def tiled_front(
    chain: Chain,
    segment: list[int],
    strategy: str = "ffmt",
    model: str = "sequential",
    slopes: dict | None = None,
    rule: str = "live",
) -> Front:
    """Fused front of a segment (einsum indices of one run) with at least two products; each
    point keeps its `plan`."""
    plans = segment_plans(chain, segment, strategy, model, rule)
    names = [chain.einsums[e].name for e in segment if not chain.einsums[e].elementwise]
    front = Front.pareto(
        FrontPoint(p.buffer, p.accesses, _describe(names, p), source=p) for p in plans
    )
    # Element-wise steps inside the segment run on the intermediate tiles in place; one at
    # the end of the segment reads the segment's output back and writes its own.
    tail = []
    for e in reversed(segment):
        if not chain.einsums[e].elementwise:
            break
        tail.append(snowcat_front(chain, e, slopes=slopes))
    return step_sum([front, *tail]) if tail else front


# --- untiled fusion and the unfused chain ------------------------------------------------


def untiled_front(chain: Chain, segment: list[int], slopes: dict | None = None) -> Front:
    """Every intermediate of the segment stays whole on chip; each einsum gets the buffer."""
    fronts = []
    for position, e in enumerate(segment):
        entry = chain.einsums[e]
        on_chip = set()
        if position > 0:
            on_chip.add(entry.activation)
        if position < len(segment) - 1:
            on_chip.add(entry.output)
        fronts.append(snowcat_front(chain, e, frozenset(on_chip), "untiled fusion", slopes))
    return step_sum(fronts)


def unfused_front(chain: Chain, segment: list[int], slopes: dict | None = None) -> Front:
    """Each einsum on its own with the whole buffer, intermediates through the backing store."""
    return step_sum([snowcat_front(chain, e, slopes=slopes) for e in segment])


def units(chain: Chain, run: list[int]) -> list[list[int]]:
    """A run's products, each with the element-wise steps that follow it (cuts go between units)."""
    out: list[list[int]] = []
    for e in run:
        if chain.einsums[e].elementwise and out:
            out[-1].append(e)
        else:
            out.append([e])
    return out


def compositions(count: int) -> Iterator[list[int]]:
    """Segment lengths of every way to cut `count` units (2^(count-1) ways)."""
    for cuts in itertools.product((False, True), repeat=count - 1):
        lengths, current = [], 1
        for cut in cuts:
            if cut:
                lengths.append(current)
                current = 1
            else:
                current += 1
        lengths.append(current)
        yield lengths


def label_segments(front: Front, text: str) -> Front:
    """The front with every piece of every point marked as part of the cut `text`."""
    return Front(
        tuple(replace(p, parts=tuple(replace(q, segments=text) for q in p.pieces)) for p in front)
    )


@dataclass
class FusionResult:
    chain: Chain
    strategy: str
    unfused: Front
    untiled: Front
    tiled: Front
    tiled_pipelined: Front
    best_segmentation: Front
    segmentations: int
    strategies: dict[str, Front]
    rule: str = "live"


def fuse(
    chain: Chain,
    strategy: str = "ffmt",
    extra_strategies: tuple[str, ...] = (),
    segment: bool = True,
    progress: Callable[[int, int], None] | None = None,
    rule: str = "live",
) -> FusionResult:
    """All fronts of the chain (each run fused whole, or cut in every way). `rule` is the
    buffer of a fused segment: `live` (peak live words of its loop nest) or `paper` (the
    published artifact's rule, whose points may be unattainable)."""
    if rule not in ("live", "paper"):
        raise InputError(
            f"unknown buffer rule {rule!r} (choose live or paper)", option="buffer_rule"
        )
    cache: dict[tuple, Front] = {}
    slopes: dict = {}  # Snowcat slopes, shared by every front below

    def cached(key: tuple, make: Callable[[], Front]) -> Front:
        if key not in cache:
            cache[key] = make()
        return cache[key]

    def fused(seg: list[int], strat: str, model: str = "sequential") -> Front:
        if sum(1 for e in seg if not chain.einsums[e].elementwise) < 2:
            return cached(("unfused", tuple(seg)), lambda: unfused_front(chain, seg, slopes))
        return cached(
            (strat, model, tuple(seg)),
            lambda: tiled_front(chain, seg, strat, model, slopes, rule),
        )

    def untiled(seg: list[int]) -> Front:
        if len(seg) < 2:
            return cached(("unfused", tuple(seg)), lambda: unfused_front(chain, seg, slopes))
        return cached(("untiled", tuple(seg)), lambda: untiled_front(chain, seg, slopes))

    runs = chain.runs
    total = sum(2 ** (len(units(chain, r)) - 1) for r in runs) if segment else 0
    total += 3 * len(runs) + 1
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, total)

    unfused = unfused_front(chain, list(range(len(chain.einsums))), slopes)
    tick()
    run_fronts: dict[str, list[Front]] = {"untiled": [], "tiled": [], "pipelined": []}
    strategies: dict[str, list[Front]] = {s: [] for s in extra_strategies}
    best_runs = []
    for run in runs:
        run_fronts["untiled"].append(label_segments(untiled(run), "untiled fusion of the run"))
        tick()
        run_fronts["tiled"].append(fused(run, strategy))
        tick()
        run_fronts["pipelined"].append(fused(run, strategy, "pipelined"))
        tick()
        for s in extra_strategies:
            strategies[s].append(fused(run, s))
        if segment:
            parts = units(chain, run)
            candidates = []
            for lengths in compositions(len(parts)):
                segments, start = [], 0
                for length in lengths:
                    segments.append([e for u in parts[start : start + length] for e in u])
                    start += length
                text = " | ".join("+".join(chain.einsums[e].name for e in seg) for seg in segments)
                pieces = []
                for seg in segments:
                    options = fused(seg, strategy)
                    pieces.append(options + untiled(seg) if len(seg) > 1 else Front.pareto(options))
                candidates.extend(label_segments(step_sum(pieces), text))
                tick()
            best_runs.append(Front.pareto(candidates))
    return FusionResult(
        chain,
        strategy,
        unfused,
        step_sum(run_fronts["untiled"]),
        step_sum(run_fronts["tiled"]),
        step_sum(run_fronts["pipelined"]),
        step_sum(best_runs) if segment else Front(),
        total - 3 * len(runs) - 1,
        {s: step_sum(f) for s, f in strategies.items()},
        rule,
    )


def algorithmic_minima(chain: Chain) -> dict[str, int]:
    """Unfused: every tensor of every einsum once (intermediates written and read back);
    fused: each run's inputs, weights and outputs once, intermediates free."""
    unfused = 0
    for e, entry in enumerate(chain.einsums):
        for ref in (*entry.einsum.inputs, entry.einsum.output):
            unfused += chain.size_of(ref.indices)
    fused = 0
    for run in chain.runs:
        first, last = chain.einsums[run[0]], chain.einsums[run[-1]]
        fused += chain.size_of(first.tensor_ranks(first.activation))
        fused += chain.size_of(last.tensor_ranks(last.output))
        fused += sum(
            chain.size_of(chain.einsums[e].tensor_ranks(chain.einsums[e].weight))
            for e in run
            if not chain.einsums[e].elementwise
        )
    return {"unfused": unfused, "fused": fused}


def chain_ops(chain: Chain) -> int:
    """2 * MACs - |O| summed over the products (element-wise steps add one op per element)."""
    ops = 0
    for entry in chain.einsums:
        macs = chain.size_of(entry.ranks)
        out = chain.size_of(entry.tensor_ranks(entry.output))
        ops += macs if entry.elementwise else 2 * macs - out
    return ops
