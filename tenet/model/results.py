"""The typed results of counting: `Volumes` per tensor side, `Analysis` of one dataflow,
and the sums over runs (`Totals`, `SideVolumes`, `Accesses`, `ScheduleTotals`,
`CostTotals`, `LevelTotal`). Derived metrics are properties built from
`tenet.model.formulas`; `to_dict()` gives the JSON of docs/reference.md."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from tenet.model.arch import Arch
from tenet.model.checks import warning_kind, with_kinds
from tenet.model.cost import AreaParts, Cost, EnergyParts, rebuild_cost
from tenet.model.fieldwise import Fieldwise
from tenet.model.formulas import (
    avg_active_pes,
    compute_delay,
    energy,
    hierarchy_delay,
    latency,
    overlapped_delay,
    per_cycle,
    ratio,
    reuse_factor,
    schedule_delay,
    transfer_delay,
    utilization,
)
from tenet.model.hierarchy_time import HierarchyTime, LevelTime
from tenet.model.levels import LevelTraffic, levels_dram_words, levels_from_dict
from tenet.model.schedule_time import StepCounts, StepProfile
from tenet.model.workload import SIDES

#: The fields of one tensor side in analyze's JSON, in order.
TENSOR_FIELDS = (
    "total",
    "unique",
    "reuse",
    "temporal_reuse",
    "spatial_reuse",
    "reuse_factor",
    "ibw",
    "sbw",
)

#: The dotted keys of analyze's JSON that follow the schedule step by step (docs/metrics.md,
#: "Schedule time"); `analyze --symbolic` does not give them.
SCHEDULE_TIME_KEYS = (
    "delay.steps",
    "delay.schedule",
    "delay.overlapped",
    "utilization_schedule",
    "bandwidth.peak_ingress",
    "bandwidth.peak_egress",
    "bandwidth.avg_ingress",
    "bandwidth.avg_egress",
)


@dataclass(frozen=True)
class Accesses(Fieldwise):
    """L1 and L2 traffic of a tensor (or a sum of them), in words."""

    l1_reads: Any
    l1_writes: Any
    l2_reads: Any
    l2_writes: Any

    @classmethod
    def of(cls, sides: Iterable[Volumes], zero: Any = 0) -> Accesses:
        """As the definition charges a tensor whatever its sides: L1 reads = L1 writes =
        Σ_sides total, L2 reads = L2 writes = Σ_sides unique."""
        total = unique = zero
        for v in sides:
            total = total + v.total
            unique = unique + v.unique
        return cls(total, total, unique, unique)


@dataclass(frozen=True)
class Volumes:
    """Per tensor and side (semantics.md, "Per-tensor volumes")."""

    total: int
    unique: int
    temporal_unique: int  # |A_D \ (M_t ; A_D)|
    spatial_reuse: int
    carried: dict[int, int] = field(default_factory=dict)  # link index -> values it serves
    # write sides: partial sums read back from the scratchpad, exits − distinct elements
    # (docs/energy.md); None: not counted
    read_back: int | None = None

    @property
    def reuse(self) -> int:
        return self.total - self.unique

    @property
    def temporal_reuse(self) -> int:
        return self.total - self.temporal_unique

    @property
    def reuse_factor(self) -> float | None:
        return reuse_factor(self.total, self.unique)


@dataclass(frozen=True)
class Analysis:
    """Every count of one workload + arch + dataflow; derived metrics are properties.
    `tenet.model.assemble.assemble` builds it from an engine's counts; `to_dict()` is the
    JSON of `tenet analyze`, `from_dict()` reads it back. It is not changed once built."""

    workload: str
    arch: str
    dataflow: str
    instances: int
    macs: int
    pe_count: int
    active_pes: int
    time_steps: int
    stamps: int  # |ST|
    volumes: dict[str, dict[str, Volumes | None]]
    word_bits: int
    bandwidth_bits: int
    avg_latency: int
    energy_constants: tuple[Fraction, Fraction, Fraction]
    warnings: list[str] = field(default_factory=list)
    links: list[tuple[str, str, tuple[int, ...]]] = field(
        default_factory=list
    )  # name, kind, window
    step_counts: StepCounts | None = None  # the per-step numbers (None: not counted)
    profile: StepProfile | None = None  # in(t) and out(t) piece by piece (analyze --profile)
    cost: Cost | None = None  # energy in pJ and area in µm² (docs/energy.md)
    levels: list[LevelTraffic] = field(default_factory=list)  # docs/levels.md
    hierarchy: HierarchyTime | None = None  # time through the levels (docs/levels.md)
    # the bandwidth sums added exactly, rounded once (counts from closed forms: `symbolic`)
    exact_sums: bool = field(default=False, compare=False)

    @property
    def hierarchy_delay(self) -> int | None:
        """delay.hierarchy: Σ_U s(U) + prologues + epilogues + avg_latency − 1; None when
        no level has a tile depth (or the per-step numbers were not counted)."""
        if self.hierarchy is None:
            return None
        return hierarchy_delay(self.hierarchy.cycles, self.avg_latency)

    def level_dicts(self) -> list[dict[str, Any]]:
        """`levels` of the JSON: each level's traffic, with its transfer cycles when the
        time through the hierarchy was counted."""
        times = {} if self.hierarchy is None else {t.name: t for t in self.hierarchy.levels}
        out = []
        for level in self.levels:
            entry = level.to_dict()
            if level.name in times:
                entry.update(times[level.name].to_dict())
            out.append(entry)
        return out

    def dram_words(self) -> int | None:
        """Words crossing into the outermost memory level (reads + writes of the level just
        inside it, docs/levels.md); None when that level has no tile depth."""
        return levels_dram_words(self.levels)

    def side_volumes(self) -> Iterator[tuple[str, str, Volumes]]:
        """(tensor, side, volumes) of every side with accesses, in JSON order."""
        for tensor, sides in self.volumes.items():
            for side in SIDES:
                if sides[side] is not None:
                    yield tensor, side, sides[side]

    def unique_words(self, side: str) -> int:
        """Σ over the tensors of the unique volume of one side (`read` or `write`)."""
        return sum(v[side].unique for v in self.volumes.values() if v[side] is not None)

    @property
    def avg_active_pes(self) -> float:
        return avg_active_pes(self.stamps, self.time_steps)

    @property
    def compute_delay(self) -> int:
        return compute_delay(self.macs, self.active_pes)

    @property
    def ingress_delay(self) -> int:
        return transfer_delay(
            self.unique_words("read"), self.word_bits, self.bandwidth_bits, self.avg_latency
        )

    @property
    def egress_delay(self) -> int:
        return transfer_delay(
            self.unique_words("write"), self.word_bits, self.bandwidth_bits, self.avg_latency
        )

    @property
    def latency(self) -> int:
        return latency(self.ingress_delay, self.egress_delay, self.compute_delay)

    @property
    def utilization(self) -> float:
        return utilization(self.macs, self.pe_count, self.latency)

    # The schedule-time numbers (docs/metrics.md, "Schedule time").

    @property
    def steps(self) -> int:
        """delay.steps = |T_used| (the same number as time_steps)."""
        return self.time_steps

    def _steps_counted(self) -> StepCounts:
        if self.step_counts is None:
            raise ValueError(f"the per-step numbers of {self.dataflow!r} were not counted")
        return self.step_counts

    @property
    def schedule_delay(self) -> int:
        return schedule_delay(self._steps_counted().step_cycles, self.avg_latency)

    @property
    def overlapped_delay(self) -> int:
        return overlapped_delay(self.time_steps, self.ingress_delay, self.egress_delay)

    @property
    def utilization_schedule(self) -> float:
        return utilization(self.macs, self.pe_count, self.schedule_delay)

    @property
    def peak_ingress(self) -> int:
        return self._steps_counted().peak_ingress

    @property
    def peak_egress(self) -> int:
        return self._steps_counted().peak_egress

    @property
    def avg_ingress(self) -> float:
        """Σ_t in(t) / steps = Σ_read sides unique / time_steps."""
        return ratio(self.unique_words("read"), self.time_steps)

    @property
    def avg_egress(self) -> float:
        """Σ_t out(t) / steps = Σ_write sides unique / time_steps."""
        return ratio(self.unique_words("write"), self.time_steps)

    def accesses(self, tensor: str) -> Accesses:
        """L1 and L2 reads and writes of one tensor."""
        return Accesses.of(v for v in self.volumes[tensor].values() if v is not None)

    @property
    def energy_exact(self) -> Fraction:
        return energy(self.macs, map(self.accesses, self.volumes), self.energy_constants)

    @property
    def energy(self) -> float:
        return float(self.energy_exact)

    def _bandwidth_sum(self, words: Callable[[Volumes], int]) -> float:
        """Σ over tensors and sides of per_cycle(words), added as floats in JSON order; with
        `exact_sums`, added exactly and rounded once (as the closed forms do)."""
        compute = self.compute_delay
        if self.exact_sums:
            exact = Fraction(0)
            for _, _, v in self.side_volumes():
                exact += per_cycle(Fraction(words(v)), compute)
            return float(exact)
        out = 0.0
        for _, _, v in self.side_volumes():
            out += per_cycle(words(v), compute)
        return out

    @property
    def ibw(self) -> float:
        """Interconnect bandwidth: Σ of every side's IBW."""
        return self._bandwidth_sum(lambda v: v.spatial_reuse)

    @property
    def sbw(self) -> float:
        """Scratchpad bandwidth: Σ of every side's SBW."""
        return self._bandwidth_sum(lambda v: v.unique)

    @property
    def scratchpad_traffic(self) -> int:
        """Σ over tensors and sides of unique: words moved between scratchpad and PEs."""
        return sum(v.unique for _, _, v in self.side_volumes())

    def link_traffic(self) -> list[dict[str, Any]]:
        """Per interconnect entry: values it serves per tensor and side, and per step.

        A value is served by the PE's own previous step first, then by the links in
        the arch's order, so the values of all links plus temporal reuse equal the reuse.
        """
        out = []
        for n, (name, kind, window) in enumerate(self.links):
            values = {
                tensor: {side: v.carried.get(n, 0) for side, v in sides.items() if v is not None}
                for tensor, sides in self.volumes.items()
            }
            total = sum(x for sides in values.values() for x in sides.values())
            out.append(
                {
                    "name": name,
                    "kind": kind,
                    "window": list(window),
                    "values": values,
                    "total": total,
                    "per_step": per_cycle(total, self.compute_delay),
                }
            )
        return out

    def to_dict(self) -> dict[str, Any]:
        """The contract's JSON object (plus `accesses`, `bandwidth` and `warnings`)."""
        compute = self.compute_delay
        tensors: dict[str, Any] = {}
        for tensor, sides in self.volumes.items():
            tensors[tensor] = {}
            for side in SIDES:
                v = sides[side]
                tensors[tensor][side] = (
                    None
                    if v is None
                    else {
                        "total": v.total,
                        "unique": v.unique,
                        "reuse": v.reuse,
                        "temporal_reuse": v.temporal_reuse,
                        "spatial_reuse": v.spatial_reuse,
                        "reuse_factor": v.reuse_factor,
                        "ibw": per_cycle(v.spatial_reuse, compute),
                        "sbw": per_cycle(v.unique, compute),
                        **({} if v.read_back is None else {"read_back": v.read_back}),
                    }
                )
        delay = {
            "ingress": self.ingress_delay,
            "egress": self.egress_delay,
            "compute": compute,
            "latency": self.latency,
        }
        bandwidth = {"ibw": self.ibw, "sbw": self.sbw}
        schedule: dict[str, Any] = {}
        if self.step_counts is not None:
            delay.update(
                steps=self.steps, schedule=self.schedule_delay, overlapped=self.overlapped_delay
            )
            schedule = {"utilization_schedule": self.utilization_schedule}
            if self.hierarchy is not None:
                delay.update(hierarchy=self.hierarchy_delay, bound_by=self.hierarchy.bound_by)
            bandwidth.update(
                peak_ingress=self.peak_ingress,
                peak_egress=self.peak_egress,
                avg_ingress=self.avg_ingress,
                avg_egress=self.avg_egress,
            )
        return {
            "workload": self.workload,
            "arch": self.arch,
            "dataflow": self.dataflow,
            "instances": self.instances,
            "macs": self.macs,
            "pe_count": self.pe_count,
            "active_pes": self.active_pes,
            "avg_active_pes": self.avg_active_pes,
            "time_steps": self.time_steps,
            "utilization": self.utilization,
            "delay": delay,
            **schedule,
            "energy": self.energy,
            "tensors": tensors,
            "accesses": {tensor: self.accesses(tensor).to_dict() for tensor in self.volumes},
            "links": self.link_traffic(),
            "bandwidth": bandwidth,
            "warnings": list(self.warnings),
            "warning_kinds": [warning_kind(w) for w in self.warnings],
            **({} if self.profile is None else {"profile": self.profile.to_dict()}),
            **({} if self.cost is None else {"cost": self.cost.to_dict()}),
            **({"levels": self.level_dicts()} if self.levels else {}),
        }

    @classmethod
    def from_dict(
        cls,
        data: Mapping[str, Any],
        arch: Arch,
        stamps: int | None = None,
        exact_cost: Mapping[str, Any] | None = None,
    ) -> Analysis:
        """The Analysis whose `to_dict()` is `data` (a journalled result), counted on `arch`.

        `stamps` (|ST|) is not in the JSON: without it, the integer nearest avg_active_pes ×
        time_steps (exact below 2**52 stamps). ValueError when the delays or the energy of
        `data` do not follow from its counts and the arch's memory and energy constants.
        The JSON's `cost` gives its lengths as floats, so the cost is rebuilt only from
        `exact_cost` (`Cost.to_exact()`, journalled beside the JSON) and the components of
        `arch`; ValueError when that cost's JSON differs from `data["cost"]`. Without
        `exact_cost` the Analysis has no cost.
        """
        links = data["links"]
        volumes = {
            tensor: {
                side: None
                if v is None
                else Volumes(
                    total=v["total"],
                    unique=v["unique"],
                    temporal_unique=v["total"] - v["temporal_reuse"],
                    spatial_reuse=v["spatial_reuse"],
                    carried={n: link["values"][tensor][side] for n, link in enumerate(links)},
                    read_back=v.get("read_back"),
                )
                for side, v in sides.items()
            }
            for tensor, sides in data["tensors"].items()
        }
        if stamps is None:
            stamps = round(Fraction(data["avg_active_pes"]) * data["time_steps"])
        counted = None
        if "schedule" in data["delay"]:
            counted = StepCounts(
                peak_ingress=data["bandwidth"]["peak_ingress"],
                peak_egress=data["bandwidth"]["peak_egress"],
                step_cycles=data["delay"]["schedule"] - arch.memory.avg_latency + 1,
            )
        levels = levels_from_dict(data.get("levels", []), arch)
        macs = data["macs"]
        cost = None
        if exact_cost is not None and "cost" in data:
            cost = rebuild_cost(exact_cost, macs, arch, levels)
        analysis = cls(
            workload=data["workload"],
            arch=data["arch"],
            dataflow=data["dataflow"],
            instances=data["instances"],
            macs=macs,
            pe_count=data["pe_count"],
            active_pes=data["active_pes"],
            time_steps=data["time_steps"],
            stamps=stamps,
            volumes=volumes,
            **arch_constants(arch),
            warnings=with_kinds(data["warnings"], data.get("warning_kinds")),
            step_counts=counted,
            cost=cost,
            levels=levels,
            hierarchy=hierarchy_from_dict(data, arch.memory.avg_latency),
        )
        if analysis.to_dict()["delay"] != data["delay"] or analysis.energy != data["energy"]:
            raise ValueError(
                f"the delays and energy of {data['dataflow']!r} do not follow from its counts "
                f"and the memory and energy constants of arch {arch.name!r}"
            )
        if cost is not None and cost.to_dict() != data["cost"]:
            raise ValueError(
                f"the cost of {data['dataflow']!r} does not follow from its action counts "
                f"and the components of arch {arch.name!r}"
            )
        return analysis


def hierarchy_from_dict(data: Mapping[str, Any], avg_latency: int) -> HierarchyTime | None:
    """The HierarchyTime of an analysis' JSON (`delay.hierarchy`, `delay.bound_by` and each
    level's transfer cycles); None when it has none. What was sliced is not in the JSON."""
    delay = data["delay"]
    if "hierarchy" not in delay:
        return None
    levels = tuple(
        LevelTime(
            entry["name"],
            entry["fill_cycles"],
            entry["drain_cycles"],
            entry["double_buffered"],
            entry["stall_cycles"],
        )
        for entry in data.get("levels", [])
        if "fill_cycles" in entry
    )
    return HierarchyTime(delay["hierarchy"] - avg_latency + 1, delay["bound_by"], levels)


@dataclass(frozen=True)
class SideVolumes(Fieldwise):
    """The additive volumes of one access side, summed over tensors (and runs)."""

    total: int = 0
    unique: int = 0
    reuse: int = 0
    temporal_reuse: int = 0
    spatial_reuse: int = 0

    @classmethod
    def of(cls, v: Volumes) -> SideVolumes:
        return cls(v.total, v.unique, v.reuse, v.temporal_reuse, v.spatial_reuse)


@dataclass(frozen=True)
class CostTotals:
    """The physical cost of runs one after another on one design: the energy parts add
    up; the area is the design's, the same for every run, so it is taken once (None only
    in the total of no runs). Per-tensor energies are not summed: tensor names differ
    between workloads."""

    energy_pj: EnergyParts = field(default_factory=EnergyParts)
    area_um2: AreaParts | None = None

    @classmethod
    def of(cls, cost: Cost) -> CostTotals:
        return cls(cost.energy_pj, cost.area_um2)

    def __add__(self, other: CostTotals) -> CostTotals:
        if None not in (self.area_um2, other.area_um2) and self.area_um2 != other.area_um2:
            raise ValueError("runs on designs of different areas do not add up to one total")
        return CostTotals(
            self.energy_pj + other.energy_pj,
            self.area_um2 if self.area_um2 is not None else other.area_um2,
        )

    def __rmul__(self, count: int) -> CostTotals:
        return CostTotals(count * self.energy_pj, self.area_um2)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"energy_pj": self.energy_pj.to_dict()}
        if self.area_um2 is not None:
            out["area_um2"] = self.area_um2.to_dict()
        return out


@dataclass(frozen=True)
class LevelTotal:
    """One memory level's traffic over runs one after another: reads, writes and tiles
    add up, capacity_needed is the largest (the level must hold the biggest tile of any
    run), capacity is the level's."""

    name: str
    above: str
    tiles: int
    capacity_needed: int
    capacity_exact: bool
    capacity: int
    reads: int
    writes: int
    word_bits: int
    bandwidth_gbps: float  # of the level above

    @classmethod
    def of(cls, level: LevelTraffic) -> LevelTotal:
        return cls(
            level.name,
            level.above,
            level.tiles,
            level.capacity_needed,
            level.capacity_exact,
            level.capacity,
            level.reads,
            level.writes,
            level.word_bits,
            level.bandwidth_gbps,
        )

    def __add__(self, other: LevelTotal) -> LevelTotal:
        return LevelTotal(
            self.name,
            self.above,
            self.tiles + other.tiles,
            max(self.capacity_needed, other.capacity_needed),
            self.capacity_exact and other.capacity_exact,
            self.capacity,
            self.reads + other.reads,
            self.writes + other.writes,
            self.word_bits,
            self.bandwidth_gbps,
        )

    def __rmul__(self, count: int) -> LevelTotal:
        return LevelTotal(
            self.name,
            self.above,
            count * self.tiles,
            self.capacity_needed,
            self.capacity_exact,
            self.capacity,
            count * self.reads,
            count * self.writes,
            self.word_bits,
            self.bandwidth_gbps,
        )

    def traffic(self) -> LevelTraffic:
        """These totals as one LevelTraffic (its reads and writes under one tensor '*'),
        so that `fits`, `transfer_ns` and the JSON follow LevelTraffic's formulas."""
        return LevelTraffic(
            name=self.name,
            above=self.above,
            tile_depth=0,
            tiles=self.tiles,
            capacity_needed=self.capacity_needed,
            capacity=self.capacity,
            tensors={"*": (self.reads, self.writes)},
            word_bits=self.word_bits,
            bandwidth_gbps=self.bandwidth_gbps,
            capacity_exact=self.capacity_exact,
        )

    @property
    def fits(self) -> bool:
        """capacity_needed <= capacity (`LevelTraffic.fits`)."""
        return self.traffic().fits

    @property
    def transfer_ns(self) -> float:
        """(reads + writes) · word_bits / 8 bytes at the level above's GB/s
        (`LevelTraffic.transfer_ns`)."""
        return self.traffic().transfer_ns

    def to_dict(self) -> dict[str, Any]:
        """LevelTraffic's JSON of these totals, the keys of LEVEL_TOTAL_KEYS."""
        data = self.traffic().to_dict()
        return {key: data[key] for key in LEVEL_TOTAL_KEYS}


#: The keys of a level in the `total` of `analyze -n`'s JSON, in order.
LEVEL_TOTAL_KEYS = (
    "name",
    "above",
    "tiles",
    "capacity_needed",
    "capacity_exact",
    "capacity",
    "fits",
    "reads",
    "writes",
    "transfer_ns",
)


def _add_levels(
    a: tuple[LevelTotal, ...] | None, b: tuple[LevelTotal, ...] | None
) -> tuple[LevelTotal, ...] | None:
    """Level totals of two sets of runs: () is no runs; None when some run has no levels
    or the two have different levels (names and the level above)."""
    if a is None or b is None:
        return None
    if not a or not b:
        return a or b
    if [(x.name, x.above) for x in a] != [(x.name, x.above) for x in b]:
        return None
    return tuple(x + y for x, y in zip(a, b))


@dataclass(frozen=True)
class Totals:
    """Runs executed one after another on one array (a network's layers): `a + b` is both,
    `n * a` is `a` n times. Counts, delays, volumes, accesses and energy add up; active_pes
    is the largest; the ratios are recomputed from the sums (docs/networks.md). The schedule
    delays add up and the peak words per step are the largest, when every run has them
    (`schedule` is None otherwise). `cost` (energy parts summed, the area taken once) and
    `levels` (per memory level) likewise exist only when every run has them: () is the
    levels of no runs, None that some run has none or the runs have different levels."""

    pe_count: int
    layers: int = 0
    instances: int = 0
    macs: int = 0
    active_pes: int = 0
    time_steps: int = 0
    stamps: int = 0
    ingress_delay: int = 0
    egress_delay: int = 0
    compute_delay: int = 0
    latency: int = 0
    volumes: Mapping[str, SideVolumes] = field(
        default_factory=lambda: {side: SideVolumes() for side in SIDES}
    )
    accesses: Accesses = Accesses(0, 0, 0, 0)
    energy_exact: Fraction = Fraction(0)
    schedule: ScheduleTotals | None = field(default_factory=lambda: ScheduleTotals(0, 0, 0, 0))
    cost: CostTotals | None = field(default_factory=CostTotals)
    levels: tuple[LevelTotal, ...] | None = ()
    hierarchy: int | None = 0  # Σ delay.hierarchy; None when some run has none

    @classmethod
    def of(cls, analysis: Analysis) -> Totals:
        """One run of an analysis."""
        volumes = {side: SideVolumes() for side in SIDES}
        accesses = Accesses(0, 0, 0, 0)
        for _, side, v in analysis.side_volumes():
            volumes[side] = volumes[side] + SideVolumes.of(v)
        for tensor in analysis.volumes:
            accesses = accesses + analysis.accesses(tensor)
        return cls(
            pe_count=analysis.pe_count,
            layers=1,
            instances=analysis.instances,
            macs=analysis.macs,
            active_pes=analysis.active_pes,
            time_steps=analysis.time_steps,
            stamps=analysis.stamps,
            ingress_delay=analysis.ingress_delay,
            egress_delay=analysis.egress_delay,
            compute_delay=analysis.compute_delay,
            latency=analysis.latency,
            volumes=volumes,
            accesses=accesses,
            energy_exact=analysis.energy_exact,
            schedule=ScheduleTotals.of(analysis) if analysis.step_counts is not None else None,
            cost=None if analysis.cost is None else CostTotals.of(analysis.cost),
            levels=tuple(map(LevelTotal.of, analysis.levels)) if analysis.levels else None,
            hierarchy=analysis.hierarchy_delay,
        )

    def __add__(self, other: Any) -> Totals:
        if not isinstance(other, Totals):
            return NotImplemented
        if other.pe_count != self.pe_count:
            raise ValueError(
                f"runs on {self.pe_count} and {other.pe_count} PEs do not add up to one total"
            )
        return Totals(
            pe_count=self.pe_count,
            layers=self.layers + other.layers,
            instances=self.instances + other.instances,
            macs=self.macs + other.macs,
            active_pes=max(self.active_pes, other.active_pes),
            time_steps=self.time_steps + other.time_steps,
            stamps=self.stamps + other.stamps,
            ingress_delay=self.ingress_delay + other.ingress_delay,
            egress_delay=self.egress_delay + other.egress_delay,
            compute_delay=self.compute_delay + other.compute_delay,
            latency=self.latency + other.latency,
            volumes={side: self.volumes[side] + other.volumes[side] for side in SIDES},
            accesses=self.accesses + other.accesses,
            energy_exact=self.energy_exact + other.energy_exact,
            schedule=(
                self.schedule + other.schedule
                if self.schedule is not None and other.schedule is not None
                else None
            ),
            cost=(
                self.cost + other.cost if self.cost is not None and other.cost is not None else None
            ),
            levels=_add_levels(self.levels, other.levels),
            hierarchy=(
                self.hierarchy + other.hierarchy
                if self.hierarchy is not None and other.hierarchy is not None
                else None
            ),
        )

    def __rmul__(self, count: int) -> Totals:
        return Totals(
            pe_count=self.pe_count,
            layers=count * self.layers,
            instances=count * self.instances,
            macs=count * self.macs,
            active_pes=self.active_pes,
            time_steps=count * self.time_steps,
            stamps=count * self.stamps,
            ingress_delay=count * self.ingress_delay,
            egress_delay=count * self.egress_delay,
            compute_delay=count * self.compute_delay,
            latency=count * self.latency,
            volumes={side: count * self.volumes[side] for side in SIDES},
            accesses=count * self.accesses,
            energy_exact=count * self.energy_exact,
            schedule=count * self.schedule if self.schedule is not None else None,
            cost=count * self.cost if self.cost is not None else None,
            levels=None if self.levels is None else tuple(count * x for x in self.levels),
            hierarchy=None if self.hierarchy is None else count * self.hierarchy,
        )

    @property
    def avg_active_pes(self) -> float:
        return avg_active_pes(self.stamps, self.time_steps)

    @property
    def utilization(self) -> float:
        return utilization(self.macs, self.pe_count, self.latency)

    @property
    def energy(self) -> float:
        return float(self.energy_exact)

    @property
    def ibw(self) -> float:
        """Σ spatial reuse / Σ compute delay."""
        words = sum(v.spatial_reuse for v in self.volumes.values())
        return per_cycle(words, self.compute_delay)

    @property
    def sbw(self) -> float:
        """Σ unique / Σ compute delay."""
        return per_cycle(sum(v.unique for v in self.volumes.values()), self.compute_delay)

    def to_dict(self) -> dict[str, Any]:
        """The `total` object of `tenet analyze -n`'s JSON."""
        out = {
            "layers": self.layers,
            "instances": self.instances,
            "macs": self.macs,
            "pe_count": self.pe_count,
            "active_pes": self.active_pes,
            "time_steps": self.time_steps,
            "stamps": self.stamps,
            "delay": {
                "ingress": self.ingress_delay,
                "egress": self.egress_delay,
                "compute": self.compute_delay,
                "latency": self.latency,
            },
            "volumes": {side: self.volumes[side].to_dict() for side in SIDES},
            "accesses": self.accesses.to_dict(),
            "avg_active_pes": self.avg_active_pes,
            "utilization": self.utilization,
            "energy": self.energy,
            "bandwidth": {"ibw": self.ibw, "sbw": self.sbw},
        }
        if self.schedule is not None:
            out["delay"].update(
                steps=self.time_steps,
                schedule=self.schedule.schedule,
                overlapped=self.schedule.overlapped,
            )
            out["utilization_schedule"] = utilization(
                self.macs, self.pe_count, self.schedule.schedule
            )
            out["bandwidth"].update(
                peak_ingress=self.schedule.peak_ingress, peak_egress=self.schedule.peak_egress
            )
            if self.hierarchy is not None and self.layers:
                out["delay"]["hierarchy"] = self.hierarchy
        if self.cost is not None and self.layers:
            out["cost"] = self.cost.to_dict()
        if self.levels:
            out["levels"] = [level.to_dict() for level in self.levels]
        return out


@dataclass(frozen=True)
class ScheduleTotals:
    """Schedule time of runs one after another: delays add, peaks are the largest."""

    schedule: int
    overlapped: int
    peak_ingress: int
    peak_egress: int

    @classmethod
    def of(cls, analysis: Analysis) -> ScheduleTotals:
        return cls(
            analysis.schedule_delay,
            analysis.overlapped_delay,
            analysis.peak_ingress,
            analysis.peak_egress,
        )

    def __add__(self, other: ScheduleTotals) -> ScheduleTotals:
        return ScheduleTotals(
            self.schedule + other.schedule,
            self.overlapped + other.overlapped,
            max(self.peak_ingress, other.peak_ingress),
            max(self.peak_egress, other.peak_egress),
        )

    def __rmul__(self, count: int) -> ScheduleTotals:
        return ScheduleTotals(
            count * self.schedule, count * self.overlapped, self.peak_ingress, self.peak_egress
        )


def arch_constants(arch: Arch) -> dict[str, Any]:
    """The fields of an Analysis that come straight from the arch."""
    return {
        "word_bits": arch.memory.word_bits,
        "bandwidth_bits": arch.memory.bandwidth_bits,
        "avg_latency": arch.memory.avg_latency,
        "energy_constants": (arch.energy.mac, arch.energy.l1, arch.energy.l2),
        "links": [(link.label, link.kind, link.window) for link in arch.links],
    }
