"""`tenet fuse`: fusion bounds of a chain of einsums, and Chimera's optimizer."""

from __future__ import annotations

import argparse
from typing import Any

from tenet.bounds.templates import STRATEGIES
from tenet.cli.common import (
    add_output,
    add_set_argument,
    color_for,
    emit,
    parse_assignments,
    parse_sets,
    warnings_to_stderr,
)
from tenet.errors import InputError
from tenet.util.io import did_you_mean

EXAMPLE = "example: tenet fuse -w gpt3-ffn --at 10MiB --at 257MiB"


def add_parser(sub) -> None:
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
        epilog=EXAMPLE,
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
        "--space",
        choices=("templates", "uneven"),
        default="templates",
        help="'uneven' adds the front of a larger space: every tensor's tile, intermediates "
        "included, at its own position in the fused nest, intermediates kept or spilled "
        "(docs/fusion.md, 'The uneven space')",
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
        help="read every front at buffer sizes: words, or bytes with a unit (16MiB, 50MB); "
        "repeat the flag or separate sizes with commas",
    )
    p.add_argument(
        "--word-bits", type=int, default=None, help="bits per word (default: the chain's, else 16)"
    )
    p.add_argument(
        "-a", "--arch", metavar="FILE", help="arch with memory 'levels': bound between each pair"
    )
    p.add_argument("--macs-per-cycle", type=float, help="peak MACs per cycle (for the bottleneck)")
    p.add_argument("--clock-ghz", type=float, default=1.0, help="clock in GHz (default 1)")
    area = p.add_argument_group(
        "area split: the best buffer/MAC split of a chip area, unfused and fused"
    )
    area.add_argument("--area-mm2", type=float, help="chip area to split between buffer and MACs")
    area.add_argument("--bandwidth-gbps", type=float, help="backing-store bandwidth in GB/s")
    area.add_argument("--mac-area-um2", type=float, help="area of one MAC in um^2")
    area.add_argument("--byte-area-um2", type=float, help="area of one buffer byte in um^2")
    area.add_argument(
        "--technology",
        type=int,
        metavar="NM",
        help="MAC and per-byte buffer areas from the built-in component library at this node "
        "(docs/components.md); without it, from the -a arch's technology:/components:",
    )
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
    add_output(p, ("table", "json"))
    p.add_argument("--plot", metavar="FILE.png", help="draw every front on one log-log plot")


def _chimera(args: argparse.Namespace, chain) -> dict[str, Any]:
    from tenet.bounds import chimera
    from tenet.bounds.snowcat import word_count
    from tenet.report.progress import progress_bar

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


def _area_constants(args: argparse.Namespace, arch, word_bits: int) -> dict | None:
    """The MAC and per-byte areas of the area split, or None without --area-mm2."""
    from tenet.bounds.snowcat import area_constants
    from tenet.model.components import check_node

    given = [
        f
        for f, v in (
            ("--technology", args.technology),
            ("--bandwidth-gbps", args.bandwidth_gbps),
            ("--mac-area-um2", args.mac_area_um2),
            ("--byte-area-um2", args.byte_area_um2),
        )
        if v is not None
    ]
    if args.area_mm2 is None:
        if given:
            raise InputError("goes with --area-mm2 (the area split)", given[0])
        return None
    if args.area_mm2 <= 0:
        raise InputError(f"must be positive, got {args.area_mm2}", "--area-mm2")
    if args.bandwidth_gbps is None or args.bandwidth_gbps <= 0:
        raise InputError("the area split needs a positive --bandwidth-gbps", "--bandwidth-gbps")
    if args.technology is not None:
        check_node(args.technology, "--technology", None)
    # --technology wins over the arch's components; the area flags win over both.
    components = arch.components if arch is not None and args.technology is None else None
    constants = area_constants(
        components, args.technology, word_bits, args.mac_area_um2, args.byte_area_um2
    )
    if constants is None:
        raise InputError(
            "the area split needs the MAC and byte areas: --technology NM, an -a arch with "
            "technology:, or --mac-area-um2 and --byte-area-um2",
            "--area-mm2",
        )
    return constants


def run(args: argparse.Namespace) -> int:
    from tenet.bounds.chain import load_chain
    from tenet.bounds.fusion import fuse, fusion_report
    from tenet.bounds.fusion_uneven import add_to_report, uneven_front
    from tenet.bounds.snowcat import hierarchy_report, word_count
    from tenet.formats.presets import resolve_arch, resolve_workload
    from tenet.model.arch import load_arch
    from tenet.report.fusion import chimera_text, default_sizes, fuse_tables, fusion_plot
    from tenet.report.progress import progress_bar
    from tenet.report.serial import to_json
    from tenet.report.tables import render_tables

    overrides = parse_sets(args.set)
    chain = load_chain(resolve_workload(args.workload), overrides)
    if args.word_bits is not None:
        if args.word_bits < 1:
            raise InputError(f"must be positive, got {args.word_bits}", "--word-bits")
        chain.word_bits = args.word_bits
    else:
        args.word_bits = chain.word_bits
    if args.chimera:
        if args.area_mm2 is not None:
            raise InputError("the area split does not go with --chimera", "--area-mm2")
        if args.space != "templates":
            raise InputError("--space uneven does not go with --chimera", "--space")
        report = _chimera(args, chain)
        if args.format == "json":
            emit(to_json(report) + "\n", args.output)
        else:
            emit(chimera_text(report), args.output)
        warnings_to_stderr(
            [*(report.get("warnings") or ()), *(report.get("best", {}).get("warnings") or ())],
            args,
        )
        return 0
    if args.order or args.tiles or args.capacity:
        raise InputError("--order, --tiles and --capacity go with --chimera", "--chimera")
    names = [s.strip() for s in args.templates.split(",") if s.strip()]
    for name in names:
        if name not in STRATEGIES:
            raise InputError(
                f"unknown strategy {name!r} ({did_you_mean(name, STRATEGIES)}choose from "
                f"{', '.join(STRATEGIES)})",
                "--templates",
            )
    if not names:
        raise InputError("give at least one strategy", "--templates")
    arch = load_arch(resolve_arch(args.arch)) if args.arch else None
    if arch is not None and not arch.levels and arch.components is None:
        raise InputError(
            "the arch has no 'levels' (a memory hierarchy) and no 'technology:'/'components:'",
            arch.source,
            "levels",
        )
    constants = _area_constants(args, arch, chain.word_bits)
    if args.space == "uneven" and args.buffer_rule != "live":
        raise InputError("--space uneven counts the live buffer only", "--buffer-rule")
    texts = [t.strip() for text in args.at for t in text.split(",")]
    if any(not t for t in texts):
        raise InputError("an empty size (write --at 10MiB,257MiB)", "--at")
    at = [(text, word_count(text, chain.word_bits)) for text in texts]
    with progress_bar("fusing the chain") as tick:
        result = fuse(
            chain,
            names[0],
            tuple(names[1:]),
            not args.no_segmentation,
            progress=tick,
            rule=args.buffer_rule,
        )
    uneven = None
    if args.space == "uneven":
        with progress_bar("searching the uneven space") as tick:
            uneven = uneven_front(chain, not args.no_segmentation, progress=tick)
    report = fusion_report(result, at)
    if not at and args.format == "table":
        at = default_sizes(report)
        report = fusion_report(result, at)
    add_to_report(report, chain, uneven, at)
    if constants is not None:
        from tenet.bounds.snowcat import fused_area_split

        report["area_split"] = fused_area_split(
            report, args.area_mm2, constants, args.bandwidth_gbps, args.clock_ghz
        )
    if arch is not None and arch.levels:
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
        emit(render_tables(fuse_tables(report), color_for(args)), args.output)
    warnings_to_stderr(report.get("warnings") or (), args)
    return 0
