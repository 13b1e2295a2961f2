"""Stopping a run: Ctrl-C inside isl and during a long `simulate` ends quietly (exit 130,
one line), worker processes end with their parent, and a worker that dies is reported as
a dead worker (not as a lack of memory)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tenet.errors import TenetError
from tenet.execution import run_tasks

from ..conftest import ROOT

GEMM = ["-w", "gemm", "-a", "systolic-8x8", "-d", "os-systolic-8x8"]


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


# --- Ctrl-C ------------------------------------------------------------------------------------


def test_ctrl_c_inside_isl_point_iteration_raises_keyboard_interrupt_quietly(capfd):
    """isl's point iterator calls Python once per point; SIGINT there raises
    KeyboardInterrupt within seconds, not an `isl.Error` ("isl_set_foreach_point failed")
    with islpy's traceback and warning."""
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
    """`simulate` of GEMM M=4096 (memory check lifted, so that it enumerates), SIGINT after
    2.5 s: exit 130, `tenet: interrupted` alone on stderr, nothing on stdout."""
    args = ["simulate", *GEMM, "--set", "M=4096", "--max-instances", "100000000000"]
    process = tenet_process(args, env={"TENET_MEMORY_AVAILABLE": str(10**15)})
    time.sleep(2.5)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert err == "tenet: interrupted\n"
    assert out == ""


# --- workers end with their parent ----------------------------------------------------------


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


# --- a worker process that dies --------------------------------------------------------------


def die_or_square(argument: tuple[int, str]) -> dict:
    """Top level, so that spawned workers can import it: end the process as told."""
    n, how = argument
    if how == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if how == "exit":
        os._exit(7)
    return {"n": n * n}


@pytest.mark.parametrize(
    "how, says", [("kill", "killed by signal SIGKILL"), ("exit", "exit code 7")]
)
def test_a_dead_worker_is_reported_as_such(how, says):
    tasks = [(str(n), (n, how if n == 1 else "")) for n in range(3)]
    with pytest.raises(TenetError) as info:
        run_tasks(die_or_square, tasks, jobs=2)
    message = str(info.value)
    assert "a worker process ended abruptly" in message and says in message
    assert "memory" not in message
    assert "\n" not in message
