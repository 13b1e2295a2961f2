"""Progress of long computations: a bar on an interactive terminal; elsewhere (a pipe, a file,
a batch job) a first line to stderr once a run has taken `FIRST_LINE_S` seconds, then one at
least every `LINE_INTERVAL_S` seconds, with done/total, the rate and a note (the best value so
far); nothing for a run shorter than `FIRST_LINE_S`, and nothing at all under `--quiet`."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import IO

#: Seconds between two progress lines when stderr is not a terminal.
LINE_INTERVAL_S = 10.0

#: Seconds before the first progress line of a command when stderr is not a terminal: a run
#: of a few seconds says what it is doing, a run shorter than this says nothing.
FIRST_LINE_S = 5.0

_QUIET = [False]


@contextlib.contextmanager
def quiet_progress(quiet: bool) -> Iterator[None]:
    """Within the block, `progress_bar` shows nothing when `quiet` (the `--quiet` flag)."""
    before = _QUIET[0]
    _QUIET[0] = bool(quiet)
    try:
        yield
    finally:
        _QUIET[0] = before


class ProgressLines:
    """The state behind the progress lines: `update` records it, `line(now)` formats it, and
    `due(now)` says whether a line is owed: the first `first` seconds after the start
    (default `interval`), each next one `interval` seconds after the last."""

    def __init__(
        self,
        description: str,
        clock: Callable[[], float],
        interval: float = LINE_INTERVAL_S,
        first: float | None = None,
    ) -> None:
        self.description = description
        self.clock = clock
        self.interval = interval
        self.first = interval if first is None else first
        self.start = clock()
        self.last_line: float | None = None
        self.done = 0
        self.total: int | None = None
        self.note: str | None = None
        self.lock = threading.Lock()

    def update(self, done: int, total: int | None, note: str | None = None) -> None:
        with self.lock:
            self.done, self.total = done, total
            if note is not None:
                self.note = note

    def due(self, now: float) -> bool:
        if self.last_line is None:
            return now - self.start >= self.first
        return now - self.last_line >= self.interval

    def line(self, now: float) -> str:
        """`description: done/total (p %), r/s, note, elapsed s`."""
        with self.lock:
            done, total, note = self.done, self.total, self.note
        elapsed = max(now - self.start, 1e-9)
        parts = [f"{done:,}/{total:,}" if total else f"{done:,}"]
        if total:
            parts[0] += f" ({100 * done / total:.0f} %)"
        parts.append(f"{done / elapsed:.1f}/s")
        if note:
            parts.append(note)
        parts.append(f"{elapsed:.0f} s")
        self.last_line = now
        return f"{self.description}: " + ", ".join(parts)


@contextlib.contextmanager
def progress_lines(
    description: str,
    stream: IO[str],
    clock: Callable[[], float] = time.monotonic,
    interval: float = LINE_INTERVAL_S,
    first: float | None = None,
) -> Iterator[Callable[..., None]]:
    """Yield `tick(done, total, note=None)`; a line goes to `stream` whenever a tick comes
    `interval` seconds after the last line (`first` seconds after the start for the first
    one; default `interval`), and from a timer thread when ticks are rarer."""
    state = ProgressLines(description, clock, interval, first)
    stop = threading.Event()

    def write(now: float) -> None:
        stream.write(state.line(now) + "\n")
        stream.flush()

    def heartbeat() -> None:
        while not stop.wait(max(min(interval, state.first) / 4, 0.01)):
            now = clock()
            if state.due(now):
                write(now)

    def tick(done: int, total: int | None, note: str | None = None) -> None:
        state.update(done, total, note)
        now = clock()
        if state.due(now):
            write(now)

    timer = threading.Thread(target=heartbeat, daemon=True)
    timer.start()
    try:
        yield tick
    finally:
        stop.set()
        timer.join()


@contextlib.contextmanager
def progress_bar(description: str) -> Iterator[Callable[..., None]]:
    """Yield `tick(done, total, note=None)`: a bar on stderr when it is a terminal, else a
    line after `FIRST_LINE_S` seconds and then at least every `LINE_INTERVAL_S` seconds;
    silent under `quiet_progress(True)`."""
    if _QUIET[0]:
        yield lambda done, total, note=None: None
        return
    if not sys.stderr.isatty():
        with progress_lines(description, sys.stderr, first=FIRST_LINE_S) as tick:
            yield tick
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(transient=True, console=Console(stderr=True)) as progress:
        task = progress.add_task(description, total=None)

        def tick(done: int, total: int | None, note: str | None = None) -> None:
            label = description if note is None else f"{description} ({note})"
            progress.update(task, completed=done, total=total, description=label)

        yield tick
