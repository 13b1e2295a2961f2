"""Speed of the Snowcat search (targets: 4k^3 GEMM with bypass, 90,152 mappings, <= 3 s
wall including the CLI; each convolution slope <= 30 s). Prints mappings per second.

Then the larger mapping spaces of tenet.bounds.uneven (targets: uneven front of a 4096^3
GEMM <= 2 s; imperfect uneven 37^3 GEMM <= 2 s; the five convolution slopes in the uneven
space <= 60 s in total).

    python benchmarks/bench_bounds.py
"""

from __future__ import annotations

import subprocess
import sys
import time

from tenet.bounds.slope import bounds_report
from tenet.bounds.snowcat import evaluate, problem_from_einsum, problem_from_workload
from tenet.bounds.uneven import search_front
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

    spaces()
    command_lines()


CONVS = ["conv-1x1", "conv-3x3", "conv-5x5", "conv-3x3-stride2", "conv-3x3-dilation2"]


def timed_front(problem, space, imperfect=False, bypass=False):
    start = time.perf_counter()
    front = search_front(problem, space, imperfect, bypass)
    return front, time.perf_counter() - start


def spaces() -> None:
    """Mapping spaces beyond Snowcat (search_front), with the issue's targets."""
    gemm = "Z[m,n] += A[m,k] * B[k,n]"
    print(f"\n{'mapping space':44} {'evaluated':>11} {'seconds':>8} {'front':>6} {'target':>10}")

    def row(label, front, seconds, target=""):
        print(
            f"{label:44} {front.mappings_evaluated:11,} {seconds:8.2f} "
            f"{len(front.points):6} {target:>10}"
        )

    big = problem_from_einsum(gemm, {"m": 4096, "k": 4096, "n": 4096})
    row("gemm 4096^3, snowcat", *timed_front(big, "snowcat"))
    row("gemm 4096^3, uneven", *timed_front(big, "uneven"), "<= 2 s")
    row("gemm 4096^3, uneven, bypass", *timed_front(big, "uneven", bypass=True))
    row("gemm 4096^3, uneven imperfect", *timed_front(big, "uneven", True))
    row("gemm 4096^3, snowcat imperfect", *timed_front(big, "snowcat", True))
    awkward = problem_from_einsum(gemm, {"m": 37, "k": 37, "n": 37})
    row("gemm 37^3, snowcat imperfect", *timed_front(awkward, "snowcat", True))
    row("gemm 37^3, uneven imperfect", *timed_front(awkward, "uneven", True), "<= 2 s")
    total = 0.0
    for name in CONVS:
        problem = problem_from_workload(load_workload(resolve_workload(name)))
        front, seconds = timed_front(problem, "uneven")
        total += seconds
        row(f"{name}, uneven", front, seconds)
    print(
        f"{'five convolution slopes, uneven, total':44} {'':11} {total:8.2f} {'':6} {'<= 60 s':>10}"
    )


def wall(*args: str) -> float:
    """Seconds of one `tenet bounds` run, start-up and JSON output included."""
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "tenet", "bounds", *args, "--format", "json"],
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - start


def command_lines() -> None:
    """Whole commands: the lower bound beside the Snowcat front, and --compare-spaces."""
    gemm = ["--einsum", "Z[m,n] += A[m,k] * B[k,n]"]
    cube = [*gemm, "--shape", "m=4096,k=4096,n=4096"]
    problem = problem_from_einsum("Z[m,n] += A[m,k] * B[k,n]", {"m": 4096, "k": 4096, "n": 4096})
    start = time.perf_counter()
    result = evaluate(problem)
    search = time.perf_counter() - start
    start = time.perf_counter()
    bounds_report(result)
    report = time.perf_counter() - start
    print(
        f"\nSnowcat 4096^3: search {search:.3f} s, report with {len(result.front)} lower bounds "
        f"{report:.3f} s (the search itself is today's evaluate)"
    )
    print(f"{'command':60} {'seconds':>8} {'target':>8}")
    for label, args, target in (
        ("tenet bounds 4096^3 (Snowcat, lower bounds)", cube, ""),
        ("tenet bounds 4096^3 --compare-spaces", [*cube, "--compare-spaces"], "<= 5 s"),
        (
            "tenet bounds 37^3 --compare-spaces",
            [*gemm, "--shape", "m=37,k=37,n=37", "--compare-spaces"],
            "",
        ),
    ):
        print(f"{label:60} {wall(*args):8.2f} {target:>8}")


if __name__ == "__main__":
    main()
