"""Chains of einsums for fusion bounds: loading `einsums:` workloads and the rank roles.

A chain is a list of einsums in execution order. Consecutive einsums are linked when the
later one reads the tensor the earlier one writes; where that link is missing, a new run
starts (e.g. the K and V projections of attention, which only feed later einsums as
weights). Inside a run every matrix-product einsum is seen as `O[rows, n] += A[rows, k] *
W[k, n]`:

* rows: ranks of every activation of the run (its input, intermediates and output);
* k: ranks of A and W only (the reduction); n: ranks of W and O only;
* heads: ranks of A, W and O that are not rows; they are never tiled, anywhere in the run,
  so each tile holds every head (the published per-head model scaled by the head count);
* groups: row ranks that also index W (e.g. the sequence of attention's K and V), so the
  "weight" differs per group of rows.

Single-input einsums (`P[b,h,t,s] = S[b,h,t,s]`, e.g. a row softmax) are element-wise
steps between two products: free inside a fused segment, one read and one write unfused.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from math import prod
from pathlib import Path
from typing import Any

from tenet.errors import InputError
from tenet.model.einsum import Einsum, parse_einsum
from tenet.model.workload import param_values
from tenet.util.io import check_keys, expect_int, expect_mapping, load_yaml

_IDENT_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


@dataclass(frozen=True)
class ChainEinsum:
    """One einsum of a chain with its tensors and rank roles."""

    name: str
    text: str
    einsum: Einsum
    activation: str  # the input read from the previous einsum (or the run's input)
    weight: str | None  # the other input of a product; None for element-wise steps
    output: str
    ranks: tuple[str, ...]  # all ranks, in order of first appearance
    rows: tuple[str, ...] = ()
    k: tuple[str, ...] = ()
    n: tuple[str, ...] = ()
    heads: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()  # row ranks that index the weight

    @property
    def elementwise(self) -> bool:
        return self.weight is None

    def tensor_ranks(self, tensor: str) -> tuple[str, ...]:
        for ref in (self.einsum.output, *self.einsum.inputs):
            if ref.tensor == tensor:
                return ref.indices
        raise KeyError(tensor)


@dataclass
class Chain:
    """Einsums in execution order, rank sizes, and the runs (lists of linked indices)."""

    name: str
    einsums: list[ChainEinsum]
    sizes: dict[str, int]
    runs: list[list[int]]
    word_bits: int = 16
    source: str | None = None
    params: dict[str, int] = field(default_factory=dict)

    def size_of(self, ranks: tuple[str, ...]) -> int:
        return prod(self.sizes[r] for r in ranks)


def _plain_ranks(einsum: Einsum, source: str | None, key: str) -> None:
    for ref in (einsum.output, *einsum.inputs):
        for index in ref.indices:
            if not index or not set(index) <= _IDENT_CHARS or index[0].isdigit():
                raise InputError(
                    f"index {index!r} of {ref.tensor}: chains take plain rank names "
                    "(use 'tenet bounds' for affine indices)",
                    source,
                    key,
                )
        if len(set(ref.indices)) != len(ref.indices):
            raise InputError(f"tensor {ref.tensor} repeats a rank", source, key)


def _ranks_in_order(einsum: Einsum) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for ref in (*einsum.inputs, einsum.output):
        for index in ref.indices:
            seen.setdefault(index, None)
    return tuple(seen)


def _entries(raw: Any, source: str) -> list[tuple[str, str]]:
    if not isinstance(raw, list) or not raw:
        raise InputError("expected a non-empty list of einsums", source, "einsums")
    entries = []
    for i, item in enumerate(raw):
        key = f"einsums[{i}]"
        if isinstance(item, str):
            entries.append((f"e{i}", item))
            continue
        item = expect_mapping(item, source, key)
        check_keys(item, ("name", "einsum"), ("einsum",), source, key + ".")
        entries.append((str(item.get("name", f"e{i}")), item["einsum"]))
    names = [n for n, _ in entries]
    for i, name in enumerate(names):
        if name in names[:i]:
            raise InputError(f"einsum name {name!r} is used twice", source, f"einsums[{i}].name")
    return entries


def _sizes(raw: Any, values: dict[str, int], source: str) -> dict[str, int]:
    sizes = {}
    for rank, value in expect_mapping(raw, source, "bounds").items():
        key = f"bounds.{rank}"
        if isinstance(value, str) and value.strip() in values:
            sizes[str(rank)] = values[value.strip()]
        elif isinstance(value, str):
            raise InputError(f"{value!r} is neither an integer nor a parameter name", source, key)
        else:
            sizes[str(rank)] = expect_int(value, source, key)
        if sizes[str(rank)] < 1:
            raise InputError(f"size must be positive, got {sizes[str(rank)]}", source, key)
    return sizes


def _roles(entry: ChainEinsum, rows: tuple[str, ...], source: str | None, key: str) -> ChainEinsum:
    """Classify the ranks of a product `O = A * W` (see the module docstring)."""
    a = set(entry.tensor_ranks(entry.activation))
    w = set(entry.tensor_ranks(entry.weight))
    o = set(entry.tensor_ranks(entry.output))
    k, n, heads, groups = [], [], [], []
    for r in entry.ranks:
        if r in rows:
            if r in w:
                groups.append(r)
        elif r in a and r in w and r not in o:
            k.append(r)
        elif r in w and r in o and r not in a:
            n.append(r)
        elif r in a and r in w and r in o:
            heads.append(r)
        else:
            where = ", ".join(
                t
                for t, s in ((entry.activation, a), (entry.weight, w), (entry.output, o))
                if r in s
            )
            raise InputError(
                f"rank {r!r} (in {where}) has no matrix-product role: every non-row rank must be "
                f"in two or three of {entry.activation}, {entry.weight}, {entry.output}",
                source,
                key,
            )
    row_order = [r for r in rows if r in groups]
    if row_order != list(rows[: len(groups)]):
        raise InputError(
            f"the weight {entry.weight} may index only the outermost row ranks ({', '.join(rows)})",
            source,
            key,
        )
    return replace(
        entry, rows=rows, k=tuple(k), n=tuple(n), heads=tuple(heads), groups=tuple(groups)
    )


def build_chain(
    name: str,
    entries: list[tuple[str, str]],
    sizes: dict[str, int],
    source: str | None = None,
    word_bits: int = 16,
    params: Mapping[str, int] | None = None,
    rows_hint: list[str] | None = None,
) -> Chain:
    """Parse the einsums, link them into runs and classify their ranks."""
    parsed: list[ChainEinsum] = []
    runs: list[list[int]] = []
    for i, (ename, text) in enumerate(entries):
        key = f"einsums[{i}]"
        einsum = parse_einsum(text, source, key)
        _plain_ranks(einsum, source, key)
        ranks = _ranks_in_order(einsum)
        missing = [r for r in ranks if r not in sizes]
        if missing:
            raise InputError(f"rank {missing[0]!r} has no size in 'bounds'", source, key)
        inputs = [ref.tensor for ref in einsum.inputs]
        if len(inputs) not in (1, 2):
            raise InputError(
                f"a chain einsum reads one tensor (element-wise) or two (a product), not {len(inputs)}",
                source,
                key,
            )
        previous = parsed[-1].output if parsed else None
        if previous in inputs:
            activation = previous
            runs[-1].append(i)
        else:
            activation = inputs[0]
            runs.append([i])
            if len(inputs) == 1:
                raise InputError(
                    f"element-wise einsum reads {activation!r}, but the einsum before it does not "
                    "write it (an element-wise step must follow a product)",
                    source,
                    key,
                )
        weight = next((t for t in inputs if t != activation), None) if len(inputs) == 2 else None
        if len(inputs) == 2 and weight is None:
            raise InputError("a product must read two different tensors", source, key)
        entry = ChainEinsum(ename, text, einsum, activation, weight, einsum.output.tensor, ranks)
        if entry.elementwise and set(entry.tensor_ranks(activation)) != set(
            entry.tensor_ranks(entry.output)
        ):
            raise InputError(
                "an element-wise einsum must write the same ranks it reads", source, key
            )
        parsed.append(entry)
    for rank in rows_hint or ():
        if rank not in sizes:
            raise InputError(f"{rank!r} is not a rank of the chain", source, "rows")
    unused = [r for r in sizes if not any(r in e.ranks for e in parsed)]
    if unused:
        raise InputError(f"rank {unused[0]!r} appears in no einsum", source, f"bounds.{unused[0]}")
    for run in runs:
        products = [i for i in run if not parsed[i].elementwise]
        if len(products) < 2:
            continue  # a lone product is only ever bounded on its own (Snowcat)
        first = parsed[run[0]]
        common = [
            r
            for r in first.tensor_ranks(first.activation)
            if all(
                r in parsed[i].tensor_ranks(t)
                for i in run
                for t in (parsed[i].activation, parsed[i].output)
            )
        ]
        if rows_hint is not None:
            outside = [r for r in rows_hint if r not in common]
            if outside:
                raise InputError(
                    f"row rank {outside[0]!r} is not in every activation of the run starting at "
                    f"einsum {first.name!r}",
                    source,
                    "rows",
                )
            common = list(rows_hint)
        if not common:
            raise InputError(
                "the linked einsums share no row rank (a rank in every activation), so they "
                "cannot be fused row-block by row-block",
                source,
                f"einsums[{run[0]}]",
            )
        # Row ranks that index a weight go outermost, so each row tile meets few weight groups.
        in_weights = {r for i in products for r in parsed[i].tensor_ranks(parsed[i].weight)}
        rows = tuple(
            [r for r in common if r in in_weights] + [r for r in common if r not in in_weights]
        )
        for i in run:
            if not parsed[i].elementwise:
                parsed[i] = _roles(parsed[i], rows, source, f"einsums[{i}]")
            else:
                parsed[i] = replace(parsed[i], rows=rows)
    return Chain(name, parsed, dict(sizes), runs, word_bits, source, dict(params or {}))


def load_chain(path: str | Path, overrides: Mapping[str, int] | None = None) -> Chain:
    """Read a chain workload: `einsums:` (list), `bounds:` (rank sizes), optional `params`."""
    source = str(path)
    data = load_yaml(path, "workload file")
    if "einsum" in data and "einsums" not in data:
        raise InputError(
            "one einsum: use 'tenet bounds -w' for it ('tenet fuse' needs a list under 'einsums')",
            source,
            "einsum",
        )
    check_keys(
        data,
        ("name", "params", "einsums", "bounds", "rows", "word_bits"),
        ("einsums", "bounds"),
        source,
    )
    values = param_values(data.get("params"), overrides, source)
    word_bits = expect_int(data.get("word_bits", 16), source, "word_bits", 1)
    entries = _entries(data["einsums"], source)
    sizes = _sizes(data["bounds"], values, source)
    name = str(data.get("name") or Path(path).stem)
    rows = data.get("rows")
    if rows is not None and (
        not isinstance(rows, list) or not rows or not all(isinstance(r, str) for r in rows)
    ):
        raise InputError("expected a list of rank names", source, "rows")
    return build_chain(name, entries, sizes, source, word_bits, values, rows)
