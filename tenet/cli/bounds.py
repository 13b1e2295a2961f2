"""`tenet bounds`: the Orojenesis ski slope of one einsum on the Snowcat architecture."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from tenet.cli.buffer_flags import (
    add_area_flags,
    add_compute_flags,
    add_lookup_flags,
    area_constants_of,
    at_sizes,
    bounds_flags,
    check_positive_flags,
    check_word_bits,
    load_study_arch,
)
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

if TYPE_CHECKING:
    from tenet.bounds.slope import BoundsOptions

EXAMPLE = "example: tenet bounds -w gemm-4k --space uneven --at 64KiB,1MiB"


def add_parser(sub) -> None:
    p = sub.add_parser(
        "bounds",
        help="Orojenesis ski slope: the least traffic over Snowcat mappings (or larger mapping "
        "spaces) per buffer size, a proven lower bound, OI and performance mesas",
        description="Search a mapping space of one einsum on one PE with a buffer and a backing "
        "store. By default, the Snowcat space of Orojenesis: one tile per tensor, all tiles held "
        "at one buffer level, perfect factors (tile sizes divide the rank sizes), every order of "
        "the outer loops and, with --bypass, a keep/bypass choice per tensor; the report is the "
        "least backing-store traffic over Snowcat mappings at each buffer size (the Snowcat "
        "front). --space uneven places each tensor's tile at its own position in a nest where a "
        "rank may be split into several loops; --imperfect lets tile sizes not divide the rank "
        "sizes (the last tile is partial). Each front point is reached by a real schedule of its "
        "space, so it is an upper bound on the least traffic possible, not a lower bound. Beside "
        "it stands lower_bound, a floor proven for every schedule with that buffer size, and the "
        "gap (front / lower bound); docs/bounds.md states the proof and its assumptions.",
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
        "--space",
        choices=("snowcat", "uneven"),
        default="snowcat",
        help="mapping space: snowcat (one buffer level for every tile; default) or uneven "
        "(each tensor's tile at its own position, ranks split into several loops)",
    )
    group.add_argument(
        "--imperfect",
        action="store_true",
        help="tile sizes need not divide the rank sizes (ceil(R/t) trips, last tile partial)",
    )
    group.add_argument(
        "--bypass",
        action="store_true",
        help="add keeping or bypassing each tensor to the mapping space",
    )
    group.add_argument(
        "--compare-spaces",
        action="store_true",
        help="search snowcat, snowcat imperfect, uneven and uneven imperfect and report (and "
        "with --plot draw) their fronts and the lower bound together",
    )
    add_lookup_flags(group, "the front, and the lower bound,", "the arch's")
    group = p.add_argument_group("performance mesa and area split")
    add_compute_flags(group)
    add_area_flags(group)
    add_output(p)
    p.add_argument(
        "--plot",
        metavar="FILE.png",
        help="draw the ski slope with the lower bound (FILE.png), OI mesa (FILE-oi.png), "
        "performance mesa (FILE-perf.png); with --compare-spaces one slope of every space",
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


def options_of(args: argparse.Namespace) -> tuple[BoundsOptions, object]:
    """The search options of the flags (checked), and the -a arch."""
    from tenet.bounds.slope import BoundsOptions

    check_positive_flags(args)
    arch = load_study_arch(args.arch)
    word_bits = args.word_bits
    if word_bits is None:
        word_bits = arch.memory.word_bits if arch else 16
    check_word_bits(word_bits)
    constants = area_constants_of(args, arch, word_bits)
    options = BoundsOptions(
        space=args.space,
        imperfect=args.imperfect,
        bypass=args.bypass,
        word_bits=word_bits,
        at=tuple(at_sizes(args.at)),
        macs_per_cycle=args.macs_per_cycle,
        bandwidth_gbps=args.bandwidth_gbps,
        clock_ghz=args.clock_ghz,
        area_mm2=args.area_mm2,
        area_constants=constants,
        levels=tuple(arch.levels) if arch is not None and arch.levels else (),
    )
    return options, arch


def run(args: argparse.Namespace) -> int:
    with bounds_flags():
        return run_bounds(args)


def run_bounds(args: argparse.Namespace) -> int:
    """`tenet bounds`: the front of one space, or every space (`--compare-spaces`)."""
    from tenet.bounds.slope import search_report
    from tenet.report.progress import progress_bar

    options, _arch = options_of(args)
    problem = bound_problem(args)
    if args.compare_spaces:
        return run_compare(args, problem, options)
    with progress_bar("searching the mapspace") as tick:
        report = search_report(problem, options, tick).to_dict()
    if args.plot:
        from tenet.bounds.slope import lower_bound_curve
        from tenet.report.plots import bound_plots

        front = report["pareto"]
        curve = lower_bound_curve(problem, front[0]["buffer"] or 1, 2 * front[-1]["buffer"])
        bound_plots(report, args.plot, curve)
    write_report(args, report, "bounds")
    return 0


def run_compare(args: argparse.Namespace, problem, options: BoundsOptions) -> int:
    """--compare-spaces: every space's front and the lower bound, side by side."""
    from tenet.bounds.slope import compare_report, compare_spaces, lower_bound_curve
    from tenet.report.progress import progress_bar

    for flag, given in (
        ("-a", args.arch),
        ("--macs-per-cycle", args.macs_per_cycle),
        ("--area-mm2", args.area_mm2),
    ):
        if given:
            raise InputError("does not combine with --compare-spaces", flag)
    with progress_bar("searching four mapping spaces") as tick:
        fronts = compare_spaces(problem, options.bypass, tick)
    report = compare_report(problem, fronts, options.word_bits, options.at)
    if args.plot:
        from tenet.report.plots import spaces_plot

        buffers = [p["buffer"] for s in report["spaces"].values() for p in s["pareto"]]
        curve = lower_bound_curve(problem, min(buffers) or 1, 2 * max(buffers))
        spaces_plot(report, args.plot, curve)
    write_report(args, report, "compare")
    return 0


def write_report(args: argparse.Namespace, report: dict, kind: str) -> None:
    """JSON, CSV (one row per front point) or tables."""
    from tenet.report.serial import to_csv, to_json

    if args.format == "json":
        emit(to_json(report) + "\n", args.output)
    elif args.format == "csv":
        emit(to_csv(csv_rows(report, kind)), args.output)
    else:
        from tenet.report.tables import bounds_tables, render_tables, spaces_tables

        tables = bounds_tables(report) if kind == "bounds" else spaces_tables(report)
        emit(render_tables(tables, color_for(args)), args.output)


def csv_rows(report: dict, kind: str) -> list[dict]:
    """One CSV row per front point; per-rank and per-tensor tables (tiles, loops, positions,
    tile words) stay in the JSON."""

    def flat(point: dict) -> dict:
        nested = ("tiles", "loops", "positions", "tile_words")
        return {k: v for k, v in point.items() if k not in nested}

    if kind == "bounds":
        return [flat(p) for p in report["pareto"]]
    return [{"front": name, **flat(p)} for name, s in report["spaces"].items() for p in s["pareto"]]
