"""Fused mappings with per-tensor tile placement (`tenet fuse --space uneven`).

A mapping of a fused segment is one loop nest at the backing store (docs/fusion.md, "The
uneven space"):

* the row loops are outermost and shared by every product (the rows, flattened, tiled by a
  divisor M0; a weight group boundary splits them into an outer loop that changes the group
  and an inner one that does not);
* two neighbours may share the loop S over the intermediate's columns (the producer's N loop
  is the consumer's K loop); inside S each runs its own other loop;
* every other product runs its own K and N loops, in either order, inside the row loops;
* every tensor's tile sits at its own position among the loops that enclose its product's
  step; a weight may also stream through one word; an intermediate is kept on chip (its tile
  sits at the innermost loop enclosing both its producer and its consumer) or spilled
  (written by the producer and read back by the consumer, both charged).

Costs, for a tile at position p (below the first p enclosing loops):

* its extent in a rank is the tile of the innermost loop above p over that rank (the whole
  rank if none); L* is the innermost loop above p that indexes the tensor;
* an instance of the tile lives in one iteration of L* (the whole segment if there is none),
  from the first step that touches it to the last; it is fetched once (inputs), written back
  once (outputs: writes W = tile x instances, accesses 2W - |O|), or never moves (kept
  intermediates); a streamed weight moves every word each step, through one word;
* the buffer is the peak, over the steps of the nest, of the words of every live instance
  (the tile-level form of the live-buffer rule of `fusion.live_buffer`).

The peak is exact without walking the nest: whether an instance is live at a step depends
only on whether each enclosing loop is in its first, a middle, or its last iteration, so
every such pattern is probed (a middle exists only with at least three trips).

Search (`segment_front`): two products, the whole space (`pair_front`); three or more, the
block nests of `long_front` plus the FFMT templates; one product, the single-einsum uneven
space. `uneven_front` takes the best over every segmentation. `chain_lower_bound` is a floor
on the accesses of every schedule of the chain (docs/fusion.md, "A floor under every
schedule").
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from math import isqrt
from typing import Any

import numpy as np

from tenet.bounds.chain import Chain
from tenet.bounds.front import Front, FrontPoint
from tenet.bounds.fusion import (
    ProductShape,
    compositions,
    label_segments,
    merged_problem,
    product_shape,
    snowcat_front,
    step_sum,
    tiled_front,
    units,
    untiled_front,
)
from tenet.bounds.snowcat import divisors, pareto_front
from tenet.errors import InputError

FIRST, MIDDLE, LAST = 0, 1, 2
TOP = 0  # a tile above every loop of the segment
STREAM = -1  # a weight streamed through one word


# --- the loop nest ---------------------------------------------------------------------


@dataclass(eq=False)
class Loop:
    """A backing-store loop: `dim` is 'M' (rows) or 'c<j>' (columns j); `trips` and `tile`
    (extent of `dim` per iteration) are ints or arrays over a batch of tile sizes."""

    name: str
    dim: str
    trips: Any
    tile: Any
    two: bool = False  # exactly two trips (no middle iteration)
    body: list = field(default_factory=list)


@dataclass(frozen=True)
class SegmentSpec:
    """Sizes of a fused segment of E products, flattened: rows M, columns c0..cE (c_e is
    product e's tiled K, c_{e+1} its tiled N), weight groups, and per-tensor constant
    factors (heads and head-rank parts of K and N, which are never tiled)."""

    names: tuple[str, ...]
    tensors: tuple[str, ...]  # A0, W0, O0(=A1), W1, ..., O_{E-1}
    m: int
    c: tuple[int, ...]
    groups: tuple[int, ...]
    factor_a: tuple[int, ...]
    factor_w: tuple[int, ...]
    factor_o: tuple[int, ...]

    @property
    def products(self) -> int:
        return len(self.names)

    def inner(self, e: int) -> int | None:
        """Rows of one weight group of product e (None: one group)."""
        return self.m // self.groups[e] if self.groups[e] > 1 else None

    def size(self, tensor: tuple[str, int]) -> int:
        kind, e = tensor
        if kind == "A":
            return self.m * self.c[e] * self.factor_a[e]
        if kind == "W":
            return self.groups[e] * self.c[e] * self.c[e + 1] * self.factor_w[e]
        return self.m * self.c[e + 1] * self.factor_o[e]


def segment_spec(chain: Chain, segment: list[int]) -> SegmentSpec | None:
    """The flattened sizes of a segment's products (None if the intermediates' columns do
    not line up, which no chain that `tenet fuse` accepts produces)."""
    products = [e for e in segment if not chain.einsums[e].elementwise]
    run = next(r for r in chain.runs if segment[0] in r)
    run_heads = {h for e in run for h in chain.einsums[e].heads}
    shapes: list[ProductShape] = [product_shape(chain, e, run_heads) for e in products]
    c = [shapes[0].k_tiled] + [s.n_tiled for s in shapes]
    for e in range(1, len(shapes)):
        if shapes[e].k_tiled != shapes[e - 1].n_tiled:
            return None
        if shapes[e].k_whole * shapes[e].heads != shapes[e - 1].n_whole * shapes[e - 1].heads:
            return None
    names = [chain.einsums[e].name for e in products]
    tensors = [chain.einsums[products[0]].activation]
    for e in products:
        tensors += [chain.einsums[e].weight, chain.einsums[e].output]
    return SegmentSpec(
        tuple(names),
        tuple(tensors),
        shapes[0].m,
        tuple(c),
        tuple(s.groups for s in shapes),
        tuple(s.k_whole * s.heads for s in shapes),
        tuple(s.k_whole * s.n_whole * s.heads for s in shapes),
        tuple(s.n_whole * s.heads for s in shapes),
    )


def row_levels(spec: SegmentSpec, m0: int) -> list[int] | None:
    """Row tiles of the row loops, outer to inner (their trips: ratios of neighbours, from
    M): every weight group size above M0, then M0. None if M0 straddles a group unevenly."""
    inner = {spec.inner(e) for e in range(spec.products)} - {None}
    for size in inner:
        if m0 % size and size % m0:
            return None
    return [size for size in sorted(inner, reverse=True) if size > m0] + [m0]


def row_loops(spec: SegmentSpec, m0: int) -> list[Loop] | None:
    levels = row_levels(spec, m0)
    if levels is None:
        return None
    loops, outer = [], spec.m
    for i, size in enumerate(levels):
        trips = outer // size
        if trips > 1:
            loops.append(Loop(f"rows{i}", "M", trips, size, trips == 2))
        outer = size
    if len(loops) == 1:
        loops[0].name = "rows"
    return loops


# --- tensors, placements and costs -------------------------------------------------------


def tensor_dims(spec: SegmentSpec, kind: str, e: int) -> tuple[str, ...]:
    """Dims of product e's A, W or O ('g<e>' is the weight group)."""
    if kind == "A":
        return ("M", f"c{e}")
    if kind == "W":
        return (f"g{e}", f"c{e}", f"c{e + 1}")
    return ("M", f"c{e + 1}")


def _factor(spec: SegmentSpec, kind: str, e: int) -> int:
    return {"A": spec.factor_a, "W": spec.factor_w, "O": spec.factor_o}[kind][e]


def indexes(spec: SegmentSpec, loop: Loop, dims: tuple[str, ...]) -> bool:
    """The loop changes the tensor's tile from one iteration to the next."""
    if loop.dim == "M":
        if "M" in dims:
            return True
        group = next((d for d in dims if d[0] == "g"), None)
        if group is None:
            return False
        inner = spec.inner(int(group[1:]))
        return inner is not None and loop.tile >= inner
    return loop.dim in dims


def extent(spec: SegmentSpec, dims: tuple[str, ...], above: list[Loop]) -> Any:
    """Words of a tile (without the constant factor) below the loops `above`."""
    words: Any = 1
    for d in dims:
        if d[0] == "g":
            e = int(d[1:])
            rows = next((lp.tile for lp in reversed(above) if lp.dim == "M"), None)
            inner = spec.inner(e)
            if rows is None:
                words = words * spec.groups[e]
            elif inner is not None and rows >= inner:
                words = words * (rows // inner)
            continue
        if d == "M":
            size = spec.m
        else:
            size = spec.c[int(d[1:])]
        tile = next((lp.tile for lp in reversed(above) if lp.dim == d), size)
        words = words * tile
    return words


def _trips(loops: list[Loop]) -> Any:
    out: Any = 1
    for lp in loops:
        out = out * lp.trips
    return out


@dataclass
class Tile:
    """One tensor's tile in a nest: who uses it, where it sits, and what it costs."""

    tensor: str
    users: list[int]  # step ids (the producer then the consumer for a kept intermediate)
    depth: int  # loops above the tile (on the first user's path); STREAM for streamed
    star: int  # loops down to and including L* (0: none)
    words: Any  # tile words (1 if streamed)
    traffic: Any
    label: str = ""


@dataclass
class Step:
    product: int
    address: tuple[int, ...] = ()
    path: list[Loop] = field(default_factory=list)


def steps_of(nest: list) -> list[Step]:
    """Steps in execution order with their address (body index per depth) and loops."""
    out: list[Step] = []

    def walk(body: list, address: tuple[int, ...], path: list[Loop]) -> None:
        for i, node in enumerate(body):
            if isinstance(node, Loop):
                walk(node.body, address + (i,), path + [node])
            else:
                out.append(Step(node, address + (i,), path))

    walk(nest, (), [])
    return out


def place(
    spec: SegmentSpec,
    steps: list[Step],
    kind: str,
    e: int,
    depth: int,
    role: str,
    label: str = "",
) -> Tile:
    """Product e's tensor `kind` (A, W, O) at `depth` on its step's path, charged by `role`:
    'input' (fetched per instance), 'output' (2W - |O|) or 'stream' (weights)."""
    step = next(i for i, s in enumerate(steps) if s.product == e)
    path = steps[step].path
    dims = tensor_dims(spec, kind, e)
    factor = _factor(spec, kind, e)
    size = spec.size((kind, e))
    if role == "stream":
        per_step = extent(spec, dims, path) * factor
        return Tile(kind + str(e), [step], STREAM, len(path), 1, per_step * _trips(path), label)
    above = path[:depth]
    star = max((i + 1 for i, lp in enumerate(above) if indexes(spec, lp, dims)), default=0)
    words = extent(spec, dims, above) * factor
    moved = words * _trips(path[:star])
    traffic = 2 * moved - size if role == "output" else moved
    return Tile(kind + str(e), [step], depth, star, words, traffic, label)


def keep(spec: SegmentSpec, steps: list[Step], e: int) -> Tile:
    """Intermediate e (O of e = A of e + 1) kept on chip, at the innermost loop enclosing
    both steps."""
    producer = next(i for i, s in enumerate(steps) if s.product == e)
    consumer = next(i for i, s in enumerate(steps) if s.product == e + 1)
    a, b = steps[producer], steps[consumer]
    common = _common(a, b)
    above = a.path[:common]
    dims = tensor_dims(spec, "O", e)
    star = max((i + 1 for i, lp in enumerate(above) if indexes(spec, lp, dims)), default=0)
    words = extent(spec, dims, above) * spec.factor_o[e]
    return Tile(f"O{e}", [producer, consumer], common, star, words, 0, "kept")


# --- liveness at probes -----------------------------------------------------------------


def probes(steps: list[Step]) -> list[tuple[int, tuple[int, ...]]]:
    """(step, pattern of its enclosing loops) for every first/middle/last pattern."""
    out = []
    for s, step in enumerate(steps):
        options = [(FIRST, LAST) if lp.two else (FIRST, MIDDLE, LAST) for lp in step.path]
        for pattern in itertools.product(*options):
            out.append((s, pattern))
    return out


def _common(a: Step, b: Step) -> int:
    """How many enclosing loops two steps share (the same loop at the same address)."""
    q = 0
    while (
        q < min(len(a.path), len(b.path))
        and a.address[q] == b.address[q]
        and a.path[q] is b.path[q]
    ):
        q += 1
    return q


def live(tile: Tile, steps: list[Step], probe: tuple[int, tuple[int, ...]]) -> bool:
    """The tile's instance that contains the probe's iteration of L* is live at the probe."""
    s, pattern = probe
    if tile.depth == STREAM:
        return s == tile.users[0]
    here = steps[s]
    first, last = steps[tile.users[0]], steps[tile.users[-1]]
    q_first, q_last = _common(here, first), _common(here, last)
    if min(q_first, q_last) < tile.star:
        return False  # L* does not enclose the probe

    def after(user: Step, q: int, user_id: int) -> bool:
        if any(pattern[d] != FIRST for d in range(tile.star, q)):
            return True
        return s == user_id or here.address[q] > user.address[q]

    def before(user: Step, q: int, user_id: int) -> bool:
        if any(pattern[d] != LAST for d in range(tile.star, q)):
            return True
        return s == user_id or here.address[q] < user.address[q]

    return after(first, q_first, tile.users[0]) and before(last, q_last, tile.users[-1])


def peak(tiles: list[Tile], steps: list[Step]) -> Any:
    """Largest sum of live tile words over every probe."""
    best: Any = 0
    for probe in probes(steps):
        words: Any = 0
        for tile in tiles:
            if live(tile, steps, probe):
                words = words + tile.words
        best = np.maximum(best, words)
    return best


def total_traffic(tiles: list[Tile]) -> Any:
    return sum((t.traffic for t in tiles), 0)


# --- mappings ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Mapping:
    """One fused mapping: row tile, per product its K and N tiles (of c_e, c_{e+1}) and own
    loop order ('KN': K outer), which neighbours share the column loop, which
    intermediates stay on chip, and each tensor's position: the name of the loop it sits
    just inside ('top': above every loop; 'stream' for a streamed weight). Spilled
    intermediates have two positions, 'O<e>' (producer) and 'A<e+1>' (consumer)."""

    m0: int
    k0: tuple[int, ...]
    n0: tuple[int, ...]
    order: tuple[str, ...]
    shared: tuple[bool, ...]
    kept: tuple[bool, ...]
    placement: tuple[tuple[str, str], ...]  # (tensor key 'A0', 'W1', 'O1', ...) -> loop name
    outer: bool = False  # two products sharing S with S outside the row loops (Flash-like)

    def where(self, key: str) -> str:
        return dict(self.placement)[key]


def build_nest(spec: SegmentSpec, mp: Mapping, batch: dict | None = None) -> list | None:
    """The loop nest of a mapping (None if it is not one). `batch` optionally replaces the
    scalar tiles by arrays (keys ('k', e) / ('n', e)) with the same loops existing."""
    rows = row_loops(spec, mp.m0)
    if rows is None:
        return None
    E = spec.products

    def tile(axis: str, e: int) -> Any:
        if batch is not None and (axis, e) in batch:
            return batch[(axis, e)]
        return mp.k0[e] if axis == "k" else mp.n0[e]

    def own(axis: str, e: int) -> Loop | None:
        size = spec.c[e] if axis == "k" else spec.c[e + 1]
        scalar = mp.k0[e] if axis == "k" else mp.n0[e]
        if size % scalar:
            return None
        trips = size // scalar
        if trips == 1:
            return None
        t = tile(axis, e)
        name = f"{spec.names[e]}.{'K' if axis == 'k' else 'N'}"
        dim = f"c{e}" if axis == "k" else f"c{e + 1}"
        return Loop(name, dim, size // t if batch is not None else trips, t, trips == 2)

    for e in range(E):
        if spec.c[e] % mp.k0[e] or spec.c[e + 1] % mp.n0[e]:
            return None
    body: list = []
    e = 0
    while e < E:
        if e + 1 < E and mp.shared[e]:
            if mp.n0[e] != mp.k0[e + 1] or mp.n0[e] == spec.c[e + 1]:
                return None
            if e + 2 < E and mp.shared[e + 1]:
                return None  # a product shares at most one loop
            s = own("n", e)
            s.name = f"{spec.names[e]}/{spec.names[e + 1]}.S"
            k, n = own("k", e), own("n", e + 1)
            if k is not None:
                k.body = [e]
            if n is not None:
                n.body = [e + 1]
            s.body = [k if k is not None else e, n if n is not None else e + 1]
            body.append(s)
            e += 2
            continue
        inner: list = [e]
        loops = [own("k", e), own("n", e)]
        if mp.order[e] == "NK":
            loops.reverse()
        for lp in reversed([lp for lp in loops if lp is not None]):
            lp.body = inner
            inner = [lp]
        body.extend(inner)
        e += 1
    if mp.outer:
        if E != 2 or not mp.shared[0]:
            return None
        (s,) = body  # the shared loop goes outside the row loops
        inner_body, body = s.body, [s]
        for lp in reversed(rows):
            lp.body = inner_body
            inner_body = [lp]
        s.body = inner_body
        return body
    for lp in reversed(rows):
        lp.body = body
        body = [lp]
    return body


def _written_in_time(steps: list[Step], e: int, tile: Tile) -> bool:
    """A spilled intermediate is written back before it is read back: its producer's tile
    and its consumer's tile both sit inside every loop the two products share."""
    producer = next(s for s in steps if s.product == e)
    consumer = next(s for s in steps if s.product == e + 1)
    return tile.depth >= _common(producer, consumer)


def _depth(path: list[Loop], name: str) -> int | None:
    if name == "top":
        return 0
    for i, lp in enumerate(path):
        if lp.name == name:
            return i + 1
    return None


def mapping_tiles(spec: SegmentSpec, mp: Mapping, nest: list) -> list[Tile] | None:
    """Every tile of a mapping with its cost (None if a position is not on its path)."""
    steps = steps_of(nest)
    E = spec.products
    out: list[Tile] = []

    def put(kind: str, e: int, role: str) -> bool:
        key = f"{kind}{e}"
        where = mp.where(key)
        path = next(s.path for s in steps if s.product == e)
        if where == "stream":
            if kind != "W":
                return False
            out.append(place(spec, steps, kind, e, 0, "stream", key))
            return True
        depth = _depth(path, where)
        if depth is None:
            return False
        out.append(place(spec, steps, kind, e, depth, role, key))
        return True

    if not put("A", 0, "input"):
        return None
    for e in range(E):
        if not put("W", e, "input"):
            return None
        if e + 1 < E and mp.kept[e]:
            out.append(keep(spec, steps, e))
            continue
        if not put("O", e, "output"):
            return None
        if e + 1 < E and not _written_in_time(steps, e, out[-1]):
            return None
        if e + 1 < E and not put("A", e + 1, "input"):
            return None
        if e + 1 < E and not _written_in_time(steps, e, out[-1]):
            return None
    return out


def evaluate(spec: SegmentSpec, mp: Mapping) -> tuple[int, int] | None:
    """(buffer, accesses) of one mapping, or None if it is not a mapping of the space."""
    nest = build_nest(spec, mp)
    if nest is None:
        return None
    tiles = mapping_tiles(spec, mp, nest)
    if tiles is None:
        return None
    return int(peak(tiles, steps_of(nest))), int(total_traffic(tiles))


def describe(spec: SegmentSpec, mp: Mapping) -> str:
    """Readable text: row tile, the loop nest (name:trips) and where each tile sits."""
    nest = build_nest(spec, mp)

    def text(body: list) -> str:
        parts = []
        for node in body:
            if isinstance(node, Loop):
                parts.append(f"{node.name}:{node.trips} {text(node.body)}".strip())
            else:
                parts.append(spec.names[node])
        return parts[0] if len(parts) == 1 else "{ " + " ; ".join(parts) + " }"

    names = {f"A{0}": spec.tensors[0]}
    for e in range(spec.products):
        names[f"W{e}"] = spec.tensors[1 + 2 * e]
        names[f"O{e}"] = spec.tensors[2 + 2 * e]
        if e > 0:
            names[f"A{e}"] = spec.tensors[2 * e]
    tiles = []
    for key, where in mp.placement:
        tiles.append(f"{names[key]}@{where}" if where != "stream" else f"{names[key]} streamed")
    for e, kept in enumerate(mp.kept):
        if kept:
            tiles.append(f"{spec.tensors[2 + 2 * e]} kept")
    return f"M0={mp.m0} | {text(nest)} | " + ", ".join(tiles)


# --- the search ----------------------------------------------------------------------------


def _positions(spec: SegmentSpec, path: list[Loop], kind: str, e: int, rows: int) -> list[str]:
    """Positions that can change a tensor's cost: just inside a loop that indexes it, or
    above every loop. Moving a tile above a loop that does not index it changes nothing;
    an activation above a row loop only grows (every row loop indexes it)."""
    dims = tensor_dims(spec, kind, e)
    names = ["top"] + [lp.name for lp in path if indexes(spec, lp, dims)]
    if kind != "W" and rows and all(lp.dim == "M" for lp in path[:rows]):
        names = [lp.name for lp in path[rows - 1 :] if indexes(spec, lp, dims)]
    return names


def _broadcast(value: Any, n: int) -> np.ndarray:
    return np.broadcast_to(np.asarray(value, dtype=np.int64), (n,))


@dataclass
class _Option:
    """One choice for a group of tiles: its tiles and (words per probe, accesses)."""

    choice: tuple[tuple[str, str], ...]
    tiles: list[Tile]


def _tensor_options(
    spec: SegmentSpec,
    steps: list[Step],
    kind: str,
    e: int,
    role: str,
    rows: int,
) -> list[_Option]:
    path = next(s.path for s in steps if s.product == e)
    key = f"{kind}{e}"
    out = []
    stream = None
    if kind == "W":
        stream = place(spec, steps, kind, e, 0, "stream", key)
        out.append(_Option(((key, "stream"),), [stream]))
    for name in _positions(spec, path, kind, e, rows):
        tile = place(spec, steps, kind, e, _depth(path, name), role, key)
        if stream is not None and np.all(np.asarray(tile.traffic) >= np.asarray(stream.traffic)):
            continue  # no reuse a streamed weight lacks: streaming is never worse
        out.append(_Option(((key, name),), [tile]))
    return out


def _group_options(
    spec: SegmentSpec, steps: list[Step], rows: int, kept_allowed: bool = True
) -> list[list[_Option]]:
    """Option lists of the segment's tensors: A0, each W, each intermediate (kept, or the
    producer's O and consumer's A placed), the last O."""
    E = spec.products
    groups = [_tensor_options(spec, steps, "A", 0, "input", rows)]
    for e in range(E):
        groups.append(_tensor_options(spec, steps, "W", e, "input", rows))
        if e + 1 < E:
            options = [_Option((), [keep(spec, steps, e)])] if kept_allowed else []
            for o in _tensor_options(spec, steps, "O", e, "output", rows):
                if not _written_in_time(steps, e, o.tiles[0]):
                    continue
                for a in _tensor_options(spec, steps, "A", e + 1, "input", rows):
                    if not _written_in_time(steps, e, a.tiles[0]):
                        continue
                    options.append(_Option(o.choice + a.choice, o.tiles + a.tiles))
            groups.append(options)
    groups.append(_tensor_options(spec, steps, "O", E - 1, "output", rows))
    return groups


def _live_vector(tile: Tile, steps: list[Step], every: list[tuple], cache: dict) -> np.ndarray:
    """Whether the tile is live at each probe of `every` (tiles of the same users, position
    and L* share one vector)."""
    key = (tuple(tile.users), tile.depth, tile.star)
    if key not in cache:
        cache[key] = _live_array(tile, steps, cache)
    return cache[key]


def _patterns(steps: list[Step], s: int, cache: dict) -> np.ndarray:
    """Every first/middle/last pattern of step s's loops, in `probes` order."""
    key = ("patterns", s)
    if key not in cache:
        options = [(FIRST, LAST) if lp.two else (FIRST, MIDDLE, LAST) for lp in steps[s].path]
        rows = list(itertools.product(*options))
        cache[key] = np.array(rows, dtype=np.int8).reshape(len(rows), len(options))
    return cache[key]


def _live_array(tile: Tile, steps: list[Step], cache: dict) -> np.ndarray:
    """`live` at every probe, one step's patterns at a time (the same rule, vectorized)."""
    out = []
    first, last = steps[tile.users[0]], steps[tile.users[-1]]
    for s, here in enumerate(steps):
        patterns = _patterns(steps, s, cache)
        if tile.depth == STREAM:
            out.append(np.full(len(patterns), s == tile.users[0]))
            continue
        q_first, q_last = _common(here, first), _common(here, last)
        if min(q_first, q_last) < tile.star:
            out.append(np.zeros(len(patterns), dtype=bool))
            continue
        after = (patterns[:, tile.star : q_first] != FIRST).any(axis=1)
        if s == tile.users[0] or here.address[q_first] > first.address[q_first]:
            after[:] = True
        before = (patterns[:, tile.star : q_last] != LAST).any(axis=1)
        if s == tile.users[-1] or here.address[q_last] < last.address[q_last]:
            before[:] = True
        out.append(after & before)
    return np.concatenate(out)


def _relevant_probes(tiles: list[Tile], steps: list[Step], every: list[tuple], cache: dict):
    """Indices of the probes whose live set is not contained in another probe's for every
    choice of tiles (words are never negative, so only these can hold the peak)."""
    if not tiles:
        return np.arange(min(1, len(every)))
    matrix = np.array([_live_vector(t, steps, every, cache) for t in tiles], dtype=bool)
    _, first = np.unique(matrix, axis=1, return_index=True)
    first = np.sort(first)
    columns = matrix[:, first]
    covers = (columns[:, :, None] >= columns[:, None, :]).all(axis=0)  # i covers j
    np.fill_diagonal(covers, False)
    dominated = covers.any(axis=0)
    return first[~dominated]


@dataclass
class _Found:
    """Front candidates of one batch: arrays plus what rebuilds their mappings."""

    buffer: np.ndarray
    accesses: np.ndarray
    rebuild: list[Callable[[], Mapping]]


def _combine(
    groups: list[list[_Option]],
    steps: list[Step],
    n: int,
    make: Callable[[tuple, int], Mapping],
    found: list[_Found],
) -> None:
    """Every choice of one option per group: buffer (peak over probes) and accesses,
    vectorized over the batch of n tile sizes; keeps each choice's ski slope."""
    every = probes(steps)
    cache: dict = {}
    tiles = [t for options in groups for o in options for t in o.tiles]
    keep_probes = _relevant_probes(tiles, steps, every, cache)
    contrib = []
    for options in groups:
        per = []
        for o in options:
            words = np.zeros((len(keep_probes), n), dtype=np.int64)
            traffic = np.zeros(n, dtype=np.int64)
            for t in o.tiles:
                w = _broadcast(t.words, n)
                alive = _live_vector(t, steps, every, cache)[keep_probes]
                words[alive] += w
                traffic += _broadcast(t.traffic, n)
            per.append((words, traffic))
        contrib.append(per)
    for pick in itertools.product(*(range(len(g)) for g in groups)):
        words = sum(contrib[g][i][0] for g, i in enumerate(pick))
        traffic = sum(contrib[g][i][1] for g, i in enumerate(pick))
        buffer = words.max(axis=0)
        keep_idx = pareto_front(buffer, traffic)
        choice = tuple(c for g, i in enumerate(pick) for c in groups[g][i].choice)
        found.append(
            _Found(
                buffer[keep_idx],
                traffic[keep_idx],
                [(lambda c=choice, k=int(k): make(c, k)) for k in keep_idx.tolist()],
            )
        )


def _classes(
    combos: Iterator[tuple[int, ...]], sizes: tuple[int, ...]
) -> dict[tuple, list[tuple[int, ...]]]:
    """Tile combinations grouped by which loops exist and which have exactly two trips (the
    nest's shape, so its liveness, is the same within a group)."""
    out: dict[tuple, list[tuple[int, ...]]] = {}
    for combo in combos:
        key = tuple(min(size // t, 3) for t, size in zip(combo, sizes))
        out.setdefault(key, []).append(combo)
    return out


def _shared_pair(spec: SegmentSpec, m0: int, found: list[_Found]) -> None:
    """Two products sharing the loop S over the intermediate's columns: rows > S > { K:
    product 0 ; N: product 1 }, or S > rows > { ... } (S outside, as in FlashAttention),
    every placement."""
    rows = row_loops(spec, m0)
    c0, c1, c2 = spec.c[:3]
    combos = itertools.product(divisors(c0), [s for s in divisors(c1) if s < c1], divisors(c2))
    for combos_ in _classes(combos, (c0, c1, c2)).values():
        arr = np.array(combos_, dtype=np.int64)
        k0, s0, n0 = combos_[0]
        for outer in (False, True) if rows else (False,):
            mp = Mapping(m0, (k0, s0), (s0, n0), ("KN", "KN"), (True,), (True,), (), outer)
            batch = {
                ("k", 0): arr[:, 0],
                ("n", 0): arr[:, 1],
                ("k", 1): arr[:, 1],
                ("n", 1): arr[:, 2],
            }
            nest = build_nest(spec, mp, batch)
            steps = steps_of(nest)
            groups = _group_options(spec, steps, len(rows))

            def make(choice: tuple, i: int, arr=arr, outer=outer) -> Mapping:
                k, s, n = (int(x) for x in arr[i])
                kept = not any(key == "O0" for key, _ in choice)
                return Mapping(m0, (k, s), (s, n), ("KN", "KN"), (True,), (kept,), choice, outer)

            _combine(groups, steps, len(arr), make, found)


def _lone_nest(spec: SegmentSpec, m0: int, e: int, k0: Any, n0: Any, order: str) -> list:
    rows = row_loops(spec, m0)
    loops = []
    for axis, tile, size in (("K", k0, spec.c[e]), ("N", n0, spec.c[e + 1])):
        scalar = int(np.asarray(tile).flat[0])
        if size // scalar > 1:
            dim = f"c{e}" if axis == "K" else f"c{e + 1}"
            loops.append(
                Loop(f"{spec.names[e]}.{axis}", dim, size // tile, tile, size // scalar == 2)
            )
    if order == "NK":
        loops.reverse()
    body: list = [e]
    for lp in reversed(rows + loops):
        lp.body = body
        body = [lp]
    return body


def _lone_side(spec: SegmentSpec, m0: int, e: int, kept: bool) -> list[tuple]:
    """Product e of a pair in its own block: per choice (local words, words kept across row
    tiles, accesses, rebuild info). A kept intermediate is whole-row on chip in both blocks."""
    rows = len(row_loops(spec, m0))
    c_k, c_n = spec.c[e], spec.c[e + 1]
    out = []
    combos = itertools.product(divisors(c_k), divisors(c_n))
    for combos_ in _classes(combos, (c_k, c_n)).values():
        arr = np.array(combos_, dtype=np.int64)
        n = len(arr)
        both = c_k // combos_[0][0] > 1 and c_n // combos_[0][1] > 1
        for order in ("KN", "NK") if both else ("KN",):
            nest = _lone_nest(spec, m0, e, arr[:, 0], arr[:, 1], order)
            steps = steps_of(nest)
            groups = [_tensor_options(spec, steps, "W", e, "input", rows)]
            if e == 0:
                groups.insert(0, _tensor_options(spec, steps, "A", 0, "input", rows))
            elif not kept:
                groups.insert(0, _tensor_options(spec, steps, "A", e, "input", rows))
            if e == spec.products - 1 or not kept:
                groups.append(_tensor_options(spec, steps, "O", e, "output", rows))
            held = m0 * spec.c[1] * spec.factor_o[0] if kept else 0
            for pick in itertools.product(*groups):
                local = _broadcast(held, n).copy()
                persistent = np.zeros(n, dtype=np.int64)
                traffic = np.zeros(n, dtype=np.int64)
                for o in pick:
                    for t in o.tiles:
                        target = persistent if t.depth != STREAM and t.star < rows else local
                        target += _broadcast(t.words, n)
                        traffic += _broadcast(t.traffic, n)
                choice = tuple(c for o in pick for c in o.choice)
                out.append((local, persistent, traffic, arr, order, choice))
    return out


def _prune_side(side: list[tuple]) -> tuple[np.ndarray, ...]:
    """Flatten one side's choices and drop those another beats on local words and accesses
    with the same persistent words."""
    local = np.concatenate([s[0] for s in side])
    persistent = np.concatenate([s[1] for s in side])
    traffic = np.concatenate([s[2] for s in side])
    which = np.concatenate([np.full(len(s[0]), i) for i, s in enumerate(side)])
    row = np.concatenate([np.arange(len(s[0])) for s in side])
    keep = []
    for value in np.unique(persistent):
        idx = np.flatnonzero(persistent == value)
        keep.append(idx[pareto_front(local[idx], traffic[idx])])
    k = np.concatenate(keep)
    return local[k], persistent[k], traffic[k], which[k], row[k]


def _lone_pair(spec: SegmentSpec, m0: int, found: list[_Found]) -> None:
    """Two products, each in its own block inside the row loops. Live words at a step of
    block b: its own tiles, the kept intermediate, and the other block's tiles kept across
    row tiles (live there in the first or last row tile), so the peak is
    P0 + P1 + max(L0, L1) (P: tiles kept across row tiles, L: the rest of a block)."""
    for kept in (True, False):
        sides = [_lone_side(spec, m0, e, kept) for e in (0, 1)]
        l0, p0, t0, w0, r0 = _prune_side(sides[0])
        l1, p1, t1, w1, r1 = _prune_side(sides[1])
        buffer = (p0[:, None] + p1[None, :] + np.maximum(l0[:, None], l1[None, :])).ravel()
        traffic = (t0[:, None] + t1[None, :]).ravel()
        keep_idx = pareto_front(buffer, traffic)

        def make(_: Any, flat: int, kept=kept, sides=sides, idx=(w0, r0, w1, r1)) -> Mapping:
            i, j = divmod(flat, len(idx[2]))
            a = sides[0][int(idx[0][i])]
            b = sides[1][int(idx[2][j])]
            ka, na = (int(x) for x in a[3][int(idx[1][i])])
            kb, nb = (int(x) for x in b[3][int(idx[3][j])])
            return Mapping(m0, (ka, kb), (na, nb), (a[4], b[4]), (False,), (kept,), a[5] + b[5])

        found.append(
            _Found(
                buffer[keep_idx],
                traffic[keep_idx],
                [(lambda k=int(k), make=make: make(None, k)) for k in keep_idx.tolist()],
            )
        )


def pair_front(spec: SegmentSpec) -> list[tuple[int, int, Mapping]]:
    """Ski slope of a two-product segment over the whole space: (buffer, accesses, mapping)."""
    found: list[_Found] = []
    for m0 in divisors(spec.m):
        if row_loops(spec, m0) is None:
            continue
        if spec.c[1] > 1:
            _shared_pair(spec, m0, found)
        _lone_pair(spec, m0, found)
    buffer = np.concatenate([f.buffer for f in found])
    accesses = np.concatenate([f.accesses for f in found])
    rebuild = [r for f in found for r in f.rebuild]
    keep_idx = pareto_front(buffer, accesses)
    return [(int(buffer[i]), int(accesses[i]), rebuild[i]()) for i in keep_idx.tolist()]


# --- fronts of chains ----------------------------------------------------------------------


def segment_front(chain: Chain, segment: list[int], slopes: dict | None = None) -> Front:
    """Front of one segment in the uneven space (two products: the whole space searched;
    three or more: only the FFMT template mappings, which the space contains with the same
    costs; one: its Snowcat slope), with untiled fusion as a further option, and any
    element-wise steps at the end run unfused (as in `fusion.tiled_front`)."""
    products = [e for e in segment if not chain.einsums[e].elementwise]
    if len(products) < 2:
        return step_sum([lone_front(chain, e, slopes) for e in segment])
    macs = sum(chain.size_of(chain.einsums[e].ranks) for e in products)
    if 16 * macs >= 2**62:  # every count of the search stays below 16 x MACs
        raise InputError(
            f"segment {'+'.join(chain.einsums[e].name for e in products)} is too large for "
            "the uneven search (its counts would not fit 64-bit integers)",
            chain.source,
        )
    spec = segment_spec(chain, segment)
    templates = untiled_front(chain, segment, slopes)
    if spec is None or len(products) > 2:
        templates += tiled_front(chain, segment, "ffmt", slopes=slopes)
    if spec is None:
        return Front.pareto(templates)
    search = pair_front if len(products) == 2 else long_front
    points = Front(
        tuple(
            FrontPoint(b, a, "uneven " + describe(spec, mp), source=mp) for b, a, mp in search(spec)
        )
    )
    tail = []
    for e in reversed(segment):
        if not chain.einsums[e].elementwise:
            break
        tail.append(snowcat_front(chain, e, slopes=slopes))
    fused = step_sum([points, *tail]) if tail else points
    return Front.pareto([*fused, *templates])


def lone_front(chain: Chain, e: int, slopes: dict | None = None) -> Front:
    """One einsum on its own, intermediates through the backing store: the single-einsum
    uneven space of `tenet bounds --space uneven` (per-tensor placement, ranks split into
    several loops; merged with Snowcat), or its Snowcat slope when that module is absent,
    refuses the einsum, or the einsum is element-wise."""
    if chain.einsums[e].elementwise:
        return snowcat_front(chain, e, slopes=slopes)
    try:
        from tenet.bounds.uneven import search_front
    except ImportError:  # pragma: no cover - the single-einsum space is optional here
        return snowcat_front(chain, e, slopes=slopes)
    key = ("uneven", e)
    if slopes is not None and key in slopes:
        return slopes[key]
    problem, _ = merged_problem(chain, e)
    name = chain.einsums[e].name
    try:
        points = search_front(problem, "uneven").points
    except InputError:  # the single-einsum search refuses it (too many mappings)
        return snowcat_front(chain, e, slopes=slopes)
    front = Front(
        tuple(FrontPoint(p.buffer, p.accesses, f"{name}: alone, {p.mapping}") for p in points)
    )
    if slopes is not None:
        slopes[key] = front
    return front


def uneven_front(
    chain: Chain,
    segment: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> Front:
    """The uneven front of the chain: per run, the least over every way to cut it into
    segments (or the run as one segment), runs summed."""
    slopes: dict = {}
    cache: dict[tuple[int, ...], Front] = {}

    def seg_front(seg: list[int]) -> Front:
        key = tuple(seg)
        if key not in cache:
            cache[key] = segment_front(chain, seg, slopes)
        return cache[key]

    total = sum(2 ** (len(units(chain, r)) - 1) if segment else 1 for r in chain.runs)
    done = 0
    run_fronts = []
    for run in chain.runs:
        parts = units(chain, run)
        cuts = compositions(len(parts)) if segment else [[len(parts)]]
        candidates = []
        for lengths in cuts:
            segments, start = [], 0
            for length in lengths:
                segments.append([e for u in parts[start : start + length] for e in u])
                start += length
            text = " | ".join("+".join(chain.einsums[e].name for e in seg) for seg in segments)
            candidates.extend(label_segments(step_sum([seg_front(s) for s in segments]), text))
            done += 1
            if progress:
                progress(done, total)
        run_fronts.append(Front.pareto(candidates))
    return step_sum(run_fronts)


# --- a floor under every schedule of the chain -------------------------------------------


def chain_tensors(chain: Chain) -> tuple[dict[str, int], dict[str, int]]:
    """Sizes of the chain's inputs (read, never written) and final outputs (written, never
    read): every schedule moves each of their words at least once."""
    read, written, sizes = set(), set(), {}
    for entry in chain.einsums:
        for ref in entry.einsum.inputs:
            read.add(ref.tensor)
            sizes[ref.tensor] = chain.size_of(ref.indices)
        written.add(entry.output)
        sizes[entry.output] = chain.size_of(entry.tensor_ranks(entry.output))
    inputs = {t: sizes[t] for t in sizes if t in read and t not in written}
    outputs = {t: sizes[t] for t in sizes if t in written and t not in read}
    return inputs, outputs


def product_floor(macs: int, reduction: int, words: int) -> int:
    """Accesses of a product's three tensors under any schedule with `words` of buffer, when
    both inputs come from the backing store and the output may stay on chip (docs/fusion.md,
    "A floor under every schedule"): a stretch of t accesses runs at most
    F = floor(sqrt(floor((S+t)^2/4) * (2S + t + floor((S+t)^2 / (4 K^2))))) MACs, so
    Q >= t * (ceil(MACs / F) - 1); the best t of a small grid."""
    best = 0
    s = words
    t = max(1, s // 64)
    while t <= 64 * s:
        pair = (s + t) ** 2 // 4
        outputs = 2 * s + t + (s + t) ** 2 // (4 * reduction * reduction)
        per = isqrt(pair * outputs)
        if per > 0:
            best = max(best, t * (-(-macs // per) - 1))
        t *= 2
    return best


def chain_lower_bound(chain: Chain, words: int) -> int:
    """A floor on backing-store accesses of every schedule of the chain with `words` of
    buffer: the chain's inputs and final outputs once each, and, for products reading two
    chain inputs (no tensor shared between them), the larger of their own floor and
    their tensors once."""
    inputs, outputs = chain_tensors(chain)
    external = {**inputs, **outputs}
    total = sum(external.values())
    used: set[str] = set()
    for entry in chain.einsums:
        if entry.elementwise or entry.activation not in inputs or entry.weight not in inputs:
            continue
        tensors = {entry.activation, entry.weight, entry.output}
        if tensors & used:
            continue
        used |= tensors
        macs = chain.size_of(entry.ranks)
        floor = product_floor(macs, chain.size_of(entry.k), words)
        own = sum(external.get(t, 0) for t in tensors)
        total += max(floor, own) - own
    return total


def monotone_floors(chain: Chain, sizes: Iterable[int]) -> dict[int, int]:
    """The chain floor at each of `sizes` (words), as the running maximum from the largest
    size down: floor(S) = max over given S' >= S of chain_lower_bound(chain, S'). A floor that
    holds with S' words of buffer holds with S <= S' (a schedule that fits S fits S'), and
    `chain_lower_bound` alone is not monotone (its grid of stretch lengths moves with S)."""
    floors: dict[int, int] = {}
    highest = 0
    for words in sorted(set(sizes), reverse=True):
        highest = max(highest, chain_lower_bound(chain, words))
        floors[words] = highest
    return floors


# --- segments of three or more products -----------------------------------------------------
#
# Blocks run one after another inside the row loops: a product alone, or two products sharing
# the loop over their intermediate's columns. Between blocks the intermediate stays on chip as
# a whole row tile (spilling it there is never better than cutting the segment, which the
# uneven front also tries). When the innermost row loop has at least three trips, every tile
# kept across row tiles (P) is live at every step of a middle row tile, and the other tiles
# live only inside their block's row tile, so the peak is sum(P) + max over blocks of the
# block's own peak (A): exact, and separable.


def _pair_nest(spec: SegmentSpec, m0: int, e: int, k0: Any, s0: Any, n0: Any) -> list:
    """rows > S > { K loop: product e ; N loop: product e + 1 } on its own."""
    rows = row_loops(spec, m0)
    first = int(np.asarray(s0).flat[0])
    shared = Loop(
        f"{spec.names[e]}/{spec.names[e + 1]}.S",
        f"c{e + 1}",
        spec.c[e + 1] // s0,
        s0,
        spec.c[e + 1] // first == 2,
    )
    for axis, p, tile, size, dim in (
        ("K", e, k0, spec.c[e], f"c{e}"),
        ("N", e + 1, n0, spec.c[e + 2], f"c{e + 2}"),
    ):
        scalar = int(np.asarray(tile).flat[0])
        if size // scalar > 1:
            shared.body.append(
                Loop(f"{spec.names[p]}.{axis}", dim, size // tile, tile, size // scalar == 2, [p])
            )
        else:
            shared.body.append(p)
    body: list = [shared]
    for lp in reversed(rows):
        lp.body = body
        body = [lp]
    return body


def _held(spec: SegmentSpec, steps: list[Step], m0: int, e: int, side: str, rows: int) -> Tile:
    """The whole-row intermediate a block receives (side 'in', read by product e) or hands
    on (side 'out', written by product e): live from the block's start or to its end."""
    step = next(i for i, s in enumerate(steps) if s.product == e)
    if side == "in":
        words = m0 * spec.c[e] * spec.factor_a[e]
    else:
        words = m0 * spec.c[e + 1] * spec.factor_o[e]
    return Tile(f"H{side}{e}", [step], rows, rows, words, 0, "kept")


@dataclass
class _BlockChoices:
    """Every choice of one block: own peak A, words kept across row tiles P, accesses, and
    what rebuilds each choice's part of the mapping."""

    peak: np.ndarray
    kept: np.ndarray
    accesses: np.ndarray
    parts: list[Callable[[], dict]]


def _block_choices(spec: SegmentSpec, m0: int, block: tuple[int, ...]) -> _BlockChoices:
    rows = len(row_loops(spec, m0))
    E = spec.products
    e = block[0]
    last = block[-1]
    peaks, kepts, traffics, parts = [], [], [], []
    if len(block) == 1:
        sizes = (spec.c[e], spec.c[e + 1])
        combos = itertools.product(divisors(sizes[0]), divisors(sizes[1]))
        shapes = []
        for combos_ in _classes(combos, sizes).values():
            arr = np.array(combos_, dtype=np.int64)
            both = sizes[0] // combos_[0][0] > 1 and sizes[1] // combos_[0][1] > 1
            for order in ("KN", "NK") if both else ("KN",):
                nest = _lone_nest(spec, m0, e, arr[:, 0], arr[:, 1], order)
                shapes.append((arr, nest, order))
    else:
        sizes = (spec.c[e], spec.c[e + 1], spec.c[e + 2])
        combos = itertools.product(
            divisors(sizes[0]), [s for s in divisors(sizes[1]) if s < sizes[1]], divisors(sizes[2])
        )
        shapes = []
        for combos_ in _classes(combos, sizes).values():
            arr = np.array(combos_, dtype=np.int64)
            nest = _pair_nest(spec, m0, e, arr[:, 0], arr[:, 1], arr[:, 2])
            shapes.append((arr, nest, "KN"))
    for arr, nest, order in shapes:
        n = len(arr)
        steps = steps_of(nest)
        groups: list[list[_Option]] = []
        if e == 0:
            groups.append(_tensor_options(spec, steps, "A", 0, "input", rows))
        else:
            groups.append([_Option((), [_held(spec, steps, m0, e, "in", rows)])])
        groups.append(_tensor_options(spec, steps, "W", e, "input", rows))
        if len(block) == 2:
            options = [_Option((), [keep(spec, steps, e)])]
            for o in _tensor_options(spec, steps, "O", e, "output", rows):
                if not _written_in_time(steps, e, o.tiles[0]):
                    continue
                for a in _tensor_options(spec, steps, "A", e + 1, "input", rows):
                    if _written_in_time(steps, e, a.tiles[0]):
                        options.append(_Option(o.choice + a.choice, o.tiles + a.tiles))
            groups.append(options)
            groups.append(_tensor_options(spec, steps, "W", e + 1, "input", rows))
        if last == E - 1:
            groups.append(_tensor_options(spec, steps, "O", last, "output", rows))
        else:
            groups.append([_Option((), [_held(spec, steps, m0, last, "out", rows)])])
        every = probes(steps)
        cache: dict = {}

        def is_local(t: Tile) -> bool:
            return t.depth == STREAM or t.star >= rows

        local_tiles = [t for g in groups for o in g for t in o.tiles if is_local(t)]
        keep_probes = _relevant_probes(local_tiles, steps, every, cache)
        contrib = []
        for options in groups:
            per = []
            for o in options:
                local = np.zeros((len(keep_probes), n), dtype=np.int64)
                persistent = np.zeros(n, dtype=np.int64)
                traffic = np.zeros(n, dtype=np.int64)
                for t in o.tiles:
                    w = _broadcast(t.words, n)
                    traffic += _broadcast(t.traffic, n)
                    if not is_local(t):
                        persistent += w
                        continue
                    local[_live_vector(t, steps, every, cache)[keep_probes]] += w
                per.append((local, persistent, traffic))
            contrib.append(per)
        for pick in itertools.product(*(range(len(g)) for g in groups)):
            local = sum(contrib[g][i][0] for g, i in enumerate(pick))
            peaks.append(local.max(axis=0))
            kepts.append(sum(contrib[g][i][1] for g, i in enumerate(pick)))
            traffics.append(sum(contrib[g][i][2] for g, i in enumerate(pick)))
            choice = tuple(c for g, i in enumerate(pick) for c in groups[g][i].choice)

            def part(i: int, arr=arr, order=order, choice=choice) -> dict:
                tiles = [int(x) for x in arr[i]]
                out = {"placement": choice}
                if len(block) == 1:
                    out["k0"] = {e: tiles[0]}
                    out["n0"] = {e: tiles[1]}
                    out["order"] = {e: order}
                else:
                    out["k0"] = {e: tiles[0], e + 1: tiles[1]}
                    out["n0"] = {e: tiles[1], e + 1: tiles[2]}
                    out["order"] = {e: "KN", e + 1: "KN"}
                    out["shared"] = {e: True}
                    out["kept"] = {e: not any(k == f"O{e}" for k, _ in choice)}
                return out

            parts.extend((lambda i=i, part=part: part(i)) for i in range(n))
    return _BlockChoices(
        np.concatenate(peaks), np.concatenate(kepts), np.concatenate(traffics), parts
    )


def _prune_block(choices: _BlockChoices) -> _BlockChoices:
    """Drop choices another beats on own peak and accesses with the same kept words."""
    keep_idx = []
    for value in np.unique(choices.kept):
        idx = np.flatnonzero(choices.kept == value)
        keep_idx.append(idx[pareto_front(choices.peak[idx], choices.accesses[idx])])
    k = np.concatenate(keep_idx)
    return _BlockChoices(
        choices.peak[k], choices.kept[k], choices.accesses[k], [choices.parts[i] for i in k]
    )


def _structures(count: int) -> Iterator[list[tuple[int, ...]]]:
    """Every way to group products 0..count-1 into blocks of one or two neighbours."""
    if count == 0:
        yield []
        return
    for rest in _structures(count - 1):
        yield [*rest, (count - 1,)]
    if count >= 2:
        for rest in _structures(count - 2):
            yield [*rest, (count - 2, count - 1)]


def _minkowski(a: tuple[np.ndarray, np.ndarray, list], b: tuple[np.ndarray, np.ndarray, list]):
    """Ski slope of the sums of two (kept words, accesses) slopes, with their picks."""
    kept = (a[0][:, None] + b[0][None, :]).ravel()
    accesses = (a[1][:, None] + b[1][None, :]).ravel()
    keep_idx = pareto_front(kept, accesses)
    picks = [a[2][i // len(b[0])] + b[2][i % len(b[0])] for i in keep_idx.tolist()]
    return kept[keep_idx], accesses[keep_idx], picks


def long_front(spec: SegmentSpec) -> list[tuple[int, int, Mapping]]:
    """Ski slope of a segment of three or more products over the block nests above. With
    two trips in the innermost row loop (no middle row tile), only mappings that keep no
    tile across row tiles are searched: their peak is the largest block peak."""
    E = spec.products
    found_buffer, found_accesses, found = [], [], []
    for m0 in divisors(spec.m):
        rows = row_loops(spec, m0)
        if rows is None:
            continue
        two = bool(rows) and rows[-1].two  # no middle row tile: keep nothing across them
        cache: dict[tuple[int, ...], _BlockChoices] = {}
        for structure in _structures(E):
            blocks = []
            for block in structure:
                if len(block) == 2 and spec.c[block[0] + 1] == 1:
                    break
                if block not in cache:
                    choices = _prune_block(_block_choices(spec, m0, block))
                    if two:
                        idx = np.flatnonzero(choices.kept == 0)
                        choices = _BlockChoices(
                            choices.peak[idx],
                            choices.kept[idx],
                            choices.accesses[idx],
                            [choices.parts[i] for i in idx],
                        )
                    cache[block] = choices
                blocks.append(cache[block])
            else:
                levels = np.unique(np.concatenate([b.peak for b in blocks]))
                for level in levels.tolist():
                    total = (np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), [()])
                    for j, b in enumerate(blocks):
                        idx = np.flatnonzero(b.peak <= level)
                        if len(idx) == 0:
                            break
                        front = pareto_front(b.kept[idx], b.accesses[idx])
                        chosen = idx[front]
                        total = _minkowski(
                            total,
                            (b.kept[chosen], b.accesses[chosen], [((j, int(i)),) for i in chosen]),
                        )
                    else:
                        for kept, accesses, pick in zip(*total):
                            found_buffer.append(int(kept) + level)
                            found_accesses.append(int(accesses))
                            found.append((m0, structure, blocks, pick))
    if not found:
        return []
    keep_idx = pareto_front(
        np.array(found_buffer, dtype=np.int64), np.array(found_accesses, dtype=np.int64)
    )
    out = []
    for i in keep_idx.tolist():
        m0, structure, blocks, pick = found[i]
        k0, n0, order = [0] * E, [0] * E, ["KN"] * E
        shared, kept = [False] * (E - 1), [True] * (E - 1)
        placement: list[tuple[str, str]] = []
        for j, row in pick:
            part = blocks[j].parts[row]()
            for e, v in part["k0"].items():
                k0[e] = v
            for e, v in part["n0"].items():
                n0[e] = v
            for e, v in part["order"].items():
                order[e] = v
            for e, v in part.get("shared", {}).items():
                shared[e] = v
            for e, v in part.get("kept", {}).items():
                kept[e] = v
            placement.extend(part["placement"])
        mp = Mapping(
            m0, tuple(k0), tuple(n0), tuple(order), tuple(shared), tuple(kept), tuple(placement)
        )
        out.append((found_buffer[i], found_accesses[i], mp))
    return out
