"""A real Dask cluster on loopback for tests: a scheduler and workers as separate processes.

Use the session fixture `dask_scheduler_address` (tests/conftest.py), which yields the
scheduler's `tcp://127.0.0.1:PORT`, or the context manager `local_dask_cluster` directly.
Task functions must be importable by the workers: top-level functions in `tenet` or in a
`tests` module (the workers get the repository root on PYTHONPATH).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Seconds to wait for the scheduler and the workers to come up.
STARTUP_TIMEOUT_S = 60.0


def start(command: list[str], log: Path) -> subprocess.Popen:
    """Start one Dask process with the repository importable, its output going to `log`."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    with log.open("w") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "dask", *command],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=ROOT,
        )


def scheduler_address(scheduler_file: Path, process: subprocess.Popen, log: Path) -> str:
    """The address the scheduler wrote to its scheduler file, once it has."""
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"dask scheduler exited:\n{log.read_text()}")
        with contextlib.suppress(FileNotFoundError, json.JSONDecodeError, KeyError):
            return json.loads(scheduler_file.read_text())["address"]
        time.sleep(0.1)
    raise RuntimeError(f"dask scheduler did not start in {STARTUP_TIMEOUT_S} s:\n{log.read_text()}")


def stop(processes: list[subprocess.Popen]) -> None:
    """Terminate the processes we started, workers before the scheduler (a worker whose
    scheduler is gone waits for it), and kill any that linger."""
    for process in reversed(processes):
        if process.poll() is None:
            process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=5)
    for process in processes:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextlib.contextmanager
def local_dask_cluster(workers: int = 2) -> Iterator[str]:
    """`dask scheduler` and `workers` one-thread `dask worker`s on 127.0.0.1; yields the address."""
    from distributed import Client

    processes: list[subprocess.Popen] = []
    with tempfile.TemporaryDirectory(prefix="tenet-dask-") as tmp:
        folder = Path(tmp)
        try:
            log = folder / "scheduler.log"
            scheduler_file = folder / "scheduler.json"
            processes.append(
                start(
                    [
                        "scheduler",
                        "--host",
                        "127.0.0.1",
                        "--port",
                        "0",
                        "--no-dashboard",
                        "--dashboard-address",  # its HTTP routes still listen: keep them local
                        "127.0.0.1:0",
                        "--scheduler-file",
                        str(scheduler_file),
                    ],
                    log,
                )
            )
            address = scheduler_address(scheduler_file, processes[0], log)
            for index in range(workers):
                command = ["worker", address, "--host", "127.0.0.1", "--nthreads", "1"]
                command += ["--no-nanny", "--no-dashboard", "--dashboard-address", "127.0.0.1:0"]
                command += ["--name", f"worker-{index}"]
                processes.append(start(command, folder / f"worker-{index}.log"))
            with Client(address, timeout=STARTUP_TIMEOUT_S, set_as_default=False) as client:
                client.wait_for_workers(workers, timeout=STARTUP_TIMEOUT_S)
            yield address
        finally:
            stop(processes)
