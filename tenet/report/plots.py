"""Pictures with matplotlib (a dependency of tenet; imported only when a plot is asked for)."""

from __future__ import annotations

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
        raise InputError("plotting needs matplotlib: pip install matplotlib", "--plot") from None
    return plt


def comparison_plot(
    workload: str,
    dataflow: str,
    results: list[dict[str, Any]],
    path: str | Path,
    winner: int | None = None,
    winner_note: str = "",
) -> None:
    """Grouped bars, one per arch in each group: unique volume per tensor side, latency,
    energy and link traffic, each group scaled to its largest value. The `winner` column's
    bars are hatched and its legend entry says `winner_note`. When every result has
    component costs, a second panel stacks each column's energy parts in pJ."""
    from tenet.analysis.compare import energy_breakdown

    plt = _pyplot()
    groups, values = [], []
    for tensor, sides in results[0]["tensors"].items():
        for side, v in sides.items():
            if v is not None:
                groups.append(f"{tensor} {side}\nunique")
                values.append([r["tensors"][tensor][side]["unique"] for r in results])
    groups += ["latency", "energy", "link traffic"]
    values.append([r["delay"]["latency"] for r in results])
    values.append([r["energy"] for r in results])
    values.append([sum(link["total"] for link in r["links"]) for r in results])
    parts = energy_breakdown(results)
    width_in = min(16.0, 3.0 + 1.3 * len(groups))
    if parts is None:
        fig, ax = plt.subplots(figsize=(width_in, 4.5))
    else:
        fig, (ax, energy_ax) = plt.subplots(
            1,
            2,
            figsize=(width_in + 2.0 + 0.8 * len(results), 4.5),
            gridspec_kw={"width_ratios": [len(groups), max(2, len(results))]},
        )
    width = 0.8 / len(results)
    labels = [_column_label(r) for r in results]
    if winner is not None:
        labels[winner] += f" ★ {winner_note}".rstrip()
    for n, result in enumerate(results):
        heights = [row[n] / max(max(row), 1) for row in values]
        xs = [g + (n - (len(results) - 1) / 2) * width for g in range(len(groups))]
        hatch = "//" if n == winner else None
        ax.bar(
            xs, heights, width, label=labels[n], hatch=hatch, edgecolor="black" if hatch else None
        )
    ax.set_xticks(range(len(groups)), groups, fontsize=8)
    ax.set_ylabel("relative to the largest in each group")
    ax.set_title(f"{workload} · {dataflow}")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    if parts is not None:
        bottoms = [0.0] * len(results)
        for part, pj in parts.items():
            energy_ax.bar(range(len(results)), pj, 0.6, bottom=bottoms, label=part)
            bottoms = [b + v for b, v in zip(bottoms, pj)]
        energy_ax.set_xticks(range(len(results)), [str(n + 1) for n in range(len(results))])
        energy_ax.set_xlabel("column (legend order)")
        energy_ax.set_ylabel("energy (pJ)")
        energy_ax.set_title("energy breakdown")
        energy_ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, Path(path), plt)


def _column_label(result: dict[str, Any]) -> str:
    """The arch, and the dataflow when the columns run different ones (compare --best)."""
    if "notation" in result:
        return f"{result['arch']} · {result['dataflow']}"
    return result["arch"]


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
