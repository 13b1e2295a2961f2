"""The `tenet` command line: a thin layer over the Python API, and the only place that knows
flags. Each command lives in its own module (`add_parser` and `run`); a command's library
modules are imported only when it runs, so `tenet --version` and `--help` stay fast."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from tenet import __version__
from tenet.errors import InputError, TenetError

#: Command name -> module of `tenet.cli`, in the order `--help` lists them.
COMMANDS = {
    "analyze": "analyze",
    "simulate": "simulate",
    "compare": "compare",
    "validate": "validate",
    "trace": "trace",
    "bounds": "bounds",
    "fuse": "fuse",
    "dse": "dse",
    "presets": "presets",
    "workload": "workload",
}


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (`tenet analyze: error: ...`) and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def command_module(name: str):
    return importlib.import_module(f"tenet.cli.{COMMANDS[name]}")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="tenet",
        description="Relation-centric modeling of tensor dataflows on spatial accelerators: "
        "exact data movement, reuse, latency, bandwidth and energy (isl + barvinok).",
        epilog="example: tenet analyze -w gemm -a systolic-8x8 -d os-systolic-8x8",
    )
    parser.add_argument("--version", action="version", version=f"tenet {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name in COMMANDS:
        command_module(name).add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help(sys.stderr)
        return 2
    try:
        from tenet.cli.common import command_output

        with command_output(args):
            return command_module(args.command).run(args)
    except InputError as exc:
        from tenet.cli.common import error_line

        print(f"tenet: error: {error_line(exc)}", file=sys.stderr)
        return exc.exit_code
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
