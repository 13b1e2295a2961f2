"""`compare --best energy_pj` over six topologies of one 8x8 array: wall time per topology
and in all, against the target of 60 s in all (docs/topologies.md, "Measured").

The workload is the 3x3 conv2d with K = C = OX = OY = 16, on `systolic-8x8` with the
built-in 40 nm library (`--technology 40`) and `--jobs 2`. The topologies are systolic-2d,
mesh, torus, row-multicast, broadcast and mtia-grid. Each topology runs alone in a fresh
process, then all six run together as one command, the one the target is about. Each run
prints its best `energy_pj` and the search's counts (candidates, pruned, legal).

    python benchmarks/bench_compare_best.py [--jobs 2] [--only mesh,torus]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

TOPOLOGIES = ["systolic-2d", "mesh", "torus", "row-multicast", "broadcast", "mtia-grid"]
TARGET_S = 60.0

COMMAND = [
    "compare",
    "-w",
    "conv2d",
    "-a",
    "systolic-8x8",
    "--best",
    "energy_pj",
    "--technology",
    "40",
    "--set",
    "K=16",
    "--set",
    "C=16",
    "--set",
    "OX=16",
    "--set",
    "OY=16",
    "--format",
    "json",
    "-q",
]


def run(topologies: list[str], jobs: int) -> tuple[float, list[dict]]:
    """Wall seconds of one `tenet compare` process and its best columns."""
    argv = [sys.executable, "-m", "tenet", *COMMAND, "--topologies", ",".join(topologies)]
    argv += ["--jobs", str(jobs)]
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - started
    return wall, json.loads(done.stdout)["results"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", help="comma-separated topologies (default: all six)")
    args = parser.parse_args()
    chosen = args.only.split(",") if args.only else TOPOLOGIES
    print(f"{'topology':16} {'wall s':>8} {'best energy_pj':>16} {'candidates':>10} {'pruned':>8}")
    for topology in chosen:
        wall, [result] = run([topology], args.jobs)
        best = result["best"]
        print(
            f"{topology:16} {wall:8.1f} {best['value']:16,.2f} "
            f"{best['candidates']:10,} {best['pruned']:8,}"
        )
    wall, _ = run(chosen, args.jobs)
    print(f"{'all, one command':16} {wall:8.1f}   (target {TARGET_S:.0f} s for all six)")


if __name__ == "__main__":
    main()
