"""Pictures with matplotlib (a dependency of tenet; imported only when a plot is asked for)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tenet.errors import InputError

if TYPE_CHECKING:
    from tenet.analysis.trace import Trace


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError(
            "plotting needs matplotlib: pip install matplotlib", option="plot"
        ) from None
    return plt


def comparison_plot(
    workload: str,
    dataflow: str,
    results: list[dict[str, Any]],
    path: str | Path,
    winner: int | None = None,
    winner_note: str = "",
    *,
    priced: Sequence[frozenset[str]] | None = None,
) -> None:
    """Grouped bars, one per column in each group: unique volume per tensor side, latency,
    energy (pJ when every column has component costs, else TENET's unitless energy) and
    link traffic, each group scaled to its largest value. Hatched: the columns the table
    stars in the --best objective's row (`objective_winners`, all tied ones; `priced` as
    there), or the given `winner`; never a column the table leaves unranked (marked `!` in
    the legend). When some column has component costs, two more panels stack each column's
    energy parts in pJ and its area parts in µm²."""
    from tenet.analysis.compare import (
        column_labels,
        cost_ranking,
        objective_winners,
        unranked_columns,
    )

    plt = _pyplot()
    unranked = unranked_columns(results)
    if winner is not None:
        winners = {winner} - unranked
    else:
        winners = objective_winners(results, priced)
        objective = next((r["best"]["objective"] for r in results if "best" in r), None)
        winner_note = winner_note or (f"best {objective}" if objective else "")
    groups, values = _relative_groups(results, cost_ranking(results, priced).energy)
    energy = _stacked_parts(results, "energy_pj")
    area = _stacked_parts(results, "area_um2")
    panels = 1 if energy is None or area is None else 3
    side_width = max(2.6, 0.55 * len(results) + 1.2)
    fig, axes = plt.subplots(
        1,
        panels,
        figsize=(3.0 + 1.2 * len(groups) + (panels - 1) * side_width, 5.2),
        gridspec_kw={"width_ratios": [1.2 * len(groups)] + [side_width] * (panels - 1)},
        layout="constrained",
        squeeze=False,
    )
    ax = axes[0][0]
    labels = column_labels(results)
    legend_labels = list(labels)
    for n in range(len(results)):
        if n in unranked:
            legend_labels[n] += " ! (not ranked)"
        if n in winners:
            legend_labels[n] += f" ★ {winner_note}".rstrip()
    width = 0.8 / len(results)
    for n in range(len(results)):
        heights = [_relative(row, n) for row in values]
        xs = [g + (n - (len(results) - 1) / 2) * width for g in range(len(groups))]
        hatch = "//" if n in winners else None
        ax.bar(
            xs,
            heights,
            width,
            label=legend_labels[n],
            color=f"C{n % 10}",
            hatch=hatch,
            edgecolor="black" if hatch else None,
        )
    ax.set_xticks(range(len(groups)), groups, fontsize=8)
    ax.set_ylim(0, 1.12)  # headroom: the tallest bar (1.0) stays off the frame
    ax.set_ylabel("relative to the largest in each group")
    ax.set_title(f"{workload} · {dataflow}")
    if energy is not None and area is not None:
        missing = [n for n, r in enumerate(results) if r.get("cost") is None]
        _stacked_panel(axes[0][1], labels, energy, "energy (pJ)", "energy breakdown", missing)
        _stacked_panel(axes[0][2], labels, area, "area (µm²)", "area breakdown", missing)
    fig.legend(
        *ax.get_legend_handles_labels(),
        loc="outside lower center",
        ncols=len(results) if len(results) <= 4 else (len(results) + 1) // 2,
        fontsize=8,
        frameon=False,
    )
    save_figure(fig, Path(path), plt)


def _relative(row: list[Any], n: int) -> float:
    """Column n's value over the largest of the row (0 for a missing value)."""
    largest = max((v for v in row if v is not None), default=0)
    return 0.0 if row[n] is None else row[n] / max(largest, 1)


def _relative_groups(
    results: list[dict[str, Any]], energy_ranked: bool
) -> tuple[list[str], list[list[Any]]]:
    """The groups of the relative panel and each group's value per column; the energy in pJ
    says `not ranked` unless `energy_ranked` (`cost_ranking`)."""
    groups, values = [], []
    for tensor, sides in results[0]["tensors"].items():
        for side, v in sides.items():
            if v is not None:
                groups.append(f"{tensor} {side}\nunique")
                values.append([r["tensors"][tensor][side]["unique"] for r in results])
    groups.append("latency")
    values.append([r["delay"]["latency"] for r in results])
    if all(r.get("cost") is not None for r in results):
        groups.append("energy\n(pJ)" if energy_ranked else "energy (pJ)\nnot ranked")
        values.append([r["cost"]["energy_pj"]["total"] for r in results])
    else:
        groups.append("energy\n(TENET, unitless)")
        values.append([r["energy"] for r in results])
    groups.append("link traffic")
    values.append([sum(link["total"] for link in r["links"]) for r in results])
    return groups, values


def _stacked_parts(results: list[dict[str, Any]], key: str) -> dict[str, list[float]] | None:
    """{part: [value per column]} of `cost[key]` (its numbers other than `total`, in the
    JSON's order; 0 for a column without costs; parts 0 everywhere left out), or None when
    no column has costs."""
    costs = [r.get("cost") for r in results]
    if all(c is None or key not in c for c in costs):
        return None
    names: dict[str, None] = {}
    for cost in costs:
        if cost is not None:
            names.update(
                (k, None)
                for k, v in cost.get(key, {}).items()
                if k != "total" and isinstance(v, (int, float))
            )
    parts = {
        part: [0.0 if c is None else float(c.get(key, {}).get(part, 0.0)) for c in costs]
        for part in names
    }
    return {part: heights for part, heights in parts.items() if any(heights)}


def _stacked_panel(
    ax,
    labels: list[str],
    parts: dict[str, list[float]],
    unit: str,
    title: str,
    missing: list[int],
) -> None:
    """One stacked bar per column, named on the x-axis (`missing` columns, without component
    costs, say so instead); the parts' legend above the bars, with room left for it."""
    xs = range(len(labels))
    bottoms = [0.0] * len(labels)
    for n, (part, heights) in enumerate(parts.items()):
        ax.bar(xs, heights, 0.6, bottom=bottoms, label=part, color=f"C{n % 10}", alpha=0.85)
        bottoms = [b + h for b, h in zip(bottoms, heights)]
    ax.set_xticks(xs, labels, rotation=30, ha="right", fontsize=8)
    rows = (len(parts) + 1) // 2  # legend rows, above the tallest bar
    ax.set_ylim(0, max(max(bottoms), 1e-12) * (1.12 + 0.08 * rows))
    for n in missing:
        ax.text(n, 0, "no component costs", rotation=90, ha="center", va="bottom", fontsize=8)
    ax.set_ylabel(unit)
    ax.set_title(title)
    if parts:
        ax.legend(fontsize=7, loc="upper center", ncols=2, frameon=False)


def bound_plots(
    report: dict[str, Any], path: str | Path, lower_bound: list[tuple[int, int]]
) -> list[str]:
    """Ski slope (log-log) with the proven lower bound, OI mesa and, when given, performance
    mesa; returns the files. `lower_bound` is (buffer, bound) sampled along the buffer axis.

    The curve is the front of one mapping space: attained by real schedules but not a lower
    bound (schedules outside the space can move less); the dotted curve is the lower bound."""
    plt = _pyplot()
    base = Path(path)
    written = []
    front = [p for p in report["pareto"] if p["buffer"] > 0]
    xs = [p["buffer"] for p in front]
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    name = _space_label(report["space"], report["imperfect"])
    ax.step(xs, [p["accesses"] for p in front], where="post", label=f"{name} front (attained)")
    ax.axhline(report["algorithmic_minimum"], color="gray", ls="--", label="algorithmic minimum")
    _draw_lower_bound(ax, lower_bound)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("buffer (words)")
    ax.set_ylabel("backing-store accesses (words)")
    ax.set_title(f"ski slope over {name} mappings: {report['einsum']}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    written.append(save_figure(fig, base, plt))
    fig, ax = plt.subplots(figsize=(6.5, 4.0))
    ax.step(xs, [p["oi"] for p in front], where="post")
    ax.set_xscale("log")
    ax.set_xlabel("buffer (words)")
    ax.set_ylabel("operational intensity (ops/byte)")
    ax.set_title(f"OI mesa of the {name} front: {report['einsum']}")
    fig.tight_layout()
    written.append(save_figure(fig, base.with_name(base.stem + "-oi" + base.suffix), plt))
    if "performance" in report:
        mesa = [p for p in report["performance"]["mesa"] if p["buffer"] > 0]
        fig, ax = plt.subplots(figsize=(6.5, 4.0))
        ax.step([p["buffer"] for p in mesa], [p["gops"] for p in mesa], where="post")
        ax.axhline(report["performance"]["peak_gops"], color="gray", ls="--", label="peak compute")
        ax.set_xscale("log")
        ax.set_xlabel("buffer (words)")
        ax.set_ylabel(f"GOPS at the {name} front")
        ax.set_title(f"performance mesa of the {name} front: {report['einsum']}")
        ax.legend(fontsize=8)
        fig.tight_layout()
        written.append(save_figure(fig, base.with_name(base.stem + "-perf" + base.suffix), plt))
    return written


def _space_label(space: str, imperfect: bool) -> str:
    return ("Snowcat" if space == "snowcat" else "uneven") + (" imperfect" if imperfect else "")


def _draw_lower_bound(ax, lower_bound: list[tuple[int, int]]) -> None:
    """The proven floor as a dotted step curve (it only rises as the buffer shrinks)."""
    ax.step(
        [s for s, _ in lower_bound],
        [b for _, b in lower_bound],
        where="post",
        color="black",
        ls=":",
        label="lower bound (every schedule)",
    )


def spaces_plot(
    report: dict[str, Any], path: str | Path, lower_bound: list[tuple[int, int]]
) -> list[str]:
    """`bounds --compare-spaces --plot`: every space's front and the lower bound on one slope."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.0, 4.8))
    styles = ("-", "--", "-.", (0, (5, 1)))
    for (label, s), style in zip(report["spaces"].items(), styles * 2):
        front = [p for p in s["pareto"] if p["buffer"] > 0]
        ax.step(
            [p["buffer"] for p in front],
            [p["accesses"] for p in front],
            where="post",
            ls=style,
            label=f"{label} front",
        )
    ax.axhline(
        report["algorithmic_minimum"], color="gray", ls="--", lw=0.8, label="algorithmic minimum"
    )
    _draw_lower_bound(ax, lower_bound)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("buffer (words)")
    ax.set_ylabel("backing-store accesses (words)")
    ax.set_title(f"mapping spaces and the lower bound: {report['einsum']}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return [save_figure(fig, Path(path), plt)]


def save_figure(fig, path: Path, plt) -> str:
    """Write a figure as PNG and close it; an unwritable path is bad input."""
    try:
        fig.savefig(path, dpi=120)
    except OSError as exc:
        raise InputError(f"cannot write plot: {exc.strerror}", str(path)) from None
    finally:
        plt.close(fig)
    return str(path)


def activity_plot(result: Trace, path: str | Path, title: str) -> None:
    """Heatmap of instances per PE and step over PE utilization per step, on one time axis:
    each step is one column of the heatmap and one flat stretch of the utilization line."""
    import numpy as np
    from matplotlib.ticker import MaxNLocator

    plt = _pyplot()
    activity = result.activity
    steps = activity.shape[1]
    fig, axes = plt.subplots(
        2,
        2,
        figsize=(9, 5.5),
        sharex="col",
        gridspec_kw={"height_ratios": [3, 1], "width_ratios": [40, 1]},
        layout="constrained",
    )
    (top, bar), (bottom, spare) = axes
    spare.axis("off")  # the colorbar's column, so that both panels keep the same width
    most = max(int(activity.max(initial=0)), 1)
    if most <= 16:  # one colour per count, each tick at the middle of its colour
        cmap = plt.get_cmap("viridis", most + 1)
        image = top.imshow(
            activity, aspect="auto", interpolation="nearest", cmap=cmap, vmin=-0.5, vmax=most + 0.5
        )
    else:
        image = top.imshow(activity, aspect="auto", interpolation="nearest", cmap="viridis")
    colorbar = fig.colorbar(image, cax=bar, label="instances")
    colorbar.set_ticks(MaxNLocator(integer=True).tick_values(0, most))
    colorbar.ax.set_ylim(image.get_clim())
    top.set_ylabel("active PE (lexicographic)")
    top.yaxis.set_major_locator(MaxNLocator(integer=True))
    top.set_title(title)
    busy = (activity > 0).sum(axis=0) / result.pe_count
    bottom.stairs(busy, np.arange(steps + 1) - 0.5, baseline=None, lw=1.2)
    bottom.set_xlim(-0.5, steps - 0.5)
    bottom.xaxis.set_major_locator(MaxNLocator(integer=True))
    # Above 1 when the dataflow uses PEs outside the array: shown, not clipped.
    top_value = max(1.0, float(busy.max(initial=0.0)))
    if top_value > 1.0:
        bottom.axhline(1.0, color="gray", ls=":", lw=0.8)
    bottom.set_ylim(0, top_value * 1.05)
    bottom.set_ylabel("utilization")
    bottom.set_xlabel("time step (lexicographic order)")
    bottom.grid(axis="x", alpha=0.3)
    save_figure(fig, Path(path), plt)
