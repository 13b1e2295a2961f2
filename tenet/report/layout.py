"""Table layout: number cells, and rich tables rendered as text fitted to a width (text
columns folded between words, a table too wide split into parts that repeat the row
labels). Knows nothing of any command's results."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import io
import math
import re
import weakref
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from fractions import Fraction
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.measure import Measurement
from rich.table import Column, Table
from rich.text import Text

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


#: A column of numbers whose largest magnitude reaches this is written in e-notation.
SCIENTIFIC_FROM = 1e15


def number_column(values: Sequence[Any]) -> list[str]:
    """The cells of one column of numbers in one format, chosen from the column's magnitudes:
    integers alone get thousands separators; with a non-integer, every number gets two
    decimals, or 4 significant digits in e-notation (m e±k, 1 <= |m| < 10) when the largest
    |x| >= 1e15 or every non-zero |x| < 0.01. Text and None cells are kept (`-` for None)."""
    numbers = [float(v) for v in values if _is_number(v)]
    if all(isinstance(v, int) for v in values if _is_number(v)):
        return [_num(v) for v in values]
    finite = [abs(x) for x in numbers if math.isfinite(x) and x != 0]
    scientific = bool(finite) and (max(finite) >= SCIENTIFIC_FROM or max(finite) < 0.01)

    def cell(value: Any) -> str:
        if not _is_number(value) or not math.isfinite(float(value)):
            return _num(value)
        return f"{float(value):.3e}" if scientific else f"{float(value):,.2f}"

    return [cell(v) for v in values]


def number_rows(rows: Sequence[Sequence[Any]], labels: int = 1) -> list[list[str]]:
    """Rows whose columns after the first `labels` are formatted by `number_column`, one
    format per column; the label cells are kept as they are."""
    columns = list(zip(*rows, strict=True)) if rows else []
    formatted = [
        list(column) if n < labels else number_column(column) for n, column in enumerate(columns)
    ]
    return [list(row) for row in zip(*formatted, strict=True)]


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, Fraction)) and not isinstance(value, bool)


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
