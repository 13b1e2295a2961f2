"""`tenet fuse`: fusion bounds of a chain of einsums, and Chimera's optimizer."""

from __future__ import annotations

import argparse

from tenet.bounds.templates import STRATEGIES
from tenet.cli.buffer_flags import (
    add_area_flags,
    add_compute_flags,
    add_lookup_flags,
    area_constants_of,
    at_sizes,
    bounds_flags,
    check_positive_flags,
    check_word_bits,
    load_study_arch,
)
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
    add_lookup_flags(p, "every front", "the chain's")
    add_compute_flags(p)
    area = p.add_argument_group(
        "area split: the best buffer/MAC split of a chip area, unfused and fused"
    )
    add_area_flags(area)
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


def chimera_options(args: argparse.Namespace, word_bits: int):
    """Chimera's options (`ChimeraOptions`) of the flags, checked."""
    from tenet.bounds import chimera
    from tenet.bounds.fusion_study import ChimeraOptions
    from tenet.bounds.snowcat import word_count

    if args.area_mm2 is not None:
        raise InputError("the area split does not go with --chimera", "--area-mm2")
    if args.space != "templates":
        raise InputError("--space uneven does not go with --chimera", "--space")
    model = chimera.check_model(args.chimera_model, "--chimera-model")
    capacity = None
    if args.capacity is not None:
        capacity = word_count(args.capacity, word_bits, "capacity")
    tiles = parse_assignments(args.tiles.split(","), "--tiles") if args.tiles else {}
    return ChimeraOptions(model, args.order, tiles, capacity, args.perfect)


def area_options(args: argparse.Namespace, arch, word_bits: int):
    """The area split's options (`AreaOptions`), or None without --area-mm2."""
    from tenet.bounds.fusion_study import AreaOptions

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
    constants = area_constants_of(args, arch, word_bits)
    if constants is None:
        raise InputError(
            "the area split needs the MAC and byte areas: --technology NM, an -a arch with "
            "technology:, or --mac-area-um2 and --byte-area-um2",
            "--area-mm2",
        )
    return AreaOptions(args.area_mm2, args.bandwidth_gbps, constants)


def strategy_names(text: str) -> tuple[str, ...]:
    """`--templates ffmt,flat`: known strategy names, at least one."""
    names = tuple(s.strip() for s in text.split(",") if s.strip())
    for name in names:
        if name not in STRATEGIES:
            raise InputError(
                f"unknown strategy {name!r} ({did_you_mean(name, STRATEGIES)}choose from "
                f"{', '.join(STRATEGIES)})",
                "--templates",
            )
    if not names:
        raise InputError("give at least one strategy", "--templates")
    return names


def options_of(args: argparse.Namespace, chain):
    """The study's options (`FusionOptions`) of the flags, checked."""
    from tenet.bounds.fusion_study import FusionOptions
    from tenet.bounds.snowcat import word_count

    if args.order or args.tiles or args.capacity:
        raise InputError("--order, --tiles and --capacity go with --chimera", "--chimera")
    names = strategy_names(args.templates)
    arch = load_study_arch(args.arch)
    area = area_options(args, arch, chain.word_bits)
    if args.space == "uneven" and args.buffer_rule != "live":
        raise InputError("--space uneven counts the live buffer only", "--buffer-rule")
    texts = at_sizes(args.at)
    return FusionOptions(
        strategies=names,
        segmentation=not args.no_segmentation,
        space=args.space,
        buffer_rule=args.buffer_rule,
        at=tuple((text, word_count(text, chain.word_bits)) for text in texts),
        default_at=args.format == "table",
        levels=tuple(arch.levels) if arch is not None and arch.levels else (),
        macs_per_cycle=args.macs_per_cycle,
        clock_ghz=args.clock_ghz,
        area=area,
    )


def run(args: argparse.Namespace) -> int:
    with bounds_flags():
        return run_fuse(args)


def run_fuse(args: argparse.Namespace) -> int:
    """`tenet fuse`: the fusion study of a chain, or Chimera's answer for it."""
    from tenet.bounds.chain import load_chain
    from tenet.bounds.fusion_study import chimera_study, fusion_study
    from tenet.formats.presets import resolve_workload
    from tenet.report.fusion import chimera_text, fuse_tables, fusion_plot
    from tenet.report.progress import progress_bar
    from tenet.report.serial import to_json
    from tenet.report.tables import render_tables

    check_positive_flags(args)
    chain = load_chain(resolve_workload(args.workload), parse_sets(args.set))
    if args.word_bits is not None:
        chain.word_bits = check_word_bits(args.word_bits)
    if args.chimera:
        study = chimera_study(chain, chimera_options(args, chain.word_bits), progress_bar)
        report = study.to_dict()
        if args.format == "json":
            emit(to_json(report) + "\n", args.output)
        else:
            emit(chimera_text(report), args.output)
        warnings_to_stderr(study.warnings, args)
        return 0
    report = fusion_study(chain, options_of(args, chain), progress_bar).to_dict()
    if args.plot:
        fusion_plot(report, args.plot)
    if args.format == "json":
        emit(to_json(report) + "\n", args.output)
    else:
        emit(render_tables(fuse_tables(report), color_for(args)), args.output)
    warnings_to_stderr(report.get("warnings") or (), args)
    return 0
