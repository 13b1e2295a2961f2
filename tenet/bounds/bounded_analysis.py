"""`analyze --bound` as one typed result: an Analysis with the bounds beside it
(docs/metrics.md, "The bound block"): the Orojenesis figures at the dataflow's buffer and,
when its memory levels say how many words reach the backing store, those words against
the bounds (docs/levels.md, "Against the bounds")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tenet.bounds.capacity import CapacityBound, capacity_bound
from tenet.bounds.level_bound import DramBound, dram_bound
from tenet.model.arch import Arch
from tenet.model.metrics import Analysis
from tenet.model.workload import Workload


@dataclass(frozen=True)
class BoundedAnalysis:
    """One dataflow's Analysis and its `bound` block (the bounds at its buffer, and `dram`
    when a memory level just inside the outermost has a tile depth)."""

    analysis: Analysis
    bound: CapacityBound
    dram: DramBound | None = None

    @property
    def warnings(self) -> list[str]:
        return list(self.analysis.warnings)

    def to_dict(self) -> dict[str, Any]:
        """analyze's JSON with the `bound` object (its `dram` key when counted)."""
        out = self.analysis.to_dict()
        out["bound"] = self.bound.to_dict()
        if self.dram is not None:
            out["bound"]["dram"] = self.dram.to_dict()
        return out


def bounded_analysis(workload: Workload, arch: Arch, analysis: Analysis) -> BoundedAnalysis:
    """The Analysis with the bounds at the buffer it needs (`analyze --bound`)."""
    return BoundedAnalysis(
        analysis, capacity_bound(workload, arch, analysis), dram_bound(workload, analysis)
    )
