"""`tenet fuse`: fusion bounds of a chain of einsums, and Chimera's optimizer."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rich import box
from rich.markup import escape
from rich.table import Table

from tenet.bounds.chain import Chain, load_chain
from tenet.bounds.fusion import STRATEGIES, fuse, fusion_report
from tenet.bounds.snowcat import hierarchy_report, word_count
from tenet.cli.common import add_set_argument, emit, parse_assignments, parse_sets
from tenet.errors import InputError
from tenet.formats.presets import resolve_arch, resolve_workload
from tenet.model.arch import load_arch
from tenet.report.progress import progress_bar
from tenet.report.tables import render_tables, to_json


def add_fuse_parser(sub) -> None:
    strategies = "; ".join(f"{k}: {v}" for k, v in STRATEGIES.items())
    p = sub.add_parser(
        "fuse",
        help="least traffic over fused mappings of a chain of einsums (unfused, untiled, tiled, "
        "best segmentation)",
        description="Orojenesis fusion fronts for a chain workload (a YAML with 'einsums:' and "
        "'bounds:'): the unfused front (each einsum's own slope, summed), untiled fusion "
        "(intermediates whole on chip), tiled fusion with the FFMT templates, and the best "
        "of every way to cut the chain into fused segments. Each point is reached by a schedule "
        "whose peak of live words is its buffer; other schedules (e.g. ones that recompute) can "
        "move less. With --chimera, Chimera's "
        "analytical model of one block order, or its search at a capacity.",
    )
    p.add_argument("-w", "--workload", required=True, metavar="FILE", help="chain YAML or preset")
    add_set_argument(p)
    p.add_argument(
        "--templates",
        default="ffmt",
        metavar="NAME[,NAME...]",
        help=f"strategy for 'tiled' and segments; more names add fronts to compare ({strategies})",
    )
    p.add_argument(
        "--no-segmentation", action="store_true", help="skip the search over segmentations"
    )
    p.add_argument(
        "--buffer-rule",
        choices=("live", "paper"),
        default="live",
        help="buffer of a fused segment: 'live' (default), the peak of live words of its loop "
        "nest; 'paper', the published artifact's rule, to reproduce its figures (its points "
        "may be unattainable: it misses tiles kept across a loop shared by two products)",
    )
    p.add_argument(
        "--at",
        action="append",
        default=[],
        metavar="SIZE",
        help="read every front at a buffer size: words, or bytes with a unit (16MiB, 50MB)",
    )
    p.add_argument(
        "--word-bits", type=int, default=None, help="bits per word (default: the chain's, else 16)"
    )
    p.add_argument(
        "-a", "--arch", metavar="FILE", help="arch with memory 'levels': bound between each pair"
    )
    p.add_argument("--macs-per-cycle", type=float, help="peak MACs per cycle (for the bottleneck)")
    p.add_argument("--clock-ghz", type=float, default=1.0, help="clock in GHz (default 1)")
    group = p.add_argument_group("Chimera (HPCA 2023) analytical optimizer")
    group.add_argument("--chimera", action="store_true", help="use Chimera's model instead")
    group.add_argument("--order", help="block order, outermost first: 'mlkn' or 'm,l,k,n'")
    group.add_argument("--tiles", help="tile sizes NAME=SIZE,... (default: whole loops)")
    group.add_argument(
        "--capacity", help="search every order and tile under this many words (or 1MiB, ...)"
    )
    group.add_argument(
        "--chimera-model",
        default="paper",
        metavar="MODEL",
        help="'paper' (default): Algorithm 1 as printed, every order accepted (incomplete "
        "tiles get a warning); 'producer-rerun': later operators' loops re-run an earlier "
        "operator, edge tiles at their real size, incomplete-tile orders rejected; 'strict': "
        "producer-rerun with outputs charged read-modify-write and every live tile counted "
        "(comparable with the fusion bounds)",
    )
    group.add_argument(
        "--perfect", action="store_true", help="search only tiles that divide their loops"
    )
    group = p.add_argument_group("output")
    group.add_argument("--format", choices=("table", "json"), default="table", help="output format")
    group.add_argument("-o", "--output", metavar="FILE", help="write the result to FILE")
    p.add_argument("--plot", metavar="FILE.png", help="draw every front on one log-log plot")


def _bytes(words: int, word_bits: int) -> str:
    value = words * word_bits / 8
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{value:,.0f} {unit}" if unit == "B" else f"{value:,.2f} {unit}"
        value /= 1024
    return ""


def default_sizes(report: dict[str, Any]) -> list[tuple[str, int]]:
    """Powers of two in bytes from the smallest to past the largest effectual buffer."""
    word_bytes = report["word_bits"] / 8
    fronts = [report[k] for k in ("unfused", "tiled", "best_segmentation") if report[k]]
    if not fronts:
        return []
    low = min(f[0]["buffer"] for f in fronts) * word_bytes
    high = max(f[-1]["buffer"] for f in fronts) * word_bytes
    sizes, size = [], 1024
    while size < low:
        size *= 2
    while size <= 2 * high:
        sizes.append(size)
        size *= 4
    names = []
    for s in sizes:
        unit = next((u for u, v in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)) if s >= v), "B")
        scale = {"GiB": 2**30, "MiB": 2**20, "KiB": 2**10, "B": 1}[unit]
        names.append((f"{s // scale}{unit}", int(s // word_bytes)))
    return names


def fuse_tables(report: dict[str, Any]) -> list[Table]:
    bits = report["word_bits"]
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
    summary.add_row("segmentations searched", f"{report['segmentations']:,}")
    tables = [summary]
    rows = report.get("at") or []
    if rows:
        keys = ["unfused", "untiled", "tiled", "best_segmentation", *report.get("strategies", {})]
        lookups = Table(title="backing-store accesses (words) at buffer size", box=box.SIMPLE_HEAVY)
        lookups.add_column("size")
        lookups.add_column("bytes", justify="right")
        for key in keys:
            lookups.add_column(key.replace("_", " "), justify="right")
        lookups.add_column("best gain", justify="right")
        for row in rows:
            gain = row.get("best_segmentation_gain")
            lookups.add_row(
                escape(row["size"]),
                _bytes(row["words"], bits),
                *[f"{row[k]:,}" if row[k] is not None else "-" for k in keys],
                f"{gain:.2f}x" if gain else "-",
            )
        tables.append(lookups)
    best = Table(title="best segmentation (ski slope)", box=box.SIMPLE_HEAVY)
    for col in ("buffer (words)", "bytes", "accesses", "segments"):
        best.add_column(col, justify="left" if col == "segments" else "right")
    for p in report["best_segmentation"] or report["tiled"]:
        best.add_row(
            f"{p['buffer']:,}",
            _bytes(p["buffer"], bits),
            f"{p['accesses']:,}",
            escape(p.get("segments", "")),
        )
    tables.append(best)
    for warning in report.get("warnings", []):
        tables[-1].caption = escape(f"warning: {warning}")
    if "hierarchy" in report:
        levels = Table(title="memory hierarchy (best segmentation)", box=box.SIMPLE_HEAVY)
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
    return tables


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
    for name, front in fronts.items():
        if front:
            xs = [p["buffer"] * word_bytes for p in front]
            ax.step(xs, [p["accesses"] for p in front], where="post", label=name)
    minimum = report["algorithmic_minimum"]
    ax.axhline(minimum["fused"], color="gray", ls="--", lw=0.8, label="fused algorithmic minimum")
    ax.axhline(
        minimum["unfused"], color="gray", ls=":", lw=0.8, label="unfused algorithmic minimum"
    )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("buffer (bytes)")
    ax.set_ylabel("backing-store accesses (words)")
    ax.set_title(f"fusion bounds: {report['chain']}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return save_figure(fig, Path(path), plt)


def _chimera(args: argparse.Namespace, chain: Chain) -> dict[str, Any]:
    from tenet.bounds import chimera

    model = chimera.check_model(args.chimera_model, "--chimera-model")
    ops = chimera.chimera_ops([(e.name, e.text) for e in chain.einsums], chain.sizes, chain.source)
    loops = list(dict.fromkeys(r for e in chain.einsums for r in e.ranks))
    if args.capacity is not None:
        capacity = word_count(args.capacity, args.word_bits, "--capacity")
        with progress_bar("searching block orders and tiles") as tick:
            result = chimera.search(ops, capacity, progress=tick, model=model, perfect=args.perfect)
        if args.order is None:
            return result
    if args.order is None:
        raise InputError("--chimera needs --order (with optional --tiles) or --capacity", "--order")
    tiles = {}
    if args.tiles:
        tiles = parse_assignments(args.tiles.split(","), "--tiles")
    one = chimera.evaluate_order(ops, chimera.parse_order(args.order, loops), tiles, model)
    if args.capacity is not None:
        one["best"] = result["best"]
        one["capacity"] = result["capacity"]
        one["perfect"] = result["perfect"]
        one["evaluated"] = result.get("evaluated")
    return one


def run_fuse(args: argparse.Namespace) -> int:
    overrides = parse_sets(args.set)
    chain = load_chain(resolve_workload(args.workload), overrides)
    if args.word_bits is not None:
        if args.word_bits < 1:
            raise InputError(f"must be positive, got {args.word_bits}", "--word-bits")
        chain.word_bits = args.word_bits
    else:
        args.word_bits = chain.word_bits
    if args.chimera:
        report = _chimera(args, chain)
        if args.format == "json":
            emit(to_json(report) + "\n", args.output)
        else:
            emit(chimera_text(report), args.output)
        return 0
    if args.order or args.tiles or args.capacity:
        raise InputError("--order, --tiles and --capacity go with --chimera", "--chimera")
    names = [s.strip() for s in args.templates.split(",") if s.strip()]
    for name in names:
        if name not in STRATEGIES:
            raise InputError(
                f"unknown strategy {name!r} (choose from {', '.join(STRATEGIES)})", "--templates"
            )
    if not names:
        raise InputError("give at least one strategy", "--templates")
    arch = load_arch(resolve_arch(args.arch)) if args.arch else None
    if arch is not None and not arch.levels:
        raise InputError("the arch has no 'levels' (a memory hierarchy)", arch.source, "levels")
    at = [(text, word_count(text, chain.word_bits)) for text in args.at]
    with progress_bar("fusing the chain") as tick:
        result = fuse(
            chain,
            names[0],
            tuple(names[1:]),
            not args.no_segmentation,
            progress=tick,
            rule=args.buffer_rule,
        )
    report = fusion_report(result, at)
    if not at and args.format == "table":
        report = fusion_report(result, default_sizes(report))
    if arch is not None:
        front = report["best_segmentation"] or report["tiled"]
        report["hierarchy"] = hierarchy_report(
            front,
            arch.levels,
            chain.word_bits,
            sum(chain.size_of(e.ranks) for e in chain.einsums if not e.elementwise),
            args.macs_per_cycle,
            args.clock_ghz,
        )
    if args.plot:
        fusion_plot(report, args.plot)
    if args.format == "json":
        emit(to_json(report) + "\n", args.output)
    else:
        color = not args.output and sys.stdout.isatty()
        emit(render_tables(fuse_tables(report), color), args.output)
    return 0


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
