"""The fusion study of a chain (`tenet fuse`), and Chimera's answer for it, as library calls.

`fusion_study(chain, options)` searches the fronts of `fusion.fuse` (and, with
`space="uneven"`, the uneven front of `fusion_uneven`), reads them at the asked buffer
sizes and returns a `FusionStudy`; `FusionStudy.to_dict()` builds the JSON report once,
from the typed fronts: every point and every lookup with the chain floor (`lower_bound`,
a running maximum over the report's sizes), and the area split and memory hierarchy when
asked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from tenet.bounds.chain import Chain
from tenet.bounds.front import Front
from tenet.bounds.fusion import FusionResult, algorithmic_minima, chain_ops, fuse
from tenet.bounds.fusion_uneven import monotone_floors, uneven_front
from tenet.bounds.snowcat import fused_area_split, hierarchy_report
from tenet.errors import InputError, option_ref

Tick = Callable[[int, int], None]
#: Opens a progress display for one labelled phase and yields its `tick(done, total)`.
ProgressFactory = Callable[[str], AbstractContextManager[Tick | None]]

LOWER_BOUND_RULE = (
    "every schedule moves the chain's inputs and final outputs once, and a product "
    "reading two chain inputs at least its segment floor (docs/fusion.md)"
)
PAPER_RULE_WARNING = (
    "buffer rule 'paper': fused points may be unattainable (the published rule "
    "misses tiles kept across a loop that two products share)"
)


@dataclass(frozen=True)
class AreaOptions:
    """The area split: chip area, backing-store bandwidth, and the MAC and per-byte buffer
    areas (`snowcat.area_constants`: each `{value, unit, source}`)."""

    area_mm2: float
    bandwidth_gbps: float
    constants: dict[str, dict[str, Any]]


@dataclass(frozen=True)
class FusionOptions:
    """What `fusion_study` searches and reports.

    `strategies`: the strategy of `tiled` and of segments first, then strategies whose
    fronts are added for comparison; `at`: (text, words) buffer sizes to read the fronts at,
    or, when empty and `default_at`, powers of two across the fronts (`default_sizes`);
    `levels`: an arch's memory levels for the hierarchy report."""

    strategies: tuple[str, ...] = ("ffmt",)
    segmentation: bool = True
    space: str = "templates"
    buffer_rule: str = "live"
    at: tuple[tuple[str, int], ...] = ()
    default_at: bool = False
    levels: tuple = ()
    macs_per_cycle: float | None = None
    clock_ghz: float = 1.0
    area: AreaOptions | None = None


@dataclass(frozen=True)
class FusionStudy:
    """The searched fronts and the sizes they are read at."""

    result: FusionResult
    options: FusionOptions
    at: tuple[tuple[str, int], ...]
    uneven: Front | None = None

    def to_dict(self) -> dict[str, Any]:
        """The contract's JSON of `tenet fuse`."""
        report = fusion_report(self.result, self.at, self.uneven)
        options, chain = self.options, self.result.chain
        if options.area is not None:
            report["area_split"] = fused_area_split(
                report,
                options.area.area_mm2,
                options.area.constants,
                options.area.bandwidth_gbps,
                options.clock_ghz,
            )
        if options.levels:
            report["hierarchy"] = hierarchy_report(
                self.result.best_segmentation or self.result.tiled,
                options.levels,
                chain.word_bits,
                sum(chain.size_of(e.ranks) for e in chain.einsums if not e.elementwise),
                options.macs_per_cycle,
                options.clock_ghz,
            )
        return report


def fusion_study(
    chain: Chain, options: FusionOptions, progress: ProgressFactory | None = None
) -> FusionStudy:
    """Search the chain's fusion fronts as `options` asks. `progress(label)` opens a
    progress display for each phase ("fusing the chain", "searching the uneven space")."""
    phase = progress or (lambda _label: nullcontext(None))
    names = options.strategies
    with phase("fusing the chain") as tick:
        result = fuse(
            chain,
            names[0],
            tuple(names[1:]),
            options.segmentation,
            progress=tick,
            rule=options.buffer_rule,
        )
    uneven = None
    if options.space == "uneven":
        with phase("searching the uneven space") as tick:
            uneven = uneven_front(chain, options.segmentation, progress=tick)
    at = tuple(options.at)
    if not at and options.default_at:
        at = tuple(default_sizes(result))
    return FusionStudy(result, options, at, uneven)


def default_sizes(result: FusionResult) -> list[tuple[str, int]]:
    """Powers of two in bytes, every fourth one, from the smallest buffer of the unfused,
    tiled and best-segmentation fronts to past twice the largest."""
    word_bytes = result.chain.word_bits / 8
    fronts = [f for f in (result.unfused, result.tiled, result.best_segmentation) if f]
    if not fronts:
        return []
    low = min(f[0].buffer for f in fronts) * word_bytes
    high = max(f[-1].buffer for f in fronts) * word_bytes
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


def points_json(
    front: Front, ops: int, word_bytes: float, floors: dict[int, int] | None = None
) -> list[dict[str, Any]]:
    """A fusion front as JSON: buffer, accesses, OI (ops per byte moved), the mappings of
    its pieces, the cuts they belong to and, with `floors`, the chain floor."""
    out = []
    for p in front:
        parts = p.pieces
        point: dict[str, Any] = {
            "buffer": p.buffer,
            "accesses": p.accesses,
            "oi": ops / (p.accesses * word_bytes) if p.accesses else None,
            "mapping": " || ".join(q.mapping for q in parts),
        }
        segments = {q.segments for q in parts if q.segments is not None}
        if segments:
            point["segments"] = " ; ".join(sorted(segments))
        if floors is not None:
            point["lower_bound"] = floors[p.buffer]
        out.append(point)
    return out


def fusion_report(
    result: FusionResult, at: Sequence[tuple[str, int]] = (), uneven: Front | None = None
) -> dict[str, Any]:
    """The contract's JSON for `tenet fuse` (without the area split and hierarchy): every
    front with OI and the chain floor, the `uneven` front when searched, lookups at `at`."""
    chain = result.chain
    word_bytes = chain.word_bits / 8
    ops = chain_ops(chain)
    fronts = {
        "unfused": result.unfused,
        "untiled": result.untiled,
        "tiled": result.tiled,
        "tiled_pipelined": result.tiled_pipelined,
        "best_segmentation": result.best_segmentation,
    }
    every = [*fronts.values(), *result.strategies.values()]
    if uneven is not None:
        every.append(uneven)
    sizes = [p.buffer for front in every for p in front]
    floors = monotone_floors(chain, [*sizes, *(words for _, words in at)])
    report: dict[str, Any] = {
        "chain": chain.name,
        "einsums": [{"name": e.name, "einsum": e.text} for e in chain.einsums],
        "runs": [[chain.einsums[e].name for e in run] for run in chain.runs],
        "shape": dict(chain.sizes),
        "word_bits": chain.word_bits,
        "strategy": result.strategy,
        "buffer_rule": result.rule,
        "algorithmic_minimum": algorithmic_minima(chain),
        "ops": ops,
        "segmentations": result.segmentations,
    }
    if result.rule == "paper":
        report["warnings"] = [PAPER_RULE_WARNING]
    for key, front in fronts.items():
        report[key] = points_json(front, ops, word_bytes, floors)
    if result.strategies:
        report["strategies"] = {
            s: points_json(f, ops, word_bytes, floors) for s, f in result.strategies.items()
        }
    if at:
        report["at"] = [_at_row(result, fronts, uneven, text, words, floors) for text, words in at]
    if uneven is not None:
        report["uneven"] = points_json(uneven, ops, word_bytes, floors)
    report["lower_bound_rule"] = LOWER_BOUND_RULE
    return report


def _at_row(
    result: FusionResult,
    fronts: dict[str, Front],
    uneven: Front | None,
    text: str,
    words: int,
    floors: dict[int, int],
) -> dict[str, Any]:
    """Every front's accesses at one buffer size, the gains over unfused, the chain floor."""
    row: dict[str, Any] = {"size": text, "words": words}
    for key, front in fronts.items():
        row[key] = front.accesses_at(words)
    for s, front in result.strategies.items():
        row[s] = front.accesses_at(words)
    base = row["unfused"]
    for key in ("untiled", "tiled", "best_segmentation"):
        row[f"{key}_gain"] = base / row[key] if base and row[key] else None
    if uneven is not None:
        row["uneven"] = uneven.accesses_at(words)
        row["uneven_gain"] = base / row["uneven"] if base and row["uneven"] else None
    row["lower_bound"] = floors[words]
    return row


@dataclass(frozen=True)
class ChimeraOptions:
    """Chimera's model (`tenet fuse --chimera`): one block `order` (outermost first, with
    `tiles` NAME=SIZE, loops whole by default), or the search of every order and tile under
    `capacity` words, or both (the one order, with the search's best beside it)."""

    model: str = "paper"
    order: str | None = None
    tiles: dict[str, int] = field(default_factory=dict)
    capacity: int | None = None
    perfect: bool = False


@dataclass(frozen=True)
class ChimeraStudy:
    """Chimera's answer for a chain: the given order's (`answer`, as
    `chimera.evaluate_order` gives it), the search's best at a capacity (`found`, as
    `chimera.search` gives it), or both."""

    answer: dict[str, Any] | None = None
    found: dict[str, Any] | None = None

    @property
    def warnings(self) -> list[str]:
        """The warnings of the answer and of the search's best, in that order."""
        top = self.answer if self.answer is not None else self.found or {}
        best = (self.found or {}).get("best") or top.get("best") or {}
        return [*(top.get("warnings") or ()), *(best.get("warnings") or ())]

    def to_dict(self) -> dict[str, Any]:
        """The JSON of `tenet fuse --chimera`: one answer, or the order's answer with the
        search's `best`, `capacity`, `perfect` and `evaluated` added."""
        if self.answer is None:
            return dict(self.found or {})
        if self.found is None:
            return dict(self.answer)
        return {
            **self.answer,
            "best": self.found["best"],
            "capacity": self.found["capacity"],
            "perfect": self.found["perfect"],
            "evaluated": self.found.get("evaluated"),
        }


def chimera_study(
    chain: Chain, options: ChimeraOptions, progress: ProgressFactory | None = None
) -> ChimeraStudy:
    """Chimera's answer for the chain: `evaluate_order` of the given order, `search` at the
    capacity, or both."""
    from tenet.bounds import chimera

    if options.order is None and options.capacity is None:
        raise InputError(
            f"Chimera's model needs {option_ref('order')} (with optional {option_ref('tiles')}) "
            f"or {option_ref('capacity')}",
            option="order",
        )
    phase = progress or (lambda _label: nullcontext(None))
    ops = chimera.chimera_ops([(e.name, e.text) for e in chain.einsums], chain.sizes, chain.source)
    loops = list(dict.fromkeys(r for e in chain.einsums for r in e.ranks))
    found = None
    if options.capacity is not None:
        with phase("searching block orders and tiles") as tick:
            found = chimera.search(
                ops, options.capacity, progress=tick, model=options.model, perfect=options.perfect
            )
        if options.order is None:
            return ChimeraStudy(None, found)
    order = chimera.parse_order(options.order, loops)
    return ChimeraStudy(
        chimera.evaluate_order(ops, order, dict(options.tiles), options.model), found
    )
