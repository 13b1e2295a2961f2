"""Workloads: statements with iteration domains and read/write access relations."""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import islpy as isl

from tenet.errors import InputError
from tenet.model.einsum import parse_einsum
from tenet.model.warning_kinds import AnalysisWarning
from tenet.util.io import (
    check_keys,
    did_you_mean,
    expect_int,
    expect_mapping,
    expect_str,
    load_yaml,
)
from tenet.util.isl_util import (
    fix_params,
    is_bounded,
    maps_of,
    name_of_map_domain,
    name_of_map_range,
    parse_union_map,
    parse_union_set,
    sets_of,
)

SIDES = ("read", "write")


@dataclass
class StatementInfo:
    """One statement as its source gives it: texts with parameters symbolic, each access on
    its own, and (for imported loop nests) its program order and its accumulations."""

    name: str
    domain_text: str
    accesses: list[tuple[str, str, str, isl.UnionMap]]  # (side, tensor, text, relation on D_S)
    schedule_text: str | None = None
    schedule: isl.UnionMap | None = None  # S[n] -> [t] (2d+1 program order), params fixed
    accumulates: tuple[str, ...] = ()  # tensors this statement updates with +=, -=, *=, /=
    origin: str | None = None  # FILE:LINE of the statement in its source
    domain: isl.UnionSet | None = None  # D_S, parameters fixed (empty: it runs no instance)
    arity: int | None = None  # how many loop indices S has


@dataclass
class RawStatement:
    """A statement as text, before parsing: what a workload file or a loop nest gives."""

    domain: str
    domain_key: str
    accesses: list[tuple[str, str, str, str]]  # (side, tensor, isl text, key)
    schedule: str | None = None  # { S[n] -> [t] }, the statement's program order
    schedule_key: str | None = None
    accumulates: tuple[str, ...] = ()
    origin: str | None = None
    extents: tuple[tuple[str, str], ...] = ()  # an einsum's (key, bound) per loop: 0 <= l < bound

    def check_extents(self, values: Mapping[str, int], source: str) -> None:
        """Every loop of an einsum statement runs at least once at these parameter values."""
        for key, bound in self.extents:
            _check_positive_extent(bound, dict(values), source, key)


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
    statement_info: dict[str, StatementInfo] = field(default_factory=dict)
    tensor_shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    shape_texts: dict[str, tuple[str, ...]] = field(default_factory=dict)  # as declared
    #: Each statement as its source gives it (parameters symbolic), by statement name.
    raw_statements: dict[str, RawStatement] = field(default_factory=dict)
    #: What the user should know about the workload itself (a statement that never runs).
    warnings: list[str] = field(default_factory=list)

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

    def statement_arities(self) -> dict[str, int]:
        """Every statement the source names (also one that runs no instance) and its arity."""
        arities = dict(self.statements)
        for name, info in self.statement_info.items():
            if info.arity is not None:
                arities.setdefault(name, info.arity)
        return arities

    def has_program_order(self) -> bool:
        """Whether the statements carry their own program order (a `schedule` each)."""
        return any(info.schedule is not None for info in self.statement_info.values())

    def program_schedule(self) -> isl.UnionMap:
        """{ S[n] -> [t] }: the program order as one schedule into a common time space.

        With per-statement schedules (imported loop nests) those, padded with zeros to one
        width; otherwise the statements in list order, each in lexicographic order of its
        indices: S_k[n] -> [k, n, 0...].
        """
        pieces: list[isl.Map] = []
        if self.has_program_order():
            for name, _ in self.statements:
                pieces += maps_of(self.statement_info[name].schedule)
        else:
            for index, (name, arity) in enumerate(self.statements):
                dims = [f"i{k}" for k in range(arity)]
                text = f"{{ {name}[{', '.join(dims)}] -> [{', '.join([str(index), *dims])}] }}"
                pieces.append(isl.Map(text))
        if not pieces:
            return isl.UnionMap("{ }")
        width = max(m.dim(isl.dim_type.out) for m in pieces)
        out = None
        for m in pieces:
            pad = width - m.dim(isl.dim_type.out)
            if pad:
                zeros = isl.Map(
                    f"{{ [{', '.join(f't{k}' for k in range(m.dim(isl.dim_type.out)))}] -> "
                    f"[{', '.join([*(f't{k}' for k in range(m.dim(isl.dim_type.out))), *['0'] * pad])}] }}"
                )
                m = m.apply_range(zeros)
            piece = isl.UnionMap.from_map(m)
            out = piece if out is None else out.union(piece)
        return out


def param_values(raw: Any, overrides: Mapping[str, int] | None, source: str) -> dict[str, int]:
    """The `params:` of a workload file as integers, then the `--set` overrides (each must
    name a declared parameter)."""
    values: dict[str, int] = {}
    if raw is not None:
        for name, value in expect_mapping(raw, source, "params").items():
            values[str(name)] = expect_int(value, source, f"params.{name}")
    for name, value in (overrides or {}).items():
        if name not in values:
            known = ", ".join(values) or "none"
            raise InputError(
                f"unknown parameter {name!r} ({did_you_mean(name, values)}the workload has: "
                f"{known})",
                option="set",
            )
        values[name] = value
    return values


def einsum_statements(
    data: Mapping[str, Any], values: dict[str, int], source: str
) -> list[RawStatement]:
    """The one statement of an einsum workload file: D = { S[loops] : 0 <= loop < bound },
    one read per input and one write, parameters symbolic."""
    check_keys(
        data,
        ("name", "params", "einsum", "bounds", "statement", "macs_per_instance", "shapes"),
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
    extents = tuple((f"bounds.{loop}", str(bound)) for loop, bound in bounds.items())
    return [RawStatement(domain, "bounds", accesses, extents=extents)]


def _check_positive_extent(bound: str, values: dict[str, int], source: str, key: str) -> None:
    for name in re.findall(r"[A-Za-z_]\w*", bound):
        if name not in values and name not in ("floor", "ceil", "mod", "min", "max"):
            known = ", ".join(values) or "none"
            raise InputError(
                f"parameter {name!r} has no value (declare it in the workload's 'params'; "
                f"declared: {known})",
                source,
                key,
            )
    params = f"[{', '.join(values)}] -> " if values else ""
    extent = parse_union_set(f"{params}{{ [x] : 0 <= x < {bound} }}", source, key)
    extent = fix_params(extent, values, source, key)
    if extent.is_empty():
        shown = f"{bound} = {values[bound]}" if bound in values else bound
        raise InputError(f"size must be positive, got {shown}", source, key)


def isl_statements(data: Mapping[str, Any], source: str) -> list[RawStatement]:
    """The `statements:` of a workload file in isl form, as texts (parameters symbolic)."""
    check_keys(
        data,
        ("name", "params", "statements", "macs_per_instance", "shapes"),
        ("statements",),
        source,
    )
    raw = data["statements"]
    if not isinstance(raw, list) or not raw:
        raise InputError("expected a non-empty list of statements", source, "statements")
    statements = []
    for n, entry in enumerate(raw):
        prefix = f"statements[{n}]"
        entry = expect_mapping(entry, source, prefix)
        check_keys(
            entry,
            ("domain", "reads", "writes", "schedule", "accumulates"),
            ("domain",),
            source,
            prefix + ".",
        )
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
        schedule = entry.get("schedule")
        if schedule is not None:
            schedule = expect_str(schedule, source, f"{prefix}.schedule")
        accumulates = entry.get("accumulates") or []
        if not isinstance(accumulates, list) or not all(isinstance(t, str) for t in accumulates):
            raise InputError("expected a list of tensor names", source, f"{prefix}.accumulates")
        statements.append(
            RawStatement(
                entry["domain"],
                f"{prefix}.domain",
                accesses,
                schedule,
                f"{prefix}.schedule",
                tuple(accumulates),
            )
        )
    if len({s.schedule is None for s in statements}) > 1:
        raise InputError("give a 'schedule' for every statement or for none", source, "statements")
    return statements


def _shapes(raw: Any, source: str) -> dict[str, tuple[str, ...]]:
    """The optional `shapes: {TENSOR: [extent, ...]}` of a workload file: each extent an
    integer or an integer expression of the parameters (`N + 1`)."""
    shapes = {}
    for tensor, dims in expect_mapping(raw or {}, source, "shapes").items():
        key = f"shapes.{tensor}"
        if not isinstance(dims, list) or not all(
            isinstance(d, (int, str)) and not isinstance(d, bool) for d in dims
        ):
            raise InputError(f"expected a list of extents, got {dims!r}", source, key)
        shapes[str(tensor)] = tuple(str(d) for d in dims)
    return shapes


_ARITHMETIC = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "//", ast.FloorDiv: "//"}


def evaluate_extent(text: str, values: Mapping[str, int]) -> int | None:
    """An integer expression (`N + 1`, `2 * M`; `/` divides rounding down) at the parameter
    values; None when it is not one or names something without a value."""
    try:
        tree = ast.parse(str(text).strip(), mode="eval").body
    except SyntaxError:
        return None

    def value(node) -> int | None:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.Name):
            return values.get(node.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = value(node.operand)
            return None if inner is None else -inner
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
            a, b = value(node.left), value(node.right)
            if a is None or b is None:
                return None
            op = _ARITHMETIC[type(node.op)]
            if op == "//":
                return a // b if b > 0 else None
            return a + b if op == "+" else a - b if op == "-" else a * b
        return None

    return value(tree)


def _statement_name(raw: RawStatement, symbolic: isl.UnionSet, source: str) -> tuple[str, int]:
    """(name, arity) of a statement's domain, which must be one named tuple."""
    sets = sets_of(symbolic) if not symbolic.is_empty() else _empty_tuple(raw.domain)
    if len(sets) != 1:
        raise InputError(
            "a statement domain must be one tuple, e.g. '{ S[i,j] : ... }'",
            source,
            raw.domain_key,
        )
    stmt = sets[0].get_tuple_name()
    if not stmt:
        raise InputError("the statement tuple needs a name, e.g. S[i,j]", source, raw.domain_key)
    return stmt, sets[0].dim(isl.dim_type.set)


def _never_runs(raw: RawStatement, stmt: str, source: str) -> AnalysisWarning:
    """The warning of a statement whose domain is empty for every parameter value."""
    where = raw.origin or f"{source}: {raw.domain_key}"
    return AnalysisWarning(
        "statement_never_runs",
        f"statement {stmt} ({where}) never runs: its domain is empty for every "
        "parameter value (listed with 0 instances)",
    )


def _idle_statement(raw: RawStatement, stmt: str, arity: int, dom: isl.UnionSet) -> StatementInfo:
    """A statement that runs no instance at these sizes: its accesses are empty."""
    accesses = [(s, t, text, isl.UnionMap.empty(dom.get_space())) for s, t, text, _ in raw.accesses]
    return StatementInfo(
        stmt, raw.domain, accesses, raw.schedule, None, raw.accumulates, raw.origin, dom, arity
    )


def _checked_access(
    text: str,
    key: str,
    tensor: str,
    stmt: str,
    arity: int,
    dom: isl.UnionSet,
    values: dict[str, int],
    source: str,
    arity_of: dict[str, tuple[int, str]],
) -> isl.UnionMap:
    """One access relation at these parameter values, restricted to the statement's domain:
    from the statement, to the named tensor, bounded, with the tensor's number of indices
    the same everywhere (`arity_of` remembers the first)."""
    rel = fix_params(parse_union_map(text, source, key), values, source, key)
    for dname, darity in name_of_map_domain(rel):
        if (dname, darity) != (stmt, arity):
            raise InputError(
                f"access {text!r} starts from {dname}[{darity} dims], expected the statement "
                f"{stmt}[{arity} dims]",
                source,
                key,
            )
    for rname, _ in name_of_map_range(rel):
        if rname != tensor:
            raise InputError(
                f"access {text!r} reaches tensor {rname!r}, expected {tensor!r}", source, key
            )
    rel = rel.intersect_domain(dom)
    if not is_bounded(rel.wrap()):
        raise InputError(
            f"access {text!r} touches unboundedly many elements (not a function of the loop "
            "indices?)",
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
    return rel


def _tensor_shapes(
    shape_texts: Mapping[str, tuple[str, ...]] | None,
    infos: dict[str, StatementInfo],
    values: dict[str, int],
    source: str,
) -> dict[str, tuple[int, ...]]:
    """The declared extents of each tensor (`shapes:`) at these parameter values."""
    shapes = {}
    for tensor, dims in (shape_texts or {}).items():
        key = f"shapes.{tensor}"
        if not any(t == tensor for i in infos.values() for _, t, _, _ in i.accesses):
            raise InputError("no statement accesses this tensor", source, key)
        extents = [evaluate_extent(d, values) for d in dims]
        for dim, extent in zip(dims, extents):
            if extent is None or extent < 0:
                raise InputError(
                    f"extent {dim!r} is not a non-negative integer expression of the parameters",
                    source,
                    key,
                )
        shapes[tensor] = tuple(extents)
    return shapes


def build_workload(
    name: str,
    statements: list[RawStatement],
    values: dict[str, int],
    source: str,
    macs_per_instance: int = 1,
    shape_texts: Mapping[str, tuple[str, ...]] | None = None,
    order_is_injective: bool = False,
) -> Workload:
    """Parse, substitute parameters and check every statement and access.

    Each statement's schedule must be a function on its domain, and the schedules together
    must give every instance its own time; a caller that built them so (an imported loop
    nest's 2d+1 order) says `order_is_injective` and skips both checks (isl's injectivity
    check costs time that grows with the square of the number of statements)."""
    domains: dict[str, isl.UnionSet] = {}
    infos: dict[str, StatementInfo] = {}
    order: list[tuple[str, int]] = []
    arity_of: dict[str, tuple[int, str]] = {}
    raw_statements: dict[str, RawStatement] = {}
    warnings: list[str] = []
    pieces: dict[str, dict[str, list[isl.UnionMap]]] = {side: {} for side in SIDES}
    for raw in statements:
        symbolic = parse_union_set(raw.domain, source, raw.domain_key)
        dom = fix_params(symbolic, values, source, raw.domain_key)
        if dom.is_empty() and raw.schedule is None:
            raise InputError("the iteration domain is empty", source, raw.domain_key)
        stmt, arity = _statement_name(raw, symbolic, source)
        if stmt in infos:
            raise InputError(f"statement name {stmt!r} is used twice", source, raw.domain_key)
        raw_statements[stmt] = raw
        if symbolic.is_empty():  # a guard no instance meets, whatever the parameters
            warnings.append(_never_runs(raw, stmt, source))
        if dom.is_empty():  # a loop-nest statement that runs no instance at these sizes
            infos[stmt] = _idle_statement(raw, stmt, arity, dom)
            continue
        if not is_bounded(dom):
            raise InputError(
                "the iteration domain is unbounded (every loop needs an upper and lower bound)",
                source,
                raw.domain_key,
            )
        domains[stmt] = dom
        order.append((stmt, arity))
        info = infos[stmt] = StatementInfo(
            stmt, raw.domain, [], accumulates=raw.accumulates, origin=raw.origin, domain=dom,
            arity=arity,
        )  # fmt: skip
        if raw.schedule is not None:
            info.schedule_text = raw.schedule
            info.schedule = _statement_schedule(
                raw, dom, stmt, arity, values, source, checked=not order_is_injective
            )
        for side, tensor, text, key in raw.accesses:
            rel = _checked_access(text, key, tensor, stmt, arity, dom, values, source, arity_of)
            pieces[side].setdefault(tensor, []).append(rel)
            info.accesses.append((side, tensor, text, rel))
        for tensor in raw.accumulates:
            if not any(s == "write" and t == tensor for s, t, _, _ in info.accesses):
                raise InputError(
                    f"{stmt} accumulates into {tensor!r} but does not write it",
                    source,
                    raw.schedule_key,
                )
    accesses = {
        side: {tensor: union_all(rels) for tensor, rels in pieces[side].items()} for side in SIDES
    }
    domain = union_all(list(domains.values())) if domains else None
    if domain is None:  # a loop nest none of whose statements runs at these sizes
        domain = isl.UnionSet.empty(isl.Space.params_alloc(isl.DEFAULT_CONTEXT, 0))
    workload = Workload(
        name,
        values,
        order,
        domain,
        accesses,
        macs_per_instance,
        source,
        domains,
        infos,
        _tensor_shapes(shape_texts, infos, values, source),
        {t: tuple(d) for t, d in (shape_texts or {}).items()},
        raw_statements,
        warnings,
    )
    if (
        not order_is_injective
        and workload.has_program_order()
        and not workload.program_schedule().is_injective()
    ):
        raise InputError(
            "the schedules give two instances the same position in program order",
            source,
            "statements",
        )
    return workload


def union_all(pieces: list):
    """The union of isl union sets or maps, two halves at a time: isl copies the larger
    operand on every union, so a left-to-right fold costs time quadratic in their number."""
    while len(pieces) > 1:
        pairs = [a.union(b) for a, b in zip(pieces[::2], pieces[1::2])]
        pieces = pairs + ([pieces[-1]] if len(pieces) % 2 else [])
    return pieces[0]


def _empty_tuple(text: str) -> list[isl.Set]:
    """The one tuple of an empty statement domain (isl drops it from an empty union set)."""
    try:
        return [isl.Set(text)]
    except isl.Error:
        return []


def _statement_schedule(
    raw: RawStatement,
    dom: isl.UnionSet,
    stmt: str,
    arity: int,
    values: dict[str, int],
    source: str,
    checked: bool = True,
) -> isl.UnionMap:
    """The statement's program order { S[n] -> [t] } on D_S, `checked` to be a function."""
    key = raw.schedule_key
    rel = fix_params(parse_union_map(raw.schedule, source, key), values, source, key)
    if name_of_map_domain(rel) != [(stmt, arity)]:
        raise InputError(f"the schedule must map {stmt}[{arity} dims] only", source, key)
    rel = rel.intersect_domain(dom)
    if checked and (not rel.domain().is_equal(dom) or not rel.is_single_valued()):
        raise InputError(
            f"the schedule is not a function on the domain of {stmt} (one time per instance)",
            source,
            key,
        )
    return rel


@dataclass
class WorkloadData:
    """A workload file parsed once: its statements as texts (parameters symbolic) and the
    parameter values (declared, then `--set`); `workload_from_data` checks and builds it."""

    name: str
    source: str
    params: dict[str, int]
    statements: list[RawStatement]
    macs_per_instance: int = 1
    shape_texts: dict[str, tuple[str, ...]] = field(default_factory=dict)


def parse_workload_data(
    data: Mapping[str, Any],
    source: str,
    overrides: Mapping[str, int] | None = None,
    default_name: str = "workload",
) -> WorkloadData:
    """The contents of a workload YAML file (einsum or isl form), checked key by key."""
    values = param_values(data.get("params"), overrides, source)
    name = str(data.get("name") or default_name)
    if isinstance(data.get("einsums"), list) and "einsum" not in data:
        raise InputError(
            "this is a chain of einsums: use 'tenet fuse -w' for it", source, "einsums"
        )
    check_keys(
        data,
        (
            "name",
            "params",
            "einsum",
            "bounds",
            "statement",
            "statements",
            "macs_per_instance",
            "shapes",
        ),
        (),
        source,
    )
    if "einsum" in data and "statements" in data:
        raise InputError("give either 'einsum' or 'statements', not both", source)
    if "einsum" in data:
        raw = einsum_statements(data, values, source)
    elif "statements" in data:
        raw = isl_statements(data, source)
    else:
        raise InputError("missing required key: 'einsum' (with 'bounds') or 'statements'", source)
    macs = expect_int(data.get("macs_per_instance", 1), source, "macs_per_instance", 1)
    return WorkloadData(name, source, values, raw, macs, _shapes(data.get("shapes"), source))


def workload_from_data(data: WorkloadData) -> Workload:
    """The workload of parsed file contents, parameters substituted and every access checked."""
    return build_workload(
        data.name,
        data.statements,
        data.params,
        data.source,
        data.macs_per_instance,
        data.shape_texts,
    )


def load_workload(path: str | Path, overrides: Mapping[str, int] | None = None) -> Workload:
    """Read a workload YAML file (einsum or isl form); `overrides` are --set values."""
    data = load_yaml(path, "workload file")
    return workload_from_data(parse_workload_data(data, str(path), overrides, Path(path).stem))
