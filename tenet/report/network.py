"""Whole-network results (`analyze -n`) as a table, JSON or CSV."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich import box
from rich.markup import escape
from rich.table import Table

from tenet.report.serial import to_csv, to_json
from tenet.report.tables import render_tables

if TYPE_CHECKING:
    from tenet.explore.network import NetworkResult


def network_table(result: NetworkResult) -> Table:
    """One row per layer (one run of it) and a total row (every run of every layer)."""
    title = f"{result.network} · {result.arch} (layer rows: one run; total: all runs)"
    table = Table(title=escape(title), box=box.SIMPLE_HEAVY)
    columns = ("layer", "workload", "dataflow", "runs", "MACs", "latency", "PE util.")
    for col in (*columns, "unique reads", "unique writes", "energy"):
        table.add_column(col, justify="left" if col in columns[:3] else "right")
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
        )
    total = result.total
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
        style="bold",
    )
    return table


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
