"""One workload and dataflow on several archs: rows of metrics, one column per arch."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any

from tenet.errors import option_ref
from tenet.model.checks import SUSPECT_KINDS
from tenet.model.cost import EnergyParts
from tenet.model.results import Analysis
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
    "objective_min": "min",  # the --best objective's value, when it is minimised
    "objective_max": "max",  # ... and when it is maximised
}

#: The --best objectives whose value adds up the energy parts (`cost.energy_pj`): ranked
#: across columns only when the columns price the same parts, as the pJ rows are.
ENERGY_OBJECTIVES = frozenset({"energy_pj", "edp"})

#: The parts of `cost.energy_pj` (pJ), in the order the breakdown stacks them.
ENERGY_PARTS = ("mac", "registers", "scratchpad", "interconnect", "intermediate", "dram")


#: The parts of `cost.energy_pj` that an arch prices only when its memory levels give the
#: traffic they price, each with its test on the Analysis. `dram`: the words into the
#: outermost level are known (`Analysis.dram_words()` is not None: the arch has memory
#: levels and the dataflow a tile depth on the level just inside the outermost one);
#: `intermediate` (when `EnergyParts` has it): some level exchanges words with a level
#: above it that is not the outermost one.
LEVEL_PARTS: dict[str, Callable[[Analysis], bool]] = {
    "dram": lambda analysis: analysis.dram_words() is not None,
    "intermediate": lambda analysis: prices_intermediate(analysis),
}


def prices_intermediate(analysis: Analysis) -> bool:
    """Some counted boundary has a level between the scratchpad and the outermost at one of
    its ends (`Cost.boundaries`, each level's role in `Cost.level_components`)."""
    cost = analysis.cost
    if cost is None:
        return False
    roles = {component.name: component.role for component in cost.level_components}
    return any(
        b.words and "intermediate" in (roles.get(b.inner), roles.get(b.above))
        for b in cost.boundaries
    )


#: How a warning names a part that a column does not price.
PART_NAMES = {"dram": "DRAM", "intermediate": "intermediate memory levels"}


def priced_parts(analysis: Analysis) -> frozenset[str]:
    """The parts of `cost.energy_pj` this analysis prices: none without component costs;
    otherwise every field of `EnergyParts`, except that a part of `LEVEL_PARTS` counts only
    when its test holds (`dram` iff `analysis.dram_words()` is not None). Two energies in
    pJ are comparable iff their analyses price the same parts."""
    if analysis.cost is None:
        return frozenset()
    names = (f.name for f in fields(EnergyParts))
    return frozenset(n for n in names if n not in LEVEL_PARTS or LEVEL_PARTS[n](analysis))


@dataclass
class Row:
    """One row of the comparison; `ranked` False: its values price different things in
    different columns, so no value is marked best (the warnings say why)."""

    label: str
    kind: str
    values: list[Any]
    ranked: bool = True

    def best(self, unranked: set[int] = frozenset()) -> set[int]:
        """Indices of the best value(s) in this row (empty when not ranked), among the
        columns not in `unranked`."""
        rule = BETTER[self.kind] if self.ranked else None
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


def column_labels(results: list[dict[str, Any]]) -> list[str]:
    """The name of each column: its arch, with ` · DATAFLOW` when the columns do not all run
    the same dataflow (`-d` with `--best`); a name that is still not unique gets ` [n]`, its
    column number from 1."""
    same_dataflow = len({r.get("dataflow") for r in results}) <= 1
    labels = [r["arch"] if same_dataflow else f"{r['arch']} · {r['dataflow']}" for r in results]
    return [
        f"{label} [{n + 1}]" if labels.count(label) > 1 else label for n, label in enumerate(labels)
    ]


@dataclass(frozen=True)
class CostRanking:
    """Whether the pJ and µm² rows compare like with like: `energy` iff every column has
    component costs and prices the same energy parts (`priced_parts`), `area` iff every
    column has component costs; `reasons`: one line per column and missing thing."""

    energy: bool
    area: bool
    reasons: tuple[str, ...]


def _part_order(part: str) -> int:
    names = [f.name for f in fields(EnergyParts)]
    return names.index(part) if part in names else len(names)


def cost_ranking(
    results: list[dict[str, Any]], priced: Sequence[frozenset[str]] | None = None
) -> CostRanking:
    """Decide whether the cost rows are ranked. `priced[n]` is `priced_parts` of column n's
    Analysis; without it, columns with component costs are taken to price the same parts."""
    labels = column_labels(results)
    costed = [r.get("cost") is not None for r in results]
    reasons = [
        f"{labels[n]} has no component costs (technology:, components: or "
        f"{option_ref('technology')}): "
        "its energy (pJ) and area (µm²) are shown as '-' and those rows are not ranked"
        for n, has in enumerate(costed)
        if not has and any(costed)
    ]
    parts = [p for n, p in enumerate(priced or ()) if costed[n]]
    every = frozenset().union(*parts)
    for n, mine in enumerate(priced or ()):
        if not costed[n]:
            continue
        for part in sorted(every - mine, key=_part_order):
            others = [labels[m] for m, p in enumerate(priced) if costed[m] and part in p]
            reasons.append(
                f"{labels[n]} prices no {PART_NAMES.get(part, part)} (energy_pj.{part}), "
                f"which {', '.join(others)} {'prices' if len(others) == 1 else 'price'}: "
                "the energies in pJ are not ranked"
            )
    everyone = all(costed)
    return CostRanking(everyone and all(p == every for p in parts), everyone, tuple(reasons))


def comparison_rows(
    results: list[dict[str, Any]], priced: Sequence[frozenset[str]] | None = None
) -> list[Row]:
    """Unique and reuse per tensor and side, IBW, SBW, link traffic, latency, the schedule's
    steps, delay and peak ingress, utilization, energy; with --best, the objective's value;
    when some column has component costs, energy (pJ) and area (µm²), ranked as
    `cost_ranking` says (`priced`: `priced_parts` per column, as there)."""
    rows: list[Row] = []
    ranking = cost_ranking(results, priced)
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
        hierarchy = [r["delay"].get("hierarchy") for r in results]
        if any(v is not None for v in hierarchy):  # some column times its memory levels
            rows.append(
                Row(
                    "delay through the hierarchy (cycles)",
                    "schedule",
                    hierarchy,
                    all(v is not None for v in hierarchy),
                )
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
    if any(r.get("cost") is not None for r in results):  # some arch gives component costs
        rows.append(Row("energy (pJ)", "energy", [energy_pj(r) for r in results], ranking.energy))
        area = [None if r.get("cost") is None else r["cost"]["area_um2"]["total"] for r in results]
        rows.append(Row("area (µm²)", "area", area, ranking.area))
    row = objective_row(results, ranking)
    if row is not None:
        rows.append(row)
    return rows


def objective_row(results: list[dict[str, Any]], ranking: CostRanking) -> Row | None:
    """compare --best: the objective's value of each best column (`best.value`; `-` for a
    `-d` column), ranked unless it adds up energy parts that the columns price differently
    (ENERGY_OBJECTIVES and not `ranking.energy`); None without --best."""
    found = [r["best"] for r in results if "best" in r]
    if not found:
        return None
    objective = found[0]["objective"]
    kind = "objective_max" if found[0].get("maximize") else "objective_min"
    values = [r["best"]["value"] if "best" in r else None for r in results]
    ranked = objective not in ENERGY_OBJECTIVES or ranking.energy
    return Row(f"{objective} ({option_ref('best')} objective)", kind, values, ranked)


def objective_winners(
    results: list[dict[str, Any]], priced: Sequence[frozenset[str]] | None = None
) -> set[int]:
    """The columns the table stars in the --best objective's row: every tied best, none of
    `unranked_columns`, none when the row is not ranked or there is no --best."""
    row = objective_row(results, cost_ranking(results, priced))
    return set() if row is None else row.best(unranked_columns(results))


def comparison_warnings(
    results: list[dict[str, Any]], priced: Sequence[frozenset[str]] | None = None
) -> list[str]:
    """Every warning of every column once, prefixed with the column's label
    (`column_labels`), then the reasons the cost rows are not ranked (`cost_ranking`)."""
    labels = column_labels(results)
    lines = [f"{labels[n]}: {w}" for n, r in enumerate(results) for w in r.get("warnings") or ()]
    lines += cost_ranking(results, priced).reasons
    return list(dict.fromkeys(lines))


def energy_pj(result: dict[str, Any]) -> float | None:
    """`cost.energy_pj.total` of an analyze JSON object; None without component costs."""
    if result.get("cost") is None:
        return None
    return result["cost"]["energy_pj"]["total"]


def energy_breakdown(results: list[dict[str, Any]]) -> dict[str, list[float]] | None:
    """{part: [pJ per result]} of `cost.energy_pj` (ENERGY_PARTS), or None when some result
    has no component costs."""
    if not results or any(r.get("cost") is None for r in results):
        return None
    return {part: [r["cost"]["energy_pj"].get(part, 0.0) for r in results] for part in ENERGY_PARTS}


def comparison_json(
    workload: str,
    dataflow: str,
    results: list[dict[str, Any]],
    priced: Sequence[frozenset[str]] | None = None,
) -> dict[str, Any]:
    """The contract's `compare` JSON, plus `warnings` (`comparison_warnings`), and when some
    column has component costs `energy_ranked`, `area_ranked` and `unranked_reason`
    (`cost_ranking`); with `priced`, `priced_parts` (per column, null without costs)."""
    out: dict[str, Any] = {"workload": workload, "dataflow": dataflow, "results": results}
    out["warnings"] = comparison_warnings(results, priced)
    if any(r.get("cost") is not None for r in results):
        ranking = cost_ranking(results, priced)
        out["energy_ranked"] = ranking.energy
        out["area_ranked"] = ranking.area
        out["unranked_reason"] = list(ranking.reasons)
    if priced is not None:
        out["priced_parts"] = [
            sorted(p, key=_part_order) if r.get("cost") is not None else None
            for r, p in zip(results, priced)
        ]
    return out


def winner(values: list[Any], maximize: bool) -> int | None:
    """Index of the result with the best value of the objective (the first of equal ones),
    among results that have a value; None when none has."""
    present = [(v, n) for n, v in enumerate(values) if v is not None]
    if not present:
        return None
    best = max(v for v, _ in present) if maximize else min(v for v, _ in present)
    return next(n for v, n in present if v == best)
