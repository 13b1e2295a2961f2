"""Time `analyze` with memory levels and components against the same run without levels.

With levels (a dataflow's tile depths), `analyze` also counts each level's traffic, the
time through the hierarchy (`delay.hierarchy`) and prices every level at both ends
(docs/levels.md, docs/energy.md). The target: at most 1.3 times the time without levels
(the same arch and components, no tile depth).

    python benchmarks/bench_hierarchy.py [--repeat N] [--cpu]

Prints, per case, the best of N runs in seconds without and with levels (run in turn), and
the ratio; with --cpu, the process's CPU time instead of the wall clock.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import yaml

from tenet import analyze, load_arch, load_dataflow, load_workload
from tenet.model.dataflow import with_tiles

ROOT = Path(__file__).resolve().parent.parent

#: An 8x8 systolic array with a GLB, an L2 and DRAM, priced with round unit costs.
ARCH = {
    "name": "bench-hierarchy",
    "pe": {"shape": [8, 8]},
    "interconnect": [
        {"relation": "{ PE[i,j] -> PE[i-1,j] }"},
        {"relation": "{ PE[i,j] -> PE[i,j-1] }"},
    ],
    "memory": {"word_bits": 16, "bandwidth_bits": 64, "avg_latency": 16, "l2_words": 2048},
    "levels": [
        {"name": "GLB", "capacity": 2048},
        {"name": "L2", "capacity": 65536, "bandwidth_gbps": 8},
        {"name": "DRAM", "capacity": "1GiB", "bandwidth_gbps": 2},
    ],
    "technology": {"node_nm": 45},
}

GEMM = ROOT / "workloads" / "gemm"
CONV = ROOT / "workloads" / "conv2d"

#: (name, workload file, parameters, dataflow file, tile depths)
CASES = [
    ("gemm 64^3 os, GLB=2", GEMM / "workload.yaml", {"M": 64, "N": 64, "K": 64},
     GEMM / "dataflows" / "os-systolic-8x8.yaml", {"GLB": 2}),
    ("gemm 64^3 ws, GLB=2", GEMM / "workload.yaml", {"M": 64, "N": 64, "K": 64},
     GEMM / "dataflows" / "ws-systolic-8x8.yaml", {"GLB": 2}),
    ("gemm 256^3 os, GLB=2 L2=1", GEMM / "workload.yaml", {"M": 256, "N": 256, "K": 256},
     GEMM / "dataflows" / "os-systolic-8x8.yaml", {"GLB": 2, "L2": 1}),
    ("conv 16x16x16x16 3x3 os, GLB=1", CONV / "workload.yaml",
     {"K": 16, "C": 16, "OX": 16, "OY": 16, "RX": 3, "RY": 3},
     CONV / "dataflows" / "os-8x8.yaml", {"GLB": 1}),
]  # fmt: skip


def best_of_each(repeat: int, first, second, clock=time.perf_counter) -> tuple[float, float]:
    """The best of `repeat` runs of each function, the two run in turn (so that both see
    the same load on a shared machine)."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        for fn, out in ((first, times[0]), (second, times[1])):
            start = clock()
            fn()
            out.append(clock() - start)
    return min(times[0]), min(times[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="time the process's CPU time (time.process_time) instead of the wall clock",
    )
    args = parser.parse_args()
    clock = time.process_time if args.cpu else time.perf_counter
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "arch.yaml"
        path.write_text(yaml.safe_dump(ARCH))
        arch = load_arch(path)
        print(f"{'case':<34} {'no levels s':>12} {'levels s':>10} {'ratio':>7}")
        ratios = []
        for name, workload_file, params, flow_file, tiles in CASES:
            workload = load_workload(workload_file, params)
            flow = load_dataflow(flow_file)
            tiled = with_tiles(flow, tiles)
            plain, levels = best_of_each(
                args.repeat,
                lambda w=workload, f=flow: analyze(w, arch, f),
                lambda w=workload, f=tiled: analyze(w, arch, f),
                clock,
            )
            ratios.append(levels / plain)
            print(f"{name:<34} {plain:>12.3f} {levels:>10.3f} {levels / plain:>7.2f}")
        print(f"largest ratio {max(ratios):.2f} (target <= 1.3)")


if __name__ == "__main__":
    main()
