"""Any workload file: YAML (einsum or isl form), a C or a Python loop nest; and what
`tenet workload show` prints of one (statements, domains, accesses, exact counts)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import islpy as isl

from tenet.errors import InputError
from tenet.formats.loopnest import is_loopnest, load_loopnest
from tenet.formats.presets import resolve_workload
from tenet.model.workload import SIDES, Workload, load_workload
from tenet.util.isl_util import count, sets_of


def load_any_workload(
    path: str | Path, overrides: Mapping[str, int] | None = None, function: str | None = None
) -> Workload:
    """A workload from a `.c`/`.h` or `.py` loop nest, else from a workload YAML file or a
    preset name (`gemm`)."""
    path = resolve_workload(str(path))
    if is_loopnest(path):
        return load_loopnest(path, overrides, function)
    if function is not None:
        raise InputError(
            "applies only to a C or Python loop nest (-w FILE.c or FILE.py)", "--function"
        )
    return load_workload(path, overrides)


def footprint(workload: Workload, tensor: str, side: str) -> int:
    """Distinct elements of `tensor` read (or written) by any statement: |A(D)| (barvinok)."""
    rel = workload.access(tensor, side)
    return 0 if rel is None else count(rel.range())


def accessed_extent(workload: Workload, tensor: str) -> tuple[int, ...] | None:
    """One more than the largest index of each dimension that any statement touches; None
    when an index below 0 is touched, or when nothing is touched at these sizes."""
    touched = None
    for side in SIDES:
        rel = workload.access(tensor, side)
        if rel is not None:
            touched = rel.range() if touched is None else touched.union(rel.range())
    if touched is None or touched.is_empty():
        return None  # nothing touched at these sizes: no extent to read off
    elements = sets_of(touched.coalesce())[0]
    extent = []
    for k in range(elements.dim(isl.dim_type.set)):
        if elements.dim_min_val(k).to_python() < 0:
            return None
        extent.append(int(elements.dim_max_val(k).to_python()) + 1)
    return tuple(extent)


def workload_summary(workload: Workload) -> dict[str, Any]:
    """Statements (domain, instances, program order, accesses) and tensors (shape, read and
    write footprints), every count exact at the workload's parameter values."""
    statements = []
    names = list(workload.statement_info) or [name for name, _ in workload.statements]
    for name in names:  # in textual order, with those that run no instance at these sizes
        info = workload.statement_info.get(name)
        domain = workload.statement_domains.get(name)
        domain = info.domain if domain is None else domain
        entry: dict[str, Any] = {"name": name, "domain": str(domain), "instances": count(domain)}
        if info is not None and info.origin:
            entry["origin"] = info.origin
        entry["schedule"] = str(info.schedule) if info is not None and info.schedule else None
        if info is not None:
            entry["accesses"] = [
                {"tensor": tensor, "kind": side, "relation": str(rel)}
                for side, tensor, _, rel in info.accesses
            ]
            entry["accumulates"] = list(info.accumulates)
        statements.append(entry)
    tensors = {}
    for tensor in workload.tensors:
        declared = workload.tensor_shapes.get(tensor)  # () for a scalar
        shape = declared if declared is not None else accessed_extent(workload, tensor)
        tensors[tensor] = {
            "shape": None if shape is None else list(shape),
            "read_footprint": footprint(workload, tensor, "read"),
            "write_footprint": footprint(workload, tensor, "write"),
        }
    return {
        "name": workload.name,
        "source": workload.source,
        "params": dict(workload.params),
        "statements": statements,
        "tensors": tensors,
        "warnings": list(workload.warnings),
    }


def workload_yaml(workload: Workload) -> str:
    """A workload YAML (isl form) that `load_workload` reads back to the same workload:
    parameters symbolic with their values, and each statement's program order if it has one."""
    import yaml

    statements = []
    for info in workload.statement_info.values():
        entry: dict[str, Any] = {"domain": _tidy(info.domain_text, isl.UnionSet)}
        if info.schedule_text is not None:
            entry["schedule"] = _tidy(info.schedule_text, isl.UnionMap)
        for side, key in (("read", "reads"), ("write", "writes")):
            texts: dict[str, list[str]] = {}
            for s, tensor, text, _ in info.accesses:
                if s == side:
                    texts.setdefault(tensor, []).append(_tidy(text, isl.UnionMap))
            if texts:
                entry[key] = {t: v[0] if len(v) == 1 else v for t, v in texts.items()}
        if info.accumulates:
            entry["accumulates"] = list(info.accumulates)
        statements.append(entry)
    data: dict[str, Any] = {"name": workload.name}
    if workload.params:
        data["params"] = dict(workload.params)
    data["statements"] = statements
    if workload.macs_per_instance != 1:
        data["macs_per_instance"] = workload.macs_per_instance
    if workload.shape_texts:
        data["shapes"] = {
            t: [int(d) if d.lstrip("-").isdigit() else d for d in dims]
            for t, dims in workload.shape_texts.items()
        }
    header = f"# written by 'tenet workload show --format yaml' from {workload.source}\n"
    return header + yaml.safe_dump(data, sort_keys=False, width=1000, default_flow_style=None)


def _tidy(text: str, kind: type) -> str:
    """isl's own printing of the text (parameters kept), e.g. `0 <= i < N`."""
    try:
        return str(kind(text))
    except isl.Error:
        return text
