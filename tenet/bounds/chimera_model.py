"""Chimera's analytical model of one block order and tiling of a fused chain (the chain's
operators, the orders and tiles, Algorithm 1 and its two variants): what `evaluate_order`
gives. `tenet.bounds.chimera` states the models; `chimera_search` picks the tiles.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from math import prod
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
        raise InputError("expected a loop order such as 'mlkn' or 'm,l,k,n'", option="order")
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
                option="order",
            )
    return _check_order(order, loops)


def _check_order(order: Sequence[str], loops: Sequence[str]) -> list[str]:
    order = list(order)
    for r in order:
        if r not in loops:
            raise InputError(
                f"unknown loop {r!r} (the chain's loops: {', '.join(loops)})", option="order"
            )
    repeated = [r for r in loops if order.count(r) > 1]
    if repeated:
        raise InputError(f"loop {repeated[0]!r} appears twice", option="order")
    missing = [r for r in loops if r not in order]
    if missing:
        raise InputError(
            f"the order must name every loop once; missing: {', '.join(missing)}", option="order"
        )
    return order


def _check_tiles(tiles: Mapping[str, Any] | None, sizes: Mapping[str, int]) -> dict[str, int]:
    """Tiles per loop, full size where not given; 1 <= tile <= size."""
    tiles = dict(tiles or {})
    for r, value in tiles.items():
        if r not in sizes:
            raise InputError(
                f"unknown loop {r!r} (the chain's loops: {', '.join(sizes)})",
                None,
                r,
                option="tiles",
            )
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"expected an integer tile, got {value!r}", None, r, option="tiles")
        if not 1 <= value <= sizes[r]:
            raise InputError(
                f"tile {value} is outside 1..{sizes[r]} (the size of loop {r})",
                None,
                r,
                option="tiles",
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
            option="order",
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
