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
class Objective:
    """A metric of an `Analysis` that the search minimises (or maximises); `meaning` names
    the key of the `analyze` JSON that holds it."""

    name: str
    meaning: str
    value: Callable[[Analysis], int | float]
    maximize: bool = False


OBJECTIVES: dict[str, Objective] = {
    o.name: o
    for o in (
        Objective("latency", "delay.latency: max(ingress, egress, compute)", attrgetter("latency")),
        Objective(
            "energy",
            "energy: TENET's unitless model, MACs + L1 + L2 accesses weighted",
            attrgetter("energy"),
        ),
        Objective("sbw", "bandwidth.sbw: scratchpad words per cycle", attrgetter("sbw")),
        Objective("ibw", "bandwidth.ibw: interconnect words per cycle", attrgetter("ibw")),
        Objective(
            "traffic", "sum of unique: scratchpad words moved", attrgetter("scratchpad_traffic")
        ),
        Objective("ingress", "delay.ingress", attrgetter("ingress_delay")),
        Objective("egress", "delay.egress", attrgetter("egress_delay")),
        Objective("compute", "delay.compute", attrgetter("compute_delay")),
        Objective("time_steps", "time_steps", attrgetter("time_steps")),
        Objective("steps", "delay.steps: time steps of the schedule", attrgetter("steps")),
        Objective(
            "schedule",
            "delay.schedule: cycles when each step waits for its own words",
            attrgetter("schedule_delay"),
        ),
        Objective(
            "hierarchy",
            "delay.hierarchy: cycles through every memory level with a tile depth "
            "(delay.schedule without one)",
            hierarchy,
        ),
        Objective(
            "peak_ingress",
            "bandwidth.peak_ingress: words read in the busiest step",
            attrgetter("peak_ingress"),
        ),
        Objective("utilization", "utilization (maximised)", attrgetter("utilization"), True),
        Objective("active_pes", "active_pes (maximised)", attrgetter("active_pes"), True),
        Objective(
            "energy_pj", "cost.energy_pj.total: energy in pJ (needs component costs)", energy_pj
        ),
        Objective(
            "edp",
            "energy-delay product: cost.energy_pj.total × delay.hierarchy (delay.latency "
            "without memory levels), in pJ·cycles (needs component costs)",
            edp,
        ),
        Objective("area", "cost.area_um2.total: area in µm² (needs component costs)", area),
        Objective(
            "dram",
            "words to and from the outermost memory level (levels[]: reads + writes of the "
            "level just inside it; without its tile depth: the scratchpad traffic)",
            dram_words,
        ),
    )
}

#: Objectives that read `Analysis.cost` (the arch must give component costs).
COST_OBJECTIVES = ("energy_pj", "edp", "area")


DEFAULT_OBJECTIVES = ("latency", "energy")


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


#: Objectives whose network value is Σ count · (the layer's value): layers run one after another.
ADDITIVE_OBJECTIVES = (
    "latency",
    "energy",
    "traffic",
    "ingress",
    "egress",
    "compute",
    "time_steps",
    "steps",
    "schedule",
    "hierarchy",
    "energy_pj",
    "dram",
)
