"""Running many independent tasks: inline, on local processes, or on a Dask cluster.

A task is `(key, argument)`; `run_tasks` calls `function(argument)` once per task whose key is
not yet in the journal, appends each result to the journal (JSON lines) as it arrives, and
returns `{key: result}` in task order. The three ways of running give identical results.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import IO, Any

from tenet.errors import InputError, TenetError, option_ref

#: Seconds to wait for a Dask scheduler to answer before giving up.
DASK_CONNECT_TIMEOUT_S = 10.0

TaskFunction = Callable[[Any], dict]
Progress = Callable[[int, int], None]
OnResult = Callable[[str, dict], None]


def check_execution(jobs: int, scheduler: str | None) -> None:
    """Reject a non-positive job count, or `--jobs` > 1 together with `--scheduler`."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise InputError(f"must be a positive number of processes, got {jobs!r}", option="jobs")
    if scheduler is not None and jobs != 1:
        raise InputError(
            f"give either {option_ref('jobs')} N (local processes) or {option_ref('scheduler')} "
            "URL (a Dask cluster), not both",
            option="jobs",
        )
    if scheduler is not None and not scheduler.strip():
        raise InputError("expected a scheduler address such as tcp://HOST:PORT", option="scheduler")


def run_tasks(
    function: TaskFunction,
    tasks: Sequence[tuple[str, Any]],
    jobs: int = 1,
    scheduler: str | None = None,
    journal: str | Path | None = None,
    progress: Progress | None = None,
) -> dict[str, dict]:
    """`{key: function(argument)}` for every task, in task order; journalled keys are read back.

    The first task to fail cancels the tasks not yet started and its exception is re-raised
    (an `InputError` stays an `InputError`); results that arrived before it stay journalled.
    """
    check_execution(jobs, scheduler)
    check_tasks(tasks)
    with open_journal(Path(journal) if journal is not None else None) as writer:
        results = {key: writer.finished[key] for key, _ in tasks if key in writer.finished}
        pending = [(key, argument) for key, argument in tasks if key not in results]
        total = len(tasks)
        if progress:
            progress(len(results), total)

        def on_result(key: str, result: dict) -> None:
            results[key] = writer.record(key, result)
            if progress:
                progress(len(results), total)

        if pending and scheduler is not None:
            run_dask(function, pending, scheduler, on_result)
        elif len(pending) > 1 and jobs > 1:
            run_pool(function, pending, min(jobs, len(pending)), on_result)
        else:
            run_inline(function, pending, on_result)
    return {key: results[key] for key, _ in tasks}


def check_tasks(tasks: Sequence[tuple[str, Any]]) -> None:
    """Every key is a string and no key repeats (keys name results in the journal)."""
    seen: set[str] = set()
    for key, _ in tasks:
        if not isinstance(key, str):
            raise TypeError(f"task keys must be strings, got {key!r}")
        if key in seen:
            raise ValueError(f"task key {key!r} appears twice")
        seen.add(key)


# --- the journal -------------------------------------------------------------------------------


def record_line(key: str, result: dict) -> str:
    """One journal line: `{"key": KEY, "result": RESULT}` as JSON, without the newline."""
    if not isinstance(result, dict):
        raise TypeError(f"task {key!r} returned {type(result).__name__}, expected a dict")
    try:
        return json.dumps({"key": key, "result": result})
    except (TypeError, ValueError) as exc:
        raise TypeError(f"task {key!r} returned a result that is not JSON: {exc}") from None


def parse_record(line: bytes) -> tuple[str, dict] | None:
    """(key, result) of one journal line, or None if it is not a whole record."""
    try:
        record = json.loads(line)
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(record, dict) or set(record) != {"key", "result"}:
        return None
    if not isinstance(record["key"], str) or not isinstance(record["result"], dict):
        return None
    return record["key"], record["result"]


def journal_records(data: bytes, source: str) -> tuple[dict[str, dict], int]:
    """The records of a journal's bytes and the length of the prefix they fill.

    Every newline-terminated line must be a record; a last line without a newline is kept
    when it is a whole record and dropped (an interrupted write) otherwise.
    """
    records: dict[str, dict] = {}
    *lines, tail = data.split(b"\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        parsed = parse_record(line)
        if parsed is None:
            raise InputError(
                f"line {number} is not a journal record {{'key': ..., 'result': {{...}}}}; "
                "delete the file to start over",
                source,
            )
        records[parsed[0]] = parsed[1]
    parsed = parse_record(tail) if tail.strip() else None
    if parsed is None:
        return records, len(data) - len(tail)
    records[parsed[0]] = parsed[1]
    return records, len(data)


def read_journal(path: Path) -> dict[str, dict]:
    """`{key: result}` of the records in a journal file (empty if the file does not exist)."""
    return journal_records(read_bytes(path), str(path))[0]


def read_bytes(path: Path) -> bytes:
    """The file's bytes; no bytes if it does not exist."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return b""
    except OSError as exc:
        raise InputError(f"cannot read the journal: {exc.strerror}", str(path)) from None


class JournalWriter:
    """Appends records to an open journal file (or, with no file, only normalises them)."""

    def __init__(self, file: IO[str] | None, finished: dict[str, dict]):
        self.file = file
        self.finished = finished

    def record(self, key: str, result: dict) -> dict:
        """Append `key`'s result and flush; return the result as read back from its JSON."""
        line = record_line(key, result)
        if self.file is not None:
            self.file.write(line + "\n")
            self.file.flush()
        return json.loads(line)["result"]


@contextlib.contextmanager
def open_journal(path: Path | None) -> Iterator[JournalWriter]:
    """A writer appending to `path`, holding the records already there in `finished`.

    An interrupted last line is cut off first, so new records start on a line of their own.
    """
    if path is None:
        yield JournalWriter(None, {})
        return
    data = read_bytes(path)
    finished, length = journal_records(data, str(path))
    try:
        if length < len(data):
            with path.open("r+b") as raw:
                raw.truncate(length)
        file = path.open("a", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write the journal: {exc.strerror}", str(path)) from None
    with file:
        if length > 0 and data[length - 1 : length] != b"\n":
            file.write("\n")
        yield JournalWriter(file, finished)


# --- the three ways of running -------------------------------------------------------------------


def annotate(exc: BaseException, key: str) -> None:
    """Add a note naming the task the exception came from (Python 3.11+)."""
    add_note = getattr(exc, "add_note", None)
    if add_note is not None:
        add_note(f"while running task {key!r}")


def run_inline(function: TaskFunction, pending: Iterable[tuple[str, Any]], on_result: OnResult):
    """Call the function on each task in order, in this process."""
    for key, argument in pending:
        try:
            result = function(argument)
        except BaseException as exc:
            annotate(exc, key)
            raise
        on_result(key, result)


#: Exit status of a run ended by SIGTERM once its pool is shut down (128 + the signal).
SIGTERM_EXIT = 128 + signal.SIGTERM


@contextlib.contextmanager
def sigterm_ends_pool() -> Iterator[None]:
    """Inside, SIGTERM raises `SystemExit(SIGTERM_EXIT)` in the main thread instead of ending
    the process at once, so that the pool in use is shut down on the way out: its workers
    ended and its queues' semaphores released (else Python's resource tracker reports them
    leaked). Only where SIGTERM has its default action and in the main thread (the only one
    that may set a handler); the previous handler is put back on leaving."""
    in_main = threading.current_thread() is threading.main_thread()
    if not in_main or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        raise SystemExit(SIGTERM_EXIT)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


#: The pool `kept_pool` keeps open: (jobs, pool), or None.
_KEPT: list[tuple[int, ProcessPoolExecutor]] = []


def _new_pool(jobs: int) -> ProcessPoolExecutor:
    """`jobs` fresh (spawned) local processes that end with this one."""
    return ProcessPoolExecutor(
        max_workers=jobs,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=die_with_parent,
        initargs=(os.getpid(),),
    )


@contextlib.contextmanager
def kept_pool(jobs: int) -> Iterator[None]:
    """Inside, `run_tasks` with `jobs` local workers reuses one pool of `jobs` processes
    instead of starting fresh ones for each call, so that what a worker keeps between tasks
    (caches of shared work) survives from one call to the next. Shut down on leaving."""
    if jobs <= 1 or _KEPT:
        yield
        return
    with sigterm_ends_pool():
        pool = _new_pool(jobs)
        _KEPT.append((jobs, pool))
        try:
            yield
        except BaseException:
            stop_workers(pool, ())
            raise
        finally:
            _KEPT.clear()
            pool.shutdown(wait=True, cancel_futures=True)


def run_pool(
    function: TaskFunction, pending: Sequence[tuple[str, Any]], jobs: int, on_result: OnResult
) -> None:
    """Run the tasks on `jobs` local processes (fresh ones, or those of `kept_pool`),
    collecting results as they end."""
    try:
        pickle.dumps(function)
    except (pickle.PicklingError, AttributeError, TypeError):
        raise TypeError(
            f"{function!r} cannot be sent to worker processes: use a top-level function"
        ) from None
    kept = next((pool for n, pool in _KEPT if n >= jobs), None)
    with (
        sigterm_ends_pool(),
        contextlib.nullcontext(kept) if kept else _new_pool(min(jobs, len(pending))) as pool,
    ):
        futures = {pool.submit(function, argument): key for key, argument in pending}
        workers = list((getattr(pool, "_processes", None) or {}).values())  # to tell how one ended
        try:
            for done, future in enumerate(as_completed(futures)):
                try:
                    result = future.result()
                except BrokenProcessPool:
                    unfinished = len(futures) - done
                    raise TenetError(worker_ended(futures[future], unfinished, workers)) from None
                except BaseException as exc:
                    annotate(exc, futures[future])
                    raise
                on_result(futures[future], result)
        except BaseException:
            stop_workers(pool, futures)
            raise


#: Seconds between two checks of the watchdog that ends a worker whose parent is gone.
PARENT_POLL_S = 0.5


def die_with_parent(parent_pid: int) -> None:
    """Worker initializer: end this process when the parent (`parent_pid`) is gone, even when
    it was killed (SIGKILL, the OOM killer) and could not stop its pool.

    On Linux the kernel sends SIGKILL when the parent dies (prctl PR_SET_PDEATHSIG), which
    also stops a worker busy in isl's C code; a daemon thread that polls the parent's pid
    covers the other systems (and a parent that died before the prctl)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            import ctypes

            pr_set_pdeathsig = 1
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:  # the parent died before the prctl
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(PARENT_POLL_S)
        os._exit(1)

    threading.Thread(target=watch, name="tenet-parent-watchdog", daemon=True).start()


def worker_ended(key: str, unfinished: int, workers: Iterable) -> str:
    """The error when a worker process of the pool ended abruptly: its exit code or the
    signal that ended it when one of `workers` (multiprocessing processes) tells, and the
    tasks lost with it (`key` one of them)."""
    workers = list(workers)
    deadline = time.monotonic() + 2.0  # the pool is ending them all: wait for their codes
    while any(w.exitcode is None for w in workers) and time.monotonic() < deadline:
        time.sleep(0.02)
    codes = [w.exitcode for w in workers if w.exitcode not in (None, 0)]
    # Once one worker has died the pool stops the others with SIGTERM: prefer another code.
    codes.sort(key=lambda code: code == -signal.SIGTERM)
    how = ""
    if codes and codes[0] < 0:
        try:
            name = signal.Signals(-codes[0]).name
        except ValueError:
            name = str(-codes[0])
        how = f" (killed by signal {name})"
    elif codes:
        how = f" (exit code {codes[0]})"
    tasks = f"task {key!r}" if unfinished == 1 else f"{unfinished} tasks, {key!r} among them,"
    return f"a worker process ended abruptly{how}: {tasks} did not finish"


def stop_workers(pool: ProcessPoolExecutor, futures: Iterable) -> None:
    """End the worker processes now: tasks not started never run, running ones are lost."""
    terminate_workers = getattr(pool, "terminate_workers", None)  # Python 3.14+
    if terminate_workers is not None:
        terminate_workers()
        return
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for process in processes:  # the pool then fails the futures left, which nobody reads
        process.terminate()
    if not processes:
        for future in futures:
            future.cancel()


def connection_failure(scheduler: str, exc: BaseException) -> InputError:
    """The one-line error for a scheduler that cannot be reached."""
    text = str(exc).strip()
    if not text or isinstance(exc, TimeoutError) or "timed out" in text.lower():
        # asyncio's timeout and distributed's own race at the same limit: one message for both
        text = f"no answer in {DASK_CONNECT_TIMEOUT_S:g} s"
    reason = text.splitlines()[0]
    return InputError(
        f"cannot connect to a Dask scheduler at {scheduler!r}: {reason}", option="scheduler"
    )


async def handshake(scheduler: str, timeout: float) -> None:
    """Open and close one connection to the scheduler (distributed's handshake included)."""
    from distributed.comm import connect

    comm = await asyncio.wait_for(connect(scheduler, timeout=timeout), timeout)
    await comm.close()


def probe_scheduler(scheduler: str) -> None:
    """Check that a Dask scheduler answers at the address, before building a `Client`.

    A `Client` whose connection fails is left half-built and prints a traceback when the
    interpreter exits, so an unreachable or malformed address is caught here instead.
    """
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise InputError(
            "running on a Dask cluster needs Dask: pip install 'tenet-dataflow[dask]'",
            option="scheduler",
        ) from None
    with ThreadPoolExecutor(max_workers=1) as thread:  # asyncio.run needs a thread of its own
        try:
            thread.submit(asyncio.run, handshake(scheduler, DASK_CONNECT_TIMEOUT_S)).result()
        except (OSError, TimeoutError, asyncio.TimeoutError, ValueError, TypeError) as exc:
            raise connection_failure(scheduler, exc) from None


def connect_dask(scheduler: str):
    """A `distributed.Client` connected to the scheduler at the given address."""
    try:
        from distributed import Client
    except ImportError:
        raise InputError(
            "running on a Dask cluster needs Dask: pip install 'tenet-dataflow[dask]'",
            option="scheduler",
        ) from None
    probe_scheduler(scheduler)
    try:
        return Client(scheduler, timeout=DASK_CONNECT_TIMEOUT_S, set_as_default=False)
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        raise connection_failure(scheduler, exc) from None


def run_dask(
    function: TaskFunction, pending: Sequence[tuple[str, Any]], scheduler: str, on_result: OnResult
) -> None:
    """Run the tasks on the Dask cluster at `scheduler`, collecting results as they end."""
    client = connect_dask(scheduler)
    from distributed import KilledWorker
    from distributed import as_completed as dask_as_completed

    try:
        futures = client.map(function, [argument for _, argument in pending], pure=False)
        keys = {future.key: key for future, (key, _) in zip(futures, pending)}
        try:
            for future in dask_as_completed(futures, loop=client.loop):
                key = keys[future.key]
                try:
                    result = future.result()
                except KilledWorker as exc:
                    raise TenetError(
                        f"Dask workers ended abruptly while running task {key!r}: {exc}"
                    ) from None
                except BaseException as exc:
                    annotate(exc, key)
                    raise
                on_result(key, result)
        except BaseException:
            client.cancel(futures)
            raise
    finally:
        client.close()
