"""tenet.execution: inline, process-pool and Dask runs agree; the journal resumes; errors surface.

Expected values are closed forms (sum of squares n(n-1)(2n-1)/6, 3**n, GEMM MACs = M*N*K)
and, for resuming, a log of the calls the task function actually made.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tenet import analyze, load_arch, load_dataflow, load_workload
from tenet.cli.common import add_execution_arguments, execution_options
from tenet.errors import InputError
from tenet.execution import kept_pool, read_journal, run_tasks

from ..conftest import ARCHS, ROOT, WORKLOADS

SIZES = [0, 1, 7, 50, 64, 333]


# --- task functions (top level, so that worker processes and Dask workers can import them) ----


def log_call(log: str | None, n: int) -> None:
    """Append `n` to the call log (one short O_APPEND write per call, safe across processes)."""
    if log:
        with open(log, "a") as file:
            file.write(f"{n}\n")


def squares(argument: tuple[int, str | None]) -> dict:
    """Sum of i*i for i < n by a loop, and 3**n by repeated multiplication."""
    n, log = argument
    log_call(log, n)
    total, power = 0, 1
    for i in range(n):
        total += i * i
        power *= 3
    return {"n": n, "sum_of_squares": total, "power_of_3": power, "pair": (n, n + 1)}


def slow_squares(argument: tuple[int, str | None]) -> dict:
    """`squares`, a tenth of a second later."""
    time.sleep(0.1)
    return squares(argument)


def squares_or_bad_input(argument: tuple[int, str | None]) -> dict:
    """`squares`, but n < 0 is bad input naming a file and a key."""
    n, log = argument
    if n < 0:
        log_call(log, n)
        raise InputError(f"n must not be negative, got {n}", "sizes.yaml", "n")
    return squares(argument)


def gemm_counts(shape: tuple[int, int, int]) -> dict:
    """`analyze` of the GEMM preset at M, N, K on the 8x8 systolic array (output stationary)."""
    m, n, k = shape
    workload = load_workload(WORKLOADS / "gemm" / "workload.yaml", {"M": m, "N": n, "K": k})
    arch = load_arch(ARCHS / "systolic-8x8.yaml")
    dataflow = load_dataflow(WORKLOADS / "gemm" / "dataflows" / "os-systolic-8x8.yaml")
    result = analyze(workload, arch, dataflow).to_dict()
    return {"macs": result["macs"], "instances": result["instances"], "pes": result["pe_count"]}


# --- helpers ---------------------------------------------------------------------------------


def square_tasks(sizes, log: Path | None = None) -> list[tuple[str, tuple[int, str | None]]]:
    return [(f"n={n}", (n, str(log) if log else None)) for n in sizes]


def expected_squares(n: int) -> dict:
    """The closed forms: sum_{i<n} i^2 = (n-1)n(2n-1)/6 and 3^n; tuples come back as lists."""
    return {
        "n": n,
        "sum_of_squares": (n - 1) * n * (2 * n - 1) // 6,
        "power_of_3": pow(3, n),
        "pair": [n, n + 1],
    }


def logged_calls(log: Path) -> list[int]:
    return sorted(int(line) for line in log.read_text().split()) if log.exists() else []


def journal_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def free_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --- the three ways of running agree ----------------------------------------------------------


@pytest.mark.parametrize("jobs", [1, 2])
def test_inline_and_pool_give_the_closed_forms_in_task_order(jobs):
    sizes = [333, 0, 64, 7, 1, 50]
    results = run_tasks(squares, square_tasks(sizes), jobs=jobs)
    assert list(results) == [f"n={n}" for n in sizes]
    assert results == {f"n={n}": expected_squares(n) for n in sizes}
    assert results["n=64"]["power_of_3"] > 2**64  # exact beyond 64-bit integers


def test_pool_runs_tasks_on_other_processes(tmp_path):
    log = tmp_path / "pids"
    tasks = [(str(i), str(log)) for i in range(4)]
    run_tasks(record_pid, tasks, jobs=2)
    pids = {int(line) for line in log.read_text().split()}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2


def test_kept_pool_runs_every_call_on_the_same_processes(tmp_path):
    """Inside `kept_pool(2)`, three calls of `run_tasks` (as dse's batches) share two worker
    processes; outside it, each call starts fresh ones."""
    kept, fresh = tmp_path / "kept", tmp_path / "fresh"
    with kept_pool(2):
        for batch in range(3):
            run_tasks(record_pid, [(f"{batch}-{i}", str(kept)) for i in range(4)], jobs=2)
    for batch in range(3):
        run_tasks(record_pid, [(f"{batch}-{i}", str(fresh)) for i in range(4)], jobs=2)
    kept_pids = {int(line) for line in kept.read_text().split()}
    fresh_pids = {int(line) for line in fresh.read_text().split()}
    assert os.getpid() not in kept_pids and 1 <= len(kept_pids) <= 2
    assert len(fresh_pids) >= 3  # at least one new process per call


def record_pid(log: str) -> dict:
    """Write this process's id to the log."""
    log_call(log, os.getpid())
    time.sleep(0.05)
    return {}


def test_dask_cluster_gives_the_same_results_as_inline_and_pool(dask_scheduler_address):
    tasks = square_tasks(SIZES)
    on_dask = run_tasks(squares, tasks, scheduler=dask_scheduler_address)
    assert on_dask == run_tasks(squares, tasks) == run_tasks(squares, tasks, jobs=2)
    assert list(on_dask) == [key for key, _ in tasks]
    assert on_dask == {f"n={n}": expected_squares(n) for n in SIZES}


@pytest.mark.slow
def test_dask_workers_run_tenet_analyses(dask_scheduler_address, tmp_path):
    shapes = [(16, 16, 8), (24, 8, 40), (8, 64, 3)]
    tasks = [(f"gemm {m}x{n}x{k}", (m, n, k)) for m, n, k in shapes]
    journal = tmp_path / "gemm.jsonl"
    on_dask = run_tasks(gemm_counts, tasks, scheduler=dask_scheduler_address, journal=journal)
    assert on_dask == run_tasks(gemm_counts, tasks, jobs=2)
    for key, (m, n, k) in tasks:
        assert on_dask[key] == {"macs": m * n * k, "instances": m * n * k, "pes": 64}
    assert sorted(line["key"] for line in journal_lines(journal)) == sorted(on_dask)


def test_dask_run_resumes_from_the_journal(dask_scheduler_address, tmp_path):
    journal, log = tmp_path / "journal.jsonl", tmp_path / "calls"
    tasks = square_tasks(SIZES, log)
    done = tasks[:2]
    journal.write_text(
        "".join(
            json.dumps({"key": key, "result": expected_squares(n)}) + "\n" for key, (n, _) in done
        )
    )
    results = run_tasks(squares, tasks, scheduler=dask_scheduler_address, journal=journal)
    assert logged_calls(log) == sorted(SIZES[2:])
    assert results == {f"n={n}": expected_squares(n) for n in SIZES}


# --- the journal and resuming ------------------------------------------------------------------


def test_journal_holds_one_record_per_finished_task(tmp_path):
    journal = tmp_path / "run.jsonl"
    results = run_tasks(squares, square_tasks(SIZES), jobs=2, journal=journal)
    records = journal_lines(journal)
    assert sorted(r["key"] for r in records) == sorted(f"n={n}" for n in SIZES)
    assert all(set(r) == {"key", "result"} for r in records)
    assert {r["key"]: r["result"] for r in records} == results


@pytest.mark.parametrize("jobs", [1, 2])
def test_rerun_after_interruption_runs_only_the_missing_tasks(tmp_path, jobs):
    journal, log = tmp_path / "run.jsonl", tmp_path / "calls"
    tasks = square_tasks(SIZES, log)
    finished = [f"n={n}" for n in (0, 50, 7)]
    lines = [json.dumps({"key": k, "result": expected_squares(int(k[2:]))}) for k in finished]
    torn = json.dumps({"key": "n=64", "result": expected_squares(64)})[:25]  # killed mid-write
    journal.write_text("\n".join(lines) + "\n" + torn)

    results = run_tasks(squares, tasks, jobs=jobs, journal=journal)

    assert logged_calls(log) == [1, 64, 333]  # the tasks absent from the journal, and only those
    assert results == {f"n={n}": expected_squares(n) for n in SIZES}
    assert list(results) == [key for key, _ in tasks]
    records = journal_lines(journal)  # the torn line is gone, every line parses
    assert sorted(r["key"] for r in records) == sorted(f"n={n}" for n in SIZES)

    log.unlink()
    assert run_tasks(squares, tasks, jobs=jobs, journal=journal) == results
    assert logged_calls(log) == []  # a complete journal runs nothing


def test_resume_after_killing_a_real_run(tmp_path):
    journal, log = tmp_path / "run.jsonl", tmp_path / "calls"
    sizes = list(range(10, 40))
    script = (
        "import sys\n"
        "from tenet.execution import run_tasks\n"
        "from tests.explore.test_execution import slow_squares, square_tasks\n"
        f"run_tasks(slow_squares, square_tasks({sizes!r}), journal={str(journal)!r})\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, env=env)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and journal_count(journal) < 3:
            time.sleep(0.02)
    finally:
        run.kill()
        run.wait()
    before = set(read_journal(journal))  # a line torn by the kill would be left out
    assert 3 <= len(before) < len(sizes)

    results = run_tasks(squares, square_tasks(sizes, log), journal=journal)

    assert logged_calls(log) == sorted(n for n in sizes if f"n={n}" not in before)
    assert results == {f"n={n}": expected_squares(n) for n in sizes}


def journal_count(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_a_whole_last_record_without_newline_is_kept(tmp_path):
    journal, log = tmp_path / "run.jsonl", tmp_path / "calls"
    journal.write_text(json.dumps({"key": "n=7", "result": expected_squares(7)}))
    results = run_tasks(squares, square_tasks([7, 50], log), journal=journal)
    assert logged_calls(log) == [50]
    assert results == {"n=7": expected_squares(7), "n=50": expected_squares(50)}
    assert [r["key"] for r in journal_lines(journal)] == ["n=7", "n=50"]


def test_a_damaged_line_inside_the_journal_is_bad_input(tmp_path):
    journal = tmp_path / "run.jsonl"
    good = json.dumps({"key": "n=7", "result": expected_squares(7)})
    journal.write_text(f"{good}\nnot json\n{good}\n")
    with pytest.raises(InputError) as info:
        run_tasks(squares, square_tasks([7]), journal=journal)
    assert info.value.source == str(journal)
    assert "line 2" in info.value.message


def test_an_unwritable_journal_is_bad_input(tmp_path):
    with pytest.raises(InputError) as info:
        run_tasks(squares, square_tasks([7]), journal=tmp_path / "no-such-dir" / "run.jsonl")
    assert "cannot write the journal" in str(info.value)


# --- errors ---------------------------------------------------------------------------------


def test_bad_input_in_a_task_stops_the_inline_run(tmp_path):
    journal, log = tmp_path / "run.jsonl", tmp_path / "calls"
    tasks = square_tasks([3, 5, -1, 8, 9], log)
    with pytest.raises(InputError) as info:
        run_tasks(squares_or_bad_input, tasks, journal=journal)
    assert (info.value.source, info.value.key) == ("sizes.yaml", "n")
    assert str(info.value) == "sizes.yaml: n: n must not be negative, got -1"
    assert logged_calls(log) == [-1, 3, 5]  # nothing after the failing task ran
    assert [r["key"] for r in journal_lines(journal)] == ["n=3", "n=5"]


def test_bad_input_in_a_worker_process_stays_input_error(tmp_path):
    journal = tmp_path / "run.jsonl"
    tasks = square_tasks([3, 5, -1, 8, 9])
    with pytest.raises(InputError) as info:
        run_tasks(squares_or_bad_input, tasks, jobs=2, journal=journal)
    assert (info.value.source, info.value.key, info.value.exit_code) == ("sizes.yaml", "n", 2)
    assert str(info.value) == "sizes.yaml: n: n must not be negative, got -1"
    assert "n=-1" not in {r["key"] for r in journal_lines(journal)}


def sleepy_or_bad_input(n: int) -> dict:
    """Bad input at once for n < 0, else a result after n seconds."""
    if n < 0:
        raise InputError("n must not be negative", "sizes.yaml", "n")
    time.sleep(n)
    return {"n": n}


def test_a_failure_in_the_pool_ends_the_running_tasks_at_once():
    start = time.monotonic()
    with pytest.raises(InputError):
        run_tasks(sleepy_or_bad_input, [("bad", -1), ("slow", 60), ("slower", 60)], jobs=2)
    assert time.monotonic() - start < 30  # did not wait for the 60 s task running beside it


def test_bad_input_on_a_dask_worker_stays_input_error(dask_scheduler_address):
    with pytest.raises(InputError) as info:
        run_tasks(squares_or_bad_input, square_tasks([3, -1, 8]), scheduler=dask_scheduler_address)
    assert str(info.value) == "sizes.yaml: n: n must not be negative, got -1"


def test_an_unreachable_scheduler_is_bad_input(monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr("tenet.execution.DASK_CONNECT_TIMEOUT_S", 2.0)
    for url in (f"tcp://127.0.0.1:{free_port()}", "not-an-address", "http://127.0.0.1:80"):
        start = time.monotonic()
        with pytest.raises(InputError) as info:
            run_tasks(squares, square_tasks([1]), scheduler=url)
        assert info.value.option == "scheduler"
        assert "cannot connect to a Dask scheduler" in info.value.message
        assert "\n" not in str(info.value)
        assert time.monotonic() - start < 10


def test_a_scheduler_without_dask_installed_is_bad_input(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # makes `import distributed` fail
    with pytest.raises(InputError) as info:
        run_tasks(squares, square_tasks([1]), scheduler="tcp://127.0.0.1:8786")
    assert info.value.option == "scheduler"
    assert "tenet-dataflow[dask]" in info.value.message


def test_results_must_be_json_dicts_and_keys_unique():
    with pytest.raises(TypeError):
        run_tasks(abs, [("a", -1)])
    with pytest.raises(TypeError):
        run_tasks(lambda x: {"set": {x}}, [("a", 1)])
    with pytest.raises(ValueError):
        run_tasks(squares, [("a", (1, None)), ("a", (2, None))])


# --- progress and command-line options --------------------------------------------------------


def test_progress_counts_resumed_then_finished_tasks(tmp_path):
    journal = tmp_path / "run.jsonl"
    run_tasks(squares, square_tasks([7, 50]), journal=journal)
    calls: list[tuple[int, int]] = []
    run_tasks(squares, square_tasks(SIZES), journal=journal, progress=lambda *a: calls.append(a))
    assert calls == [(done, len(SIZES)) for done in range(2, len(SIZES) + 1)]


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_execution_arguments(parser)
    return parser.parse_args(argv)


def test_command_line_options():
    # No --jobs: a local pool with one process per CPU this process may use.
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert execution_options(parse([])) == {"jobs": cpus, "scheduler": None, "journal": None}
    args = parse(["--jobs", "3", "--journal", "out.jsonl"])
    assert execution_options(args) == {"jobs": 3, "scheduler": None, "journal": "out.jsonl"}
    args = parse(["--scheduler", "tcp://10.0.0.5:8786"])
    assert execution_options(args)["scheduler"] == "tcp://10.0.0.5:8786"
    assert execution_options(args)["jobs"] == 1  # the cluster decides, not local processes


@pytest.mark.parametrize(
    ("argv", "flag"),
    [(["--jobs", "0"], "--jobs"), (["--jobs", "2", "--scheduler", "tcp://h:1"], "--jobs")],
)
def test_bad_command_line_options(argv, flag):
    with pytest.raises(InputError) as info:
        execution_options(parse(argv))
    assert info.value.source == flag
