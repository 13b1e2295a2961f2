"""Closed-form metrics (`analyze --symbolic`) as text, JSON or CSV."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from typing import Any

from tenet.analysis.symbolic import formula_text, symbolic_json
from tenet.report.serial import to_json


def symbolic_text(result: Mapping[str, Any]) -> str:
    """One line per metric, `name = formula`, under a header naming symbols and context."""
    fixed = ", ".join(f"{k}={v}" for k, v in result["fixed"].items()) or "none"
    lines = [
        f"{result['workload']} · {result['arch']} · {result['dataflow']}",
        f"symbols: {', '.join(result['symbols']) or 'none'}; fixed: {fixed}",
        f"valid for: {formula_text(result['context'])}",
        "",
    ]
    lines += [f"{key} = {formula}" for key, formula in result["formulas"].items()]
    lines += [""] + [f"note: {note}" for note in result["notes"]]
    return "\n".join(lines) + "\n"


def symbolic_csv(result: Mapping[str, Any]) -> str:
    """`metric,formula` lines (formulas quoted)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["metric", "formula"])
    writer.writerows(result["formulas"].items())
    return out.getvalue()


def symbolic_report(result: Mapping[str, Any], fmt: str = "table") -> str:
    """`tenet analyze --symbolic`: the formulas as a table, JSON or CSV."""
    if fmt == "json":
        return (
            to_json(result.to_dict() if hasattr(result, "to_dict") else symbolic_json(result))
            + "\n"
        )
    if fmt == "csv":
        return symbolic_csv(result)
    return symbolic_text(result)
