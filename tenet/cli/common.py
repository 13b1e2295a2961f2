"""What every command-line module shares: input and output options, `--set`, NAME=VALUE
parsing, execution options, loading the inputs, and writing the report. Only the command
line knows flags; the library takes plain values."""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from tenet.errors import InputError, write_options
from tenet.report.serial import FORMATS  # light; the formats are defined there once
from tenet.util.limits import DEFAULT_MAX_OPERATIONS

#: Library option name -> the flag that gives it. Library errors name options, never flags
#: (`InputError(..., option="tile")`, `option_ref("set")` in a message); `error_line` writes
#: them as these flags. A command whose flag for an option differs adds its own entries.
OPTION_FLAGS: dict[str, str] = {
    "best": "--best",
    "function": "--function",
    "format": "--format",
    "jobs": "--jobs",
    "max_instances": "--max-instances",
    "max_isl_ops": "--max-isl-ops",
    "pes": "--pes",
    "plot": "--plot",
    "scheduler": "--scheduler",
    "set": "--set",
    "side": "--side",
    "steps": "--steps",
    "technology": "--technology",
    "tensor": "--tensor",
    "ties": "--ties",
    "tile": "--tile",
    "topologies": "--topologies",
}


def error_line(exc: InputError, flags: Mapping[str, str] | None = None) -> str:
    """The one line printed for a library error: its options written as flags
    (`OPTION_FLAGS`, then the command's own `flags`)."""
    return exc.line({**OPTION_FLAGS, **(flags or {})})


def parse_assignments(items: Sequence[str], flag: str) -> dict[str, int]:
    """`NAME=VALUE` items (from repeated `--set`, or a comma-separated `--shape`) as integers."""
    values: dict[str, int] = {}
    for item in items:
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if not sep or not name:
            raise InputError(f"expected NAME=VALUE, got {item!r}", flag)
        try:
            values[name] = int(value)
        except ValueError:
            raise InputError(f"value of {name} must be an integer, got {value!r}", flag) from None
    return values


def parse_sets(items: Sequence[str] | None) -> dict[str, int]:
    """`--set NAME=VALUE` pairs as a dict of integers."""
    return parse_assignments(items or (), "--set")


def add_set_argument(group) -> None:
    """The repeatable `--set NAME=VALUE` option of a parser or argument group."""
    group.add_argument(
        "--set",
        action="append",
        metavar="NAME=VALUE",
        default=[],
        help="override a workload parameter (repeatable), e.g. --set M=1024",
    )


def add_function_argument(group) -> None:
    """`--function NAME`: the function of a C or Python loop nest that is the kernel."""
    group.add_argument(
        "--function",
        metavar="NAME",
        help="with -w FILE.c or FILE.py: the function whose body is the kernel "
        "(C: instead of the '#pragma scop' region)",
    )


def emit(text: str, output: str | None) -> None:
    """Write a report to `output`, or to stdout."""
    if output:
        try:
            Path(output).write_text(text)
        except OSError as exc:
            raise InputError(f"cannot write output: {exc.strerror}", output) from None
    else:
        sys.stdout.write(text)


def warnings_to_stderr(warnings: Iterable[str], args: argparse.Namespace) -> None:
    """Print each warning on stderr (`tenet: warning: ...`) unless the result is a table on
    stdout, which lists them itself: with `-o FILE` or `--format json|csv` they would
    otherwise sit only in the file or in a JSON field."""
    if not getattr(args, "output", None) and getattr(args, "format", "table") == "table":
        return
    for warning in warnings:
        print(f"tenet: warning: {write_options(warning, OPTION_FLAGS)}", file=sys.stderr)


def result_warnings(results: Iterable[Any], label: str | None = None) -> list[str]:
    """The warnings of analyze-like results (typed, or their JSON), each prefixed with the
    result's `label` key (e.g. `arch`) when given."""
    out = []
    for r in results:
        found = r.get("warnings") if isinstance(r, Mapping) else r.warnings
        prefix = f"{r[label] if isinstance(r, Mapping) else getattr(r, label)}: " if label else ""
        out += [f"{prefix}{w}" for w in found or ()]
    return out


def add_execution_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `--jobs N`, `--scheduler URL` and `--journal FILE.jsonl` to a command's parser."""
    group = parser.add_argument_group("execution")
    group.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="run the tasks on a pool of N local processes (default: one per CPU, "
        f"{default_jobs()} here; 1 runs them in this process)",
    )
    group.add_argument(
        "--scheduler",
        metavar="URL",
        help="run the tasks on the Dask cluster whose scheduler listens at URL, "
        "e.g. tcp://10.0.0.5:8786 (needs pip install 'tenet-dataflow[dask]')",
    )
    group.add_argument(
        "--journal",
        metavar="FILE.jsonl",
        help="append each finished task to FILE.jsonl as it completes; "
        "rerunning with the same file skips the tasks already there",
    )


def execution_options(args: argparse.Namespace) -> dict:
    """The `jobs`, `scheduler` and `journal` keyword arguments of `run_tasks`, checked: a local
    pool of one process per CPU unless `--jobs` or `--scheduler` says otherwise."""
    jobs = args.jobs
    if jobs is None:
        jobs = 1 if args.scheduler is not None else default_jobs()
    from tenet.execution import check_execution

    with parameters_as_flags({}):
        check_execution(jobs, args.scheduler)
    return {"jobs": jobs, "scheduler": args.scheduler, "journal": args.journal}


def default_jobs() -> int:
    """Local processes when `--jobs` is not given: one per CPU this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def add_inputs(parser: argparse.ArgumentParser) -> None:
    """-w, -a, -d, --set and --tenet."""
    group = parser.add_argument_group("inputs (YAML files, or preset names: see 'tenet presets')")
    group.add_argument(
        "-w",
        "--workload",
        metavar="FILE",
        help="workload YAML, a preset name (e.g. gemm), or a loop nest (FILE.c, FILE.py)",
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
    add_function_argument(group)
    group.add_argument(
        "--tenet",
        nargs=3,
        metavar=("STATEMENT.s", "PE.p", "MAPPING.m"),
        help="read TENET's own text files instead of YAML",
    )


def add_output(parser: argparse.ArgumentParser, formats: Sequence[str] = FORMATS):
    """--format, -o and --wide; returns the group, for a command's own output options."""
    group = parser.add_argument_group("output")
    group.add_argument(
        "--format", choices=formats, default="table", help="output format (default: table)"
    )
    group.add_argument(
        "-o", "--output", metavar="FILE", help="write the result to FILE instead of stdout"
    )
    group.add_argument(
        "--wide",
        action="store_true",
        help="show tables whole on a terminal too (by default they fold or split their "
        "columns to fit its width; files and pipes always get them whole)",
    )
    group.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no progress on stderr (by default a bar on a terminal, else a line every 10 s)",
    )
    return group


def add_max_isl_ops(parser, what: str = "isl operations limit against blow-ups") -> None:
    """--max-isl-ops N."""
    parser.add_argument(
        "--max-isl-ops",
        type=int,
        default=DEFAULT_MAX_OPERATIONS,
        metavar="N",
        help=f"{what}, 0 = none (default {DEFAULT_MAX_OPERATIONS:,})",
    )


def color_for(args: argparse.Namespace) -> bool:
    """Colour tables only when they go to a terminal."""
    return getattr(args, "format", "table") == "table" and not args.output and sys.stdout.isatty()


def table_width(args: argparse.Namespace) -> int | None:
    """The terminal's width when a table goes to one (and no `--wide`); None (tables whole)
    when the output goes to a file or a pipe."""
    if getattr(args, "wide", False) or getattr(args, "format", "table") != "table":
        return None
    if getattr(args, "output", None) or not sys.stdout.isatty():
        return None
    return shutil.get_terminal_size().columns


@contextlib.contextmanager
def command_output(args: argparse.Namespace) -> Iterator[None]:
    """Around a command's run: refuse mistyped preset names and an `-o` that is one of the
    inputs, check `--plot`, and fit the tables to the terminal; `--quiet` silences progress."""
    from tenet.report.progress import quiet_progress

    inputs = input_files(args)
    check_output(args, inputs)
    check_plot(args, inputs)
    with quiet_progress(getattr(args, "quiet", False)):
        if getattr(args, "format", "table") != "table":  # no table: leave rich unloaded
            yield
            return
        from tenet.report.tables import fit_width

        with fit_width(table_width(args)):
            yield


def render_results(results: Sequence[Any], args: argparse.Namespace) -> str:
    """`analyze`/`simulate` results (typed: each turns into its JSON only here) in
    `--format`."""
    from tenet.report.tables import render

    return render(results, args.format, color_for(args))


def input_files(args: argparse.Namespace) -> list[tuple[str, Path]]:
    """(flag, file) of every input named on the command line; a bare name that is neither a
    file nor a preset is refused with the names closest to it."""
    from tenet.formats.presets import find_arch, find_dataflow, find_network, find_workload

    def values(name: str) -> list[str]:
        value = getattr(args, name, None)
        return [] if not value else [value] if isinstance(value, str) else list(value)

    files = [("--tenet", Path(p)) for p in values("tenet")]
    workload = None
    for text in values("workload"):
        workload = find_workload(text)
        files.append(("-w", workload))
    for text in values("network"):
        files.append(("-n", find_network(text)))
    for text in values("arch"):
        files.append(("-a", find_arch(text)))
    if not getattr(args, "network", None):  # with -n, -d names a dataflow of each layer
        for text in values("dataflow"):
            files.append(("-d", find_dataflow(text, workload)))
    for flag, name in (("--components", "components"), ("--journal", "journal")):
        files.extend((flag, Path(text)) for text in values(name))
    return files


def network_files(network, dataflows: str | None) -> list[tuple[str, Path]]:
    """(where, file) of the files a network's layers read: each layer's workload, its own
    dataflow, and the dataflows named with `-d` beside the layer's workload."""
    from tenet.explore.network import workload_path
    from tenet.formats.presets import resolve_dataflow

    source = network.source or "-n"
    names = [n.strip() for n in (dataflows or "").split(",") if n.strip()]
    files = []
    for index, layer in enumerate(network.layers):
        key = f"{source}: layers[{index}]"
        with contextlib.suppress(InputError):  # a missing file is reported when it is read
            path = workload_path(layer)
            files.append((f"{key}.workload", path))
            for name in [layer.dataflow] if layer.dataflow else names:
                files.append((f"{key} dataflow", resolve_dataflow(name, path)))
    return files


def check_output(args: argparse.Namespace, inputs: Sequence[tuple[str, Path]]) -> None:
    """Refuse an `-o FILE` that would overwrite one of the input files."""
    output = getattr(args, "output", None)
    if not output or not Path(output).exists():
        return
    for flag, path in inputs:
        with contextlib.suppress(OSError):
            if path.exists() and os.path.samefile(output, path):  # resolves links and ../
                raise InputError(
                    f"would overwrite the input file {str(path)!r} (given with {flag}); "
                    "write the result to another file",
                    "-o",
                )


def add_cost_arguments(parser: argparse.ArgumentParser) -> None:
    """`--components FILE` and `--technology NM`: the component energies and areas of the
    cost model (docs/components.md)."""
    group = parser.add_argument_group("component costs (docs/components.md)")
    group.add_argument(
        "--components",
        metavar="FILE",
        help="component energies/areas from an Accelergy ERT/ART YAML or a simple table; "
        "replaces the arch's",
    )
    group.add_argument(
        "--technology",
        metavar="NM",
        type=int,
        help="the built-in component library at this node (nm), for an arch that gives no "
        "component costs of its own (refused for one that does)",
    )


def add_silence_argument(parser: argparse.ArgumentParser) -> None:
    """`--silence KIND`: warning kinds (fnmatch patterns) left out of the output."""
    parser.add_argument(
        "--silence",
        action="append",
        metavar="KIND",
        help="leave out the warnings of these kinds (comma-separated fnmatch patterns, e.g. "
        "idle_link,level_*; repeatable); added to the arch's and dataflow's silenced_warnings",
    )


def silence_flags(args: argparse.Namespace) -> tuple[str, ...]:
    """The patterns of every `--silence`, each checked to match some warning kind."""
    from tenet.model.warning_kinds import silence_patterns

    given = getattr(args, "silence", None) or []
    patterns = [p.strip() for item in given for p in item.split(",") if p.strip()]
    return silence_patterns(patterns, None, "--silence")


def with_cost_flags(arch, args: argparse.Namespace):
    """The arch with `--technology` (if it has no components), `--components` and the
    `--silence` patterns applied."""
    from dataclasses import replace

    from tenet.model.arch import with_silenced

    arch = with_silenced(arch, silence_flags(args))

    node, path = getattr(args, "technology", None), getattr(args, "components", None)
    if node is not None:
        from tenet.formats.components_import import default_scratchpad_bytes
        from tenet.model.components import check_node, technology_components

        check_node(node, "--technology", None)
        if arch.components is not None:
            raise InputError(
                f"arch {arch.name!r} already gives component costs (technology: or "
                "components:); change the node there, or use an arch without them",
                "--technology",
            )
        size = default_scratchpad_bytes(arch)
        arch = replace(arch, components=technology_components(node, arch.memory.word_bits, size))
    if path:
        from tenet.formats.components_import import import_components

        components, warnings = import_components(path, arch)
        for warning in warnings:  # the import's own: no result lists them
            print(f"tenet: warning: {warning}", file=sys.stderr)
        arch = replace(arch, components=components)
    return arch


#: File types `--plot` writes (matplotlib's Agg backend, chosen by the extension).
PLOT_SUFFIXES = (
    ".png",
    ".pdf",
    ".svg",
    ".svgz",
    ".eps",
    ".ps",
    ".jpg",
    ".jpeg",
    ".tif",
    ".tiff",
    ".webp",
)


def check_plot(args: argparse.Namespace, inputs: Sequence[tuple[str, Path]]) -> None:
    """Check `--plot FILE` before any work: a known image extension (none: `.png` is added,
    and said on stderr), not a directory, not the `-o` file, not an input file."""
    plot = getattr(args, "plot", None)
    if plot is None:
        return
    if not plot.strip():
        raise InputError("is empty; give a file name such as plot.png", "--plot")
    path = Path(plot)
    if path.is_dir() or plot.endswith(("/", os.sep)):
        raise InputError("is a directory; give a file name such as plot.png", "--plot")
    suffix = path.suffix.lower()
    if not suffix:
        path = path.with_name(path.name + ".png")
        if path.is_dir():
            raise InputError(f"{str(path)!r} is a directory", "--plot")
    elif suffix not in PLOT_SUFFIXES:
        raise InputError(
            f"cannot draw a {suffix} file (use one of: {', '.join(PLOT_SUFFIXES)})", "--plot"
        )
    output = getattr(args, "output", None)
    if output and (_same_file(Path(output), path) or _same_file(Path(output), Path(plot))):
        raise InputError(
            "is the -o file too; give the plot and the result different names", "--plot"
        )
    for flag, given in inputs:
        if _same_file(given, path):
            raise InputError(
                f"would overwrite the input file {str(given)!r} (given with {flag})", "--plot"
            )
    if not suffix:
        print(f"tenet: note: --plot {plot} has no extension; writing {path}", file=sys.stderr)
    args.plot = str(path)


def _same_file(a: Path, b: Path) -> bool:
    """The same file, or (when either does not exist yet) the same absolute path."""
    with contextlib.suppress(OSError):
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    return a.resolve() == b.resolve()


def load_inputs(args: argparse.Namespace):
    """(workload, arch, dataflow) from --tenet files or from -w/-a/-d."""
    from tenet.formats.presets import resolve_arch, resolve_dataflow, resolve_workload
    from tenet.formats.tenet_files import load_tenet
    from tenet.formats.workloads import load_any_workload
    from tenet.model.arch import load_arch
    from tenet.model.dataflow import load_dataflow

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
    workload = load_any_workload(workload_path, overrides, args.function)
    arch = with_cost_flags(load_arch(resolve_arch(args.arch)), args)
    dataflow = load_dataflow(resolve_dataflow(args.dataflow, workload_path))
    return workload, arch, dataflow


def network_inputs(args: argparse.Namespace):
    """The network and arch of `analyze -n`, after rejecting options that do not apply."""
    from tenet.explore.network import load_network
    from tenet.formats.presets import resolve_arch
    from tenet.model.arch import load_arch

    if args.workload or args.tenet:
        raise InputError("give either -n/--network or -w/--workload (or --tenet), not both")
    if args.set:
        raise InputError("does not apply to a network: put parameters in the network file", "--set")
    if args.bound:
        raise InputError("is not available with -n/--network", "--bound")
    if not args.arch:
        raise InputError("missing -a/--arch")
    network = load_network(args.network)
    check_output(args, network_files(network, args.dataflow))
    return network, with_cost_flags(load_arch(resolve_arch(args.arch)), args)


@contextlib.contextmanager
def parameters_as_flags(flags: Mapping[str, str]) -> Iterator[None]:
    """An `InputError` that names a library parameter (`fixed`) names the user's flag
    (`--set`) instead; so do its option and the options its message names."""
    try:
        yield
    except InputError as exc:
        raise as_flags(exc, flags) from None


def as_flags(exc: InputError, flags: Mapping[str, str] | None = None) -> InputError:
    """The error as the command line prints it: its option (`OPTION_FLAGS`, then `flags`)
    in `source`, the options its message names written as flags, a source or key that
    `flags` names replaced by the flag."""
    names = {**OPTION_FLAGS, **(flags or {})}
    source, key = ((flags or {}).get(p, p) for p in (exc.source, exc.key))
    if exc.option:
        source = names.get(exc.option, exc.option)
    return type(exc)(exc.text(names), source, key)


@contextlib.contextmanager
def tiles_as_flag(levels: Iterable[str]) -> Iterator[None]:
    """An error about the dataflow key `tiles.LEVEL` of a level whose depth `--tile` set
    names the flag and the level (`--tile: GLB: ...`): the library only knows the key."""
    given = set(levels)
    try:
        yield
    except InputError as exc:
        level = (exc.key or "").removeprefix("tiles.")
        if exc.key is None or level == exc.key or level not in given:
            raise
        raise type(exc)(exc.message, None, level, option="tile") from None
