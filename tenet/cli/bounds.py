"""`tenet bounds`: the Orojenesis ski slope of one einsum on the Snowcat architecture."""

from __future__ import annotations

import argparse

from tenet.cli.common import (
    add_function_argument,
    add_output,
    add_set_argument,
    color_for,
    emit,
    parse_assignments,
    parse_sets,
)
from tenet.errors import InputError

EXAMPLE = "example: tenet bounds -w gemm-4k --at 64KiB --at 1MiB"


def add_parser(sub) -> None:
    p = sub.add_parser(
        "bounds",
        help="Orojenesis ski slope on the Snowcat architecture: the least traffic over Snowcat "
        "mappings per buffer size, OI and performance mesas",
        description="Search the Snowcat mapping space of one einsum on one PE with a buffer and "
        "a backing store: one tile per tensor, all tiles held at one buffer level, perfect "
        "factors (tile sizes divide the rank sizes), every order of the outer loops and, with "
        "--bypass, a keep/bypass choice per tensor. Report the least backing-store traffic over "
        "Snowcat mappings at each buffer size (the Snowcat front). Each point is reached by a "
        "real Snowcat schedule, so it is an upper bound on the least traffic possible, not a "
        "lower bound: schedules outside this space (per-tensor tile placement, imperfect tiles) "
        "can move less (docs/bounds.md).",
        epilog=EXAMPLE,
    )
    group = p.add_argument_group("the einsum (either)")
    group.add_argument("--einsum", metavar="TEXT", help='e.g. "O[m,n] += A[m,k] * W[k,n]"')
    group.add_argument("--shape", metavar="r=N,...", help="rank sizes, e.g. m=4096,k=4096,n=4096")
    group.add_argument(
        "-w", "--workload", metavar="FILE", help="workload YAML or preset (one statement)"
    )
    add_set_argument(group)
    add_function_argument(group)
    group = p.add_argument_group("search and lookups")
    group.add_argument(
        "--bypass",
        action="store_true",
        help="add keeping or bypassing each tensor to the Snowcat mapping space",
    )
    group.add_argument(
        "--at",
        action="append",
        default=[],
        metavar="SIZE",
        help="the Snowcat front at a buffer size: words, or bytes with a unit (64KiB, 1MiB, 16MB)",
    )
    group.add_argument(
        "--word-bits", type=int, default=None, help="bits per word (default: the arch's, else 16)"
    )
    group.add_argument(
        "-a",
        "--arch",
        metavar="FILE",
        help="arch with memory 'levels': Snowcat front and time between each pair of levels",
    )
    group = p.add_argument_group("performance mesa and area split")
    group.add_argument("--macs-per-cycle", type=float, help="peak MACs per cycle")
    group.add_argument("--bandwidth-gbps", type=float, help="backing-store bandwidth in GB/s")
    group.add_argument("--clock-ghz", type=float, default=1.0, help="clock in GHz (default 1)")
    group.add_argument("--area-mm2", type=float, help="chip area to split between buffer and MACs")
    group.add_argument("--mac-area-um2", type=float, help="area of one MAC in um^2")
    group.add_argument("--byte-area-um2", type=float, help="area of one buffer byte in um^2")
    add_output(p)
    p.add_argument(
        "--plot",
        metavar="FILE.png",
        help="draw the ski slope (FILE.png), OI mesa (FILE-oi.png), performance mesa (FILE-perf.png)",
    )


def parse_shape(text: str) -> dict[str, int]:
    """`--shape m=4096,k=4096,n=4096` as a dict of integers."""
    return parse_assignments(text.split(","), "--shape")


def bound_problem(args: argparse.Namespace):
    from tenet.bounds.snowcat import problem_from_einsum, problem_from_workload
    from tenet.formats.presets import resolve_workload
    from tenet.formats.workloads import load_any_workload

    if args.einsum and args.workload:
        raise InputError("give either --einsum with --shape, or -w, not both", "--einsum")
    if args.einsum:
        if not args.shape:
            raise InputError("--einsum needs --shape r=N,...", "--shape")
        return problem_from_einsum(args.einsum, parse_shape(args.shape))
    if not args.workload:
        raise InputError("give --einsum TEXT --shape r=N,... or -w FILE")
    return problem_from_workload(
        load_any_workload(resolve_workload(args.workload), parse_sets(args.set), args.function)
    )


def run(args: argparse.Namespace) -> int:
    from tenet.bounds.snowcat import bounds_report, evaluate, hierarchy_report
    from tenet.formats.presets import resolve_arch
    from tenet.model.arch import load_arch
    from tenet.report.plots import bound_plots
    from tenet.report.progress import progress_bar
    from tenet.report.serial import to_csv, to_json
    from tenet.report.tables import bounds_tables, render_tables

    arch = load_arch(resolve_arch(args.arch)) if args.arch else None
    if arch is not None and not arch.levels:
        raise InputError("the arch has no 'levels' (a memory hierarchy)", arch.source, "levels")
    if args.word_bits is None:
        args.word_bits = arch.memory.word_bits if arch else 16
    if args.word_bits < 1:
        raise InputError(f"must be positive, got {args.word_bits}", "--word-bits")
    problem = bound_problem(args)
    with progress_bar("searching the mapspace") as tick:
        result = evaluate(problem, args.bypass, tick)
    report = bounds_report(
        result,
        args.word_bits,
        args.at,
        args.macs_per_cycle,
        args.bandwidth_gbps,
        args.clock_ghz,
        args.area_mm2,
        args.mac_area_um2,
        args.byte_area_um2,
    )
    if arch is not None:
        report["hierarchy"] = hierarchy_report(
            report["pareto"],
            arch.levels,
            args.word_bits,
            problem.macs,
            args.macs_per_cycle,
            args.clock_ghz,
        )
    if args.plot:
        bound_plots(report, args.plot, problem.is_matrix_product())
    if args.format == "json":
        emit(to_json(report) + "\n", args.output)
    elif args.format == "csv":
        emit(
            to_csv([{k: v for k, v in p.items() if k != "tiles"} for p in report["pareto"]]),
            args.output,
        )
    else:
        emit(render_tables(bounds_tables(report), color_for(args)), args.output)
    return 0
