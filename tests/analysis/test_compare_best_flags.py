"""`compare --best` takes the search flags of `dse` (`--limit`, `--seed`, `--no-skew`,
`--interleave`): the same flags give the same best dataflow as `dse --objectives OBJECTIVE`
on the same arch, and the best value equals `analyze` of the emitted dataflow."""

from __future__ import annotations

import json

import pytest

from tenet import analyze, load_arch, load_dataflow, load_workload

from ..conftest import ARCHS, WORKLOADS
from ..helpers import run_cli

GEMM = ["-w", "gemm", "--set", "M=8", "--set", "N=8", "--set", "K=12"]
SIZES = {"M": 8, "N": 8, "K": 12}


def dse_best(capsys, objective: str, flags: list[str]) -> dict:
    """The first front member of `dse --objectives OBJECTIVE` with the same flags."""
    rc, out, err = run_cli(
        ["dse", *GEMM, "-a", "systolic-4x4", "--objectives", objective, *flags,
         "--format", "json", "-q"], capsys)  # fmt: skip
    assert rc == 0, err
    return json.loads(out)["pareto"][0]


def compare_best(capsys, objective: str, flags: list[str], *more: str) -> dict:
    rc, out, err = run_cli(
        ["compare", *GEMM, "-a", "systolic-4x4", "--best", objective, *flags, *more,
         "--format", "json", "-q"], capsys)  # fmt: skip
    assert rc == 0, err
    (result,) = json.loads(out)["results"]
    return result


@pytest.mark.parametrize(
    "objective, flags",
    [
        ("latency", ["--limit", "5", "--seed", "3"]),
        ("energy", ["--limit", "4", "--seed", "1", "--no-skew"]),
        ("latency", ["--limit", "6", "--seed", "2", "--interleave"]),
    ],
)
def test_compare_best_is_the_dse_best_with_the_same_flags(capsys, tmp_path, objective, flags):
    expected = dse_best(capsys, objective, flags)
    got = compare_best(capsys, objective, flags, "--emit", str(tmp_path))
    assert (got["space"], got["time"]) == (expected["space"], expected["time"])
    assert got["best"]["value"] == expected["objectives"][objective]
    # the sample's size is the limit: every candidate drawn is counted or pruned
    assert got["best"]["evaluated"] + got["best"]["pruned"] == int(flags[1])
    # independent of the search: analyze the dataflow it wrote
    (path,) = tmp_path.glob("*.yaml")
    workload = load_workload(WORKLOADS / "gemm" / "workload.yaml", SIZES)
    analysis = analyze(workload, load_arch(ARCHS / "systolic-4x4.yaml"), load_dataflow(path))
    value = analysis.latency if objective == "latency" else analysis.energy
    assert got["best"]["value"] == value


def test_search_flags_without_best_are_refused(capsys):
    rc, _, err = run_cli(
        ["compare", *GEMM, "-a", "systolic-4x4", "-d", "os-systolic-8x8", "--limit", "3"], capsys
    )
    assert rc == 2
    assert err.count("\n") == 1 and "--limit" in err and "--best" in err


def test_a_limit_below_one_names_the_flag(capsys):
    rc, _, err = run_cli(["compare", *GEMM, "-a", "systolic-4x4", "--best", "latency",
                          "--limit", "0"], capsys)  # fmt: skip
    assert rc == 2
    assert err.count("\n") == 1 and "--limit" in err
