"""Whole-network results (`analyze -n`) as a table, JSON or CSV."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from rich import box
from rich.markup import escape
from rich.table import Table

from tenet.report.serial import to_csv, to_json
from tenet.report.tables import render_tables

if TYPE_CHECKING:
    from tenet.explore.network import NetworkResult
    from tenet.model.metrics import Totals


def network_table(result: NetworkResult) -> Table:
    """One row per layer (one run of it) and a total row (every run of every layer)."""
    title = f"{result.network} · {result.arch} (layer rows: one run; total: all runs)"
    table = Table(title=escape(title), box=box.SIMPLE_HEAVY)
    columns = ("layer", "workload", "dataflow", "runs", "MACs", "latency", "PE util.")
    for col in (*columns, "unique reads", "unique writes", "energy"):
        table.add_column(col, justify="left" if col in columns[:3] else "right")
    total = result.total
    physical = physical_columns(table, total)
    for row in result.layers:
        analysis = row.analysis
        table.add_row(
            escape(row.layer.name),
            escape(analysis.workload),
            escape(analysis.dataflow),
            f"{row.count:,}",
            f"{analysis.macs:,}",
            f"{analysis.latency:,}",
            f"{analysis.utilization:.2%}",
            f"{analysis.unique_words('read'):,}",
            f"{analysis.unique_words('write'):,}",
            f"{analysis.energy:,.2f}",
            *physical(analysis.cost, analysis.levels),
        )
    table.add_section()
    table.add_row(
        "total",
        "",
        "",
        f"{total.layers:,}",
        f"{total.macs:,}",
        f"{total.latency:,}",
        f"{total.utilization:.2%}",
        f"{total.volumes['read'].unique:,}",
        f"{total.volumes['write'].unique:,}",
        f"{total.energy:,.2f}",
        *physical(total.cost, total.levels or ()),
        style="bold",
    )
    return table


def physical_columns(table: Table, total: Totals) -> Callable[[Any, Sequence[Any]], list[str]]:
    """Adds the physical columns every layer has: `energy (pJ)` (docs/energy.md) when every
    layer has a cost, and `LEVEL words` (reads + writes to the level above, docs/levels.md)
    for each memory level every layer has. Returns the cells of one row (its cost and
    levels); the caption gives the area (the array's, the same for every layer)."""
    energy = total.cost is not None
    levels = [level.name for level in total.levels or ()]
    if energy:
        table.add_column("energy (pJ)", justify="right")
    for name in levels:
        table.add_column(f"{escape(name)} words", justify="right")
    notes = []
    if energy and total.cost.area_um2 is not None:
        notes.append(f"area {float(total.cost.area_um2.total):,.2f} µm² (the array's, once)")
    if levels:
        notes.append(
            "LEVEL words: reads + writes to the level above; (!): a tile needs more words than the level holds"
        )
    table.caption = "; ".join(notes) or None

    def cells(cost: Any, row_levels: Sequence[Any]) -> list[str]:
        out = [f"{float(cost.energy_pj.total):,.2f}"] if energy else []
        for level in row_levels[: len(levels)]:
            out.append(f"{level.reads + level.writes:,}" + ("" if level.fits else " (!)"))
        return out

    return cells


def render_network(result: NetworkResult, fmt: str, color: bool = False) -> str:
    """`analyze -n` output: the JSON object, CSV rows (layers, then total) or the table."""
    if fmt == "json":
        return to_json(result.to_dict()) + "\n"
    if fmt == "csv":
        rows = [layer.to_dict() for layer in result.layers]
        return to_csv([*rows, {"layer": "total", **result.total.to_dict()}])
    warnings = [f"{row.layer.name}: {w}" for row in result.layers for w in row.analysis.warnings]
    text = render_tables([network_table(result)], color, warnings)
    if result.notes:
        text += render_tables([], color, result.notes, prefix="note")
    return text
