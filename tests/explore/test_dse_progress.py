"""Progress off a terminal (issue 20): a line at least every 10 s with done/total, the rate
and the best so far; `--quiet` silences it."""

from __future__ import annotations

import io
import time

from tenet.report.progress import ProgressLines, progress_bar, progress_lines, quiet_progress

from ..helpers import run_cli


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_line_holds_done_total_rate_and_note():
    """5 of 100 done in 10 s: 5 %, 0.5 per second."""
    clock = FakeClock()
    state = ProgressLines("exploring", clock)
    state.update(5, 100, "best latency 19,023")
    clock.now = 9.9
    assert not state.due(clock.now)
    clock.now = 10.0
    assert state.due(clock.now)
    assert state.line(clock.now) == "exploring: 5/100 (5 %), 0.5/s, best latency 19,023, 10 s"
    assert not state.due(clock.now)  # the next one is owed 10 s later


def test_ticks_write_a_line_every_interval():
    """Ticks every second for 35 s: lines at 10, 20 and 30 s, none in between."""
    clock = FakeClock()
    out = io.StringIO()
    with progress_lines("searching", out, clock=clock, interval=10.0) as tick:
        for second in range(36):
            clock.now = float(second)
            tick(second, 35, note=None)
    lines = out.getvalue().splitlines()
    assert [line.split(", ")[-1] for line in lines] == ["10 s", "20 s", "30 s"]
    assert lines[0].startswith("searching: 10/35 (29 %), 1.0/s")


def test_the_timer_writes_when_ticks_stop():
    """One tick, then nothing: the timer thread still writes a line after the interval."""
    out = io.StringIO()
    with progress_lines("counting", out, interval=0.2) as tick:
        tick(1, 4)
        time.sleep(0.6)
    assert out.getvalue().startswith("counting: 1/4 (25 %)")


def test_quiet_silences_progress(capsys):
    with quiet_progress(True), progress_bar("exploring") as tick:
        tick(1, 2, note="best latency 3")
    assert capsys.readouterr().err == ""


def test_quiet_flag_on_the_command_line(capsys):
    rc, out, err = run_cli(
        [
            "dse",
            "-w",
            "gemm",
            "-a",
            "systolic-4x4",
            "--set",
            "M=2",
            "--set",
            "N=2",
            "--set",
            "K=1",
            "-q",
            "--format",
            "json",
        ],
        capsys,
    )
    assert rc == 0 and err == "" and '"pareto"' in out
