"""An independent word-level trace of fused nests with per-tensor tile placement (tests only).

It executes a nest given as plain loops over real ranks, and defines every cost from the
words the steps touch, not from `tenet.bounds.fusion_uneven`:

* a tile of tensor T placed just inside loop X (or above every loop) is, in one iteration of
  X, the set of T's words touched by its product's steps inside that iteration;
* consecutive tiles with the same word set are one tile that stays on chip (no refetch);
  otherwise the old one leaves (written back if it is an output) and the new one arrives;
* a tile is live from the first step that touches it to the last one; the buffer is the peak,
  over steps, of the words of live tiles (a streamed weight: one word during its steps);
* accesses: an input tile fetches its words once; an output tile writes its words back
  once and first reads back those written before; a kept intermediate moves nothing, and
  every one of its words must be complete (all of the producer's steps touching it done)
  before the consumer first reads it, inside the same tile.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

_EINSUM = re.compile(
    r"^\s*(\w+)\s*\[([^\]]*)\]\s*\+?=\s*(\w+)\s*\[([^\]]*)\]\s*\*\s*(\w+)\s*\[([^\]]*)\]\s*$"
)


def parse(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """[(O, ranks), (A, ranks), (W, ranks)] of 'O[..] += A[..] * W[..]'."""
    match = _EINSUM.match(text)
    if not match:
        raise ValueError(text)
    g = match.groups()
    return [
        (n, tuple(i.strip() for i in r.split(",") if i.strip())) for n, r in zip(g[::2], g[1::2])
    ]


@dataclass
class TLoop:
    name: str
    rank: str  # a column rank, or "@rows" for the flattened rows
    tile: int
    trips: int
    body: list = field(default_factory=list)


@dataclass
class TraceOut:
    peak: int
    traffic: int
    per_tensor: dict[str, int]
    errors: list[str]


def trace(
    einsums: list[str],
    sizes: dict[str, int],
    rows: list[str],
    nest: list,
    placement: dict[str, str],
    kept: list[bool],
) -> TraceOut:
    """`nest`: TLoop / int (product index) nodes; `placement`: 'A0', 'W<e>', 'O<e>', 'A<e>'
    (spilled intermediates) -> loop name, 'top' or 'stream'; `kept[e]`: intermediate e
    stays on chip."""
    refs = [parse(t) for t in einsums]
    E = len(refs)
    row_sizes = [sizes[r] for r in rows]

    def unravel(flat: int) -> dict[str, int]:
        out = {}
        for r, n in zip(reversed(rows), reversed(row_sizes)):
            out[r] = flat % n
            flat //= n
        return out

    # Walk: per step, (product, ranges, iteration path of (loop name, index)).
    steps = []

    def walk(body, ranges, path):
        for node in body:
            if isinstance(node, TLoop):
                for i in range(node.trips):
                    inner = dict(ranges)
                    start = ranges[node.rank][0]  # loops over one rank nest
                    inner[node.rank] = (start + i * node.tile, start + (i + 1) * node.tile)
                    walk(node.body, inner, path + ((node.name, i),))
            else:
                steps.append((node, ranges, path))

    full = {r: (0, n) for r, n in sizes.items()}
    full["@rows"] = (0, 1)
    for n in row_sizes:
        full["@rows"] = (0, full["@rows"][1] * n)
    walk(nest, full, ())

    def words(e: int, which: int, ranges) -> set:
        name, ranks = refs[e][which]
        lo, hi = ranges["@rows"]
        row_values = [unravel(f) for f in range(lo, hi)]
        others = [r for r in ranks if r not in rows]
        out = set()
        for rv in row_values:
            spans = [range(*ranges[r]) for r in others]
            for combo in itertools.product(*spans):
                idx = dict(zip(others, combo))
                idx.update(rv)
                out.add((name, tuple(idx[r] for r in ranks)))
        return out

    # Accesses: (key, product, which ref, role) with role input / output / stream / kept.
    accesses = [("A0", 0, 1, "input")]
    for e in range(E):
        accesses.append((f"W{e}", e, 2, "stream" if placement[f"W{e}"] == "stream" else "input"))
        if e + 1 < E and kept[e]:
            accesses.append((f"H{e}", e, 0, "kept"))
            accesses.append((f"H{e}", e + 1, 1, "kept"))
        else:
            accesses.append((f"O{e}", e, 0, "output"))
            if e + 1 < E:
                accesses.append((f"A{e + 1}", e + 1, 1, "input"))

    def prefix(path, where):
        if where == "top":
            return ()
        for d, (name, _) in enumerate(path):
            if name == where:
                return path[: d + 1]
        raise ValueError(f"{where} does not enclose the step")

    def common_position(e: int) -> str:
        """Name of the innermost loop enclosing both steps of intermediate e."""
        p = next(path for prod, _, path in steps if prod == e)
        c = next(path for prod, _, path in steps if prod == e + 1)
        name = "top"
        for (a, _), (b, _) in zip(p, c):
            if a != b:
                break
            name = a
        return name

    touched = {}  # (key, instance prefix) -> {step: words}
    stream_words = []  # (step, words)
    for s, (e, ranges, path) in enumerate(steps):
        for key, prod, which, role in accesses:
            if prod != e:
                continue
            w = words(e, which, ranges)
            if role == "stream":
                stream_words.append((s, len(w)))
                continue
            where = common_position(int(key[1:])) if role == "kept" else placement[key]
            touched.setdefault((key, prefix(path, where)), {}).setdefault(s, set()).update(w)

    # Instances of one access in order; equal consecutive word sets are one tile.
    tiles = []  # (key, role, words, first step, last step)
    errors = []
    by_key: dict[str, list] = {}
    for (key, pre), per_step in touched.items():
        allw = set().union(*per_step.values())
        by_key.setdefault(key, []).append((min(per_step), max(per_step), allw, per_step))
    roles = {key: role for key, _, _, role in accesses}
    for key, instances in by_key.items():
        instances.sort(key=lambda x: x[0])
        merged = []
        for first, last, w, per_step in instances:
            if merged and merged[-1][2] == w:
                merged[-1][1] = last
                merged[-1][3].update(per_step)
            else:
                merged.append([first, last, w, dict(per_step)])
        for first, last, w, per_step in merged:
            tiles.append((key, roles[key], w, first, last, per_step))

    # Kept intermediates: complete before the consumer's first read, in the same tile.
    for key, role, w, first, last, per_step in tiles:
        if role != "kept":
            continue
        e = int(key[1:])
        for word in w:
            prod_steps = [s for s, ws in per_step.items() if steps[s][0] == e and word in ws]
            cons_steps = [s for s, ws in per_step.items() if steps[s][0] == e + 1 and word in ws]
            k_rank = [r for r in refs[e][1][1] if r not in refs[e][0][1] and r not in rows]
            covered = set()
            for s in prod_steps:
                covered |= {
                    tuple(i) for i in itertools.product(*(range(*steps[s][1][r]) for r in k_rank))
                }
            total = 1
            for r in k_rank:
                total *= sizes[r]
            if not cons_steps or not prod_steps:
                errors.append(f"{word} is not both produced and consumed in one tile")
            elif len(covered) != total or max(prod_steps) > min(cons_steps):
                errors.append(f"{word} is read before it is complete")

    # Spilled intermediates: the consumer reads a word after the producer wrote it back.
    for key, role, w, first, last, per_step in tiles:
        if role != "input" or key == "A0" or key[0] != "A":
            continue
        producer_key = f"O{int(key[1:]) - 1}"
        for word in w:
            read = min(s for s, ws in per_step.items() if word in ws)
            done = [t[4] for t in tiles if t[0] == producer_key and word in t[2]]
            if not done or max(done) >= read:
                errors.append(f"{word} is read back before it is written")

    traffic = {}
    written = set()
    for key, role, w, first, last, per_step in sorted(tiles, key=lambda t: t[3]):
        if role == "input":
            traffic[key] = traffic.get(key, 0) + len(w)
        elif role == "output":
            traffic[key] = traffic.get(key, 0) + len(w & written) + len(w)
            written |= w
    for s, n in stream_words:
        traffic["stream"] = traffic.get("stream", 0) + n

    live = [0] * len(steps)
    for key, role, w, first, last, per_step in tiles:
        for s in range(first, last + 1):
            live[s] += len(w)
    for s, _ in stream_words:
        live[s] += 1
    return TraceOut(max(live), sum(traffic.values()), traffic, errors)
