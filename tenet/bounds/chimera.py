"""Chimera's analytical model of fused chains of einsums (Zheng et al., HPCA 2023), and two
variants of it.

A chain is split into blocks by tiling every loop r of size S_r with a tile t_r (trip count
n_r = ceil(S_r / t_r)); a block execution order is a permutation of all the chain's loops,
outermost first. For one order and one tiling, each model gives DV, the words moved between
the backing store and the on-chip memory (only the chain's inputs and its final output move;
intermediates stay on chip), and MU, the on-chip words. The operators are visited in chain
order; after operator i is visited, its private loops (those of no later operator) leave the
order. MU is the largest, over the operators, of the sum of the tiles of the operator's
tensors (inputs, output, intermediates), a tile being prod(t_r) over its ranks; the strict
model adds to it (below).

* "paper" (the default): Algorithm 1 exactly as printed. A moved tensor T of operator i
  starts at DM = its tile (the tile as given, so an edge tile counts as a whole one). Walking
  the order from the innermost loop outwards, from the innermost loop indexing T on, every
  loop of operator i multiplies DM by its trip count; loops of other operators are skipped.
  DV is the sum of the DMs. No order is rejected: an order whose producer would hand over
  incomplete tiles (below) gets a warning.
* "producer-rerun": T moves |T| * prod(n_r) over the loops r still in the order that lie
  outside the innermost loop indexing T and do not index T, whichever operator they belong
  to (a later operator's loop outside operator i's loops re-runs operator i for each of its
  trips). Edge tiles count at their actual size. An order is rejected when a reduction loop
  of a producer (a loop not indexing its output) with more than one trip lies outside a loop
  with more than one trip that indexes that output: the producer would hand over incomplete
  tiles.
* "strict": producer-rerun's orders and reloads, with the final output charged 2W - |O|
  (`dv_rmw`: each reload of a partial sum is a read and a write, as Orojenesis counts it)
  and the tiles of other operators that stay on chip while an operator runs added to MU
  (`mu_live`).

`evaluate_order` gives one model's DV and MU and the strict numbers beside them. `search`
finds the least DV within a capacity over every order the model accepts and every integer
tiling, exhaustively (`docs/chimera.md` explains why its reductions lose nothing).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from math import factorial, isqrt, prod
from typing import Any

from tenet.errors import InputError
from tenet.model.einsum import parse_einsum

_PLAIN_RANK = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class ChimeraTensor:
    """A tensor as one operator sees it; `moved` for the chain's inputs and final output."""

    name: str
    ranks: tuple[str, ...]
    moved: bool


@dataclass(frozen=True)
class ChimeraOp:
    """One operator of the chain: its loops (in order of first appearance) and tensors."""

    name: str
    text: str
    loops: tuple[str, ...]
    inputs: tuple[ChimeraTensor, ...]
    output: ChimeraTensor
    sizes: Mapping[str, int]
    source: str | None = None

    @property
    def tensors(self) -> tuple[ChimeraTensor, ...]:
        return (*self.inputs, self.output)


# --------------------------------------------------------------------------- building a chain


def _check_entry(entry: object, i: int, source: str | None) -> tuple[str, str]:
    key = f"einsums[{i}]"
    if not isinstance(entry, (tuple, list)) or len(entry) != 2:
        raise InputError("expected a (name, einsum text) pair", source, key)
    name, text = entry
    if not isinstance(name, str) or not name:
        raise InputError("the einsum name must be a non-empty string", source, key)
    return name, text


def _plain_ranks(indices: tuple[str, ...], tensor: str, source: str | None, key: str) -> None:
    for index in indices:
        if not _PLAIN_RANK.fullmatch(index):
            raise InputError(
                f"index {index!r} of {tensor}: the Chimera model takes plain rank names",
                source,
                key,
            )
    if len(set(indices)) != len(indices):
        raise InputError(f"tensor {tensor} repeats a rank", source, key)


def _check_sizes(sizes: object, loops: list[str], source: str | None) -> dict[str, int]:
    if not isinstance(sizes, Mapping):
        raise InputError("expected a mapping of rank sizes", source, "bounds")
    for rank in loops:
        if rank not in sizes:
            raise InputError(f"rank {rank!r} has no size", source, f"bounds.{rank}")
    for rank, value in sizes.items():
        key = f"bounds.{rank}"
        if rank not in loops:
            raise InputError(f"rank {rank!r} appears in no einsum", source, key)
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"expected an integer size, got {value!r}", source, key)
        if value < 1:
            raise InputError(f"size must be positive, got {value}", source, key)
    return {rank: int(sizes[rank]) for rank in loops}


def chimera_ops(
    einsums: list[tuple[str, str]], sizes: dict[str, int], source: str | None = None
) -> list[ChimeraOp]:
    """Parse a chain: each einsum reads the tensor the one before it writes, and nothing else
    reads it; the chain's inputs are read once."""
    if not isinstance(einsums, (list, tuple)) or not einsums:
        raise InputError("expected a non-empty list of einsums", source, "einsums")
    parsed = []
    for i, entry in enumerate(einsums):
        name, text = _check_entry(entry, i, source)
        key = f"einsums[{i}]"
        einsum = parse_einsum(text, source, key)
        for ref in (*einsum.inputs, einsum.output):
            _plain_ranks(ref.indices, ref.tensor, source, key)
        names = [ref.tensor for ref in einsum.inputs]
        if len(set(names)) != len(names):
            raise InputError("an einsum of a Chimera chain reads each tensor once", source, key)
        parsed.append((name, text, einsum))
    seen: dict[str, int] = {}  # tensor -> index of the einsum that first reads or writes it
    for i, (name, _, einsum) in enumerate(parsed):
        key = f"einsums[{i}]"
        if name in [p[0] for p in parsed[:i]]:
            raise InputError(f"einsum name {name!r} is used twice", source, key)
        previous = parsed[i - 1][2].output if i else None
        for ref in einsum.inputs:
            if previous is not None and ref.tensor == previous.tensor:
                if ref.indices != previous.indices:
                    raise InputError(
                        f"reads {ref.isl_tuple()} but einsums[{i - 1}] writes "
                        f"{previous.isl_tuple()}: the ranks must match",
                        source,
                        key,
                    )
            elif ref.tensor in seen:
                raise InputError(
                    f"{ref.tensor} is also used by einsums[{seen[ref.tensor]}]: in a Chimera "
                    "chain an input is read once and an intermediate only by the next einsum",
                    source,
                    key,
                )
            seen.setdefault(ref.tensor, i)
        if previous is not None and previous.tensor not in [r.tensor for r in einsum.inputs]:
            raise InputError(
                f"does not read {previous.tensor}, which einsums[{i - 1}] writes: each einsum of "
                "a Chimera chain must read the tensor the one before it writes",
                source,
                key,
            )
        if einsum.output.tensor in seen:
            raise InputError(
                f"writes {einsum.output.tensor}, which einsums[{seen[einsum.output.tensor]}] "
                "already uses",
                source,
                key,
            )
        seen[einsum.output.tensor] = i
    loops = list(
        dict.fromkeys(r for _, _, e in parsed for ref in (*e.inputs, e.output) for r in ref.indices)
    )
    checked = _check_sizes(sizes, loops, source)
    last = len(parsed) - 1
    ops = []
    for i, (name, text, einsum) in enumerate(parsed):
        op_loops = tuple(
            dict.fromkeys(r for ref in (*einsum.inputs, einsum.output) for r in ref.indices)
        )
        previous = parsed[i - 1][2].output.tensor if i else None
        inputs = tuple(
            ChimeraTensor(ref.tensor, ref.indices, ref.tensor != previous) for ref in einsum.inputs
        )
        output = ChimeraTensor(einsum.output.tensor, einsum.output.indices, i == last)
        op_sizes = {r: checked[r] for r in op_loops}
        ops.append(ChimeraOp(name, text, op_loops, inputs, output, op_sizes, source))
    return ops


# --------------------------------------------------------------------------- orders and tiles


def chain_loops(ops: Sequence[ChimeraOp]) -> list[str]:
    """All loops of the chain, in order of first appearance."""
    return list(dict.fromkeys(r for op in ops for r in op.loops))


def chain_sizes(ops: Sequence[ChimeraOp]) -> dict[str, int]:
    return {r: n for op in ops for r, n in op.sizes.items()}


def format_order(order: Sequence[str]) -> str:
    """The order as text: loop names joined ("mlkn"), with commas if any is longer than one
    letter ("m,l,k,n")."""
    return ("" if all(len(r) == 1 for r in order) else ",").join(order)


def parse_order(text: str, loops: Sequence[str]) -> list[str]:
    """An order, outermost loop first: "mlkn" (one-letter loops) or "m,l,k,n"; it must name
    every loop of the chain once."""
    if not isinstance(text, str) or not text.strip():
        raise InputError("expected a loop order such as 'mlkn' or 'm,l,k,n'", None, "--order")
    if "," in text:
        order = [part.strip() for part in text.split(",")]
    elif all(len(r) == 1 for r in loops):
        order = [c for c in text if not c.isspace()]
    else:
        order = text.split()
        if len(order) == 1 and order[0] not in loops:
            raise InputError(
                f"the chain has loop names longer than one letter ({', '.join(loops)}): "
                "separate them with commas",
                None,
                "--order",
            )
    return _check_order(order, loops)


def _check_order(order: Sequence[str], loops: Sequence[str]) -> list[str]:
    order = list(order)
    for r in order:
        if r not in loops:
            raise InputError(
                f"unknown loop {r!r} (the chain's loops: {', '.join(loops)})", None, "--order"
            )
    repeated = [r for r in loops if order.count(r) > 1]
    if repeated:
        raise InputError(f"loop {repeated[0]!r} appears twice", None, "--order")
    missing = [r for r in loops if r not in order]
    if missing:
        raise InputError(
            f"the order must name every loop once; missing: {', '.join(missing)}", None, "--order"
        )
    return order


def _check_tiles(tiles: Mapping[str, Any] | None, sizes: Mapping[str, int]) -> dict[str, int]:
    """Tiles per loop, full size where not given; 1 <= tile <= size."""
    tiles = dict(tiles or {})
    for r, value in tiles.items():
        key = f"--tiles {r}"
        if r not in sizes:
            raise InputError(
                f"unknown loop {r!r} (the chain's loops: {', '.join(sizes)})", None, key
            )
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"expected an integer tile, got {value!r}", None, key)
        if not 1 <= value <= sizes[r]:
            raise InputError(
                f"tile {value} is outside 1..{sizes[r]} (the size of loop {r})", None, key
            )
    return {r: int(tiles.get(r, n)) for r, n in sizes.items()}


def trips(sizes: Mapping[str, int], tiles: Mapping[str, int]) -> dict[str, int]:
    """n_r = ceil(S_r / t_r)."""
    return {r: -(-sizes[r] // tiles[r]) for r in sizes}


# --------------------------------------------------------------------------- Algorithm 1


def op_views(ops: Sequence[ChimeraOp], order: Sequence[str]) -> list[list[str]]:
    """The loops each operator sees: the order minus the private loops of the operators
    before it (a loop is private to operator i when no later operator has it)."""
    views, remaining = [], list(order)
    for i, op in enumerate(ops):
        views.append(list(remaining))
        later = {r for other in ops[i + 1 :] for r in other.loops}
        remaining = [r for r in remaining if r not in op.loops or r in later]
    return views


def enclosing_loops(ops: Sequence[ChimeraOp], views: Sequence[list[str]]) -> list[list[str]]:
    """The loops each operator runs inside: its view down to its own innermost loop (loops
    of later operators further in do not repeat it)."""
    enclosing = []
    for op, view in zip(ops, views):
        own = [p for p, r in enumerate(view) if r in op.loops]
        enclosing.append(view[: max(own) + 1] if own else [])
    return enclosing


def _innermost_index(loops: Sequence[str], tensor: ChimeraTensor) -> int:
    """Position of the innermost loop indexing `tensor` (-1 if none)."""
    return max((p for p, r in enumerate(loops) if r in tensor.ranks), default=-1)


def reload_loops(view: Sequence[str], tensor: ChimeraTensor) -> list[str]:
    """Loops outside the innermost loop that indexes `tensor`, not indexing it themselves:
    each of their trips moves the whole tensor again."""
    return [r for r in view[: max(_innermost_index(view, tensor), 0)] if r not in tensor.ranks]


def tensor_users(ops: Sequence[ChimeraOp]) -> dict[str, tuple[ChimeraTensor, list[int]]]:
    """Each tensor and the operators that read or write it."""
    users: dict[str, tuple[ChimeraTensor, list[int]]] = {}
    for i, op in enumerate(ops):
        for tensor in op.tensors:
            users.setdefault(tensor.name, (tensor, []))[1].append(i)
    return users


def held_tensors(
    ops: Sequence[ChimeraOp], order: Sequence[str], n: Mapping[str, int]
) -> list[list[ChimeraTensor]]:
    """For each operator i, the tensors of other operators that stay on chip while i runs: T
    (of operator j) is held when a loop with more than one trip lies inside the innermost
    loop indexing T, encloses j (so T is reused across its trips, not reloaded) and encloses
    i (so i runs between two uses of T)."""
    enclosing = enclosing_loops(ops, op_views(ops, order))
    held: list[list[ChimeraTensor]] = [[] for _ in ops]
    for tensor, users in tensor_users(ops).values():
        for i in range(len(ops)):
            if i in users:
                continue
            for j in users:
                inner = enclosing[j][_innermost_index(enclosing[j], tensor) + 1 :]
                if any(n[r] > 1 and r in enclosing[i] for r in inner):
                    held[i].append(tensor)
                    break
    return held


def tensor_size(tensor: ChimeraTensor, sizes: Mapping[str, int]) -> int:
    return prod(sizes[r] for r in tensor.ranks)


def tile_words(tensor: ChimeraTensor, tiles: Mapping[str, int]) -> int:
    return prod(tiles[r] for r in tensor.ranks)


def memory_use(
    ops: Sequence[ChimeraOp],
    tiles: Mapping[str, int],
    held: Sequence[Sequence[ChimeraTensor]] | None = None,
) -> int:
    """MU = max over operators of the sum of their tensors' tiles (Chimera's), plus the tiles
    `held` on chip while each operator runs (the live memory)."""
    return max(
        sum(tile_words(t, tiles) for t in op.tensors)
        + sum(tile_words(t, tiles) for t in (held[i] if held else ()))
        for i, op in enumerate(ops)
    )


MODELS = ("paper", "producer-rerun", "strict")


def check_model(model: object, key: str = "model") -> str:
    """The model's name, or an InputError naming the choices."""
    if model not in MODELS:
        raise InputError(
            f"unknown model {model!r} (choose {', '.join(MODELS[:-1])} or {MODELS[-1]})",
            None,
            key,
        )
    return str(model)


def illegal_pairs(
    ops: Sequence[ChimeraOp], order: Sequence[str], n: Mapping[str, int]
) -> Iterator[tuple[ChimeraOp, str, str]]:
    """Every (producer, reduction loop, output loop) where a reduction loop of a producer
    with more than one trip lies outside a loop of its intermediate output with more than
    one trip."""
    position = {r: p for p, r in enumerate(order)}
    for op in ops[:-1]:
        for r in op.loops:
            if r in op.output.ranks or n[r] == 1:
                continue
            for q in op.output.ranks:
                if n[q] > 1 and position[q] > position[r]:
                    yield op, r, q


def illegal_pair(
    ops: Sequence[ChimeraOp], order: Sequence[str], n: Mapping[str, int]
) -> tuple[ChimeraOp, str, str] | None:
    """The first of `illegal_pairs`, or None when the order hands over complete tiles."""
    return next(illegal_pairs(ops, order, n), None)


def _incomplete_tiles(
    ops: Sequence[ChimeraOp], order: Sequence[str], bad: tuple[ChimeraOp, str, str]
) -> str:
    op, r, q = bad
    out = op.output
    return (
        f"order {format_order(order)!r}: loop {r} (a reduction of {op.name}) lies outside "
        f"loop {q}, which indexes its output {out.name}[{', '.join(out.ranks)}], so "
        f"{op.name} would hand over incomplete tiles of {out.name}"
    )


def _check_legal(ops: Sequence[ChimeraOp], order: Sequence[str], n: Mapping[str, int]) -> None:
    bad = illegal_pair(ops, order, n)
    if bad is not None:
        raise InputError(
            f"{_incomplete_tiles(ops, order, bad)}; put {bad[1]} inside {bad[2]} or make one "
            "of them a full tile",
            ops[0].source,
            "--order",
        )


def algorithm1_loops(view: Sequence[str], op: ChimeraOp, tensor: ChimeraTensor) -> list[str]:
    """The loops whose trip counts multiply `tensor`'s tile in Algorithm 1: walking `view`
    (outermost first) from its innermost loop outwards, from the innermost loop indexing
    the tensor on, every loop of `op`; loops of other operators are skipped."""
    loops, indexed = [], False
    for r in reversed(view):
        indexed = indexed or r in tensor.ranks
        if indexed and r in op.loops:
            loops.append(r)
    return loops[::-1]


def algorithm1_reloads(view: Sequence[str], op: ChimeraOp, tensor: ChimeraTensor) -> list[str]:
    """`algorithm1_loops` less the tensor's own ranks (which multiply its tile in every
    order): the loops of `op` outside the innermost loop indexing the tensor that do not
    index it."""
    return [r for r in algorithm1_loops(view, op, tensor) if r not in tensor.ranks]


def _paper_dv(
    ops: Sequence[ChimeraOp],
    order: Sequence[str],
    tiles: Mapping[str, int],
    n: Mapping[str, int],
) -> dict[str, int]:
    """Algorithm 1's DM of every moved tensor: its tile times the trips of its loops."""
    per_tensor: dict[str, int] = {}
    for op, view in zip(ops, op_views(ops, order)):
        for tensor in op.tensors:
            if tensor.moved:
                loops = algorithm1_loops(view, op, tensor)
                per_tensor[tensor.name] = tile_words(tensor, tiles) * prod(n[r] for r in loops)
    return per_tensor


def _rerun_dv(
    ops: Sequence[ChimeraOp], order: Sequence[str], n: Mapping[str, int]
) -> tuple[dict[str, int], int]:
    """Producer-rerun's words of every moved tensor, and what read-modify-write adds."""
    sizes = chain_sizes(ops)
    per_tensor: dict[str, int] = {}
    rmw_extra = 0
    for op, view in zip(ops, op_views(ops, order)):
        for tensor in op.tensors:
            if tensor.moved:
                size = tensor_size(tensor, sizes)
                words = size * prod(n[r] for r in reload_loops(view, tensor))
                per_tensor[tensor.name] = words
                if tensor is op.output:
                    rmw_extra += words - size
    return per_tensor, rmw_extra


def evaluate_order(
    ops: Sequence[ChimeraOp],
    order: Sequence[str] | str,
    tiles: Mapping[str, int] | None = None,
    model: str = "paper",
) -> dict[str, Any]:
    """DV and MU of one block order (outermost first) and tiling (full size where not given)
    under `model`, and the strict numbers beside them: `dv_rmw` charges the final output
    2W - |O| (read-modify-write) and `mu_live` adds the tiles held on chip across other
    operators. For "paper", `dv`, `mu` and `per_tensor` are Algorithm 1's, an order whose
    producer would hand over incomplete tiles gets a line in `warnings`, and `dv_rmw` and
    `mu_live` are None for it (the strict model rejects it). For "producer-rerun" and
    "strict", `dv`, `mu` and `per_tensor` are producer-rerun's (the strict model's objective
    being `dv_rmw` within `mu_live`) and such an order is an InputError."""
    model = check_model(model)
    loops = chain_loops(ops)
    sizes = chain_sizes(ops)
    order = parse_order(order, loops) if isinstance(order, str) else _check_order(order, loops)
    tiles = _check_tiles(tiles, sizes)
    n = trips(sizes, tiles)
    warnings = [_incomplete_tiles(ops, order, bad) for bad in illegal_pairs(ops, order, n)]
    if model != "paper":
        _check_legal(ops, order, n)
    rerun, rmw_extra = _rerun_dv(ops, order, n)
    per_tensor = _paper_dv(ops, order, tiles, n) if model == "paper" else rerun
    dv_rmw = mu_live = None
    if not warnings:
        dv_rmw = sum(rerun.values()) + rmw_extra
        mu_live = memory_use(ops, tiles, held_tensors(ops, order, n))
    return {
        "model": model,
        "order": format_order(order),
        "tiles": tiles,
        "dv": sum(per_tensor.values()),
        "mu": memory_use(ops, tiles),
        "per_tensor": per_tensor,
        "dv_rmw": dv_rmw,
        "mu_live": mu_live,
        "warnings": warnings,
    }


def algorithmic_minimum(ops: Sequence[ChimeraOp]) -> int:
    """Every input and the final output moved once: sum of their sizes."""
    sizes = chain_sizes(ops)
    return sum(tensor_size(t, sizes) for op in ops for t in op.tensors if t.moved)


def least_memory_use(ops: Sequence[ChimeraOp]) -> int:
    """MU with every tile 1: one word per tensor of the largest operator."""
    return max(len(op.tensors) for op in ops)


# --------------------------------------------------------------------------- closed form


def gemm_pair_roles(ops: Sequence[ChimeraOp]) -> dict[str, Any]:
    """For `X = A*B; E = X*D`: batch loops (in every tensor) and the loops m (A, X, E),
    k (A, B), l (B, X, D), n (D, E); an InputError for any other chain."""
    bad = InputError(
        "the closed form needs a chain of two matrix products X = A*B, E = X*D with one loop "
        "each for m (A, X, E), k (A, B), l (B, X, D) and n (D, E), plus any batch loops",
        ops[0].source if ops else None,
        "einsums",
    )
    if len(ops) != 2 or any(len(op.inputs) != 2 for op in ops):
        raise bad
    first, second = ops
    (a, b), x = first.inputs, first.output
    d = next(t for t in second.inputs if t.name != x.name)
    e = second.output
    tensors = (a, b, x, d, e)
    pattern = {
        "m": {"A", "X", "E"},
        "k": {"A", "B"},
        "l": {"B", "X", "D"},
        "n": {"D", "E"},
        "batch": {"A", "B", "X", "D", "E"},
    }
    found: dict[str, list[str]] = {role: [] for role in pattern}
    for r in chain_loops(ops):
        where = {label for label, t in zip("ABXDE", tensors) if r in t.ranks}
        role = next((role for role, s in pattern.items() if s == where), None)
        if role is None:
            raise bad
        found[role].append(r)
    if any(len(found[role]) != 1 for role in "mkln"):
        raise bad
    return {"batch": found["batch"], **{role: found[role][0] for role in "mkln"}}


def closed_form_tiles(
    ops: Sequence[ChimeraOp], capacity: int, alpha: int = 1, model: str = "paper"
) -> dict[str, Any]:
    """The paper's solution for two matrix products in order (batch) m l k n: T_K = T_N =
    alpha (the smallest tile of the private loops), T_M = T_L = floor(-a + sqrt(a^2 + MC))
    with a = alpha, the largest T with T^2 + 2aT <= MC; a loop shorter than T is taken
    whole and the other grows to fill the capacity. Returns `evaluate_order`'s result
    under `model`."""
    model = check_model(model)
    roles = gemm_pair_roles(ops)
    sizes = chain_sizes(ops)
    _check_capacity(capacity)
    if isinstance(alpha, bool) or not isinstance(alpha, int) or alpha < 1:
        raise InputError(f"alpha must be a positive integer, got {alpha!r}", None, "alpha")
    m, k, l, n = (roles[r] for r in "mkln")
    tk, tn = min(alpha, sizes[k]), min(alpha, sizes[n])
    a = max(tk, tn)
    side = isqrt(a * a + capacity) - a
    if side < 1:
        raise InputError(
            f"capacity {capacity} is below {1 + 2 * a}, the memory use of 1 x 1 tiles of m and l "
            f"with T_K = T_N = {a}",
            None,
            "--capacity",
        )
    tm, tl = min(side, sizes[m]), min(side, sizes[l])

    def grow(fixed: int, limit: int) -> int:
        # largest t with fixed*tk + tk*t + fixed*t <= C and fixed*t + t*tn + fixed*tn <= C
        return min(
            limit, (capacity - fixed * tk) // (tk + fixed), (capacity - fixed * tn) // (fixed + tn)
        )

    if tm < side:
        tl = grow(tm, sizes[l])
    elif tl < side:
        tm = grow(tl, sizes[m])
    tiles = {r: 1 for r in roles["batch"]} | {m: tm, l: tl, k: tk, n: tn}
    result = evaluate_order(ops, [*roles["batch"], m, l, k, n], tiles, model)
    result["alpha"] = alpha
    return result


# --------------------------------------------------------------------------- search


def _check_capacity(capacity: object) -> None:
    if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
        raise InputError(
            f"capacity must be a positive number of words, got {capacity!r}", None, "--capacity"
        )


def tile_candidates(size: int, perfect: bool = False) -> list[int]:
    """The smallest tile of each reachable trip count: {ceil(S/n) : 1 <= n <= S}, ascending.
    Any other tile has the trip count of a smaller candidate, so it is never better. With
    `perfect`, only the divisors of S (Orojenesis's perfect factors)."""
    if perfect:
        small = [d for d in range(1, isqrt(size) + 1) if size % d == 0]
        return sorted(set(small + [size // d for d in small]))
    values, trip = set(), 1
    while trip <= size:
        tile = -(-size // trip)
        values.add(tile)
        # next trip count with a smaller tile: the least n with ceil(S/n) < tile
        trip = -(-size // (tile - 1)) if tile > 1 else size + 1
    return sorted(values)


#: Most (whole loops, order) pairs the exhaustive search looks at (9 loops for the paper's
#: and the producer-rerun model, 7 for the strict one).
MAX_CANDIDATE_ORDERS = 1_000_000


@dataclass(frozen=True)
class OrderClass:
    """A class of (order, tiling) pairs: the loops with one trip (`full`), the reload loops
    of each moved tensor (which fix DV as a function of the tiles) and the tensors held
    across each operator (which, with the tiles, fix MU)."""

    full: frozenset[str]
    reloads: tuple[frozenset[str], ...]
    held: tuple[frozenset[str], ...]
    order: tuple[str, ...]

    def dominates(self, other: OrderClass) -> bool:
        return (
            self.full <= other.full
            and all(a <= b for a, b in zip(self.reloads, other.reloads))
            and all(a <= b for a, b in zip(self.held, other.held))
        )


def _moved(ops: Sequence[ChimeraOp]) -> list[tuple[int, ChimeraTensor]]:
    return [(i, t) for i, op in enumerate(ops) for t in op.tensors if t.moved]


def _candidate_orders(
    loops: list[str], model: str
) -> Iterator[tuple[tuple[str, ...], tuple[str, ...]]]:
    """(loops with one trip, order). For "paper" and "producer-rerun", whole loops outermost
    suffice: DV and MU do not depend on where a one-trip loop sits except through which loop
    is a tensor's innermost indexing loop, and moved out it stops being one, which can only
    cut reloads. Strict: where a whole loop sits also decides what is held, so every order."""
    for count in range(len(loops) + 1):
        for full in itertools.combinations(loops, count):
            if model != "strict":
                rest = [r for r in loops if r not in full]
                for perm in itertools.permutations(rest):
                    yield full, (*full, *perm)
            else:
                for order in itertools.permutations(loops):
                    yield full, order


def order_classes(ops: Sequence[ChimeraOp], model: str = "paper") -> tuple[list[OrderClass], int]:
    """The non-dominated classes of (order, tiling) pairs the model accepts, and how many
    (whole loops, order) pairs it accepts ("paper" accepts them all). The other loops of a
    class may still be whole: that evaluates another pair exactly for DV and conservatively
    for MU (held as if they had trips)."""
    model = check_model(model)
    loops = chain_loops(ops)
    count = len(loops)
    candidates = (
        sum(factorial(count) // factorial(k) for k in range(count + 1))
        if model != "strict"
        else 2**count * factorial(count)
    )
    if candidates > MAX_CANDIDATE_ORDERS:
        raise InputError(
            f"{count} loops give {candidates:,} candidate orders, more than the exhaustive "
            f"search takes ({MAX_CANDIDATE_ORDERS:,}); evaluate chosen orders instead",
            ops[0].source,
            "einsums",
        )
    moved = _moved(ops)
    classes: dict[tuple, OrderClass] = {}
    examined = 0
    for full, order in _candidate_orders(loops, model):
        n = {r: (1 if r in full else 2) for r in loops}
        if model != "paper" and illegal_pair(ops, order, n) is not None:
            continue
        examined += 1
        views = op_views(ops, order)
        if model == "paper":
            reloads = tuple(
                frozenset(algorithm1_reloads(views[i], ops[i], t)) - frozenset(full)
                for i, t in moved
            )
        else:
            reloads = tuple(
                frozenset(reload_loops(views[i], t)) - frozenset(full) for i, t in moved
            )
        if model == "strict":
            held = tuple(frozenset(t.name for t in h) for h in held_tensors(ops, order, n))
        else:
            held = tuple(frozenset() for _ in ops)
        key = (frozenset(full), reloads, held)
        classes.setdefault(key, OrderClass(frozenset(full), reloads, held, order))
    values = list(classes.values())
    kept = [
        s
        for s in values
        if not any(o is not s and o.dominates(s) and not s.dominates(o) for o in values)
    ]
    return kept, examined


class _TileSearch:
    """Least DV within the capacity for one class, over all integer tiles. Each free loop
    (a reload loop of some tensor) takes the smallest tile of each trip count; the last one
    is not enumerated but taken from the largest tile that fits downwards, while a lower
    bound on DV can still match the best. The other loops take tile 1 (or their whole size
    when the class has them whole)."""

    def __init__(
        self,
        ops: Sequence[ChimeraOp],
        cls: OrderClass,
        capacity: int,
        model: str,
        perfect: bool,
        bound: int | None = None,
    ):
        self.capacity, self.perfect, self.bound = capacity, perfect, bound
        self.sizes = chain_sizes(ops)
        users = tensor_users(ops)
        rmw = model == "strict"
        # DV = offset + sum of coefficient * prod(t_r * n_r, r in padded) * prod(n_r, reloads)
        self.terms: list[tuple[int, tuple[str, ...], tuple[str, ...]]] = []
        self.offset = 0
        for (i, t), reload in zip(_moved(ops), cls.reloads):
            reload_key = tuple(sorted(reload))
            if model == "paper":  # the tile as given, times the trips of its own ranks
                self.terms.append((1, t.ranks, reload_key))
                continue
            size = tensor_size(t, self.sizes)
            output = rmw and t is ops[i].output
            self.terms.append((2 * size if output else size, (), reload_key))
            self.offset -= size if output else 0
        # per operator: the rank tuples of the tiles on chip while it runs
        self.tiles_on_chip = [
            [t.ranks for t in op.tensors] + [users[name][0].ranks for name in held]
            for op, held in zip(ops, cls.held)
        ]
        free = sorted({r for *_, rs in self.terms for r in rs}, key=chain_loops(ops).index)
        self.candidates = {r: tile_candidates(self.sizes[r], perfect) for r in free}
        free.sort(key=lambda r: len(self.candidates[r]))
        self.enumerated, self.solved = free[:-1], (free[-1] if free else None)
        self.base = {r: (self.sizes[r] if r in cls.full else 1) for r in self.sizes}
        self.evaluated = 0
        self.best: tuple[int, int, dict[str, int]] | None = None

    def dv(self, tiles: Mapping[str, int], unpadded: str | None = None) -> int:
        """DV at `tiles`; with `unpadded`, that loop's tile times its trips is taken as its
        size (a lower bound, exact when the tile divides the loop)."""
        n = trips(self.sizes, tiles)
        padded = {r: tiles[r] * n[r] for r in self.sizes}
        if unpadded is not None:
            padded[unpadded] = self.sizes[unpadded]
        return self.offset + sum(
            c * prod(padded[r] for r in ranks) * prod(n[r] for r in rs)
            for c, ranks, rs in self.terms
        )

    def least_dv(self, tiles: Mapping[str, int], open_loops: Sequence[str]) -> int:
        """A lower bound on DV: the loops still open taken whole (one trip, no padding)."""
        return self.dv({**tiles, **{r: self.sizes[r] for r in open_loops}})

    def mu(self, tiles: Mapping[str, int]) -> int:
        return max(sum(prod(tiles[r] for r in ranks) for ranks in op) for op in self.tiles_on_chip)

    def largest_tile(self, tiles: dict[str, int], r: str) -> int:
        """Largest t_r <= S_r with MU <= capacity, the other tiles fixed (0 if none fits):
        each operator's MU is linear in t_r."""
        best = self.sizes[r]
        for op in self.tiles_on_chip:
            fixed = slope = 0
            for ranks in op:
                rest = prod(tiles[q] for q in ranks if q != r)
                if r in ranks:
                    slope += rest
                else:
                    fixed += rest
            if slope:
                best = min(best, (self.capacity - fixed) // slope)
            elif fixed > self.capacity:
                return 0
        return max(best, 0)

    def run(self) -> tuple[int, int, dict[str, int]] | None:
        tiles = dict(self.base)
        if self.mu(tiles) <= self.capacity:
            self._enumerate(tiles, 0)
        return self.best

    def _offer(self, tiles: dict[str, int]) -> None:
        self.evaluated += 1
        dv, mu = self.dv(tiles), self.mu(tiles)
        if mu <= self.capacity and (self.best is None or (dv, mu) < self.best[:2]):
            self.best = (dv, mu, dict(tiles))

    def _solve(self, tiles: dict[str, int]) -> None:
        """The last free loop: its candidates that fit, largest first. Its trip count only
        rises on the way down, so once DV with its padding left out exceeds the best, no
        smaller tile can match it. (Without padding, as in producer-rerun and strict or with
        divisor tiles, the first candidate is the only one that can win.)"""
        r = self.solved
        assert r is not None
        largest = self.largest_tile(tiles, r)
        for t in reversed(self.candidates[r]):
            if t > largest:
                continue
            tiles[r] = t
            bound = self.best[0] if self.best is not None else self.bound
            if bound is not None and self.dv(tiles, unpadded=r) > bound:
                break
            self._offer(tiles)
        tiles[r] = self.base[r]

    def _enumerate(self, tiles: dict[str, int], depth: int) -> None:
        if depth == len(self.enumerated):
            if self.solved is None:
                self._offer(tiles)
            else:
                self._solve(tiles)
            return
        r = self.enumerated[depth]
        later = [*self.enumerated[depth + 1 :], *([self.solved] if self.solved else [])]
        for t in self.candidates[r]:
            tiles[r] = t
            if self.mu(tiles) > self.capacity:
                break  # larger tiles only use more memory
            bound = self.best[0] if self.best is not None else self.bound
            if bound is not None and self.least_dv(tiles, later) > bound:
                continue  # even whole tiles for the loops still open do not beat the best
            self._enumerate(tiles, depth + 1)
        tiles[r] = self.base[r]


def search(
    ops: Sequence[ChimeraOp],
    capacity: int,
    progress: Callable[[int, int], None] | None = None,
    model: str = "paper",
    perfect: bool = False,
) -> dict[str, Any]:
    """The least DV, then the least MU, over every block order the model accepts and every
    integer tiling with MU <= capacity. "paper": Algorithm 1's DV and MU over every order;
    "producer-rerun": its DV and MU over the orders that hand over complete tiles; "strict":
    `dv_rmw` within `mu_live` over those orders. `perfect` restricts tiles to divisors of the
    loop sizes. `best` is `evaluate_order`'s result under the model."""
    _check_capacity(capacity)
    model = check_model(model)
    classes, examined = order_classes(ops, model)
    best: tuple[int, int, dict[str, int], tuple[str, ...]] | None = None
    evaluated = 0
    for done, cls in enumerate(classes, 1):
        finder = _TileSearch(ops, cls, capacity, model, perfect, best[0] if best else None)
        found = finder.run()
        evaluated += finder.evaluated
        if found is not None and (best is None or found[:2] < best[:2]):
            best = (*found, cls.order)
        if progress:
            progress(done, len(classes))
    if best is None:
        kind = "order" if model == "paper" else "legal order"
        raise InputError(
            f"no {kind} and tiling fits in {capacity} words (tiles of 1 need at least "
            f"{least_memory_use(ops)})",
            ops[0].source,
            "--capacity",
        )
    out: dict[str, Any] = {
        "capacity": capacity,
        "model": model,
        "perfect": perfect,
        "best": evaluate_order(ops, list(best[3]), best[2], model),
        "evaluated": evaluated,
        "orders": examined,
        "classes": len(classes),
    }
    try:
        out["closed_form"] = closed_form_tiles(ops, capacity, model=model)
    except InputError:
        pass  # not a pair of matrix products, or too small a capacity for the closed form
    return out
