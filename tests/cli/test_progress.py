"""Progress of long runs: `simulate` and the bounds search tick to the end, the CLI passes
a progress bar, which draws on stderr only and not at all on a pipe."""

from __future__ import annotations

import sys

import pytest

from tenet import load_arch, load_dataflow, load_workload
from tenet.formats.presets import resolve_dataflow, resolve_workload

from ..conftest import ARCHS
from ..helpers import SMALL_GEMM_ARGS, run_cli


def test_simulate_reports_progress_to_the_end():
    from tenet.analysis.simulate import simulate

    path = resolve_workload("gemm")
    workload = load_workload(path, {"M": 16, "N": 16, "K": 8})
    ticks = []
    simulate(
        workload,
        load_arch(ARCHS / "systolic-8x8.yaml"),
        load_dataflow(resolve_dataflow("os-systolic-8x8", path)),
        progress=lambda done, total: ticks.append((done, total)),
    )
    assert ticks[0] == (0, 4) and ticks[-1] == (4, 4)  # enumeration, then A, B, C
    assert [d for d, _ in ticks] == sorted(d for d, _ in ticks)


def test_the_bounds_bar_is_full_only_when_the_search_ends():
    from tenet.bounds.snowcat import evaluate, problem_from_einsum

    problem = problem_from_einsum("O[m,n] += A[m,k] * W[k,n]", {"m": 64, "n": 64, "k": 64})
    for bypass, choices in ((False, 1), (True, 8)):
        ticks: list[tuple[int, int]] = []
        result = evaluate(
            problem, bypass, lambda done, total, ticks=ticks: ticks.append((done, total))
        )
        steps = 1 + 3 + choices + 1  # the mapspace, each tensor, each choice, the front
        assert ticks == [(done, steps) for done in range(steps + 1)]
        assert len(result.front)


@pytest.mark.parametrize(
    "args",
    [["simulate", *SMALL_GEMM_ARGS], ["bounds", "-w", "gemm-4k", "--bypass"]],
    ids=lambda args: args[0],
)
def test_cli_passes_a_progress_bar(args, monkeypatch, capsys):
    import contextlib

    from tenet.report import progress

    ticks = []

    @contextlib.contextmanager
    def recording(description):
        yield lambda done, total: ticks.append((done, total))

    monkeypatch.setattr(progress, "progress_bar", recording)
    rc, _, err = run_cli(args, capsys)
    assert rc == 0 and err == ""
    assert ticks and ticks[-1][0] == ticks[-1][1]


def test_the_progress_bar_draws_on_stderr_only(monkeypatch, capsys):
    from tenet.report.progress import progress_bar

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    with progress_bar("counting") as tick:
        for done in range(4):
            tick(done, 3)
    out, err = capsys.readouterr()
    assert out == "" and "counting" in err  # stdout stays clean for the report


def test_no_progress_bar_on_a_pipe(capsys):
    rc, out, err = run_cli(["simulate", *SMALL_GEMM_ARGS], capsys)  # stderr is no terminal
    assert rc == 0 and out and err == ""
