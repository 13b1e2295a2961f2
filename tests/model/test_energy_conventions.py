"""Every number of the tenet column of docs/energy-conventions.md against `tenet analyze`.

The page compares tenet's action counts and energies with ZigZag's and Timeloop's on one
case: GEMM 64³ on tests/data/hierarchy/sys8-glb-dram.yaml, `os-systolic-8x8` and
`ws-systolic-8x8`, `--tile GLB=2`. Each of its tables has a column headed `tenet`, whose
cells read `` `KEY` OS n · WS m ``: KEY is a path into the analyze JSON (`a.b.c`; `*` sums
over every key at that place, `{A,B}` over those keys, `levels.GLB` is the entry of the
`levels` list named GLB; `KEY + KEY` adds). The numbers themselves were counted by hand
from the dataflows (the page's hand column), not copied from tenet's output.
"""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction
from pathlib import Path

import pytest

from tests.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "energy-conventions.md"
ARCH = ROOT / "tests" / "data" / "hierarchy" / "sys8-glb-dram.yaml"
SIZES = ["--set", "M=64", "--set", "N=64", "--set", "K=64"]
DATAFLOWS = {"OS": "os-systolic-8x8", "WS": "ws-systolic-8x8"}

#: `KEY` OS n, optionally · WS m.
GROUP = re.compile(r"`([^`]+)`\s*OS\s+([\d,]+(?:\.\d+)?)(?:\s*·\s*WS\s+([\d,]+(?:\.\d+)?))?")


def tenet_cells(text: str) -> list[tuple[str, str]]:
    """(row label, tenet cell) for every row of every table whose second column is `tenet ...`."""
    cells, column = [], None
    for line in text.splitlines():
        if not line.startswith("|"):
            column = None
            continue
        parts = [p.strip() for p in line.strip().strip("|").split("|")]
        if column is None:
            column = next((i for i, p in enumerate(parts) if p.startswith("tenet")), -1)
            continue
        if column < 0 or set(line) <= set("|- "):
            continue
        cells.append((parts[0], parts[column]))
    return cells


def expected_values() -> list[tuple[str, str, str, Fraction]]:
    """(row, dataflow, key, value) for every number of the tenet column."""
    values = []
    for row, cell in tenet_cells(DOC.read_text()):
        for match in GROUP.finditer(cell):
            key, os_value, ws_value = match.groups()
            for flow, value in (("OS", os_value), ("WS", ws_value)):
                if value is not None:
                    values.append((row, flow, key, Fraction(value.replace(",", ""))))
    return values


def lookup(data, path: list[str]):
    """The number at `path`: `*` and `{A,B}` sum over keys; a list is indexed by `name`."""
    if not path:
        return data
    head, rest = path[0], path[1:]
    if isinstance(data, list):
        (item,) = [x for x in data if x.get("name") == head]
        return lookup(item, rest)
    if head == "*":
        return sum(lookup(v, rest) for v in data.values())
    if head.startswith("{"):
        return sum(lookup(data[k], rest) for k in head.strip("{}").split(","))
    return lookup(data[head], rest)


def evaluate(data: dict, key: str):
    return sum(lookup(data, term.strip().split(".")) for term in key.split("+"))


_RUNS: dict[str, dict] = {}


def analyze_json(flow: str, capsys) -> dict:
    if flow not in _RUNS:
        args = ["analyze", "-w", "gemm", "-a", ARCH, "-d", DATAFLOWS[flow], *SIZES]
        rc, out, err = run_cli([*args, "--tile", "GLB=2", "--format", "json"], capsys)
        assert rc == 0, err
        _RUNS[flow] = json.loads(out)
    return _RUNS[flow]


def _params():
    return [
        pytest.param(flow, key, value, id=f"{flow}-{row}-{key}")
        for row, flow, key, value in expected_values()
    ]


def test_the_page_has_its_numbers():
    """The three tables are found and every tenet cell is read whole: no number is left out."""
    cells = tenet_cells(DOC.read_text())
    assert len(cells) >= 14 + 5 + 1
    for row, cell in cells:
        rest = GROUP.sub("", cell)
        assert not re.search(r"\d", rest), f"{row}: a number outside `KEY` OS n · WS m: {cell}"
        assert GROUP.search(cell), f"{row}: no `KEY` OS n in the tenet cell"
    # both dataflows for every key
    flows = {(k, f) for _, f, k, _ in expected_values()}
    assert {k for k, f in flows if f == "OS"} == {k for k, f in flows if f == "WS"}


@pytest.mark.parametrize("flow,key,value", _params())
def test_tenet_column(flow, key, value, capsys):
    got = evaluate(analyze_json(flow, capsys), key)
    if value.denominator == 1 and isinstance(got, int):
        assert got == value, f"{key} ({flow}): analyze gives {got}, the page {value}"
    else:  # pJ: a float in the JSON, an exact Fraction inside
        assert math.isclose(got, float(value), rel_tol=1e-12, abs_tol=1e-9), (
            f"{key} ({flow}): analyze gives {got}, the page {value}"
        )


def test_counts_are_integers(capsys):
    """Action counts in the JSON are integers, as the page prints them."""
    for flow in DATAFLOWS:
        actions = analyze_json(flow, capsys)["cost"]["actions"]
        for tensor, counts in actions.items():
            for name in ("register_reads", "register_writes", "scratchpad_read_words"):
                assert isinstance(counts[name], int), (flow, tensor, name)
