"""Time `tenet dse` on a 16^3 GEMM and the 4x4 systolic array: exact dataflow evaluations
(validate + analyze) per second, in this process and on local worker processes.

Target: at least 20 evaluations per second on 2 cores.

    python benchmarks/bench_dse.py [--jobs N] [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from tenet import load_arch, load_workload
from tenet.explore.dse import explore

ROOT = Path(__file__).resolve().parent.parent
TARGET_PER_SECOND = 20


def evaluations_per_second(repeat: int, **options) -> tuple[int, float]:
    """(evaluations per run, best rate over `repeat` runs) of one `explore` call."""
    workload = load_workload(
        ROOT / "workloads" / "gemm" / "workload.yaml", {"M": 16, "N": 16, "K": 16}
    )
    arch = load_arch(ROOT / "archs" / "systolic-4x4.yaml")
    best = 0.0
    evaluated = 0
    for _ in range(repeat):
        start = time.perf_counter()
        report = explore(workload, arch, **options)
        elapsed = time.perf_counter() - start
        evaluated = report["evaluated"]
        best = max(best, evaluated / elapsed)
    return evaluated, best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per case (best kept)")
    args = parser.parse_args()
    cases = [
        ("default space, 1 process", {"jobs": 1}),
        (f"default space, {args.jobs} processes", {"jobs": args.jobs}),
        ("--interleave space, 1 process", {"jobs": 1, "interleave": True}),
        (f"--interleave space, {args.jobs} processes", {"jobs": args.jobs, "interleave": True}),
    ]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{os.cpu_count()} CPUs, load average {load:.2f} (other work slows the rates)")
    print(f"{'case':<36} {'dataflows':>9} {'evals/s':>8}")
    rates = []
    for label, options in cases:
        evaluated, rate = evaluations_per_second(args.repeat, **options)
        rates.append(rate)
        print(f"{label:<36} {evaluated:>9} {rate:>8.1f}")
    verdict = "meets" if max(rates) >= TARGET_PER_SECOND else "MISSES"
    print(f"best {max(rates):.1f} evaluations/s: {verdict} the target of {TARGET_PER_SECOND}/s")


if __name__ == "__main__":
    main()
