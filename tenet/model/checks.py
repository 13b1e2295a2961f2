"""Warnings about a dataflow on an arch that do not stop the analysis.

Each warning is an `AnalysisWarning`: the message text (a `str`, so the JSON `warnings` list is the
same list of strings as before) with a `kind`, so that callers can filter them without
matching the text. `AnalysisWarning` and `WARNING_KINDS` live in
`tenet.model.warning_kinds` and still import from here."""

from __future__ import annotations

from collections.abc import Sequence

import islpy as isl

from tenet.model.arch import Arch
from tenet.model.relations import SpaceTime
from tenet.model.same_step import cycle_pes, is_same_step_forward
from tenet.model.warning_kinds import (  # noqa: F401 (their old import path)
    SUSPECT_KINDS,
    WARNING_KINDS,
    AnalysisWarning,
    warning_kind,
    with_kinds,
)
from tenet.model.workload import Workload
from tenet.util.isl_util import count, sets_of


def example_point(uset: isl.UnionSet) -> str:
    """One point of a non-empty set, as isl text (e.g. 'PE[8, 0]')."""
    point = sets_of(uset)[0].sample_point()
    return str(point).strip("{} ")


def outside_array_message(n_outside: int, example: str) -> AnalysisWarning | None:
    if not n_outside:
        return None
    return AnalysisWarning(
        "outside_array",
        f"{n_outside} used PEs lie outside the array, e.g. {example}: an outside_array violation",
    )


def outside_array(space_time: SpaceTime) -> AnalysisWarning | None:
    """Space stamps outside the PE domain (`outside_array` in `tenet validate`)."""
    return outside_pes(space_time.space_domain, space_time.pe_domain)


def outside_pes(used_pes: isl.UnionSet, pe_domain: isl.UnionSet) -> AnalysisWarning | None:
    """Used PEs outside the PE domain (what `outside_array` reports)."""
    return outside_array_message(*outside_facts(used_pes, pe_domain))


def outside_facts(used_pes: isl.UnionSet, pe_domain: isl.UnionSet) -> tuple[int, str]:
    """(|used PEs \\ PE domain|, the smallest of them as isl text, or '' when none)."""
    outside = used_pes.subtract(pe_domain)
    if outside.is_empty():
        return 0, ""
    return count(outside), example_point(outside.lexmin())


def oversubscribed(
    instances: int, stamps: int, macs_per_pe: int, crowded: bool
) -> AnalysisWarning | None:
    """Some (PE, step) holds more than macs_per_pe instances (`crowded`, found by the caller)."""
    if not crowded:
        return None
    return AnalysisWarning(
        "crowded_stamps",
        f"{instances:,} instances share {stamps:,} (PE, time) stamps: some PE runs more than "
        f"macs_per_pe={macs_per_pe} MACs in one step (a pe_conflict violation)",
    )


def unknown_link_tensors(arch: Arch, workload: Workload) -> list[AnalysisWarning]:
    tensors = set(workload.tensors)
    out: dict[str, None] = {}
    for link in arch.links:
        for name in link.tensors or ():
            if name not in tensors:
                out.setdefault(
                    f"{link.entry or link.label} names tensor {name!r}, which workload "
                    f"{workload.name!r} does not have (its tensors: {', '.join(workload.tensors)})"
                )
    return [AnalysisWarning("unknown_link_tensor", text) for text in out]


def same_step_cycles(arch: Arch, workload: Workload) -> AnalysisWarning | None:
    """Forward links used at distance 0 that form a cycle, for some tensor side they serve,
    let PEs supply each other a value nobody fetched."""
    checked: set[tuple[int, ...]] = set()
    for tensor in workload.tensors:
        for side in ("read", "write"):
            if workload.access(tensor, side) is None:
                continue
            chosen = tuple(
                n
                for n, link in enumerate(arch.links)
                if link.serves(tensor, side) and is_same_step_forward(link)
            )
            if not chosen or chosen in checked:
                continue
            checked.add(chosen)
            on_cycle = cycle_pes([arch.links[n] for n in chosen])
            if not on_cycle.is_empty():
                return AnalysisWarning(
                    "same_step_cycle",
                    f"same-step (window 0) forward links form a cycle for {tensor} ({side}), e.g. "
                    f"through {example_point(on_cycle.lexmin())}: PEs on it can supply each "
                    "other a value nobody fetched, which TENET's semantics count as free reuse",
                )
    return None


def idle_links(arch: Arch, used: set[int]) -> list[AnalysisWarning]:
    """Interconnect entries none of whose links could serve a value: often a reversed direction."""
    entries: dict[str, list[bool]] = {}
    for n, link in enumerate(arch.links):
        key = link.entry or link.label
        entries.setdefault(key, []).append(n in used)
    out = []
    for entry, flags in entries.items():
        if any(flags):
            continue
        forward = any(
            link.kind == "forward" for link in arch.links if (link.entry or link.label) == entry
        )
        hint = " (check its direction: receiver -> sender)" if forward else ""
        out.append(
            AnalysisWarning(
                "idle_link", f"{entry} carries no reuse for any tensor of this dataflow{hint}"
            )
        )
    return out


def unresolved_same_step(sides: Sequence[tuple[str, str]]) -> list[AnalysisWarning]:
    """One `same_step_cycle` warning for the tensor sides whose same-step groups could not be
    found exactly (`tenet.model.same_step`): they keep TENET's count, free values included."""
    if not sides:
        return []
    names = ", ".join(f"{tensor} ({side})" for tensor, side in sides)
    return [
        AnalysisWarning(
            "same_step_cycle",
            f"same-step (window 0) forward links form a cycle for {names}, and the groups of "
            "PEs that hold one value in one step could not be found exactly: TENET's count is "
            "kept, and PEs on the cycle supply each other a value nobody fetched",
        )
    ]


def fixed_warnings(arch: Arch, workload: Workload) -> list[AnalysisWarning]:
    """The warnings that depend on the workload and the arch alone: the workload's own,
    same-step link cycles (under TENET's literal rule, `same_step: tenet`; the default
    rule charges each starved group its fetch), links naming tensors the workload does not
    have."""
    cycle = same_step_cycles(arch, workload) if arch.same_step == "tenet" else None
    return (
        list(workload.warnings) + ([cycle] if cycle else []) + unknown_link_tensors(arch, workload)
    )


def dataflow_warnings(
    outside: AnalysisWarning | None,
    arch: Arch,
    workload: Workload,
    instances: int,
    stamps: int,
    crowded: bool,
) -> list[AnalysisWarning]:
    """All warnings but the links' and the levels' (`tenet.model.assemble` adds every
    warning of an Analysis); `outside` and `crowded` are found by the caller."""
    found = [outside, oversubscribed(instances, stamps, arch.macs_per_pe, crowded)]
    fixed = fixed_warnings(arch, workload)
    own = len(workload.warnings)
    return fixed[:own] + [w for w in found if w] + fixed[own:]
