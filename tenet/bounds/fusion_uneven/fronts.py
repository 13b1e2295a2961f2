"""Uneven fronts of segments and chains: a segment's front (the pair or long search, the
FFMT templates and untiled fusion), one einsum alone, and the best over every segmentation
of the chain (`uneven_front`)."""

from __future__ import annotations

from collections.abc import Callable

from tenet.bounds.chain import Chain
from tenet.bounds.front import Front, FrontPoint
from tenet.bounds.fusion import (
    compositions,
    label_segments,
    merged_problem,
    snowcat_front,
    step_sum,
    tiled_front,
    units,
    untiled_front,
)
from tenet.bounds.fusion_uneven.long import long_front
from tenet.bounds.fusion_uneven.nest import describe, segment_spec
from tenet.bounds.fusion_uneven.pair import pair_front
from tenet.errors import InputError


def segment_front(chain: Chain, segment: list[int], slopes: dict | None = None) -> Front:
    """Front of one segment in the uneven space (two products: the whole space searched;
    three or more: only the FFMT template mappings, which the space contains with the same
    costs; one: its Snowcat slope), with untiled fusion as a further option, and any
    element-wise steps at the end run unfused (as in `fusion.tiled_front`)."""
    products = [e for e in segment if not chain.einsums[e].elementwise]
    if len(products) < 2:
        return step_sum([lone_front(chain, e, slopes) for e in segment])
    macs = sum(chain.size_of(chain.einsums[e].ranks) for e in products)
    if 16 * macs >= 2**62:  # every count of the search stays below 16 x MACs
        raise InputError(
            f"segment {'+'.join(chain.einsums[e].name for e in products)} is too large for "
            "the uneven search (its counts would not fit 64-bit integers)",
            chain.source,
        )
    spec = segment_spec(chain, segment)
    templates = untiled_front(chain, segment, slopes)
    if spec is None or len(products) > 2:
        templates += tiled_front(chain, segment, "ffmt", slopes=slopes)
    if spec is None:
        return Front.pareto(templates)
    search = pair_front if len(products) == 2 else long_front
    points = Front(
        tuple(
            FrontPoint(b, a, "uneven " + describe(spec, mp), source=mp) for b, a, mp in search(spec)
        )
    )
    tail = []
    for e in reversed(segment):
        if not chain.einsums[e].elementwise:
            break
        tail.append(snowcat_front(chain, e, slopes=slopes))
    fused = step_sum([points, *tail]) if tail else points
    return Front.pareto([*fused, *templates])


def lone_front(chain: Chain, e: int, slopes: dict | None = None) -> Front:
    """One einsum on its own, intermediates through the backing store: the single-einsum
    uneven space of `tenet bounds` (`space="uneven"`: per-tensor placement, ranks split into
    several loops; merged with Snowcat), or its Snowcat slope when that module is absent,
    refuses the einsum, or the einsum is element-wise."""
    if chain.einsums[e].elementwise:
        return snowcat_front(chain, e, slopes=slopes)
    try:
        from tenet.bounds.uneven import search_front
    except ImportError:  # pragma: no cover - the single-einsum space is optional here
        return snowcat_front(chain, e, slopes=slopes)
    key = ("uneven", e)
    if slopes is not None and key in slopes:
        return slopes[key]
    problem, _ = merged_problem(chain, e)
    name = chain.einsums[e].name
    try:
        points = search_front(problem, "uneven").points
    except InputError:  # the single-einsum search refuses it (too many mappings)
        return snowcat_front(chain, e, slopes=slopes)
    front = Front(
        tuple(FrontPoint(p.buffer, p.accesses, f"{name}: alone, {p.mapping}") for p in points)
    )
    if slopes is not None:
        slopes[key] = front
    return front


def uneven_front(
    chain: Chain,
    segment: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> Front:
    """The uneven front of the chain: per run, the least over every way to cut it into
    segments (or the run as one segment), runs summed."""
    slopes: dict = {}
    cache: dict[tuple[int, ...], Front] = {}

    def seg_front(seg: list[int]) -> Front:
        key = tuple(seg)
        if key not in cache:
            cache[key] = segment_front(chain, seg, slopes)
        return cache[key]

    total = sum(2 ** (len(units(chain, r)) - 1) if segment else 1 for r in chain.runs)
    done = 0
    run_fronts = []
    for run in chain.runs:
        parts = units(chain, run)
        cuts = compositions(len(parts)) if segment else [[len(parts)]]
        candidates = []
        for lengths in cuts:
            segments, start = [], 0
            for length in lengths:
                segments.append([e for u in parts[start : start + length] for e in u])
                start += length
            text = " | ".join("+".join(chain.einsums[e].name for e in seg) for seg in segments)
            candidates.extend(label_segments(step_sum([seg_front(s) for s in segments]), text))
            done += 1
            if progress:
                progress(done, total)
        run_fronts.append(Front.pareto(candidates))
    return step_sum(run_fronts)
