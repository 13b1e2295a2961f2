"""Tables on a terminal fit its width: columns are split into parts that repeat the tensor
and side, no number is cut, `--wide` gives the whole tables, and pipes and files always get
the whole tables."""

from __future__ import annotations

import re
import sys

import pytest

from tenet import analyze, load_arch, load_dataflow, load_workload
from tenet.formats.presets import resolve_dataflow, resolve_workload

from ..conftest import ARCHS
from ..helpers import GEMM_OS_ARGS, SMALL_GEMM_ARGS, run_cli

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def gemm_result(bound: bool = True) -> dict:
    """A real analysis: GEMM M=1024 on the 8x8 systolic array, with --bound's table."""
    from tenet.bounds.snowcat import bound_at_capacity

    path = resolve_workload("gemm")
    workload = load_workload(path, {"M": 1024})
    arch = load_arch(ARCHS / "systolic-8x8.yaml")
    analysis = analyze(workload, arch, load_dataflow(resolve_dataflow("os-systolic-8x8", path)))
    result = analysis.to_dict()
    if bound:
        result["bound"] = bound_at_capacity(workload, arch, analysis)
    return result


def tokens(text: str) -> list[str]:
    """The words of a rendering that hold a digit (numbers, names like systolic-8x8)."""
    return [w for w in ANSI.sub("", text).split() if any(c.isdigit() for c in w)]


def assert_fits(narrow: str, full: str, width: int) -> None:
    """No line of `narrow` is longer than `width`, and every word of `full` that holds a
    digit appears whole in `narrow` (nothing split, cut or dropped)."""
    lines = ANSI.sub("", narrow).splitlines()
    assert lines
    too_long = [line for line in lines if len(line) > width]
    assert not too_long, "\n".join(too_long)
    shown = set(tokens(narrow))
    missing = [w for w in tokens(full) if w not in shown]
    assert not missing, f"split or missing at width {width}: {missing}"


def on_terminal(monkeypatch, columns: int) -> None:
    """Make the CLI believe stdout is a terminal `columns` wide."""
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setenv("COLUMNS", str(columns))


def test_the_analysis_is_wider_than_80_columns_when_whole():
    from tenet.report.tables import render

    full = render([gemm_result()], "table")
    assert max(map(len, full.splitlines())) > 100  # a terminal of 80-100 columns would wrap it


@pytest.mark.parametrize("width", [80, 100])
def test_analysis_tables_fit_the_width_and_keep_every_number(width):
    from tenet.report.tables import fit_width, render

    result = gemm_result()
    full = render([result], "table")
    with fit_width(width):
        narrow = render([result], "table")
    assert_fits(narrow, full, width)
    assert "per tensor (words) (continued)" in narrow  # columns split, not dropped
    for value in ("67,108,864", "1,377,771,192.32", "66,846,720", "256.00", "25.00%"):
        assert value in narrow


@pytest.mark.parametrize("width", [80, 100])
def test_the_split_parts_repeat_tensor_and_side(width):
    from tenet.report.tables import fit_width, render

    with fit_width(width):
        narrow = ANSI.sub("", render([gemm_result(bound=False)], "table"))
    headers = [line.split() for line in narrow.splitlines() if line.strip().startswith("tensor")]
    assert len(headers) >= 2
    assert all(h[:2] == ["tensor", "side"] for h in headers)
    rows = [line.split()[:2] for line in narrow.splitlines() if line.strip().startswith("A ")]
    assert rows and all(row == ["A", "read"] for row in rows)


def test_no_number_is_split_even_at_40_columns():
    from tenet.report.tables import fit_width, render

    result = gemm_result()
    full = render([result], "table")
    with fit_width(40):
        narrow = render([result], "table")
    assert_fits(narrow, full, 40)


@pytest.mark.parametrize(
    "args",
    [
        ["analyze", *GEMM_OS_ARGS, "--set", "M=1024", "--bound"],
        ["compare", "-w", "gemm", "-d", "os-multicast-8x8", "-a", "systolic-8x8", "-a"]
        + ["multicast-8x8", "-a", "mtia-8x8"],
        ["bounds", "-w", "gemm-4k", "--at", "64KiB", "--at", "1MiB"],
        pytest.param(
            ["fuse", "-w", "gpt3-ffn", "--at", "10MiB", "--at", "257MiB"],
            marks=pytest.mark.slow,
            id="fuse",
        ),
        ["trace", *SMALL_GEMM_ARGS, "--tensor", "A"],
    ],
    ids=lambda args: args[0],
)
def test_commands_fit_an_80_column_terminal(args, monkeypatch, capsys):
    rc, full, err = run_cli(args, capsys)  # not a terminal: the whole tables
    assert rc == 0, err
    on_terminal(monkeypatch, 80)
    rc, narrow, err = run_cli(args, capsys)
    assert rc == 0, err
    assert_fits(narrow, full, 80)
    rc, wide, err = run_cli([*args, "--wide"], capsys)
    assert rc == 0, err
    assert ANSI.sub("", wide) == full  # --wide: the whole tables on a terminal too


def test_pipes_and_files_get_the_whole_table(monkeypatch, capsys, tmp_path):
    args = ["analyze", *GEMM_OS_ARGS, "--set", "M=1024"]
    monkeypatch.setenv("COLUMNS", "80")
    rc, piped, _ = run_cli(args, capsys)  # stdout is not a terminal here
    assert rc == 0
    header = "tensor   side         total      unique        reuse     temporal      spatial"
    assert header in piped
    on_terminal(monkeypatch, 80)
    rc, _, _ = run_cli([*args, "-o", tmp_path / "out.txt"], capsys)
    assert rc == 0
    assert (tmp_path / "out.txt").read_text() == piped


def test_every_command_with_format_has_wide():
    from tenet.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, command in sub.choices.items():
        options = {o for action in command._actions for o in action.option_strings}
        assert ("--wide" in options) == ("--format" in options), name
