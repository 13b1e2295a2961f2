"""What a new user met (issue 12): tables wider than the terminal, a misaligned trace plot,
long runs without progress, an isl limit that took minutes to fire, `-o` over an input,
an empty best-segmentation table, mistyped preset names, a worker crash blamed on memory,
and `--help` without an example."""

from __future__ import annotations

import os
import re
import shutil
import signal
import sys
from pathlib import Path

import pytest

from tenet import analyze, load_arch, load_dataflow, load_workload
from tenet.cli import COMMANDS, command_module, main
from tenet.errors import TenetError
from tenet.execution import run_tasks
from tenet.formats.presets import preset_roots, resolve_dataflow, resolve_workload

from ..conftest import ARCHS, WORKLOADS
from ..helpers import GEMM_OS_ARGS, SMALL_GEMM_ARGS, run_cli

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
BOX = set("━─│┃ ")


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


# --- 1. tables fit the terminal ----------------------------------------------------------------


def test_the_analysis_is_wider_than_80_columns_when_whole():
    from tenet.report.tables import render

    full = render([gemm_result()], "table")
    assert max(map(len, full.splitlines())) > 100  # the problem: wrapped on 80-100 columns


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
        ["fuse", "-w", "gpt3-ffn", "--at", "10MiB", "--at", "257MiB"],
        ["trace", *SMALL_GEMM_ARGS, "--tensor", "A"],
    ],
    ids=lambda args: args[0],
)
def test_commands_fit_an_80_column_terminal(args, monkeypatch, capsys):
    rc, full, err = run_cli(args, capsys)  # not a terminal: whole tables, as before
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


# --- 2. trace --plot: one time axis --------------------------------------------------------------


def test_trace_plot_panels_share_the_time_axis(monkeypatch, tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.colorbar import Colorbar

    from tenet.report import plots

    figures = []

    def keep(fig, path, plt):
        figures.append(fig)
        return str(path)

    monkeypatch.setattr(plots, "save_figure", keep)
    args = ["trace", *GEMM_OS_ARGS, "--set", "M=8", "--set", "N=8", "--set", "K=8"]
    assert main([*args, "--tensor", "A", "--plot", str(tmp_path / "t.png")]) == 0
    (fig,) = figures
    fig.canvas.draw()
    heatmap, colorbar_ax, utilization, _spare = fig.axes[:4]
    image = heatmap.images[0]
    steps = image.get_array().shape[1]
    assert heatmap.get_xlim() == utilization.get_xlim() == (-0.5, steps - 0.5)
    top, bottom = heatmap.get_position(), utilization.get_position()
    assert top.x0 == pytest.approx(bottom.x0, abs=1e-6)
    assert top.x1 == pytest.approx(bottom.x1, abs=1e-6)  # the colorbar takes no width from one
    assert colorbar_ax.get_position().x0 >= top.x1
    ticks = [t for t in colorbar_ax.get_yticks() if image.get_clim()[0] <= t <= image.get_clim()[1]]
    assert ticks and all(float(t).is_integer() for t in ticks)
    assert all(float(t).is_integer() for t in utilization.get_xticks())
    assert isinstance(image.colorbar, Colorbar)


# --- 3. progress on a terminal -------------------------------------------------------------------


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


# --- 4. the isl operations limit ---------------------------------------------------------------


def test_the_limit_hint_names_set_and_max_isl_ops(capsys):
    rc, out, err = run_cli(["analyze", *GEMM_OS_ARGS, "--max-isl-ops", "1000"], capsys)
    assert rc == 2 and out == ""
    assert "1,000 operations" in err
    assert "--set NAME=VALUE" in err and "--max-isl-ops" in err
    assert err.count("\n") == 1


def test_the_default_limit_is_a_bounded_time():
    from tenet.util.limits import DEFAULT_MAX_OPERATIONS

    # About 30 s of a heavy symbolic count here (~2.7 million isl operations per second).
    assert 50_000_000 <= DEFAULT_MAX_OPERATIONS <= 100_000_000


# --- 5. -o never overwrites an input -------------------------------------------------------------


@pytest.fixture
def copies(tmp_path):
    """Copies of the GEMM preset inputs, so that a failing check overwrites nothing real."""
    files = {
        "w": tmp_path / "workload.yaml",
        "a": tmp_path / "arch.yaml",
        "d": tmp_path / "flow.yaml",
    }
    shutil.copy(WORKLOADS / "gemm" / "workload.yaml", files["w"])
    shutil.copy(ARCHS / "systolic-8x8.yaml", files["a"])
    shutil.copy(WORKLOADS / "gemm" / "dataflows" / "os-systolic-8x8.yaml", files["d"])
    return files


@pytest.mark.parametrize("flag", ["w", "a", "d"])
@pytest.mark.parametrize("command", ["analyze", "simulate", "validate"])
def test_output_over_an_input_is_refused(copies, flag, command, capsys):
    before = copies[flag].read_text()
    args = [command, "-w", copies["w"], "-a", copies["a"], "-d", copies["d"]]
    args += ["--set", "M=16", "--set", "N=16", "--set", "K=8", "-o", copies[flag]]
    rc, out, err = run_cli(args, capsys)
    assert rc == 2 and out == ""
    assert err.startswith("tenet: error: -o: ") and err.count("\n") == 1
    assert f"-{flag}" in err and str(copies[flag]) in err
    assert copies[flag].read_text() == before


def test_output_over_a_tenet_file_is_refused(tmp_path, capsys):
    files = [tmp_path / "gemm.s", tmp_path / "pe.p", tmp_path / "map.m"]
    files[0].write_text(
        "2 1\n{S[i,j,k]: 0<=i<4 and 0<=j<4 and 0<=k<4}\n"
        "{S[i,j,k]->A[i,k]}\n{S[i,j,k]->B[k,j]}\n{S[i,j,k]->C[i,j]}\n"
    )
    files[1].write_text("{PE[i,j]:0<=i<4 and 0<=j<4}\n{PE[i,j]->PE[i-1,j]}\n256 1024 64 16\n")
    files[2].write_text("{S[i,j,k]->PE[i,j]}\n{S[i,j,k]->T[i+j+k]}\n")
    before = files[1].read_text()
    rc, out, err = run_cli(["analyze", "--tenet", *files, "-o", files[1]], capsys)
    assert rc == 2 and out == "" and "-o: " in err and "--tenet" in err
    assert files[1].read_text() == before


def test_output_over_a_chain_workload_is_refused(tmp_path, capsys):
    chain = tmp_path / "chain.yaml"
    shutil.copy(WORKLOADS / "gpt3-ffn" / "workload.yaml", chain)
    before = chain.read_text()
    rc, out, err = run_cli(["fuse", "-w", chain, "-o", chain], capsys)
    assert rc == 2 and out == "" and err.startswith("tenet: error: -o: ")
    assert chain.read_text() == before


def test_output_over_a_network_file_is_refused(tmp_path, capsys):
    network = tmp_path / "net.yaml"
    shutil.copy(Path(preset_roots("networks")[0]) / "alexnet.yaml", network)
    text = network.read_text()
    rc, out, err = run_cli(["analyze", "-n", network, "-a", "systolic-8x8", "-o", network], capsys)
    assert rc == 2 and out == "" and "-o: " in err and "-n" in err
    assert network.read_text() == text


def test_a_preset_given_by_name_is_an_input_too(monkeypatch):
    import argparse

    from tenet.cli.common import input_files

    args = argparse.Namespace(workload="gemm", arch="systolic-8x8", dataflow="os-systolic-8x8")
    files = dict(input_files(args))
    assert files["-a"].samefile(ARCHS / "systolic-8x8.yaml")
    assert files["-w"].samefile(WORKLOADS / "gemm" / "workload.yaml")
    assert files["-d"].samefile(WORKLOADS / "gemm" / "dataflows" / "os-systolic-8x8.yaml")


def test_a_new_output_file_is_written(copies, tmp_path, capsys):
    out_file = tmp_path / "result.json"
    args = ["analyze", "-w", copies["w"], "-a", copies["a"], "-d", copies["d"]]
    rc, _, err = run_cli([*args, "--format", "json", "-o", out_file], capsys)
    assert rc == 0, err
    assert out_file.read_text().startswith("{")


# --- 6. fuse --no-segmentation -------------------------------------------------------------------


def test_no_segmentation_prints_no_best_segmentation(capsys):
    rc, out, err = run_cli(["fuse", "-w", "gpt3-ffn", "--no-segmentation"], capsys)
    assert rc == 0, err
    assert "best segmentation" not in out and "best gain" not in out
    assert "tiled fusion, ffmt (ski slope)" in out
    assert "none (not searched)" in out
    rc, out, err = run_cli(["fuse", "-w", "gpt3-ffn"], capsys)
    assert rc == 0, err
    assert "best segmentation (ski slope)" in out and "segments" in out


@pytest.mark.parametrize(
    "chain", [pytest.param("gpt3-attention", marks=pytest.mark.slow), "gpt3-ffn"]
)
def test_every_legend_entry_of_the_fusion_plot_has_a_line(chain, monkeypatch, tmp_path):
    from tenet.report import plots

    figures = []
    monkeypatch.setattr(plots, "save_figure", lambda fig, path, plt: figures.append(fig))
    args = ["fuse", "-w", chain, "--no-segmentation", "--plot", str(tmp_path / "f.png")]
    assert main(args) == 0
    (fig,) = figures
    (ax,) = fig.axes
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert "best segmentation" not in labels
    lines = {line.get_label(): line for line in ax.get_lines()}
    for label in labels:
        line = lines[label]
        xs = line.get_xdata()
        # Something to see: a segment (two points or more) or a marker.
        assert len(set(map(float, xs))) > 1 or line.get_marker() not in (None, "None", "")


# --- 7. mistyped preset names ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, name, close, folder",
    [
        (
            ["-w", "gemm", "-a", "systolic-8x9", "-d", "os-systolic-8x8"],
            "systolic-8x9",
            "systolic-8x8",
            "archs",
        ),
        (["-w", "gem", "-a", "systolic-8x8", "-d", "os-systolic-8x8"], "gem", "gemm", "workloads"),
        (
            ["-w", "gemm", "-a", "systolic-8x8", "-d", "os-systolic"],
            "os-systolic",
            "os-systolic-8x8",
            "dataflows",
        ),
        (["-n", "alexnett", "-a", "systolic-8x8"], "alexnett", "alexnet", "networks"),
    ],
)
def test_a_mistyped_preset_suggests_close_names(args, name, close, folder, capsys):
    rc, out, err = run_cli(["analyze", *args], capsys)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"tenet: error: {name}: ")
    assert "did you mean" in err and close in err
    assert f"/{folder}" in err  # where it looked


@pytest.mark.parametrize(
    "args",
    [
        ["bounds", "-w", "gemm-4kk"],
        ["fuse", "-w", "gpt3-fn"],
        ["compare", "-w", "gemm", "-d", "os-multicast-8x8", "-a", "systolic-8x8", "-a", "mtia-8x9"],
        ["dse", "-w", "gemm", "-a", "systolic-4x5"],
    ],
    ids=lambda args: args[0],
)
def test_every_command_suggests_close_names(args, capsys):
    rc, out, err = run_cli(args, capsys)
    assert rc == 2 and out == "" and err.count("\n") == 1
    assert "did you mean" in err


def test_a_name_far_from_every_preset_lists_them(capsys):
    rc, _, err = run_cli(["analyze", "-n", "lenet-zzz", "-a", "systolic-8x8", "-d", "x"], capsys)
    assert rc == 2 and "alexnet" in err and "lenet-zzz" in err


# --- 8. a worker process that dies ----------------------------------------------------------------


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


# --- 9. --help ----------------------------------------------------------------------------------


@pytest.mark.parametrize("command", list(COMMANDS))
def test_help_ends_with_an_example(command, capsys):
    with pytest.raises(SystemExit) as info:
        main([command, "--help"])
    assert info.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    example = command_module(command).EXAMPLE
    assert example.startswith(f"example: tenet {command}")
    assert out.endswith(" ".join(example.split()))


def test_presets_help_has_a_description(capsys):
    with pytest.raises(SystemExit):
        main(["presets", "--help"])
    out = capsys.readouterr().out
    assert "List the preset archs, workloads" in out


def test_tenet_alone_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("usage: tenet") and "COMMAND" in err
