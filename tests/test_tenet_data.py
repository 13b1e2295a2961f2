"""TENET's 27 published experiments: each runs through the TENET-file reader, and the
YAML presets that translate it give the same numbers."""

from __future__ import annotations

import json

import pytest

from tenet import analyze, load_arch, load_dataflow, load_experiment, load_workload
from tenet.cli import main

from .conftest import ARCHS, WORKLOADS

RUNTIME = {"OX": 256, "OY": 256}
# experiment -> (workload preset, --set values, arch preset, dataflow preset)
EXPERIMENTS = {
    "reuse_factor_experiment/experiment/experiment_1": ("conv2d", {}, "chain-64", "kp-64"),
    "reuse_factor_experiment/experiment/experiment_2": ("conv2d", {}, "chain-64", "nlr-64"),
    "reuse_factor_experiment/experiment/experiment_3": (
        "conv2d",
        {},
        "systolic-8x8",
        "eyeriss-8x8",
    ),
    "reuse_factor_experiment/experiment/experiment_4": ("conv2d", {}, "systolic-8x8", "os-8x8"),
    "reuse_factor_experiment/experiment/experiment_5": ("conv2d", {}, "systolic-8x8", "ws-8x8"),
    "reuse_factor_experiment/experiment/experiment_6": ("jacobi2d", {}, "chain-64", "os-chain-64"),
    "reuse_factor_experiment/experiment/experiment_7": ("jacobi2d", {}, "systolic-8x8", "os-8x8"),
    "reuse_factor_experiment/experiment/experiment_8": (
        "mttkrp",
        {},
        "systolic-8x8",
        "systolic1-8x8",
    ),
    "reuse_factor_experiment/experiment/experiment_9": (
        "mttkrp",
        {},
        "systolic-8x8",
        "systolic2-8x8",
    ),
    "reuse_factor_experiment/experiment/experiment_10": (
        "mttkrp",
        {},
        "systolic-8x8",
        "systolic3-8x8",
    ),
    "reuse_factor_experiment/experiment/experiment_11": (
        "gemm",
        {},
        "systolic-8x8",
        "os-systolic-8x8",
    ),
    "reuse_factor_experiment/experiment/experiment_12": (
        "gemm",
        {},
        "systolic-8x8",
        "ws-systolic-8x8",
    ),
    "reuse_factor_experiment/experiment/experiment_13": ("gemm", {}, "systolic-8x8", "ncf-nmk-8x8"),
    "reuse_factor_experiment/experiment/experiment_14": ("gemm", {}, "chain-64", "ncf-rs-64"),
    "reuse_factor_experiment/experiment/experiment_15": ("gemm", {}, "chain-64", "ncf-yxp-os-64"),
    "runtime/experiment/experiment_1": ("conv2d", RUNTIME, "chain-256", "chain-256"),
    "runtime/experiment/experiment_2": ("conv2d", RUNTIME, "systolic-16x16-up", "os-16x16"),
    "runtime/experiment/experiment_3": ("conv2d", RUNTIME, "mesh-diag-16x16", "os-16x16"),
    "runtime/experiment/experiment_4": ("gemm", {}, "chain-256", "chain-256"),
    "runtime/experiment/experiment_5": ("gemm", {}, "systolic-16x16-up", "os-systolic-16x16"),
    "runtime/experiment/experiment_6": ("gemm", {}, "mesh-diag-16x16", "os-systolic-16x16"),
    "runtime/experiment/experiment_7": ("jacobi2d", {}, "chain-256", "chain-256"),
    "runtime/experiment/experiment_8": ("jacobi2d", {}, "systolic-16x16-up", "os-16x16"),
    "runtime/experiment/experiment_9": ("jacobi2d", {}, "mesh-diag-16x16", "os-16x16"),
    "runtime/experiment/experiment_10": ("mttkrp", {}, "chain-256", "chain-256"),
    "runtime/experiment/experiment_11": ("mttkrp", {}, "systolic-16x16-up", "os-16x16"),
    "runtime/experiment/experiment_12": ("mttkrp", {}, "mesh-diag-16x16", "os-16x16"),
}
# A TENET .p file has one interconnect relation (a union); the YAML presets list each
# direction as its own link, so per-link traffic and link warnings legitimately differ.
NAMES = ("workload", "arch", "dataflow", "links", "warnings")


def without_names(result: dict) -> dict:
    return {k: v for k, v in result.items() if k not in NAMES}


def link_total(result: dict) -> int:
    return sum(link["total"] for link in result["links"])


def test_all_27_experiments_listed(tenet_data):
    found = {str(p.relative_to(tenet_data)) for p in tenet_data.glob("*/experiment/experiment_*")}
    assert found == set(EXPERIMENTS)


@pytest.mark.parametrize("experiment", sorted(EXPERIMENTS))
def test_yaml_presets_equal_tenet_files(tenet_data, experiment):
    workload, sets, arch, flow = EXPERIMENTS[experiment]
    from_tenet = analyze(*load_experiment(tenet_data / experiment, tenet_data)).to_dict()
    from_yaml = analyze(
        load_workload(WORKLOADS / workload / "workload.yaml", sets),
        load_arch(ARCHS / f"{arch}.yaml"),
        load_dataflow(WORKLOADS / workload / "dataflows" / f"{flow}.yaml"),
    ).to_dict()
    assert without_names(from_tenet) == without_names(from_yaml)
    assert link_total(from_tenet) == link_total(from_yaml)
    pe_conflicts = [w for w in from_tenet["warnings"] if "pe_conflict" in w]
    assert pe_conflicts == [w for w in from_yaml["warnings"] if "pe_conflict" in w]


def test_cli_tenet_files(tenet_data, capsys):
    files = (
        tenet_data / "statement/matmul.s",
        tenet_data / "pe_array/systolic.p",
        tenet_data / "mapping/matmul_systolic_os.m",
    )
    assert main(["analyze", "--tenet", *map(str, files), "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    # Closed forms for the 256^3 output-stationary GEMM on 8x8: A, B enter once per tile.
    assert result["tensors"]["A"]["read"]["unique"] == 256 * 256 * 256 // 8
    assert result["tensors"]["C"]["write"]["unique"] == 256 * 256
    assert result["delay"]["compute"] == 256**3 // 64


def test_upward_link_finds_no_reuse_of_a(tenet_data):
    # tenet-data/README: 2d_sys.p links PE[i,j] -> PE[i+1,j], against the skewed GEMM
    # wavefront, so A is never reused: every access is a fetch.
    result = analyze(
        *load_experiment(tenet_data / "runtime/experiment/experiment_5", tenet_data)
    ).to_dict()
    a = result["tensors"]["A"]["read"]
    assert a["unique"] == a["total"] == 256**3
