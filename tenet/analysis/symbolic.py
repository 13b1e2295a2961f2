"""Symbolic metrics: every count of `analyze` as a closed form in the workload parameters.

The relations of `relations.py` are built with the workload parameters left as isl
parameters; barvinok's `card()` turns each set into a piecewise quasi-polynomial in
them, which is converted to a sympy expression (`Piecewise` over the parameter
domains, `floor` for the periodic parts). Evaluating a formula at a size equals
counting that size directly, so one count serves a whole family of layer shapes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import islpy as isl
import sympy

from tenet.analysis.isl_sympy import count_to_sympy, exact_value, set_to_sympy
from tenet.errors import InputError, option_ref
from tenet.model.arch import Arch
from tenet.model.assemble import assemble
from tenet.model.counts import Counts
from tenet.model.dataflow import BoundDataflow, Dataflow, align_dataflow, bind_dataflow
from tenet.model.metrics import (
    TENSOR_FIELDS,
    Accesses,
    Analysis,
    Volumes,
    avg_active_pes,
    compute_delay,
    energy,
    fold,
    latency,
    per_cycle,
    reuse_factor,
    tensor_volumes,
    transfer_delay,
    utilization,
)
from tenet.model.relations import SpaceTime
from tenet.model.workload import SIDES, RawStatement, Workload
from tenet.util.isl_util import (
    DEFAULT_MAX_OPERATIONS,
    name_of_map_range,
    operations_limit,
    param_names,
    parse_union_map,
    parse_union_set,
)

#: Metrics that are ratios (exact Fractions when evaluated); every other metric is an integer.
RATIO_SUFFIXES = (
    "avg_active_pes",
    "utilization",
    "energy",
    "reuse_factor",
    "ibw",
    "sbw",
    "per_step",
)

NOTES = (
    (
        "warnings (PEs outside the array, over-subscribed PEs, idle links) are not derived "
        "symbolically; run 'tenet analyze' at a concrete size for them"
    ),
    (
        "ratios (avg_active_pes, utilization, energy, reuse_factor, ibw, sbw, per_step) are "
        "exact rational expressions; integer metrics evaluate to exact integers"
    ),
)


# ---------------------------------------------------------------------------------------------
# The workload and dataflow with parameters left symbolic


def fix_some_params(obj, values: Mapping[str, int]):
    """`obj ∩ {p = values[p]}` with those parameters projected out; the others stay."""
    names = [n for n in param_names(obj) if n in values]
    if not names:
        return obj
    context = isl.Set(
        f"[{', '.join(names)}] -> {{ : {' and '.join(f'{n} = {values[n]}' for n in names)} }}"
    )
    obj = obj.intersect_params(context)
    for name in names:
        obj = obj.project_out(isl.dim_type.param, param_names(obj).index(name), 1)
    return obj


def _raw_statements(workload: Workload, fixed: Mapping[str, int]) -> list[RawStatement]:
    """The running statements as their source gives them, parameters not yet substituted;
    each loop of an einsum checked to run at the `fixed` values."""
    if not workload.raw_statements:
        raise InputError(f"workload {workload.name!r} keeps no statement texts to keep parameters")
    raws = [workload.raw_statements[name] for name, _ in workload.statements]
    for raw in raws:
        raw.check_extents({**workload.params, **fixed}, workload.source)
    return raws


def symbolic_workload(workload: Workload, fixed: Mapping[str, int]) -> Workload:
    """The workload with every parameter not in `fixed` left as an isl parameter.

    `workload` is the concrete one (already checked by `load_workload`); the statement
    texts it keeps give the domains and accesses with their parameters.
    """
    if not workload.params:
        return workload
    domains: dict[str, isl.UnionSet] = {}
    accesses: dict[str, dict[str, isl.UnionMap]] = {side: {} for side in SIDES}
    source = workload.source
    for raw, (stmt, _) in zip(_raw_statements(workload, fixed), workload.statements):
        dom = fix_some_params(parse_union_set(raw.domain, source, raw.domain_key), fixed)
        domains[stmt] = dom
        for side, tensor, text, key in raw.accesses:
            rel = fix_some_params(parse_union_map(text, source, key), fixed)
            rel = rel.intersect_domain(dom)
            side_map = accesses[side]
            side_map[tensor] = side_map[tensor].union(rel) if tensor in side_map else rel
    domain = None
    for dom in domains.values():
        domain = dom if domain is None else domain.union(dom)
    return Workload(
        workload.name,
        dict(fixed),
        list(workload.statements),
        domain,
        accesses,
        workload.macs_per_instance,
        source,
        domains,
    )


def parameter_context(workload: Workload) -> isl.Set:
    """The parameter values where every statement domain is non-empty: ∩_S params(D_S)."""
    context = None
    for dom in workload.statement_domains.values() or [workload.domain]:
        params = dom.params()
        context = params if context is None else context.intersect(params)
    return context.coalesce()


def bind_symbolic(
    dataflow: Dataflow, workload: Workload, fixed: Mapping[str, int]
) -> BoundDataflow:
    """Θ restricted to the parametric D; checks it is a function for every parameter value."""
    dataflow = align_dataflow(dataflow, workload)  # bind the dataflow's loop names by name
    maps = {}
    for key, rel in (("space", dataflow.space), ("time", dataflow.time)):
        rel = fix_some_params(rel, fixed).intersect_domain(workload.domain)
        if not rel.domain().is_equal(workload.domain) or not rel.is_single_valued():
            raise InputError(
                f"the {key} map is not a function on the iteration domain for every value of "
                f"the symbolic parameters; fix some with {option_ref('set')}, or run 'tenet validate'",
                dataflow.source,
                key,
            )
        maps[key] = rel
    (time_tuple,) = set(name_of_map_range(maps["time"]))
    return BoundDataflow(maps["space"], maps["time"], time_tuple)


# ---------------------------------------------------------------------------------------------
# Counting with parameters: piecewise quasi-polynomials


def card(obj) -> isl.UnionPwQPolynomial:
    """|X| as a piecewise quasi-polynomial in the parameters (barvinok)."""
    if isinstance(obj, isl.UnionMap):
        obj = obj.wrap()
    return obj.card()


def scale(a: isl.UnionPwQPolynomial, factor: Fraction | int) -> isl.UnionPwQPolynomial:
    """factor · a for a rational factor."""
    factor = Fraction(factor)
    return a.scale_val(isl.Val(f"{factor.numerator}/{factor.denominator}"))


def zero_count() -> isl.UnionPwQPolynomial:
    """The count 0 (the card of the empty set)."""
    return isl.UnionSet("{ }").card()


@dataclass(frozen=True)
class Count:
    """A parametric count with the `+`, `-` and rational `·` that the formulas of
    `tenet.model.metrics` use (isl's quasi-polynomials have methods, not operators)."""

    qp: isl.UnionPwQPolynomial

    def __add__(self, other: Count) -> Count:
        return Count(self.qp.add(other.qp))

    def __sub__(self, other: Count) -> Count:
        return Count(self.qp.sub(other.qp))

    def __mul__(self, factor: Fraction | int) -> Count:
        return Count(scale(self.qp, factor))

    __rmul__ = __mul__


# ---------------------------------------------------------------------------------------------
# The analysis


def formula_text(expr: sympy.Basic) -> str:
    """sympy's own syntax (`sympy.sympify` reads it back), terms in construction order."""
    return sympy.sstr(expr, order="none")


def is_ratio(key: str) -> bool:
    """Whether a metric key names a ratio (rational) rather than a count (integer)."""
    return key.rsplit(".", 1)[-1] in RATIO_SUFFIXES


@dataclass
class _Counts:
    """The parametric counts of one analysis, before conversion to sympy."""

    instances: Count
    active_pes: Count
    time_steps: Count
    stamps: Count
    volumes: dict[str, dict[str, Volumes | None]]  # of Counts


@dataclass(frozen=True)
class SideForms:
    """One tensor side's volumes as sympy closed forms (`Volumes` at any size)."""

    total: sympy.Expr
    unique: sympy.Expr
    temporal_unique: sympy.Expr
    spatial_reuse: sympy.Expr
    carried: dict[int, sympy.Expr]
    read_back: sympy.Expr | None

    def at(self, env: Mapping[sympy.Symbol, int]) -> Volumes:
        """The Volumes at one size (exact integers)."""
        return Volumes(
            total=_integer(self.total, env),
            unique=_integer(self.unique, env),
            temporal_unique=_integer(self.temporal_unique, env),
            spatial_reuse=_integer(self.spatial_reuse, env),
            carried={n: _integer(expr, env) for n, expr in self.carried.items()},
            read_back=None if self.read_back is None else _integer(self.read_back, env),
        )


@dataclass(frozen=True)
class CountForms:
    """The counts of `tenet.model.counts.Counts` that the closed forms give, as sympy
    expressions in the symbols; `at` evaluates them into a Counts."""

    instances: sympy.Expr
    stamps: sympy.Expr
    active_pes: sympy.Expr
    time_steps: sympy.Expr
    volumes: dict[str, dict[str, SideForms | None]]

    def at(self, env: Mapping[sympy.Symbol, int]) -> Counts:
        """The Counts at one size: no per-step numbers, levels or cost (they have no closed
        form here) and no warnings (not derived symbolically)."""
        return Counts(
            instances=_integer(self.instances, env),
            stamps=_integer(self.stamps, env),
            active_pes=_integer(self.active_pes, env),
            time_steps=_integer(self.time_steps, env),
            volumes={
                tensor: {side: None if v is None else v.at(env) for side, v in sides.items()}
                for tensor, sides in self.volumes.items()
            },
            warnings_counted=False,
            exact_sums=True,
        )


def _integer(expr: sympy.Expr, env: Mapping[sympy.Symbol, int]) -> int:
    """A count's closed form at one size, an exact integer."""
    value = exact_value(expr, env)
    if value.denominator != 1:
        raise ValueError(f"the count {expr} evaluated to the non-integer {value}")
    return int(value)


def _count_forms(
    counts: _Counts, context: isl.Set, symbols: Mapping[str, sympy.Symbol]
) -> CountForms:
    """The parametric counts as sympy closed forms, field by field."""

    def form(value: Count) -> sympy.Expr:
        return count_to_sympy(value.qp, context, symbols)

    def side(v: Volumes) -> SideForms:
        return SideForms(
            total=form(v.total),
            unique=form(v.unique),
            temporal_unique=form(v.temporal_unique),
            spatial_reuse=form(v.spatial_reuse),
            carried={n: form(c) for n, c in v.carried.items()},
            read_back=None if v.read_back is None else form(v.read_back),
        )

    return CountForms(
        instances=form(counts.instances),
        stamps=form(counts.stamps),
        active_pes=form(counts.active_pes),
        time_steps=form(counts.time_steps),
        volumes={
            tensor: {name: None if v is None else side(v) for name, v in sides.items()}
            for tensor, sides in counts.volumes.items()
        },
    )


def _count_all(workload: Workload, arch: Arch, bound: BoundDataflow) -> _Counts:
    """Every |X| of `metrics.analyze_bound`, as quasi-polynomials."""
    space_time = SpaceTime.of(bound, arch)

    def size(obj) -> Count:
        return Count(card(obj))

    # The volumes first: the form (not the value) of barvinok's counts depends on what it has
    # counted before, and the formulas are printed.
    unresolved: list[tuple[str, str]] = []
    volumes = tensor_volumes(workload, arch, space_time, size=size, unresolved=unresolved)
    if unresolved:
        tensor, side = unresolved[0]
        raise InputError(
            f"the same-step link groups of {tensor} ({side}) have no closed form here (isl's "
            "closure of the same-step links is not exact with symbolic sizes): fix the sizes "
            f"with {option_ref('set')}, or give the arch `same_step: tenet` for TENET's literal counting",
            arch.source,
            "same_step",
        )
    return _Counts(
        instances=size(workload.domain),
        active_pes=size(space_time.space_domain),
        time_steps=size(space_time.time_domain),
        stamps=size(space_time.stamp_domain),
        volumes=volumes,
    )


def _count_metrics(counts: _Counts, workload: Workload, arch: Arch) -> dict[str, Any]:
    """The integer metrics (and energy) as quasi-polynomials, keyed like analyze's JSON."""
    zero = Count(zero_count())
    macs = counts.instances * workload.macs_per_instance
    out: dict[str, Count] = {
        "instances": counts.instances,
        "macs": macs,
        "active_pes": counts.active_pes,
        "time_steps": counts.time_steps,
    }
    unique_sums = {side: zero for side in SIDES}
    accesses = []
    for tensor, sides in counts.volumes.items():
        for side, v in sides.items():
            if v is None:
                continue
            key = f"tensors.{tensor}.{side}"
            out[f"{key}.total"] = v.total
            out[f"{key}.unique"] = v.unique
            out[f"{key}.reuse"] = v.reuse
            out[f"{key}.temporal_reuse"] = v.temporal_reuse
            out[f"{key}.spatial_reuse"] = v.spatial_reuse
            if v.read_back is not None:
                out[f"{key}.read_back"] = v.read_back
            unique_sums[side] = unique_sums[side] + v.unique
        accesses.append(Accesses.of((v for v in sides.values() if v is not None), zero))
        for name, value in accesses[-1].to_dict().items():
            out[f"accesses.{tensor}.{name}"] = value
    out["energy"] = energy(macs, accesses, (arch.energy.mac, arch.energy.l1, arch.energy.l2))
    for n in range(len(arch.links)):
        link_total = zero
        for tensor, sides in counts.volumes.items():
            for side, v in sides.items():
                if v is not None:
                    carried = v.carried.get(n, zero)
                    out[f"links.{n}.values.{tensor}.{side}"] = carried
                    link_total = link_total + carried
        out[f"links.{n}.total"] = link_total
    out["_read_unique"], out["_write_unique"] = unique_sums["read"], unique_sums["write"]
    return {key: value.qp for key, value in out.items()}


def _derived_metrics(m: dict[str, sympy.Expr], arch: Arch, stamps: sympy.Expr) -> None:
    """Delays, latency, utilization and bandwidths from the counts (semantics.md), in place."""
    memory = arch.memory
    compute = fold(compute_delay(m["macs"], m["active_pes"]))
    ingress, egress = (
        fold(
            transfer_delay(
                m.pop(f"_{side}_unique"),
                memory.word_bits,
                memory.bandwidth_bits,
                memory.avg_latency,
            )
        )
        for side in SIDES
    )
    longest = latency(ingress, egress, compute)
    m["pe_count"] = sympy.Integer(arch.pe_count)
    m["avg_active_pes"] = avg_active_pes(stamps, m["time_steps"])
    m["utilization"] = utilization(m["macs"], arch.pe_count, longest)
    m["delay.ingress"], m["delay.egress"] = ingress, egress
    m["delay.compute"], m["delay.latency"] = compute, longest
    ibw_sum = sbw_sum = sympy.Integer(0)
    for key in [k for k in m if k.startswith("tensors.") and k.endswith(".total")]:
        base = key[: -len(".total")]
        m[f"{base}.reuse_factor"] = reuse_factor(m[key], m[f"{base}.unique"])
        m[f"{base}.ibw"] = per_cycle(m[f"{base}.spatial_reuse"], compute)
        m[f"{base}.sbw"] = per_cycle(m[f"{base}.unique"], compute)
        ibw_sum += m[f"{base}.ibw"]
        sbw_sum += m[f"{base}.sbw"]
    m["bandwidth.ibw"], m["bandwidth.sbw"] = ibw_sum, sbw_sum
    for n in range(len(arch.links)):
        m[f"links.{n}.per_step"] = per_cycle(m[f"links.{n}.total"], compute)


def symbolic_analysis(
    workload: Workload,
    arch: Arch,
    dataflow: Dataflow,
    fixed: Mapping[str, int] | None = None,
    max_operations: int = DEFAULT_MAX_OPERATIONS,
) -> dict[str, Any]:
    """Every metric of `analyze` as a sympy closed form in the workload parameters.

    `workload` comes from `load_workload`; parameters named in `fixed` take that value
    (e.g. the --set overrides), the others become symbols. Returns {"workload", "arch",
    "dataflow", "symbols", "fixed", "context" (sympy condition on the symbols where the
    formulas hold), "metrics" (key -> sympy expression), "formulas" (key -> str),
    "notes", "counts" (the `CountForms` that `analysis_at` evaluates)}; metric keys are the dotted keys of analyze's JSON ("delay.latency",
    "tensors.A.read.unique", ...).
    """
    fixed = dict(fixed or {})
    for name, value in fixed.items():
        if name not in workload.params:
            known = ", ".join(workload.params) or "none"
            raise InputError(f"unknown parameter {name!r} (the workload has: {known})", "fixed")
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"value of {name} must be an integer, got {value!r}", "fixed")
    bind_dataflow(dataflow, workload, arch)  # checks names, arities, functions at the given size
    names = [p for p in workload.params if p not in fixed]
    symbols = {name: sympy.Symbol(name, integer=True) for name in names}
    with operations_limit(
        max_operations, f"counting {dataflow.name!r} symbolically", dataflow.source
    ):
        param_workload = symbolic_workload(workload, fixed)
        context = parameter_context(param_workload)
        if context.is_empty():
            raise InputError("the iteration domain is empty for every parameter value", "fixed")
        bound = bind_symbolic(dataflow, param_workload, fixed)
        counts = _count_all(param_workload, arch, bound)
        metrics = {
            key: count_to_sympy(value, context, symbols)
            for key, value in _count_metrics(counts, param_workload, arch).items()
        }
        stamps = count_to_sympy(counts.stamps.qp, context, symbols)
        forms = _count_forms(counts, context, symbols)
        context_expr = set_to_sympy(context, symbols)
    _derived_metrics(metrics, arch, stamps)
    metrics = in_json_order(metrics)
    return SymbolicResult(
        workload=workload.name,
        arch=arch.name,
        dataflow=dataflow.name,
        symbols=names,
        fixed=fixed,
        context=context_expr,
        metrics=metrics,
        formulas={key: formula_text(expr) for key, expr in metrics.items()},
        notes=list(NOTES),
        counts=forms,
    )


@dataclass(frozen=True)
class SymbolicResult:
    """`analyze --symbolic`: every metric as a sympy expression of the `symbols` (`metrics`,
    and as text, `formulas`), valid where `context` holds, with the parameters `fixed`;
    `counts` the closed forms field by field (`counts_at` evaluates them). It turns into the
    JSON object only at output (`to_dict()`); `result["metrics"]` reads a field too."""

    workload: str
    arch: str
    dataflow: str
    symbols: list[str]
    fixed: dict[str, int]
    context: Any
    metrics: dict[str, Any]
    formulas: dict[str, str]
    notes: list[str]
    counts: Any

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object: formulas and the context as strings (sympy syntax)."""
        return symbolic_json(self)


_ORDER = (
    "instances",
    "macs",
    "pe_count",
    "active_pes",
    "avg_active_pes",
    "time_steps",
    "utilization",
    "delay.",
    "energy",
    "tensors.",
    "accesses.",
    "links.",
    "bandwidth.",
)


def _group(key: str) -> int:
    """Position of a key's group in analyze's JSON (summary, delays, tensors, ...)."""
    for n, prefix in enumerate(_ORDER):
        if key == prefix or (prefix.endswith(".") and key.startswith(prefix)):
            return n
    return len(_ORDER)


def in_json_order(metrics: dict[str, sympy.Expr]) -> dict[str, sympy.Expr]:
    """Keys grouped as in analyze's JSON; a tensor side's fields together, in its order."""
    bases = list(dict.fromkeys(key.rsplit(".", 1)[0] for key in metrics))

    def order(key: str) -> tuple[int, int, int]:
        base, _, last = key.rpartition(".")
        fields = (*TENSOR_FIELDS, "read_back")
        field = fields.index(last) if key.startswith("tensors.") else 0
        return _group(key), bases.index(base) if base else 0, field

    return {key: metrics[key] for key in sorted(metrics, key=order)}


# ---------------------------------------------------------------------------------------------
# Evaluation


def _check_params(result: Mapping[str, Any], params: Mapping[str, int]) -> dict[sympy.Symbol, int]:
    """Integer values for every symbol of `result` (fixed parameters may repeat their value)."""
    env: dict[sympy.Symbol, int] = {}
    for name, value in params.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"value of {name} must be an integer, got {value!r}", "params")
        if name in result["fixed"]:
            if result["fixed"][name] != value:
                raise InputError(
                    f"{name} was fixed at {result['fixed'][name]} when counting, got {value}",
                    "params",
                )
        elif name not in result["symbols"]:
            known = ", ".join(result["symbols"]) or "none"
            raise InputError(f"unknown parameter {name!r} (the symbols are: {known})", "params")
    for name in result["symbols"]:
        if name not in params:
            raise InputError(f"parameter {name!r} has no value", "params")
        env[sympy.Symbol(name, integer=True)] = params[name]
    if not exact_value(result["context"], env):
        shown = ", ".join(f"{n}={params[n]}" for n in result["symbols"])
        raise InputError(
            f"{shown} is outside the formulas' domain ({result['context']}): "
            "some iteration domain is empty",
            "params",
        )
    return env


def _metric_value(key: str, expr: sympy.Expr, env: Mapping[sympy.Symbol, int]):
    """An int for counts, a Fraction for ratios, None where a ratio is undefined."""
    if expr is sympy.nan:
        return None
    try:
        value = exact_value(expr, env)
    except ZeroDivisionError:
        return None
    if is_ratio(key):
        return value
    if value.denominator != 1:
        raise ValueError(f"{key} evaluated to the non-integer {value}")
    return int(value)


def evaluate_symbolic(
    result: Mapping[str, Any], params: Mapping[str, int]
) -> dict[str, int | Fraction | None]:
    """Every metric at one size: exact ints for counts, Fractions for ratios (None if undefined)."""
    env = _check_params(result, params)
    return {key: _metric_value(key, expr, env) for key, expr in result["metrics"].items()}


def evaluate_family(
    result: Mapping[str, Any], param_sets: Iterable[Mapping[str, int]]
) -> list[dict[str, int | Fraction | None]]:
    """`evaluate_symbolic` at each size of a family (one count, many layers)."""
    return [evaluate_symbolic(result, params) for params in param_sets]


#: Its old name: an Analysis from closed forms is an Analysis with `exact_sums`.
EvaluatedAnalysis = Analysis


def counts_at(result: Mapping[str, Any], params: Mapping[str, int]) -> Counts:
    """The Counts at one size: the closed forms of `result["counts"]` evaluated exactly."""
    return result["counts"].at(_check_params(result, params))


def analysis_at(
    result: Mapping[str, Any],
    params: Mapping[str, int],
    workload: Workload,
    arch: Arch,
    dataflow: Dataflow | str,
) -> Analysis:
    """The Analysis at one size from the closed forms (`counts_at`), assembled as every
    engine's counts are (`tenet.model.assemble`): no warnings, per-step numbers, levels or
    cost, which are not derived symbolically. `workload` gives the name and MACs per
    instance (the workload at any size)."""
    return assemble(counts_at(result, params), workload, arch, dataflow)


def flatten_metrics(nested: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """The numbers of analyze's JSON under dotted keys (lists by index, link windows left out)."""
    flat: dict[str, Any] = {}
    items: Iterable = nested.items() if isinstance(nested, Mapping) else enumerate(nested)
    for key, value in items:
        name = f"{prefix}{key}"
        if key == "window":
            continue
        if isinstance(value, (Mapping, list)):
            flat.update(flatten_metrics(value, name + "."))
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            flat[name] = value
    return flat


# ---------------------------------------------------------------------------------------------
# Rendering


def symbolic_json(result: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON object: formulas and the context as strings (sympy syntax)."""
    return {
        "workload": result["workload"],
        "arch": result["arch"],
        "dataflow": result["dataflow"],
        "symbols": list(result["symbols"]),
        "fixed": dict(result["fixed"]),
        "context": formula_text(result["context"]),
        "metrics": dict(result["formulas"]),
        "notes": list(result["notes"]),
    }
