"""Real-size bounds: wall time and peak memory of the three commands that used to blow up.

Targets (docs/bounds.md, "Real sizes"):

* `analyze --bound` on a 3x3 conv2d with K = C = 16 and a 224 x 224 image: <= 2 s;
* `bounds --imperfect` and `bounds --compare-spaces` on a 65536^3 GEMM: <= 2 GB each;
* `bounds --compare-spaces` on GPT-3's `qk` product (gpt3-attention: b 16, h 32,
  t = s = 2048, e 128): <= 10 s.

Each run is a fresh Python process that runs the command line in-process and reports its
own wall time (from before the command is parsed to its end, start-up of Python and of
tenet's imports included) and its peak resident memory (`ru_maxrss`). Every target runs
`--repeat` times (default 3): the machine may be shared, so the smallest time is the
figure, and the largest peak memory.

    python benchmarks/bench_bounds_real_size.py [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CHILD = r"""
import contextlib, io, json, resource, sys, time
start = time.perf_counter()
from tenet.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[1:])
wall = time.perf_counter() - start
peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"rc": code, "wall_s": wall, "peak_kb": peak_kb}), file=sys.stderr)
"""

GEMM = ["--einsum", "O[m,n] += A[m,k] * W[k,n]", "--shape", "m=65536,k=65536,n=65536"]
QK = [
    "--einsum",
    "S[b,h,t,s] += Q[b,t,h,e] * K[b,s,h,e]",
    "--shape",
    "b=16,h=32,t=2048,s=2048,e=128",
]

#: (name, arguments of `tenet`, most seconds or None, most GB or None)
TARGETS = [
    (
        "analyze --bound, conv2d 3x3 K=C=16 224x224",
        [
            "analyze",
            "-w",
            "conv2d",
            "-a",
            "systolic-8x8",
            "-d",
            "os-8x8",
            *("--set", "K=16", "--set", "C=16", "--set", "OX=224", "--set", "OY=224"),
            "--bound",
            "--format",
            "json",
        ],
        2.0,
        None,
    ),
    ("bounds --imperfect, GEMM 65536^3", ["bounds", *GEMM, "--imperfect"], None, 2.0),
    ("bounds --compare-spaces, GEMM 65536^3", ["bounds", *GEMM, "--compare-spaces"], None, 2.0),
    ("bounds --compare-spaces, GPT-3 qk", ["bounds", *QK, "--compare-spaces"], 10.0, None),
]


def run_once(arguments: list[str]) -> dict:
    """One fresh process: its exit code, wall seconds and peak resident kB."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, *arguments], capture_output=True, text=True, check=False
    )
    lines = [line for line in done.stderr.splitlines() if line.startswith("{")]
    if not lines:
        raise SystemExit(f"{' '.join(arguments)} failed:\n{done.stderr}")
    return json.loads(lines[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per target (default 3)")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores; {args.repeat} runs per target (least time, most memory)")
    print(f"{'target':44} {'time s':>8} {'peak GB':>8}  limit")
    missed = 0
    for name, arguments, seconds, gigabytes in TARGETS:
        runs = [run_once(arguments) for _ in range(args.repeat)]
        if any(r["rc"] != 0 for r in runs):
            raise SystemExit(f"{name}: exit code {runs[0]['rc']}")
        wall = min(r["wall_s"] for r in runs)
        peak = max(r["peak_kb"] for r in runs) * 1024 / 1e9
        limits = []
        if seconds is not None:
            limits.append(f"<= {seconds:g} s")
            missed += wall > seconds
        if gigabytes is not None:
            limits.append(f"<= {gigabytes:g} GB")
            missed += peak > gigabytes
        times = ", ".join(f"{r['wall_s']:.2f}" for r in runs)
        print(f"{name:44} {wall:8.2f} {peak:8.3f}  {' and '.join(limits)}   (runs: {times} s)")
    print("all targets met" if not missed else f"{missed} target(s) missed")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
