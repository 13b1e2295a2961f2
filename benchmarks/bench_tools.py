"""Speed of the interconnect, validation and simulation tools (issue targets in brackets).

* analyze with the 8-link mesh-diagonal topology on TENET's 16x16 runtime mappings [< 1 s each]
* compare of 6 topologies on one dataflow [< 5 s]
* validate on each of TENET's 27 experiments [< 1 s each]
* simulate throughput on GEMM [>= 1e5 instances/s]

    python benchmarks/bench_tools.py [--tenet-data DIR]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from tenet import analyze, load_arch, load_dataflow, load_experiment, load_workload, simulate
from tenet.analysis.validate import validate
from tenet.model.arch import with_topology

ROOT = Path(__file__).resolve().parent.parent
WORKLOADS = ROOT / "workloads"


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tenet-data", type=Path, default=ROOT.parent / "shared" / "tenet-data")
    args = parser.parse_args()

    mesh = with_topology(load_arch(ROOT / "archs" / "systolic-16x16.yaml"), "mesh-diagonal")
    print(f"analyze on mesh-diagonal 16x16 ({len(mesh.links)} links)   seconds")
    runtime = {
        "conv2d": ("os-16x16", {"OX": 256, "OY": 256}),
        "gemm": ("os-systolic-16x16", {}),
        "jacobi2d": ("os-16x16", {}),
        "mttkrp": ("os-16x16", {}),
    }
    for name, (flow, sets) in runtime.items():
        workload = load_workload(WORKLOADS / name / "workload.yaml", sets)
        dataflow = load_dataflow(WORKLOADS / name / "dataflows" / f"{flow}.yaml")
        seconds, _ = timed(lambda w=workload, d=dataflow: analyze(w, mesh, d))
        print(f"  {name + '/' + flow:45} {seconds:8.3f}")

    topologies = ["systolic-2d", "mesh", "mesh-diagonal", "torus", "row-multicast", "mtia-grid"]
    base = load_arch(ROOT / "archs" / "systolic-8x8.yaml")
    workload = load_workload(WORKLOADS / "gemm" / "workload.yaml")
    dataflow = load_dataflow(WORKLOADS / "gemm" / "dataflows" / "os-systolic-8x8.yaml")
    seconds, _ = timed(
        lambda: [analyze(workload, with_topology(base, t), dataflow) for t in topologies]
    )
    print(f"\ncompare of {len(topologies)} topologies on gemm os-systolic-8x8: {seconds:.3f} s")

    if args.tenet_data.is_dir():
        print("\nvalidate on TENET's experiments               seconds  legal")
        worst = 0.0
        for exp in sorted(
            args.tenet_data.glob("*/experiment/experiment_*"),
            key=lambda p: (p.parent.parent.name, int(p.name.split("_")[1])),
        ):
            inputs = load_experiment(exp, args.tenet_data)
            seconds, result = timed(lambda i=inputs: validate(*i))
            worst = max(worst, seconds)
            print(f"  {exp.relative_to(args.tenet_data)!s:45} {seconds:8.3f}  {result.legal}")
        print(f"  slowest {worst:.3f} s")

    print("\nsimulate on gemm os-systolic-8x8              instances  seconds  instances/s")
    arch = load_arch(ROOT / "archs" / "systolic-8x8.yaml")
    for m, n, k in ((32, 32, 32), (64, 64, 32), (128, 64, 64), (128, 128, 60)):
        workload = load_workload(WORKLOADS / "gemm" / "workload.yaml", {"M": m, "N": n, "K": k})
        seconds, _ = timed(lambda w=workload: simulate(w, arch, dataflow))
        print(f"  {f'{m}x{n}x{k}':43} {m * n * k:9,} {seconds:8.3f}  {m * n * k / seconds:11,.0f}")


if __name__ == "__main__":
    main()
