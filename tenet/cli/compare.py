"""`tenet compare`: one workload and dataflow on several archs or topologies, side by side."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tenet.cli.analyze import add_tile_argument, tile_flags
from tenet.cli.common import (
    OPTION_FLAGS,
    add_cost_arguments,
    add_execution_arguments,
    add_function_argument,
    add_max_isl_ops,
    add_output,
    add_set_argument,
    add_silence_argument,
    color_for,
    emit,
    execution_options,
    parameters_as_flags,
    parse_sets,
    tiles_as_flag,
    warnings_to_stderr,
)
from tenet.errors import InputError

EXAMPLE = (
    "example: tenet compare -w gemm -d os-multicast-8x8 -a systolic-8x8 -a multicast-8x8 "
    "-a mtia-8x8 (or, each arch at its own best dataflow: tenet compare -w gemm "
    "-a systolic-8x8 -a multicast-8x8 --best latency --set M=64 --set N=64 --set K=64)"
)

#: The flag of each library parameter an error may name.
FLAGS = {
    "objectives": "--best",
    "directory": "--emit",
    "limit": "--limit",
    "time_limit": "--time-limit",
}


def add_parser(sub) -> None:
    from tenet.model.topology import TOPOLOGIES

    p = sub.add_parser(
        "compare",
        help="one workload + dataflow on several archs or topologies, side by side",
        description="Analyze one workload and dataflow on several archs (-a repeated) or on "
        "several interconnect topologies of one PE array (-a FILE --topologies a,b,...); "
        "the best value of each row is marked. With --best OBJECTIVE, each arch runs its own "
        "best dataflow for the objective, found by the search of `tenet dse` (with -d too: "
        "both columns per arch).",
        epilog=EXAMPLE,
    )
    group = p.add_argument_group("inputs")
    group.add_argument(
        "-w", "--workload", metavar="FILE", required=True, help="workload YAML or preset"
    )
    group.add_argument(
        "-d",
        "--dataflow",
        metavar="FILE",
        help="dataflow YAML or name (optional with --best)",
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
    add_silence_argument(p)
    add_tile_argument(p)
    group = p.add_argument_group("search (--best)")
    group.add_argument(
        "--best",
        metavar="OBJECTIVE",
        help="give each arch its own best dataflow for OBJECTIVE (an objective of tenet dse, "
        "e.g. latency), searched over the dse space (loop per PE axis, tile and loop orders, "
        "link-matched skews)",
    )
    group.add_argument(
        "--emit",
        metavar="DIR",
        help="write each arch's best dataflow as DIR/best-OBJECTIVE-ARCH.yaml",
    )
    add_search_arguments(group)
    add_output(p)
    p.add_argument("--plot", metavar="FILE.png", help="also draw a grouped bar chart")
    add_execution_arguments(p)


def add_search_arguments(group) -> None:
    """The flags of `dse`'s search that shape the --best searches (the same meaning)."""
    group.add_argument("--no-skew", action="store_true", help="with --best: no systolic skews")
    group.add_argument(
        "--interleave",
        action="store_true",
        help="with --best: also put temporal loops outside the tile loops (every time order)",
    )
    group.add_argument(
        "--limit",
        type=int,
        metavar="N",
        help="with --best: search N distinct dataflows sampled at random (as dse --limit)",
    )
    group.add_argument(
        "--seed", type=int, metavar="S", help="with --best: seed of the --limit sample (default 0)"
    )
    group.add_argument(
        "--time-limit",
        type=float,
        metavar="S",
        help="with --best: stop each arch's search after S seconds and keep its best so far, "
        "marked incomplete (Ctrl-C stops the search under way the same way, skips the archs "
        "not yet searched and exits with 130)",
    )
    group.add_argument(
        "--tile-sizes",
        action="store_true",
        help="with --best: search the GLB's tile sizes too, as dse --tile-sizes (each arch a "
        "2-D systolic array with a GLB under DRAM; objective energy_pj, dram, time_steps or "
        "latency)",
    )
    group.add_argument(
        "--imperfect",
        action="store_true",
        help="with --tile-sizes: also tile extents that leave a shorter last tile",
    )


def search_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of `explore` that the --best search flags give; the flags are
    refused without --best."""
    given = [
        flag
        for flag, value in (
            ("--no-skew", args.no_skew),
            ("--interleave", args.interleave),
            ("--limit", args.limit is not None),
            ("--seed", args.seed is not None),
            ("--time-limit", args.time_limit is not None),
            ("--tile-sizes", args.tile_sizes),
            ("--imperfect", args.imperfect),
        )
        if value
    ]
    if given and args.best is None:
        raise InputError("shapes the search of --best: add --best OBJECTIVE", given[0])
    if args.imperfect and not args.tile_sizes:
        raise InputError("needs --tile-sizes", "--imperfect")
    if args.tile_sizes:
        return _tile_size_options(args)
    return {
        "skew": not args.no_skew,
        "interleave": args.interleave,
        "limit": args.limit,
        "seed": 0 if args.seed is None else args.seed,
        "time_limit_s": args.time_limit,
        "stop_on_interrupt": True,
    }


def _tile_size_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options of `explore_tile_sizes` for --best --tile-sizes (flags of the other
    space refused, the objective checked)."""
    from tenet.explore.tile_space import TILE_SIZE_OBJECTIVES

    refused = (
        ("--no-skew", args.no_skew),
        ("--interleave", args.interleave),
        ("--seed", args.seed is not None),  # the tile-size search samples nothing
    )
    for flag, value in refused:
        if value:
            raise InputError("does not apply with --tile-sizes", flag)
    if args.best not in TILE_SIZE_OBJECTIVES:
        raise InputError(
            f"with --tile-sizes the search ranks by {', '.join(TILE_SIZE_OBJECTIVES)}; "
            f"not {args.best}",
            "--best",
        )
    return {
        "tile_sizes": True,
        "imperfect": args.imperfect,
        "limit": args.limit,
        "time_limit": args.time_limit,
        "stop_on_interrupt": True,
    }


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
    from tenet.analysis.compare import comparison_warnings
    from tenet.formats.presets import resolve_dataflow, resolve_workload
    from tenet.formats.workloads import load_any_workload
    from tenet.model.dataflow import load_dataflow, with_tiles
    from tenet.report.tables import render_comparison

    if args.dataflow is None and args.best is None:
        raise InputError("give -d/--dataflow, --best OBJECTIVE, or both")
    if args.tile and args.dataflow is None:
        raise InputError(
            "sets the tile depths of the dataflow given with -d; --best searches the tile "
            "depth itself",
            "--tile",
        )
    if args.emit and args.best is None:
        raise InputError("writes the dataflows --best finds: add --best OBJECTIVE", "--emit")
    if args.plot is not None and not args.plot.strip():
        raise InputError("is empty; give a file name such as compare.png", "--plot")
    workload_path = resolve_workload(args.workload)
    workload = load_any_workload(workload_path, parse_sets(args.set), args.function)
    dataflow, tiles = None, {}
    if args.dataflow is not None:
        dataflow = load_dataflow(resolve_dataflow(args.dataflow, workload_path))
        tiles = tile_flags(args.tile)
        dataflow = with_tiles(dataflow, tiles)
    search = search_options(args)
    objective = check_best(args.best, workload) if args.best is not None else None
    archs = compare_archs(args)
    if search.get("tile_sizes"):  # every arch must take the tile-size search: checked first
        from tenet.explore.tile_space import tile_problem

        with parameters_as_flags(FLAGS):
            for arch in archs:
                tile_problem(workload, arch)
    results, priced, notes = [], [], []
    with searches_share_workers(args, objective, search):
        interrupted = _compare_each(
            args, workload, archs, dataflow, tiles, objective, search, results, priced, notes
        )
    title = dataflow.name if dataflow is not None else f"best {objective}"
    if dataflow is not None and objective is not None:
        title = f"{dataflow.name} and best {objective}"
    if args.plot is not None:
        from tenet.report.plots import comparison_plot

        comparison_plot(workload.name, title, results, args.plot, priced=priced)
    text = render_comparison(
        workload.name, title, results, args.format, color_for(args), priced, OPTION_FLAGS
    )
    if notes and args.format == "table":
        text = text.rstrip("\n") + "\n" + "".join(f"note: {note}\n" for note in notes)
    emit(text, args.output)
    warnings_to_stderr(comparison_warnings(results, priced), args)
    if notes and args.format != "table":
        for note in notes:
            print(f"tenet: note: {note}", file=sys.stderr)
    return 130 if interrupted else 0


def searches_share_workers(args: argparse.Namespace, objective: str | None, search: dict):
    """With --best and local workers, one pool of worker processes for every arch's search
    (started once; each search's counts stay its own); not for the tile-size search, which
    forks its own workers for its re-check."""
    import contextlib

    from tenet.execution import kept_pool

    jobs = execution_options(args)["jobs"]
    if objective is None or search.get("tile_sizes") or args.scheduler is not None or jobs <= 1:
        return contextlib.nullcontext()
    return kept_pool(jobs)


def _compare_each(
    args, workload, archs, dataflow, tiles, objective, search, results, priced, notes
):
    """Analyze the dataflow and/or search the best one on each arch, appending to `results`,
    `priced` and `notes`; True when Ctrl-C stopped a search (the archs after it are skipped)."""
    from tenet.analysis.compare import priced_parts
    from tenet.model.metrics import analyze

    for n, arch in enumerate(archs):
        if dataflow is not None:
            with tiles_as_flag(tiles):
                analysis = analyze(workload, arch, dataflow, args.max_isl_ops)
            results.append(analysis.to_dict())
            priced.append(priced_parts(analysis))
        if objective is not None:
            result, analysis = best_result(workload, arch, objective, args, search)
            results.append(result)
            priced.append(priced_parts(analysis))
            if not result["best"]["complete"]:
                notes.append(f"best-{objective} on {arch.name}: {result['best']['stop_note']}")
            if result["best"]["stopped_by"] == "interrupt":
                skipped = [a.name for a in archs[n + 1 :]]
                if skipped:
                    notes.append("interrupted: not searched: " + ", ".join(skipped))
                return True
    return False


def check_best(text: str, workload) -> str:
    """The one objective of --best; a workload with loops to search."""
    from tenet.explore.dse import statement_loops
    from tenet.explore.objectives import parse_objectives

    with parameters_as_flags(FLAGS):
        names = parse_objectives(text)
    if len(names) != 1:
        raise InputError(f"expected one objective, got {len(names)}: {text}", "--best")
    _, loops = statement_loops(workload)
    if not any(loop.extent > 1 for loop in loops):
        raise InputError(
            f"nothing to search: every loop of workload {workload.name!r} runs once", "--best"
        )
    return names[0]


def best_result(
    workload, arch, objective: str, args: argparse.Namespace, search: dict | None = None
) -> tuple[dict, Any]:
    """(the analyze JSON, the Analysis) of the arch's best dataflow for the objective (named
    `best-OBJECTIVE`), searched with the `explore` options `search` (`search_options`); the
    JSON adds its notation, isl text and, under `best`, the objective's value, whether it is
    maximised and the search's counts."""
    from dataclasses import replace

    from tenet.explore.dse import INTERRUPT, explore
    from tenet.explore.dse import emit as emit_dataflows
    from tenet.explore.objectives import OBJECTIVES
    from tenet.report.progress import progress_bar

    search = dict(search or {})
    tile_sizes = search.pop("tile_sizes", False)
    if tile_sizes:
        from tenet.explore.tile_sizes import explore_tile_sizes

        with parameters_as_flags(FLAGS):
            report = explore_tile_sizes(
                workload, arch, (objective,), jobs=execution_options(args)["jobs"], **search
            )
    else:
        with parameters_as_flags(FLAGS), progress_bar(f"searching {arch.name}") as tick:
            report = explore(
                workload,
                arch,
                (objective,),
                max_operations=args.max_isl_ops,
                progress=tick,
                **search,
                **execution_options(args),
            )
    if not report.pareto and report.stopped_by == INTERRUPT:
        raise KeyboardInterrupt  # nothing found yet: `tenet: interrupted`, as without --best
    if not report.pareto and report.stopped_by is not None:
        raise InputError(
            f"the search of {arch.name!r} stopped at its time limit before it counted a legal "
            f"dataflow ({report.stop_note()}); give it more time",
            "--time-limit",
        )
    if not report.pareto:
        raise InputError(
            f"the search found no legal dataflow of {workload.name!r} on {arch.name!r}", "--best"
        )
    entry = report.pareto[0]
    entry = replace(entry, analysis=replace(entry.analysis, dataflow=f"best-{objective}"))
    if args.emit:
        name = f"best-{objective}-{_file_name(arch.name)}"
        named = replace(entry, analysis=replace(entry.analysis, dataflow=name))
        with parameters_as_flags(FLAGS):
            emit_dataflows([named], args.emit)
    result = {
        **entry.analysis.to_dict(),
        "notation": entry.notation,
        "space": entry.space,
        "time": entry.time,
        **({"tiles": dict(entry.tiles)} if entry.tiles else {}),
        "best": {
            "objective": objective,
            "value": OBJECTIVES[objective].value(entry.analysis),
            "maximize": OBJECTIVES[objective].maximize,
            "candidates": report.candidates,
            "evaluated": report.evaluated,
            "pruned": report.pruned,
            "legal": report.legal,
            "over_capacity": report.over_capacity,
            "distinct": report.distinct,
            "complete": report.complete,
            "stopped_by": report.stopped_by,
            "stop_note": report.stop_note(),
            **({"tile_sizes": True} if tile_sizes else {}),
        },
    }
    return result, entry.analysis


def _file_name(arch_name: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9_.-]", "_", arch_name)
