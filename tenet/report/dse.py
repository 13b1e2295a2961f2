"""Pareto fronts of `tenet dse` as tables."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tenet.errors import option_ref, write_options
from tenet.explore.objectives import OBJECTIVES
from tenet.report.layout import number_column

if TYPE_CHECKING:
    from tenet.explore.dse import DseResult, NetworkDseResult


def objective_header(name: str) -> str:
    """A column header: the objective's name and its unit, e.g. `latency (cycles)`."""
    from tenet.explore.objectives import OBJECTIVES

    unit = OBJECTIVES[name].unit if name in OBJECTIVES else ""
    return f"{name} ({unit})" if unit else name


def network_tables(
    result: NetworkDseResult, color: bool = False, flags: Mapping[str, str] | None = None
) -> str:
    """Each distinct layer's front, then the network front (one dataflow per layer); options
    named as `flags` says (`front_table`)."""
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
        parts.append(front_table(group[0].result, color, arch_title=title, flags=flags))
    table = Table(
        title=escape(f"{result.network} · {result.arch}: network front (Σ runs × layer)"),
        box=box.SIMPLE_HEAVY,
    )
    for name in result.objectives:
        table.add_column(escape(objective_header(name)), justify="right")
    table.add_column("dataflow per layer")
    values = [list(point.objectives.values()) for point in result.network_front]
    for point, cells in zip(result.network_front, _by_column(values), strict=True):
        choice = ", ".join(f"{k}={v}" for k, v in point.dataflows.items())
        table.add_row(*cells, escape(choice))
    counts = f"{result.evaluated:,} dataflows evaluated over the distinct layers"
    pruned = getattr(result, "pruned", 0)
    if pruned:
        counts += f", {pruned:,} pruned"
    notes = [f"{counts}, {result.legal:,} legal"]
    parts.append(render_tables([table], color, notes, prefix="note"))
    return "\n".join(parts)


def _by_column(rows: list[list[Any]]) -> list[list[str]]:
    """The rows of numbers formatted one column at a time (`number_column`)."""
    if not rows:
        return []
    columns = [number_column(list(column)) for column in zip(*rows, strict=True)]
    return [list(row) for row in zip(*columns, strict=True)]


#: What the dram_vs_bound column compares (the table's note).
DRAM_VS_BOUND_NOTE = (
    "dram_vs_bound = DRAM words as the bounds charge them / the least over Snowcat mappings "
    "with a buffer of the tiled level's capacity needed (single)"
)


def _bound_cells(block: dict[str, Any] | None, with_dram: bool) -> list[Any]:
    """[DRAM words,] Snowcat words and the ratio of a front member (None where unknown,
    shown `-`)."""
    block = block or {}
    cells: list[Any] = [block.get("dram_words")] if with_dram else []
    return cells + [block.get("snowcat_accesses"), block.get("ratio")]


def front_table(
    result: DseResult,
    color: bool = False,
    arch_title: str | None = None,
    flags: Mapping[str, str] | None = None,
) -> str:
    """The front as a table (name, notation, objectives, latency, energy) and the counts;
    `arch_title` replaces the arch's name in the title; the note names the option `ties` as
    `flags` says."""
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
        table.add_column(escape(objective_header(name)), justify="right")
    values = [
        [OBJECTIVES[name].value(entry.analysis) for name in columns] for entry in result.pareto
    ]
    bounded = any(getattr(entry, "dram_bound", None) for entry in result.pareto)
    if bounded:  # DRAM words against the Snowcat front at the tiled level's buffer
        if "dram" not in columns:
            table.add_column(escape(objective_header("dram")), justify="right")
        table.add_column("Snowcat (words)", justify="right")
        table.add_column("dram_vs_bound", justify="right")
        for entry, row in zip(result.pareto, values, strict=True):
            row += _bound_cells(entry.dram_bound, "dram" not in columns)
    for entry, cells in zip(result.pareto, _by_column(values), strict=True):
        table.add_row(escape(entry.name), escape(entry.notation or "-"), *cells)
    ties_option = write_options(option_ref("ties"), flags)
    notes = [
        f"{result.candidates:,} candidates, {result.evaluated:,} distinct evaluated, "
        + (f"{result.pruned:,} pruned, " if result.pruned else "")
        + (
            f"{result.twins:,} of these settled by a twin (equal up to a renaming of loops), "
            if getattr(result, "twins", 0)
            else ""
        )
        + f"{result.legal:,} legal, {len(result.pareto)} on the front"
        + (
            f", {result.over_capacity:,} over capacity (a memory level's tiles do not fit)"
            if getattr(result, "over_capacity", 0)
            else ""
        )
        + (f", {result.ties} ties left out ({ties_option})" if result.ties else "")
        + (f", {result.skipped} skipped (isl limit)" if result.skipped else "")
    ]
    if bounded:
        notes.append(DRAM_VS_BOUND_NOTE)
    stop_note = getattr(result, "stop_note", lambda: None)()
    if stop_note:  # the front of the candidates counted so far
        notes.append(f"{stop_note}: the front of the candidates counted so far")
    return render_tables([table], color, notes, prefix="note")
