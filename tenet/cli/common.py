"""Small pieces every command-line module shares: `--set`, NAME=VALUE parsing, writing output."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from tenet.errors import InputError


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


def emit(text: str, output: str | None) -> None:
    """Write a report to `output`, or to stdout."""
    if output:
        try:
            Path(output).write_text(text)
        except OSError as exc:
            raise InputError(f"cannot write output: {exc.strerror}", output) from None
    else:
        sys.stdout.write(text)
