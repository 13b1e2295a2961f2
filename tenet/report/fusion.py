"""Fusion fronts (`tenet fuse`) and Chimera's answers as tables, text and a plot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich import box
from rich.markup import escape
from rich.table import Table


def _bytes(words: int, word_bits: int) -> str:
    value = words * word_bits / 8
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{value:,.0f} {unit}" if unit == "B" else f"{value:,.2f} {unit}"
        value /= 1024
    return ""


def fuse_tables(report: dict[str, Any]) -> list[Table]:
    """Summary, lookups at buffer sizes, the ski slope of the best segmentation (of tiled
    fusion when segmentations were not searched) and the memory hierarchy."""
    bits = report["word_bits"]
    segmented = bool(report["best_segmentation"])
    slope = "best segmentation" if segmented else f"tiled fusion, {report['strategy']}"
    summary = Table(
        title=escape(f"fusion bounds: {report['chain']}"), box=box.SIMPLE_HEAVY, show_header=False
    )
    summary.add_column("metric", style="bold")
    summary.add_column("value", justify="right")
    summary.add_row("einsums", escape(" -> ".join(e["name"] for e in report["einsums"])))
    summary.add_row(
        "runs (linked einsums)", escape(" ; ".join(" > ".join(r) for r in report["runs"]))
    )
    summary.add_row("strategy", report["strategy"])
    summary.add_row("buffer rule", report["buffer_rule"])
    summary.add_row("algorithmic minimum, unfused", f"{report['algorithmic_minimum']['unfused']:,}")
    summary.add_row("algorithmic minimum, fused", f"{report['algorithmic_minimum']['fused']:,}")
    searched = f"{report['segmentations']:,}" if segmented else "none (not searched)"
    summary.add_row("segmentations searched", searched)
    tables = [summary]
    rows = report.get("at") or []
    if rows:
        keys = ["unfused", "untiled", "tiled", "best_segmentation", *report.get("strategies", {})]
        if not segmented:
            keys.remove("best_segmentation")
        if "uneven" in report:
            keys.append("uneven")
        if "lower_bound" in rows[0]:
            keys.append("lower_bound")
        lookups = Table(title="backing-store accesses (words) at buffer size", box=box.SIMPLE_HEAVY)
        lookups.add_column("size")
        lookups.add_column("bytes", justify="right")
        for key in keys:
            name = "floor (any schedule)" if key == "lower_bound" else key.replace("_", " ")
            lookups.add_column(name, justify="right")
        if segmented:
            lookups.add_column("best gain", justify="right")
        for row in rows:
            gain = row.get("best_segmentation_gain")
            lookups.add_row(
                escape(row["size"]),
                _bytes(row["words"], bits),
                *[f"{row[k]:,}" if row[k] is not None else "-" for k in keys],
                *([f"{gain:.2f}x" if gain else "-"] if segmented else []),
            )
        tables.append(lookups)
    slopes = [(slope, report["best_segmentation"] or report["tiled"])]
    if "uneven" in report:
        slopes.append(("uneven space", report["uneven"]))
    for title, front in slopes:
        best = Table(title=escape(f"{title} (ski slope)"), box=box.SIMPLE_HEAVY)
        floor = bool(front) and "lower_bound" in front[0]
        columns = ("buffer (words)", "bytes", "accesses")
        columns += (("floor",) if floor else ()) + (("segments",) if segmented else ())
        for col in columns:
            best.add_column(col, justify="left" if col == "segments" else "right")
        for p in front:
            cells = [f"{p['buffer']:,}", _bytes(p["buffer"], bits), f"{p['accesses']:,}"]
            if floor:
                cells.append(f"{p['lower_bound']:,}")
            best.add_row(*cells, *([escape(p.get("segments", ""))] if segmented else []))
        tables.append(best)
    for warning in report.get("warnings", []):
        tables[-1].caption = escape(f"warning: {warning}")
    if "hierarchy" in report:
        levels = Table(title=escape(f"memory hierarchy ({slope})"), box=box.SIMPLE_HEAVY)
        for col in ("levels", "capacity (words)", "accesses", "seconds"):
            levels.add_column(col, justify="left" if col == "levels" else "right")
        for pair in report["hierarchy"]["levels"]:
            levels.add_row(
                escape(f"{pair['inner']} <-> {pair['outer']}"),
                f"{pair['capacity_words']:,}",
                f"{pair['accesses']:,}" if pair["accesses"] is not None else "-",
                f"{pair['seconds']:.4g}" if pair["seconds"] is not None else "-",
            )
        tables.append(levels)
        tables[-1].caption = f"bottleneck: {report['hierarchy']['bottleneck']}"
    if "area_split" in report:
        tables.append(area_split_table(report["area_split"]))
    return tables


def area_split_table(split: dict[str, Any]) -> Table:
    """The best buffer/MAC split of the chip area, unfused and fused, with the component
    areas it used and their sources."""
    table = Table(
        title=escape(f"best buffer/MAC split of {split['area_mm2']:g} mm²"), box=box.SIMPLE_HEAVY
    )
    for name, justify in (
        ("design", "left"),
        ("buffer", "right"),
        ("buffer area", "right"),
        ("MACs", "right"),
        ("GOPS", "right"),
    ):
        table.add_column(name, justify=justify)
    fused = f"fused ({split['fused_front'].replace('_', ' ')})"
    for label, key in (("unfused", "unfused"), (fused, "fused")):
        best = split[key]["best"]
        table.add_row(
            escape(label),
            _bytes(best["buffer"], split["word_bits"]),
            f"{100 * best['buffer_share']:.1f}%",
            f"{best['macs']:,}",
            f"{best['gops']:,.0f}",
        )
    ratio_buffer, ratio_gops = split["buffer_area_ratio"], split["throughput_ratio"]
    lines = []
    if ratio_buffer is not None and ratio_gops is not None:
        change = 100 * abs(1 - ratio_buffer)
        word = "less" if ratio_buffer < 1 else "more"
        lines.append(
            f"fused / unfused: buffer area x{ratio_buffer:.2f} ({change:.0f}% {word}), "
            f"throughput x{ratio_gops:.2f}"
        )
    for key, label in (("mac_area_um2", "MAC"), ("byte_area_um2", "buffer byte")):
        entry = split[key]
        lines.append(f"{label}: {entry['value']:,.6g} µm² ({entry['source']})")
    table.caption = escape("\n".join(lines))
    return table


MIB = 2**20  # bytes: the plot's buffer axis is in MiB, as the tables' sizes are


def fusion_plot(report: dict[str, Any], path: str) -> str:
    from tenet.report.plots import _pyplot, save_figure

    plt = _pyplot()
    word_bytes = report["word_bits"] / 8
    fig, ax = plt.subplots(figsize=(7.0, 4.8))
    fronts = {
        "unfused": report["unfused"],
        "untiled fusion": report["untiled"],
        f"tiled fusion ({report['strategy']})": report["tiled"],
        "best segmentation": report["best_segmentation"],
    }
    for name, front in report.get("strategies", {}).items():
        fronts[f"tiled fusion ({name})"] = front
    if "uneven" in report:
        fronts["uneven space"] = report["uneven"]
    for name, front in fronts.items():
        if front:  # a front of one point is a marker (a step needs two to show)
            xs = [p["buffer"] * word_bytes / MIB for p in front]
            marker = "o" if len(front) == 1 else None
            ax.step(xs, [p["accesses"] for p in front], where="post", label=name, marker=marker)
    floor = sorted(
        {(p["buffer"], p["lower_bound"]) for f in fronts.values() for p in f if "lower_bound" in p}
    )
    if floor:
        ax.step(
            [b * word_bytes / MIB for b, _ in floor],
            [v for _, v in floor],
            where="post",
            color="black",
            lw=1.2,
            ls="-.",
            label="floor (any schedule)",
        )
    minimum = report["algorithmic_minimum"]
    ax.axhline(minimum["fused"], color="gray", ls="--", lw=0.8, label="fused algorithmic minimum")
    ax.axhline(
        minimum["unfused"], color="gray", ls=":", lw=0.8, label="unfused algorithmic minimum"
    )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("buffer (MiB, as in the tables)")
    ax.set_ylabel("backing-store accesses (words)")
    ax.set_title(f"fusion bounds: {report['chain']}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save_figure(fig, Path(path), plt)


def chimera_text(report: dict[str, Any]) -> str:
    def numbers(result: dict[str, Any]) -> list[str]:
        out = [
            f"  data movement (words): {result['dv']:,}",
            f"  memory use (words):    {result['mu']:,}",
        ]
        if result.get("dv_rmw") is None:
            out.append("  strict: rejects this order (incomplete tiles)")
        else:
            out.append(
                f"  strict: data movement {result['dv_rmw']:,}, live memory {result['mu_live']:,}"
            )
        out.extend(f"  warning: {w}" for w in result.get("warnings") or ())
        return out

    lines = []
    if "order" in report:
        tiles = ", ".join(f"{k}={v}" for k, v in report["tiles"].items())
        lines.append(f"order {report['order']}  tiles {tiles}")
        lines.append(f"  model: {report.get('model')}")
        lines.extend(numbers(report))
    if "best" in report:
        best = report["best"]
        tiles = ", ".join(f"{k}={v}" for k, v in best["tiles"].items())
        lines.append(
            f"best under {report['capacity']:,} words: order {best['order']}  tiles {tiles}"
        )
        lines.extend(numbers(best))
        lines.append(f"  model: {best.get('model')}, divisor tiles only: {report.get('perfect')}")
        if report.get("evaluated") is not None:
            lines.append(f"  choices evaluated:     {report['evaluated']:,}")
    return "\n".join(lines) + "\n"
