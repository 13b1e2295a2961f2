"""Any workload file: YAML (einsum or isl form), a C or a Python loop nest; and what
`tenet workload show` prints of one (statements, domains, accesses, exact counts)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

import islpy as isl

from tenet.errors import InputError
from tenet.formats.loopnest import is_loopnest, load_loopnest
from tenet.formats.presets import resolve_workload
from tenet.model.workload import SIDES, Workload, load_workload
from tenet.util.isl_util import count, maps_of


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
            "applies only to a C or Python loop nest (-w FILE.c or FILE.py)", option="function"
        )
    return load_workload(path, overrides)


def footprint(workload: Workload, tensor: str, side: str) -> int:
    """Distinct elements of `tensor` read (or written) by any statement: |A(D)| (barvinok).

    The statements' images are grouped where their first indices overlap: groups are
    disjoint, so their counts add up, and a loop of n statements each touching its own
    row costs n small counts instead of one count of an n-piece union."""
    return sum(
        count(_merged(group)) for group in _disjoint_groups(_images(workload, tensor, (side,)))
    )


def _images(workload: Workload, tensor: str, sides: tuple[str, ...]) -> list[isl.Set]:
    """The non-empty images A(D_S) of each statement's access to `tensor` on `sides`."""
    images = []
    for side in sides:
        rel = workload.access(tensor, side)
        if rel is not None:
            images += [m.range() for m in maps_of(rel)]
    return [image for image in images if not image.is_empty()]


def _span(image: isl.Set, dim: int) -> tuple[int, int]:
    """Integers lo <= hi with lo <= x_dim <= hi on the image (its rational bounds, widened)."""
    low = Fraction(str(image.dim_min_val(dim)))  # isl prints an integer or p/q
    high = Fraction(str(image.dim_max_val(dim)))
    return math.floor(low), math.ceil(high)


def _disjoint_groups(images: list[isl.Set]) -> list[list[isl.Set]]:
    """The images in groups whose first-index ranges do not overlap (so no two groups share
    an element); within a group, in order of their first index."""
    if not images or images[0].dim(isl.dim_type.set) == 0:
        return [images] if images else []
    spans = sorted(((*_span(image, 0), k) for k, image in enumerate(images)))
    groups: list[list[isl.Set]] = []
    reach = None
    for low, high, k in spans:
        if reach is None or low > reach:
            groups.append([])
            reach = high
        groups[-1].append(images[k])
        reach = max(reach, high)
    return groups


def _merged(images: list[isl.Set]) -> isl.Set:
    """The union of the images, two neighbours at a time, each union coalesced."""
    while len(images) > 1:
        pairs = [a.union(b).coalesce() for a, b in zip(images[::2], images[1::2])]
        images = pairs + ([images[-1]] if len(images) % 2 else [])
    return images[0]


def accessed_extent(workload: Workload, tensor: str) -> tuple[int, ...] | None:
    """One more than the largest index of each dimension that any statement touches; None
    when an index below 0 is touched, or when nothing is touched at these sizes."""
    images = _images(workload, tensor, SIDES)
    if not images:
        return None  # nothing touched at these sizes: no extent to read off
    extent = []
    for k in range(images[0].dim(isl.dim_type.set)):
        spans = [_span(image, k) for image in images]
        if min(low for low, _ in spans) < 0:
            return None
        extent.append(max(high for _, high in spans) + 1)
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


def workload_yaml(workload: Workload, written_by: str = "tenet's workload_yaml") -> str:
    """A workload YAML (isl form) that `load_workload` reads back to the same workload:
    parameters symbolic with their values, and each statement's program order if it has one;
    its first line, a comment, says it was `written_by` (the command line names its command)."""
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
    header = f"# written by {written_by} from {workload.source}\n"
    return header + yaml.safe_dump(data, sort_keys=False, width=1000, default_flow_style=None)


def _tidy(text: str, kind: type) -> str:
    """isl's own printing of the text (parameters kept), e.g. `0 <= i < N`."""
    try:
        tidy = kind(text)
        if tidy.is_empty() and kind is isl.UnionSet:  # keep the tuple: `{ S[i] : false }`
            return str(isl.Set(text))
        return str(tidy)
    except isl.Error:
        return text
