"""Ski slopes of one einsum in any mapping space, with the proven lower bound beside them.

A slope report is the JSON of `tenet bounds`: the front (buffer strictly rising, accesses
strictly falling), lookups at buffer sizes, the OI and performance mesas and the area split.
Every front point and every lookup also carries `lower_bound`, the proven floor on the
backing-store accesses of any schedule with that buffer (tenet.bounds.lower_bound), and
`gap` = accesses / lower_bound.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import ceil, exp, log
from typing import Any

from tenet.bounds.front import Front, FrontPoint
from tenet.bounds.lower_bound import lower_bound, lower_bound_basis
from tenet.bounds.snowcat import (
    BoundResult,
    Problem,
    area_split,
    front_of,
    hierarchy_report,
    snowcat_front,
    word_count,
)
from tenet.bounds.uneven import SpaceFront, search_front

#: The fronts `--compare-spaces` draws, smallest space first: (name, space, imperfect).
COMPARED_SPACES = (
    ("snowcat", "snowcat", False),
    ("snowcat-imperfect", "snowcat", True),
    ("uneven", "uneven", False),
    ("uneven-imperfect", "uneven", True),
)


def space_front(front: SpaceFront) -> Front:
    """A searched front as reported: the detail's `tiles` (words of each tensor's tile) named
    `tile_words`, after the loops, positions and kept tensors."""
    points = []
    for p in front.points:
        detail = dict(p.detail)
        detail["tile_words"] = detail.pop("tiles", {})
        points.append(FrontPoint(p.buffer, p.accesses, p.mapping, detail))
    return Front(tuple(points))


def gap(accesses: int | None, floor: int) -> float | None:
    """accesses / lower bound (1.0 means the point is provably optimal)."""
    if accesses is None or floor <= 0:
        return None
    return accesses / floor


def slope_report(
    problem: Problem,
    points: Front,
    mappings_evaluated: int,
    bypass: bool,
    word_bits: int = 16,
    at: Sequence[str] = (),
    macs_per_cycle: float | None = None,
    bandwidth_gbps: float | None = None,
    clock_ghz: float = 1.0,
    area_mm2: float | None = None,
    area_constants: dict[str, dict[str, Any]] | None = None,
    space: str = "snowcat",
    imperfect: bool = False,
) -> dict[str, Any]:
    """The `tenet bounds` JSON of one front: points with OI, lower bound and gap, lookups,
    minimum, mesas, and the area split with the sources of its areas (`area_constants`,
    as `snowcat.area_constants` gives them)."""
    word_bytes = word_bits / 8
    ops = problem.ops()
    front = []
    for point in points:
        floor = lower_bound(problem, point.buffer)
        front.append(
            {
                "buffer": point.buffer,
                "accesses": point.accesses,
                "oi": ops / (point.accesses * word_bytes),
                "lower_bound": floor,
                "gap": gap(point.accesses, floor),
                "mapping": point.mapping,
                **point.detail,
            }
        )
    report: dict[str, Any] = {
        "einsum": problem.name,
        "shape": dict(zip(problem.ranks, problem.sizes)),
        "space": space,
        "imperfect": imperfect,
        "mappings_evaluated": mappings_evaluated,
        "algorithmic_minimum": problem.algorithmic_minimum,
        "macs": problem.macs,
        "pareto": front,
        "max_effectual_buffer": front[-1]["buffer"],
        "peak_oi": front[-1]["oi"],
        "word_bits": word_bits,
        "bypass": bypass,
        "lower_bound_basis": lower_bound_basis(problem),
    }
    if at:
        report["at"] = [at_answer(problem, points, text, word_bits) for text in at]
    if macs_per_cycle is not None and bandwidth_gbps is not None:
        peak = 2 * macs_per_cycle * clock_ghz
        report["performance"] = {
            "peak_gops": peak,
            "mesa": [
                {"buffer": p["buffer"], "gops": min(peak, p["oi"] * bandwidth_gbps)} for p in front
            ],
        }
    if area_mm2 is not None and area_constants and bandwidth_gbps is not None:
        mac = area_constants["mac_area_um2"]["value"]
        byte = area_constants["byte_area_um2"]["value"]
        if mac and byte:
            split = area_split(front, word_bytes, area_mm2, mac, byte, bandwidth_gbps, clock_ghz)
            report["area_split"] = {**split, **area_constants}
    return report


def at_answer(problem: Problem, front: Front, text: str, word_bits: int) -> dict[str, Any]:
    """The front at one buffer size (the last point that fits), its OI (ops per byte
    moved), the lower bound there and their ratio; `null` accesses when no mapping fits."""
    words = word_count(text, word_bits)
    point = front.at(words)
    floor = lower_bound(problem, words) if words > 0 else None
    return {
        "size": text,
        "words": words,
        "accesses": point.accesses if point else None,
        "oi": problem.ops() / (point.accesses * (word_bits / 8)) if point else None,
        "mapping": point.mapping if point else None,
        "lower_bound": floor,
        "gap": gap(point.accesses, floor) if point and floor else None,
    }


def bounds_report(result: BoundResult, word_bits: int = 16, at: Sequence[str] = (), **mesas):
    """The report of today's Snowcat search (`mapping_front`); `mesas` as in `slope_report`."""
    return slope_report(
        result.problem,
        front_of(result),
        result.mappings,
        result.bypass,
        word_bits,
        at,
        **mesas,
    )


def compare_spaces(
    problem: Problem,
    bypass: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, SpaceFront]:
    """The fronts of every compared space (COMPARED_SPACES), by name."""
    fronts = {}
    total = len(COMPARED_SPACES)
    for done, (name, space, imperfect) in enumerate(COMPARED_SPACES):

        def step(inner: int, inner_total: int, base: int = done) -> None:
            if progress and inner_total:
                progress(base * inner_total + inner, total * inner_total)

        fronts[name] = search_front(problem, space, imperfect, bypass, step)
    if progress:
        progress(1, 1)
    return fronts


def compare_report(
    problem: Problem,
    fronts: dict[str, SpaceFront],
    word_bits: int = 16,
    at: Sequence[str] = (),
) -> dict[str, Any]:
    """Every space's front with lower bounds and gaps, and lookups across the spaces."""
    spaces = {
        name: slope_report(
            problem,
            space_front(front),
            front.mappings_evaluated,
            front.bypass,
            word_bits,
            space=front.space,
            imperfect=front.imperfect,
        )
        for name, front in fronts.items()
    }
    report: dict[str, Any] = {
        "einsum": problem.name,
        "shape": dict(zip(problem.ranks, problem.sizes)),
        "algorithmic_minimum": problem.algorithmic_minimum,
        "macs": problem.macs,
        "word_bits": word_bits,
        "lower_bound_basis": lower_bound_basis(problem),
        "spaces": {
            name: {
                "space": s["space"],
                "imperfect": s["imperfect"],
                "bypass": s["bypass"],
                "mappings_evaluated": s["mappings_evaluated"],
                "max_effectual_buffer": s["max_effectual_buffer"],
                "pareto": s["pareto"],
            }
            for name, s in spaces.items()
        },
    }
    if at:
        answers = []
        for text in at:
            per_space = {
                name: at_answer(problem, space_front(fronts[name]), text, word_bits)
                for name in spaces
            }
            first = next(iter(per_space.values()))
            answers.append(
                {
                    "size": text,
                    "words": first["words"],
                    "lower_bound": first["lower_bound"],
                    "spaces": {
                        name: {k: a[k] for k in ("accesses", "gap", "mapping")}
                        for name, a in per_space.items()
                    },
                }
            )
        report["at"] = answers
    return report


def lower_bound_curve(problem: Problem, smallest: int, largest: int, samples: int = 64):
    """(buffer, lower bound) at `samples` buffer sizes spaced evenly on a log scale."""
    smallest, largest = max(1, smallest), max(2, largest)
    ratio = log(largest / smallest) / max(1, samples - 1)
    sizes = sorted({ceil(smallest * exp(ratio * i)) for i in range(samples)})
    return [(s, lower_bound(problem, s)) for s in sizes]


@dataclass(frozen=True)
class BoundsOptions:
    """What `search_report` searches and reports (the flags of `tenet bounds`).

    `at`: buffer sizes as given (words, or bytes with a unit); `area_constants`: the MAC
    and per-byte buffer areas of the area split (`snowcat.area_constants`), None when one
    is unknown; `levels`: an arch's memory levels for the hierarchy report."""

    space: str = "snowcat"
    imperfect: bool = False
    bypass: bool = False
    word_bits: int = 16
    at: tuple[str, ...] = ()
    macs_per_cycle: float | None = None
    bandwidth_gbps: float | None = None
    clock_ghz: float = 1.0
    area_mm2: float | None = None
    area_constants: dict[str, dict[str, Any]] | None = None
    levels: tuple = ()


def search_front_of(
    problem: Problem, options: BoundsOptions, progress: Callable[[int, int], None] | None = None
) -> tuple[Front, int]:
    """The front of the chosen space and the number of mappings evaluated (Snowcat's own
    search, `snowcat_front`, when neither the uneven space nor imperfect tiles are asked)."""
    if options.space == "snowcat" and not options.imperfect:
        return snowcat_front(problem, options.bypass, progress)
    searched = search_front(problem, options.space, options.imperfect, options.bypass, progress)
    return space_front(searched), searched.mappings_evaluated


@dataclass(frozen=True)
class BoundsReport:
    """One space's searched front, with what `tenet bounds` reports about it: `to_dict()`
    is the slope report (`slope_report`: points with OI, lower bound and gap, lookups,
    mesas, the area split) and the front between each pair of memory levels."""

    problem: Problem
    front: Front
    mappings_evaluated: int
    options: BoundsOptions

    def to_dict(self) -> dict[str, Any]:
        """The `tenet bounds` JSON (docs/reference.md)."""
        problem, options = self.problem, self.options
        report = slope_report(
            problem,
            self.front,
            self.mappings_evaluated,
            options.bypass,
            options.word_bits,
            options.at,
            macs_per_cycle=options.macs_per_cycle,
            bandwidth_gbps=options.bandwidth_gbps,
            clock_ghz=options.clock_ghz,
            area_mm2=options.area_mm2,
            area_constants=options.area_constants,
            space=options.space,
            imperfect=options.imperfect,
        )
        if options.levels:
            report["hierarchy"] = hierarchy_report(
                self.front,
                options.levels,
                options.word_bits,
                problem.macs,
                options.macs_per_cycle,
                options.clock_ghz,
            )
        return report


def search_report(
    problem: Problem, options: BoundsOptions, progress: Callable[[int, int], None] | None = None
) -> BoundsReport:
    """Search the chosen space (`search_front_of`) and return its `BoundsReport`."""
    front, evaluated = search_front_of(problem, options, progress)
    return BoundsReport(problem, front, evaluated, options)
