"""The loop-nest cost model of the uneven fused space: a segment's sizes, its loop nest at
the backing store, where each tile sits, and what a mapping costs.

A tile at position p (below the first p loops enclosing its product's step) has, in each
rank, the extent of the innermost loop above p over that rank; an instance lives in one
iteration of L*, the innermost loop above p indexing the tensor. Traffic: inputs fetched
once per instance, outputs 2W - |O|, kept intermediates none, a streamed weight every word
each step. Buffer: the peak over the nest's steps of the words of every live instance,
probed at every first/middle/last pattern of the enclosing loops (`probes`, `live`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tenet.bounds.chain import Chain
from tenet.bounds.fusion import ProductShape, product_shape

FIRST, MIDDLE, LAST = 0, 1, 2
TOP = 0  # a tile above every loop of the segment
STREAM = -1  # a weight streamed through one word


# --- the loop nest ---------------------------------------------------------------------


@dataclass(eq=False)
class NestLoop:
    """A backing-store loop: `dim` is 'M' (rows) or 'c<j>' (columns j); `trips` and `tile`
    (extent of `dim` per iteration) are ints or arrays over a batch of tile sizes."""

    name: str
    dim: str
    trips: Any
    tile: Any
    two: bool = False  # exactly two trips (no middle iteration)
    body: list = field(default_factory=list)


#: The old name of NestLoop (tenet.explore.space.Loop is the search's loop).
Loop = NestLoop


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


def row_loops(spec: SegmentSpec, m0: int) -> list[NestLoop] | None:
    levels = row_levels(spec, m0)
    if levels is None:
        return None
    loops, outer = [], spec.m
    for i, size in enumerate(levels):
        trips = outer // size
        if trips > 1:
            loops.append(NestLoop(f"rows{i}", "M", trips, size, trips == 2))
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


def indexes(spec: SegmentSpec, loop: NestLoop, dims: tuple[str, ...]) -> bool:
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


def extent(spec: SegmentSpec, dims: tuple[str, ...], above: list[NestLoop]) -> Any:
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


def _trips(loops: list[NestLoop]) -> Any:
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
    path: list[NestLoop] = field(default_factory=list)


def steps_of(nest: list) -> list[Step]:
    """Steps in execution order with their address (body index per depth) and loops."""
    out: list[Step] = []

    def walk(body: list, address: tuple[int, ...], path: list[NestLoop]) -> None:
        for i, node in enumerate(body):
            if isinstance(node, NestLoop):
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
    common = common_depth(a, b)
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


def common_depth(a: Step, b: Step) -> int:
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
    q_first, q_last = common_depth(here, first), common_depth(here, last)
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

    def own(axis: str, e: int) -> NestLoop | None:
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
        return NestLoop(name, dim, size // t if batch is not None else trips, t, trips == 2)

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


def written_in_time(steps: list[Step], e: int, tile: Tile) -> bool:
    """A spilled intermediate is written back before it is read back: its producer's tile
    and its consumer's tile both sit inside every loop the two products share."""
    producer = next(s for s in steps if s.product == e)
    consumer = next(s for s in steps if s.product == e + 1)
    return tile.depth >= common_depth(producer, consumer)


def loop_depth(path: list[NestLoop], name: str) -> int | None:
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
        depth = loop_depth(path, where)
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
        if e + 1 < E and not written_in_time(steps, e, out[-1]):
            return None
        if e + 1 < E and not put("A", e + 1, "input"):
            return None
        if e + 1 < E and not written_in_time(steps, e, out[-1]):
            return None
    return out


def mapping_cost(spec: SegmentSpec, mp: Mapping) -> tuple[int, int] | None:
    """(buffer, accesses) of one mapping: the peak of live words over the nest's steps and
    the sum of every tile's traffic; None if it is not a mapping of the space."""
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
            if isinstance(node, NestLoop):
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


# --- nests of one block, used by the searches ------------------------------------------


def lone_nest(spec: SegmentSpec, m0: int, e: int, k0: Any, n0: Any, order: str) -> list:
    """rows > K > N (or N > K) of product e on its own; loops of one trip left out."""
    rows = row_loops(spec, m0)
    loops = []
    for axis, tile, size in (("K", k0, spec.c[e]), ("N", n0, spec.c[e + 1])):
        scalar = int(np.asarray(tile).flat[0])
        if size // scalar > 1:
            dim = f"c{e}" if axis == "K" else f"c{e + 1}"
            loops.append(
                NestLoop(f"{spec.names[e]}.{axis}", dim, size // tile, tile, size // scalar == 2)
            )
    if order == "NK":
        loops.reverse()
    body: list = [e]
    for lp in reversed(rows + loops):
        lp.body = body
        body = [lp]
    return body


def pair_nest(spec: SegmentSpec, m0: int, e: int, k0: Any, s0: Any, n0: Any) -> list:
    """rows > S > { K loop: product e ; N loop: product e + 1 } on its own."""
    rows = row_loops(spec, m0)
    first = int(np.asarray(s0).flat[0])
    shared = NestLoop(
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
                NestLoop(
                    f"{spec.names[p]}.{axis}", dim, size // tile, tile, size // scalar == 2, [p]
                )
            )
        else:
            shared.body.append(p)
    body: list = [shared]
    for lp in reversed(rows):
        lp.body = body
        body = [lp]
    return body
