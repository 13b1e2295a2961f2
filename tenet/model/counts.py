"""`Counts`: what one counting engine counts for one workload, arch and dataflow, before
any warning, level or cost is added. barvinok (`tenet.model.counting.analyze_bound`), the
brute-force enumeration (`tenet.analysis.simulate`) and the closed forms evaluated at one
size (`tenet.analysis.symbolic`) each return one; `tenet.model.assemble.assemble` turns it
into the `Analysis`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tenet.model.cost import AreaCounts, TensorActions
from tenet.model.hierarchy_time import HierarchyTime
from tenet.model.levels import LevelTraffic
from tenet.model.results import Volumes
from tenet.model.schedule_time import StepCounts, StepProfile


@dataclass(frozen=True)
class Counts:
    """The counts of one dataflow (Python ints; `volumes` per tensor and side, None for a
    side without accesses), and the facts the warnings need.

    `warnings_counted` is False when the engine did not look for the facts behind the
    warnings (PEs outside the array, crowded stamps, the links used): the closed forms do
    not derive them, and such Counts get no warnings. `actions` (per tensor) and `area`
    are what the cost prices (None: no cost); `dram_words` prices DRAM words on an arch
    without levels."""

    instances: int
    stamps: int  # |ST|
    active_pes: int
    time_steps: int
    volumes: Mapping[str, Mapping[str, Volumes | None]]
    used_links: frozenset[int] = frozenset()  # links that could serve some value
    outside_pes: int = 0  # used PEs outside the PE array
    outside_example: str = ""  # one of them, as isl text (e.g. 'PE[8, 0]')
    crowded: bool = False  # some (PE, step) holds more than macs_per_pe instances
    warnings_counted: bool = True
    step_counts: StepCounts | None = None  # the per-step numbers (None: not counted)
    profile: StepProfile | None = None  # in(t) and out(t) piece by piece
    levels: tuple[LevelTraffic, ...] = ()  # each memory level's traffic (docs/levels.md)
    hierarchy: HierarchyTime | None = None  # time through the levels
    actions: Mapping[str, TensorActions] | None = None  # the cost's action counts
    area: AreaCounts | None = None  # what the area model counts on the array
    dram_words: int | None = None
    exact_sums: bool = False  # closed forms: the Analysis adds its bandwidths exactly
    # (tensor, side) whose same-step groups could not be found exactly: TENET's count kept
    same_step_unresolved: tuple[tuple[str, str], ...] = ()
