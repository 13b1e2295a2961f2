"""Interconnect presets generated for any PE shape, as isl relations (receiver -> sender).

Each preset returns a list of link specs (relation text, kind, default window and
access); `arch.py` turns them into `Link` objects restricted to the PE domain.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tenet.errors import InputError
from tenet.util.io import did_you_mean


@dataclass(frozen=True)
class LinkSpec:
    """One generated link: isl text and its defaults (user options override them)."""

    relation: str
    name: str
    kind: str = "forward"
    window: tuple[int, ...] = (0, 1)
    access: str = "both"


def _dims(shape: list[int]) -> list[str]:
    return [f"p{k}" for k in range(len(shape))]


def _shifted(shape: list[int], axis: int, delta: int, wrap: bool = False) -> str:
    """{ PE[p] -> PE[p - delta·e_axis] }: the receiver takes from the PE `delta` behind it."""
    dims = _dims(shape)
    target = list(dims)
    if wrap:
        target[axis] = f"({dims[axis]} - ({delta}) + {shape[axis]}) % {shape[axis]}"
    else:
        target[axis] = f"{dims[axis]} - ({delta})"
    return f"{{ PE[{', '.join(dims)}] -> PE[{', '.join(target)}] }}"


def _direction(value: Any, axis: int) -> int:
    if value in ("+", 1, "forward", "down", "right"):
        return 1
    if value in ("-", -1, "backward", "up", "left"):
        return -1
    raise InputError(
        f"direction of axis {axis} must be '+' or '-', got {value!r}", key="directions"
    )


def systolic_1d(shape: list[int], axis: int = 0, direction: Any = "+") -> list[LinkSpec]:
    """Values move one PE per step along `axis` (towards larger indices for '+')."""
    _axis_ok(shape, axis)
    d = _direction(direction, axis)
    return [LinkSpec(_shifted(shape, axis, d), f"systolic axis {axis} ({'+' if d > 0 else '-'})")]


def systolic_2d(shape: list[int], directions: list[Any] | None = None) -> list[LinkSpec]:
    """One systolic link per axis, each with its own direction (default '+' on every axis)."""
    directions = directions or ["+"] * len(shape)
    if len(directions) != len(shape):
        raise InputError(
            f"needs one direction per PE axis ({len(shape)}), got {directions!r}", key="directions"
        )
    return [spec for axis, d in enumerate(directions) for spec in systolic_1d(shape, axis, d)]


def mesh(shape: list[int], wrap: bool = False) -> list[LinkSpec]:
    """Nearest neighbours in both directions on every axis (a torus when `wrap`)."""
    specs = []
    for axis in range(len(shape)):
        for delta in (1, -1):
            name = f"{'torus' if wrap else 'mesh'} axis {axis} ({'+' if delta > 0 else '-'})"
            specs.append(LinkSpec(_shifted(shape, axis, delta, wrap), name))
    return specs


def mesh_diagonal(shape: list[int]) -> list[LinkSpec]:
    """A 2-D mesh plus the four diagonal neighbours."""
    if len(shape) != 2:
        raise InputError("mesh-diagonal needs a 2-D PE array", key="topology")
    specs = mesh(shape)
    for di in (1, -1):
        for dj in (1, -1):
            specs.append(
                LinkSpec(
                    f"{{ PE[p0, p1] -> PE[p0 - ({di}), p1 - ({dj})] }}",
                    f"diagonal ({di:+d}, {dj:+d})",
                )
            )
    return specs


def torus(shape: list[int]) -> list[LinkSpec]:
    return mesh(shape, wrap=True)


def _group(shape: list[int], same_axes: list[int], name: str) -> LinkSpec:
    """Multicast group: PEs that agree on `same_axes` (every PE when empty)."""
    dims = _dims(shape)
    others = [f"q{k}" for k in range(len(shape))]
    cond = [f"{others[a]} = {dims[a]}" for a in same_axes]
    cond_text = " and ".join(cond) if cond else ""
    rel = f"{{ PE[{', '.join(dims)}] -> PE[{', '.join(others)}]" + (
        f" : {cond_text} }}" if cond else " }"
    )
    return LinkSpec(rel, name, kind="multicast", window=(0,))


def row_multicast(shape: list[int]) -> list[LinkSpec]:
    """Every PE of a row (same indices on all axes but the last) shares a value in one
    step; on a 1-D array the row is the whole array."""
    return [_group(shape, list(range(len(shape) - 1)), "row multicast")]


def column_multicast(shape: list[int]) -> list[LinkSpec]:
    """Every PE of a column (same indices on all axes but the first) shares a value in
    one step; on a 1-D array the column is the whole array."""
    return [_group(shape, list(range(1, len(shape))), "column multicast")]


def broadcast(shape: list[int]) -> list[LinkSpec]:
    """Every PE of the array shares a value in one step."""
    return [_group(shape, [], "broadcast")]


def k_hop_multicast(shape: list[int], hops: int = 1) -> list[LinkSpec]:
    """PEs within `hops` steps (Manhattan distance) share a value in one step."""
    if isinstance(hops, bool) or not isinstance(hops, int) or hops < 1:
        raise InputError(f"hops must be a positive integer, got {hops!r}", key="hops")
    dims = _dims(shape)
    others = [f"q{k}" for k in range(len(shape))]
    terms = []
    for signs in _sign_patterns(len(shape)):
        terms.append(
            " + ".join(f"{s}({d} - {o})" for s, d, o in zip(signs, dims, others)) + f" <= {hops}"
        )
    rel = f"{{ PE[{', '.join(dims)}] -> PE[{', '.join(others)}] : {' and '.join(terms)} }}"
    return [LinkSpec(rel, f"{hops}-hop multicast", kind="multicast", window=(0,))]


def _sign_patterns(n: int) -> list[tuple[str, ...]]:
    patterns = [()]
    for _ in range(n):
        patterns = [p + (s,) for p in patterns for s in ("", "-")]
    return patterns


def binary_tree(shape: list[int], mode: str = "reduction") -> list[LinkSpec]:
    """A binary tree over the PEs in row-major order (heap numbering: the parent of
    PE number n is floor((n-1)/2)). Reduction trees carry writes (partial sums) from
    children up to parents; distribution trees carry reads from parents down."""
    if mode not in ("reduction", "distribution"):
        raise InputError(f"mode must be 'reduction' or 'distribution', got {mode!r}", key="mode")
    dims = _dims(shape)
    others = [f"q{k}" for k in range(len(shape))]
    strides = [1] * len(shape)
    for k in range(len(shape) - 2, -1, -1):
        strides[k] = strides[k + 1] * shape[k + 1]
    index = " + ".join(f"{s} * {d}" if s != 1 else d for s, d in zip(strides, dims))
    other_index = " + ".join(f"{s} * {o}" if s != 1 else o for s, o in zip(strides, others))
    pe, qe = f"PE[{', '.join(dims)}]", f"PE[{', '.join(others)}]"
    if mode == "distribution":  # child (receiver) takes from its parent
        rel = f"{{ {pe} -> {qe} : {other_index} = floor(({index} - 1) / 2) and {index} >= 1 }}"
        return [LinkSpec(rel, "distribution tree", access="read")]
    rel = f"{{ {pe} -> {qe} : {index} = floor(({other_index} - 1) / 2) and {other_index} >= 1 }}"
    return [LinkSpec(rel, "reduction tree", access="write")]


def mtia_grid(shape: list[int]) -> list[LinkSpec]:
    """MTIA-like: row and column multicast for inputs, plus a north-to-south and
    west-to-east reduction network for output partial sums."""
    if len(shape) != 2:
        raise InputError("mtia-grid needs a 2-D PE array", key="topology")
    row, col = (
        _group(shape, [0], "row multicast (inputs)"),
        _group(shape, [1], "column multicast (inputs)"),
    )
    return [
        LinkSpec(row.relation, row.name, "multicast", (0,), "read"),
        LinkSpec(col.relation, col.name, "multicast", (0,), "read"),
        LinkSpec(_shifted(shape, 0, 1), "reduction north to south", window=(0, 1), access="write"),
        LinkSpec(_shifted(shape, 1, 1), "reduction west to east", window=(0, 1), access="write"),
    ]


def _axis_ok(shape: list[int], axis: int) -> None:
    if isinstance(axis, bool) or not isinstance(axis, int) or not 0 <= axis < len(shape):
        raise InputError(f"axis must be 0..{len(shape) - 1}, got {axis!r}", key="axis")


#: name -> (generator, its option names)
TOPOLOGIES: dict[str, tuple[Callable[..., list[LinkSpec]], tuple[str, ...]]] = {
    "systolic-1d": (systolic_1d, ("axis", "direction")),
    "systolic-2d": (systolic_2d, ("directions",)),
    "mesh": (mesh, ()),
    "mesh-diagonal": (mesh_diagonal, ()),
    "torus": (torus, ()),
    "row-multicast": (row_multicast, ()),
    "column-multicast": (column_multicast, ()),
    "broadcast": (broadcast, ()),
    "k-hop-multicast": (k_hop_multicast, ("hops",)),
    "binary-tree": (binary_tree, ("mode",)),
    "mtia-grid": (mtia_grid, ()),
}


def generate(name: str, shape: list[int], options: dict[str, Any]) -> list[LinkSpec]:
    """The links of topology `name` on an array of `shape` with its `options`."""
    if name not in TOPOLOGIES:
        raise InputError(
            f"unknown topology {name!r} ({did_you_mean(name, TOPOLOGIES)}known: "
            f"{', '.join(TOPOLOGIES)})",
            key="topology",
        )
    generator, allowed = TOPOLOGIES[name]
    for option in options:
        if option not in allowed:
            known = ", ".join(allowed) or "none"
            raise InputError(
                f"topology {name!r} has no option {option!r} (its options: {known})", key=option
            )
    return generator(shape, **options)
