"""Speed of the Snowcat search (targets: 4k^3 GEMM with bypass, 90,152 mappings, <= 3 s
wall including the CLI; each convolution slope <= 30 s). Prints mappings per second.

    python benchmarks/bench_bounds.py
"""

from __future__ import annotations

import subprocess
import sys
import time

from tenet.bounds.snowcat import evaluate, problem_from_workload
from tenet.formats.presets import resolve_workload
from tenet.model.workload import load_workload

STUDIES = [
    "gemm-4k",
    "gemm-16k-1k-1k",
    "gemm-1k-1k-16k",
    "conv-1x1",
    "conv-3x3",
    "conv-5x5",
    "conv-3x3-stride2",
    "conv-3x3-dilation2",
    "bmm-h1",
    "bmm-h8",
    "bmm-h64",
    "attention-mha",
    "attention-gqa",
    "attention-mqa",
]


def main() -> None:
    start = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "tenet",
            "bounds",
            "--einsum",
            "O[m,n] += A[m,k] * W[k,n]",
            "--shape",
            "m=4096,k=4096,n=4096",
            "--bypass",
            "--format",
            "json",
        ],
        check=True,
        capture_output=True,
    )
    print(
        f"CLI: 4k^3 GEMM with bypass (90,152 mappings), wall incl. start-up: "
        f"{time.perf_counter() - start:.2f} s (target <= 3 s)\n"
    )
    print(
        f"{'study':22} {'bypass':>6} {'mappings':>11} {'seconds':>8} {'mappings/s':>12} {'front':>6}"
    )
    for name in STUDIES:
        problem = problem_from_workload(load_workload(resolve_workload(name)))
        for bypass in (False, True):
            start = time.perf_counter()
            result = evaluate(problem, bypass)
            seconds = time.perf_counter() - start
            print(
                f"{name:22} {bypass!s:>6} {result.mappings:11,} {seconds:8.2f} "
                f"{result.mappings / seconds:12,.0f} {len(result.front):6}"
            )


if __name__ == "__main__":
    main()
