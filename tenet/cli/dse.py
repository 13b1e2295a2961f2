"""`tenet dse`: enumerate dataflows, keep the legal distinct ones, report the Pareto front."""

from __future__ import annotations

import argparse
import sys

from tenet.cli.common import (
    OPTION_FLAGS,
    add_cost_arguments,
    add_execution_arguments,
    add_function_argument,
    add_max_isl_ops,
    add_output,
    add_set_argument,
    add_silence_argument,
    check_output,
    color_for,
    emit,
    execution_options,
    network_files,
    parameters_as_flags,
    parse_sets,
    with_cost_flags,
)
from tenet.errors import InputError
from tenet.explore.objectives import (
    COST_DEFAULT_OBJECTIVES,
    DEFAULT_OBJECTIVES,
    objective_help,
    parse_objectives,
)

EXAMPLE = "example: tenet dse -w gemm -a systolic-4x4 --set M=16 --set N=16 --set K=16"

#: The flag of each library parameter an error may name.
FLAGS = {
    "objectives": "--objectives",
    "limit": "--limit",
    "directory": "--emit",
    "time_limit": "--time-limit",
}


def add_parser(sub) -> None:
    """`tenet dse`: enumerate dataflows, keep the legal distinct ones, report the Pareto front."""
    p = sub.add_parser(
        "dse",
        help="design-space exploration: the Pareto front of dataflows for a workload on an array",
        description="Enumerate dataflows of a one-statement workload on a PE array (a loop per "
        "PE axis as loop % size, the tile loops and the other loops in every time order, "
        "optional systolic skews matching the links), drop illegal and equivalent ones, count "
        "the objectives of the rest exactly (skipping those whose lower bounds already lose "
        "to a counted dataflow) and report the Pareto front of the objectives (all minimised "
        "except utilization and active_pes), each member with every metric of analyze.",
        epilog=EXAMPLE,
    )
    group = p.add_argument_group("inputs (YAML files or preset names)")
    group.add_argument("-w", "--workload", metavar="FILE", help="workload YAML or preset")
    group.add_argument(
        "-n",
        "--network",
        metavar="NETWORK",
        help="a whole network instead of -w (preset, network YAML or ONNX): a front per distinct "
        "layer and the network front, one dataflow per layer (additive objectives only)",
    )
    group.add_argument("-a", "--arch", metavar="FILE", help="architecture YAML or preset")
    add_set_argument(group)
    add_function_argument(group)
    group = p.add_argument_group("search")
    group.add_argument(
        "--objectives",
        metavar="NAME,NAME,...",
        help=f"objectives of the front (default, cost first: {','.join(COST_DEFAULT_OBJECTIVES)} "
        "when the arch prices its components (its components or technology, or --technology/"
        f"--components), else {','.join(DEFAULT_OBJECTIVES)}): "
        + objective_help().replace("%", "%%"),
    )
    group.add_argument("--no-skew", action="store_true", help="no systolic skews")
    group.add_argument(
        "--interleave",
        action="store_true",
        help="also put temporal loops outside the tile loops (every time order)",
    )
    group.add_argument(
        "--limit", type=int, metavar="N", help="evaluate N distinct dataflows sampled at random"
    )
    group.add_argument(
        "--seed", type=int, default=0, metavar="S", help="seed of the --limit sample (default 0)"
    )
    group.add_argument(
        "--ties",
        action="store_true",
        help="keep every dataflow with the same objective values as a front member",
    )
    add_max_isl_ops(group, "isl operations limit per analysis (a dataflow over it is skipped)")
    add_time_limit(group)
    group.add_argument(
        "--tile-sizes",
        action="store_true",
        help="search the GLB's tile extents too, with the outer order and the innermost loop "
        "(a 2-D systolic array with levels [GLB, DRAM]; objectives energy_pj, dram, "
        "time_steps, latency; default energy_pj), ranked by closed forms; the front is "
        "counted again by analyze",
    )
    group.add_argument(
        "--imperfect",
        action="store_true",
        help="with --tile-sizes: also tile extents that leave a shorter last tile",
    )
    add_cost_arguments(p)
    add_silence_argument(p)
    group = add_output(p, ("table", "json"))
    group.add_argument(
        "--emit", metavar="DIR", help="write the front as dataflow YAML files DIR/dse-001.yaml, ..."
    )
    add_execution_arguments(p)


def add_time_limit(group) -> None:
    """`--time-limit S`: stop the search after S seconds, keeping what it counted."""
    group.add_argument(
        "--time-limit",
        type=float,
        metavar="S",
        help="stop the search after S seconds and report the front of the candidates counted "
        "so far, marked incomplete (Ctrl-C does the same, with exit code 130)",
    )


def run(args: argparse.Namespace) -> int:
    from tenet.explore.dse import INTERRUPT, explore, write_dataflows
    from tenet.formats.presets import resolve_arch, resolve_workload
    from tenet.formats.workloads import load_any_workload
    from tenet.model.arch import load_arch
    from tenet.report.progress import progress_bar

    if args.workload and args.network:
        raise InputError("give either -w/--workload or -n/--network, not both")
    for flag, value in (("-w/--workload", args.workload or args.network), ("-a/--arch", args.arch)):
        if not value:
            raise InputError(f"missing {flag}")
    objectives = None  # cost first: the default depends on the arch (default_objectives)
    if args.objectives is not None:
        with parameters_as_flags(FLAGS):
            objectives = parse_objectives(args.objectives)
    options = {
        "skew": not args.no_skew,
        "limit": args.limit,
        "seed": args.seed,
        "interleave": args.interleave,
        "keep_ties": args.ties,
        "max_operations": args.max_isl_ops,
        **execution_options(args),
    }
    if options["scheduler"] is not None:  # an unreachable cluster fails before the search starts
        from tenet.execution import probe_scheduler

        probe_scheduler(options["scheduler"])
    check_tile_size_flags(args)
    if args.network:
        if args.time_limit is not None:
            raise InputError("applies to one workload (-w), not to -n", "--time-limit")
        return run_dse_network(args, objectives, options)
    options.update(time_limit_s=args.time_limit, stop_on_interrupt=True)
    workload = load_any_workload(
        resolve_workload(args.workload), parse_sets(args.set), args.function
    )
    arch = with_cost_flags(load_arch(resolve_arch(args.arch)), args)
    if args.tile_sizes:
        return run_tile_sizes(args, workload, arch, objectives, options["jobs"])
    with parameters_as_flags(FLAGS):
        with progress_bar("exploring dataflows") as tick:
            report = explore(workload, arch, objectives, progress=tick, **options)
        if args.emit:
            write_dataflows(report.pareto, args.emit)
    write_front(report, args)
    if report.stopped_by == INTERRUPT:
        print("tenet: interrupted: the front is that of the candidates counted", file=sys.stderr)
        return 130
    return 0


def check_tile_size_flags(args: argparse.Namespace) -> None:
    """`--imperfect` needs `--tile-sizes`; `--tile-sizes` takes one workload and none of the
    flags of the other space."""
    if args.imperfect and not args.tile_sizes:
        raise InputError("needs --tile-sizes", "--imperfect")
    if not args.tile_sizes:
        return
    others = {
        "-n/--network": args.network,
        "--no-skew": args.no_skew,
        "--interleave": args.interleave,
        "--ties": args.ties,
        "--scheduler": args.scheduler,
        "--journal": args.journal,
    }
    for flag, value in others.items():
        if value:
            raise InputError("does not apply with --tile-sizes", flag)


def run_tile_sizes(args: argparse.Namespace, workload, arch, objectives, jobs: int) -> int:
    """`dse --tile-sizes`: GLB tile extents in the search (`explore_tile_sizes`)."""
    from tenet.explore.dse import INTERRUPT, write_dataflows
    from tenet.explore.tile_sizes import explore_tile_sizes

    if objectives is None:
        objectives = ("energy_pj",) if arch.components is not None else ("dram", "latency")
    with parameters_as_flags(FLAGS):
        report = explore_tile_sizes(
            workload,
            arch,
            objectives,
            jobs=jobs,
            imperfect=args.imperfect,
            limit=args.limit,
            time_limit=args.time_limit,
            stop_on_interrupt=True,
        )
        if args.emit:
            write_dataflows(report.pareto, args.emit)
    write_front(report, args)
    if report.stopped_by == INTERRUPT:
        print("tenet: interrupted: the front is that of the tile sizes visited", file=sys.stderr)
        return 130
    return 0


def write_front(report, args: argparse.Namespace) -> None:
    """The front as JSON (`--format json`) or as the table, to `-o` or stdout."""
    from tenet.report.dse import front_table
    from tenet.report.serial import to_json

    if args.format == "json":
        emit(to_json(report.to_dict()) + "\n", args.output)
    else:
        emit(front_table(report, color_for(args), flags=OPTION_FLAGS), args.output)


def run_dse_network(
    args: argparse.Namespace, objectives: tuple[str, ...] | None, options: dict
) -> int:
    """`dse -n NETWORK`: a front per distinct layer and the network front."""
    from tenet.explore.dse import explore_network, write_network_dataflows
    from tenet.explore.network import load_network
    from tenet.formats.presets import resolve_arch
    from tenet.model.arch import load_arch
    from tenet.report.dse import network_tables
    from tenet.report.progress import progress_bar
    from tenet.report.serial import to_json

    if args.set:
        raise InputError("does not apply to a network: put parameters in the network file", "--set")
    network = load_network(args.network)
    check_output(args, network_files(network, None))
    arch = with_cost_flags(load_arch(resolve_arch(args.arch)), args)
    with parameters_as_flags(FLAGS):
        with progress_bar("exploring dataflows per layer") as tick:
            report = explore_network(network, arch, objectives, progress=tick, **options)
        if args.emit:
            write_network_dataflows(report, args.emit)
    if args.format == "json":
        emit(to_json(report.to_dict()) + "\n", args.output)
    else:
        emit(network_tables(report, color_for(args), OPTION_FLAGS), args.output)
    return 0
