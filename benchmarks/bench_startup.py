"""Start-up and small-case cost of the `tenet` command, as a user meets it.

* `tenet --version` and `tenet --help` against `python -c "import islpy"` (target: no slower);
* a small `tenet analyze --tenet S.s P.p M.m` against a plain islpy script that reads the same
  files and counts the same sets (benchmarks/plain_islpy_counts.py; target: at most 1.3x).

Each command runs as a fresh process; the figure is the median wall time of --repeat runs.

    python benchmarks/bench_startup.py [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "tenet"
SMALL_CASE = [
    str(EXAMPLES / "statement" / "matmul.s"),
    str(EXAMPLES / "pe_array" / "systolic.p"),
    str(EXAMPLES / "mapping" / "matmul_systolic_os.m"),
]


def wall(argv: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    py = sys.executable
    islpy = wall([py, "-c", "import islpy"], args.repeat)
    version = wall([py, "-m", "tenet", "--version"], args.repeat)
    helps = wall([py, "-m", "tenet", "--help"], args.repeat)
    print(f"python -c 'import islpy'     {islpy:7.3f} s")
    print(f"tenet --version              {version:7.3f} s  ({version / islpy:.2f}x; target <= 1x)")
    print(f"tenet --help                 {helps:7.3f} s  ({helps / islpy:.2f}x)")
    if not all(Path(p).is_file() for p in SMALL_CASE):
        print(f"(no TENET example files under {EXAMPLES}; skipping the small case)")
        return
    plain = wall([py, str(ROOT / "benchmarks" / "plain_islpy_counts.py"), *SMALL_CASE], args.repeat)
    ours = wall(
        [py, "-m", "tenet", "analyze", "--tenet", *SMALL_CASE, "--format", "json"], args.repeat
    )
    print(f"plain islpy counts (GEMM OS)  {plain:7.3f} s")
    print(f"tenet analyze --tenet         {ours:7.3f} s  ({ours / plain:.2f}x; target <= 1.3x)")


if __name__ == "__main__":
    main()
