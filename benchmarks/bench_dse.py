"""Time `tenet dse` (issue 20): exact evaluations per second per core in this process, new
path against the old one, and the conv-space command on 2 cores.

Target B: at least 300 exact evaluations per second per core on the 16^3 GEMM space (the 144
distinct candidates of `--interleave` on systolic-4x4). Target A: `tenet dse -w conv2d -a
benchmarks/archs/mesh-8x8.yaml --set K=8 --set C=8 --set OX=8 --set OY=8 --jobs 2` in at most
30 s (`--conv` times it with `--jobs 2` and `--jobs 1`). Rates are per CPU second of this
process (time.process_time), so other work on the machine slows the wall clock but not the
rate; the command's times are wall clock and the CPU seconds of it and its workers.

    python benchmarks/bench_dse.py [--repeat N] [--conv] [--conv-old]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from tenet import load_arch, load_workload
from tenet.analysis.validate import validate
from tenet.explore import evaluate
from tenet.explore.dse import enumerate_candidates, explore
from tenet.model.dataflow import Dataflow
from tenet.model.metrics import analyze
from tenet.util.isl_util import parse_union_map

ROOT = Path(__file__).resolve().parent.parent
TARGET_PER_CORE = 300
TARGET_CONV_S = 30.0
CONV_COMMAND = [
    "dse", "-w", "conv2d", "-a", str(ROOT / "benchmarks" / "archs" / "mesh-8x8.yaml"),
    "--set", "K=8", "--set", "C=8", "--set", "OX=8", "--set", "OY=8", "--jobs", "2",
    "--format", "json", "-q",
]  # fmt: skip


def gemm_space():
    workload = load_workload(
        ROOT / "workloads" / "gemm" / "workload.yaml", {"M": 16, "N": 16, "K": 16}
    )
    return workload, load_arch(ROOT / "archs" / "systolic-4x4.yaml")


def new_rate(repeat: int, prune: bool) -> tuple[int, int, float]:
    """(candidates counted, pruned, best distinct candidates settled (counted or pruned) per
    CPU second) of `explore` in process, the front members' plain re-analysis included. Each
    run starts without the shared work and the counts of an earlier run (as a new `tenet dse`
    command does)."""
    workload, arch = gemm_space()
    best = 0.0
    for _ in range(repeat):
        evaluate.forget_shared_work()  # a cold start per run
        start = time.process_time()
        report = explore(workload, arch, interleave=True, jobs=1, prune=prune)
        settled = report.evaluated + report.pruned
        best = max(best, settled / (time.process_time() - start))
    return report.evaluated, report.pruned, best


def old_rate(repeat: int) -> tuple[int, float]:
    """(candidates, best per CPU second) of the old evaluation: `validate` and `analyze` of
    every distinct candidate (what `explore` ran before issue 20)."""
    workload, arch = gemm_space()
    _, found = enumerate_candidates(workload, arch, interleave=True)
    best = 0.0
    for _ in range(repeat):
        start = time.process_time()
        for e in found:
            flow = Dataflow(e.name, parse_union_map(e.space), parse_union_map(e.time))
            if validate(workload, arch, flow).legal:
                analyze(workload, arch, flow, 0)
        best = max(best, len(found) / (time.process_time() - start))
    return len(found), best


def command_seconds(command: list[str], pythonpath: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the command and its worker processes)."""
    env = {**os.environ, "PYTHONPATH": pythonpath}
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "tenet", *command], check=True, env=env, stdout=subprocess.DEVNULL
    )
    wall = time.perf_counter() - start
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu_after.ru_utime + cpu_after.ru_stime) - (cpu_before.ru_utime + cpu_before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2, help="runs per case (best kept)")
    parser.add_argument("--conv", action="store_true", help="also time the conv command")
    parser.add_argument(
        "--conv-old",
        metavar="CHECKOUT",
        help="also time the conv command on an older checkout of tenet (its root directory)",
    )
    args = parser.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{os.cpu_count()} CPUs, load average {load:.2f} (rates are per CPU second)")
    print("16^3 GEMM on systolic-4x4, --interleave space, in this process:")
    n_old, old = old_rate(args.repeat)
    print(f"  old path (validate + analyze)    {n_old:>5} evaluations {old:>8.1f} /s/core")
    n_full, _, full = new_rate(args.repeat, prune=False)
    print(f"  search, no pruning               {n_full:>5} evaluations {full:>8.1f} /s/core")
    n_new, pruned, new = new_rate(args.repeat, prune=True)
    print(f"  search with pruning: {n_new} counted, {pruned} pruned: {new:.1f} candidates/s/core")
    print(f"  ratio to the old path: {full / old:.1f}x counted, {new / old:.1f}x with pruning")
    verdict = "meets" if full >= TARGET_PER_CORE else "MISSES"
    print(f"  full evaluations {verdict} the target of {TARGET_PER_CORE}/s/core", end="")
    verdict = "meets" if new >= TARGET_PER_CORE else "misses"
    print(f"; candidates settled with pruning {verdict} it")
    if args.conv:
        for jobs in ("2", "1"):
            command = [*CONV_COMMAND[:-4], jobs, *CONV_COMMAND[-3:]]
            wall, cpu = command_seconds(command, str(ROOT))
            verdict = "meets" if wall <= TARGET_CONV_S else "MISSES"
            print(
                f"conv space command, --jobs {jobs}: {wall:.1f} s wall ({verdict} "
                f"{TARGET_CONV_S:g} s), {cpu:.1f} CPU s"
            )
    if args.conv_old:
        wall, cpu = command_seconds(CONV_COMMAND, args.conv_old)
        print(f"conv space command on {args.conv_old}: {wall:.1f} s wall, {cpu:.1f} CPU s")


if __name__ == "__main__":
    main()
