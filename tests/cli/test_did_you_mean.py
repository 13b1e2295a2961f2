"""Close-name suggestions: a mistyped key, topology, parameter or preset name gets a
"did you mean", a name far from every preset lists them, and a directory given as an input
file is named as such."""

from __future__ import annotations

import pytest

from ..helpers import run_cli

GEMM = ["-w", "gemm", "-a", "systolic-8x8", "-d", "os-systolic-8x8"]


def test_did_you_mean_for_keys_topologies_parameters_and_directories(capsys, tmp_path, monkeypatch):
    path = tmp_path / "w.yaml"
    path.write_text('name: g\nparams: {M: 4}\neinsum: "C[i] += A[i]"\nbound: {i: M}\n')
    rc, _, err = run_cli(["analyze", "-w", path, "-a", "systolic-8x8", "-d", "x.yaml"], capsys)
    assert rc == 2 and f"{path}: bound: unknown key (did you mean bounds? expected one of:" in err
    args = ["compare", "-w", "gemm", "-d", "os-multicast-8x8", "-a", "systolic-8x8"]
    rc, _, err = run_cli([*args, "--topologies", "meshh"], capsys)
    assert rc == 2 and "unknown topology 'meshh' (did you mean mesh? known:" in err
    rc, _, err = run_cli(["analyze", *GEMM, "--set", "MM=3"], capsys)
    assert rc == 2 and "unknown parameter 'MM' (did you mean M? the workload has: M, N, K)" in err
    monkeypatch.chdir(tmp_path)
    (tmp_path / "adir").mkdir()
    for flag, kind in (("-w", "workload"), ("-a", "arch")):
        args = {**dict(zip(GEMM[::2], GEMM[1::2])), flag: "adir"}
        rc, _, err = run_cli(["analyze", *[x for kv in args.items() for x in kv]], capsys)
        assert rc == 2 and err.startswith(f"tenet: error: adir: {kind} file is a directory")
        assert "not found" not in err


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
