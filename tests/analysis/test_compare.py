"""`tenet compare`: several archs or topologies side by side, JSON, best marks, plot."""

from __future__ import annotations

import json

from tenet import analyze, load_arch, load_dataflow, load_workload
from tenet.analysis.compare import Row
from tenet.model.arch import with_topology

from ..conftest import ARCHS, WORKLOADS
from ..helpers import run_cli

BASE = ["-w", "gemm", "-d", "os-multicast-8x8", "--set", "M=16", "--set", "N=16", "--set", "K=8"]


def test_compare_json_has_one_analyze_object_per_arch(capsys):
    rc, out, _ = run_cli(
        ["compare", *BASE, "-a", "systolic-8x8", "-a", "multicast-8x8", "--format", "json"], capsys
    )
    assert rc == 0
    data = json.loads(out)
    assert data["workload"] == "gemm" and data["dataflow"] == "os-multicast-8x8"
    assert [r["arch"] for r in data["results"]] == ["systolic-8x8", "multicast-8x8"]
    # Each result is exactly what `analyze` gives for that arch.
    workload = load_workload(WORKLOADS / "gemm" / "workload.yaml", {"M": 16, "N": 16, "K": 8})
    dataflow = load_dataflow(WORKLOADS / "gemm" / "dataflows" / "os-multicast-8x8.yaml")
    expected = analyze(workload, load_arch(ARCHS / "multicast-8x8.yaml"), dataflow).to_dict()
    assert data["results"][1] == expected


def test_compare_topologies_on_one_array(capsys):
    topologies = "systolic-2d,mesh,row-multicast,column-multicast,broadcast,mtia-grid"
    rc, out, _ = run_cli(
        ["compare", *BASE, "-a", "systolic-8x8", "--topologies", topologies, "--format", "json"],
        capsys,
    )
    assert rc == 0
    results = json.loads(out)["results"]
    assert [r["arch"] for r in results] == [f"systolic-8x8+{t}" for t in topologies.split(",")]
    by_name = {r["arch"].split("+")[1]: r for r in results}
    # Unskewed OS: a row shares A[i,k] in one step, a column shares B[k,j].
    assert by_name["row-multicast"]["tensors"]["A"]["read"]["unique"] == 16 * 8 * 2
    assert by_name["row-multicast"]["tensors"]["B"]["read"]["unique"] == 16 * 16 * 8
    assert by_name["column-multicast"]["tensors"]["B"]["read"]["unique"] == 8 * 16 * 2
    # A full broadcast group contains every row and column: one fetch per distinct value per step.
    assert by_name["broadcast"]["tensors"]["A"]["read"]["unique"] == 16 * 8 * 2
    assert by_name["broadcast"]["tensors"]["B"]["read"]["unique"] == 8 * 16 * 2


def test_compare_table_marks_the_best(capsys):
    rc, out, _ = run_cli(
        ["compare", *BASE, "-a", "systolic-8x8", "--topologies", "row-multicast,mtia-grid"], capsys
    )
    assert rc == 0
    b_row = next(line for line in out.splitlines() if "B read unique" in line)
    assert "*256" in b_row.replace(",", "") and "2048" in b_row.replace(",", "")


def test_best_of_a_row():
    assert Row("x", "unique", [3, 1, 1]).best() == {1, 2}
    assert Row("x", "reuse", [3, 1, 3]).best() == {0, 2}
    assert Row("x", "unique", [2, 2]).best() == set()  # a tie everywhere marks nothing
    assert Row("x", "ibw", [1, 2]).best() == set()  # not ranked


def test_compare_plot(tmp_path, capsys):
    target = tmp_path / "compare.png"
    rc, _, _ = run_cli(
        [
            "compare",
            *BASE,
            "-a",
            "systolic-8x8",
            "--topologies",
            "systolic-2d,mesh",
            "--plot",
            str(target),
        ],
        capsys,
    )
    assert rc == 0
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_compare_errors(capsys):
    rc, _, err = run_cli(
        ["compare", *BASE, "-a", "systolic-8x8", "-a", "chain-64", "--topologies", "mesh"], capsys
    )
    assert rc == 2 and "exactly one -a" in err
    rc, _, err = run_cli(
        ["compare", *BASE, "-a", "systolic-8x8", "--topologies", "hypercube"], capsys
    )
    assert rc == 2 and "unknown topology 'hypercube'" in err and err.count("\n") == 1
    rc, _, err = run_cli(["compare", *BASE], capsys)
    assert rc == 2 and "-a/--arch" in err


def test_with_topology_keeps_the_array():
    arch = load_arch(ARCHS / "systolic-8x8.yaml")
    meshed = with_topology(arch, "mesh")
    assert meshed.pe_domain.is_equal(arch.pe_domain) and len(meshed.links) == 4
    assert meshed.memory == arch.memory
