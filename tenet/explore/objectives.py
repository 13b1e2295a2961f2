"""The objectives of design-space exploration: which number of an analysis each one reads, and
whether it is minimised or maximised. Light to import (the command line's `--help` lists them)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tenet.errors import InputError


@dataclass(frozen=True)
class Objective:
    """A metric of the `analyze` JSON that the search minimises (or maximises)."""

    name: str
    meaning: str
    value: Callable[[dict[str, Any]], int | float]
    maximize: bool = False


def scratchpad_traffic(result: dict[str, Any]) -> int:
    """Σ over tensors and sides of `unique`: words moved between scratchpad and PEs."""
    return sum(
        side["unique"]
        for sides in result["tensors"].values()
        for side in sides.values()
        if side is not None
    )


OBJECTIVES: dict[str, Objective] = {
    o.name: o
    for o in (
        Objective(
            "latency",
            "delay.latency: max(ingress, egress, compute)",
            lambda r: r["delay"]["latency"],
        ),
        Objective("energy", "energy: MACs + L1 + L2 accesses", lambda r: r["energy"]),
        Objective(
            "sbw", "bandwidth.sbw: scratchpad words per cycle", lambda r: r["bandwidth"]["sbw"]
        ),
        Objective(
            "ibw", "bandwidth.ibw: interconnect words per cycle", lambda r: r["bandwidth"]["ibw"]
        ),
        Objective("traffic", "sum of unique: scratchpad words moved", scratchpad_traffic),
        Objective("ingress", "delay.ingress", lambda r: r["delay"]["ingress"]),
        Objective("egress", "delay.egress", lambda r: r["delay"]["egress"]),
        Objective("compute", "delay.compute", lambda r: r["delay"]["compute"]),
        Objective("time_steps", "time_steps", lambda r: r["time_steps"]),
        Objective("utilization", "utilization (maximised)", lambda r: r["utilization"], True),
        Objective("active_pes", "active_pes (maximised)", lambda r: r["active_pes"], True),
    )
}


DEFAULT_OBJECTIVES = ("latency", "energy")


def parse_objectives(text: str | Sequence[str]) -> tuple[str, ...]:
    """Objective names from `latency,energy` (or a list); unknown or repeated names are errors."""
    names = [n.strip() for n in text.split(",")] if isinstance(text, str) else list(text)
    names = [n for n in names if n]
    if not names:
        raise InputError(
            "expected comma-separated objective names, e.g. latency,energy", "--objectives"
        )
    for name in names:
        if name not in OBJECTIVES:
            raise InputError(
                f"unknown objective {name!r} (known: {', '.join(OBJECTIVES)})", "--objectives"
            )
    if len(set(names)) != len(names):
        raise InputError("an objective is named twice", "--objectives")
    return tuple(names)


def objective_help() -> str:
    """One line per objective name and the analyze key it reads, for `--help`."""
    return "; ".join(f"{o.name} = {o.meaning}" for o in OBJECTIVES.values())


#: Objectives whose network value is Σ count · (the layer's value): layers run one after another.
ADDITIVE_OBJECTIVES = ("latency", "energy", "traffic", "ingress", "egress", "compute", "time_steps")
