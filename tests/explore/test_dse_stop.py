"""A stopped search keeps what it found: on its time limit (`--time-limit`, `time_limit_s`) or
on Ctrl-C (SIGINT, exit 130), `dse` and `compare --best` report the front of the candidates
counted so far, marked incomplete. Each front member is checked here against `validate` and
`analyze` of its emitted dataflow, independently of the search."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tenet import analyze, load_arch, load_dataflow, load_workload
from tenet.analysis.validate import validate
from tenet.explore.dse import explore, write_dataflows
from tenet.explore.objectives import OBJECTIVES
from tenet.model.dataflow import Dataflow
from tenet.util.isl_util import parse_union_map

from ..conftest import ARCHS, ROOT, WORKLOADS
from ..helpers import run_cli

GEMM_16 = {"M": 16, "N": 16, "K": 16}
CONV_16 = {"OX": 16, "OY": 16, "K": 16, "C": 16}
CONV_ARGS = ["-w", "conv2d", *(f"--set={k}={v}" for k, v in CONV_16.items())]
#: Objectives without a pruning floor: one batch, every candidate counted (4,032 of conv2d
#: on systolic-8x8 take about 9 s on one core, so a run of a second or two cannot finish).
UNPRUNED = ("sbw", "ibw")


def gemm_and_array():
    workload = load_workload(WORKLOADS / "gemm" / "workload.yaml", GEMM_16)
    return workload, load_arch(ARCHS / "systolic-4x4.yaml")


def conv_and_array():
    workload = load_workload(WORKLOADS / "conv2d" / "workload.yaml", CONV_16)
    return workload, load_arch(ARCHS / "systolic-8x8.yaml")


def check_members(workload, arch, members: list[tuple[Dataflow, dict]]) -> None:
    """Each (dataflow, objective values) is legal and its values are those of `analyze`."""
    for dataflow, values in members:
        assert validate(workload, arch, dataflow).legal
        analysis = analyze(workload, arch, dataflow)
        for name, value in values.items():
            assert OBJECTIVES[name].value(analysis) == value, (dataflow.name, name)


def emitted(report, folder: Path) -> list[tuple[Dataflow, dict]]:
    """The front as written by `write_dataflows`, read back, with its objective values."""
    paths = write_dataflows(report.pareto, folder)
    return [
        (load_dataflow(path), entry.objective_values())
        for path, entry in zip(paths, report.pareto, strict=True)
    ]


def from_json(entries: list[dict]) -> list[tuple[Dataflow, dict]]:
    """Front members of the dse JSON as dataflows (their isl text and tile depths)."""
    return [
        (
            Dataflow(
                e["name"],
                parse_union_map(e["space"]),
                parse_union_map(e["time"]),
                tiles=e.get("tiles", {}),
            ),
            e["objectives"],
        )
        for e in entries
    ]


# --- the library -------------------------------------------------------------------------------


def test_time_limit_keeps_the_chunks_counted(tmp_path):
    """The first finished chunk's progress call sleeps past the limit: the timer stops the
    search inside that batch, which keeps its finished chunks."""
    workload, arch = gemm_and_array()
    start = time.monotonic()
    seen = []

    def progress(done: int, total: int) -> None:
        seen.append(done)
        if done > 0 and len(seen) == 2:  # after the first chunk: wait past the limit
            time.sleep(max(0.0, 1.2 - (time.monotonic() - start)))

    report = explore(workload, arch, UNPRUNED, interleave=True, progress=progress, time_limit_s=1.0)
    assert not report.complete and report.stopped_by == "time_limit"
    assert 0 < report.settled < report.distinct
    assert report.evaluated == report.legal  # every gemm candidate here is legal
    assert report.pareto
    data = report.to_dict()
    assert data["complete"] is False and data["stopped_by"] == "time_limit"
    assert data["distinct"] == report.distinct
    check_members(workload, arch, emitted(report, tmp_path))


def test_interrupt_keeps_the_chunks_counted(tmp_path):
    """SIGINT to this process after the first chunk, with `stop_on_interrupt`."""
    workload, arch = gemm_and_array()
    sent = []

    def progress(done: int, total: int) -> None:
        if done > 0 and not sent:
            sent.append(done)
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.5)  # the handler runs at once in the main thread

    report = explore(workload, arch, UNPRUNED, interleave=True, progress=progress,
                     stop_on_interrupt=True)  # fmt: skip
    assert report.stopped_by == "interrupt" and not report.complete
    assert report.settled == sent[0]  # exactly the first chunk
    assert report.pareto
    check_members(workload, arch, emitted(report, tmp_path))
    assert "stopped after" in report.stop_note() and "(interrupted)" in report.stop_note()


def test_without_stop_on_interrupt_ctrl_c_raises():
    workload, arch = gemm_and_array()

    def progress(done: int, total: int) -> None:
        if done > 0:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.5)

    with pytest.raises(KeyboardInterrupt):
        explore(workload, arch, UNPRUNED, interleave=True, progress=progress)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_complete_search_says_so():
    workload, arch = gemm_and_array()
    report = explore(workload, arch, UNPRUNED, time_limit_s=600, stop_on_interrupt=True)
    assert report.complete and report.stopped_by is None and report.stop_note() is None
    assert report.settled == report.distinct
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


@pytest.mark.parametrize("bad", [0, -1.5, float("nan")])
def test_a_time_limit_must_be_positive(bad):
    from tenet.errors import InputError

    workload, arch = gemm_and_array()
    with pytest.raises(InputError, match="positive number of seconds"):
        explore(workload, arch, time_limit_s=bad)


# --- the command line --------------------------------------------------------------------------


def test_dse_time_limit_on_a_space_it_cannot_finish(tmp_path, capsys):
    """conv2d's 4,032 candidates for sbw,ibw take seconds; a limit of 0.5 s cannot finish.
    The front (maybe empty, when not a chunk ended) is legal and equal to `analyze`."""
    out_dir = tmp_path / "front"
    rc, out, err = run_cli(["dse", *CONV_ARGS, "-a", "systolic-8x8", "--objectives",
                            "sbw,ibw", "--time-limit", "0.5", "--format", "json", "-q",
                            "--emit", out_dir], capsys)  # fmt: skip
    assert rc == 0, err
    data = json.loads(out)
    assert data["complete"] is False and data["stopped_by"] == "time_limit"
    assert data["distinct"] == 4032
    assert data["evaluated"] + data["pruned"] < data["distinct"]
    workload, arch = conv_and_array()
    check_members(workload, arch, from_json(data["pareto"]))
    assert len(list(out_dir.glob("*.yaml"))) == len(data["pareto"])


def test_dse_table_marks_an_incomplete_front(capsys):
    rc, out, err = run_cli(["dse", *CONV_ARGS, "-a", "systolic-8x8", "--objectives",
                            "sbw,ibw", "--time-limit", "0.3", "-q"], capsys)  # fmt: skip
    assert rc == 0, err
    assert "incomplete: stopped after " in out and " of 4,032 candidates (time limit)" in out


def test_dse_time_limit_is_refused_with_a_network(capsys):
    rc, _, err = run_cli(
        ["dse", "-n", "alexnet", "-a", "systolic-4x4", "--time-limit", "1"], capsys
    )
    assert rc == 2 and err.count("\n") == 1 and "--time-limit" in err


def test_dse_bad_time_limit_names_the_flag(capsys):
    rc, _, err = run_cli(["dse", *CONV_ARGS, "-a", "systolic-8x8", "--time-limit", "0"], capsys)
    assert rc == 2 and err.count("\n") == 1 and "--time-limit" in err


@pytest.mark.slow
def test_dse_time_limit_front_matches_analyze(tmp_path, capsys):
    """A limit of 5 s in this process: conv2d's first chunks end after about 1.3 s on an idle
    core, so the front is not empty; every member equals `analyze` of its emitted file."""
    out_dir = tmp_path / "front"
    rc, out, err = run_cli(["dse", *CONV_ARGS, "-a", "systolic-8x8", "--objectives",
                            "sbw,ibw", "--time-limit", "5", "--jobs", "1", "--format", "json",
                            "-q", "--emit", out_dir], capsys)  # fmt: skip
    assert rc == 0, err
    data = json.loads(out)
    assert data["complete"] is False and data["pareto"]
    workload, arch = conv_and_array()
    members = [(load_dataflow(out_dir / f"{e['name']}.yaml"), e["objectives"])
               for e in data["pareto"]]  # fmt: skip
    check_members(workload, arch, members)


def test_compare_best_time_limit(capsys):
    """compare --best with a limit: its best block says incomplete, or (nothing counted in
    time) one line naming --time-limit, exit 2."""
    rc, out, err = run_cli(["compare", *CONV_ARGS, "-a", "systolic-8x8", "--best", "sbw",
                            "--time-limit", "2", "--jobs", "1", "--format", "json", "-q"],
                           capsys)  # fmt: skip
    if rc == 2:
        assert err.count("\n") == 1 and "--time-limit" in err
        return
    assert rc == 0, err
    (result,) = json.loads(out)["results"]
    best = result["best"]
    assert best["complete"] is False and best["stopped_by"] == "time_limit"
    assert "tenet: note: best-sbw on systolic-8x8: incomplete: stopped after" in err
    workload, arch = conv_and_array()
    dataflow = Dataflow("best", parse_union_map(result["space"]), parse_union_map(result["time"]))
    check_members(workload, arch, [(dataflow, {"sbw": best["value"]})])


# --- Ctrl-C in a process of its own ------------------------------------------------------------


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
    return state != "Z"


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_ctrl_c_prints_the_front_so_far_and_ends_the_workers():
    """`dse --jobs 2` of conv2d with --interleave (42,432 candidates for sbw,ibw: minutes),
    SIGINT once both workers run and a little more: exit 130, the JSON front of the
    candidates counted so far, marked interrupted, each member equal to `analyze`, and no
    worker left."""
    args = ["dse", *CONV_ARGS, "-a", "systolic-8x8", "--objectives", "sbw,ibw",
            "--interleave", "--jobs", "2", "--format", "json", "-q"]  # fmt: skip
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    process = subprocess.Popen(
        [sys.executable, "-m", "tenet", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        workers: list[int] = []
        while len(workers) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
            workers = _children(process.pid)
        assert len(workers) == 2
        time.sleep(4.0)  # into the tasks: some chunks end
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 130, err
    assert err == "tenet: interrupted: the front is that of the candidates counted\n"
    data = json.loads(out)
    assert data["complete"] is False and data["stopped_by"] == "interrupt"
    assert data["evaluated"] + data["pruned"] < data["distinct"] == 42432
    deadline = time.monotonic() + 5
    while any(map(_running, workers)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [w for w in workers if _running(w)]
    workload, arch = conv_and_array()
    check_members(workload, arch, from_json(data["pareto"]))
