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
            "peak_ingress",
            "bandwidth.peak_ingress: words read in the busiest step",
            attrgetter("peak_ingress"),
        ),
        Objective("utilization", "utilization (maximised)", attrgetter("utilization"), True),
        Objective("active_pes", "active_pes (maximised)", attrgetter("active_pes"), True),
    )
}


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
)
