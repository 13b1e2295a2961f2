"""Legality of a dataflow: every check gives a kind, a message, an isl counterexample
and the number of offending instances."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import islpy as isl

from tenet.errors import InputError
from tenet.model.arch import Arch
from tenet.model.dataflow import Dataflow, align_dataflow, align_loops, loop_names
from tenet.model.relations import pe_conflict_chains, program_order
from tenet.model.workload import Workload
from tenet.util.isl_util import (
    count,
    fix_params,
    maps_of,
    name_of_map_domain,
    name_of_map_range,
    sets_of,
)


@dataclass
class Violation:
    kind: str
    message: str
    example: dict[str, Any]
    count: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "message": self.message,
            "example": self.example,
            "count": self.count,
        }


@dataclass
class Validation:
    workload: str
    arch: str
    dataflow: str
    violations: list[Violation] = field(default_factory=list)
    notation: str | None = None

    @property
    def legal(self) -> bool:
        return not self.violations

    def to_dict(self) -> dict[str, Any]:
        return {
            "legal": self.legal,
            "workload": self.workload,
            "arch": self.arch,
            "dataflow": self.dataflow,
            "violations": [v.to_dict() for v in self.violations],
            "notation": self.notation,
        }


def point_text(uset: isl.UnionSet) -> str:
    """One point of a non-empty set as isl text, e.g. 'S[0, 0, 1]'."""
    return str(sets_of(uset)[0].sample_point()).strip("{} ")


def _sample_pair(rel: isl.UnionMap) -> tuple[str, str]:
    """One (domain point, range point) pair of a non-empty relation."""
    pair = maps_of(rel)[0].wrap().sample_point()
    wrapped = isl.UnionSet(str(pair)).unwrap()
    first = point_text(wrapped.domain())
    second = point_text(wrapped.intersect_domain(isl.UnionSet(f"{{ {first} }}")).range())
    return first, second


def _stamps_of(
    space: isl.UnionMap, time: isl.UnionMap, instance: str
) -> tuple[list[str], list[str]]:
    one = isl.UnionSet(f"{{ {instance} }}")
    pes = _points_text(space.intersect_domain(one).range())
    times = _points_text(time.intersect_domain(one).range())
    return pes, times


def _points_text(uset: isl.UnionSet, limit: int = 4) -> list[str]:
    out: list[str] = []
    for s in sets_of(uset):
        s.foreach_point(lambda p: out.append(str(p).strip("{} ")) if len(out) < limit else None)
    return out


def _function_violations(key: str, rel: isl.UnionMap, domain: isl.UnionSet) -> list[Violation]:
    """Instances with no stamp, or with several stamps, in the `key` ('space' or 'time') map."""
    out = []
    missing = domain.subtract(rel.domain())
    if not missing.is_empty():
        example = point_text(missing)
        out.append(
            Violation(
                "not_a_function",
                f"{count(missing):,} instances have no {key} stamp, e.g. {example}",
                {"instances": [example], key: []},
                count(missing),
            )
        )
    several = rel.lexmin().subtract(rel.lexmax()).domain()
    if not several.is_empty():
        example = point_text(several)
        stamps = _points_text(rel.intersect_domain(isl.UnionSet(f"{{ {example} }}")).range())
        out.append(
            Violation(
                "not_a_function",
                f"{count(several):,} instances have several {key} stamps, e.g. {example} -> "
                + ", ".join(stamps),
                {"instances": [example], key: stamps},
                count(several),
            )
        )
    return out


def _reduction_tensors(workload: Workload) -> set[str]:
    """Tensors written by several instances of a statement to one element (accumulations)."""
    out = set()
    for tensor, rel in workload.accesses["write"].items():
        for m in maps_of(rel):
            if not m.is_injective():
                out.add(tensor)
    return out


def flow_dependences(workload: Workload, strict_reductions: bool = False) -> isl.UnionMap:
    """Flow dependences source -> sink of the original program (isl's dataflow analysis).

    Accumulating writes are may-sources, so every partial update must precede a read;
    with `strict_reductions` they also read their element (read-modify-write), which
    orders the accumulation itself.
    """
    if workload.has_program_order():
        return _ordered_flow_dependences(workload, strict_reductions)
    width = max(arity for _, arity in workload.statements)
    schedule = None
    for index, (name, arity) in enumerate(workload.statements):
        dims = [f"i{k}" for k in range(arity)]
        padded = dims + ["0"] * (width - arity)
        piece = isl.UnionMap(f"{{ {name}[{', '.join(dims)}] -> [{index}, {', '.join(padded)}] }}")
        schedule = piece if schedule is None else schedule.union(piece)
    reductions = _reduction_tensors(workload)
    reads = _union(workload.accesses["read"].values())
    must, may = None, None
    for tensor, rel in workload.accesses["write"].items():
        if tensor in reductions:
            may = rel if may is None else may.union(rel)
            if strict_reductions:
                reads = rel if reads is None else reads.union(rel)
        else:
            must = rel if must is None else must.union(rel)
    if reads is None:
        return isl.UnionMap("{ }")
    info = isl.UnionAccessInfo.from_sink(reads)
    if must is not None:
        info = info.set_must_source(must)
    if may is not None:
        info = info.set_may_source(may)
    flow = info.set_schedule_map(schedule).compute_flow()
    return flow.get_may_dependence().union(flow.get_must_dependence())


def _ordered_flow_dependences(workload: Workload, strict_reductions: bool) -> isl.UnionMap:
    """Flow dependences of a workload with its own program order (an imported loop nest).

    Plain writes are must-sources and compound updates (`+=`, ...) may-sources, tensor by
    tensor. Unless `strict_reductions`, two instances of one statement that update the same
    element with a compound assignment may run in either order (a reduction): that
    dependence is dropped, while those into and out of the accumulation are kept.
    """
    schedule = workload.program_schedule()
    deps = isl.UnionMap("{ }")
    for tensor in workload.accesses["write"]:
        reads = workload.accesses["read"].get(tensor)
        if reads is None:
            continue
        must, may, free = None, None, None
        for info in workload.statement_info.values():
            for side, target, _, rel in info.accesses:
                if side != "write" or target != tensor:
                    continue
                if tensor in info.accumulates:
                    may = rel if may is None else may.union(rel)
                    same = rel.apply_range(rel.reverse())  # S[n] -> S[n'] updating one element
                    free = same if free is None else free.union(same)
                else:
                    must = rel if must is None else must.union(rel)
        info_flow = isl.UnionAccessInfo.from_sink(reads)
        if must is not None:
            info_flow = info_flow.set_must_source(must)
        if may is not None:
            info_flow = info_flow.set_may_source(may)
        flow = info_flow.set_schedule_map(schedule).compute_flow()
        tensor_deps = flow.get_may_dependence().union(flow.get_must_dependence())
        if free is not None and not strict_reductions:
            tensor_deps = tensor_deps.subtract(free)
        deps = deps.union(tensor_deps)
    return deps


def _union(rels) -> isl.UnionMap | None:
    out = None
    for rel in rels:
        out = rel if out is None else out.union(rel)
    return out


def _not_later(time: isl.UnionMap) -> isl.UnionMap:
    """{ s -> s' : time(s') ⪯ time(s) } (the sink does not run strictly later)."""
    t_used = time.range()
    return time.apply_range(t_used.lex_ge_union_set(t_used)).apply_range(time.reverse())


def compact_notation(space: isl.UnionMap, time: isl.UnionMap, workload: Workload) -> str:
    """The paper's style, e.g. `(I, J - P | I, J, I+J+K - T)`, one group per statement,
    in the workload's loop names (the dataflow's indices bound to them by name)."""
    groups = []
    for name, _ in workload.statements:
        dom = workload.statement_domains[name]
        parts = []
        for rel, tag in ((space, "P"), (time, "T")):
            rel = _with_loop_names(rel, workload, name).intersect_domain(dom)
            pieces = maps_of(rel)
            function = pieces[0].as_pw_multi_aff() if len(pieces) == 1 else None
            if function is None or function.n_piece() != 1:
                parts.append(f"{rel} - {tag}")  # piecewise: isl's own text
                continue
            parts.append(f"{_expressions(str(function), pieces[0])} - {tag}")
        prefix = f"{name}: " if len(workload.statements) > 1 else ""
        groups.append(f"{prefix}({' | '.join(parts)})")
    return "; ".join(groups)


def _with_loop_names(rel: isl.UnionMap, workload: Workload, statement: str) -> isl.UnionMap:
    """`rel` bound by name to the workload's loops, its indices renamed to the loop names of
    `statement` (a dataflow with other names, e.g. unnamed ones, is read by position)."""
    try:
        rel = align_loops(rel, workload)
    except InputError:
        pass  # names that are not loops of the workload: by position
    loops = loop_names(workload).get(statement, [])
    out = None
    for m in maps_of(rel):
        if m.get_tuple_name(isl.dim_type.in_) == statement:
            for k, loop in enumerate(loops[: m.dim(isl.dim_type.in_)]):
                if loop:
                    m = m.set_dim_name(isl.dim_type.in_, k, loop)
        piece = isl.UnionMap.from_map(m)
        out = piece if out is None else out.union(piece)
    return rel if out is None else out


def _expressions(text: str, rel: isl.Map | None) -> str:
    match = re.search(r"->\s*\w*\[(.*)\]\s*(?::|\})", text)
    if not match or rel is None:
        return text
    body = match.group(1)
    names = [rel.get_dim_name(isl.dim_type.in_, k) for k in range(rel.dim(isl.dim_type.in_))]
    items, depth, start = [], 0, 0
    for pos, char in enumerate(body):
        depth += char in "(["
        depth -= char in ")]"
        if char == "," and depth == 0:
            items.append(body[start:pos])
            start = pos + 1
    items.append(body[start:])
    out = []
    for item in items:
        item = item.strip()
        if item.startswith("(") and item.endswith(")") and _balanced(item[1:-1]):
            item = item[1:-1]
        item = re.sub(r"\((\w+)\)", r"\1", item)
        for name in names:
            if name:
                item = re.sub(rf"\b{re.escape(name)}\b", name.upper(), item)
        out.append(item.replace(" mod ", "%").replace(" ", ""))
    return ", ".join(out)


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += char == "("
        depth -= char == ")"
        if depth < 0:
            return False
    return depth == 0


def validate(
    workload: Workload, arch: Arch, dataflow: Dataflow, strict_reductions: bool = False
) -> Validation:
    """All legality checks of a dataflow on a workload and an arch."""
    dataflow = align_dataflow(dataflow, workload)  # bind the dataflow's loop names by name
    source = dataflow.source
    result = Validation(workload.name, arch.name, dataflow.name)
    maps = {}
    for key, rel in (("space", dataflow.space), ("time", dataflow.time)):
        known = ", ".join(workload.params) or "none"
        rel = fix_params(
            rel, workload.params, source, key, hint=f"the workload's parameters are: {known}"
        )
        stmts = workload.statement_arities()
        for name, arity in name_of_map_domain(rel):
            if stmts.get(name) != arity:
                raise InputError(
                    f"statement {name}[{arity} dims] is not in workload {workload.name!r}",
                    source,
                    key,
                )
        maps[key] = rel.intersect_domain(workload.domain)
    space, time = maps["space"], maps["time"]
    for name, arity in name_of_map_range(space):
        if (name, arity) != (arch.pe_tuple, arch.pe_arity):
            raise InputError(
                f"maps to {name}[{arity} dims] but arch {arch.name!r} has "
                f"{arch.pe_tuple}[{arch.pe_arity} dims]",
                source,
                "space",
            )
    if len(set(name_of_map_range(time))) > 1:
        raise InputError("all statements must map to one time tuple of one arity", source, "time")

    result.violations += _function_violations("space", space, workload.domain)
    result.violations += _function_violations("time", time, workload.domain)

    outside = space.subtract_range(arch.pe_domain)
    if not outside.is_empty():
        instance, pe = _sample_pair(outside)
        n = count(outside.domain())
        result.violations.append(
            Violation(
                "outside_array",
                f"{n:,} instances run outside the PE array, e.g. {instance} on {pe}",
                {"instances": [instance], "pe": pe},
                n,
            )
        )

    stamp = space.range_product(time)
    chains = pe_conflict_chains(stamp, program_order(workload), arch.macs_per_pe)
    if not chains.is_empty():
        first, _last = _sample_pair(chains)
        crowded = stamp.intersect_domain(chains.domain()).range()
        offenders = stamp.intersect_range(crowded).domain()
        pes, times = _stamps_of(space, time, first)
        together = _points_text(
            stamp.intersect_range(
                stamp.intersect_domain(isl.UnionSet(f"{{ {first} }}")).range()
            ).domain(),
            limit=arch.macs_per_pe + 1,
        )
        result.violations.append(
            Violation(
                "pe_conflict",
                f"{count(offenders):,} instances run on a PE in a time step that holds more than "
                f"macs_per_pe={arch.macs_per_pe} instances, e.g. {', '.join(together)} on {pes[0]} at {times[0]}",
                {"instances": together, "pe": pes[0], "time": times[0]},
                count(offenders),
            )
        )

    if not any(v.kind == "not_a_function" for v in result.violations):  # needs one stamp each
        backwards = flow_dependences(workload, strict_reductions).intersect(_not_later(time))
        if not backwards.is_empty():
            source_inst, sink = _sample_pair(backwards)
            _, t_source = _stamps_of(space, time, source_inst)
            _, t_sink = _stamps_of(space, time, sink)
            n = count(backwards.range())
            result.violations.append(
                Violation(
                    "dependence",
                    f"{n:,} instances read a value before it is written: {sink} at {t_sink[0]} needs {source_inst} "
                    f"at {t_source[0]}, which is not earlier",
                    {"instances": [source_inst, sink], "time": [t_source[0], t_sink[0]]},
                    n,
                )
            )
    if result.legal:
        result.notation = compact_notation(space, time, workload)
    return result
