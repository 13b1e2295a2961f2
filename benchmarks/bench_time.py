"""Time the schedule-time numbers (docs/metrics.md, "Schedule time").

Two targets: over TENET's experiment presets, `analyze` with the per-step numbers takes at
most 1.5x the time of `analyze` without them (summed over the presets); and
`analyze --profile` of a 1024^3 GEMM takes at most 2 s.

    python benchmarks/bench_time.py [--repeat N] [--tenet-data DIR]
"""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path

from bench_analyze import best_of

from tenet import analyze, load_arch, load_dataflow, load_experiment, load_workload
from tenet.report.tables import render

ROOT = Path(__file__).resolve().parent.parent


def experiments(data: Path) -> list[Path]:
    return sorted(
        data.glob("*/experiment/experiment_*"),
        key=lambda p: (p.parent.parent.name, int(p.name.split("_")[1])),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tenet-data", type=Path, default=ROOT.parent / "shared" / "tenet-data")
    args = parser.parse_args()

    if args.tenet_data.is_dir():
        print(f"{'TENET experiment':48} {'without s':>10} {'with s':>10} {'ratio':>7} {'enum':>6}")
        without_total = with_total = 0.0
        for exp in experiments(args.tenet_data):
            inputs = load_experiment(exp, args.tenet_data)
            t_without = best_of(args.repeat, lambda inputs=inputs: analyze(*inputs, per_step=False))
            t_with = best_of(args.repeat, lambda inputs=inputs: analyze(*inputs))
            counted = analyze(*inputs).step_counts
            without_total += t_without
            with_total += t_with
            name = str(exp.relative_to(args.tenet_data))
            print(
                f"{name:48} {t_without:10.3f} {t_with:10.3f} {t_with / t_without:7.2f} "
                f"{counted.enumerated_points:6}"
            )
        print(
            f"total: without {without_total:.3f} s, with {with_total:.3f} s, ratio "
            f"{with_total / without_total:.2f}x (target <= 1.5x)"
        )
    else:
        print(f"(no TENET data at {args.tenet_data}; skipping the experiment presets)")

    workload = load_workload(
        ROOT / "workloads" / "gemm" / "workload.yaml", {"M": 1024, "N": 1024, "K": 1024}
    )
    sets = ["--set", "M=1024", "--set", "N=1024", "--set", "K=1024"]
    for arch_name, flow in (
        ("systolic-8x8", "os-systolic-8x8"),
        ("systolic-8x8", "ws-systolic-8x8"),
        ("multicast-8x8", "os-multicast-8x8"),
    ):
        arch = load_arch(ROOT / "archs" / f"{arch_name}.yaml")
        dataflow = load_dataflow(ROOT / "workloads" / "gemm" / "dataflows" / f"{flow}.yaml")

        def run(arch=arch, dataflow=dataflow) -> None:
            render([analyze(workload, arch, dataflow, profile=True).to_dict()], "table")

        seconds = best_of(args.repeat, run)
        command = ["tenet", "analyze", "-w", "gemm", "-a", arch_name, "-d", flow, *sets]
        cli = best_of(
            args.repeat,
            lambda command=command: subprocess.run(
                [*command, "--profile"], check=True, capture_output=True
            ),
        )
        print(
            f"1024^3 GEMM {flow} on {arch_name}, --profile: {seconds:.3f} s in process, "
            f"{cli:.3f} s as a command (target <= 2 s)"
        )


if __name__ == "__main__":
    main()
