"""The tables of `tenet bounds` (a front, `--compare-spaces`) and of `analyze --bound`."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.markup import escape
from rich.table import Table

from tenet.report.layout import _num

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
