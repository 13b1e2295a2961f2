"""Where results are written: `--plot` paths (extension, directory, the `-o` file, an input
file) are checked before any work, and `-o` never overwrites an input (YAML, TENET text
files, a chain, a network, a preset given by name)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tenet.formats.presets import preset_roots

from ..conftest import ARCHS, ROOT, WORKLOADS
from ..helpers import run_cli

GEMM = ["-w", "gemm", "-a", "systolic-8x8", "-d", "os-systolic-8x8"]
SMALL = ["--set", "M=16", "--set", "N=16", "--set", "K=16"]


# --- --plot paths ----------------------------------------------------------------------------


PLOT_COMMANDS = {
    "compare": ["compare", "-w", "gemm", "-d", "os-systolic-8x8", "-a", "systolic-8x8", *SMALL],
    "trace": ["trace", *GEMM, "--set", "M=8", "--set", "N=8", "--set", "K=8", "--tensor", "A"],
    "bounds": ["bounds", "-w", "gemm"],
    "fuse": ["fuse", "-w", "gpt3-ffn"],
}


@pytest.mark.parametrize("command", PLOT_COMMANDS)
def test_plot_with_an_unknown_extension_is_refused_before_any_work(command, capsys, tmp_path):
    rc, out, err = run_cli([*PLOT_COMMANDS[command], "--plot", tmp_path / "out.txt"], capsys)
    assert rc == 2 and out == ""
    assert err == (
        "tenet: error: --plot: cannot draw a .txt file (use one of: .png, .pdf, .svg, .svgz, "
        ".eps, .ps, .jpg, .jpeg, .tif, .tiff, .webp)\n"
    )
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("command", PLOT_COMMANDS)
def test_plot_on_a_directory_or_on_the_output_file_is_refused(command, capsys, tmp_path):
    rc, _, err = run_cli([*PLOT_COMMANDS[command], "--plot", tmp_path], capsys)
    assert rc == 2 and "--plot: is a directory" in err and err.count("\n") == 1
    same = tmp_path / "r.png"
    rc, _, err = run_cli([*PLOT_COMMANDS[command], "-o", same, "--plot", same], capsys)
    assert rc == 2 and "--plot: is the -o file too" in err and err.count("\n") == 1
    bare = tmp_path / "r"
    rc, _, err = run_cli([*PLOT_COMMANDS[command], "-o", bare, "--plot", bare], capsys)
    assert rc == 2 and "--plot: is the -o file too" in err
    assert not list(tmp_path.iterdir())


def test_plot_without_extension_gets_png_and_says_so(capsys, tmp_path, monkeypatch):
    from tenet.report import plots

    drawn = []
    monkeypatch.setattr(plots, "activity_plot", lambda result, path, title: drawn.append(path))
    rc, _, err = run_cli([*PLOT_COMMANDS["trace"], "--plot", tmp_path / "activity"], capsys)
    assert rc == 0
    assert err == (
        f"tenet: note: --plot {tmp_path / 'activity'} has no extension; writing "
        f"{tmp_path / 'activity.png'}\n"
    )
    assert drawn == [str(tmp_path / "activity.png")]


def test_plot_over_an_input_file_is_refused(capsys, tmp_path):
    arch = tmp_path / "arch.png"
    arch.write_text((ROOT / "archs" / "systolic-8x8.yaml").read_text())
    args = [*PLOT_COMMANDS["trace"][:3], "-a", arch, *PLOT_COMMANDS["trace"][5:]]
    rc, _, err = run_cli([*args, "--plot", arch], capsys)
    assert rc == 2 and "would overwrite the input file" in err


# --- -o never overwrites an input -------------------------------------------------------------


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
