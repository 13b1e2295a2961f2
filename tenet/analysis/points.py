"""Enumerating finite isl sets and evaluating quasi-affine maps with numpy.

This is the brute-force side of the project: isl only supplies coefficients; the
points are listed and the functions evaluated here, vectorized. Objects whose local
variables isl cannot define (explicit `exists`) fall back to isl's point iterator.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sys
import threading
from fractions import Fraction
from math import lcm
from typing import Self

import islpy as isl
import numpy as np

from tenet.util.isl_util import maps_of, sets_of

#: Refuse to scan bounding boxes larger than this many points.
MAX_BOX = 50_000_000

#: Scan a bounding box in slices (along its first dimension) when it is larger than this,
#: so that the grid of one scan stays small (4M points x 8 bytes per coordinate).
SLICE_BOX = 4_000_000


class NotVectorizable(Exception):
    """The object has local variables without an explicit definition."""


def _val(v: isl.Val) -> Fraction:
    return Fraction(str(v))


def _evaluate_linear(
    obj, dim: isl.dim_type, coords: np.ndarray, divs: list[np.ndarray]
) -> tuple[np.ndarray, int]:
    """Σ c_i x_i + Σ d_k div_k + const as (integer numerator array, common denominator)."""
    n_points, n_dims = coords.shape
    coefficients = [_val(obj.get_coefficient_val(dim, i)) for i in range(n_dims)]
    div_coefficients = [
        _val(obj.get_coefficient_val(isl.dim_type.div, k)) for k in range(len(divs))
    ]
    constant = _val(obj.get_constant_val())
    denominator = lcm(*(c.denominator for c in coefficients + div_coefficients + [constant]))
    total = np.full(n_points, int(constant * denominator), dtype=np.int64)
    for i, c in enumerate(coefficients):
        if c:
            total += int(c * denominator) * coords[:, i]
    for div, c in zip(divs, div_coefficients):
        if c:
            total += int(c * denominator) * div
    return total, denominator


def _divs(owner, coords: np.ndarray) -> list[np.ndarray]:
    """Values of the local variables floor(e_k / d_k); e_k uses only earlier ones."""
    values: list[np.ndarray] = []
    for k in range(owner.dim(isl.dim_type.div)):
        try:
            definition = owner.get_div(k)
        except isl.Error:  # an existential variable without an explicit definition
            raise NotVectorizable from None
        if definition.is_nan():
            raise NotVectorizable
        numerator, denominator = _evaluate_linear(definition, isl.dim_type.in_, coords, values)
        values.append(np.floor_divide(numerator, denominator))
    return values


def evaluate_aff(aff: isl.Aff, coords: np.ndarray) -> np.ndarray:
    """Values of a quasi-affine expression at integer points (rows of `coords`)."""
    divs = _divs(aff, coords)
    numerator, denominator = _evaluate_linear(aff, isl.dim_type.in_, coords, divs)
    return numerator // denominator  # exact: the expression is integral on its domain


def contains(bset: isl.BasicSet, coords: np.ndarray) -> np.ndarray:
    """Membership of each point in a basic set (its constraints, with floor variables)."""
    divs = _divs(bset.get_local_space(), coords)
    inside = np.ones(len(coords), dtype=bool)
    for constraint in bset.get_constraints():
        value, _ = _evaluate_linear(constraint, isl.dim_type.set, coords, divs)
        inside &= (value == 0) if constraint.is_equality() else (value >= 0)
    return inside


def set_contains(s: isl.Set, coords: np.ndarray) -> np.ndarray:
    inside = np.zeros(len(coords), dtype=bool)
    for bset in s.get_basic_sets():
        inside |= contains(bset, coords)
    return inside


def unique_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lexicographically sorted distinct rows and the inverse index, like
    `np.unique(rows, axis=0, return_inverse=True)` but via mixed-radix int64 keys."""
    rows = np.asarray(rows, dtype=np.int64)
    if rows.ndim != 2 or rows.shape[1] == 0 or not len(rows):
        unique, inverse = np.unique(rows, axis=0, return_inverse=True)
        return unique, inverse.reshape(-1)
    low = rows.min(axis=0)
    span = rows.max(axis=0) - low + 1
    if float(np.prod(span.astype(float))) >= 2.0**62:
        unique, inverse = np.unique(rows, axis=0, return_inverse=True)
        return unique, inverse.reshape(-1)
    keys = np.zeros(len(rows), dtype=np.int64)
    for k in range(rows.shape[1]):
        keys = keys * span[k] + (rows[:, k] - low[k])
    _unique_keys, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return rows[first], inverse.reshape(-1)


def _box(s: isl.Set) -> list[range]:
    return [
        range(s.dim_min_val(k).to_python(), s.dim_max_val(k).to_python() + 1)
        for k in range(s.dim(isl.dim_type.set))
    ]


class _Stop(Exception):
    """Raised in isl's point callback to end the iteration after Ctrl-C."""


def _isl_points(s: isl.Set) -> np.ndarray:
    """The points of `s` from isl's point iterator (a Python call per point).

    Ctrl-C while isl iterates would raise inside the callback, where islpy prints a warning
    and the traceback and turns it into an `isl.Error`; instead the signal only sets a flag,
    the callback ends the iteration quietly, and KeyboardInterrupt is raised here."""
    rows: list[list[int]] = []
    n = s.dim(isl.dim_type.set)
    quiet = _QuietStop()

    def visit(p) -> None:
        if quiet.interrupted:
            quiet.silence()
            raise _Stop
        rows.append([p.get_coordinate_val(isl.dim_type.set, i).to_python() for i in range(n)])

    with quiet:
        try:
            s.foreach_point(visit)
        except isl.Error:
            if not quiet.interrupted:
                raise
    if quiet.interrupted:
        raise KeyboardInterrupt
    return np.array(rows, dtype=np.int64).reshape(len(rows), n)


class _QuietStop:
    """While isl calls back into Python: SIGINT sets `interrupted` instead of raising (in the
    main thread; elsewhere signals are not delivered anyway), and once the callback stops
    the iteration, what islpy prints about it (a warning on file descriptor 1, the traceback
    on sys.stderr) is discarded."""

    def __init__(self) -> None:
        self.interrupted = False
        self._saved_fd: int | None = None
        self._previous = None

    def _on_sigint(self, signum, frame) -> None:
        self.interrupted = True

    def silence(self) -> None:
        if self._saved_fd is not None:
            return
        sys.stdout.flush()
        self._saved_fd = os.dup(1)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)

    def __enter__(self) -> Self:
        self._stderr = None
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._on_sigint)
            self._stderr = contextlib.redirect_stderr(io.StringIO())
            self._stderr.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self._stderr is not None:
            self._stderr.__exit__(*exc)
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
        if self._saved_fd is not None:
            _flush_c_stdio()
            os.dup2(self._saved_fd, 1)
            os.close(self._saved_fd)
            self._saved_fd = None


def _flush_c_stdio() -> None:
    """fflush(NULL): write out what C code buffered for a file descriptor we redirect."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None).fflush(None)


def set_points(s: isl.Set) -> np.ndarray:
    """All integer points of a bounded set, lexicographically sorted, shape (n, dims)."""
    n = s.dim(isl.dim_type.set)
    if s.is_empty():
        return np.zeros((0, n), dtype=np.int64)
    if n == 0:
        return np.zeros((1, 0), dtype=np.int64)
    ranges = _box(s)
    size = 1
    for r in ranges:
        size *= len(r)
    if size > SLICE_BOX:
        sliced = _sliced_points(s, ranges, size)
        if sliced is not None:
            return sliced
    try:
        if size > MAX_BOX:
            raise NotVectorizable
        grid = np.stack(
            np.meshgrid(
                *[np.arange(r.start, r.stop, dtype=np.int64) for r in ranges], indexing="ij"
            ),
            axis=-1,
        ).reshape(-1, n)
        return grid[set_contains(s, grid)]
    except NotVectorizable:
        return _isl_points(s)


#: At most this many slices of one bounding box (more: scanned whole, or by isl).
MAX_SLICES = 100_000


def _sliced_points(s: isl.Set, ranges: list[range], size: int) -> np.ndarray | None:
    """The points of a set with a large bounding box, slab by slab along its first
    dimension that spans more than one value (the ones before it are fixed, so the slabs
    come in lexicographic order); each slab's box holds at most SLICE_BOX points or is one
    value wide. Memory: the points, plus one slab's grid. None when that takes more than
    MAX_SLICES slabs."""
    axis = next(k for k, r in enumerate(ranges) if len(r) > 1)
    along = ranges[axis]
    width = max(1, SLICE_BOX // (size // len(along)))
    if -(-len(along) // width) > MAX_SLICES:
        return None
    parts = []
    for start in range(along.start, along.stop, width):
        stop = min(start + width, along.stop)
        slab = s.lower_bound_val(isl.dim_type.set, axis, start).upper_bound_val(
            isl.dim_type.set, axis, stop - 1
        )
        parts.append(set_points(slab))
    return np.concatenate(parts)


def union_points(uset: isl.UnionSet) -> dict[str, np.ndarray]:
    """Points of each tuple of a union set: {tuple name: (n, dims) array}."""
    return {s.get_tuple_name() or "": set_points(s) for s in sets_of(uset)}


def _function_pieces(m: isl.Map) -> list[tuple[isl.Set, isl.MultiAff]]:
    pieces: list[tuple[isl.Set, isl.MultiAff]] = []
    m.as_pw_multi_aff().foreach_piece(lambda s, ma: pieces.append((s, ma)))
    return pieces


def apply_function(m: isl.Map, coords: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Images of the points under a single-valued map: (indices of points in its domain, images)."""
    n_out = m.dim(isl.dim_type.out)
    hit_index, images = [], []
    for piece_set, multi_aff in _function_pieces(m):
        mask = set_contains(piece_set, coords)
        if not mask.any():
            continue
        chosen = coords[mask]
        values = (
            np.stack([evaluate_aff(multi_aff.get_at(k), chosen) for k in range(n_out)], axis=1)
            if n_out
            else np.zeros((len(chosen), 0), dtype=np.int64)
        )
        hit_index.append(np.nonzero(mask)[0])
        images.append(values)
    if not images:
        return np.zeros(0, dtype=np.int64), np.zeros((0, n_out), dtype=np.int64)
    return np.concatenate(hit_index), np.concatenate(images)


def apply_relation(m: isl.Map, coords: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All (point index, image) pairs of a relation over the given points, duplicates removed.

    Each basic relation that is a function is evaluated in numpy; others are enumerated.
    """
    n_in, n_out = m.dim(isl.dim_type.in_), m.dim(isl.dim_type.out)
    index_parts, image_parts = [], []
    for bmap in m.get_basic_maps():
        piece = isl.Map.from_basic_map(bmap)
        try:
            if not piece.is_single_valued():
                raise NotVectorizable
            idx, img = apply_function(piece, coords)
        except NotVectorizable:
            idx, img = _enumerate_relation(piece, coords, n_in, n_out)
        index_parts.append(idx)
        image_parts.append(img)
    if not index_parts:
        return np.zeros(0, dtype=np.int64), np.zeros((0, n_out), dtype=np.int64)
    rows = np.concatenate(
        [np.concatenate(index_parts)[:, None], np.concatenate(image_parts)], axis=1
    )
    rows, _ = unique_rows(rows)
    return rows[:, 0], rows[:, 1:]


def _enumerate_relation(
    m: isl.Map, coords: np.ndarray, n_in: int, n_out: int
) -> tuple[np.ndarray, np.ndarray]:
    pairs = _isl_points(m.wrap())
    if not len(pairs):
        return np.zeros(0, dtype=np.int64), np.zeros((0, n_out), dtype=np.int64)
    where = {tuple(row): k for k, row in enumerate(coords.tolist())}
    keep = [(where[tuple(p[:n_in])], p[n_in:]) for p in pairs.tolist() if tuple(p[:n_in]) in where]
    if not keep:
        return np.zeros(0, dtype=np.int64), np.zeros((0, n_out), dtype=np.int64)
    return np.array([k for k, _ in keep], dtype=np.int64), np.array(
        [v for _, v in keep], dtype=np.int64
    )


def relation_pairs(
    umap: isl.UnionMap, points: dict[str, np.ndarray]
) -> list[tuple[str, np.ndarray, str, np.ndarray]]:
    """For each relation of a union: (domain tuple, domain point indices, range tuple, images)."""
    out = []
    for m in maps_of(umap):
        src = m.get_tuple_name(isl.dim_type.in_) or ""
        dst = m.get_tuple_name(isl.dim_type.out) or ""
        if src not in points:
            continue
        idx, img = apply_relation(m, points[src])
        out.append((src, idx, dst, img))
    return out
