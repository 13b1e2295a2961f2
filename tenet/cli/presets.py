"""`tenet presets`: the preset archs, workloads (with their dataflows) and networks."""

from __future__ import annotations

import argparse

from tenet.cli.common import emit

EXAMPLE = "example: tenet presets"


def add_parser(sub) -> None:
    sub.add_parser(
        "presets",
        help="list the preset archs, workloads and dataflows",
        description="List the preset archs, workloads (each with its dataflows) and networks "
        "shipped with tenet; any -a, -w, -d or -n option takes these names.",
        epilog=EXAMPLE,
    )


def run(args: argparse.Namespace) -> int:
    from tenet.formats.presets import list_presets

    presets = list_presets()
    lines = ["archs:"] + [f"  {a}" for a in presets["archs"]]
    lines += ["workloads (name: dataflows):"] + [f"  {w}" for w in presets["workloads"]]
    lines += ["dataflows 'tenet validate' calls illegal on the arch they are written for:"] + [
        f"  {n}" for n in presets["notes"]
    ]
    lines += ["networks:"] + [f"  {n}" for n in presets["networks"]]
    emit("\n".join(lines) + "\n", None)
    return 0
