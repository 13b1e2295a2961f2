"""Time `tenet workload show` on every kernel of tests/data/loopnests (C and Python).

Each kernel runs as the command does it, in a fresh process (`python -m tenet workload show
-w FILE --format json`), once at the file's default sizes and once with every parameter
scaled up (`--scale`, default 64: the counts are barvinok's, so size should not matter).
Target (issue 14): at most 1 s per kernel.

    python benchmarks/bench_loopnests.py [--repeat N] [--scale K]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "tests" / "data" / "loopnests"
TARGET_SECONDS = 1.0


def show(path: Path, sets: dict[str, int]) -> tuple[float, dict]:
    """Seconds of one `tenet workload show` run, and its JSON."""
    args = [sys.executable, "-m", "tenet", "workload", "show", "-w", str(path), "--format", "json"]
    for name, value in sets.items():
        args += ["--set", f"{name}={value}"]
    start = time.perf_counter()
    done = subprocess.run(args, check=False, capture_output=True, text=True, cwd=ROOT)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{path.name}: exit {done.returncode}: {done.stderr.strip()}")
    return seconds, json.loads(done.stdout)


def best(repeat: int, path: Path, sets: dict[str, int]) -> tuple[float, dict]:
    runs = [show(path, sets) for _ in range(repeat)]
    return min(r[0] for r in runs), runs[0][1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per case, best kept")
    parser.add_argument("--scale", type=int, default=64, help="factor on every parameter")
    args = parser.parse_args()
    files = sorted([*KERNELS.glob("*.c"), *KERNELS.glob("*.py")])
    print(f"tenet workload show, best of {args.repeat} runs (a fresh process each)")
    print(f"{'kernel':<22} {'defaults':>9} {'x' + str(args.scale):>9}  instances (scaled)")
    worst = 0.0
    for path in files:
        seconds, shown = best(args.repeat, path, {})
        scaled_sets = {k: v * args.scale for k, v in shown["params"].items()}
        scaled, big = best(args.repeat, path, scaled_sets)
        instances = sum(s["instances"] for s in big["statements"])
        worst = max(worst, seconds, scaled)
        print(f"{path.name:<22} {seconds:>8.2f}s {scaled:>8.2f}s  {instances:,}")
    verdict = "met" if worst <= TARGET_SECONDS else "NOT met"
    print(f"slowest: {worst:.2f} s; target <= {TARGET_SECONDS:.0f} s per kernel: {verdict}")
    return 0 if worst <= TARGET_SECONDS else 1


if __name__ == "__main__":
    raise SystemExit(main())
