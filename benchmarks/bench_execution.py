"""Wall time of `run_tasks` with 1 and 2 workers, on a process pool and on a Dask cluster.

The tasks are `analyze` of every preset dataflow at its preset size (each on the array its
name's suffix implies), repeated `--rounds` times. Prints seconds and the 2-worker speed-up
(target: near-linear, i.e. close to 2x on a machine with 2 idle cores).

    python benchmarks/bench_execution.py [--rounds N] [--no-dask]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from tenet import analyze, load_arch, load_dataflow, load_workload
from tenet.execution import run_pool, run_tasks

ROOT = Path(__file__).resolve().parent.parent
WORKLOADS = ROOT / "workloads"

#: The arch each preset dataflow runs on, by the suffix of its name.
ARCH_OF_SUFFIX = {
    "8x8": "systolic-8x8",
    "64": "chain-64",
    "256": "chain-256",
    "16x16": "systolic-16x16",
    "12x14": "eyeriss-12x14",
}


def analyze_preset(case: tuple[str, str, str]) -> dict:
    """`analyze` of one (workload, dataflow file, arch) preset triple, as JSON."""
    workload, flow, arch = case
    return analyze(
        load_workload(WORKLOADS / workload / "workload.yaml"),
        load_arch(ROOT / "archs" / f"{arch}.yaml"),
        load_dataflow(WORKLOADS / workload / "dataflows" / f"{flow}.yaml"),
    ).to_dict()


def preset_tasks(rounds: int) -> list[tuple[str, tuple[str, str, str]]]:
    """One task per preset dataflow and round, keyed `round/workload/dataflow`."""
    cases = []
    for flow in sorted(WORKLOADS.glob("*/dataflows/*.yaml")):
        arch = ARCH_OF_SUFFIX.get(flow.stem.rsplit("-", 1)[-1])
        if arch:
            cases.append((flow.parent.parent.name, flow.stem, arch))
    return [(f"{r}/{w}/{f}", (w, f, a)) for r in range(rounds) for w, f, a in cases]


def best_of(repeat: int, run) -> tuple[float, dict]:
    """The least wall time of `repeat` runs, and the last run's result."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return min(times), result


def pool_of(workers: int, tasks) -> dict:
    """The tasks on a pool of exactly `workers` processes (1 included, unlike `jobs=1`)."""
    results: dict = {}
    run_pool(analyze_preset, tasks, workers, results.__setitem__)
    return {key: results[key] for key, _ in tasks}


def on_dask(workers: int, tasks, repeat: int) -> tuple[float, dict]:
    """Best wall time of the tasks on a loopback Dask cluster of `workers` one-thread
    processes, started beforehand (its start-up is not timed) and warmed up."""
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",  # keep its HTTP server local and off port 8787
    ) as cluster:
        address = cluster.scheduler_address
        run_tasks(analyze_preset, tasks[:workers], scheduler=address)
        return best_of(repeat, lambda: run_tasks(analyze_preset, tasks, scheduler=address))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="repeat the preset list (default 3)")
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs (default 3)")
    parser.add_argument("--no-dask", action="store_true", help="skip the Dask cluster runs")
    args = parser.parse_args()
    tasks = preset_tasks(args.rounds)
    print(
        f"{len(tasks)} analyze tasks ({args.rounds} rounds of the preset dataflows), "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} before the runs; "
        f"best of {args.repeat}\n"
    )
    print(f"{'run':46} {'seconds':>8}")
    inline_s, inline = best_of(args.repeat, lambda: run_tasks(analyze_preset, tasks))
    print(f"{'inline (jobs=1)':46} {inline_s:8.2f}")
    pool = []
    for workers in (1, 2):
        seconds, result = best_of(args.repeat, lambda w=workers: pool_of(w, tasks))
        assert result == inline, "the pool disagrees with the inline run"
        print(f"{f'process pool, {workers} worker(s), start-up included':46} {seconds:8.2f}")
        pool.append(seconds)
    dask: list[float] = []
    if not args.no_dask:
        try:
            import distributed  # noqa: F401
        except ImportError:
            print("Dask is not installed (pip install 'tenet-dataflow[dask]'): skipped")
        else:
            for workers in (1, 2):
                seconds, result = on_dask(workers, tasks, args.repeat)
                assert result == inline, "the Dask cluster disagrees with the inline run"
                print(f"{f'Dask cluster, {workers} worker(s)':46} {seconds:8.2f}")
                dask.append(seconds)
    print(f"\nspeed-up 1 -> 2 workers: pool {pool[0] / pool[1]:.2f}x", end="")
    print(f", Dask {dask[0] / dask[1]:.2f}x" if dask else "", end="")
    print(f"; jobs=2 vs inline {inline_s / pool[1]:.2f}x (target: near 2x on 2 idle cores)")


if __name__ == "__main__":
    main()
