"""Whole-network results (`analyze -n`) as a table, JSON or CSV."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.markup import escape
from rich.table import Table

from tenet.report.tables import render_tables, to_csv, to_json


def side_unique(result: dict[str, Any], side: str) -> int:
    """Σ over the tensors of one analyze result of the unique volume on one side."""
    return sum(s[side]["unique"] for s in result["tensors"].values() if s[side] is not None)


def network_table(result: dict[str, Any]) -> Table:
    """One row per layer (one run of it) and a total row (every run of every layer)."""
    title = f"{result['network']} · {result['arch']} (layer rows: one run; total: all runs)"
    table = Table(title=escape(title), box=box.SIMPLE_HEAVY)
    columns = ("layer", "workload", "dataflow", "runs", "MACs", "latency", "PE util.")
    for col in (*columns, "unique reads", "unique writes", "energy"):
        table.add_column(col, justify="left" if col in columns[:3] else "right")
    for row in result["layers"]:
        table.add_row(
            escape(row["layer"]),
            escape(row["workload"]),
            escape(row["dataflow"]),
            f"{row['count']:,}",
            f"{row['macs']:,}",
            f"{row['delay']['latency']:,}",
            f"{row['utilization']:.2%}",
            f"{side_unique(row, 'read'):,}",
            f"{side_unique(row, 'write'):,}",
            f"{row['energy']:,.2f}",
        )
    total = result["total"]
    table.add_section()
    table.add_row(
        "total",
        "",
        "",
        f"{total['layers']:,}",
        f"{total['macs']:,}",
        f"{total['delay']['latency']:,}",
        f"{total['utilization']:.2%}",
        f"{total['volumes']['read']['unique']:,}",
        f"{total['volumes']['write']['unique']:,}",
        f"{total['energy']:,.2f}",
        style="bold",
    )
    return table


def render_network(result: dict[str, Any], fmt: str, color: bool = False) -> str:
    """`analyze -n` output: the JSON object, CSV rows (layers, then total) or the table."""
    if fmt == "json":
        return to_json(result) + "\n"
    if fmt == "csv":
        return to_csv([*result["layers"], {"layer": "total", **result["total"]}])
    warnings = [f"{row['layer']}: {w}" for row in result["layers"] for w in row["warnings"]]
    text = render_tables([network_table(result)], color, warnings)
    if result["notes"]:
        text += render_tables([], color, result["notes"], prefix="note")
    return text
