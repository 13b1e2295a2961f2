"""One einsum as the bounds see it: its ranks, their sizes, and each tensor's index as
coefficients of the ranks (`Problem`), read from an einsum's text or a single-statement
workload; and the ski-slope helpers every bounds module shares (`divisors`, `pareto_front`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import prod

import islpy as isl
import numpy as np

from tenet.errors import InputError, option_ref
from tenet.model.einsum import parse_einsum
from tenet.model.workload import Workload
from tenet.util.isl_util import count, maps_of, sets_of


@dataclass(frozen=True)
class BoundTensor:
    """A tensor and, per dimension, the coefficients of its index in the ranks."""

    name: str
    dims: tuple[tuple[int, ...], ...]  # dims[d][r] = coefficient of rank r in index d
    output: bool = False


@lru_cache(maxsize=1024)
def _touched(
    ranks: tuple[str, ...], sizes: tuple[int, ...], name: str, dims: tuple[tuple[int, ...], ...]
) -> int:
    """`Problem.size`: the range of the access relation over the box of rank sizes, counted
    by barvinok."""
    index = ", ".join(
        " + ".join(f"{a}*{r}" for a, r in zip(dim, ranks) if a).replace("+ -", "- ") or "0"
        for dim in dims
    )
    box = " and ".join(f"0 <= {r} < {n}" for r, n in zip(ranks, sizes))
    return count(isl.UnionMap(f"{{ S[{', '.join(ranks)}] -> {name}[{index}] : {box} }}").range())


@dataclass
class Problem:
    """One einsum: rank names and sizes, input tensors and one output."""

    name: str
    ranks: list[str]
    sizes: list[int]
    tensors: list[BoundTensor]

    @property
    def macs(self) -> int:
        return prod(self.sizes)

    def extent(self, tensor: BoundTensor, factors: list[int]) -> int:
        """Words of a box tile whose ranks span `factors` (exact Python ints)."""
        return prod(sum(abs(a) * (f - 1) for a, f in zip(dim, factors)) + 1 for dim in tensor.dims)

    def size(self, tensor: BoundTensor) -> int:
        """Distinct elements the einsum touches (exact, isl/barvinok: holes left by a
        stride larger than the filter are not counted; counted once per shape and tensor)."""
        return _touched(tuple(self.ranks), tuple(self.sizes), tensor.name, tensor.dims)

    @property
    def output(self) -> BoundTensor:
        return next(t for t in self.tensors if t.output)

    @property
    def algorithmic_minimum(self) -> int:
        """Every tensor moved exactly once: Σ sizes."""
        return sum(self.size(t) for t in self.tensors)

    def ops(self) -> int:
        """2·MACs - |O| (the first addition into each output is not needed)."""
        return 2 * self.macs - self.size(self.output)

    def is_matrix_product(self) -> bool:
        """Three 2-D tensors over three ranks, each rank in exactly two tensors (M, N, K)."""
        if len(self.ranks) != 3 or len(self.tensors) != 3:
            return False
        uses = [sum(1 for t in self.tensors for dim in t.dims if dim[r]) for r in range(3)]
        return all(len(t.dims) == 2 for t in self.tensors) and uses == [2, 2, 2]


def _coefficients(
    index: str, ranks: list[str], source: str | None, key: str, option: str | None = None
) -> tuple[int, ...]:
    """Coefficients of an affine index expression in the ranks (isl parses it)."""
    try:
        aff = isl.PwAff(f"{{ [{', '.join(ranks)}] -> [({index})] }}")
    except isl.Error:
        raise InputError(
            f"index {index!r} is not affine in the ranks {', '.join(ranks)}",
            source,
            key,
            option=option,
        ) from None
    pieces = []
    aff.foreach_piece(lambda _set, piece: pieces.append(piece))
    if len(pieces) != 1 or pieces[0].dim(isl.dim_type.div):
        raise InputError(
            f"index {index!r} is not affine (no floor or mod)", source, key, option=option
        )
    out = []
    for r in range(len(ranks)):
        value = pieces[0].get_coefficient_val(isl.dim_type.in_, r)
        if not value.is_int():
            raise InputError(
                f"index {index!r} has a fractional coefficient", source, key, option=option
            )
        out.append(value.to_python())
    return tuple(out)


def problem_from_einsum(
    text: str, shape: dict[str, int], name: str | None = None, source: str | None = None
) -> Problem:
    """The problem of an einsum's text ("O[m,n] += A[m,k] * W[k,n]") at the rank sizes of
    `shape`; errors name `source` (else the option `einsum`) and the option `shape`."""
    try:
        einsum = parse_einsum(text, source)
    except InputError as exc:
        if source is not None:
            raise
        raise InputError(exc.message, key=exc.key, option="einsum") from None
    option = None if source is not None else "einsum"
    ranks: list[str] = []
    for ref in (einsum.output, *einsum.inputs):
        for var in sorted(ref.variables(), key=lambda v: text.index(v)):
            if var not in ranks:
                ranks.append(var)
    missing = [r for r in ranks if r not in shape]
    if missing:
        raise InputError(
            f"rank {missing[0]!r} has no size (give {option_ref('shape')} {missing[0]}=N)",
            option="shape",
        )
    unknown = [r for r in shape if r not in ranks]
    if unknown:
        raise InputError(f"rank {unknown[0]!r} does not appear in the einsum", option="shape")
    for r in ranks:
        if shape[r] < 1:
            raise InputError(f"size of {r} must be positive, got {shape[r]}", option="shape")
    ranks = list(shape)  # the user's order
    tensors = [
        BoundTensor(
            ref.tensor,
            tuple(_coefficients(i, ranks, source, "einsum", option) for i in ref.indices),
        )
        for ref in einsum.inputs
    ]
    tensors.append(
        BoundTensor(
            einsum.output.tensor,
            tuple(_coefficients(i, ranks, source, "einsum", option) for i in einsum.output.indices),
            output=True,
        )
    )
    return Problem(name or " ".join(text.split()), ranks, [shape[r] for r in ranks], tensors)


def problem_from_workload(workload: Workload) -> Problem:
    """Ranks and projections derived from a single-statement workload's access relations."""
    source = workload.source
    if len(workload.statements) != 1:
        raise InputError(
            "bounds need a single statement (a chain of einsums is 'tenet fuse')", source
        )
    stmt_set = sets_of(workload.domain)[0]
    n = stmt_set.dim(isl.dim_type.set)
    ranks = [stmt_set.get_dim_name(isl.dim_type.set, k) or f"r{k}" for k in range(n)]
    sizes = []
    for k in range(n):
        low, high = stmt_set.dim_min_val(k).to_python(), stmt_set.dim_max_val(k).to_python()
        if low != 0:
            raise InputError(f"loop {ranks[k]} must start at 0 for bounds", source)
        sizes.append(high + 1)
    box = isl.Set(
        f"{{ {stmt_set.get_tuple_name()}[{', '.join(ranks)}] : "
        + " and ".join(f"0 <= {r} < {s}" for r, s in zip(ranks, sizes))
        + " }"
    )
    if not isl.UnionSet.from_set(box).is_equal(workload.domain):
        raise InputError("bounds need a rectangular iteration domain (a box)", source)
    writes = workload.accesses["write"]
    if len(writes) != 1:
        raise InputError("bounds need exactly one written tensor", source)
    tensors = []
    for side in ("read", "write"):
        for name, rel in workload.accesses[side].items():
            if side == "read" and name in writes:
                continue  # a read of the output is its read-modify-write, counted with it
            maps = maps_of(rel)
            if len(maps) != 1 or len(maps[0].get_basic_maps()) != 1:
                raise InputError(f"bounds need one access per tensor; {name} has several", source)
            tensors.append(
                BoundTensor(name, _projection(maps[0], name, source), output=side == "write")
            )
    return Problem(workload.name, ranks, sizes, tensors)


def _projection(access: isl.Map, name: str, source: str | None) -> tuple[tuple[int, ...], ...]:
    pieces = []
    access.as_pw_multi_aff().foreach_piece(lambda _s, ma: pieces.append(ma))
    dims = []
    for d in range(pieces[0].dim(isl.dim_type.out)):
        aff = pieces[0].get_at(d)
        if aff.dim(isl.dim_type.div):
            raise InputError(f"access to {name} is not affine (floor or mod)", source)
        dims.append(
            tuple(
                aff.get_coefficient_val(isl.dim_type.in_, r).to_python()
                for r in range(aff.dim(isl.dim_type.in_))
            )
        )
    return tuple(dims)


def divisors(n: int) -> list[int]:
    """Every divisor of n, ascending (pairs d, n // d with d <= sqrt(n))."""
    small = [d for d in range(1, int(n**0.5) + 1) if n % d == 0]
    return sorted(set(small + [n // d for d in small]))


def pareto_front(buffer: np.ndarray, accesses: np.ndarray) -> np.ndarray:
    """Indices of the ski slope: least accesses per buffer size, strictly falling."""
    order = np.lexsort((accesses, buffer))
    best = np.minimum.accumulate(accesses[order])
    falls = np.ones(len(order), dtype=bool)
    falls[1:] = best[1:] < best[:-1]
    keep = order[falls & (accesses[order] == best)]
    return keep
