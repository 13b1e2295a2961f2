"""One workload and dataflow on several archs: rows of metrics, one column per arch."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tenet.model.checks import SUSPECT_KINDS
from tenet.model.workload import SIDES

# Which way is better for each kind of row: "min", "max" or None (not ranked).
BETTER = {
    "unique": "min",
    "reuse": "max",
    "ibw": None,
    "sbw": "min",
    "links": None,
    "latency": "min",
    "steps": "min",
    "schedule": "min",
    "peak": "min",
    "energy": "min",
    "utilization": "max",
    "area": "min",
    "text": None,
}

#: The parts of `cost.energy_pj` (pJ), in the order the breakdown stacks them.
ENERGY_PARTS = ("mac", "registers", "scratchpad", "interconnect", "dram")


@dataclass
class Row:
    label: str
    kind: str
    values: list[Any]

    def best(self, unranked: set[int] = frozenset()) -> set[int]:
        """Indices of the best value(s) in this row (empty when not ranked), among the
        columns not in `unranked`."""
        rule = BETTER[self.kind]
        present = [v for n, v in enumerate(self.values) if v is not None and n not in unranked]
        if rule is None or not present or len(set(present)) == 1:
            return set()
        target = min(present) if rule == "min" else max(present)
        return {n for n, v in enumerate(self.values) if v == target and n not in unranked}


def unranked_columns(results: list[dict[str, Any]]) -> set[int]:
    """Columns whose numbers rest on an effect a warning flags (PEs outside the array, more
    MACs per PE and step than the arch has, same-step free reuse: `SUSPECT_KINDS`): they
    are marked and never ranked best."""
    return {
        n
        for n, r in enumerate(results)
        if SUSPECT_KINDS.intersection(k for k in r.get("warning_kinds") or () if k)
    }


def comparison_rows(results: list[dict[str, Any]]) -> list[Row]:
    """Unique and reuse per tensor and side, IBW, SBW, link traffic, latency, the schedule's
    steps, delay and peak ingress, utilization, energy."""
    rows: list[Row] = []
    if any("notation" in r for r in results):  # compare --best: which dataflow each column runs
        rows.append(Row("dataflow", "text", [r["dataflow"] for r in results]))
        rows.append(Row("notation", "text", [r.get("notation") for r in results]))
    first = results[0]
    for tensor, sides in first["tensors"].items():
        for side in SIDES:
            if sides[side] is None:
                continue
            for key in ("unique", "reuse"):
                rows.append(
                    Row(
                        f"{tensor} {side} {key}",
                        key,
                        [r["tensors"][tensor][side][key] for r in results],
                    )
                )
    rows.append(Row("IBW (words/cycle)", "ibw", [r["bandwidth"]["ibw"] for r in results]))
    rows.append(Row("SBW (words/cycle)", "sbw", [r["bandwidth"]["sbw"] for r in results]))
    rows.append(
        Row(
            "link traffic (values)",
            "links",
            [sum(link["total"] for link in r["links"]) for r in results],
        )
    )
    rows.append(
        Row(
            "busiest link (values/cycle)",
            "links",
            [max((link["per_step"] for link in r["links"]), default=0.0) for r in results],
        )
    )
    rows.append(Row("latency (cycles)", "latency", [r["delay"]["latency"] for r in results]))
    if all("schedule" in r["delay"] for r in results):  # the schedule-time numbers
        rows.append(Row("time steps", "steps", [r["delay"]["steps"] for r in results]))
        rows.append(
            Row("schedule delay (cycles)", "schedule", [r["delay"]["schedule"] for r in results])
        )
        rows.append(
            Row(
                "peak ingress (words/step)",
                "peak",
                [r["bandwidth"]["peak_ingress"] for r in results],
            )
        )
    rows.append(Row("PE utilization", "utilization", [r["utilization"] for r in results]))
    rows.append(Row("energy (TENET, unitless)", "energy", [r["energy"] for r in results]))
    if all(r.get("cost") is not None for r in results):  # the archs give component costs
        rows.append(Row("energy (pJ)", "energy", [energy_pj(r) for r in results]))
        rows.append(Row("area (µm²)", "area", [r["cost"]["area_um2"]["total"] for r in results]))
    return rows


def energy_pj(result: dict[str, Any]) -> float:
    """`cost.energy_pj.total` of an analyze JSON object."""
    return result["cost"]["energy_pj"]["total"]


def energy_breakdown(results: list[dict[str, Any]]) -> dict[str, list[float]] | None:
    """{part: [pJ per result]} of `cost.energy_pj` (ENERGY_PARTS), or None when some result
    has no component costs."""
    if not results or any(r.get("cost") is None for r in results):
        return None
    return {part: [r["cost"]["energy_pj"].get(part, 0.0) for r in results] for part in ENERGY_PARTS}


def comparison_json(workload: str, dataflow: str, results: list[dict[str, Any]]) -> dict[str, Any]:
    """The contract's `compare` JSON."""
    return {"workload": workload, "dataflow": dataflow, "results": results}


def winner(values: list[Any], maximize: bool) -> int | None:
    """Index of the result with the best value of the objective (the first of equal ones),
    among results that have a value; None when none has."""
    present = [(v, n) for n, v in enumerate(values) if v is not None]
    if not present:
        return None
    best = max(v for v, _ in present) if maximize else min(v for v, _ in present)
    return next(n for v, n in present if v == best)
