"""The old import path of the search's evaluator, kept for one release: the shared-work
counts are in `tenet.explore.candidate_counts`, the lower bounds for pruning in
`tenet.explore.prune` (`BoundBasis` is `FloorBasis`, `bound_values` is `lower_bounds`,
`signed_bounds` is `signed_floors`) and the worker's task in `tenet.explore.tasks`."""

from __future__ import annotations

from tenet.explore.candidate_counts import (
    SharedWork,
    StampRelations,
    Stamps,
    analyze_candidate,
    analyze_renamed,
    candidate_analysis,
    forget_shared_work,
    runs_in_order,
    shared_work,
    unique_volumes,
)
from tenet.explore.prune import Beaten, dominated
from tenet.explore.prune import FloorBasis as BoundBasis
from tenet.explore.prune import lower_bounds as bound_values
from tenet.explore.prune import signed_floors as signed_bounds
from tenet.explore.renaming import LoopRenaming
from tenet.explore.tasks import count_chunk, count_task, signed_values

__all__ = [
    "Beaten",
    "BoundBasis",
    "LoopRenaming",
    "SharedWork",
    "StampRelations",
    "Stamps",
    "analyze_candidate",
    "analyze_renamed",
    "bound_values",
    "candidate_analysis",
    "count_chunk",
    "count_task",
    "dominated",
    "forget_shared_work",
    "runs_in_order",
    "shared_work",
    "signed_bounds",
    "signed_values",
    "unique_volumes",
]
