"""Pareto fronts of `tenet dse` as tables."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tenet.explore.objectives import OBJECTIVES

if TYPE_CHECKING:
    from tenet.explore.dse import DseResult, NetworkDseResult


def network_tables(result: NetworkDseResult, color: bool = False) -> str:
    """Each distinct layer's front, then the network front (one dataflow per layer)."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    from tenet.report.tables import render_tables

    groups: dict[int, list] = {}
    for layer in result.layers:  # layers sharing a search share its result object
        groups.setdefault(id(layer.result), []).append(layer)
    parts = []
    for group in groups.values():
        names = ", ".join(f"{layer.layer} (runs: {layer.count})" for layer in group)
        title = f"{group[0].result.arch} · layer{'s' if len(group) > 1 else ''} {names}"
        parts.append(front_table(group[0].result, color, arch_title=title))
    table = Table(
        title=escape(f"{result.network} · {result.arch}: network front (Σ runs × layer)"),
        box=box.SIMPLE_HEAVY,
    )
    for name in result.objectives:
        table.add_column(name, justify="right")
    table.add_column("dataflow per layer")
    for point in result.network_front:
        choice = ", ".join(f"{k}={v}" for k, v in point.dataflows.items())
        table.add_row(*(_cell(v) for v in point.objectives.values()), escape(choice))
    counts = f"{result.evaluated:,} dataflows evaluated over the distinct layers"
    pruned = getattr(result, "pruned", 0)
    if pruned:
        counts += f", {pruned:,} pruned"
    notes = [f"{counts}, {result.legal:,} legal"]
    parts.append(render_tables([table], color, notes, prefix="note"))
    return "\n".join(parts)


def _cell(value: Any) -> str:
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.2f}" if abs(value) < 1e15 else f"{value:.4g}"


def front_table(result: DseResult, color: bool = False, arch_title: str | None = None) -> str:
    """The front as a table (name, notation, objectives, latency, energy) and the counts;
    `arch_title` replaces the arch's name in the title."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    from tenet.report.tables import render_tables

    title = escape(f"{result.workload} · {arch_title or result.arch}: Pareto front")
    table = Table(title=title, box=box.SIMPLE_HEAVY)
    table.add_column("name")
    table.add_column("notation")
    columns = list(result.objectives)
    columns += [c for c in ("latency", "energy") if c not in columns]
    for name in columns:
        table.add_column(name, justify="right")
    for entry in result.pareto:
        values = [_cell(OBJECTIVES[name].value(entry.analysis)) for name in columns]
        table.add_row(escape(entry.name), escape(entry.notation or "-"), *values)
    notes = [
        f"{result.candidates:,} candidates, {result.evaluated:,} distinct evaluated, "
        + (f"{result.pruned:,} pruned, " if result.pruned else "")
        + f"{result.legal:,} legal, {len(result.pareto)} on the front"
        + (
            f", {result.over_capacity:,} over capacity (a memory level's tiles do not fit)"
            if getattr(result, "over_capacity", 0)
            else ""
        )
        + (f", {result.ties} ties left out (--ties)" if result.ties else "")
        + (f", {result.skipped} skipped (isl limit)" if result.skipped else "")
    ]
    return render_tables([table], color, notes, prefix="note")
