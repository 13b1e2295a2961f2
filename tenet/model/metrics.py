"""The metrics of one dataflow, under the import path they have always had.

The code lives in three modules: `tenet.model.formulas` (the derived metrics of
docs/metrics.md, each written once), `tenet.model.results` (the typed results: `Volumes`,
`Analysis`, `Totals`, ...) and `tenet.model.counting` (counting with barvinok:
`count_volumes`, `tensor_volumes`, `analyze_bound`, `analyze`). This module re-exports
their public names, so `from tenet.model.metrics import Analysis, analyze` keeps working.
"""

from __future__ import annotations

from tenet.model.counting import (
    analyze,
    analyze_bound,
    count_volumes,
    crowded_stamps,
    links_for,
    tensor_volumes,
)
from tenet.model.formulas import (
    avg_active_pes,
    compute_delay,
    energy,
    fold,
    latency,
    overlapped_delay,
    per_cycle,
    ratio,
    reuse_factor,
    schedule_delay,
    transfer_delay,
    utilization,
)
from tenet.model.results import (
    SCHEDULE_TIME_KEYS,
    TENSOR_FIELDS,
    Accesses,
    Analysis,
    CostTotals,
    LevelTotal,
    ScheduleTotals,
    SideVolumes,
    Totals,
    Volumes,
    arch_constants,
)

__all__ = [
    "SCHEDULE_TIME_KEYS",
    "TENSOR_FIELDS",
    "Accesses",
    "Analysis",
    "CostTotals",
    "LevelTotal",
    "ScheduleTotals",
    "SideVolumes",
    "Totals",
    "Volumes",
    "analyze",
    "analyze_bound",
    "arch_constants",
    "avg_active_pes",
    "compute_delay",
    "count_volumes",
    "crowded_stamps",
    "energy",
    "fold",
    "latency",
    "links_for",
    "overlapped_delay",
    "per_cycle",
    "ratio",
    "reuse_factor",
    "schedule_delay",
    "tensor_volumes",
    "transfer_delay",
    "utilization",
]
