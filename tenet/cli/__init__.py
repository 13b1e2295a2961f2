"""The `tenet` command line: a thin layer over the Python API."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from tenet import __version__
from tenet.analysis.simulate import DEFAULT_MAX_INSTANCES, simulate
from tenet.analysis.trace import activity_plot, trace
from tenet.analysis.validate import validate
from tenet.bounds.snowcat import (
    Problem,
    bound_at_capacity,
    bounds_report,
    evaluate,
    hierarchy_report,
    problem_from_einsum,
    problem_from_workload,
)
from tenet.cli.common import add_set_argument, emit, parse_assignments, parse_sets
from tenet.cli.fuse import add_fuse_parser, run_fuse
from tenet.errors import InputError, TenetError
from tenet.explore.dse import (
    DEFAULT_OBJECTIVES,
    explore,
    front_table,
    objective_help,
    parse_objectives,
)
from tenet.explore.dse import emit as emit_dataflows
from tenet.formats.presets import list_presets, resolve_arch, resolve_dataflow, resolve_workload
from tenet.formats.tenet_files import load_tenet
from tenet.model.arch import Arch, load_arch, with_topology
from tenet.model.dataflow import load_dataflow
from tenet.model.metrics import analyze
from tenet.model.topology import TOPOLOGIES
from tenet.model.workload import load_workload
from tenet.report.plots import bound_plots, comparison_plot
from tenet.report.progress import progress_bar
from tenet.report.tables import (
    FORMATS,
    bounds_tables,
    render,
    render_comparison,
    render_tables,
    to_csv,
    to_json,
    trace_table,
    validation_text,
)
from tenet.util.isl_util import DEFAULT_MAX_OPERATIONS


def _add_inputs(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("inputs (YAML files, or preset names: see 'tenet presets')")
    group.add_argument(
        "-w", "--workload", metavar="FILE", help="workload YAML, or a preset name (e.g. gemm)"
    )
    group.add_argument(
        "-a",
        "--arch",
        metavar="FILE",
        help="architecture YAML, or a preset name (e.g. systolic-8x8)",
    )
    group.add_argument(
        "-d",
        "--dataflow",
        metavar="FILE",
        help="dataflow YAML, a name beside the workload (e.g. os-systolic-8x8), or WORKLOAD/NAME",
    )
    add_set_argument(group)
    group.add_argument(
        "--tenet",
        nargs=3,
        metavar=("STATEMENT.s", "PE.p", "MAPPING.m"),
        help="read TENET's own text files instead of YAML",
    )


def _add_output(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("output")
    group.add_argument(
        "--format", choices=FORMATS, default="table", help="output format (default: table)"
    )
    group.add_argument(
        "-o", "--output", metavar="FILE", help="write the result to FILE instead of stdout"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tenet",
        description="Relation-centric modeling of tensor dataflows on spatial accelerators: "
        "exact data movement, reuse, latency, bandwidth and energy (isl + barvinok).",
    )
    parser.add_argument("--version", action="version", version=f"tenet {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser(
        "analyze",
        help="all metrics of one workload + arch + dataflow",
        description="Count every metric of semantics.md exactly with isl/barvinok.",
    )
    _add_inputs(p)
    p.add_argument(
        "-n",
        "--network",
        metavar="NAME|FILE",
        help="a whole network instead of -w: a preset (e.g. alexnet, see 'tenet presets'), a "
        "network YAML or an ONNX model; -d NAME[,NAME...] applies to every layer (the first "
        "name its workload has); per-layer rows and totals (docs/networks.md)",
    )
    p.add_argument(
        "--max-isl-ops",
        type=int,
        default=DEFAULT_MAX_OPERATIONS,
        metavar="N",
        help=f"isl operations limit against blow-ups, 0 = none (default {DEFAULT_MAX_OPERATIONS:,})",
    )
    p.add_argument(
        "--bound",
        action="store_true",
        help="compare the dataflow's traffic with the least traffic over Snowcat mappings (one "
        "tile per tensor at one buffer level, perfect factors) at the array's on-chip capacity "
        "(pe_count x l1_words + l2_words); other schedules may move less, so this is no "
        "optimality gap",
    )
    p.add_argument(
        "--symbolic",
        action="store_true",
        help="each metric as a closed form in the workload parameters not fixed by --set "
        "(docs/symbolic.md)",
    )
    p.add_argument(
        "--family",
        metavar="P,Q,...",
        help="with -n and --symbolic: the parameters left symbolic; layers that share a "
        "workload, dataflow and every other parameter are counted once and evaluated per layer",
    )
    _add_output(p)
    from tenet.execution import add_execution_arguments

    add_execution_arguments(p)  # used by -n/--network: one task per distinct layer

    p = sub.add_parser(
        "simulate",
        help="the same metrics by brute-force enumeration (small problems)",
        description="Enumerate every instance and compute the metrics of 'analyze' "
        "without barvinok: the reference the engine is tested against.",
    )
    _add_inputs(p)
    p.add_argument(
        "--max-instances",
        type=int,
        default=DEFAULT_MAX_INSTANCES,
        metavar="N",
        help=f"refuse problems with more instances (default {DEFAULT_MAX_INSTANCES:,})",
    )
    _add_output(p)

    p = sub.add_parser(
        "compare",
        help="one workload + dataflow on several archs or topologies, side by side",
        description="Analyze one workload and dataflow on several archs (-a repeated) or on "
        "several interconnect topologies of one PE array (-a FILE --topologies a,b,...); "
        "the best value of each row is marked.",
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
    p.add_argument(
        "--max-isl-ops",
        type=int,
        default=DEFAULT_MAX_OPERATIONS,
        metavar="N",
        help="isl operations limit per analysis, 0 = none",
    )
    _add_output(p)
    p.add_argument("--plot", metavar="FILE.png", help="also draw a grouped bar chart")

    p = sub.add_parser(
        "validate",
        help="is a dataflow legal? counterexamples from isl",
        description="Check that every instance has one space and one time stamp, stays inside the "
        "PE array, that no PE runs more than macs_per_pe instances in one step, and that every flow "
        "dependence of the workload runs forward in time. Exit 0 legal, 3 illegal, 2 bad input.",
    )
    _add_inputs(p)
    p.add_argument(
        "--strict-reductions",
        action="store_true",
        help="also keep the order of accumulations into one output element",
    )
    p.add_argument("--format", choices=("table", "json"), default="table", help="output format")
    p.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE")

    p = sub.add_parser(
        "trace",
        help="time steps x PEs: the elements of one tensor each PE touches (small problems)",
        description="Enumerate a small problem and print, for the first time steps and PEs, the "
        "elements of one tensor each PE touches; reused (not fetched) ones are marked with *.",
    )
    _add_inputs(p)
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
    p.add_argument("--format", choices=("table", "json"), default="table", help="output format")
    p.add_argument("-o", "--output", metavar="FILE", help="write the table to FILE")

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
    )
    group = p.add_argument_group("the einsum (either)")
    group.add_argument("--einsum", metavar="TEXT", help='e.g. "O[m,n] += A[m,k] * W[k,n]"')
    group.add_argument("--shape", metavar="r=N,...", help="rank sizes, e.g. m=4096,k=4096,n=4096")
    group.add_argument(
        "-w", "--workload", metavar="FILE", help="workload YAML or preset (one statement)"
    )
    add_set_argument(group)
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
    _add_output(p)
    p.add_argument(
        "--plot",
        metavar="FILE.png",
        help="draw the ski slope (FILE.png), OI mesa (FILE-oi.png), performance mesa (FILE-perf.png)",
    )

    add_fuse_parser(sub)
    add_dse_parser(sub)
    sub.add_parser("presets", help="list the preset archs, workloads and dataflows")
    return parser


def add_dse_parser(sub) -> None:
    """`tenet dse`: enumerate dataflows, keep the legal distinct ones, report the Pareto front."""
    from tenet.execution import add_execution_arguments

    p = sub.add_parser(
        "dse",
        help="design-space exploration: the Pareto front of dataflows for a workload on an array",
        description="Enumerate dataflows of a one-statement workload on a PE array (a loop per "
        "PE axis as loop % size, the tile loops and the other loops in every time order, "
        "optional systolic skews matching the links), drop illegal and equivalent ones, count "
        "every metric exactly and report the Pareto front of the objectives (all minimised "
        "except utilization and active_pes).",
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
    group = p.add_argument_group("search")
    group.add_argument(
        "--objectives",
        default=",".join(DEFAULT_OBJECTIVES),
        metavar="NAME,NAME,...",
        help=f"objectives of the front (default {','.join(DEFAULT_OBJECTIVES)}): "
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
    group.add_argument(
        "--max-isl-ops",
        type=int,
        default=DEFAULT_MAX_OPERATIONS,
        metavar="N",
        help="isl operations limit per analysis, 0 = none (a dataflow over it is skipped)",
    )
    group = p.add_argument_group("output")
    group.add_argument("--format", choices=("table", "json"), default="table", help="output format")
    group.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE")
    group.add_argument(
        "--emit", metavar="DIR", help="write the front as dataflow YAML files DIR/dse-001.yaml, ..."
    )
    add_execution_arguments(p)


def load_inputs(args: argparse.Namespace):
    """(workload, arch, dataflow) from --tenet files or from -w/-a/-d."""
    overrides = parse_sets(args.set)
    if args.tenet:
        if args.workload or args.arch or args.dataflow:
            raise InputError("give either --tenet or -w/-a/-d, not both", "--tenet")
        if overrides:
            raise InputError("TENET files have no parameters to set", "--set")
        return load_tenet(*args.tenet)
    for flag, value in (
        ("-w/--workload", args.workload),
        ("-a/--arch", args.arch),
        ("-d/--dataflow", args.dataflow),
    ):
        if not value:
            raise InputError(f"missing {flag} (or use --tenet STATEMENT.s PE.p MAPPING.m)")
    workload_path = resolve_workload(args.workload)
    workload = load_workload(workload_path, overrides)
    arch = load_arch(resolve_arch(args.arch))
    dataflow = load_dataflow(resolve_dataflow(args.dataflow, workload_path))
    return workload, arch, dataflow


def compare_archs(args: argparse.Namespace) -> list[Arch]:
    """The archs of `tenet compare`: several -a files, or topologies on one PE array."""
    if not args.arch:
        raise InputError("give at least one -a/--arch")
    archs = [load_arch(resolve_arch(a)) for a in args.arch]
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


def run_compare(args: argparse.Namespace) -> int:
    workload_path = resolve_workload(args.workload)
    workload = load_workload(workload_path, parse_sets(args.set))
    dataflow = load_dataflow(resolve_dataflow(args.dataflow, workload_path))
    archs = compare_archs(args)
    results = [analyze(workload, arch, dataflow, args.max_isl_ops).to_dict() for arch in archs]
    if args.plot:
        comparison_plot(workload.name, dataflow.name, results, args.plot)
    color = args.format == "table" and not args.output and sys.stdout.isatty()
    emit(render_comparison(workload.name, dataflow.name, results, args.format, color), args.output)
    return 0


def run_validate(args: argparse.Namespace) -> int:
    workload, arch, dataflow = load_inputs(args)
    result = validate(workload, arch, dataflow, args.strict_reductions).to_dict()
    text = to_json(result) + "\n" if args.format == "json" else validation_text(result)
    emit(text, args.output)
    return 0 if result["legal"] else 3


def run_trace(args: argparse.Namespace) -> int:
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
        color = not args.output and sys.stdout.isatty()
        emit(trace_table(result.to_dict(), title, color), args.output)
    return 0


def parse_shape(text: str) -> dict[str, int]:
    """`--shape m=4096,k=4096,n=4096` as a dict of integers."""
    return parse_assignments(text.split(","), "--shape")


def bound_problem(args: argparse.Namespace) -> Problem:
    if args.einsum and args.workload:
        raise InputError("give either --einsum with --shape, or -w, not both", "--einsum")
    if args.einsum:
        if not args.shape:
            raise InputError("--einsum needs --shape r=N,...", "--shape")
        return problem_from_einsum(args.einsum, parse_shape(args.shape))
    if not args.workload:
        raise InputError("give --einsum TEXT --shape r=N,... or -w FILE")
    return problem_from_workload(
        load_workload(resolve_workload(args.workload), parse_sets(args.set))
    )


def run_bounds(args: argparse.Namespace) -> int:
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
        color = not args.output and sys.stdout.isatty()
        emit(render_tables(bounds_tables(report), color), args.output)
    return 0


def run_dse(args: argparse.Namespace) -> int:
    from tenet.execution import execution_options

    if args.workload and args.network:
        raise InputError("give either -w/--workload or -n/--network, not both")
    for flag, value in (("-w/--workload", args.workload or args.network), ("-a/--arch", args.arch)):
        if not value:
            raise InputError(f"missing {flag}")
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
    if args.network:
        return run_dse_network(args, objectives, options)
    workload = load_workload(resolve_workload(args.workload), parse_sets(args.set))
    arch = load_arch(resolve_arch(args.arch))
    with progress_bar("exploring dataflows") as tick:
        report = explore(workload, arch, objectives, progress=tick, **options)
    if args.emit:
        emit_dataflows(report["pareto"], args.emit)
    if args.format == "json":
        emit(to_json(report) + "\n", args.output)
    else:
        emit(front_table(report, not args.output and sys.stdout.isatty()), args.output)
    return 0


def run_dse_network(args: argparse.Namespace, objectives: tuple[str, ...], options: dict) -> int:
    """`dse -n NETWORK`: a front per distinct layer and the network front."""
    from tenet.explore.dse import emit_network, explore_network, network_tables
    from tenet.explore.network import load_network

    if args.set:
        raise InputError("does not apply to a network: put parameters in the network file", "--set")
    network = load_network(args.network)
    arch = load_arch(resolve_arch(args.arch))
    with progress_bar("exploring dataflows per layer") as tick:
        report = explore_network(network, arch, objectives, progress=tick, **options)
    if args.emit:
        emit_network(report, args.emit)
    if args.format == "json":
        emit(to_json(report) + "\n", args.output)
    else:
        emit(network_tables(report, not args.output and sys.stdout.isatty()), args.output)
    return 0


def network_inputs(args: argparse.Namespace):
    """The network and arch of `analyze -n`, after rejecting options that do not apply."""
    from tenet.explore.network import load_network

    if args.workload or args.tenet:
        raise InputError("give either -n/--network or -w/--workload (or --tenet), not both")
    if args.set:
        raise InputError("does not apply to a network: put parameters in the network file", "--set")
    if args.bound:
        raise InputError("is not available with -n/--network", "--bound")
    if not args.arch:
        raise InputError("missing -a/--arch")
    return load_network(args.network), load_arch(resolve_arch(args.arch))


def run_network(args: argparse.Namespace) -> int:
    """`analyze -n NETWORK`: every layer on one arch, per-layer rows and network totals."""
    from tenet.execution import execution_options
    from tenet.explore.network import analyze_network, render_network

    network, arch = network_inputs(args)
    with progress_bar("analyzing layers") as tick:
        result = analyze_network(
            network, arch, args.dataflow, args.max_isl_ops, progress=tick, **execution_options(args)
        )
    color = args.format == "table" and not args.output and sys.stdout.isatty()
    emit(render_network(result, args.format, color), args.output)
    return 0


def run(args: argparse.Namespace) -> int:
    if args.command == "dse":
        return run_dse(args)
    if args.command == "bounds":
        return run_bounds(args)
    if args.command == "fuse":
        return run_fuse(args)
    if args.command == "compare":
        return run_compare(args)
    if args.command == "validate":
        return run_validate(args)
    if args.command == "trace":
        return run_trace(args)
    if args.command == "presets":
        presets = list_presets()
        lines = ["archs:"] + [f"  {a}" for a in presets["archs"]]
        lines += ["workloads (name: dataflows):"] + [f"  {w}" for w in presets["workloads"]]
        lines += ["networks:"] + [f"  {n}" for n in presets["networks"]]
        emit("\n".join(lines) + "\n", None)
        return 0
    if args.command == "analyze" and args.family and not (args.symbolic and args.network):
        raise InputError("goes with -n/--network and --symbolic", "--family")
    if args.command == "analyze" and args.symbolic:
        from tenet.analysis.symbolic import run_symbolic

        return run_symbolic(args)
    if args.command == "analyze" and args.network:
        return run_network(args)
    workload, arch, dataflow = load_inputs(args)
    if args.command == "analyze":
        result = analyze(workload, arch, dataflow, args.max_isl_ops).to_dict()
        if args.bound:
            result["bound"] = bound_at_capacity(workload, arch, result)
    else:
        result = simulate(workload, arch, dataflow, args.max_instances).to_dict()
    color = args.format == "table" and not args.output and sys.stdout.isatty()
    emit(render([result], args.format, color), args.output)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 0
    try:
        return run(args)
    except TenetError as exc:
        print(f"tenet: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:  # the reader went away (e.g. `| head`): not an error of ours
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        print("tenet: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug: one line unless TENET_DEBUG is set
        if os.environ.get("TENET_DEBUG"):
            raise
        print(
            f"tenet: internal error: {type(exc).__name__}: {exc} (set TENET_DEBUG=1 for a traceback)",
            file=sys.stderr,
        )
        return 1
