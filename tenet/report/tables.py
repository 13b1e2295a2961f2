"""Rendering results: a readable table (rich), JSON, or CSV."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import io
import re
import weakref
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.markup import escape
from rich.measure import Measurement
from rich.table import Column, Table
from rich.text import Text

from tenet.model.metrics import TENSOR_FIELDS
from tenet.report.serial import render_data, to_csv, to_json

FORMATS = ("table", "json", "csv")

#: Width of a table that is not fitted to a terminal: wide enough for every column.
FULL_WIDTH = 400

#: Columns the tables rendered now must fit in; None keeps every table whole (files, pipes).
_fit_width: ContextVar[int | None] = ContextVar("tenet_table_width", default=None)

#: Leading columns repeated in each part of a table split to fit (default: the first).
_key_columns: weakref.WeakKeyDictionary[Table, int] = weakref.WeakKeyDictionary()

# A cell that is one number (as `_num` and the reports write them): never wrapped.
_NUMBER = r"[-+]?(?:\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?|inf|nan)"
_NUMERIC_CELL = re.compile(
    rf"\*?{_NUMBER}(?:\s?(?:%|x|B|KiB|MiB|GiB|TiB))?(?:\s/\s{_NUMBER})?", re.IGNORECASE
)


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
        *(
            [
                ("schedule delay", delay["schedule"]),
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
        ("PE utilization", f"{result['utilization']:.2%}"),
        ("interconnect bandwidth (IBW)", result["bandwidth"]["ibw"]),
        ("scratchpad bandwidth (SBW)", result["bandwidth"]["sbw"]),
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
    for name, sides in result["tensors"].items():
        for side, v in sides.items():
            if v is None:
                continue
            tensors.add_row(
                escape(name),
                side,
                *(_num(v[k]) for k in TENSOR_FIELDS),
            )
    return [summary, tensors, *(cost_tables(result["cost"]) if "cost" in result else [])]


def cost_tables(cost: dict[str, Any]) -> list[Table]:
    """analyze's `cost` (docs/energy.md): energy parts in pJ, in all and per tensor (the
    MACs belong to no tensor), and the area in µm² and mm²."""
    energy, area = cost["energy_pj"], cost["area_um2"]
    parts = ("total", "mac", "registers", "scratchpad", "interconnect", "dram")
    by_part = repeat_columns(Table(title="energy (pJ)", box=box.SIMPLE_HEAVY), 1)
    by_part.add_column("", justify="left")
    for part in parts:
        by_part.add_column(f"{part} pJ", justify="right")
    by_part.add_row("all", *(_num(energy[p]) for p in parts))
    for tensor, by in energy["by_tensor"].items():
        by_part.add_row(escape(tensor), *(_num(by[p]) for p in parts))
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
    return [by_part, summary]


def schedule_tables(result: dict[str, Any]) -> list[Table]:
    """`analyze --profile`: the schedule-time numbers, then in(t) and out(t) piece by piece
    (docs/metrics.md, schedule time)."""
    delay, bandwidth = result["delay"], result["bandwidth"]
    summary = Table(title="schedule time", box=box.SIMPLE_HEAVY, show_header=False)
    summary.add_column("metric", style="bold")
    summary.add_column("value", justify="right")
    for name, value in (
        ("steps", delay["steps"]),
        ("schedule delay", delay["schedule"]),
        ("overlapped delay", delay["overlapped"]),
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


@contextlib.contextmanager
def fit_width(width: int | None) -> Iterator[None]:
    """Fit the tables rendered inside to `width` columns (None: every table whole)."""
    token = _fit_width.set(width)
    try:
        yield
    finally:
        _fit_width.reset(token)


def repeat_columns(table: Table, count: int) -> Table:
    """Repeat the first `count` columns (the row labels) in each part of `table` split to fit."""
    _key_columns[table] = count
    return table


def render_tables(
    tables: list[Table],
    color: bool | None = None,
    warnings: list[str] = (),
    prefix: str = "warning",
    width: int | None = None,
) -> str:
    """The tables and warnings as text. Fitted to `width` columns (default: the width set by
    `fit_width`): text columns fold between words and, when the numbers alone are too wide,
    the columns are split over several tables; a number is never split or cut. With no width,
    every table is whole (as wide as it needs)."""
    width = width if width is not None else _fit_width.get()
    console = Console(
        record=True,
        width=FULL_WIDTH if width is None else max(width, 1),
        file=io.StringIO(),
        force_terminal=color,
        no_color=not color,
        soft_wrap=width is None,
    )
    for table in tables:
        for part in [table] if width is None else fit_table(table, width, console):
            console.print(part)
    for warning in warnings:
        console.print(f"{prefix}: {warning}", markup=False, highlight=False)
    return console.export_text(styles=bool(color))


def fit_table(table: Table, width: int, console: Console) -> list[Table]:
    """`table` as tables at most `width` columns wide: text columns folded down to their
    longest word, then, if that is not enough, the columns split over several tables that
    each repeat the row labels (`repeat_columns`). A number, and an index such as
    `A[0, 1]`, is never split or cut (a column too wide on its own is shown whole, wider
    than `width`); the parts are as few as can be and as even as they can be."""
    wide = console.options.update_width(10 * FULL_WIDTH)
    if Measurement.get(console, wide, table).maximum <= width:
        return [table]
    columns = [_FitColumn(console, table, column) for column in table.columns]
    keys = list(range(min(_key_columns.get(table, 1), len(columns) - 1)))
    overheads: dict[int, int] = {}

    def overhead(indices: list[int]) -> int:  # edges, separators and padding of the columns
        if len(indices) not in overheads:  # columns one wide (and empty: only widths count)
            part = copy.copy(table)
            part.columns = [
                dataclasses.replace(columns[i].column, _index=n, width=1, _cells=[])
                for n, i in enumerate(indices)
            ]
            overheads[len(indices)] = Measurement.get(console, wide, part).maximum - len(indices)
        return overheads[len(indices)]

    def split(limit: int) -> list[list[int]]:  # consecutive columns, each part within `limit`
        groups: list[list[int]] = [[]]
        for index in range(len(keys), len(columns)):
            indices = keys + groups[-1] + [index]
            if groups[-1] and sum(columns[i].least for i in indices) + overhead(indices) > limit:
                groups.append([])
            groups[-1].append(index)
        return groups

    # As few parts as at the full width, but as even as they can be.
    fewest, low, high = len(split(width)), 1, width
    while low < high:
        middle = (low + high) // 2
        low, high = (low, middle) if len(split(middle)) <= fewest else (middle + 1, high)
    groups = split(low)
    parts = []
    for number, group in enumerate(groups):
        chosen = [columns[i] for i in keys + group]
        part = _part(table, chosen, _share(width - overhead(keys + group), chosen))
        if number and isinstance(table.title, str):
            part.title = f"{table.title} (continued)"
        if number < len(groups) - 1:
            part.caption = None
        parts.append(part)
    return parts


class _FitColumn:
    """A column's cells as text, and its least and natural content widths: a number is
    never narrower than itself, other text folds between words, but not inside brackets."""

    def __init__(self, console: Console, table: Table, column: Column):
        self.column = column

        def text(cell: Any) -> Any:
            return (
                console.render_str(cell, highlight=column.highlight)
                if isinstance(cell, str)
                else cell
            )

        self.header = text(column.header) if table.show_header else None
        self.cells = [text(cell) for cell in column.cells]
        self.least = self.natural = 1
        for cell, is_value in [(self.header, False)] * table.show_header + [
            (cell, True) for cell in self.cells
        ]:
            if not isinstance(cell, Text):  # another renderable: as rich measures it
                low, high = Measurement.get(console, console.options.update_width(10**4), cell)
            else:
                high = max((cell_len(line) for line in cell.plain.split("\n")), default=0)
                numeric = is_value and _NUMERIC_CELL.fullmatch(cell.plain.strip())
                low = high if numeric else max((b - a for a, b in _pieces(cell.plain)), default=0)
            self.least, self.natural = max(self.least, low), max(self.natural, high)

    def at(self, width: int) -> Column:
        """The column `width` wide, its text folded to fit."""
        cells = [_fold(cell, width) for cell in self.cells]
        header = self.column.header if self.header is None else _fold(self.header, width)
        return dataclasses.replace(self.column, header=header, width=width, _cells=cells)


def _pieces(plain: str) -> list[tuple[int, int]]:
    """(start, end) of the pieces a line may break between: words, where a space inside
    brackets does not separate (`A[0, 1]` and `T[0, 0, 3]` stay whole)."""
    pieces: list[tuple[int, int]] = []
    start, depth = None, 0
    for i, char in enumerate(plain):
        if char.isspace() and (depth <= 0 or char == "\n"):
            if start is not None:
                pieces.append((start, i))
            start, depth = None, 0
            continue
        if start is None:
            start = i
        depth += (char == "[") - (char == "]")
    if start is not None:
        pieces.append((start, len(plain)))
    return pieces


def _fold(cell: Any, width: int) -> Any:
    """A Text cell folded into lines at most `width` wide, between its pieces; a piece wider
    than `width` stays whole on a line of its own. Other cells as they are."""
    if not isinstance(cell, Text) or all(cell_len(x) <= width for x in cell.plain.split("\n")):
        return cell
    lines: list[Text] = []
    for line in cell.split("\n", allow_blank=True):
        start = end = None
        for a, b in _pieces(line.plain):
            if start is not None and cell_len(line.plain[start:b]) > width:
                lines.append(line[start:end])
                start = None
            start, end = (a if start is None else start), b
        lines.append(line[start:end] if start is not None else Text(""))
    return Text("\n").join(lines)


def _share(room: int, columns: list[_FitColumn]) -> list[int]:
    """Column widths: every column at least its least width, the room left given to the
    columns furthest from their natural width."""
    widths = [c.least for c in columns]
    for _ in range(max(0, room - sum(widths))):
        short = [c.natural - w for w, c in zip(widths, columns)]
        widest = max(range(len(widths)), key=short.__getitem__)
        if short[widest] <= 0:
            break
        widths[widest] += 1
    return widths


def _part(table: Table, columns: list[_FitColumn], widths: list[int]) -> Table:
    """A copy of `table` with these columns, each of a fixed width, in this order."""
    part = copy.copy(table)
    part.columns = [
        dataclasses.replace(column.at(width), _index=n)
        for n, (column, width) in enumerate(zip(columns, widths))
    ]
    return part


def render(results: list[dict[str, Any]], fmt: str, color: bool = False) -> str:
    """Render `analyze`/`simulate` results in one of FORMATS."""
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


def comparison_table(workload: str, dataflow: str, results: list[dict[str, Any]]) -> Table:
    """Side-by-side table; the best value of each ranked row is starred. Every value of a
    column whose warnings flag an effect its numbers rest on gets a `!` and no star."""
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
    for row in comparison_rows(results):
        best = row.best(unranked)
        cells = []
        for n, value in enumerate(row.values):
            text = f"{value:.2%}" if row.kind == "utilization" else _num(value)
            if n in unranked:
                text += "!"
            cells.append(f"[green]*{text}[/green]" if n in best else text)
        table.add_row(escape(row.label), *cells)
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
        outside = result.get("outside_pes", 0)
        used = (
            f"{result['total_pes']} used PEs ({outside} of them outside the "
            f"{result['pe_count']}-PE array)"
            if outside
            else f"{result['total_pes']} active PEs"
        )
        notes.append(
            f"showing {len(result['steps'])} of {result['total_steps']} steps and "
            f"{len(result['pes'])} of {used} (--steps, --pes)"
        )
    text = render_tables([table], color, notes, prefix="note")
    if result.get("warnings"):
        text += render_tables([], color, result["warnings"])
    return text


#: How each mapping space's front is named in tables, by (space, imperfect).
SPACE_NAMES = {
    ("snowcat", False): "Snowcat front",
    ("snowcat", True): "Snowcat front with imperfect tiles",
    ("uneven", False): "uneven front",
    ("uneven", True): "uneven front with imperfect tiles",
}


def _space_note(space: str, imperfect: bool, bypass: bool) -> str:
    """What a front is the least traffic over, in one sentence."""
    what = {
        "snowcat": "Snowcat mappings (one tile per tensor, all tiles at one buffer level, every "
        "outer-loop order",
        "uneven": "uneven mappings (ranks split into several loops in any order, each tensor's "
        "tile at its own position",
    }[space]
    tiles = ", tiles need not divide (last tile partial)" if imperfect else ", perfect factors"
    keep = ", keep or bypass per tensor" if bypass else ""
    return f"least backing-store traffic over {what}{tiles}{keep}) at each buffer size"


def bounds_tables(report: dict[str, Any]) -> list[Table]:
    """Summary, lookups and the ski slope's points: the least traffic over one mapping space,
    which schedules outside it can beat, with the proven lower bound and the gap beside it."""
    space, imperfect = report.get("space", "snowcat"), report.get("imperfect", False)
    name = SPACE_NAMES[(space, imperfect)]
    summary = Table(
        title=escape(f"{name}: {report['einsum']}"), box=box.SIMPLE_HEAVY, show_header=False
    )
    summary.add_column("metric", style="bold")
    summary.add_column("value", justify="right")
    shape = ", ".join(f"{r}={n}" for r, n in report["shape"].items())
    for label, value in (
        ("shape", shape),
        ("MACs", report["macs"]),
        ("mappings evaluated", report["mappings_evaluated"]),
        ("algorithmic minimum (words)", report["algorithmic_minimum"]),
        ("maximal effectual buffer (words)", report["max_effectual_buffer"]),
        ("peak OI (ops/byte)", report["peak_oi"]),
    ):
        summary.add_row(label, value if isinstance(value, str) else _num(value))
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
            title=escape(f"{name} at buffer size, with the lower bound"), box=box.SIMPLE_HEAVY
        )
        for col in ("size", "words", "accesses", "lower bound", "gap", "OI", "mapping"):
            lookups.add_column(col, justify="left" if col in ("size", "mapping") else "right")
        for row in report["at"]:
            lookups.add_row(
                escape(row["size"]),
                _num(row["words"]),
                _num(row["accesses"]),
                _num(row.get("lower_bound")),
                _num(row.get("gap")),
                _num(row["oi"]),
                escape(row["mapping"] or "no mapping fits"),
            )
        tables.append(lookups)
    if "hierarchy" in report:
        levels = Table(
            title=escape(f"memory hierarchy ({name} at each inner level's capacity)"),
            box=box.SIMPLE_HEAVY,
        )
        for col in ("levels", "capacity (words)", "accesses (words)", "GB/s", "seconds"):
            levels.add_column(col, justify="left" if col == "levels" else "right")
        bottleneck = report["hierarchy"]["bottleneck"]
        for p in report["hierarchy"]["levels"]:
            pair = f"{p['inner']} <-> {p['outer']}"
            mark = " (bottleneck)" if pair == bottleneck else ""
            levels.add_row(
                escape(pair + mark),
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
        title=escape(f"ski slope ({name}: {_space_note(space, imperfect, False).split(' (')[0]})"),
        box=box.SIMPLE_HEAVY,
    )
    for col in ("buffer", "accesses", "lower bound", "gap", "OI", "mapping"):
        front.add_column(col, justify="left" if col == "mapping" else "right")
    for p in report["pareto"]:
        front.add_row(
            _num(p["buffer"]),
            _num(p["accesses"]),
            _num(p.get("lower_bound")),
            _num(p.get("gap")),
            _num(p["oi"]),
            escape(p["mapping"]),
        )
    tables.append(front)
    tables.append(
        _slope_notes([f"the {name} is the {_space_note(space, imperfect, report.get('bypass'))}."])
    )
    return tables


def _slope_notes(first: list[str]) -> Table:
    """Notes under a slope: what the front is, and what the lower bound is."""
    notes = Table(box=None, show_header=False, show_edge=False, pad_edge=False)
    notes.add_column("note")
    for line in first:
        notes.add_row("note: " + line)
    notes.add_row(
        "note: each point is attained by a schedule of its space, but it is not a lower bound: "
        "schedules outside that space can move less."
    )
    notes.add_row(
        "note: lower bound: no schedule with that buffer moves fewer words (docs/bounds.md, "
        "'Lower bounds', for the proof and its assumptions); gap = accesses / lower bound."
    )
    return notes


def spaces_tables(report: dict[str, Any]) -> list[Table]:
    """`bounds --compare-spaces`: one row per space, lookups across spaces, each front."""
    summary = Table(
        title=escape(f"mapping spaces compared: {report['einsum']}"), box=box.SIMPLE_HEAVY
    )
    for col in ("space", "mappings evaluated", "front points", "max effectual buffer"):
        summary.add_column(col, justify="left" if col == "space" else "right")
    for label, s in report["spaces"].items():
        summary.add_row(
            escape(label),
            _num(s["mappings_evaluated"]),
            _num(len(s["pareto"])),
            _num(s["max_effectual_buffer"]),
        )
    tables = [summary]
    if report.get("at"):
        lookups = Table(title="accesses at buffer size, per space", box=box.SIMPLE_HEAVY)
        names = list(report["spaces"])
        for col in ("size", "words", "lower bound", *names):
            lookups.add_column(escape(col), justify="left" if col == "size" else "right")
        for row in report["at"]:
            cells = [_num(row["spaces"][n]["accesses"]) for n in names]
            lookups.add_row(
                escape(row["size"]), _num(row["words"]), _num(row["lower_bound"]), *cells
            )
        tables.append(lookups)
    for label, s in report["spaces"].items():
        front = Table(
            title=escape(f"{label}: {SPACE_NAMES[(s['space'], s['imperfect'])]}"),
            box=box.SIMPLE_HEAVY,
        )
        for col in ("buffer", "accesses", "lower bound", "gap", "mapping"):
            front.add_column(col, justify="left" if col == "mapping" else "right")
        for p in s["pareto"]:
            front.add_row(
                _num(p["buffer"]),
                _num(p["accesses"]),
                _num(p["lower_bound"]),
                _num(p["gap"]),
                escape(p["mapping"]),
            )
        tables.append(front)
    notes = [
        f"{label}: the {_space_note(s['space'], s['imperfect'], s['bypass'])}."
        for label, s in report["spaces"].items()
    ]
    tables.append(_slope_notes(notes))
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
    dram = bound.get("dram")
    if dram:  # docs/levels.md: the traffic of the level just inside the outermost one
        where = f"{dram['level']} <-> {dram['above']}"
        table.add_row(f"{where}: capacity the tiles need (words)", _num(dram["capacity_words"]))
        table.add_row(f"{where}: dataflow words", _num(dram["dataflow_words"]))
        table.add_row(f"{where}: dataflow words as the bound charges", _num(dram["bound_words"]))
        table.add_row(f"{where}: least over Snowcat mappings", _num(dram["snowcat_accesses"]))
        table.add_row(f"{where}: lower bound (any schedule)", _num(dram["lower_bound"]))
        table.add_row(f"{where}: dataflow / lower bound", _num(dram["ratio_to_lower_bound"]))
    table.caption = "other schedules may move less than the Snowcat front"
    return table


def levels_table(levels: list[dict[str, Any]]) -> Table:
    """The traffic of each memory level with a tile depth (docs/levels.md)."""
    table = Table(title="memory levels (words to and from the level above)", box=box.SIMPLE_HEAVY)
    for col in ("level", "above", "depth", "tiles", "needs", "capacity", "reads", "writes", "ns"):
        table.add_column(col, justify="left" if col in ("level", "above") else "right")
    for lv in levels:
        table.add_row(
            escape(lv["name"]),
            escape(lv["above"]),
            _num(lv["tile_depth"]),
            _num(lv["tiles"]),
            _num(lv["capacity_needed"]) + ("" if lv["fits"] else " (!)"),
            _num(lv["capacity"]),
            _num(lv["reads"]),
            _num(lv["writes"]),
            _num(lv["transfer_ns"]),
        )
    table.caption = "needs: max words of one tile; (!) more than the capacity"
    return table
