"""`tenet compare --best OBJECTIVE --tile-sizes`: each arch at its own best GLB tile sizes,
found by the search of `dse --tile-sizes`; the best value is checked against `analyze` of
the dataflow it writes."""

from __future__ import annotations

import json

from tenet import analyze, load_arch, load_workload
from tenet.model.dataflow import load_dataflow

from ..explore.test_tile_sizes import arch_file
from ..helpers import run_cli

SETS = ["--set", "M=32", "--set", "N=32", "--set", "K=32"]


def test_each_arch_at_its_best_tile_sizes(tmp_path, capsys):
    """Two arrays: each column's best energy_pj is `dse --tile-sizes`'s best on that arch,
    and `analyze` of the written dataflow (with its GLB tile) gives the same energy."""
    small = arch_file(tmp_path, 4, 4, 512, False)  # named sys-4x4
    large = arch_file(tmp_path, 8, 8, 2048, False)  # sys-8x8
    emit = tmp_path / "best"
    args = ["compare", "-w", "gemm", *SETS, "-a", str(small), "-a", str(large)]
    args += ["--best", "energy_pj", "--tile-sizes", "--format", "json", "--emit", str(emit)]
    rc, out, err = run_cli(args, capsys)
    assert rc == 0, err
    results = json.loads(out)["results"]
    assert [r["best"]["tile_sizes"] for r in results] == [True, True]
    workload = load_workload("workloads/gemm/workload.yaml", {"M": 32, "N": 32, "K": 32})
    for path, result, name in zip((small, large), results, ("sys-4x4", "sys-8x8"), strict=True):
        rc, dse_out, err = run_cli(
            [
                "dse",
                "-w",
                "gemm",
                *SETS,
                "-a",
                str(path),
                "--tile-sizes",
                "--objectives",
                "energy_pj",
                "--format",
                "json",
            ],
            capsys,
        )
        assert rc == 0, err
        dse_best = json.loads(dse_out)["pareto"][0]["objectives"]["energy_pj"]
        assert result["best"]["value"] == dse_best
        written = load_dataflow(str(emit / f"best-energy_pj-{name}.yaml"))
        assert written.tiles  # the GLB tile depth is part of the dataflow
        plain = analyze(workload, load_arch(str(path)), written)
        assert float(plain.cost.energy_pj.total) == result["best"]["value"]


def test_tile_size_flags_are_checked(tmp_path, capsys):
    """Each misuse is one line naming the flag or file at fault, exit 2, before any search."""
    good = str(arch_file(tmp_path, 4, 4, 512, False))
    base = ["compare", "-w", "gemm", *SETS, "-a", good]
    cases = [
        (base + ["-d", "os-systolic-8x8", "--tile-sizes"], "--tile-sizes"),  # no --best
        (base + ["--best", "energy_pj", "--imperfect"], "--imperfect"),
        (base + ["--best", "energy_pj", "--tile-sizes", "--no-skew"], "--no-skew"),
        (base + ["--best", "energy_pj", "--tile-sizes", "--seed", "3"], "--seed"),
        (base + ["--best", "ibw", "--tile-sizes"], "--best"),
        # an arch without a GLB under DRAM: named before the first arch is searched
        (base + ["-a", "systolic-8x8", "--best", "energy_pj", "--tile-sizes"], "levels"),
    ]
    for args, named in cases:
        rc, out, err = run_cli(args, capsys)
        assert rc == 2 and out == "", (args, err)
        assert len(err.strip().splitlines()) == 1 and named in err, (args, err)
