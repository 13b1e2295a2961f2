"""`tenet validate`: is a dataflow legal? Counterexamples from isl."""

from __future__ import annotations

import argparse

from tenet.cli.common import add_inputs, add_output, add_silence_argument, emit, load_inputs

EXAMPLE = "example: tenet validate -w gemm -a systolic-8x8 -d os-systolic-8x8"


def add_parser(sub) -> None:
    p = sub.add_parser(
        "validate",
        help="is a dataflow legal? counterexamples from isl",
        description="Check that every instance has one space and one time stamp, stays inside the "
        "PE array, that no PE runs more than macs_per_pe instances in one step, and that every flow "
        "dependence of the workload runs forward in time. Exit 0 legal, 3 illegal, 2 bad input.",
        epilog=EXAMPLE,
    )
    add_inputs(p)
    p.add_argument(
        "--strict-reductions",
        action="store_true",
        help="also keep the order of accumulations into one output element",
    )
    add_output(p, ("table", "json"))
    add_silence_argument(p)


def run(args: argparse.Namespace) -> int:
    from tenet.analysis.validate import validate
    from tenet.report.serial import to_json
    from tenet.report.tables import validation_text

    workload, arch, dataflow = load_inputs(args)
    result = validate(workload, arch, dataflow, args.strict_reductions)
    text = to_json(result.to_dict()) + "\n" if args.format == "json" else validation_text(result)
    emit(text, args.output)
    return 0 if result.legal else 3
