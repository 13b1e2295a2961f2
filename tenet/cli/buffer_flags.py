"""Flags that `tenet bounds` and `tenet fuse` share: buffer sizes to read fronts at, word
size, the arch's memory levels, compute rate and the area split; and their checks."""

from __future__ import annotations

import argparse
import contextlib
import math
from collections.abc import Iterator
from typing import Any

from tenet.cli.common import OPTION_FLAGS
from tenet.errors import InputError

#: The bounds library's option names -> the flags of `tenet bounds` and `tenet fuse` that
#: give them. tenet.bounds names options (`InputError(..., option="at")`, `option_ref`);
#: `bounds_flags` writes them as these flags.
BOUNDS_FLAGS: dict[str, str] = {
    "area_mm2": "--area-mm2",
    "at": "--at",
    "buffer_rule": "--buffer-rule",
    "byte_area_um2": "--byte-area-um2",
    "capacity": "--capacity",
    "einsum": "--einsum",
    "imperfect": "--imperfect",
    "mac_area_um2": "--mac-area-um2",
    "order": "--order",
    "shape": "--shape",
    "space": "--space",
    "templates": "--templates",
    "tiles": "--tiles",
}


@contextlib.contextmanager
def bounds_flags() -> Iterator[None]:
    """A library error that names a bounds option names its flag instead (`--shape: ...`,
    or `FILE: --order: ...` when it also names a file), in its head and in its message;
    other errors pass unchanged."""
    try:
        yield
    except InputError as exc:
        flags = {**OPTION_FLAGS, **BOUNDS_FLAGS}
        named = exc.option in BOUNDS_FLAGS
        if not named and exc.text(flags) == exc.message:
            raise
        source, key, option = exc.source, exc.key, exc.option
        if named and source:  # a file's fault through an option: `FILE: --order: ...`
            key, option = ": ".join(p for p in (BOUNDS_FLAGS[exc.option], key) if p), None
        elif named:
            source, option = BOUNDS_FLAGS[exc.option], None
        raise type(exc)(exc.text(flags), source, key, option=option) from None


def add_lookup_flags(group: Any, what: str, word_bits_from: str) -> None:
    """`--at`, `--word-bits`, `-a`; `what` names the fronts read ("every front"),
    `word_bits_from` where the word size comes from without the flag ("the chain's")."""
    group.add_argument(
        "--at",
        action="append",
        default=[],
        metavar="SIZE[,SIZE...]",
        help=f"read {what} at buffer sizes: words, or bytes with a unit (64KiB, 1MiB, 16MB); "
        "repeatable or comma-separated",
    )
    group.add_argument(
        "--word-bits",
        type=int,
        default=None,
        help=f"bits per word (default: {word_bits_from}, else 16)",
    )
    group.add_argument(
        "-a",
        "--arch",
        metavar="FILE",
        help="arch with memory 'levels' (the front and the time between each pair of levels) "
        "or 'technology:'/'components:' (the areas of the area split)",
    )


def add_compute_flags(group: Any) -> None:
    """`--macs-per-cycle` and `--clock-ghz`."""
    group.add_argument("--macs-per-cycle", type=float, help="peak MACs per cycle (compute time)")
    group.add_argument("--clock-ghz", type=float, default=1.0, help="clock in GHz (default 1)")


def add_area_flags(group: Any) -> None:
    """The area split: `--area-mm2`, `--bandwidth-gbps` and where the areas come from."""
    group.add_argument("--area-mm2", type=float, help="chip area to split between buffer and MACs")
    group.add_argument("--bandwidth-gbps", type=float, help="backing-store bandwidth in GB/s")
    group.add_argument(
        "--mac-area-um2",
        type=float,
        help="area of one MAC in µm² (default: from --technology, else the -a arch's "
        "technology:/components:)",
    )
    group.add_argument(
        "--byte-area-um2",
        type=float,
        help="area of one buffer byte in µm² (default: from --technology, else the -a arch's "
        "technology:/components:)",
    )
    group.add_argument(
        "--technology",
        type=int,
        metavar="NM",
        help="MAC and per-byte buffer areas from the built-in component library at this node "
        "(docs/components.md); without it, from the -a arch's technology:/components:",
    )


#: The number flags of bounds and fuse that must be finite and positive, by attribute.
POSITIVE_FLAGS = {
    "area_mm2": "--area-mm2",
    "bandwidth_gbps": "--bandwidth-gbps",
    "clock_ghz": "--clock-ghz",
    "macs_per_cycle": "--macs-per-cycle",
    "mac_area_um2": "--mac-area-um2",
    "byte_area_um2": "--byte-area-um2",
}


def check_positive_flags(args: argparse.Namespace) -> None:
    """Refuse a zero, negative, infinite or NaN value of a number flag (area, bandwidth,
    clock, MAC rate, unit areas): x must satisfy 0 < x < inf."""
    for name, flag in POSITIVE_FLAGS.items():
        value = getattr(args, name, None)
        if value is not None and not (math.isfinite(value) and value > 0):
            raise InputError(f"must be a positive number, got {value:g}", flag)


def at_sizes(items: list[str]) -> list[str]:
    """`--at` values, repeated or comma-separated, in the order given."""
    sizes = [text.strip() for item in items for text in item.split(",")]
    for text in sizes:
        if not text:
            raise InputError(f"empty size in {','.join(items)!r}", "--at")
    return sizes


def check_word_bits(word_bits: int) -> int:
    if word_bits < 1:
        raise InputError(f"must be positive, got {word_bits}", "--word-bits")
    return word_bits


def load_study_arch(path: str | None):
    """The -a arch, which must have memory levels or component areas; None without -a."""
    from tenet.formats.presets import resolve_arch
    from tenet.model.arch import load_arch

    if not path:
        return None
    arch = load_arch(resolve_arch(path))
    if not arch.levels and arch.components is None:
        raise InputError(
            "the arch has no 'levels' (a memory hierarchy) and no 'technology:'/'components:'",
            arch.source,
            "levels",
        )
    return arch


def area_constants_of(args: argparse.Namespace, arch, word_bits: int) -> dict | None:
    """The MAC and per-byte buffer areas of the area split, each `{value, unit, source}`:
    the area flags, else --technology, else the arch's components; None when one is unknown."""
    from tenet.bounds.snowcat import area_constants
    from tenet.model.components import check_node

    if args.technology is not None:
        check_node(args.technology, "--technology", None)
    # --technology wins over the arch's components; the area flags win over both.
    components = arch.components if arch is not None and args.technology is None else None
    return area_constants(
        components,
        args.technology,
        word_bits,
        args.mac_area_um2,
        args.byte_area_um2,
        given=("--mac-area-um2", "--byte-area-um2"),
    )
