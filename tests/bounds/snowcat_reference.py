"""The Snowcat searches as they were before the fast paths, kept as references for
tests/bounds/test_snowcat_fast.py: today's Snowcat candidates from `evaluate` (every tiling
times every order, materialized), and imperfect Snowcat over the whole grid of imperfect
tiles, every order and keep choice, with no pruning. Both hand `search_front` the same
candidate lists as the fast paths (monkeypatched in), so whole fronts, mappings and ties
can be compared."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from tenet.bounds import uneven_imperfect, uneven_mapping, uneven_tools
from tenet.bounds.snowcat import Problem, mapping_front, mapping_text, pareto_front


def reference_snowcat_candidates(problem: Problem, bypass: bool, progress: Any):
    """The points of `front_of(mapping_front(...))` as `search_front` candidates."""
    result = mapping_front(problem, bypass, progress)
    candidates = []
    for index in result.front.tolist():

        def build(i: int = index):
            info = mapping_text(result, i)
            order = info["order"]
            bypassed = tuple(t.name for t in problem.tensors if t.name not in info["kept"])
            nest = [(r, info["tiles"][r]) for r in order]
            nest += [(r, 1) for r in problem.ranks if info["tiles"][r] > 1]
            mapping = uneven_mapping.UnevenMapping(
                tuple(nest), {name: len(order) for name in info["kept"]}, bypassed
            )
            return info["mapping"], mapping

        candidates.append((int(result.buffer[index]), int(result.accesses[index]), build))
    return candidates, result.mappings


def reference_imperfect_candidates(problem: Problem, bypass: bool, sizes: dict, known: Any):
    """Imperfect Snowcat over every tiling of the imperfect tiles, every order of its outer
    loops and every keep choice (the unpruned search)."""
    n = len(problem.ranks)
    dtype = uneven_tools.count_type(problem)
    grids = np.meshgrid(
        *[np.array(uneven_imperfect.imperfect_tiles(s), dtype=np.int64) for s in problem.sizes],
        indexing="ij",
    )
    all_tiles = np.stack([g.reshape(-1) for g in grids], axis=1).reshape(-1, n)
    all_counts = -(-np.array(problem.sizes, dtype=np.int64)[None, :] // all_tiles)
    codes = ((all_counts > 1) * (1 << np.arange(n))).sum(axis=1)
    keeps = [
        tuple(t for t in range(len(problem.tensors)) if not bypass or keep >> t & 1)
        for keep in (range(1 << len(problem.tensors)) if bypass else [0])
    ]
    candidates = []
    evaluated = 0
    for code in range(1 << n):
        picked = np.nonzero(codes == code)[0]
        if not len(picked):
            continue
        tiles = all_tiles[picked].astype(dtype)
        counts = all_counts[picked].astype(dtype)
        tile_words, words = [], []
        for tensor in problem.tensors:
            tile: Any = 1
            summed: Any = 1
            for dim in tensor.dims:
                tile = tile * (1 + sum(abs(a) * (tiles[:, r] - 1) for r, a in enumerate(dim) if a))
                summed = summed * uneven_imperfect.dim_words(dim, problem.sizes, counts.T)
            tile_words.append(np.broadcast_to(np.asarray(tile, dtype=dtype), (len(picked),)))
            words.append(np.broadcast_to(np.asarray(summed, dtype=dtype), (len(picked),)))
        members = [r for r in range(n) if code >> r & 1]
        for order in itertools.permutations(members):
            fetched = []
            for tensor, summed in zip(problem.tensors, words):
                uses = [any(dim[r] for dim in tensor.dims) for r in range(n)]
                mine = [j for j, r in enumerate(order) if uses[r]]
                before = order[: mine[-1] + 1] if mine else ()
                moved = summed
                for r in before:
                    if not uses[r]:
                        moved = moved * counts[:, r]
                if tensor.output:
                    moved = 2 * moved - sizes[tensor.name]
                fetched.append(moved)
            for kept in keeps:
                buffer = sum((tile_words[i] for i in kept), start=np.zeros(len(picked), dtype))
                extra = sum(
                    2 * problem.macs - sizes[t.name] if t.output else problem.macs
                    for i, t in enumerate(problem.tensors)
                    if i not in kept
                )
                accesses = sum((fetched[i] for i in kept), start=np.zeros(len(picked), dtype))
                accesses = accesses + extra
                evaluated += len(picked)
                rows = known.survivors(buffer, accesses)
                bypassed = tuple(t.name for i, t in enumerate(problem.tensors) if i not in kept)
                found = []
                for row in rows[pareto_front(buffer[rows], accesses[rows])].tolist():
                    found.append((int(buffer[row]), int(accesses[row])))
                    position = [order.index(r) if r in order else n for r in range(n)]
                    chosen = all_tiles[picked[row]].tolist()
                    candidates.append(
                        (
                            *found[-1],
                            lambda t=chosen, p=position, b=bypassed: uneven_imperfect.snowcat_point(
                                problem, t, p, b
                            ),
                        )
                    )
                known.add(found)
    return candidates, evaluated
