"""`tenet simulate`: the metrics of `analyze` by brute-force enumeration (small problems)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from tenet.cli.analyze import add_tile_argument, tile_flags
from tenet.cli.common import (
    add_cost_arguments,
    add_inputs,
    add_output,
    add_silence_argument,
    emit,
    load_inputs,
    render_results,
    result_warnings,
    tiles_as_flag,
    warnings_to_stderr,
)
from tenet.util.limits import DEFAULT_MAX_INSTANCES

EXAMPLE = "example: tenet simulate -w gemm -a systolic-8x8 -d os-systolic-8x8 --set M=16 --set N=16 --set K=16"


def add_parser(sub) -> None:
    p = sub.add_parser(
        "simulate",
        help="the same metrics by brute-force enumeration (small problems)",
        description="Enumerate every instance and compute the metrics of 'analyze' "
        "without barvinok: the reference the engine is tested against.",
        epilog=EXAMPLE,
    )
    add_inputs(p)
    p.add_argument(
        "--max-instances",
        type=int,
        default=DEFAULT_MAX_INSTANCES,
        metavar="N",
        help=f"refuse problems with more instances (default {DEFAULT_MAX_INSTANCES:,})",
    )
    add_cost_arguments(p)
    add_silence_argument(p)
    add_tile_argument(p)
    add_output(p)


def step_notes(tick, tensors) -> Callable[[int, int], None]:
    """`simulate`'s progress(done, total) as `tick` with a note of the step under way: the
    enumeration of the instances (step 0), then each tensor side, steps 1 .. total - 1;
    `tick` itself when it takes no note."""
    import inspect

    names = ", ".join(tensors)
    try:
        takes_note = "note" in inspect.signature(tick).parameters
    except (TypeError, ValueError):
        takes_note = False
    if not takes_note:  # a callback of two arguments gets the counts only
        return tick

    def progress(done: int, total: int) -> None:
        if done == 0:
            note = "enumerating the instances"
        elif done < total:
            note = f"counting the tensor sides of {names}"
        else:
            note = "done"
        tick(done, total, note=note)

    return progress


def run(args: argparse.Namespace) -> int:
    from tenet.analysis.simulate import simulate
    from tenet.model.dataflow import with_tiles
    from tenet.report.progress import progress_bar

    workload, arch, dataflow = load_inputs(args)
    tiles = tile_flags(args.tile)
    dataflow = with_tiles(dataflow, tiles)
    with progress_bar("simulating") as tick, tiles_as_flag(tiles):
        result = simulate(
            workload, arch, dataflow, args.max_instances, step_notes(tick, workload.tensors)
        )
    emit(render_results([result], args), args.output)
    warnings_to_stderr(result_warnings([result]), args)
    return 0
