"""`tenet compare`: one workload and dataflow on several archs or topologies, side by side."""

from __future__ import annotations

import argparse

from tenet.cli.analyze import add_tile_argument, tile_flags
from tenet.cli.common import (
    add_cost_arguments,
    add_function_argument,
    add_max_isl_ops,
    add_output,
    add_set_argument,
    color_for,
    emit,
    parse_sets,
    result_warnings,
    warnings_to_stderr,
)
from tenet.errors import InputError

EXAMPLE = (
    "example: tenet compare -w gemm -d os-multicast-8x8 -a systolic-8x8 -a multicast-8x8 "
    "-a mtia-8x8"
)


def add_parser(sub) -> None:
    from tenet.model.topology import TOPOLOGIES

    p = sub.add_parser(
        "compare",
        help="one workload + dataflow on several archs or topologies, side by side",
        description="Analyze one workload and dataflow on several archs (-a repeated) or on "
        "several interconnect topologies of one PE array (-a FILE --topologies a,b,...); "
        "the best value of each row is marked.",
        epilog=EXAMPLE,
    )
    group = p.add_argument_group("inputs")
    group.add_argument(
        "-w", "--workload", metavar="FILE", required=True, help="workload YAML or preset"
    )
    group.add_argument(
        "-d", "--dataflow", metavar="FILE", required=True, help="dataflow YAML or name"
    )
    group.add_argument(
        "-a",
        "--arch",
        metavar="FILE",
        action="append",
        default=[],
        help="architecture YAML or preset (repeat to compare several)",
    )
    group.add_argument(
        "--topologies",
        metavar="NAME,NAME,...",
        help="topology presets applied to the PE array of the one -a arch "
        f"(known: {', '.join(TOPOLOGIES)})",
    )
    add_set_argument(group)
    add_function_argument(group)
    add_max_isl_ops(p, "isl operations limit per analysis")
    add_cost_arguments(p)
    add_tile_argument(p)
    add_output(p)
    p.add_argument("--plot", metavar="FILE.png", help="also draw a grouped bar chart")


def compare_archs(args: argparse.Namespace) -> list:
    """The archs of `tenet compare`: several -a files, or topologies on one PE array."""
    from tenet.cli.common import with_cost_flags
    from tenet.formats.presets import resolve_arch
    from tenet.model.arch import load_arch, with_topology

    if not args.arch:
        raise InputError("give at least one -a/--arch")
    archs = [with_cost_flags(load_arch(resolve_arch(a)), args) for a in args.arch]
    if args.topologies:
        if len(archs) != 1:
            raise InputError(
                "--topologies applies to the PE array of exactly one -a arch", "--topologies"
            )
        names = [n.strip() for n in args.topologies.split(",") if n.strip()]
        if not names:
            raise InputError("expected a comma-separated list of topology names", "--topologies")
        return [with_topology(archs[0], name) for name in names]
    return archs


def run(args: argparse.Namespace) -> int:
    from tenet.formats.presets import resolve_dataflow, resolve_workload
    from tenet.formats.workloads import load_any_workload
    from tenet.model.dataflow import load_dataflow, with_tiles
    from tenet.model.metrics import analyze
    from tenet.report.plots import comparison_plot
    from tenet.report.tables import render_comparison

    workload_path = resolve_workload(args.workload)
    workload = load_any_workload(workload_path, parse_sets(args.set), args.function)
    dataflow = load_dataflow(resolve_dataflow(args.dataflow, workload_path))
    dataflow = with_tiles(dataflow, tile_flags(args.tile))
    archs = compare_archs(args)
    results = [analyze(workload, arch, dataflow, args.max_isl_ops).to_dict() for arch in archs]
    if args.plot:
        comparison_plot(workload.name, dataflow.name, results, args.plot)
    text = render_comparison(workload.name, dataflow.name, results, args.format, color_for(args))
    emit(text, args.output)
    warnings_to_stderr(result_warnings(results, "arch"), args)
    return 0
