"""Cost first: `dse` without `--objectives` searches `latency,energy_pj` when the arch prices
its components (its `technology:` node, or `--technology`), else `latency,energy`. The front
is checked against `analyze` of every candidate, computed here."""

from __future__ import annotations

import argparse
import json

import pytest

from tenet import analyze, load_arch, load_workload
from tenet.cli.common import with_cost_flags
from tenet.explore.dse import enumerate_dataflows, explore
from tenet.explore.objectives import default_objectives

from ..conftest import ARCHS, WORKLOADS
from ..helpers import run_cli, write_yaml

GEMM = WORKLOADS / "gemm" / "workload.yaml"
SYSTOLIC_4X4 = ARCHS / "systolic-4x4.yaml"
SMALL = {"M": 4, "N": 4, "K": 8}
ARGS = ["-w", "gemm", "--set", "M=4", "--set", "N=4", "--set", "K=8", "--no-skew"]


def priced_arch():
    """systolic-4x4 with the built-in 45 nm components (what `--technology 45` gives)."""
    return with_cost_flags(load_arch(SYSTOLIC_4X4), argparse.Namespace(technology=45))


def hand_front(workload, arch) -> set[tuple]:
    """The undominated (latency, energy_pj) pairs over every distinct candidate, each
    analyzed with `analyze` here (no search involved)."""
    points = set()
    for dataflow in enumerate_dataflows(workload, arch, skew=False, limit=None, seed=None):
        analysis = analyze(workload, arch, dataflow)
        points.add((analysis.latency, float(analysis.cost.energy_pj.total)))

    def dominated(p):
        return any(q != p and q[0] <= p[0] and q[1] <= p[1] for q in points)

    return {p for p in points if not dominated(p)}


def test_default_objectives_follow_the_components():
    assert default_objectives(load_arch(SYSTOLIC_4X4)) == ("latency", "energy")
    assert default_objectives(priced_arch()) == ("latency", "energy_pj")


def test_library_default_is_energy_pj_on_a_priced_arch():
    workload, arch = load_workload(GEMM, SMALL), priced_arch()
    report = explore(workload, arch, skew=False)
    assert report.objectives == ("latency", "energy_pj")
    found = {(e.analysis.latency, float(e.analysis.cost.energy_pj.total)) for e in report.pareto}
    assert found == hand_front(workload, arch)


def test_library_default_stays_unitless_without_components():
    report = explore(load_workload(GEMM, SMALL), load_arch(SYSTOLIC_4X4), skew=False)
    assert report.objectives == ("latency", "energy")


def test_cli_default_with_technology_flag(capsys):
    rc, out, err = run_cli(["dse", *ARGS, "-a", "systolic-4x4", "--technology", "45",
                            "--format", "json", "-q"], capsys)  # fmt: skip
    assert rc == 0, err
    data = json.loads(out)
    assert data["objectives"] == ["latency", "energy_pj"]
    workload, arch = load_workload(GEMM, SMALL), priced_arch()
    found = {(p["objectives"]["latency"], p["objectives"]["energy_pj"]) for p in data["pareto"]}
    assert found == hand_front(workload, arch)


def test_cli_default_with_technology_in_the_arch(tmp_path, capsys):
    arch = {
        "name": "priced-4x4",
        "pe": {"shape": [4, 4]},
        "interconnect": [
            {"relation": "{ PE[i,j] -> PE[i-1,j] }"},
            {"relation": "{ PE[i,j] -> PE[i,j-1] }"},
        ],
        "memory": {"word_bits": 16, "bandwidth_bits": 64, "avg_latency": 16},
        "technology": {"node_nm": 45},
    }
    path = write_yaml(tmp_path, "arch", arch)
    rc, out, err = run_cli(["dse", *ARGS, "-a", path, "-q"], capsys)
    assert rc == 0, err
    assert "energy_pj (pJ)" in out


def test_cli_default_without_components(capsys):
    rc, out, err = run_cli(["dse", *ARGS, "-a", "systolic-4x4", "--format", "json", "-q"], capsys)
    assert rc == 0, err
    assert json.loads(out)["objectives"] == ["latency", "energy"]


def test_cli_explicit_objectives_win(capsys):
    rc, out, err = run_cli(["dse", *ARGS, "-a", "systolic-4x4", "--technology", "45",
                            "--objectives", "latency,energy", "--format", "json", "-q"],
                           capsys)  # fmt: skip
    assert rc == 0, err
    assert json.loads(out)["objectives"] == ["latency", "energy"]


def test_help_states_the_cost_first_default(capsys):
    with pytest.raises(SystemExit):
        run_cli(["dse", "--help"], capsys)
    out = " ".join(capsys.readouterr().out.split())
    assert "latency,energy_pj when the arch prices its components" in out
