"""`tenet trace`: time steps x PEs, the elements of one tensor each PE touches."""

from __future__ import annotations

import argparse

from tenet.cli.common import (
    OPTION_FLAGS,
    add_inputs,
    add_output,
    color_for,
    emit,
    load_inputs,
)
from tenet.errors import InputError

EXAMPLE = (
    "example: tenet trace -w gemm -a systolic-8x8 -d os-systolic-8x8 --set M=8 --set N=8 "
    "--set K=8 --tensor A --steps 8 --pes 8"
)


def add_parser(sub) -> None:
    p = sub.add_parser(
        "trace",
        help="time steps x PEs: the elements of one tensor each PE touches (small problems)",
        description="Enumerate a small problem and print, for the first time steps and PEs, the "
        "elements of one tensor each PE touches; reused (not fetched) ones are marked with *.",
        epilog=EXAMPLE,
    )
    add_inputs(p)
    p.add_argument("--tensor", required=True, help="tensor to show")
    p.add_argument("--side", choices=("read", "write"), help="access side (default: read if any)")
    p.add_argument("--steps", type=int, default=16, help="time steps to show (default 16)")
    p.add_argument("--pes", type=int, default=16, help="PEs to show (default 16)")
    p.add_argument(
        "--max-instances",
        type=int,
        default=100_000,
        metavar="N",
        help="refuse larger problems (default 100,000)",
    )
    p.add_argument("--plot", metavar="FILE.png", help="draw PE activity over time and utilization")
    add_output(p, ("table", "json"))


def run(args: argparse.Namespace) -> int:
    from tenet.analysis.trace import trace
    from tenet.report.plots import activity_plot
    from tenet.report.serial import to_json
    from tenet.report.tables import trace_table

    workload, arch, dataflow = load_inputs(args)
    for flag, value in (("--steps", args.steps), ("--pes", args.pes)):
        if value < 1:
            raise InputError(f"must be positive, got {value}", flag)
    result = trace(
        workload, arch, dataflow, args.tensor, args.side, args.steps, args.pes, args.max_instances
    )
    title = f"{workload.name} · {arch.name} · {dataflow.name}"
    if args.plot:
        activity_plot(result, args.plot, title)
    if args.format == "json":
        emit(to_json(result.to_dict()) + "\n", args.output)
    else:
        emit(trace_table(result, title, color_for(args), OPTION_FLAGS), args.output)
    return 0
