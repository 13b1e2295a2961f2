"""`analyze --verbose` says how the time through the hierarchy was counted: how many
per-tile pieces were not quasi-affine and how many tile values slicing them took."""

from __future__ import annotations

from tenet import analyze, load_arch, load_dataflow, load_workload

from ..helpers import run_cli, write_yaml

TRIANGLE = {
    "name": "tri",
    "params": {"N": 11},
    "statements": [
        {
            "domain": "[N] -> { S[i,j,k] : 0 <= k <= j <= i < N }",
            "reads": {"B": "{ S[i,j,k] -> B[j,k] }", "A": "{ S[i,j,k] -> A[i,k] }"},
            "writes": {"C": "{ S[i,j,k] -> C[i,j] }"},
        }
    ],
}
ARCH = {
    "name": "chain-4",
    "pe": {"shape": [4]},
    "memory": {"bandwidth_bits": 32},
    "levels": [
        {"name": "GLB", "capacity": 4096},
        {"name": "DRAM", "capacity": "1GiB", "bandwidth_gbps": 1},
    ],
}
FLOW = {
    "name": "tri-flow",
    "space": "{ S[i,j,k] -> PE[k % 4] }",
    "time": "{ S[i,j,k] -> T[i, j, floor(k/4)] }",
    "tiles": {"GLB": 1},
}


def test_verbose_names_the_sliced_hierarchy_pieces(tmp_path, capsys):
    paths = [
        str(write_yaml(tmp_path, n, d)) for n, d in (("w", TRIANGLE), ("a", ARCH), ("d", FLOW))
    ]
    rc, _, err = run_cli(
        ["analyze", "-w", paths[0], "-a", paths[1], "-d", paths[2], "--verbose"], capsys
    )
    assert rc == 0
    hierarchy = analyze(
        load_workload(paths[0], {}), load_arch(paths[1]), load_dataflow(paths[2])
    ).hierarchy
    assert hierarchy.sliced_pieces > 0  # a tile's steps grow quadratically with i
    line = next(x for x in err.splitlines() if x.startswith("time through the hierarchy:"))
    assert f"{hierarchy.sliced_pieces} per-tile piece(s) not quasi-affine" in line
    assert f"sliced at {hierarchy.sliced_points} value(s)" in line


def test_verbose_without_levels_says_nothing_of_the_hierarchy(tmp_path, capsys):
    args = ["analyze", "-w", "gemm", "-a", "systolic-8x8", "-d", "os-systolic-8x8"]
    rc, _, err = run_cli(
        [*args, "--set", "M=8", "--set", "N=8", "--set", "K=8", "--verbose"], capsys
    )
    assert rc == 0 and "per-step words" in err and "hierarchy" not in err
