"""Time `tenet workload show` on every kernel of tests/data/loopnests (C and Python).

Each kernel runs as the command does it, in a fresh process (`python -m tenet workload show
-w FILE --format json`), once at the file's default sizes and once with every parameter
scaled up (`--scale`, default 64: the counts are barvinok's, so size should not matter).
Target (issue 14): at most 1 s per kernel.

With `--statements`, instead: one loop with 250 ... 10,000 statements (`A[k, i] = B[i] + k`,
k = 0, 1, ...), imported in this process (`load_loopnest`), and then summarized as `workload
show` does (`workload_summary`: every count and footprint). Prints the seconds and the ratio
to the previous size; linear time gives the ratio of the sizes (2 per doubling), quadratic
its square (issue 21, item 16).

    python benchmarks/bench_loopnests.py [--repeat N] [--scale K]
    python benchmarks/bench_loopnests.py --statements [--max 10000] [--no-summary]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
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


STATEMENT_COUNTS = (250, 500, 1000, 2000, 4000, 8000, 10000)


def many_statements(folder: Path, n: int) -> Path:
    """A Python kernel: one loop over i < N = 8 holding n statements A[k, i] = B[i] + k."""
    path = folder / f"many{n}.py"
    body = "".join(f"        A[{k}, i] = B[i] + {k}.0\n" for k in range(n))
    path.write_text(f"N = 8\n\n\ndef kernel(A, B):\n    for i in range(N):\n{body}")
    return path


def statements_scaling(largest: int, summary: bool) -> int:
    """Seconds to import (and summarize) one loop of n statements, n = 250 ... `largest`."""
    sys.path.insert(0, str(ROOT))
    from tenet.formats.loopnest import load_loopnest
    from tenet.formats.workloads import workload_summary

    print("one loop, n statements: import (load_loopnest), then workload_summary")
    print(f"{'n':>6} {'import':>9} {'ratio':>6} {'summary':>9} {'ratio':>6}")
    before: tuple[int, float, float] | None = None
    with tempfile.TemporaryDirectory() as folder:
        for n in [k for k in STATEMENT_COUNTS if k <= largest]:
            path = many_statements(Path(folder), n)
            start = time.perf_counter()
            workload = load_loopnest(path)
            loaded = time.perf_counter() - start
            summarized = float("nan")
            if summary:
                start = time.perf_counter()
                workload_summary(workload)
                summarized = time.perf_counter() - start
            ratios = ("", "")
            if before is not None:
                ratios = (f"{loaded / before[1]:.2f}", f"{summarized / before[2]:.2f}")
            print(f"{n:>6} {loaded:>8.2f}s {ratios[0]:>6} {summarized:>8.2f}s {ratios[1]:>6}")
            before = (n, loaded, summarized)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per case, best kept")
    parser.add_argument("--scale", type=int, default=64, help="factor on every parameter")
    parser.add_argument(
        "--statements", action="store_true", help="time one loop of 250 ... 10,000 statements"
    )
    parser.add_argument("--max", type=int, default=10000, help="largest statement count")
    parser.add_argument(
        "--no-summary", action="store_true", help="with --statements: time the import only"
    )
    args = parser.parse_args()
    if args.statements:
        return statements_scaling(args.max, not args.no_summary)
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
