"""Rough edges a new user hit: `-o` over an input file, a `--tile` level given twice, `dse`
without cost flags, non-positive numbers in bounds/fuse flags, an empty `--plot`, table
number formats and units, progress of `simulate`, the `best` block of fuse, a terminated
`dse --jobs 2`, and the new rows of the analyze table."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..helpers import run_cli

SMALL = [
    "-w",
    "gemm",
    "-a",
    "systolic-8x8",
    "-d",
    "os-systolic-8x8",
    "--set",
    "M=8",
    "--set",
    "N=8",
    "--set",
    "K=8",
]

#: The same GEMM on the 8x8 array with a GLB and DRAM above it (memory levels).
HIERARCHY = [
    *SMALL[:2],
    "-a",
    Path(__file__).parents[1] / "data" / "hierarchy" / "sys8-glb-dram.yaml",
    *SMALL[4:],
]

COMPONENTS = "components:\n  mac:\n    energy_pj: 0.5\n"


def one_error_line(err: str, *words: str) -> None:
    """stderr is one `tenet: error:` line that names every word."""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("tenet: error:"), err
    for word in words:
        assert word in lines[0], (word, err)


# --- 1. -o over any input file ----------------------------------------------------------------


@pytest.mark.parametrize("command", ["analyze", "simulate", "compare"])
def test_output_file_may_not_be_the_components_file(command, tmp_path, capsys):
    table = tmp_path / "t.yaml"
    table.write_text(COMPONENTS)
    rc, _, err = run_cli([command, *SMALL, "--components", table, "-o", table], capsys)
    assert rc == 2
    one_error_line(err, "--components", "would overwrite")
    assert table.read_text() == COMPONENTS


def test_output_file_may_not_be_the_components_file_by_another_path(tmp_path, capsys, monkeypatch):
    table = tmp_path / "t.yaml"
    table.write_text(COMPONENTS)
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    rc, _, err = run_cli(["analyze", *SMALL, "--components", "../t.yaml", "-o", table], capsys)
    assert rc == 2
    one_error_line(err, "--components", "would overwrite")
    assert table.read_text() == COMPONENTS


def test_output_file_may_not_be_the_journal(tmp_path, capsys):
    journal = tmp_path / "j.jsonl"
    journal.write_text("")
    args = ["dse", "-w", "gemm", "-a", "systolic-4x4", "--set", "M=4", "--set", "N=4"]
    rc, _, err = run_cli([*args, "--set", "K=4", "--journal", journal, "-o", journal], capsys)
    assert rc == 2
    one_error_line(err, "--journal", "would overwrite")


def test_output_file_may_not_be_a_layer_workload_of_the_network(tmp_path, capsys):
    from tenet.formats.presets import resolve_dataflow, resolve_workload

    workload = tmp_path / "gemm.yaml"
    text = resolve_workload("gemm").read_text()
    workload.write_text(text)
    network = tmp_path / "net.yaml"
    network.write_text(
        "layers:\n  - name: one\n    workload: gemm.yaml\n    params: {M: 8, N: 8, K: 8}\n"
    )
    dataflow = resolve_dataflow("os-systolic-8x8", resolve_workload("gemm"))
    rc, _, err = run_cli(
        ["analyze", "-n", network, "-a", "systolic-8x8", "-d", dataflow, "-o", workload], capsys
    )
    assert rc == 2
    one_error_line(err, "gemm.yaml", "would overwrite")
    assert workload.read_text() == text


# --- 2. --tile with a level twice ---------------------------------------------------------------


@pytest.mark.parametrize("tiles", [["GLB=2,GLB=1"], ["GLB=2", "GLB=1"]])
def test_tile_may_not_give_a_level_twice(tiles, capsys):
    flags = [f for t in tiles for f in ("--tile", t)]
    rc, _, err = run_cli(["analyze", *HIERARCHY, *flags], capsys)
    assert rc == 2
    one_error_line(err, "--tile", "GLB", "twice")


# --- 5. an empty --plot -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["bounds", "--einsum", "O[m,n] += A[m,k] * W[k,n]", "--shape", "m=4,k=4,n=4"],
        ["fuse", "-w", "gpt3-ffn"],
        ["trace", *SMALL, "--tensor", "A"],
    ],
)
@pytest.mark.parametrize("plot", ["", "  "])
def test_an_empty_plot_name_is_refused(args, plot, capsys):
    rc, _, err = run_cli([*args, "--plot", plot], capsys)
    assert rc == 2
    one_error_line(err, "--plot")


# --- 3. dse --technology and --components -------------------------------------------------------


@pytest.mark.parametrize("cost", [["--technology", "40"], ["--components", "TABLE"]])
def test_dse_energy_objective_equals_analyze_with_the_same_cost_flag(cost, tmp_path, capsys):
    """Each front member's energy_pj is the `analyze` energy of its dataflow, with the same
    component flag (the 45 nm library with a 0.5 pJ MAC for the table)."""
    import json

    table = tmp_path / "t.yaml"
    table.write_text(COMPONENTS)
    cost = [table if c == "TABLE" else c for c in cost]
    problem = ["-w", "gemm", "-a", "systolic-4x4", "--set", "M=8", "--set", "N=8", "--set", "K=8"]
    rc, out, err = run_cli(
        ["dse", *problem, "--objectives", "latency,energy_pj", *cost, "--format", "json"]
        + ["--emit", tmp_path / "front", "--jobs", "1", "-q"],
        capsys,
    )
    assert rc == 0, err
    front = json.loads(out)["pareto"]
    assert front
    for n, member in enumerate(front, 1):
        dataflow = tmp_path / "front" / f"dse-{n:03d}.yaml"
        rc, out, err = run_cli(
            ["analyze", *problem, "-d", dataflow, *cost, "--format", "json"], capsys
        )
        assert rc == 0, err
        assert member["objectives"]["energy_pj"] == json.loads(out)["cost"]["energy_pj"]["total"]


# --- 4. non-positive numbers in bounds and fuse flags -------------------------------------------

BOUNDS = ["bounds", "--einsum", "O[m,n] += A[m,k] * W[k,n]", "--shape", "m=4,k=4,n=4"]
AREA = ["--technology", "45", "--bandwidth-gbps", "1", "--area-mm2", "1"]


@pytest.mark.parametrize("command", [BOUNDS, ["fuse", "-w", "gpt3-ffn"]])
@pytest.mark.parametrize(
    "flag", ["--area-mm2", "--bandwidth-gbps", "--clock-ghz", "--macs-per-cycle"]
)
@pytest.mark.parametrize("value", ["-10", "0", "nan", "inf"])
def test_bounds_and_fuse_refuse_a_non_positive_number(command, flag, value, capsys):
    rc, _, err = run_cli([*command, *AREA, f"{flag}={value}"], capsys)
    assert rc == 2
    one_error_line(err, flag, "must be a positive number")
