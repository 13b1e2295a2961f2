"""A word-level run of one uneven mapping, independent of tenet.bounds.uneven's formulas.

The loop nest runs every MAC in order. A loop of rank r with tile t walks the current chunk
of r in pieces of t (the last one shorter); tile-1 loops are appended so the nest reaches
single points. When the walk passes a kept tensor's position it notes the tile that tensor
must hold there: its box of words (per dimension, the interval from the smallest to the
largest index the current chunks reach), named by the iteration of every loop above the
position except the innermost run of loops that do not index the tensor (the tile stays
put across those). At every MAC each kept tensor whose held tile is not the noted one is
swapped: an output's held words are written back (one access each), and the new box is
read, all of it for an input, and for an output only the words written back before (a
partial sum never written needs no read). The MAC's word must lie in the held box.
Bypassed inputs are read once per MAC; a bypassed output is read (unless it is the word's
first MAC) and written per MAC. The buffer is the largest sum of held box words.
"""

from __future__ import annotations

from math import prod

from tenet.bounds.snowcat import Problem
from tenet.bounds.uneven import UnevenMapping


def _box(tensor, chunks):
    """Per dimension (lowest, highest) index over the chunks (start, size) of every rank."""
    box = []
    for dim in tensor.dims:
        low = high = 0
        for a, (start, size) in zip(dim, chunks):
            ends = (a * start, a * (start + size - 1))
            low += min(ends)
            high += max(ends)
        box.append((low, high))
    return tuple(box)


def _words(box):
    return prod(high - low + 1 for low, high in box)


def _cells(box):
    cells = [()]
    for low, high in box:
        cells = [c + (v,) for c in cells for v in range(low, high + 1)]
    return cells


def run(problem: Problem, mapping: UnevenMapping) -> tuple[int, int]:
    """(peak buffer words, backing-store words) of the mapping, MAC by MAC."""
    ranks = problem.ranks
    loops = [(ranks.index(r), t) for r, t in mapping.loops]
    loops += [(r, 1) for r in range(len(ranks))]
    kept = [t for t in problem.tensors if t.name not in mapping.bypassed]
    bypassed = [t for t in problem.tensors if t.name in mapping.bypassed]
    wanted: dict[str, tuple] = {}
    held: dict[str, tuple | None] = {t.name: None for t in kept}
    written: set[tuple] = set()  # output words whose partial sum is in the backing store
    touched: set[tuple] = set()  # output words a bypassed output has updated
    state = {"accesses": 0, "peak": 0}

    def index(tensor, point):
        return tuple(sum(a * i for a, i in zip(dim, point)) for dim in tensor.dims)

    def mac(point):
        for tensor in kept:
            tile = wanted[tensor.name]
            box = tile[1]
            if held[tensor.name] != tile:
                old = held[tensor.name]
                if tensor.output and old is not None:
                    cells = _cells(old[1])
                    state["accesses"] += len(cells)
                    written.update(cells)
                if tensor.output:
                    state["accesses"] += sum(1 for c in _cells(box) if c in written)
                else:
                    state["accesses"] += _words(box)
                held[tensor.name] = tile
            word = index(tensor, point)
            assert all(low <= v <= high for v, (low, high) in zip(word, box))
        state["peak"] = max(state["peak"], sum(_words(held[t.name][1]) for t in kept))
        for tensor in bypassed:
            if tensor.output:
                word = index(tensor, point)
                state["accesses"] += 2 if word in touched else 1
                touched.add(word)
            else:
                state["accesses"] += 1

    def walk(depth, chunks, iteration):
        for tensor in kept:
            position = mapping.positions[tensor.name]
            if position == depth:
                indexing = [j for j in range(position) if any(d[loops[j][0]] for d in tensor.dims)]
                last = indexing[-1] + 1 if indexing else 0
                wanted[tensor.name] = (iteration[:last], _box(tensor, chunks))
        if depth == len(loops):
            mac([start for start, _ in chunks])
            return
        rank, tile = loops[depth]
        start, size = chunks[rank]
        for offset in range(0, size, tile):
            inner = list(chunks)
            inner[rank] = (start + offset, min(tile, size - offset))
            walk(depth + 1, inner, (*iteration, offset))

    walk(0, [(0, s) for s in problem.sizes], ())
    for tensor in kept:
        if tensor.output and held[tensor.name] is not None:
            state["accesses"] += _words(held[tensor.name][1])
    return state["peak"], state["accesses"]
