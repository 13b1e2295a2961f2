"""Workloads: statements with iteration domains and read/write access relations."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import islpy as isl

from tenet.errors import InputError
from tenet.model.einsum import parse_einsum
from tenet.util.io import check_keys, expect_int, expect_mapping, expect_str, load_yaml
from tenet.util.isl_util import (
    fix_params,
    is_bounded,
    name_of_map_domain,
    name_of_map_range,
    parse_union_map,
    parse_union_set,
    sets_of,
)

SIDES = ("read", "write")


@dataclass
class Workload:
    """A loop nest as isl objects, parameters already substituted.

    `domain` is the union of the statement domains D_S; `accesses[side][F]` is the
    union of the access relations of tensor F on that side, restricted to D × F.
    """

    name: str
    params: dict[str, int]
    statements: list[tuple[str, int]]  # (tuple name, arity) in program order
    domain: isl.UnionSet
    accesses: dict[str, dict[str, isl.UnionMap]]
    macs_per_instance: int = 1
    source: str | None = None
    statement_domains: dict[str, isl.UnionSet] = field(default_factory=dict)

    @property
    def tensors(self) -> list[str]:
        """Tensor names in order of first appearance."""
        seen: dict[str, None] = {}
        for side in SIDES:
            for name in self.accesses[side]:
                seen.setdefault(name, None)
        return list(seen)

    def access(self, tensor: str, side: str) -> isl.UnionMap | None:
        return self.accesses[side].get(tensor)


@dataclass
class _RawStatement:
    domain: str
    domain_key: str
    accesses: list[tuple[str, str, str, str]]  # (side, tensor, isl text, key)


def _param_values(raw: Any, overrides: Mapping[str, int] | None, source: str) -> dict[str, int]:
    values: dict[str, int] = {}
    if raw is not None:
        for name, value in expect_mapping(raw, source, "params").items():
            values[str(name)] = expect_int(value, source, f"params.{name}")
    for name, value in (overrides or {}).items():
        if name not in values:
            known = ", ".join(values) or "none"
            raise InputError(f"unknown parameter {name!r} (the workload has: {known})", "--set")
        values[name] = value
    return values


def _einsum_statements(
    data: Mapping[str, Any], values: dict[str, int], source: str
) -> list[_RawStatement]:
    check_keys(
        data,
        ("name", "params", "einsum", "bounds", "statement", "macs_per_instance"),
        ("einsum", "bounds"),
        source,
    )
    einsum = parse_einsum(data["einsum"], source)
    bounds = expect_mapping(data["bounds"], source, "bounds")
    if not bounds:
        raise InputError("needs at least one loop", source, "bounds")
    loops = [str(name) for name in bounds]
    for ref in (einsum.output, *einsum.inputs):
        for var in sorted(ref.variables() - set(loops) - set(values)):
            raise InputError(
                f"index {var!r} of {ref.isl_tuple()} has no entry in 'bounds'", source, "einsum"
            )
    statement = expect_str(data.get("statement", "S"), source, "statement")
    params = f"[{', '.join(values)}] -> " if values else ""
    constraints = []
    for loop, bound in bounds.items():
        key = f"bounds.{loop}"
        if isinstance(bound, bool) or not isinstance(bound, (int, str)):
            raise InputError(
                f"expected an integer or a parameter expression, got {bound!r}", source, key
            )
        _check_positive_extent(str(bound), values, source, key)
        constraints.append(f"0 <= {loop} < {bound}")
    tuple_text = f"{statement}[{', '.join(loops)}]"
    domain = f"{params}{{ {tuple_text} : {' and '.join(constraints)} }}"
    accesses = [
        ("read", ref.tensor, f"{params}{{ {tuple_text} -> {ref.isl_tuple()} }}", "einsum")
        for ref in einsum.inputs
    ]
    accesses.append(
        (
            "write",
            einsum.output.tensor,
            f"{params}{{ {tuple_text} -> {einsum.output.isl_tuple()} }}",
            "einsum",
        )
    )
    return [_RawStatement(domain, "bounds", accesses)]


def _check_positive_extent(bound: str, values: dict[str, int], source: str, key: str) -> None:
    params = f"[{', '.join(values)}] -> " if values else ""
    extent = parse_union_set(f"{params}{{ [x] : 0 <= x < {bound} }}", source, key)
    extent = fix_params(extent, values, source, key)
    if extent.is_empty():
        shown = f"{bound} = {values[bound]}" if bound in values else bound
        raise InputError(f"size must be positive, got {shown}", source, key)


def _isl_statements(data: Mapping[str, Any], source: str) -> list[_RawStatement]:
    check_keys(data, ("name", "params", "statements", "macs_per_instance"), ("statements",), source)
    raw = data["statements"]
    if not isinstance(raw, list) or not raw:
        raise InputError("expected a non-empty list of statements", source, "statements")
    statements = []
    for n, entry in enumerate(raw):
        prefix = f"statements[{n}]"
        entry = expect_mapping(entry, source, prefix)
        check_keys(entry, ("domain", "reads", "writes"), ("domain",), source, prefix + ".")
        accesses = []
        for side, key in (("read", "reads"), ("write", "writes")):
            tensors = expect_mapping(entry.get(key) or {}, source, f"{prefix}.{key}")
            for tensor, texts in tensors.items():
                items = texts if isinstance(texts, list) else [texts]
                for k, text in enumerate(items):
                    akey = f"{prefix}.{key}.{tensor}" + (
                        f"[{k}]" if isinstance(texts, list) else ""
                    )
                    accesses.append((side, str(tensor), expect_str(text, source, akey), akey))
        statements.append(_RawStatement(entry["domain"], f"{prefix}.domain", accesses))
    return statements


def build_workload(
    name: str,
    statements: list[_RawStatement],
    values: dict[str, int],
    source: str,
    macs_per_instance: int = 1,
) -> Workload:
    """Parse, substitute parameters and check every statement and access."""
    domains: dict[str, isl.UnionSet] = {}
    order: list[tuple[str, int]] = []
    accesses: dict[str, dict[str, isl.UnionMap]] = {side: {} for side in SIDES}
    arity_of: dict[str, tuple[int, str]] = {}
    for raw in statements:
        dom = fix_params(
            parse_union_set(raw.domain, source, raw.domain_key), values, source, raw.domain_key
        )
        if dom.is_empty():
            raise InputError("the iteration domain is empty", source, raw.domain_key)
        sets = sets_of(dom)
        if len(sets) != 1:
            raise InputError(
                "a statement domain must be one tuple, e.g. '{ S[i,j] : ... }'",
                source,
                raw.domain_key,
            )
        stmt = sets[0].get_tuple_name()
        arity = sets[0].dim(isl.dim_type.set)
        if not stmt:
            raise InputError(
                "the statement tuple needs a name, e.g. S[i,j]", source, raw.domain_key
            )
        if stmt in domains:
            raise InputError(f"statement name {stmt!r} is used twice", source, raw.domain_key)
        if not is_bounded(dom):
            raise InputError(
                "the iteration domain is unbounded (every loop needs an upper and lower bound)",
                source,
                raw.domain_key,
            )
        domains[stmt] = dom
        order.append((stmt, arity))
        for side, tensor, text, key in raw.accesses:
            rel = fix_params(parse_union_map(text, source, key), values, source, key)
            for dname, darity in name_of_map_domain(rel):
                if (dname, darity) != (stmt, arity):
                    raise InputError(
                        f"access {text!r} starts from {dname}[{darity} dims], expected the statement {stmt}[{arity} dims]",
                        source,
                        key,
                    )
            for rname, _ in name_of_map_range(rel):
                if rname != tensor:
                    raise InputError(
                        f"access {text!r} reaches tensor {rname!r}, expected {tensor!r}",
                        source,
                        key,
                    )
            rel = rel.intersect_domain(dom)
            if not is_bounded(rel.wrap()):
                raise InputError(
                    f"access {text!r} touches unboundedly many elements (not a function of the loop indices?)",
                    source,
                    key,
                )
            for rname, rarity in name_of_map_range(rel):
                seen = arity_of.setdefault(rname, (rarity, key))
                if seen[0] != rarity:
                    raise InputError(
                        f"tensor {rname} has {rarity} indices here but {seen[0]} at {seen[1]}",
                        source,
                        key,
                    )
            side_map = accesses[side]
            side_map[tensor] = side_map[tensor].union(rel) if tensor in side_map else rel
    domain = None
    for dom in domains.values():
        domain = dom if domain is None else domain.union(dom)
    return Workload(name, values, order, domain, accesses, macs_per_instance, source, domains)


def load_workload(path: str | Path, overrides: Mapping[str, int] | None = None) -> Workload:
    """Read a workload YAML file (einsum or isl form); `overrides` are --set values."""
    source = str(path)
    data = load_yaml(path, "workload file")
    values = _param_values(data.get("params"), overrides, source)
    name = str(data.get("name") or Path(path).stem)
    if isinstance(data.get("einsums"), list) and "einsum" not in data:
        raise InputError(
            "this is a chain of einsums: use 'tenet fuse -w' for it", source, "einsums"
        )
    check_keys(
        data,
        ("name", "params", "einsum", "bounds", "statement", "statements", "macs_per_instance"),
        (),
        source,
    )
    if "einsum" in data and "statements" in data:
        raise InputError("give either 'einsum' or 'statements', not both", source)
    if "einsum" in data:
        raw = _einsum_statements(data, values, source)
    elif "statements" in data:
        raw = _isl_statements(data, source)
    else:
        raise InputError("missing required key: 'einsum' (with 'bounds') or 'statements'", source)
    macs = expect_int(data.get("macs_per_instance", 1), source, "macs_per_instance", 1)
    return build_workload(name, raw, values, source, macs)
