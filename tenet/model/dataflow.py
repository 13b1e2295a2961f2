"""Dataflows: the space map S[n] -> PE[p] and the time map S[n] -> T[t]."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import islpy as isl

from tenet.errors import InputError
from tenet.model.arch import Arch
from tenet.model.workload import Workload
from tenet.util.io import check_keys, expect_str, load_yaml
from tenet.util.isl_util import fix_params, name_of_map_domain, name_of_map_range, parse_union_map


@dataclass
class Dataflow:
    """Θ = { S[n] -> (PE[p] | T[t]) } as two relations, parsed but not yet bound."""

    name: str
    space: isl.UnionMap
    time: isl.UnionMap
    source: str | None = None


@dataclass
class BoundDataflow:
    """A dataflow checked against a workload and an arch: maps restricted to D."""

    space_map: isl.UnionMap
    time_map: isl.UnionMap
    time_tuple: tuple[str, int]


def load_dataflow(path: str | Path) -> Dataflow:
    """Read a dataflow YAML file (`space` and `time` maps)."""
    source = str(path)
    data = load_yaml(path, "dataflow file")
    check_keys(data, ("name", "space", "time"), ("space", "time"), source)
    space = parse_union_map(expect_str(data["space"], source, "space"), source, "space")
    time = parse_union_map(expect_str(data["time"], source, "time"), source, "time")
    return Dataflow(str(data.get("name") or Path(path).stem), space, time, source)


def bind_dataflow(dataflow: Dataflow, workload: Workload, arch: Arch) -> BoundDataflow:
    """Check tuple names and arities against workload and arch; restrict the maps to D.

    Raises InputError when the dataflow is not a function on D (one space and one
    time stamp per instance).
    """
    source = dataflow.source
    stmts = dict(workload.statements)
    maps = {}
    for key, rel in (("space", dataflow.space), ("time", dataflow.time)):
        known = ", ".join(workload.params) or "none"
        rel = fix_params(
            rel, workload.params, source, key, hint=f"the workload's parameters are: {known}"
        )
        for name, arity in name_of_map_domain(rel):
            if name not in stmts:
                raise InputError(
                    f"statement {name!r} is not in workload {workload.name!r} "
                    f"(its statements: {', '.join(stmts)})",
                    source,
                    key,
                )
            if stmts[name] != arity:
                raise InputError(
                    f"statement {name} has {stmts[name]} loop indices in the workload but {arity} here",
                    source,
                    key,
                )
        covered = {name for name, _ in name_of_map_domain(rel)}
        for name in stmts:
            if name not in covered:
                raise InputError(f"no entry for statement {name}", source, key)
        maps[key] = rel.intersect_domain(workload.domain)
    pe = (arch.pe_tuple, arch.pe_arity)
    for name, arity in name_of_map_range(maps["space"]):
        if (name, arity) != pe:
            raise InputError(
                f"maps to {name}[{arity} dims] but arch {arch.name!r} has {pe[0]}[{pe[1]} dims]",
                source,
                "space",
            )
    time_tuples = set(name_of_map_range(maps["time"]))
    if len(time_tuples) != 1:
        raise InputError(
            "all statements must map to one time tuple of one arity, got "
            + ", ".join(f"{n}[{a} dims]" for n, a in sorted(time_tuples)),
            source,
            "time",
        )
    for key in ("space", "time"):
        rel = maps[key]
        if not rel.domain().is_equal(workload.domain) or not rel.is_single_valued():
            raise InputError(
                f"the {key} map is not a function on the iteration domain (an instance has no or "
                f"several {key} stamps); run 'tenet validate' for a counterexample",
                source,
                key,
            )
    return BoundDataflow(maps["space"], maps["time"], time_tuples.pop())
