"""`tenet analyze`: every metric of one workload, arch and dataflow, counted exactly; or of
every layer of a network (-n); or as closed forms (--symbolic)."""

from __future__ import annotations

import argparse
import sys

from tenet.cli.common import (
    add_cost_arguments,
    add_execution_arguments,
    add_inputs,
    add_max_isl_ops,
    add_output,
    add_silence_argument,
    color_for,
    emit,
    execution_options,
    load_inputs,
    network_inputs,
    parameters_as_flags,
    parse_sets,
    render_results,
    result_warnings,
    tiles_as_flag,
    warnings_to_stderr,
)
from tenet.errors import InputError

EXAMPLE = "example: tenet analyze -w gemm -a systolic-8x8 -d os-systolic-8x8 --set M=1024"

#: The flag of each library parameter an error may name.
FLAGS = {"fixed": "--set", "family": "--family"}


def add_parser(sub) -> None:
    p = sub.add_parser(
        "analyze",
        help="all metrics of one workload + arch + dataflow",
        description="Count every metric (docs/metrics.md) exactly with isl/barvinok. "
        "'energy' is TENET's unitless model: MACs and L1/L2 accesses weighted by the arch's "
        "energy constants (no unit such as pJ).",
        epilog=EXAMPLE,
    )
    add_inputs(p)
    p.add_argument(
        "-n",
        "--network",
        metavar="NAME|FILE",
        help="a whole network instead of -w: a preset (e.g. alexnet, see 'tenet presets'), a "
        "network YAML or an ONNX model; -d NAME[,NAME...] applies to every layer (the first "
        "name its workload has); per-layer rows and totals (docs/networks.md)",
    )
    add_max_isl_ops(p)
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
    p.add_argument(
        "--profile",
        action="store_true",
        help="also the words read and written at each time step, piece by piece: each piece's "
        "time stamps, its formula in them, and its steps, busiest step and words "
        "(docs/metrics.md, schedule time)",
    )
    p.add_argument(
        "--verbose",
        action="store_true",
        help="say on stderr how the per-step numbers were counted: pieces, and how many were "
        "not quasi-affine and were sliced by enumerating time-coordinate values",
    )
    add_cost_arguments(p)
    add_silence_argument(p)
    add_tile_argument(p)
    add_output(p)
    add_execution_arguments(p)  # used by -n/--network: one task per distinct layer


def add_tile_argument(p) -> None:
    """--tile NAME=DEPTH (docs/levels.md)."""
    p.add_argument(
        "--tile",
        action="append",
        default=[],
        metavar="LEVEL=DEPTH[,...]",
        help="tile depth of a memory level of the arch (its 'levels:'): one tile per value of "
        "the first DEPTH time coordinates; overrides the dataflow's 'tiles:'; repeatable or "
        "comma-separated; adds the level's traffic to the level above (docs/levels.md)",
    )


def tile_flags(values: list[str]) -> dict[str, int]:
    """{LEVEL: DEPTH} from --tile values `LEVEL=DEPTH[,LEVEL=DEPTH...]`."""
    out: dict[str, int] = {}
    for value in values:
        for item in value.split(","):
            name, sep, depth = item.partition("=")
            name, depth = name.strip(), depth.strip()
            if not sep or not name or not depth.lstrip("-").isdigit():
                raise InputError(f"expected LEVEL=DEPTH (e.g. GLB=2), got {item!r}", "--tile")
            if name in out:
                raise InputError(f"level {name} is given twice; give each level once", "--tile")
            out[name] = int(depth)
    return out


def run(args: argparse.Namespace) -> int:
    from tenet.model.metrics import analyze

    if args.family and not (args.symbolic and args.network):
        raise InputError("goes with -n/--network and --symbolic", "--family")
    if args.profile and (args.symbolic or args.network):
        raise InputError("goes with one workload (-w), not with -n or --symbolic", "--profile")
    if args.tile and (args.symbolic or args.network):
        raise InputError("goes with one workload (-w), not with -n or --symbolic", "--tile")
    if args.symbolic:
        return run_symbolic(args)
    if args.network:
        return run_network(args)
    from tenet.model.dataflow import with_tiles

    workload, arch, dataflow = load_inputs(args)
    tiles = tile_flags(args.tile)
    dataflow = with_tiles(dataflow, tiles)
    with tiles_as_flag(tiles):
        analysis = analyze(workload, arch, dataflow, args.max_isl_ops, profile=args.profile)
    if args.verbose:
        sys.stderr.write(step_counting_note(analysis.step_counts) + "\n")
        if analysis.hierarchy is not None:
            sys.stderr.write(hierarchy_counting_note(analysis.hierarchy) + "\n")
    result = analysis
    if args.bound:
        from tenet.bounds.bounded_analysis import bounded_analysis

        result = bounded_analysis(workload, arch, analysis)
    emit(render_results([result], args), args.output)
    warnings_to_stderr(result_warnings([result]), args)
    return 0


def step_counting_note(counted) -> str:
    """How the per-step numbers were counted (`--verbose`)."""
    return (
        f"per-step words: {counted.pieces} piece(s) of in(t) and out(t) from barvinok; "
        f"{counted.enumerated_pieces} not quasi-affine, sliced at "
        f"{counted.enumerated_points} enumerated value(s) of the time coordinates they involve"
    )


def hierarchy_counting_note(hierarchy) -> str:
    """How the time through the hierarchy was counted (`--verbose`)."""
    return (
        f"time through the hierarchy: {hierarchy.sliced_pieces} per-tile piece(s) not "
        f"quasi-affine, sliced at {hierarchy.sliced_points} value(s) of the tile coordinates "
        "they involve"
    )


def run_network(args: argparse.Namespace) -> int:
    """`analyze -n NETWORK`: every layer on one arch, per-layer rows and network totals."""
    from tenet.explore.network import analyze_network
    from tenet.report.network import render_network
    from tenet.report.progress import progress_bar

    network, arch = network_inputs(args)
    with progress_bar("analyzing layers") as tick:
        result = analyze_network(
            network, arch, args.dataflow, args.max_isl_ops, progress=tick, **execution_options(args)
        )
    emit(render_network(result, args.format, color_for(args)), args.output)
    warnings_to_stderr(
        [f"{row.layer.name}: {w}" for row in result.layers for w in row.analysis.warnings], args
    )
    return 0


def run_symbolic(args: argparse.Namespace) -> int:
    """`tenet analyze --symbolic`: parameters set with --set stay fixed, the others symbolic."""
    from tenet.analysis.symbolic import symbolic_analysis
    from tenet.report.symbolic import symbolic_report

    if args.network:
        return run_network_symbolic(args)
    if args.bound:
        raise InputError("is not available with --symbolic", "--bound")
    workload, arch, dataflow = load_inputs(args)
    with parameters_as_flags(FLAGS):
        result = symbolic_analysis(workload, arch, dataflow, parse_sets(args.set), args.max_isl_ops)
    emit(symbolic_report(result, args.format), args.output)
    return 0


def run_network_symbolic(args: argparse.Namespace) -> int:
    """`tenet analyze -n NETWORK --symbolic --family P,...`: one count per shape family."""
    from tenet.explore.network_symbolic import analyze_network_symbolic
    from tenet.report.network import render_network
    from tenet.report.progress import progress_bar

    if not args.family:
        raise InputError(
            "-n with --symbolic needs --family P,Q,... (the parameters left symbolic; layers "
            "that agree on all the others share one count)",
            "--family",
        )
    network, arch = network_inputs(args)
    family = [p.strip() for p in args.family.split(",") if p.strip()]
    with progress_bar("counting layer families") as tick, parameters_as_flags(FLAGS):
        result = analyze_network_symbolic(
            network, arch, family, args.dataflow, args.max_isl_ops, progress=tick
        )
    text = render_network(result, args.format, color_for(args))
    if args.format == "table":
        lines = [
            f"family {f.workload} / {f.dataflow} (symbols {', '.join(f.symbols)}): "
            f"{len(f.layers)} layer{'s' if len(f.layers) != 1 else ''} from one count"
            for f in result.families
        ]
        text += "\n".join(lines) + "\n"
    emit(text, args.output)
    return 0
