"""Pareto fronts of `tenet dse` as tables."""

from __future__ import annotations

from typing import Any

from tenet.explore.objectives import OBJECTIVES


def network_tables(report: dict[str, Any], color: bool = False) -> str:
    """Each distinct layer's front, then the network front (one dataflow per layer)."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    from tenet.report.tables import render_tables

    groups: dict[int, list[dict[str, Any]]] = {}
    for layer in report["layers"]:  # layers sharing a search share its front object
        groups.setdefault(id(layer["pareto"]), []).append(layer)
    parts = []
    for group in groups.values():
        names = ", ".join(f"{layer['layer']} (runs: {layer['count']})" for layer in group)
        title = f"{group[0]['arch']} · layer{'s' if len(group) > 1 else ''} {names}"
        parts.append(front_table({**group[0], "arch": title}, color))
    table = Table(
        title=escape(f"{report['network']} · {report['arch']}: network front (Σ runs × layer)"),
        box=box.SIMPLE_HEAVY,
    )
    for name in report["objectives"]:
        table.add_column(name, justify="right")
    table.add_column("dataflow per layer")
    for point in report["network_front"]:
        choice = ", ".join(f"{k}={v}" for k, v in point["dataflows"].items())
        table.add_row(*(_cell(v) for v in point["objectives"].values()), escape(choice))
    counts = f"{report['evaluated']:,} dataflows evaluated over the distinct layers"
    notes = [f"{counts}, {report['legal']:,} legal"]
    parts.append(render_tables([table], color, notes, prefix="note"))
    return "\n".join(parts)


def _cell(value: Any) -> str:
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.2f}" if abs(value) < 1e15 else f"{value:.4g}"


def front_table(report: dict[str, Any], color: bool = False) -> str:
    """The front as a table (name, notation, objectives, latency, energy) and the counts."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    from tenet.report.tables import render_tables

    title = escape(f"{report['workload']} · {report['arch']}: Pareto front")
    table = Table(title=title, box=box.SIMPLE_HEAVY)
    table.add_column("name")
    table.add_column("notation")
    columns = list(report["objectives"])
    columns += [c for c in ("latency", "energy") if c not in columns]
    for name in columns:
        table.add_column(name, justify="right")
    for entry in report["pareto"]:
        values = [_cell(OBJECTIVES[name].value(entry)) for name in columns]
        table.add_row(escape(entry["name"]), escape(entry["notation"] or "-"), *values)
    notes = [
        f"{report['candidates']:,} candidates, {report['evaluated']:,} distinct evaluated, "
        f"{report['legal']:,} legal, {len(report['pareto'])} on the front"
        + (f", {report['ties']} ties left out (--ties)" if report["ties"] else "")
        + (f", {report['skipped']} skipped (isl limit)" if report["skipped"] else "")
    ]
    return render_tables([table], color, notes, prefix="note")
