"""The objectives of design-space exploration: which number of an analysis each one reads, and
whether it is minimised or maximised. Light to import (the command line's `--help` lists them)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING

from tenet.errors import InputError
from tenet.util.io import did_you_mean

if TYPE_CHECKING:
    from tenet.model.metrics import Analysis


#: How to give an arch component costs, for the objectives that need them.
COST_HINT = (
    "give the arch a `technology:` node or `components:` energies and areas (docs/reference.md)"
)


def _cost(analysis: Analysis, objective: str):
    """The analysis's component cost (`Analysis.cost`); bad input when the arch has none."""
    cost = getattr(analysis, "cost", None)
    if cost is None:
        raise InputError(
            f"objective {objective!r} needs component costs, which arch "
            f"{analysis.arch!r} does not have: {COST_HINT}",
            "objectives",
        )
    return cost


def energy_pj(analysis: Analysis) -> float:
    """cost.energy_pj.total: the energy of the run in pJ."""
    return float(_cost(analysis, "energy_pj").energy_pj.total)


def hierarchy(analysis: Analysis) -> int:
    """delay.hierarchy: the schedule's cycles with every memory level's transfers
    (docs/levels.md); delay.schedule when no level has a tile depth (nothing above the
    scratchpad is timed)."""
    cycles = getattr(analysis, "hierarchy_delay", None)
    return analysis.schedule_delay if cycles is None else cycles


def edp(analysis: Analysis) -> float:
    """energy_pj × delay, in pJ·cycles: delay.hierarchy when memory levels are counted,
    else delay.latency."""
    cycles = getattr(analysis, "hierarchy_delay", None)
    delay = analysis.latency if cycles is None else cycles
    return float(_cost(analysis, "edp").energy_pj.total * delay)


def area(analysis: Analysis) -> float:
    """cost.area_um2.total: the design's area in µm²."""
    return float(_cost(analysis, "area").area_um2.total)


def dram_words(analysis: Analysis) -> int:
    """Words read from and written to the outermost memory level: `Analysis.dram_words()`,
    the reads + writes of the level just inside it, when that level has a tile depth.
    Fallback, when it has none (an arch without `levels:`, or a dataflow without that
    level's `tiles:`): the scratchpad traffic Σ unique, the words between levels[0] and the
    PEs."""
    for level in getattr(analysis, "levels", None) or []:  # as Analysis.dram_words()
        if getattr(level, "outermost_above", False):
            return level.reads + level.writes
    return analysis.scratchpad_traffic


@dataclass(frozen=True)
class Floors:
    """The lower bounds a generated candidate cannot beat, from the search's `FloorBasis`
    (`tenet.explore.prune.floors`): what every objective's `floor` reads. Upper bounds for
    the maximised ones (`active_pes`, `utilization`); None where there is no bound."""

    active_pes: int  # at most min(PEs its spatial loops can use, the array's PEs)
    time_steps: int  # ⌈instances / active PEs⌉ (one stamp per instance), or counted
    compute_cycles: int  # ⌊macs / active PEs⌋
    read_words: int  # Σ unique words of the read sides >= their first accesses
    write_words: int  # the same for the write sides
    ingress_cycles: int
    egress_cycles: int
    latency_cycles: int  # max(ingress, egress, compute)
    energy: float  # TENET's unitless energy with the fewest scratchpad words
    avg_latency_cycles: int
    utilization: float | None  # None when the latency bound is 0
    dram_words: int | None = None  # `tenet.explore.tiling.dram_floor`, when asked for
    energy_pj: float | None = None  # the energy every dataflow pays (`FloorBasis`), priced

    @property
    def edp(self) -> float | None:
        """energy_pj floor × the least delay edp can multiply it by (delay.hierarchy >=
        delay.schedule, or delay.latency without memory levels)."""
        if self.energy_pj is None:
            return None
        return self.energy_pj * min(self.latency_cycles, self.schedule_cycles)

    @property
    def traffic_words(self) -> int:
        """Σ unique >= the first accesses of every side."""
        return self.read_words + self.write_words

    @property
    def schedule_cycles(self) -> int:
        """delay.schedule >= steps + avg_latency - 1 (each step at least one cycle)."""
        return self.time_steps + self.avg_latency_cycles - 1


#: A lower bound of one objective from the `Floors` (None: no bound for this candidate).
Floor = Callable[[Floors], "int | float | None"]


@dataclass(frozen=True)
class Objective:
    """A metric of an `Analysis` that the search minimises (or maximises): its registry entry.

    `meaning` names the key of the `analyze` JSON that holds it and `json_value` reads it
    from that JSON; `unit` is shown in tables. `additive`: a network's value is Σ count ·
    (the layer's value). What it needs counted: component costs (`needs_cost`), the
    per-step numbers (`per_step`), the spatial reuse M_x (`spatial`), or the plain model
    `analyze` (`plain`: numbers the shared-work evaluator does not make). `floor`: its
    lower bound for pruning (upper bound when maximised), None when it has none."""

    name: str
    meaning: str
    value: Callable[[Analysis], int | float]
    maximize: bool = False
    unit: str = ""
    additive: bool = False
    needs_cost: bool = False
    per_step: bool = False
    spatial: bool = False
    plain: bool = False
    floor: Floor | None = None
    json_value: JsonValue | None = None

    def signed(self, value: float) -> float:
        """The value as the search compares it: smaller is better."""
        return -value if self.maximize else value


#: Reads an objective's number from the `analyze` JSON; `outermost` names the arch's outermost
#: memory level (the JSON's levels[] name the level above each, not which one is outermost).
JsonValue = Callable[[dict, "str | None"], "int | float"]


def _json_traffic(data: dict, outermost: str | None = None) -> int:
    """Σ unique over every tensor side of the analyze JSON."""
    return sum(
        side["unique"]
        for sides in data["tensors"].values()
        for side in sides.values()
        if side is not None
    )


def _json_dram(data: dict, outermost: str | None = None) -> int:
    """levels[]: reads + writes of the level whose `above` is the outermost level, else Σ
    unique."""
    for level in data.get("levels") or []:
        if outermost is not None and level["above"] == outermost:
            return level["reads"] + level["writes"]
    return _json_traffic(data)


def _json_edp(data: dict, outermost: str | None = None) -> float:
    """cost.energy_pj.total × delay.hierarchy (delay.latency without it)."""
    delay = data["delay"]
    return data["cost"]["energy_pj"]["total"] * delay.get("hierarchy", delay["latency"])


def _key(*path: str) -> JsonValue:
    """Reads data[path[0]][path[1]]... of the analyze JSON."""

    def read(data: dict, outermost: str | None = None) -> int | float:
        for part in path:
            data = data[part]
        return data

    return read


def _delay(name: str, getter: str, meaning: str | None = None, **more) -> Objective:
    """An additive delay in cycles, read at `delay.NAME` of the analyze JSON."""
    return Objective(
        name,
        meaning or f"delay.{name}",
        attrgetter(getter),
        unit="cycles",
        additive=True,
        json_value=_key("delay", name),
        **more,
    )


OBJECTIVES: dict[str, Objective] = {
    o.name: o
    for o in (
        _delay(
            "latency",
            "latency",
            "delay.latency: max(ingress, egress, compute)",
            floor=attrgetter("latency_cycles"),
        ),
        Objective(
            "energy",
            "energy: TENET's unitless model, MACs + L1 + L2 accesses weighted",
            attrgetter("energy"),
            unit="TENET, unitless",
            additive=True,
            floor=attrgetter("energy"),
            json_value=_key("energy"),
        ),
        Objective(
            "sbw",
            "bandwidth.sbw: scratchpad words per cycle",
            attrgetter("sbw"),
            unit="words/cycle",
            json_value=_key("bandwidth", "sbw"),
        ),
        Objective(
            "ibw",
            "bandwidth.ibw: interconnect words per cycle",
            attrgetter("ibw"),
            unit="words/cycle",
            spatial=True,
            json_value=_key("bandwidth", "ibw"),
        ),
        Objective(
            "traffic",
            "sum of unique: scratchpad words moved",
            attrgetter("scratchpad_traffic"),
            unit="words",
            additive=True,
            floor=attrgetter("traffic_words"),
            json_value=_json_traffic,
        ),
        _delay("ingress", "ingress_delay", floor=attrgetter("ingress_cycles")),
        _delay("egress", "egress_delay", floor=attrgetter("egress_cycles")),
        _delay("compute", "compute_delay", floor=attrgetter("compute_cycles")),
        Objective(
            "time_steps",
            "time_steps",
            attrgetter("time_steps"),
            unit="steps",
            additive=True,
            floor=attrgetter("time_steps"),
            json_value=_key("time_steps"),
        ),
        Objective(
            "steps",
            "delay.steps: time steps of the schedule",
            attrgetter("steps"),
            unit="steps",
            additive=True,
            floor=attrgetter("time_steps"),
            json_value=_key("delay", "steps"),
        ),
        _delay(
            "schedule",
            "schedule_delay",
            "delay.schedule: cycles when each step waits for its own words",
            per_step=True,
            floor=attrgetter("schedule_cycles"),
        ),
        Objective(
            "hierarchy",
            "delay.hierarchy: cycles through every memory level with a tile depth "
            "(delay.schedule without one)",
            hierarchy,
            unit="cycles",
            additive=True,
            per_step=True,
            plain=True,
            floor=attrgetter("schedule_cycles"),  # delay.hierarchy >= delay.schedule
            json_value=lambda data, outermost=None: data["delay"].get(
                "hierarchy", data["delay"]["schedule"]
            ),
        ),
        Objective(
            "peak_ingress",
            "bandwidth.peak_ingress: words read in the busiest step",
            attrgetter("peak_ingress"),
            unit="words/step",
            per_step=True,
            json_value=_key("bandwidth", "peak_ingress"),
        ),
        Objective(
            "utilization",
            "utilization (maximised)",
            attrgetter("utilization"),
            True,
            unit="fraction",
            floor=attrgetter("utilization"),
            json_value=_key("utilization"),
        ),
        Objective(
            "active_pes",
            "active_pes (maximised)",
            attrgetter("active_pes"),
            True,
            unit="PEs",
            floor=attrgetter("active_pes"),
            json_value=_key("active_pes"),
        ),
        Objective(
            "energy_pj",
            "cost.energy_pj.total: energy in pJ (needs component costs)",
            energy_pj,
            unit="pJ",
            additive=True,
            needs_cost=True,
            plain=True,
            json_value=_key("cost", "energy_pj", "total"),
            floor=attrgetter("energy_pj"),
        ),
        Objective(
            "edp",
            "energy-delay product: cost.energy_pj.total × delay.hierarchy (delay.latency "
            "without memory levels), in pJ·cycles (needs component costs)",
            edp,
            unit="pJ·cycles",
            needs_cost=True,
            per_step=True,
            plain=True,
            json_value=_json_edp,
            floor=attrgetter("edp"),
        ),
        Objective(
            "area",
            "cost.area_um2.total: area in µm² (needs component costs)",
            area,
            unit="µm²",
            needs_cost=True,
            plain=True,
            json_value=_key("cost", "area_um2", "total"),
        ),
        Objective(
            "dram",
            "words to and from the outermost memory level (levels[]: reads + writes of the "
            "level just inside it; without its tile depth: the scratchpad traffic)",
            dram_words,
            unit="words",
            additive=True,
            floor=attrgetter("dram_words"),
            json_value=_json_dram,
        ),
    )
}


def _named(test: Callable[[Objective], bool]) -> tuple[str, ...]:
    """The names of the registry's objectives that pass `test`, in registry order."""
    return tuple(name for name, objective in OBJECTIVES.items() if test(objective))


#: Objectives that read `Analysis.cost` (the arch must give component costs).
COST_OBJECTIVES = _named(lambda o: o.needs_cost)
#: Objectives whose network value is Σ count · (the layer's value): layers run one after another.
ADDITIVE_OBJECTIVES = _named(lambda o: o.additive)
#: Objectives that need the per-step numbers (schedule time).
PER_STEP_OBJECTIVES = _named(lambda o: o.per_step)
#: Objectives that read the spatial reuse (M_x) of the volumes.
SPATIAL_OBJECTIVES = _named(lambda o: o.spatial)
#: Objectives whose numbers only `analyze` gives (component costs, time through the levels).
PLAIN_OBJECTIVES = _named(lambda o: o.plain)
#: Objectives with a lower bound for pruning (`Objective.floor`).
PRUNABLE_OBJECTIVES = _named(lambda o: o.floor is not None)


#: The objectives of `dse` when none are given and the arch has no component costs.
DEFAULT_OBJECTIVES = ("latency", "energy")
#: The default when the arch prices its components: energy in pJ replaces the unitless model.
COST_DEFAULT_OBJECTIVES = ("latency", "energy_pj")


def default_objectives(arch: object) -> tuple[str, ...]:
    """Cost first: `latency,energy_pj` when the arch prices its components (`arch.components`
    set, e.g. by `--technology` or `--components`), else `latency,energy`."""
    if getattr(arch, "components", None) is not None:
        return COST_DEFAULT_OBJECTIVES
    return DEFAULT_OBJECTIVES


def parse_objectives(text: str | Sequence[str]) -> tuple[str, ...]:
    """Objective names from `latency,energy` (or a list); unknown or repeated names are errors."""
    names = [n.strip() for n in text.split(",")] if isinstance(text, str) else list(text)
    names = [n for n in names if n]
    if not names:
        raise InputError(
            "expected comma-separated objective names, e.g. latency,energy", "objectives"
        )
    for name in names:
        if name not in OBJECTIVES:
            raise InputError(
                f"unknown objective {name!r} ({did_you_mean(name, OBJECTIVES)}known: "
                f"{', '.join(OBJECTIVES)})",
                "objectives",
            )
    if len(set(names)) != len(names):
        raise InputError("an objective is named twice", "objectives")
    return tuple(names)


def objective_help() -> str:
    """One line per objective name and the analyze key it reads, for `--help`."""
    return "; ".join(f"{o.name} = {o.meaning}" for o in OBJECTIVES.values())
