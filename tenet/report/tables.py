"""Rendering results: a readable table (rich), JSON, or CSV: the tables of `analyze`,
`simulate`, `compare`, `validate` and `trace`. The layout helpers live in
`tenet.report.layout` and the bounds tables in `tenet.report.bounds_tables`; both are
re-exported here under their old import path."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich import box
from rich.markup import escape
from rich.table import Table

from tenet.errors import option_ref, write_options
from tenet.model.metrics import TENSOR_FIELDS
from tenet.report.bounds_tables import (
    SPACE_NAMES,
    bound_table,
    bounds_tables,
    spaces_tables,
)
from tenet.report.layout import (
    FULL_WIDTH,
    _num,
    fit_table,
    fit_width,
    number_column,
    number_rows,
    render_tables,
    repeat_columns,
)
from tenet.report.serial import (
    FORMATS,  # defined once, beside the formats it names
    as_dict,
    render_data,
    to_csv,
    to_json,
)

__all__ = [
    "ENERGY_LABEL",
    "FORMATS",
    "FULL_WIDTH",
    "SPACE_NAMES",
    "add_level_rows",
    "analysis_tables",
    "bound_table",
    "bounds_tables",
    "comparison_table",
    "cost_tables",
    "fit_table",
    "fit_width",
    "levels_table",
    "render",
    "render_comparison",
    "render_tables",
    "repeat_columns",
    "schedule_tables",
    "spaces_tables",
    "trace_table",
    "validation_text",
]


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
        ("ingress delay (cycles)", delay["ingress"]),
        ("egress delay (cycles)", delay["egress"]),
        ("compute delay (cycles)", delay["compute"]),
        ("latency (cycles)", delay["latency"]),
        *(
            [
                ("schedule delay (cycles)", delay["schedule"]),
                (
                    "peak words/step (in / out)",
                    " / ".join(
                        _num(result["bandwidth"][key]) for key in ("peak_ingress", "peak_egress")
                    ),
                ),
            ]
            if "schedule" in delay
            else []
        ),
        *hierarchy_rows(delay),
        ("PE utilization", f"{result['utilization']:.2%}"),
        ("interconnect bandwidth (IBW, words/cycle)", result["bandwidth"]["ibw"]),
        ("scratchpad bandwidth (SBW, words/cycle)", result["bandwidth"]["sbw"]),
        (ENERGY_LABEL, result["energy"]),
    ]
    for name, value in rows:
        summary.add_row(name, value if isinstance(value, str) else _num(value))

    tensors = repeat_columns(Table(box=box.SIMPLE_HEAVY, title="per tensor (words)"), 2)
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
    rows = [
        [escape(name), side, *(v[k] for k in TENSOR_FIELDS)]
        for name, sides in result["tensors"].items()
        for side, v in sides.items()
        if v is not None
    ]
    for row in number_rows(rows, 2):
        tensors.add_row(*row)
    return [summary, tensors, *(cost_tables(result["cost"]) if "cost" in result else [])]


def hierarchy_rows(delay: dict[str, Any]) -> list[tuple[str, Any]]:
    """The delay through the memory hierarchy and what bounds it, when the analysis has them
    (`delay.hierarchy`, `delay.bound_by`: levels with tile depths)."""
    rows: list[tuple[str, Any]] = []
    if delay.get("hierarchy") is not None:
        rows.append(("delay through the hierarchy (cycles)", delay["hierarchy"]))
    if delay.get("bound_by") is not None:
        rows.append(("bound by", escape(str(delay["bound_by"]))))
    return rows


def cost_tables(cost: dict[str, Any]) -> list[Table]:
    """analyze's `cost` (docs/energy.md): energy parts in pJ, in all and per tensor (the
    MACs belong to no tensor), and the area in µm² and mm²."""
    energy, area = cost["energy_pj"], cost["area_um2"]
    parts = ("total", "mac", "registers", "scratchpad", "interconnect", "dram")
    if energy.get("intermediate"):  # present and not zero: the intermediates' energy
        parts += ("intermediate",)
    by_part = repeat_columns(Table(title="energy (pJ)", box=box.SIMPLE_HEAVY), 1)
    by_part.add_column("", justify="left")
    for part in parts:
        by_part.add_column(f"{part} pJ", justify="right")
    rows = [["all", *(energy.get(p) for p in parts)]]
    rows += [[escape(t), *(by.get(p) for p in parts)] for t, by in energy["by_tensor"].items()]
    for row in number_rows(rows):
        by_part.add_row(*row)
    if energy.get("by_level"):
        by_part.caption = "by memory level: " + ", ".join(
            f"{escape(str(level))} {cell} pJ"
            for level, cell in zip(
                energy["by_level"], number_column(list(energy["by_level"].values())), strict=True
            )
        )
    summary = Table(title="area", box=box.SIMPLE_HEAVY, show_header=False)
    summary.add_column("metric", style="bold")
    summary.add_column("value", justify="right")
    for name, key in (
        ("PE array (µm²)", "pe_array"),
        ("link registers (µm²)", "link_registers"),
        ("buses (µm²)", "buses"),
        ("scratchpad (µm²)", "scratchpad"),
        ("total (µm²)", "total"),
    ):
        summary.add_row(name, _num(area[key]))
    summary.add_row("total (mm²)", f"{area['total'] / 1e6:,.4f}")
    return [by_part, summary, *action_tables(cost.get("actions") or {})]


#: Counts of `cost.actions` the tables show when some tensor has a non-zero one.
ACTION_COLUMNS = (
    ("accumulator_reads", "accumulator reads"),
    ("register_read_outs", "register read-outs"),
)


def action_tables(actions: dict[str, Any]) -> list[Table]:
    """A table of the per-tensor action counts of ACTION_COLUMNS that some tensor has and
    that are not all zero; none when there are none."""
    keys = [
        (key, label)
        for key, label in ACTION_COLUMNS
        if any((counts or {}).get(key) for counts in actions.values())
    ]
    if not keys:
        return []
    table = repeat_columns(Table(title="cost actions (counts)", box=box.SIMPLE_HEAVY), 1)
    table.add_column("tensor", justify="left")
    for _, label in keys:
        table.add_column(label, justify="right")
    rows = [[escape(t), *((c or {}).get(k) for k, _ in keys)] for t, c in actions.items()]
    for row in number_rows(rows):
        table.add_row(*row)
    return [table]


def schedule_tables(result: dict[str, Any]) -> list[Table]:
    """`analyze --profile`: the schedule-time numbers, then in(t) and out(t) piece by piece
    (docs/metrics.md, schedule time)."""
    delay, bandwidth = result["delay"], result["bandwidth"]
    summary = Table(title="schedule time", box=box.SIMPLE_HEAVY, show_header=False)
    summary.add_column("metric", style="bold")
    summary.add_column("value", justify="right")
    for name, value in (
        ("steps", delay["steps"]),
        ("schedule delay (cycles)", delay["schedule"]),
        ("overlapped delay (cycles)", delay["overlapped"]),
        ("PE utilization (schedule)", f"{result['utilization_schedule']:.2%}"),
        ("peak ingress (words/step)", bandwidth["peak_ingress"]),
        ("peak egress (words/step)", bandwidth["peak_egress"]),
        ("average ingress (words/step)", bandwidth["avg_ingress"]),
        ("average egress (words/step)", bandwidth["avg_egress"]),
    ):
        summary.add_row(name, value if isinstance(value, str) else _num(value))
    pieces = repeat_columns(Table(title="words per step, piece by piece", box=box.SIMPLE_HEAVY), 1)
    for col in ("side", "steps", "busiest", "words", "words(t)", "time stamps"):
        pieces.add_column(col, justify="right" if col in ("steps", "busiest", "words") else "left")
    for side, name in (("ingress", "in"), ("egress", "out")):
        for piece in result["profile"][side]:
            pieces.add_row(
                name,
                _num(piece["steps"]),
                _num(piece["peak"]),
                _num(piece["total"]),
                escape(piece["words"]),
                escape(piece["steps_set"]),
            )
    return [summary, pieces]


def render(results: Sequence[Any], fmt: str, color: bool = False) -> str:
    """Render `analyze`/`simulate` results (typed, e.g. `Analysis`, or their JSON) in one
    of FORMATS."""
    results = [as_dict(r) for r in results]
    if fmt in ("json", "csv"):
        return render_data(results, fmt)
    tables = [t for r in results for t in analysis_tables(r)]
    for r in results:
        if r.get("levels"):
            tables.append(levels_table(r["levels"]))
        if "bound" in r:
            tables.append(bound_table(r["bound"]))
        if "profile" in r:
            tables.extend(schedule_tables(r))
    warnings = [w for r in results for w in r.get("warnings", [])]
    return render_tables(tables, color, warnings)


#: The row of TENET's `energy`: a unitless model, not picojoules (docs/metrics.md).
ENERGY_LABEL = "energy (TENET, unitless)"


def comparison_table(
    workload: str,
    dataflow: str,
    results: list[dict[str, Any]],
    priced: Sequence[frozenset[str]] | None = None,
    flags: Mapping[str, str] | None = None,
) -> Table:
    """Side-by-side table; the best value of each ranked row is starred. Every value of a
    column whose warnings flag an effect its numbers rest on gets a `!` and no star; a row
    whose columns price different things (`cost_ranking`, `priced`: `priced_parts` per
    column) says `(not ranked)` and has no star. Options a label names are written as
    `flags` says (`write_options`)."""
    from tenet.analysis.compare import comparison_rows, unranked_columns

    unranked = unranked_columns(results)
    legend = " (* = best; ! = rests on a warned effect, not ranked)" if unranked else " (* = best)"
    table = Table(title=escape(f"{workload} · {dataflow}") + legend, box=box.SIMPLE_HEAVY)
    table.add_column("metric", style="bold")
    for result in results:
        header = result["arch"]
        if "notation" in result:  # compare --best: the arch and the dataflow it runs
            header += f"\n{result['dataflow']}"
        table.add_column(escape(header), justify="right")
    for row in comparison_rows(results, priced):
        best = row.best(unranked)
        cells = []
        for n, value in enumerate(row.values):
            text = (
                f"{value:.2%}" if row.kind == "utilization" and value is not None else _num(value)
            )
            if n in unranked:
                text += "!"
            cells.append(f"[green]*{text}[/green]" if n in best else text)
        label = write_options(row.label, flags)
        label = label if row.ranked else f"{label} (not ranked)"
        table.add_row(escape(label), *cells)
    add_level_rows(table, results)
    return table


def add_level_rows(table: Table, results: list[dict[str, Any]]) -> None:
    """A section per memory level some result has (docs/levels.md): its reads and writes
    from and to the level above, the capacity its tiles need (`(!)`: more than the level
    holds) and whether they fit; `-` for a result without that level. Not ranked."""
    names = list(dict.fromkeys(lv["name"] for r in results for lv in r.get("levels") or []))
    for name in names:
        levels = [
            next((lv for lv in r.get("levels") or [] if lv["name"] == name), None) for r in results
        ]
        table.add_section()
        for label, cell in (
            ("reads (words)", lambda lv: _num(lv["reads"])),
            ("writes (words)", lambda lv: _num(lv["writes"])),
            (
                "capacity needed (words)",
                lambda lv: _num(lv["capacity_needed"]) + ("" if lv["fits"] else " (!)"),
            ),
            ("fits", lambda lv: "yes" if lv["fits"] else "no"),
        ):
            cells = ["-" if lv is None else cell(lv) for lv in levels]
            table.add_row(escape(f"{name} {label}"), *cells)


def render_comparison(
    workload: str,
    dataflow: str,
    results: list[dict[str, Any]],
    fmt: str,
    color: bool = False,
    priced: Sequence[frozenset[str]] | None = None,
    flags: Mapping[str, str] | None = None,
) -> str:
    """`compare` in one of FORMATS; the table is followed by `comparison_warnings` (each
    once, prefixed with its column). The options the text names are written as `flags`
    says (the command line's flags), else by their names."""
    from tenet.analysis.compare import comparison_json, comparison_warnings

    if fmt == "json":
        text = to_json(comparison_json(workload, dataflow, results, priced)) + "\n"
        return write_options(text, flags)
    if fmt == "csv":
        return to_csv(results)
    warnings = [write_options(w, flags) for w in comparison_warnings(results, priced)]
    table = comparison_table(workload, dataflow, results, priced, flags)
    return render_tables([table], color, warnings)


def validation_text(result: Any) -> str:
    """Human-readable `validate` report (a `Validation`, or its JSON)."""
    result = as_dict(result)
    head = f"{result['workload']} · {result['arch']} · {result['dataflow']}"
    if result["legal"]:
        return f"{head}: legal\nnotation: {result['notation']}\n"
    lines = [f"{head}: ILLEGAL, {len(result['violations'])} violation(s)"]
    for v in result["violations"]:
        lines.append(f"  {v['kind']} ({v['count']:,} instances): {v['message']}")
    return "\n".join(lines) + "\n"


def trace_table(
    result: Any, title: str, color: bool = False, flags: Mapping[str, str] | None = None
) -> str:
    """Steps x PEs, each cell the elements touched; fetched ones plain, reused ones marked *;
    the note on a cut window names the options `steps` and `pes` as `flags` says. `result`
    is a `Trace` or its JSON."""
    result = as_dict(result)
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
        outside = result.get("outside_pes", 0)
        used = (
            f"{result['total_pes']} used PEs ({outside} of them outside the "
            f"{result['pe_count']}-PE array)"
            if outside
            else f"{result['total_pes']} active PEs"
        )
        notes.append(
            f"showing {len(result['steps'])} of {result['total_steps']} steps and "
            f"{len(result['pes'])} of {used} "
            + write_options(f"({option_ref('steps')}, {option_ref('pes')})", flags)
        )
    text = render_tables([table], color, notes, prefix="note")
    if result.get("warnings"):
        text += render_tables([], color, result["warnings"])
    return text


def levels_table(levels: list[dict[str, Any]]) -> Table:
    """The traffic of each memory level with a tile depth (docs/levels.md)."""
    table = Table(title="memory levels (words to and from the level above)", box=box.SIMPLE_HEAVY)
    extra = [(k, c) for k, c in LEVEL_EXTRA_COLUMNS if any(k in lv for lv in levels)]
    columns = ["level", "above", "depth", "tiles", "needs", "capacity", "reads", "writes", "ns"]
    for col in columns + [c for _, c in extra]:
        table.add_column(col, justify="left" if col in ("level", "above") else "right")
    keys = ("tile_depth", "tiles", "capacity_needed", "capacity", "reads", "writes", "transfer_ns")
    numbers = [
        [*(lv[k] for k in keys), *(lv.get(k) for k, _ in extra if k != "double_buffered")]
        for lv in levels
    ]
    for lv, cells in zip(levels, number_rows(numbers, 0), strict=True):
        cells[2] += "" if lv["fits"] else " (!)"
        if any(k == "double_buffered" for k, _ in extra):
            flag = lv.get("double_buffered")
            cells.append("-" if flag is None else "yes" if flag else "no")
        table.add_row(escape(lv["name"]), escape(lv["above"]), *cells)
    doubled = any(k == "double_buffered" for k, _ in extra)
    table.caption = (
        "needs: max words of one tile"
        + (
            ", with the next tile's fill and the previous tile's write-back when "
            "double-buffered (single: one tile alone)"
            if doubled
            else ""
        )
        + "; (!) more than the capacity"
    ) + (
        "; fill/drain: cycles to fill a tile from the level above and to drain it back"
        if any(k in ("fill_cycles", "drain_cycles") for k, _ in extra)
        else ""
    )
    return table


#: Level keys shown as extra columns of the levels table when some level has them; the
#: flag `double_buffered` comes last.
LEVEL_EXTRA_COLUMNS = (
    ("capacity_needed_single", "needs (single)"),
    ("fill_cycles", "fill cycles"),
    ("drain_cycles", "drain cycles"),
    ("double_buffered", "double buffered"),
)
