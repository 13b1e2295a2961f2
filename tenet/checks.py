"""Warnings about a dataflow on an arch that do not stop the analysis."""

from __future__ import annotations

import islpy as isl

from .arch import Arch
from .isl_util import count, sets_of
from .relations import SpaceTime
from .workload import Workload


def example_point(uset: isl.UnionSet) -> str:
    """One point of a non-empty set, as isl text (e.g. 'PE[8, 0]')."""
    point = sets_of(uset)[0].sample_point()
    return str(point).strip("{} ")


def outside_array_message(n_outside: int, example: str) -> str | None:
    if not n_outside:
        return None
    return f"{n_outside} used PEs lie outside the array, e.g. {example}: an outside_array violation"


def outside_array(space_time: SpaceTime) -> str | None:
    """Space stamps outside the PE domain (`outside_array` in `tenet validate`)."""
    outside = space_time.space_domain.subtract(space_time.pe_domain)
    if outside.is_empty():
        return None
    return outside_array_message(count(outside), example_point(outside))


def oversubscribed(instances: int, stamps: int, macs_per_pe: int) -> str | None:
    """More instances than stamps x MACs per PE: some PE runs too much in one step."""
    if instances <= stamps * macs_per_pe and (macs_per_pe > 1 or instances == stamps):
        return None
    return (
        f"{instances:,} instances share {stamps:,} (PE, time) stamps: some PE runs more than "
        f"macs_per_pe={macs_per_pe} MACs in one step (a pe_conflict violation)"
    )


def unknown_link_tensors(arch: Arch, workload: Workload) -> list[str]:
    tensors = set(workload.tensors)
    out = []
    for n, link in enumerate(arch.links):
        for name in link.tensors or ():
            if name not in tensors:
                out.append(
                    f"interconnect[{n}] names tensor {name!r}, which workload "
                    f"{workload.name!r} does not have (its tensors: {', '.join(workload.tensors)})"
                )
    return out


def same_step_cycles(arch: Arch) -> str | None:
    """Forward links used at distance 0 that form a cycle let PEs supply each other for free."""
    same_step = [
        link.relation for link in arch.links if link.kind == "forward" and 0 in link.window
    ]
    if not same_step:
        return None
    rel = same_step[0]
    for other in same_step[1:]:
        rel = rel.union(other)
    rel = rel.subtract(arch.pe_domain.identity())
    cycle = rel.intersect(rel.reverse())
    if cycle.is_empty():
        closure, exact = rel.transitive_closure()
        if not exact:
            return None
        cycle = closure.intersect(arch.pe_domain.identity())
        if cycle.is_empty():
            return None
    return (
        "same-step (window 0) forward links form a cycle, e.g. "
        f"{example_point(cycle.domain())}: PEs on it can supply each other a value nobody "
        "fetched, which TENET's semantics count as free reuse"
    )


def idle_links(arch: Arch, used: set[int]) -> list[str]:
    """Interconnect entries none of whose links could serve a value: often a reversed direction."""
    entries: dict[str, bool] = {}
    for n, link in enumerate(arch.links):
        key = link.entry or link.label
        entries[key] = entries.get(key, False) or n in used
    return [
        f"interconnect {entry} carries no reuse for any tensor of this dataflow "
        "(check its direction: receiver -> sender)"
        for entry, is_used in entries.items()
        if not is_used
    ]


def dataflow_warnings(
    outside: str | None, arch: Arch, workload: Workload, instances: int, stamps: int
) -> list[str]:
    """All warnings; `outside` is the outside-array message, found by the caller."""
    found = [outside, oversubscribed(instances, stamps, arch.macs_per_pe), same_step_cycles(arch)]
    return [w for w in found if w] + unknown_link_tensors(arch, workload)
