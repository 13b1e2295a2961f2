"""Draw the interconnect topology presets of `tenet.topology` as small PNGs.

    python docs/topologies/draw.py            # writes docs/topologies/NAME.png

For every preset the links are generated on a small array with `generate`, restricted
to the PE box with islpy and enumerated pair by pair (isl `foreach_point` on the wrapped relation). Relations are receiver -> sender,
so each forward link is drawn as an arrow from the SENDER to the RECEIVER (the way the
data moves). A multicast group holds every pair of its members, which would clutter the
picture, so only the group of one highlighted PE is drawn: its members are shaded and
joined to it by thin lines.

Layout: in PE[i, j], i is the row (growing downwards) and j the column (growing to the
right); a 1-D array is one row. The binary trees are laid out as trees (PE number n at
heap position n), labelled with their PE index.
"""

from __future__ import annotations

import sys
from pathlib import Path

import islpy as isl
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.lines import Line2D
from matplotlib.patches import FancyArrowPatch

from tenet.model.arch import pe_domain_from_shape
from tenet.model.topology import TOPOLOGIES, generate

OUT = Path(__file__).resolve().parent
DPI = 100

#: name -> (shape, options, highlighted PE of the multicast groups)
CASES: dict[str, tuple[list[int], dict, tuple[int, ...]]] = {
    "systolic-1d": ([8], {}, ()),
    "systolic-2d": ([4, 4], {}, ()),
    "mesh": ([4, 4], {}, ()),
    "mesh-diagonal": ([4, 4], {}, ()),
    "torus": ([4, 4], {}, ()),
    "row-multicast": ([4, 4], {}, (1, 1)),
    "column-multicast": ([4, 4], {}, (1, 1)),
    "broadcast": ([4, 4], {}, (1, 1)),
    "k-hop-multicast": ([5, 5], {"hops": 1}, (2, 2)),
    "binary-tree": ([15], {}, ()),  # both modes, one panel each
    "mtia-grid": ([4, 4], {}, (1, 1)),
}

ACCESS_COLOUR = {"both": "#333333", "read": "#1f77b4", "write": "#d62728"}
GROUP_COLOURS = ["#2ca02c", "#9467bd"]


def pairs_of(umap: isl.UnionMap) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """All (receiver, sender) coordinate pairs of a finite PE -> PE relation."""
    out = []

    def per_map(m: isl.Map) -> None:
        n_in, n_out = m.dim(isl.dim_type.in_), m.dim(isl.dim_type.out)

        def per_point(point: isl.Point) -> None:
            xs = [
                point.get_coordinate_val(isl.dim_type.set, k).to_python()
                for k in range(n_in + n_out)
            ]
            out.append((tuple(xs[:n_in]), tuple(xs[n_in:])))

        m.wrap().foreach_point(per_point)

    umap.foreach_map(per_map)
    return out


def links(name: str, shape: list[int], options: dict):
    """[(spec, [(receiver coords, sender coords), ...])] restricted to the PE box."""
    box = pe_domain_from_shape(shape)
    out = []
    for spec in generate(name, shape, options):
        rel = isl.UnionMap(spec.relation).intersect_domain(box).intersect_range(box)
        out.append((spec, pairs_of(rel)))
    return out


def grid_position(pe: tuple[int, ...]) -> tuple[float, float]:
    """PE[i, j] at x = j, y = -i (rows grow downwards); PE[i] at x = i."""
    if len(pe) == 1:
        return float(pe[0]), 0.0
    return float(pe[1]), -float(pe[0])


def tree_position(pe: tuple[int, ...]) -> tuple[float, float]:
    """PE number n at its heap position: level floor(log2(n+1)), evenly spaced."""
    n = pe[0]
    level = (n + 1).bit_length() - 1
    first = 2**level - 1
    slots = 2**level
    return (n - first + 0.5) * (8.0 / slots), -1.2 * level


def adjacent(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1])) <= 1.01


def draw_pes(ax, shape: list[int], position, label: bool = False) -> None:
    for pe in _box_points(shape):
        x, y = position(pe)
        ax.plot(x, y, "o", color="white", markeredgecolor="black", markersize=11, zorder=3)
        if label:
            ax.text(x, y, str(pe[0]), ha="center", va="center", fontsize=6, zorder=4)


def _box_points(shape: list[int]) -> list[tuple[int, ...]]:
    points = [()]
    for n in shape:
        points = [p + (k,) for p in points for k in range(n)]
    return points


def draw_forward(ax, pairs, position, colour: str) -> None:
    """Arrows sender -> receiver; a pair linked both ways gets one double-headed arrow.
    A wrap-around link (between PEs on opposite edges of the grid) is drawn as two
    stubs leaving the array at both ends, so it does not cross the PEs in between."""
    pairs = {(r, s) for r, s in pairs if r != s}
    done = set()
    for recv, send in sorted(pairs):
        if (recv, send) in done:
            continue
        both = (send, recv) in pairs
        done |= {(recv, send), (send, recv)}
        a, b = position(send), position(recv)
        if position is grid_position and not adjacent(a, b):
            _wrap_stubs(ax, a, b, both, colour)
            continue
        _arrow(ax, a, b, "<|-|>" if both else "-|>", colour)


def _arrow(ax, a, b, style: str, colour: str, shrink_b: float = 6) -> None:
    ax.add_patch(
        FancyArrowPatch(
            a,
            b,
            arrowstyle=style,
            mutation_scale=8,
            color=colour,
            linewidth=1.0,
            shrinkA=6,
            shrinkB=shrink_b,
            zorder=2,
        )
    )


def _wrap_stubs(ax, a, b, both: bool, colour: str) -> None:
    """Sender a, receiver b on opposite edges: a stub out of a and a stub into b."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    norm = max(abs(dx), abs(dy))
    ux, uy = dx / norm, dy / norm  # from a towards b, through the array
    out_of_a = (a[0] - 0.45 * ux, a[1] - 0.45 * uy)  # leaving a away from b
    into_b = (b[0] + 0.45 * ux, b[1] + 0.45 * uy)  # arriving at b from outside
    if both:
        _arrow(ax, a, out_of_a, "<|-|>", colour, shrink_b=0)
        _arrow(ax, into_b, b, "<|-|>", colour, shrink_b=6)
    else:
        _arrow(ax, a, out_of_a, "-|>", colour, shrink_b=0)
        _arrow(ax, into_b, b, "-|>", colour, shrink_b=6)


def draw_group(ax, pairs, position, highlight: tuple[int, ...], colour: str, offset: float):
    """Shade the members of `highlight`'s group and join them to it with thin lines."""
    members = sorted({send for recv, send in pairs if recv == highlight})
    hx, hy = position(highlight)
    for pe in members:
        x, y = position(pe)
        ax.plot(x + offset, y + offset, "s", color=colour, alpha=0.30, markersize=19, zorder=1)
        if pe != highlight:
            ax.plot([hx, x], [hy, y], color=colour, linewidth=0.8, alpha=0.8, zorder=1)
    ax.plot(hx, hy, "*", color="black", markersize=9, zorder=5)


def finish(ax, title: str, shape: list[int], position) -> None:
    xs, ys = zip(*(position(p) for p in _box_points(shape)))
    pad = 0.9
    ax.set_xlim(min(xs) - pad, max(xs) + pad)
    ax.set_ylim(min(ys) - pad, max(ys) + pad)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title, fontsize=9)


def draw_panel(ax, name: str, shape: list[int], options: dict, highlight, position) -> list:
    """One topology on one axis; returns legend handles (empty when one style only)."""
    handles, styles = [], set()
    groups = 0
    for spec, pairs in links(name, shape, options):
        if spec.kind == "multicast":
            colour = GROUP_COLOURS[groups % len(GROUP_COLOURS)]
            draw_group(ax, pairs, position, highlight, colour, 0.06 * groups)
            groups += 1
            handles.append(Line2D([], [], color=colour, lw=6, alpha=0.4, label=spec.name))
            styles.add(("multicast", spec.name))
        else:
            colour = ACCESS_COLOUR[spec.access]
            draw_forward(ax, pairs, position, colour)
            if ("forward", spec.access) not in styles:
                styles.add(("forward", spec.access))
                label = {"both": "forward", "read": "forward (reads)", "write": "forward (writes)"}
                handles.append(Line2D([], [], color=colour, lw=1.5, label=label[spec.access]))
    draw_pes(ax, shape, position, label=position is tree_position)
    return handles if len(styles) > 1 else []


def describe(name: str, shape: list[int], options: dict) -> str:
    dims = "x".join(map(str, shape))
    opts = ", ".join(f"{k}={v}" for k, v in options.items())
    return f"{name} ({dims}{', ' + opts if opts else ''})"


def draw(name: str) -> Path:
    shape, options, highlight = CASES[name]
    path = OUT / f"{name}.png"
    if name == "binary-tree":
        fig, axes = plt.subplots(1, 2, figsize=(8.0, 3.0))
        for ax, mode in zip(axes, ("reduction", "distribution")):
            draw_panel(ax, name, shape, {"mode": mode}, highlight, tree_position)
            flow = "partial sums up, writes" if mode == "reduction" else "inputs down, reads"
            finish(ax, f"binary-tree, mode={mode} (15 PEs)\n{flow}", shape, tree_position)
    else:
        wide = len(shape) == 1
        fig, ax = plt.subplots(figsize=(5.0, 1.6) if wide else (4.0, 4.0))
        handles = draw_panel(ax, name, shape, options, highlight, grid_position)
        title = describe(name, shape, options)
        if highlight:
            title += f"\n\u2605 = PE{list(highlight)}, shaded: its group"
        elif name == "torus":
            title += "\nstubs at the edges: wrap-around links"
        finish(ax, title, shape, grid_position)
        if handles:
            ax.legend(
                handles=handles,
                fontsize=6,
                loc="upper center",
                bbox_to_anchor=(0.5, 0.02),
                ncol=2,
                frameon=False,
            )
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def main(names: list[str]) -> None:
    missing = set(TOPOLOGIES) - set(CASES)
    if missing:
        sys.exit(f"no drawing case for: {', '.join(sorted(missing))}")
    for name in names or list(TOPOLOGIES):
        print(draw(name))


if __name__ == "__main__":
    main(sys.argv[1:])
