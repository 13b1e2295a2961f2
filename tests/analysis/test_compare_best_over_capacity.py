"""`compare --best`'s JSON `best` block counts the candidates whose tiles do not fit a
memory level (`over_capacity`), as `dse` counts them on the same search."""

from __future__ import annotations

import json

from ..helpers import run_cli, write_yaml

ARCH = {
    "name": "sys2-tiny",
    "pe": {"shape": [2, 2]},
    "interconnect": [
        {"relation": "{ PE[i,j] -> PE[i-1,j] }"},
        {"relation": "{ PE[i,j] -> PE[i,j-1] }"},
    ],
    # 12 words: some tile depths of the GEMM 4x4x2 candidates need more (dse counts them)
    "levels": [
        {"name": "GLB", "capacity": 12, "double_buffered": False},
        {"name": "DRAM", "capacity": "1GiB", "bandwidth_gbps": 100},
    ],
}
SIZES = ["--set", "M=4", "--set", "N=4", "--set", "K=2", "--format", "json"]


def test_best_block_has_over_capacity(tmp_path, capsys):
    arch = str(write_yaml(tmp_path, "arch", ARCH))
    rc, out, _ = run_cli(
        ["dse", "-w", "gemm", "-a", arch, "--objectives", "latency", *SIZES], capsys
    )
    assert rc == 0
    search = json.loads(out)
    rc, out, _ = run_cli(["compare", "-w", "gemm", "-a", arch, "--best", "latency", *SIZES], capsys)
    assert rc == 0
    best = json.loads(out)["results"][0]["best"]
    assert best["over_capacity"] == search["over_capacity"] > 0
    assert best["evaluated"] == best["legal"] + best["over_capacity"]
