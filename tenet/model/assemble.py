"""The one seam from counts to results: `assemble(counts, workload, arch, dataflow)` is the
only place an `Analysis` is built from counts (`Analysis.from_dict` reads one back).

In this order (docs/architecture.md, "The data path"):

1. the warnings the counts imply: the workload's (`statement_never_runs`), PEs outside the
   array, crowded stamps, same-step link cycles, links naming unknown tensors, idle links,
   memory levels that overflow;
2. the cost, when the engine counted actions: `priced_on` prices them with the levels'
   traffic (already counted by the engine, so the DRAM and intermediate parts can be
   priced), and adds what it leaves out (`untiled_level`, `scratchpad_size`);
3. the warnings in the order of their kinds in WARNING_KINDS (stable within a kind), those
   a silenced pattern matches left out (the arch's, the dataflow's and `silenced`);
4. one Analysis, never changed afterwards."""

from __future__ import annotations

from collections.abc import Sequence

from tenet.model import checks
from tenet.model.arch import Arch
from tenet.model.cost import BoundaryWords, Cost, priced_on
from tenet.model.counts import Counts
from tenet.model.dataflow import Dataflow
from tenet.model.results import Analysis, arch_constants
from tenet.model.warning_kinds import WARNING_KINDS, unsilenced, warning_kind
from tenet.model.workload import Workload

_KIND_ORDER = {kind: n for n, kind in enumerate(WARNING_KINDS)}


def counted_warnings(
    counts: Counts,
    workload: Workload,
    arch: Arch,
    fixed: Sequence[str] | None = None,
) -> list[str]:
    """The warnings the counts imply (step 1). `fixed` are the ones that depend on the
    workload and arch alone (`checks.fixed_warnings`), when the caller found them once for
    many dataflows."""
    if not counts.warnings_counted:
        return []
    if fixed is None:
        fixed = checks.fixed_warnings(arch, workload)
    found = [
        checks.outside_array_message(counts.outside_pes, counts.outside_example),
        checks.oversubscribed(counts.instances, counts.stamps, arch.macs_per_pe, counts.crowded),
    ]
    return (
        list(fixed)
        + [w for w in found if w]
        + checks.unresolved_same_step(counts.same_step_unresolved)
        + checks.idle_links(arch, set(counts.used_links))
        + [w for w in (level.warning() for level in counts.levels) if w]
    )


def counts_cost(counts: Counts, arch: Arch, macs: int) -> Cost | None:
    """The cost of the counted actions (step 2): `priced_on` with the boundaries of the
    counted memory levels; None when no actions were counted."""
    if counts.actions is None or counts.area is None:
        return None
    traffic = [BoundaryWords.of(level) for level in counts.levels]
    return priced_on(arch, counts.actions, macs, counts.area, traffic, counts.dram_words)


def in_kind_order(warnings: Sequence[str]) -> list[str]:
    """Warnings sorted by the position of their kind in WARNING_KINDS (stable; a warning
    without a kind last)."""
    return sorted(warnings, key=lambda w: _KIND_ORDER.get(warning_kind(w), len(_KIND_ORDER)))


def assemble(
    counts: Counts,
    workload: Workload,
    arch: Arch,
    dataflow: Dataflow | str,
    silenced: Sequence[str] = (),
    fixed_warnings: Sequence[str] | None = None,
) -> Analysis:
    """The Analysis of `counts`: warnings, levels and cost added in the module's order.
    `dataflow` is the Dataflow (its name and silenced patterns) or only its name;
    macs = instances · macs_per_instance."""
    name = dataflow if isinstance(dataflow, str) else dataflow.name
    patterns = (
        *arch.silenced_warnings,
        *(() if isinstance(dataflow, str) else dataflow.silenced_warnings),
        *silenced,
    )
    macs = counts.instances * workload.macs_per_instance
    warnings = counted_warnings(counts, workload, arch, fixed_warnings)
    cost = counts_cost(counts, arch, macs)
    if cost is not None and counts.warnings_counted:
        warnings += list(cost.warnings)
    return Analysis(
        workload=workload.name,
        arch=arch.name,
        dataflow=name,
        instances=counts.instances,
        macs=macs,
        pe_count=arch.pe_count,
        active_pes=counts.active_pes,
        time_steps=counts.time_steps,
        stamps=counts.stamps,
        volumes={tensor: dict(sides) for tensor, sides in counts.volumes.items()},
        **arch_constants(arch),
        warnings=unsilenced(in_kind_order(warnings), patterns),
        step_counts=counts.step_counts,
        profile=counts.profile,
        cost=cost,
        levels=list(counts.levels),
        hierarchy=counts.hierarchy,
        exact_sums=counts.exact_sums,
    )
