"""Warnings of an analysis: each carries its kind (Python, JSON, CSV, pickle) from the check
that raised it; they reach stderr whenever the result is not a table on stdout; and
`compare` ranks no value that rests on a warned effect."""

from __future__ import annotations

import json
import pickle
from dataclasses import replace

import pytest
import yaml

from tenet import analyze, load_arch, load_dataflow, load_workload
from tenet.formats.presets import resolve_arch, resolve_dataflow, resolve_workload
from tenet.model.checks import WARNING_KINDS, AnalysisWarning

from ..conftest import ARCHS
from ..helpers import run_cli, write_yaml

SMALL = ["--set", "M=16", "--set", "N=16", "--set", "K=16"]
# os-systolic-8x8 (PE[i%8, j%8]) on the 4x4 array: 64 PEs used, 64 - 16 = 48 outside it.
OFF_ARRAY = ["-w", "gemm", "-a", "systolic-4x4", "-d", "gemm/os-systolic-8x8", *SMALL]
OFF_ARRAY_WARNING = "48 used PEs lie outside the array, e.g. PE[0, 4]: an outside_array violation"


def analysis_of(workload: str, arch: str, dataflow: str, sets: dict[str, int]):
    path = resolve_workload(workload)
    return analyze(
        load_workload(path, sets),
        load_arch(resolve_arch(arch)),
        load_dataflow(resolve_dataflow(dataflow, path)),
    )


# --- kinds ----------------------------------------------------------------------------------


def test_warnings_carry_their_kind_in_python_and_json(capsys):
    analysis = analysis_of(
        "gemm", "systolic-4x4", "gemm/os-systolic-8x8", {"M": 16, "N": 16, "K": 16}
    )
    assert [w.kind for w in analysis.warnings] == ["outside_array"]
    data = analysis.to_dict()
    assert data["warnings"] == [OFF_ARRAY_WARNING]
    assert type(json.loads(json.dumps(data))["warnings"][0]) is str
    assert data["warning_kinds"] == ["outside_array"]
    copy = pickle.loads(pickle.dumps(analysis.warnings[0]))
    assert copy == OFF_ARRAY_WARNING and copy.kind == "outside_array"
    arch = load_arch(resolve_arch("systolic-4x4"))
    back = type(analysis).from_dict(data, arch, analysis.stamps)
    assert [w.kind for w in back.warnings] == ["outside_array"]
    _, out, _ = run_cli(["analyze", *OFF_ARRAY, "--format", "csv"], capsys)
    header, row = out.splitlines()
    assert header.split(",")[-1] == "warning_kinds" and row.endswith('"[""outside_array""]"')


def test_each_warning_kind_comes_from_its_check():
    from tenet.model.arch import with_topology

    # TENET's literal same-step rule warns of the cycle (the default charges each group)
    mesh = replace(
        with_topology(load_arch(resolve_arch("systolic-8x8")), "mesh"), same_step="tenet"
    )
    path = resolve_workload("gemm")
    workload = load_workload(path, {"M": 16, "N": 16, "K": 16})
    cycle = analyze(workload, mesh, load_dataflow(resolve_dataflow("os-multicast-8x8", path)))
    assert "same_step_cycle" in [w.kind for w in cycle.warnings]
    crowded = analysis_of(
        "conv2d", "systolic-8x8", "conv2d/os-8x8", {"K": 2, "C": 2, "OX": 8, "OY": 8}
    )
    assert [w.kind for w in crowded.warnings] == ["crowded_stamps"]
    idle = analysis_of(
        "gemm", "systolic-16x16-up", "gemm/os-systolic-16x16", {"M": 16, "N": 16, "K": 16}
    )
    assert [w.kind for w in idle.warnings] == ["idle_link"]
    assert {"outside_array", "same_step_cycle", "crowded_stamps", "idle_link"} <= set(WARNING_KINDS)
    with pytest.raises(ValueError):
        AnalysisWarning("no_such_kind", "text")


# --- warnings reach stderr ------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["csv", "json", "table"])
def test_warnings_reach_stderr_when_the_result_goes_to_a_file(fmt, capsys, tmp_path):
    out_file = tmp_path / f"r.{fmt}"
    rc, out, err = run_cli(["analyze", *OFF_ARRAY, "--format", fmt, "-o", out_file], capsys)
    assert rc == 0 and out == ""
    assert err == f"tenet: warning: {OFF_ARRAY_WARNING}\n"
    assert OFF_ARRAY_WARNING in out_file.read_text()  # the CSV column stays


def test_warnings_reach_stderr_for_json_on_stdout_and_compare(capsys):
    rc, out, err = run_cli(["simulate", *OFF_ARRAY, "--format", "json"], capsys)
    assert rc == 0 and json.loads(out)["warnings"] == [OFF_ARRAY_WARNING]
    assert err.endswith(f"tenet: warning: {OFF_ARRAY_WARNING}\n")
    args = ["compare", "-w", "gemm", "-d", "gemm/os-systolic-8x8", "-a", "systolic-4x4", *SMALL]
    rc, out, err = run_cli([*args, "--format", "csv"], capsys)
    assert rc == 0 and err == f"tenet: warning: systolic-4x4: {OFF_ARRAY_WARNING}\n"


def test_a_table_on_stdout_keeps_its_warnings_there_only(capsys):
    rc, out, err = run_cli(["analyze", *OFF_ARRAY], capsys)
    assert rc == 0 and f"warning: {OFF_ARRAY_WARNING}" in out and err == ""


# --- compare ranks no value that rests on a warned effect -----------------------------------


def test_compare_leaves_a_warned_column_unranked_and_ranks_the_others(tmp_path, capsys):
    """topologies.md's example at 16^3 under TENET's literal same-step rule (`same_step:
    tenet`): the window-0 mesh fetches no A or B (unique 0) through same-step free reuse;
    it must not win, and every value of it carries a `!`."""
    data = yaml.safe_load((ARCHS / "systolic-8x8.yaml").read_text())
    literal = write_yaml(tmp_path, "systolic-8x8", {**data, "same_step": "tenet"})
    args = ["compare", "-w", "gemm", "-d", "os-multicast-8x8", "-a", str(literal), *SMALL]
    rc, out, _ = run_cli([*args, "--topologies", "systolic-2d,mesh,row-multicast"], capsys)
    assert rc == 0
    assert "(* = best; ! = rests on a warned effect, not ranked)" in out
    rows = {}
    for line in out.splitlines():
        cells = line.split()
        if (
            len(cells) > 3
            and cells[-1].rstrip("!%").replace(",", "").replace(".", "").lstrip("*").isdigit()
        ):
            rows[" ".join(cells[:-3])] = cells[-3:]
    assert rows["A read unique"][1] == "0!"  # the mesh column, unranked
    assert all(r[1].endswith("!") and not r[1].startswith("*") for r in rows.values())
    # Without the mesh, systolic-2d fetches B once per column (16·16·16/8 = 512 of 4,096)
    # and row-multicast never reuses B (4,096): systolic-2d is best.
    assert rows["B read unique"] == ["*512", "0!", "4,096"]
    assert rows["latency (cycles)"][0].startswith("*")


def test_best_leaves_out_unranked_columns():
    from tenet.analysis.compare import Row, unranked_columns

    row = Row("A read unique", "unique", [5, 0, 7, 5])
    assert row.best() == {1}
    assert row.best({1}) == {0, 3}
    assert Row("x", "reuse", [3, 9, 3]).best({1}) == set()  # the others tie
    results = [{"warning_kinds": []}, {"warning_kinds": ["same_step_cycle"]}, {}]
    results.append({"warning_kinds": ["idle_link"]})
    assert unranked_columns(results) == {1}
