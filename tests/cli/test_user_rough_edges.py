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


def test_dse_output_file_may_not_be_a_layer_workload_of_the_network(tmp_path, capsys):
    from tenet.formats.presets import resolve_workload

    workload = tmp_path / "gemm.yaml"
    text = resolve_workload("gemm").read_text()
    workload.write_text(text)
    network = tmp_path / "net.yaml"
    network.write_text(
        "layers:\n  - name: one\n    workload: gemm.yaml\n    params: {M: 4, N: 4, K: 4}\n"
    )
    rc, _, err = run_cli(["dse", "-n", network, "-a", "systolic-4x4", "-o", workload], capsys)
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


# --- 6. output: one number format per column, units ---------------------------------------------


def test_a_column_of_numbers_has_one_format():
    """The column a user met: two values at or above 1e15 in e-notation and one below it
    with two decimals. All three now share 4 significant digits in e-notation."""
    from tenet.report.layout import number_column

    cells = number_column([4.112e15, 2.2e15, 63_264_588_988_703.87])
    assert cells == ["4.112e+15", "2.200e+15", "6.326e+13"]
    assert number_column([1.5, 20, None]) == ["1.50", "20.00", "-"]
    assert number_column([1, 2_000]) == ["1", "2,000"]  # integers alone stay exact


def test_the_dse_table_has_one_format_per_column_and_units(monkeypatch):
    from types import SimpleNamespace

    import tenet.report.dse as report_dse
    from tenet.explore.objectives import OBJECTIVES, Objective

    values = {"a": 4.112e15, "b": 2.2e15, "c": 63_264_588_988_703.87}
    edp = Objective("edp", "test", lambda analysis: values[analysis.name], False, unit="pJ·cycles")
    monkeypatch.setattr(report_dse, "OBJECTIVES", {**OBJECTIVES, "edp": edp})
    front = [
        SimpleNamespace(
            name=name, notation="n", analysis=SimpleNamespace(name=name, latency=10, energy=1.5)
        )
        for name in values
    ]
    result = SimpleNamespace(
        workload="w",
        arch="x",
        objectives=("latency", "edp"),
        pareto=front,
        candidates=3,
        evaluated=3,
        pruned=0,
        legal=3,
        over_capacity=0,
        ties=0,
        skipped=0,
    )
    text = report_dse.front_table(result)
    for cell in ("4.112e+15", "2.200e+15", "6.326e+13"):
        assert cell in text
    assert "63,264,588,988,703.87" not in text
    for header in ("latency (cycles)", "edp (pJ·cycles)", "energy (TENET, unitless)"):
        assert header in text


def test_the_analyze_table_names_the_units_of_delays_and_bandwidths(capsys):
    rc, out, err = run_cli(["analyze", *SMALL], capsys)
    assert rc == 0, err
    for label in (
        "ingress delay (cycles)",
        "egress delay (cycles)",
        "compute delay (cycles)",
        "latency (cycles)",
        "interconnect bandwidth (IBW, words/cycle)",
        "scratchpad bandwidth (SBW, words/cycle)",
    ):
        assert label in out
    rc, out, err = run_cli(["analyze", *SMALL, "--format", "json"], capsys)
    assert rc == 0 and '"ingress": ' in out and "cycles" not in out  # the JSON keys stay


# --- 7. the new rows of the analyze table, from a hand-made result ------------------------------


def hand_made_result() -> dict:
    """An analyze JSON dict written by hand with the keys being added to analyze: the delay
    through a GLB/DRAM hierarchy, the levels' fill and drain cycles, the intermediate and
    per-level energies and two new action counts. The numbers are arbitrary, and distinct so
    that each can be found in the table."""
    side = {
        "total": 16,
        "unique": 8,
        "reuse": 8,
        "temporal_reuse": 0,
        "spatial_reuse": 8,
        "reuse_factor": 2.0,
        "ibw": 2.0,
        "sbw": 2.0,
    }
    energy_parts = {
        "total": 1000.0,
        "mac": 100.0,
        "registers": 10.0,
        "scratchpad": 20.0,
        "interconnect": 30.0,
        "dram": 800.0,
        "intermediate": 40.0,
    }
    return {
        "workload": "w",
        "arch": "x",
        "dataflow": "d",
        "instances": 16,
        "macs": 16,
        "pe_count": 4,
        "active_pes": 4,
        "avg_active_pes": 2.5,
        "time_steps": 6,
        "utilization": 0.25,
        "delay": {
            "ingress": 19,
            "egress": 16,
            "compute": 4,
            "latency": 19,
            "hierarchy": 4321,
            "bound_by": "scratchpad port",
        },
        "bandwidth": {"ibw": 4.0, "sbw": 5.0},
        "energy": 921.68,
        "tensors": {"A": {"read": side, "write": None}},
        "cost": {
            "energy_pj": {
                **energy_parts,
                "by_tensor": {"A": energy_parts},
                "by_level": {"GLB": 123.5, "DRAM": 876.5},
            },
            "area_um2": {
                "total": 5.0,
                "pe_array": 1.0,
                "link_registers": 1.0,
                "buses": 1.0,
                "scratchpad": 2.0,
            },
            "actions": {
                "A": {"register_reads": 3, "accumulator_reads": 777, "register_read_outs": 888}
            },
        },
        "levels": [
            {
                "name": "GLB",
                "above": "DRAM",
                "tile_depth": 1,
                "tiles": 2,
                "capacity_needed": 96,
                "capacity_needed_single": 48,
                "double_buffered": True,
                "capacity": 2048,
                "fits": True,
                "reads": 24,
                "writes": 8,
                "transfer_ns": 32.0,
                "fill_cycles": 555,
                "drain_cycles": 666,
            }
        ],
        "warnings": [],
    }


def table_rows(text: str) -> dict[str, list[str]]:
    """Each line of a table split on runs of two or more spaces: {first cell: the others}."""
    import re

    rows = {}
    for line in text.splitlines():
        cells = [c for c in re.split(r"\s{2,}", line.strip()) if c]
        if cells:
            rows[cells[0]] = cells[1:]
    return rows


def test_the_analyze_table_shows_the_hierarchy_delay_and_what_bounds_it():
    from tenet.report.tables import render

    rows = table_rows(render([hand_made_result()], "table"))
    assert rows["delay through the hierarchy (cycles)"] == ["4,321"]
    assert rows["bound by"] == ["scratchpad port"]


def test_analyze_without_the_new_keys_shows_no_new_rows():
    from tenet.report.tables import render

    result = hand_made_result()
    del result["delay"]["hierarchy"], result["delay"]["bound_by"]
    for level in result["levels"]:
        for key in ("fill_cycles", "drain_cycles", "capacity_needed_single", "double_buffered"):
            del level[key]
    energy = result["cost"]["energy_pj"]
    del energy["intermediate"], energy["by_level"], energy["by_tensor"]["A"]
    energy["by_tensor"]["A"] = {k: v for k, v in energy.items() if k != "by_tensor"}
    del result["cost"]["actions"]["A"]["accumulator_reads"]
    del result["cost"]["actions"]["A"]["register_read_outs"]
    text = render([result], "table")
    for word in (
        "hierarchy",
        "bound by",
        "fill",
        "drain",
        "intermediate",
        "by memory level",
        "accumulator",
        "read-outs",
        "double",
    ):
        assert word not in text


def test_the_levels_table_shows_fill_and_drain_cycles():
    from tenet.report.tables import render

    text = render([hand_made_result()], "table")
    assert "fill cycles" in text and "drain cycles" in text
    glb = table_rows(text)["GLB"]
    assert glb[:2] == ["DRAM", "1"]
    assert glb[-4:] == ["48", "555", "666", "yes"]


def test_the_energy_table_shows_intermediate_and_each_level():
    from tenet.report.tables import render

    text = render([hand_made_result()], "table")
    rows = table_rows(text)
    assert "intermediate pJ" in text
    assert rows["all"][-1] == "40.00"  # the intermediate column is the last
    assert "by memory level: GLB 123.50 pJ, DRAM 876.50 pJ" in text
    assert rows["A"][-2:] == ["777", "888"]  # the action counts of A
    result = hand_made_result()
    result["cost"]["energy_pj"]["intermediate"] = 0.0  # nothing between fused operators
    assert "intermediate pJ" not in render([result], "table")


def test_fuse_writes_areas_in_square_micrometres_as_the_tables_do(capsys):
    rc, out, err = run_cli(
        ["fuse", "-w", "gpt3-ffn", "--area-mm2", "10", "--bandwidth-gbps", "100"]
        + ["--technology", "45"],
        capsys,
    )
    assert rc == 0, err
    assert "MAC: " in out and " µm² (" in out and "10 mm²" in out
    assert "um2" not in out and "mm2" not in out


# --- 6. a terminated dse --jobs 2 shuts its pool down -------------------------------------------


def test_sigterm_during_a_pool_run_raises_system_exit_and_ends_the_workers():
    """In-process: SIGTERM while two workers sleep ends the run with SystemExit(143) (128 +
    SIGTERM), the workers are gone, and the default SIGTERM action is back afterwards."""
    import os
    import signal
    import threading
    import time

    from tenet.execution import run_tasks

    seen = []

    def send() -> None:
        import multiprocessing

        deadline = time.monotonic() + 20
        while len(multiprocessing.active_children()) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        seen.extend(multiprocessing.active_children())
        os.kill(os.getpid(), signal.SIGTERM)

    timer = threading.Thread(target=send)
    timer.start()
    start = time.monotonic()
    with pytest.raises(SystemExit) as info:
        run_tasks(time.sleep, [("a", 60), ("b", 60)], jobs=2)
    timer.join()
    assert info.value.code == 128 + signal.SIGTERM
    assert time.monotonic() - start < 30  # not the 60 s the tasks sleep
    assert seen and all(not p.is_alive() for p in seen)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_a_terminated_dse_jobs_2_leaves_no_leaked_semaphore(tmp_path):
    """`tenet dse --jobs 2` sent SIGTERM once its pool has finished a task: exit 143, no
    resource-tracker warning, no worker left."""
    import signal
    import subprocess
    import sys
    import time

    journal = tmp_path / "j.jsonl"
    args = ["dse", "-w", "conv2d", "-a", "systolic-8x8", "--limit", "200", "--jobs", "2"]
    process = subprocess.Popen(
        [sys.executable, "-m", "tenet", *args, "--journal", str(journal), "-q"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not (journal.exists() and journal.read_text()) and time.monotonic() < deadline:
            assert process.poll() is None, process.stderr.read()
            time.sleep(0.05)
        workers = subprocess.run(
            ["pgrep", "-P", str(process.pid)], check=False, capture_output=True, text=True
        ).stdout.split()
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 128 + signal.SIGTERM, err
    assert "leaked" not in err and "Traceback" not in err, err
    deadline = time.monotonic() + 5
    while any(running(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert workers and not [pid for pid in workers if running(pid)]


def running(pid: str) -> bool:
    """The process exists and has not ended (a zombie, ended but not yet reaped, has)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


# --- 6. simulate says it is working off a terminal ----------------------------------------------


def test_the_first_progress_line_comes_after_first_seconds_then_every_interval():
    """first = 2 s, interval = 10 s, a tick every second for 25 s: lines at 2, 12 and 22 s."""
    import io

    clock = [0.0]
    out = io.StringIO()
    from tenet.report.progress import progress_lines

    with progress_lines("simulating", out, lambda: clock[0], 10.0, first=2.0) as tick:
        for second in range(26):
            clock[0] = float(second)
            tick(second, 25)
    lines = out.getvalue().splitlines()
    assert [line.split(", ")[-1] for line in lines] == ["2 s", "12 s", "22 s"]


def test_simulate_off_a_terminal_says_what_it_is_doing(monkeypatch, capsys):
    """stderr is no terminal under capsys. With the first line due after 0.05 s, a simulate
    that takes longer writes one, naming the step under way."""
    import time

    from tenet.report import progress

    monkeypatch.setattr(progress, "FIRST_LINE_S", 0.05)
    original = progress.progress_lines

    def slow_start(*args, **kwargs):  # the first step takes 0.3 s at least
        context = original(*args, **kwargs)

        class Slow:
            def __enter__(self):
                tick = context.__enter__()

                def slow(done, total, note=None):
                    tick(done, total, note=note)
                    if done == 0:
                        time.sleep(0.3)

                return slow

            def __exit__(self, *exc):
                return context.__exit__(*exc)

        return Slow()

    monkeypatch.setattr(progress, "progress_lines", slow_start)
    rc, out, err = run_cli(["simulate", *SMALL], capsys)
    assert rc == 0 and out
    assert err.startswith("simulating: 0/4 (0 %)") and "enumerating the instances" in err
