"""Space-time views of a small problem: which elements each PE touches at each step."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tenet.analysis.simulate import Enumeration, check_memory, check_size
from tenet.errors import InputError
from tenet.model.arch import Arch
from tenet.model.checks import warning_kind
from tenet.model.dataflow import Dataflow, bind_dataflow
from tenet.model.workload import Workload
from tenet.util.io import did_you_mean

DEFAULT_MAX_INSTANCES = 100_000


def _tuple(name: str, row: np.ndarray) -> str:
    return f"{name}[{', '.join(map(str, row.tolist()))}]"


@dataclass
class Trace:
    """Cells (step, PE) -> [(element, reused)], for the first steps and PEs."""

    tensor: str
    side: str
    steps: list[str]
    pes: list[str]
    cells: dict[tuple[int, int], list[tuple[str, bool]]]
    total_steps: int
    total_pes: int
    activity: np.ndarray  # instances per (PE, step), all PEs x all steps
    pe_count: int
    outside_pes: int = 0  # used PEs that are not PEs of the array
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "tensor": self.tensor,
            "side": self.side,
            "steps": self.steps,
            "pes": self.pes,
            "cells": [
                {
                    "time": self.steps[s],
                    "pe": self.pes[p],
                    "elements": [{"element": e, "reused": r} for e, r in items],
                }
                for (s, p), items in sorted(self.cells.items())
            ],
            "total_steps": self.total_steps,
            "total_pes": self.total_pes,
            "pe_count": self.pe_count,
            "outside_pes": self.outside_pes,
            "warnings": list(self.warnings),
            "warning_kinds": [warning_kind(w) for w in self.warnings],
        }


def trace(
    workload: Workload,
    arch: Arch,
    dataflow: Dataflow,
    tensor: str,
    side: str | None = None,
    max_steps: int = 16,
    max_pes: int = 16,
    max_instances: int = DEFAULT_MAX_INSTANCES,
) -> Trace:
    """Enumerate a small problem and tabulate one tensor's elements per PE and step."""
    if tensor not in workload.tensors:
        raise InputError(
            f"unknown tensor {tensor!r} ({did_you_mean(tensor, workload.tensors)}the workload "
            f"has: {', '.join(workload.tensors)})",
            option="tensor",
        )
    if side is None:
        side = "read" if workload.access(tensor, "read") is not None else "write"
    if workload.access(tensor, side) is None:
        raise InputError(f"tensor {tensor} has no {side} accesses", option="side")
    check_size(workload, max_instances)
    bound = bind_dataflow(dataflow, workload, arch)
    check_memory(workload, arch, bound)
    run = Enumeration(workload, arch, bound)
    use = run.side_use(tensor, side)
    reused = ~use.unique
    used_pes = run.used_pes
    shown_pes = used_pes[:max_pes]
    pe_column = {int(p): k for k, p in enumerate(shown_pes.tolist())}
    cells: dict[tuple[int, int], list[tuple[str, bool]]] = {}
    order = np.lexsort((use.element, use.pe, use.step))
    for k in order.tolist():
        step, pe = int(use.step[k]), int(use.pe[k])
        if step >= max_steps or pe not in pe_column:
            continue
        name = _tuple(tensor, use.elements[use.element[k]])
        cells.setdefault((step, pe_column[pe]), []).append((name, bool(reused[k])))
    time_name = bound.time_tuple[0] or "T"
    activity = np.zeros((len(run.pes), len(run.times)), dtype=np.int64)
    np.add.at(activity, (run.instance_pe, run.instance_step), 1)
    return Trace(
        tensor=tensor,
        side=side,
        steps=[_tuple(time_name, row) for row in run.times[:max_steps]],
        pes=[_tuple(arch.pe_tuple, run.pes[p]) for p in shown_pes.tolist()],
        cells=cells,
        total_steps=len(run.times),
        total_pes=len(used_pes),
        activity=activity[used_pes],
        pe_count=arch.pe_count,
        outside_pes=int(np.count_nonzero(~run.in_array[used_pes])),
        warnings=run.stamp_warnings(),
    )
