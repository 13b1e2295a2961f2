"""How a search stops early and keeps what it found (docs/dse.md): a time limit or, on
request, SIGINT stops it at once while a batch runs, or at the next batch otherwise."""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from tenet.errors import InputError

#: Why a search stopped before settling every candidate (`DseResult.stopped_by`), and how
#: the table says it.
TIME_LIMIT = "time_limit"
INTERRUPT = "interrupt"
STOP_REASONS = {TIME_LIMIT: "time limit", INTERRUPT: "interrupted"}


def check_time_limit(time_limit_s: float | None) -> None:
    """A time limit is a positive number of seconds (or None: no limit)."""
    if time_limit_s is None:
        return
    if isinstance(time_limit_s, bool) or not time_limit_s > 0 or time_limit_s == float("inf"):
        raise InputError(f"must be a positive number of seconds, got {time_limit_s}", "time_limit")


class SearchStopped(Exception):
    """Raised inside a running batch when the search must stop (its `reason`)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Stopper:
    """When a search stops early: at `deadline` (`time.monotonic()`; None: never) or, with
    `interrupt`, on SIGINT. `reason` is the first of the two that came; only while `armed`
    (a batch is running) does it raise `SearchStopped`, elsewhere the search stops at the
    next batch. `active`: some stop can come."""

    deadline: float | None
    interrupt: bool
    reason: str | None = None
    armed: bool = False

    @property
    def active(self) -> bool:
        return self.deadline is not None or self.interrupt

    def stop(self, reason: str) -> None:
        """A stop came (from a signal handler or `check`)."""
        if self.reason is None:
            self.reason = reason
        if self.armed:
            raise SearchStopped(self.reason)

    def check(self) -> None:
        """Stop if the deadline has passed (for runs where no timer signal is set)."""
        if self.deadline is not None and time.monotonic() >= self.deadline:
            self.stop(TIME_LIMIT)

    @contextlib.contextmanager
    def running(self) -> Iterator[None]:
        """Inside, a stop raises `SearchStopped` at once."""
        self.armed = True
        try:
            if self.reason is not None:
                raise SearchStopped(self.reason)
            yield
        finally:
            self.armed = False


@contextlib.contextmanager
def stopping(time_limit_s: float | None, interrupt: bool) -> Iterator[Stopper]:
    """A `Stopper` for a search starting now. In the main thread, a timer signal (SIGALRM)
    stops it at the time limit and, with `interrupt`, SIGINT stops it instead of raising
    `KeyboardInterrupt`; both handlers are put back on leaving. Elsewhere the deadline is
    checked as the tasks end, and `KeyboardInterrupt` is caught around the batches."""
    deadline = None if time_limit_s is None else time.monotonic() + time_limit_s
    stopper = Stopper(deadline, interrupt)
    previous: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        alarm = getattr(signal, "SIGALRM", None)
        timer = alarm is not None and hasattr(signal, "setitimer")
        if deadline is not None and timer and signal.getsignal(alarm) in (signal.SIG_DFL, None):
            previous[alarm] = signal.signal(alarm, lambda *_: stopper.stop(TIME_LIMIT))
            signal.setitimer(signal.ITIMER_REAL, time_limit_s)
        if interrupt and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            previous[signal.SIGINT] = signal.signal(
                signal.SIGINT, lambda *_: stopper.stop(INTERRUPT)
            )
    try:
        yield stopper
    finally:
        if getattr(signal, "SIGALRM", None) in previous:
            signal.setitimer(signal.ITIMER_REAL, 0)
        for number, handler in previous.items():
            signal.signal(number, handler)
