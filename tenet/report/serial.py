"""JSON and CSV output: exact integers, dotted column names. Light to import (no rich)."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

#: Output formats of the commands that report one analysis or a list of them.
FORMATS = ("table", "json", "csv")


def to_json(result: Any) -> str:
    """JSON with exact integers (Python ints of any size)."""
    return json.dumps(result, indent=2)


def flatten(result: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """{"delay": {"ingress": 1}} -> {"delay.ingress": 1}; lists as JSON text."""
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


#: Columns added after the schedule-time ones, placed after them (see `to_csv`).
LAST_KEYS = ("warning_kinds",)


def to_csv(rows: list[dict[str, Any]]) -> str:
    """One header line and one line per result (columns: dotted JSON keys, in JSON order,
    except the schedule-time columns and then `warning_kinds`, which come last so that the
    others keep the positions they had before those columns existed)."""
    from tenet.model.metrics import SCHEDULE_TIME_KEYS

    last = (*SCHEDULE_TIME_KEYS, *LAST_KEYS)
    flat = [flatten(row) for row in rows]
    columns: dict[str, None] = {}
    for row in flat:
        for key in row:
            if key not in last:
                columns.setdefault(key, None)
    for key in last:
        if any(key in row for row in flat):
            columns.setdefault(key, None)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    writer.writerows(flat)
    return out.getvalue()


def render_data(results: list[dict[str, Any]], fmt: str) -> str:
    """`analyze`/`simulate` results as JSON (one object, or a list) or CSV."""
    if fmt == "json":
        return to_json(results[0] if len(results) == 1 else results) + "\n"
    return to_csv(results)


def as_dict(result: Any) -> Any:
    """A typed result's JSON object (`to_dict()`), or a dict as it is: the one place the
    report turns results into dicts."""
    return result.to_dict() if hasattr(result, "to_dict") else result
