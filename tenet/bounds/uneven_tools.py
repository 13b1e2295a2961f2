"""What the uneven and imperfect searches share: keep choices, bypass costs, the integer
type of the costs, and the running front that drops rows a known point already beats."""

from __future__ import annotations

from typing import Any

import numpy as np

from tenet.bounds.problem import BoundTensor, Problem
from tenet.bounds.snowcat_fast import count_dtype


def unit_coefficients(problem: Problem) -> bool:
    """Every index coefficient is 0 or +-1 (so chains may be pruned by dominance)."""
    return all(abs(a) <= 1 for t in problem.tensors for dim in t.dims for a in dim)


def disjoint_dims(tensor: BoundTensor) -> bool:
    """Each rank appears in at most one dimension of the tensor."""
    seen: set[int] = set()
    for dim in tensor.dims:
        ranks = {r for r, a in enumerate(dim) if a}
        if ranks & seen:
            return False
        seen |= ranks
    return True


def bypass_cost(problem: Problem, tensor: BoundTensor, sizes: dict[str, int]) -> int:
    """A bypassed tensor's accesses: MACs for an input, 2 MACs - |O| for the output."""
    return 2 * problem.macs - sizes[tensor.name] if tensor.output else problem.macs


def count_type(problem: Problem) -> Any:
    """int64 when no cost or partial product can reach 2^62, else exact Python objects
    (snowcat.count_dtype states the bound)."""
    return count_dtype(problem)


class RunningFront:
    """The best accesses found so far at each buffer size (a step function), to drop rows
    that a known point already beats before the exact Pareto sort."""

    def __init__(self) -> None:
        self.buffer = np.zeros(0, dtype=np.int64)
        self.accesses = np.zeros(0, dtype=object)

    def add(self, points: list[tuple[int, int]]) -> None:
        merged = sorted([*zip(self.buffer.tolist(), self.accesses.tolist()), *points])
        keep, best = [], None
        for b, a in merged:
            if best is None or a < best:
                keep.append((b, a))
                best = a
        self.buffer = np.array([b for b, _ in keep], dtype=np.int64)
        self.accesses = np.array([a for _, a in keep], dtype=object)

    def survivors(self, buffer: np.ndarray, accesses: np.ndarray) -> np.ndarray:
        """Rows not strictly beaten: accesses <= the front's value at their buffer size."""
        if not len(self.buffer):
            return np.arange(len(buffer))
        at = np.searchsorted(self.buffer, buffer.astype(np.int64), side="right") - 1
        if accesses.dtype == object:
            limit = np.where(at >= 0, self.accesses[np.maximum(at, 0)], None)
            keep = [i for i, (a, c) in enumerate(zip(accesses, limit)) if c is None or a <= c]
            return np.array(keep, dtype=np.int64)
        ceiling = np.array([min(a, 2**62) for a in self.accesses.tolist()], dtype=np.int64)
        limit = np.where(at >= 0, ceiling[np.maximum(at, 0)], np.iinfo(np.int64).max)
        return np.nonzero(accesses <= limit)[0]


def keep_choices(problem: Problem, bypass: bool) -> list[tuple[int, ...]]:
    """The kept tensors of each keep choice (every subset with bypass, else all)."""
    everything = tuple(range(len(problem.tensors)))
    if not bypass:
        return [everything]
    return [tuple(t for t in everything if keep >> t & 1) for keep in range(1 << len(everything))]
