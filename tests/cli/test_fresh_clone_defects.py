"""Defects a new user met on a fresh clone (issue 21, items 1-9, 12, 13) and warning kinds:
Ctrl-C inside isl, memory, `--plot` paths, warnings with `-o`, `compare` ranking warned
columns, `trace` off the array, duplicate YAML keys, did-you-mean, units, presets that
validate calls illegal, and workers outliving their parent."""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from tenet import analyze, load_arch, load_dataflow, load_workload
from tenet.cli import main
from tenet.formats.presets import (
    DATAFLOW_ARCHS,
    SEVERAL_PER_STEP,
    list_presets,
    resolve_arch,
    resolve_dataflow,
    resolve_workload,
)
from tenet.model.checks import WARNING_KINDS, AnalysisWarning

from ..conftest import ROOT
from ..helpers import run_cli, write_yaml

GEMM = ["-w", "gemm", "-a", "systolic-8x8", "-d", "os-systolic-8x8"]
SMALL = ["--set", "M=16", "--set", "N=16", "--set", "K=16"]
# os-systolic-8x8 (PE[i%8, j%8]) on the 4x4 array: 64 PEs used, 64 - 16 = 48 outside it.
OFF_ARRAY = ["-w", "gemm", "-a", "systolic-4x4", "-d", "gemm/os-systolic-8x8", *SMALL]
OFF_ARRAY_WARNING = "48 used PEs lie outside the array, e.g. PE[0, 4]: an outside_array violation"


def tenet_process(args, **kwargs) -> subprocess.Popen:
    """`python -m tenet ARGS` on this checkout, in a process of its own."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), **kwargs.pop("env", {}))
    return subprocess.Popen(
        [sys.executable, "-m", "tenet", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
        **kwargs,
    )


def analysis_of(workload: str, arch: str, dataflow: str, sets: dict[str, int]):
    path = resolve_workload(workload)
    return analyze(
        load_workload(path, sets),
        load_arch(resolve_arch(arch)),
        load_dataflow(resolve_dataflow(dataflow, path)),
    )


# --- 1. Ctrl-C during a long simulate -----------------------------------------------------------


def test_ctrl_c_inside_isl_point_iteration_raises_keyboard_interrupt_quietly(capfd):
    """isl's point iterator calls Python once per point; SIGINT there used to become an
    `isl.Error` ("isl_set_foreach_point failed") with islpy's traceback and warning."""
    import islpy as isl

    from tenet.analysis.points import _isl_points

    square = isl.Set("{ [i, j] : 0 <= i < 5000 and 0 <= j < 5000 }")  # 25M points: minutes
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        _isl_points(square)
    assert time.monotonic() - start < 5
    out, err = capfd.readouterr()
    assert "islpy" not in out + err and "Traceback" not in out + err


def test_ctrl_c_during_a_long_simulate_is_tenet_interrupted():
    """The issue's command (memory check lifted, so that it enumerates), SIGINT after 2.5 s."""
    args = ["simulate", *GEMM, "--set", "M=4096", "--max-instances", "100000000000"]
    process = tenet_process(args, env={"TENET_MEMORY_AVAILABLE": str(10**15)})
    time.sleep(2.5)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert err == "tenet: interrupted\n"
    assert out == ""


# --- 2. memory ---------------------------------------------------------------------------------


def test_simulate_refuses_what_does_not_fit_in_memory(capsys, monkeypatch):
    """GEMM 16^3 = 4,096 instances; 3 loops, 2-D PEs, 3-D time stamps, 2-D tensors: the
    estimate is 8·(2·(3 + 2 + 3) + 4 + 2·2 + 16)·4096 = 8·40·4096 = 1,310,720 bytes."""
    from tenet.analysis.simulate import memory_estimate
    from tenet.model.dataflow import bind_dataflow

    path = resolve_workload("gemm")
    workload = load_workload(path, {"M": 16, "N": 16, "K": 16})
    arch = load_arch(resolve_arch("systolic-8x8"))
    bound = bind_dataflow(load_dataflow(resolve_dataflow("os-systolic-8x8", path)), workload, arch)
    assert memory_estimate(workload, arch, bound, 4096) == 1_310_720
    monkeypatch.setenv("TENET_MEMORY_AVAILABLE", "1000000")
    rc, out, err = run_cli(["simulate", *GEMM, *SMALL], capsys)
    assert rc == 2 and out == "" and err.count("\n") == 1
    assert "4,096 instances needs about 1.2 MiB of memory" in err
    assert "1,000,000" not in err and "1.0 MiB available (TENET_MEMORY_AVAILABLE)" in err
    monkeypatch.setenv("TENET_MEMORY_AVAILABLE", "1400000")
    rc, out, err = run_cli(["simulate", *GEMM, *SMALL, "--format", "json"], capsys)
    assert rc == 0 and json.loads(out)["instances"] == 4096


@pytest.mark.slow
def test_the_issues_simulate_is_refused_at_once_on_this_machine():
    """M=4096, N=K=256: 268,435,456 instances x 320 bytes = 80 GiB, above any test machine's
    MemAvailable (read from /proc/meminfo when the variable is not set)."""
    from tenet.analysis.simulate import available_memory

    available, where = available_memory()
    if available is None or available > 80 * 2**30:
        pytest.skip(f"this machine has {available} bytes free ({where})")
    env = {k: v for k, v in os.environ.items() if k != "TENET_MEMORY_AVAILABLE"}
    env["PYTHONPATH"] = str(ROOT)
    args = [*GEMM, "--set", "M=4096", "--max-instances", "100000000000"]
    done = subprocess.run(
        [sys.executable, "-m", "tenet", "simulate", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )
    assert done.returncode == 2
    assert "268,435,456 instances needs about 80.0 GiB of memory" in done.stderr
    assert done.stderr.count("\n") == 1


def test_large_boxes_are_enumerated_in_slabs_in_order(monkeypatch):
    """Slabs give the same points, in the same (lexicographic) order, as one scan."""
    import islpy as isl

    from tenet.analysis import points

    s = isl.Set(
        "{ [i, j, k] : 0 <= i < 3 and 0 <= j < 12 and 0 <= k <= j and (i + j + k) % 3 = 0 }"
    )
    expected = np.array(
        [
            (i, j, k)
            for i in range(3)
            for j in range(12)
            for k in range(j + 1)
            if (i + j + k) % 3 == 0
        ]
    )
    for slab in (10**9, 100, 7, 1):
        monkeypatch.setattr(points, "SLICE_BOX", slab)
        assert np.array_equal(points.set_points(s), expected), slab


# --- 3. --plot paths ---------------------------------------------------------------------------

PLOT_COMMANDS = {
    "compare": ["compare", "-w", "gemm", "-d", "os-systolic-8x8", "-a", "systolic-8x8", *SMALL],
    "trace": ["trace", *GEMM, "--set", "M=8", "--set", "N=8", "--set", "K=8", "--tensor", "A"],
    "bounds": ["bounds", "-w", "gemm"],
    "fuse": ["fuse", "-w", "gpt3-ffn"],
}


@pytest.mark.parametrize("command", PLOT_COMMANDS)
def test_plot_with_an_unknown_extension_is_refused_before_any_work(command, capsys, tmp_path):
    rc, out, err = run_cli([*PLOT_COMMANDS[command], "--plot", tmp_path / "out.txt"], capsys)
    assert rc == 2 and out == ""
    assert err == (
        "tenet: error: --plot: cannot draw a .txt file (use one of: .png, .pdf, .svg, .svgz, "
        ".eps, .ps, .jpg, .jpeg, .tif, .tiff, .webp)\n"
    )
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("command", PLOT_COMMANDS)
def test_plot_on_a_directory_or_on_the_output_file_is_refused(command, capsys, tmp_path):
    rc, _, err = run_cli([*PLOT_COMMANDS[command], "--plot", tmp_path], capsys)
    assert rc == 2 and "--plot: is a directory" in err and err.count("\n") == 1
    same = tmp_path / "r.png"
    rc, _, err = run_cli([*PLOT_COMMANDS[command], "-o", same, "--plot", same], capsys)
    assert rc == 2 and "--plot: is the -o file too" in err and err.count("\n") == 1
    bare = tmp_path / "r"
    rc, _, err = run_cli([*PLOT_COMMANDS[command], "-o", bare, "--plot", bare], capsys)
    assert rc == 2 and "--plot: is the -o file too" in err
    assert not list(tmp_path.iterdir())


def test_plot_without_extension_gets_png_and_says_so(capsys, tmp_path, monkeypatch):
    from tenet.report import plots

    drawn = []
    monkeypatch.setattr(plots, "activity_plot", lambda result, path, title: drawn.append(path))
    rc, _, err = run_cli([*PLOT_COMMANDS["trace"], "--plot", tmp_path / "activity"], capsys)
    assert rc == 0
    assert err == (
        f"tenet: note: --plot {tmp_path / 'activity'} has no extension; writing "
        f"{tmp_path / 'activity.png'}\n"
    )
    assert drawn == [str(tmp_path / "activity.png")]


def test_plot_over_an_input_file_is_refused(capsys, tmp_path):
    arch = tmp_path / "arch.png"
    arch.write_text((ROOT / "archs" / "systolic-8x8.yaml").read_text())
    args = [*PLOT_COMMANDS["trace"][:3], "-a", arch, *PLOT_COMMANDS["trace"][5:]]
    rc, _, err = run_cli([*args, "--plot", arch], capsys)
    assert rc == 2 and "would overwrite the input file" in err


# --- 4. warnings reach stderr ------------------------------------------------------------------


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


# --- 5. compare ranks no value that rests on a warned effect -----------------------------------


def test_compare_marks_the_mesh_column_and_ranks_the_others(capsys):
    """topologies.md's example at 16^3: the window-0 mesh fetches no A or B (unique 0) through
    same-step free reuse; it must not win, and every value of it carries a `!`."""
    args = ["compare", "-w", "gemm", "-d", "os-multicast-8x8", "-a", "systolic-8x8", *SMALL]
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


# --- 6. trace off the array ----------------------------------------------------------------------


def test_trace_off_the_array_warns_as_analyze_does(capsys):
    rc, out, _ = run_cli(
        ["trace", *OFF_ARRAY, "--tensor", "A", "--steps", "2", "--pes", "3"], capsys
    )
    assert rc == 0
    analysis = analysis_of(
        "gemm", "systolic-4x4", "gemm/os-systolic-8x8", {"M": 16, "N": 16, "K": 16}
    )
    assert list(analysis.warnings) == [OFF_ARRAY_WARNING]
    assert f"warning: {OFF_ARRAY_WARNING}" in out
    assert "of 64 active PEs" not in out
    assert "3 of 64 used PEs (48 of them outside the 16-PE array)" in out


def test_trace_utilization_above_one_is_not_clipped(monkeypatch):
    """At M = N = K = 16, when i%8 + j%8 + k is 14 or 15 every (i%8, j%8) has a k in 0..15:
    all 64 PEs of the 8x8 dataflow are busy, 64/16 = 4 times the 4x4 array."""
    from tenet.analysis.trace import trace
    from tenet.report import plots

    path = resolve_workload("gemm")
    workload = load_workload(path, {"M": 16, "N": 16, "K": 16})
    result = trace(
        workload,
        load_arch(resolve_arch("systolic-4x4")),
        load_dataflow(resolve_dataflow("os-systolic-8x8", path)),
        "A",
    )
    busy = (result.activity > 0).sum(axis=0) / 16
    assert busy.max() == 4.0
    figures = []
    monkeypatch.setattr(plots, "save_figure", lambda fig, path, plt: figures.append(fig))
    plots.activity_plot(result, "unused.png", "t")
    bottom = figures[0].axes[2]
    assert bottom.get_ylabel() == "utilization"
    assert bottom.get_ylim()[1] >= 4.0


# --- 7. duplicate YAML keys ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "flag, text, key",
    [
        (
            "-w",
            'name: g\nparams: {M: 4}\neinsum: "C[i] += A[i]"\nbounds: {i: M}\nparams: {M: 8}\n',
            "params: key given twice (line 2 and line 5)",
        ),
        (
            "-a",
            "name: a\npe: {shape: [8, 8]}\nmemory:\n  word_bits: 16\n  word_bits: 8\n",
            "word_bits: key given twice (line 4 and line 5)",
        ),
    ],
)
def test_a_yaml_key_given_twice_is_an_error_naming_it(flag, text, key, capsys, tmp_path):
    path = tmp_path / "input.yaml"
    path.write_text(text)
    args = {"-w": ["-w", path, "-a", "systolic-8x8"], "-a": ["-w", "gemm", "-a", path]}[flag]
    rc, out, err = run_cli(["analyze", *args, "-d", "gemm/os-systolic-8x8"], capsys)
    assert rc == 2 and out == ""
    assert err == f"tenet: error: {path}: {key}; YAML would keep only the last one\n"


def test_yaml_without_duplicates_still_loads(tmp_path):
    from tenet.util.io import load_yaml

    path = tmp_path / "ok.yaml"
    path.write_text("a: {x: 1, y: 2}\nb: [1, 1]\nc: &m {p: 1}\nd:\n  <<: *m\n  q: 2\n")
    assert load_yaml(path) == {
        "a": {"x": 1, "y": 2},
        "b": [1, 1],
        "c": {"p": 1},
        "d": {"p": 1, "q": 2},
    }


# --- 8. did you mean -----------------------------------------------------------------------------


def test_did_you_mean_for_keys_topologies_and_directories(capsys, tmp_path, monkeypatch):
    path = tmp_path / "w.yaml"
    path.write_text('name: g\nparams: {M: 4}\neinsum: "C[i] += A[i]"\nbound: {i: M}\n')
    rc, _, err = run_cli(["analyze", "-w", path, "-a", "systolic-8x8", "-d", "x.yaml"], capsys)
    assert rc == 2 and f"{path}: bound: unknown key (did you mean bounds? expected one of:" in err
    args = ["compare", "-w", "gemm", "-d", "os-multicast-8x8", "-a", "systolic-8x8"]
    rc, _, err = run_cli([*args, "--topologies", "meshh"], capsys)
    assert rc == 2 and "unknown topology 'meshh' (did you mean mesh? known:" in err
    rc, _, err = run_cli(["analyze", *GEMM, "--set", "MM=3"], capsys)
    assert rc == 2 and "unknown parameter 'MM' (did you mean M? the workload has: M, N, K)" in err
    monkeypatch.chdir(tmp_path)
    (tmp_path / "adir").mkdir()
    for flag, kind in (("-w", "workload"), ("-a", "arch")):
        args = {**dict(zip(GEMM[::2], GEMM[1::2])), flag: "adir"}
        rc, _, err = run_cli(["analyze", *[x for kv in args.items() for x in kv]], capsys)
        assert rc == 2 and err.startswith(f"tenet: error: adir: {kind} file is a directory")
        assert "not found" not in err


# --- 9. units ------------------------------------------------------------------------------------


def test_energy_says_it_is_tenets_unitless_model(capsys):
    rc, out, _ = run_cli(["analyze", *GEMM, *SMALL], capsys)
    assert rc == 0 and "energy (TENET, unitless)" in out
    rc, out, _ = run_cli(["analyze", *GEMM, *SMALL, "--format", "json"], capsys)
    assert "energy" in json.loads(out)  # the JSON key is unchanged
    with pytest.raises(SystemExit):
        main(["analyze", "--help"])
    assert "unitless" in capsys.readouterr().out
    for doc in ("metrics.md", "reference.md"):
        text = (ROOT / "docs" / doc).read_text()
        line = next(x for x in text.splitlines() if x.startswith("| `energy` |"))
        assert "unitless" in line, doc


# --- 12. presets that validate calls illegal ----------------------------------------------------


def preset_dataflows() -> list[str]:
    out = []
    for line in list_presets()["workloads"]:
        workload, _, flows = line.partition(": ")
        out += [f"{workload}/{f}" for f in flows.split(", ") if f]
    return out


def test_every_preset_dataflow_has_its_arch():
    assert sorted(preset_dataflows()) == sorted(DATAFLOW_ARCHS)


def validation(name: str, arch, macs_per_pe: int | None = None):
    from tenet.analysis.validate import validate

    workload_name, _ = name.split("/")
    path = resolve_workload(workload_name)
    if macs_per_pe is not None:
        arch = dataclasses.replace(arch, macs_per_pe=macs_per_pe)
    return validate(load_workload(path), arch, load_dataflow(resolve_dataflow(name, path)))


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=() if n in ("conv2d/os-8x8", "gemm/ncf-rs-64") else pytest.mark.slow)
        for n in sorted(DATAFLOW_ARCHS)
    ],
)
def test_the_presets_note_matches_validate(name):
    """Legal on its arch, or listed with a note whose count is exact: legal with that many
    MACs per PE and step, a pe_conflict with one fewer, legal on the arch it names."""
    arch = load_arch(resolve_arch(DATAFLOW_ARCHS[name]))
    result = validation(name, arch)
    notes = [n for n in list_presets()["notes"] if n.startswith(f"{name} on ")]
    if name not in SEVERAL_PER_STEP:
        assert result.legal and not notes
        return
    per_step, legal_on = SEVERAL_PER_STEP[name]
    assert not result.legal
    assert {v.kind for v in result.violations} == {"pe_conflict"}
    assert notes == [
        f"{name} on {DATAFLOW_ARCHS[name]}: illegal (pe_conflict: up to {per_step} instances "
        f"per PE and step, as in TENET's mapping)" + (f"; legal on {legal_on}" if legal_on else "")
    ]
    assert validation(name, arch, per_step).legal
    assert not validation(name, arch, per_step - 1).legal
    if legal_on:
        assert validation(name, load_arch(resolve_arch(legal_on))).legal


def test_conv2d_os_8x8_is_listed_with_its_note(capsys):
    rc, out, _ = run_cli(["presets"], capsys)
    assert rc == 0
    assert (
        "  conv2d/os-8x8 on systolic-8x8: illegal (pe_conflict: up to 9 instances per PE and "
        "step, as in TENET's mapping); legal on systolic-8x8-mac9\n" in out
    )
    rc, out, _ = run_cli(
        ["validate", "-w", "conv2d", "-a", "systolic-8x8-mac9", "-d", "os-8x8"], capsys
    )
    assert rc == 0 and ": legal" in out


# --- 13. workers die with their parent -----------------------------------------------------------


def _children(pid: int) -> list[int]:
    """Worker processes (multiprocessing spawn) whose parent is `pid`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == pid and b"spawn_main" in command:
            found.append(int(entry.name))
    return found


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"  # a zombie has ended (nobody may reap it in a container)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_workers_exit_when_their_parent_is_killed():
    process = tenet_process(["dse", "-w", "gemm", "-a", "systolic-8x8", "--jobs", "2"])
    try:
        deadline = time.monotonic() + 20
        workers = []
        while len(workers) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
            workers = _children(process.pid)
        assert len(workers) == 2
        time.sleep(1.0)  # past their initializer, into the tasks
        process.kill()
        process.wait()
        deadline = time.monotonic() + 4
        while any(map(_running, workers)) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = [w for w in workers if _running(w)]
        assert not left, f"workers {left} outlived their parent"
    finally:
        process.kill()
        for worker in _children(process.pid):
            os.kill(worker, signal.SIGKILL)


# --- warnings get a kind -------------------------------------------------------------------------


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


def test_each_kind_comes_from_its_check():
    from tenet.model.arch import with_topology

    mesh = with_topology(load_arch(resolve_arch("systolic-8x8")), "mesh")
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


def test_maps_that_hold_no_instance_say_so(tmp_path, capsys):
    """A dataflow whose maps hold no instance of the domain (a condition nothing meets):
    one line saying so, exit 2 (the message used to end in 'got ' and nothing)."""
    flow = write_yaml(
        tmp_path,
        "d",
        {
            "name": "empty",
            "space": "{ S[i,j,k] -> PE[i % 8, j % 8] : i < 0 }",
            "time": "{ S[i,j,k] -> T[k] : i < 0 }",
        },
    )
    rc, out, err = run_cli(
        ["analyze", "-w", "gemm", "-a", "systolic-8x8", "-d", flow, "--set", "M=8"], capsys
    )
    assert rc == 2 and not out
    assert len(err.strip().splitlines()) == 1 and "maps no instance" in err and "time" in err


def test_einsum_bound_with_an_undeclared_parameter(tmp_path, capsys):
    """`bounds: {i: M}` with no `params`: one line saying M has no value (it used to blame
    the isl syntax)."""
    path = write_yaml(tmp_path, "w", {"name": "w", "einsum": "C[i] += A[i]", "bounds": {"i": "M"}})
    rc, out, err = run_cli(["workload", "show", "-w", path], capsys)
    assert rc == 2 and not out
    assert len(err.strip().splitlines()) == 1
    assert "bounds.i" in err and "parameter 'M' has no value" in err
