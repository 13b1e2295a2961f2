"""An independent word-level trace of a fused segment's loop nest (tests only).

It executes the loop nest that a fused mapping means, records every use of every word,
and measures the peak of live words and the backing-store traffic. It is written from the
mapping's definition (docs/fusion.md and the rules below), not from `tenet.bounds.fusion`, so the
tests can compare the two.

The nest. Backing-store loops per template, outer to inner: Full: M; TiledK: M > K;
TiledN: M > N; TiledKN: M > N > K; TiledNK: M > K > N; FlashN: N > M; FlashK: K > M. The M
"loop" is one loop per row rank (row tile M0 over the flattened rows, row-major). A loop of
one trip does not exist. When product e has an N loop and product e+1 a K loop they are one
shared loop S over the intermediate's columns.

* M-outer: `for <M loops>: body`, the products in order; a shared pair is
  `for S: { e's other loops around step e ; e+1's other loops around step e+1 }`, a lone
  product is its non-M loops (template order) around its step.
* A Flash pair [FlashN, FlashK] with a shared S: `for S: for <M loops>: { step e ; step e+1 }`.
* (Beyond the spec: a lone Flash product whose outer loop exists is a block of its own,
  `for <outer>: for <M loops>: step`, and consecutive other products share one M-outer
  block. A segment is the sequence of its blocks. Intermediates crossing blocks then show up
  as violations.)

A step touches every word of its A tile (rows x K tile x heads), W tile (groups of the rows
x K tile x N tile x heads) and O tile (rows x N tile x heads).

Liveness. A word used at step u1 stays on chip until its next use u2 iff u2 is inside the
same iteration of L, the innermost loop enclosing u1 whose ranks index the word's tensor (the
whole segment if there is none). A streamed weight is never kept and holds one word per step.
Live words at step s: the words step s touches (a streamed weight counts 1) plus the words
kept across s. Traffic: inputs (the first A, every weight) cost 1 per load; the last output
costs 1 per write-back (each eviction) and 1 per read of a word written before;
intermediates never move, and one evicted and used again is a violation.
"""

from __future__ import annotations

import itertools
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass, field

#: Non-M loops of each template, outer to inner ("k" = the K rank, "n" = the N rank).
TEMPLATE_LOOPS = {
    "Full": (),
    "TiledK": ("k",),
    "TiledN": ("n",),
    "TiledKN": ("n", "k"),
    "TiledNK": ("k", "n"),
    "FlashN": ("n",),
    "FlashK": ("k",),
}

#: Templates whose non-M loop is outside the M loops.
FLASH = ("FlashN", "FlashK")

_EINSUM = re.compile(
    r"^\s*(\w+)\s*\[([^\]]*)\]\s*\+?=\s*(\w+)\s*\[([^\]]*)\]\s*\*\s*(\w+)\s*\[([^\]]*)\]\s*$"
)

#: At most this many violations are listed (the count is always exact).
MAX_LISTED = 50


@dataclass(frozen=True)
class TraceProduct:
    einsum: str  # "H[m,f] += X[m,d] * W1[d,f]": first input = activation A, second = weight W
    template: str  # Full, TiledK, TiledN, TiledKN, TiledNK, FlashN, FlashK
    k0: int  # tile of the K rank (in A and W only)
    n0: int  # tile of the N rank (in W and O only)
    streamed: bool  # weight streamed through one word


@dataclass
class TraceResult:
    peak: int  # the largest number of live words at any step
    traffic: int  # backing-store words moved
    tensor_traffic: dict[str, int]  # per tensor (aliases under the name they alias)
    violations: list[str]  # intermediates that would have to leave the chip (first few)
    violation_count: int = 0
    steps: int = 0
    live: list[int] = field(default_factory=list, repr=False)  # live words at each step


@dataclass(frozen=True)
class _Parsed:
    out: tuple[str, tuple[str, ...]]
    a: tuple[str, tuple[str, ...]]
    w: tuple[str, tuple[str, ...]]
    k: str | None
    n: str | None
    heads: tuple[str, ...]


def _refs(text: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    match = _EINSUM.match(text)
    if not match:
        raise ValueError(f"cannot parse {text!r} as 'O[..] += A[..] * W[..]'")
    groups = match.groups()
    out = []
    for name, indices in zip(groups[0::2], groups[1::2]):
        out.append((name, tuple(i.strip() for i in indices.split(",") if i.strip())))
    return tuple(out)


def _parse(text: str, rows: list[str]) -> _Parsed:
    out, a, w = _refs(text)
    sa, sw, so = set(a[1]), set(w[1]), set(out[1])
    for r in rows:
        if r not in sa or r not in so:
            raise ValueError(f"row rank {r!r} is not in both {a[0]} and {out[0]} of {text!r}")
    ranks = dict.fromkeys(a[1] + w[1] + out[1])
    k = [r for r in ranks if r in sa and r in sw and r not in so and r not in rows]
    n = [r for r in ranks if r in sw and r in so and r not in sa and r not in rows]
    heads = tuple(r for r in ranks if r in sa and r in sw and r in so and r not in rows)
    if len(k) > 1 or len(n) > 1:
        raise ValueError(f"the trace takes at most one K and one N rank: {text!r}")
    return _Parsed(out, a, w, k[0] if k else None, n[0] if n else None, heads)


@dataclass
class _Loop:
    id: int
    ranks: frozenset[str]  # the ranks this loop iterates (all get the same tile)
    tile: int
    trips: int
    body: list  # of _Loop and _Step


@dataclass
class _Step:
    product: int


def _row_tiles(rows: list[str], sizes: dict[str, int], m0: int) -> list[tuple[str, int]]:
    """(rank, tile) per row rank, outer to inner, for a row tile of m0 flattened rows."""
    tiles = []
    left = m0
    for r in reversed(rows):
        size = sizes[r]
        if left >= size:
            if left % size:
                raise ValueError(f"row tile {m0} straddles rank {r!r} unevenly")
            tiles.append((r, size))
            left //= size
        else:
            if size % left:
                raise ValueError(f"row tile {m0} does not divide rank {r!r}")
            tiles.append((r, left))
            left = 1
    if left != 1:
        raise ValueError(f"row tile {m0} is larger than the rows")
    return list(reversed(tiles))


def _build_nest(
    products: list[TraceProduct],
    parsed: list[_Parsed],
    sizes: dict[str, int],
    rows: list[str],
    m0: int,
) -> list:
    counter = itertools.count()
    row_tiles = _row_tiles(rows, sizes, m0)

    def m_loops(body: list) -> list:
        for r, tile in reversed(row_tiles):
            trips = sizes[r] // tile
            if trips > 1:
                body = [_Loop(next(counter), frozenset([r]), tile, trips, body)]
        return body

    trips = []
    for p, q in zip(products, parsed):
        if p.template not in TEMPLATE_LOOPS:
            raise ValueError(f"unknown template {p.template!r}")
        k_size = sizes[q.k] if q.k else 1
        n_size = sizes[q.n] if q.n else 1
        if k_size % p.k0 or n_size % p.n0:
            raise ValueError(f"tiles K0={p.k0}, N0={p.n0} do not divide {k_size}, {n_size}")
        t = {"k": k_size // p.k0, "n": n_size // p.n0}
        for axis in "kn":
            if t[axis] > 1 and axis not in TEMPLATE_LOOPS[p.template]:
                raise ValueError(
                    f"{p.template} has no {axis.upper()} loop but it has {t[axis]} trips"
                )
        trips.append(t)

    def has(e: int, axis: str) -> bool:
        return trips[e][axis] > 1

    shared = [has(e, "n") and has(e + 1, "k") for e in range(len(products) - 1)]
    for e, s in enumerate(shared):
        if not s:
            continue
        if products[e].n0 != products[e + 1].k0 or sizes[parsed[e].n] != sizes[parsed[e + 1].k]:
            raise ValueError(f"products {e} and {e + 1} iterate their shared columns differently")
        if e + 1 < len(shared) and shared[e + 1]:
            raise NotImplementedError("a product sharing both its K and its N loop")

    def own_loops(e: int, skip: str | None) -> list[tuple[frozenset[str], int, int]]:
        out = []
        for axis in TEMPLATE_LOOPS[products[e].template]:
            if axis == skip or not has(e, axis):
                continue
            rank = parsed[e].k if axis == "k" else parsed[e].n
            tile = products[e].k0 if axis == "k" else products[e].n0
            out.append((frozenset([rank]), tile, trips[e][axis]))
        return out

    def around(loops: list[tuple[frozenset[str], int, int]], body: list) -> list:
        for ranks, tile, count in reversed(loops):
            body = [_Loop(next(counter), ranks, tile, count, body)]
        return body

    def shared_loop(e: int, body: list) -> _Loop:
        ranks = frozenset([parsed[e].n, parsed[e + 1].k])
        return _Loop(next(counter), ranks, products[e].n0, trips[e]["n"], body)

    units: list[tuple[int, ...]] = []
    e = 0
    while e < len(products):
        if e < len(shared) and shared[e]:
            units.append((e, e + 1))
            e += 2
        else:
            units.append((e,))
            e += 1

    nest: list = []
    pending: list = []  # bodies of consecutive M-outer units

    def flush() -> None:
        if pending:
            nest.extend(m_loops(list(pending)))
            pending.clear()

    for unit in units:
        templates = tuple(products[e].template for e in unit)
        if len(unit) == 2:
            first, second = unit
            if templates == ("FlashN", "FlashK"):
                flush()
                nest.append(shared_loop(first, m_loops([_Step(first), _Step(second)])))
                continue
            if set(templates) & set(FLASH):
                raise NotImplementedError(f"a shared loop between {templates}")
            body = around(own_loops(first, "n"), [_Step(first)]) + around(
                own_loops(second, "k"), [_Step(second)]
            )
            pending.append(shared_loop(first, body))
            continue
        (only,) = unit
        loops = own_loops(only, None)
        if templates[0] in FLASH and loops:
            flush()
            nest.extend(around(loops, m_loops([_Step(only)])))
        else:
            pending.extend(around(loops, [_Step(only)]))
    flush()
    return nest


def _walk(nest: list, sizes: dict[str, int]):
    """Yield (step, ranges, path, loops) per step: ranges maps every rank to the (start,
    stop) of its current tile (the whole rank unless an enclosing loop tiles it); path is
    ((loop id, iteration), ...) outer to inner; loops (the enclosing loops) is one tuple
    object per step of the nest."""

    def go(body: list, ranges: dict, path: tuple, loops: tuple):
        for node in body:
            if isinstance(node, _Step):
                yield node, ranges, path, loops
                continue
            inner_loops = loops + (node,)
            for i in range(node.trips):
                inner = dict(ranges)
                for r in node.ranks:
                    inner[r] = (i * node.tile, (i + 1) * node.tile)
                yield from go(node.body, inner, path + ((node.id, i),), inner_loops)

    yield from go(nest, {r: (0, n) for r, n in sizes.items()}, (), ())


def trace_segment(
    products: list[TraceProduct],
    sizes: dict[str, int],
    rows: list[str],
    m0: int,
    aliases: dict[str, str] | None = None,
) -> TraceResult:
    """Execute the fused loop nest of `products` and measure its peak and traffic."""
    aliases = dict(aliases or {})

    def canon(name: str) -> str:
        seen = set()
        while name in aliases and name not in seen:
            seen.add(name)
            name = aliases[name]
        return name

    parsed = [_parse(p.einsum, rows) for p in products]
    # Each tensor's canonical rank order: its first appearance under its canonical name.
    order: dict[str, tuple[str, ...]] = {}
    for q in parsed:
        for name, ranks in (q.a, q.w, q.out):
            c = canon(name)
            if c in order and set(order[c]) != set(ranks):
                raise ValueError(f"{name} (= {c}) is used with ranks {ranks} and {order[c]}")
            order.setdefault(c, ranks)
    kind: dict[str, str] = {}
    kind[canon(parsed[0].a[0])] = "input"
    for q in parsed:
        kind[canon(q.w[0])] = "weight"
    for q in parsed[:-1]:
        kind[canon(q.out[0])] = "intermediate"
    kind[canon(parsed[-1].out[0])] = "output"
    for e, q in enumerate(parsed[1:], start=1):
        if canon(q.a[0]) != canon(parsed[e - 1].out[0]):
            raise ValueError(f"product {e} does not read the output of product {e - 1}")

    nest = _build_nest(products, parsed, sizes, rows, m0)

    word_ids: dict[tuple, int] = {}
    tiles: dict[tuple, list[int]] = {}

    def tile_words(tensor: str, spans: tuple) -> list[int]:
        key = (tensor, spans)
        words = tiles.get(key)
        if words is None:
            words = []
            for index in itertools.product(*(range(a, b) for a, b in spans)):
                words.append(word_ids.setdefault((tensor, index), len(word_ids)))
            tiles[key] = words
        return words

    # Per word: its last use (step, depth of L's iteration in that step's path, streamed).
    last: dict[int, tuple[int, int, bool]] = {}
    paths: list[tuple] = []
    touched: list[int] = []
    diff: list[int] = []  # kept words: +1 at the step after u1, -1 at u2
    traffic: dict[str, int] = {c: 0 for c in kind}
    distinct: dict[str, int] = {c: 0 for c in kind}  # words touched at least once
    violations: list[str] = []
    violation_count = 0
    reverse: dict[int, tuple] = {}  # word id -> (tensor, index), built for messages only

    def describe(w: int) -> str:
        if w not in reverse:
            reverse.update({v: k for k, v in word_ids.items()})
        tensor, index = reverse[w]
        return f"{tensor}[{','.join(map(str, index))}]"

    def spans_of(tensor: str) -> Callable[[dict], tuple]:
        ranks = order[tensor]
        if len(ranks) == 1:
            return lambda ranges: (ranges[ranks[0]],)
        return operator.itemgetter(*ranks)

    # Per step of the nest (static): (tensor, spans getter, streamed, depth of L) per role.
    Role = tuple[str, Callable[[dict], tuple], bool, int]
    roles_of: dict[int, list[Role]] = {}

    def roles(step: _Step, loops: tuple) -> list[Role]:
        p, q = products[step.product], parsed[step.product]
        out = []
        for name, streamed in ((q.a[0], False), (q.w[0], p.streamed), (q.out[0], False)):
            tensor = canon(name)
            tensor_ranks = set(order[tensor])
            depth = 0  # L is the whole segment
            for j in range(len(loops) - 1, -1, -1):
                if loops[j].ranks & tensor_ranks:
                    depth = j + 1
                    break
            out.append((tensor, spans_of(tensor), streamed, depth))
        return out

    for s, (step, ranges, path, loops) in enumerate(_walk(nest, sizes)):
        paths.append(path)
        diff.append(0)
        live = 0
        step_roles = roles_of.get(id(step))
        if step_roles is None:
            step_roles = roles_of[id(step)] = roles(step, loops)
        for tensor, spans, streamed, depth in step_roles:
            key = (tensor, spans(ranges))
            words = tiles.get(key)
            if words is None:
                words = tile_words(*key)
            live += 1 if streamed else len(words)
            use = (s, depth, streamed)
            first = evicted = 0
            group, group_kept = None, False  # words of a tile mostly share their last use
            intermediate = kind[tensor] == "intermediate"
            for w in words:
                previous = last.get(w)
                last[w] = use
                if previous is None:
                    first += 1
                    continue
                if previous is not group:
                    group = previous
                    u1, d1, streamed1 = previous
                    group_kept = not streamed1 and paths[u1][:d1] == path[:d1]
                if group_kept:
                    if u1 + 1 < s:
                        diff[u1 + 1] += 1
                        diff[s] -= 1
                    continue
                evicted += 1
                if intermediate:
                    violation_count += 1
                    if len(violations) < MAX_LISTED:
                        violations.append(
                            f"{describe(w)} leaves the chip after step {u1} "
                            f"and is used again at step {s}"
                        )
            distinct[tensor] += first
            if kind[tensor] in ("input", "weight"):
                traffic[tensor] += first + evicted  # loads
            elif kind[tensor] == "output":
                traffic[tensor] += 2 * evicted  # written back after u1, read back now
        touched.append(live)
    for tensor, k in kind.items():
        if k == "output":
            traffic[tensor] += distinct[tensor]  # the final write-back of every word

    running = 0
    live_per_step = []
    for s, t in enumerate(touched):
        running += diff[s]
        live_per_step.append(t + running)
    return TraceResult(
        peak=max(live_per_step, default=0),
        traffic=sum(traffic.values()),
        tensor_traffic=traffic,
        violations=violations,
        violation_count=violation_count,
        steps=len(touched),
        live=live_per_step,
    )
