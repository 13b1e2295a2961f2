"""Time `analyze` on TENET's 27 experiments and on GEMM from 64^3 to 16384^3.

Prints seconds per case, the ratio to a plain transcription of TENET's formulas onto
islpy (the same counts, no simplification, relations rebuilt per tensor as TENET
does), and the 16384^3 / 64^3 ratio (target: time flat in problem size, <= 1.5x).

    python benchmarks/bench_analyze.py [--repeat N] [--tenet-data DIR]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from tenet import analyze, load_arch, load_dataflow, load_experiment, load_workload
from tenet.util.isl_util import count

ROOT = Path(__file__).resolve().parent.parent


def best_of(repeat: int, fn) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def transcription(workload, arch, dataflow) -> dict:
    """TENET's formulas written straight onto islpy (total, unique, temporal and spatial
    volumes, instances, PEs, time steps), relations rebuilt per tensor as TENET does."""
    dom = workload.domain
    space = dataflow.space.intersect_domain(dom)
    time_map = dataflow.time.intersect_domain(dom)
    stamp = space.range_product(time_map)
    links = arch.links[0].relation
    for link in arch.links[1:]:
        links = links.union(link.relation)
    out = {
        "instances": count(dom),
        "pes": count(dom.apply(space)),
        "steps": count(dom.apply(time_map)),
        "stamps": count(dom.apply(stamp)),
    }
    for side, accesses in workload.accesses.items():
        for tensor, access in accesses.items():
            t_used = dom.apply(time_map)
            p_used = dom.apply(space)
            prev = t_used.lex_gt_union_set(t_used).lexmax()
            t_near = prev.union(t_used.identity())
            s_near = p_used.identity().apply_range(links.union(arch.pe_domain.identity()))
            reuse = s_near.product(t_near).subtract(dom.apply(stamp).identity())
            temporal = p_used.identity().product(prev)
            spatial = (
                p_used.identity()
                .apply_range(links)
                .subtract(arch.pe_domain.identity())
                .product(t_near)
            )
            assignment = stamp.reverse().apply_range(access)
            out[(tensor, side)] = (
                count(access),
                count(assignment.subtract(reuse.apply_range(assignment))),
                count(assignment.subtract(temporal.apply_range(assignment))),
                count(assignment.intersect(spatial.apply_range(assignment))),
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tenet-data", type=Path, default=ROOT.parent / "shared" / "tenet-data")
    args = parser.parse_args()

    if args.tenet_data.is_dir():
        print(f"{'TENET experiment':48} {'analyze s':>10} {'plain s':>10} {'ratio':>7}")
        ours, plain = [], []
        experiments = sorted(
            args.tenet_data.glob("*/experiment/experiment_*"),
            key=lambda p: (p.parent.parent.name, int(p.name.split("_")[1])),
        )
        for exp in experiments:
            inputs = load_experiment(exp, args.tenet_data)
            t_ours = best_of(args.repeat, lambda inputs=inputs: analyze(*inputs))
            t_plain = best_of(args.repeat, lambda inputs=inputs: transcription(*inputs))
            ours.append(t_ours)
            plain.append(t_plain)
            name = str(exp.relative_to(args.tenet_data))
            print(f"{name:48} {t_ours:10.3f} {t_plain:10.3f} {t_plain / t_ours:7.2f}")
        speedup = statistics.median(p / o for p, o in zip(plain, ours))
        print(
            f"slowest {max(ours):.3f} s; total {sum(ours):.3f} s (plain {sum(plain):.3f} s); "
            f"median plain/analyze {speedup:.2f}x"
        )
    else:
        print(f"(no TENET data at {args.tenet_data}; skipping the 27 experiments)")

    print(f"\n{'GEMM (output-stationary, 8x8 systolic)':40} {'analyze s':>10}")
    arch = load_arch(ROOT / "archs" / "systolic-8x8.yaml")
    dataflow = load_dataflow(ROOT / "workloads" / "gemm" / "dataflows" / "os-systolic-8x8.yaml")
    timings = {}
    for size in (64, 256, 1024, 4096, 8192, 16384):
        workload = load_workload(
            ROOT / "workloads" / "gemm" / "workload.yaml", {"M": size, "N": size, "K": size}
        )
        timings[size] = best_of(
            args.repeat, lambda workload=workload: analyze(workload, arch, dataflow)
        )
        print(f"{f'{size}^3':40} {timings[size]:10.3f}")
    print(f"16384^3 / 64^3 time ratio: {timings[16384] / timings[64]:.2f} (target <= 1.5)")


if __name__ == "__main__":
    main()
