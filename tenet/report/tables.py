"""Rendering results: a readable table (rich), JSON, or CSV."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from tenet.model.metrics import TENSOR_FIELDS

FORMATS = ("table", "json", "csv")


def to_json(result: dict[str, Any]) -> str:
    """JSON with exact integers (Python ints of any size)."""
    return json.dumps(result, indent=2)


def flatten(result: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """{"delay": {"ingress": 1}} -> {"delay.ingress": 1}; lists joined by ';'."""
    flat: dict[str, Any] = {}
    for key, value in result.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(flatten(value, name + "."))
        elif isinstance(value, list):
            flat[name] = json.dumps(value)
        else:
            flat[name] = "" if value is None else value
    return flat


def to_csv(rows: list[dict[str, Any]]) -> str:
    """One header line and one line per result (columns: dotted JSON keys)."""
    flat = [flatten(row) for row in rows]
    columns: dict[str, None] = {}
    for row in flat:
        for key in row:
            columns.setdefault(key, None)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    writer.writerows(flat)
    return out.getvalue()


def _num(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.2f}" if abs(value) < 1e15 else f"{value:.4g}"
    return str(value)


def analysis_tables(result: dict[str, Any]) -> list[Table]:
    """A summary table and a per-tensor table for one `analyze` result."""
    title = escape(f"{result['workload']} · {result['arch']} · {result['dataflow']}")
    summary = Table(title=title, box=box.SIMPLE_HEAVY, show_header=False)
    summary.add_column("metric", style="bold")
    summary.add_column("value", justify="right")
    delay = result["delay"]
    rows = [
        ("instances", result["instances"]),
        ("MACs", result["macs"]),
        ("PEs (active / array)", f"{_num(result['active_pes'])} / {_num(result['pe_count'])}"),
        ("average active PEs", result["avg_active_pes"]),
        ("time steps", result["time_steps"]),
        ("ingress delay", delay["ingress"]),
        ("egress delay", delay["egress"]),
        ("compute delay", delay["compute"]),
        ("latency", delay["latency"]),
        ("PE utilization", f"{result['utilization']:.2%}"),
        ("interconnect bandwidth (IBW)", result["bandwidth"]["ibw"]),
        ("scratchpad bandwidth (SBW)", result["bandwidth"]["sbw"]),
        ("energy", result["energy"]),
    ]
    for name, value in rows:
        summary.add_row(name, value if isinstance(value, str) else _num(value))

    tensors = Table(box=box.SIMPLE_HEAVY, title="per tensor (words)")
    for col in (
        "tensor",
        "side",
        "total",
        "unique",
        "reuse",
        "temporal",
        "spatial",
        "reuse factor",
        "IBW",
        "SBW",
    ):
        tensors.add_column(col, justify="left" if col in ("tensor", "side") else "right")
    for name, sides in result["tensors"].items():
        for side, v in sides.items():
            if v is None:
                continue
            tensors.add_row(
                escape(name),
                side,
                *(_num(v[k]) for k in TENSOR_FIELDS),
            )
    return [summary, tensors]


def render_tables(
    tables: list[Table],
    color: bool | None = None,
    warnings: list[str] = (),
    prefix: str = "warning",
) -> str:
    # Wide enough that rich never elides digits of an exact count; tables size to content.
    console = Console(
        record=True,
        width=400,
        file=io.StringIO(),
        force_terminal=color,
        no_color=not color,
        soft_wrap=True,
    )
    for table in tables:
        console.print(table)
    for warning in warnings:
        console.print(f"{prefix}: {warning}", markup=False, highlight=False)
    return console.export_text(styles=bool(color))


def render(results: list[dict[str, Any]], fmt: str, color: bool = False) -> str:
    """Render `analyze`/`simulate` results in one of FORMATS."""
    if fmt == "json":
        return to_json(results[0] if len(results) == 1 else results) + "\n"
    if fmt == "csv":
        return to_csv(results)
    tables = [t for r in results for t in analysis_tables(r)]
    for r in results:
        if "bound" in r:
            tables.append(bound_table(r["bound"]))
    warnings = [w for r in results for w in r.get("warnings", [])]
    return render_tables(tables, color, warnings)


def comparison_table(workload: str, dataflow: str, results: list[dict[str, Any]]) -> Table:
    """Side-by-side table; the best value of each ranked row is starred."""
    from tenet.analysis.compare import comparison_rows

    table = Table(title=escape(f"{workload} · {dataflow}") + " (* = best)", box=box.SIMPLE_HEAVY)
    table.add_column("metric", style="bold")
    for result in results:
        table.add_column(escape(result["arch"]), justify="right")
    for row in comparison_rows(results):
        best = row.best()
        cells = []
        for n, value in enumerate(row.values):
            text = f"{value:.2%}" if row.kind == "utilization" else _num(value)
            cells.append(f"[green]*{text}[/green]" if n in best else text)
        table.add_row(escape(row.label), *cells)
    return table


def render_comparison(
    workload: str, dataflow: str, results: list[dict[str, Any]], fmt: str, color: bool = False
) -> str:
    from tenet.analysis.compare import comparison_json

    if fmt == "json":
        return to_json(comparison_json(workload, dataflow, results)) + "\n"
    if fmt == "csv":
        return to_csv(results)
    warnings = [f"{r['arch']}: {w}" for r in results for w in r.get("warnings", [])]
    return render_tables([comparison_table(workload, dataflow, results)], color, warnings)


def validation_text(result: dict[str, Any]) -> str:
    """Human-readable `validate` report."""
    head = f"{result['workload']} · {result['arch']} · {result['dataflow']}"
    if result["legal"]:
        return f"{head}: legal\nnotation: {result['notation']}\n"
    lines = [f"{head}: ILLEGAL, {len(result['violations'])} violation(s)"]
    for v in result["violations"]:
        lines.append(f"  {v['kind']} ({v['count']:,} instances): {v['message']}")
    return "\n".join(lines) + "\n"


def trace_table(result: dict[str, Any], title: str, color: bool = False) -> str:
    """Steps x PEs, each cell the elements touched; fetched ones plain, reused ones marked *."""
    table = Table(
        title=escape(f"{title}: {result['tensor']} ({result['side']}); * = reused, not fetched"),
        box=box.SIMPLE_HEAVY,
    )
    table.add_column("time")
    for pe in result["pes"]:
        table.add_column(escape(pe))
    cells: dict[tuple[str, str], str] = {}
    for cell in result["cells"]:
        cells[(cell["time"], cell["pe"])] = " ".join(
            e["element"] + ("*" if e["reused"] else "") for e in cell["elements"]
        )
    for step in result["steps"]:
        table.add_row(escape(step), *(escape(cells.get((step, pe), "")) for pe in result["pes"]))
    notes = []
    if result["total_steps"] > len(result["steps"]) or result["total_pes"] > len(result["pes"]):
        notes.append(
            f"showing {len(result['steps'])} of {result['total_steps']} steps and "
            f"{len(result['pes'])} of {result['total_pes']} active PEs (--steps, --pes)"
        )
    return render_tables([table], color, notes, prefix="note")


def bounds_tables(report: dict[str, Any]) -> list[Table]:
    """Summary, lookups and the ski slope's points: the least traffic over Snowcat mappings
    (one tile per tensor, all at one buffer level, perfect factors), which other schedules
    can beat, so no row claims a lower bound."""
    summary = Table(
        title=escape(f"Snowcat front: {report['einsum']}"), box=box.SIMPLE_HEAVY, show_header=False
    )
    summary.add_column("metric", style="bold")
    summary.add_column("value", justify="right")
    shape = ", ".join(f"{r}={n}" for r, n in report["shape"].items())
    for name, value in (
        ("shape", shape),
        ("MACs", report["macs"]),
        ("mappings evaluated", report["mappings_evaluated"]),
        ("algorithmic minimum (words)", report["algorithmic_minimum"]),
        ("maximal effectual buffer (words)", report["max_effectual_buffer"]),
        ("peak OI (ops/byte)", report["peak_oi"]),
    ):
        summary.add_row(name, value if isinstance(value, str) else _num(value))
    if "area_split" in report:
        best = report["area_split"]["best"]
        summary.add_row(
            "best area split",
            f"{best['buffer_bytes']:,.0f} B buffer ({best['buffer_share']:.1%}), "
            f"{best['macs']:,} MACs, {best['gops']:,.1f} GOPS",
        )
    tables = [summary]
    if report.get("at"):
        lookups = Table(
            title="Snowcat front at buffer size (least traffic over Snowcat mappings)",
            box=box.SIMPLE_HEAVY,
        )
        for col in ("size", "words", "accesses", "OI", "mapping"):
            lookups.add_column(col, justify="left" if col in ("size", "mapping") else "right")
        for row in report["at"]:
            lookups.add_row(
                escape(row["size"]),
                _num(row["words"]),
                _num(row["accesses"]),
                _num(row["oi"]),
                escape(row["mapping"] or "no mapping fits"),
            )
        tables.append(lookups)
    if "hierarchy" in report:
        levels = Table(
            title="memory hierarchy (Snowcat front at each inner level's capacity)",
            box=box.SIMPLE_HEAVY,
        )
        for col in ("levels", "capacity (words)", "accesses (words)", "GB/s", "seconds"):
            levels.add_column(col, justify="left" if col == "levels" else "right")
        bottleneck = report["hierarchy"]["bottleneck"]
        for p in report["hierarchy"]["levels"]:
            name = f"{p['inner']} <-> {p['outer']}"
            mark = " (bottleneck)" if name == bottleneck else ""
            levels.add_row(
                escape(name + mark),
                _num(p["capacity_words"]),
                _num(p["accesses"]),
                _num(p["bandwidth_gbps"]),
                _num(p["seconds"]) if p["seconds"] is None else f"{p['seconds']:.4g}",
            )
        if "compute_seconds" in report["hierarchy"]:
            mark = " (bottleneck)" if bottleneck == "compute" else ""
            levels.add_row(
                "compute" + mark, "", "", "", f"{report['hierarchy']['compute_seconds']:.4g}"
            )
        tables.append(levels)
    front = Table(
        title="ski slope (Snowcat front: least traffic over Snowcat mappings)", box=box.SIMPLE_HEAVY
    )
    for col in ("buffer", "accesses", "OI", "mapping"):
        front.add_column(col, justify="left" if col == "mapping" else "right")
    for p in report["pareto"]:
        front.add_row(_num(p["buffer"]), _num(p["accesses"]), _num(p["oi"]), escape(p["mapping"]))
    tables.append(front)
    bypass = ", keep or bypass per tensor" if report.get("bypass") else ""
    notes = Table(box=None, show_header=False, show_edge=False, pad_edge=False)
    notes.add_column("note")
    notes.add_row(
        "note: the Snowcat front is the least backing-store traffic over Snowcat mappings (one "
        "tile per tensor, all tiles at one buffer level, perfect factors, every outer-loop "
        f"order{bypass}) at each buffer size."
    )
    notes.add_row(
        "note: each point is attained by a Snowcat schedule, but it is not a lower bound: "
        "schedules outside that space (per-tensor tile placement, imperfect tiles) can move less."
    )
    tables.append(notes)
    return tables


def bound_table(bound: dict[str, Any]) -> Table:
    """`analyze --bound`: the dataflow's traffic next to the least traffic over Snowcat
    mappings at the array's on-chip capacity. Schedules outside the Snowcat space can move
    less, so the ratio is a comparison, not a distance to the optimum."""
    table = Table(
        title="dataflow vs the Snowcat front at on-chip capacity",
        box=box.SIMPLE_HEAVY,
        show_header=False,
    )
    table.add_column("metric", style="bold")
    table.add_column("value", justify="right")
    table.add_row("capacity (words)", _num(bound["capacity_words"]))
    table.add_row("least traffic over Snowcat mappings", _num(bound["accesses"]))
    table.add_row("dataflow scratchpad traffic", _num(bound["dataflow_traffic"]))
    table.add_row("dataflow traffic / Snowcat front", _num(bound["ratio"]))
    table.add_row("best Snowcat mapping", escape(bound["mapping"] or "-"))
    table.caption = "other schedules may move less than the Snowcat front"
    return table
