"""Counting: per-tensor volumes and whole-dataflow metrics, exactly (barvinok), into the
results of `tenet.model.results`."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import islpy as isl

from tenet.model.arch import Arch
from tenet.model.assemble import assemble
from tenet.model.checks import outside_facts
from tenet.model.cost import area_counts, count_actions
from tenet.model.counts import Counts
from tenet.model.dataflow import BoundDataflow, Dataflow, bind_dataflow
from tenet.model.hierarchy_time import hierarchy_time
from tenet.model.levels import level_traffic_maps
from tenet.model.relations import SpaceTime, pe_conflict_chains, program_order
from tenet.model.results import Analysis, Volumes
from tenet.model.same_step import (
    has_same_step_cycle,
    other_supply,
    same_step_stamps,
    starved_triples,
)
from tenet.model.schedule_time import StepProfile, per_step_words, step_counts_and_costs
from tenet.model.side_trace import SideTrace, exits
from tenet.model.workload import SIDES, Workload
from tenet.util.isl_util import DEFAULT_MAX_OPERATIONS, count, operations_limit, simplify


def links_for(arch: Arch, tensor: str, side: str) -> tuple[int, ...]:
    """Indices of the links that may carry `tensor` on access side `side`."""
    return tuple(n for n, link in enumerate(arch.links) if link.serves(tensor, side))


def count_volumes(
    space_time: SpaceTime,
    access: isl.UnionMap,
    temporal: isl.UnionMap,
    link_relations: list[tuple[int, isl.UnionMap]],
    spatial: isl.UnionMap,
    used_links: set[int] | None = None,
    size: Callable[[Any], Any] = count,
    minus: Callable[[Any, Any], Any] = operator.sub,
    fetched: list[isl.UnionMap] | None = None,
    trace: SideTrace | None = None,
    tidy: Callable[[Any], Any] = simplify,
    write: bool = False,
    starved: isl.UnionMap | None = None,
) -> Volumes:
    """total = |A|; temporal = |A_D \\ (M_t;A_D)|; then each link, in order, serves what is
    still unserved; unique = |A_D \\ (M;A_D)| is what no source serves;
    spatial = |A_D ∩ (M_x;A_D)|. Links that could serve something join `used_links`.
    `size` and `minus` count and subtract (barvinok's quasi-polynomials for symbolic counts).
    The unique set A_D \\ (M;A_D) itself is appended to `fetched` when it is given; a
    `trace` keeps A_D, the unique set, M_t and each link's (unserved before it, reach, M_l).
    `tidy` rewrites each M;A_D without changing its points (default `simplify`).
    A `write` side also gets its read_back (`read_back`), which needs a `trace`.
    `starved` (⊆ A_D, `tenet.model.same_step.starved_triples`) are triples that must be
    fetched although a same-step link reaches them: no link serves them, and they count
    as unique and not as spatial reuse."""
    assignment = space_time.data_assignment(access)

    def reachable(rel: isl.UnionMap) -> isl.UnionMap:
        return tidy(rel.apply_range(assignment))

    remaining = assignment.subtract(reachable(temporal))
    temporal_unique = size(remaining)
    if starved is not None:  # charged a fetch: out of the links' reach (not temporal reuse)
        remaining = remaining.subtract(starved)
    left = size(remaining)
    carried = {}
    for index, rel in link_relations:
        reach = reachable(rel)
        if trace is not None:
            trace.links[index] = (remaining, reach, rel)
        if (
            used_links is not None
            and index not in used_links
            and not assignment.intersect(reach).is_empty()
        ):
            used_links.add(index)
        remaining = remaining.subtract(reach)
        now = size(remaining)
        carried[index], left = minus(left, now), now
    unique = left
    reusable = assignment
    if starved is not None:
        remaining = remaining.union(starved)
        unique = size(remaining)
        reusable = assignment.subtract(starved)
    if fetched is not None:
        fetched.append(remaining)
    if trace is not None:
        trace.assignment, trace.unique, trace.temporal = assignment, remaining, temporal
    total = size(access)
    spatial_reuse = size(reusable.intersect(reachable(spatial)))
    return Volumes(
        total=total,
        unique=unique,
        temporal_unique=temporal_unique,
        spatial_reuse=spatial_reuse,
        carried=carried,
        read_back=read_back(trace, size, minus) if write else None,
    )


def read_back(
    trace: SideTrace | None, size: Callable[[Any], Any] = count, minus: Any = None
) -> Any:
    """Write sides: partial sums read back from the scratchpad, |exits| − |elements
    written|: an output starts empty, so every exit but an element's last is re-read.
    The exits and their count join the trace (the cost model prices them)."""
    if trace is None:
        raise ValueError("a write side's read_back needs the trace of its sets")
    trace.exits = exits(trace)
    n_exits, n_elements = size(trace.exits), size(trace.assignment.range())
    trace.exit_count = n_exits
    return n_exits - n_elements if minus is None else minus(n_exits, n_elements)


def tensor_volumes(
    workload: Workload,
    arch: Arch,
    space_time: SpaceTime,
    used_links: set[int] | None = None,
    size: Callable[[Any], Any] = count,
    minus: Callable[[Any, Any], Any] = operator.sub,
    fetched: dict[str, list[isl.UnionMap]] | None = None,
    traces: dict[tuple[str, str], SideTrace] | None = None,
    unresolved: list[tuple[str, str]] | None = None,
) -> dict[str, dict[str, Volumes | None]]:
    """`count_volumes` of every tensor and side; the temporal, link and spatial relations
    are built once and shared (a spatial relation per distinct set of links). With
    `fetched` ({side: []}), each side's unique set joins the list of its side; with
    `traces` ({}), each side's sets are kept under (tensor, side) for the cost model.
    On an arch whose same-step links form a cycle (and `same_step: groups`), each side's
    starved same-step groups are charged their fetch (`starved_for`, the supply relations
    built once per set of links); a side where they cannot be found exactly keeps TENET's
    count and joins `unresolved`."""
    temporal = space_time.temporal_relation()
    link_relations = [space_time.link_relation(link) for link in arch.links]
    spatial_cache: dict[tuple[int, ...], isl.UnionMap] = {}
    same_step_cache: dict[tuple[int, ...], tuple[isl.UnionMap, isl.UnionMap] | None] = {}
    volumes: dict[str, dict[str, Volumes | None]] = {}
    for tensor in workload.tensors:
        volumes[tensor] = {}
        for side in SIDES:
            access = workload.access(tensor, side)
            if access is None:
                volumes[tensor][side] = None
                continue
            links = links_for(arch, tensor, side)
            if links not in spatial_cache:
                spatial_cache[links] = space_time.spatial_relation([arch.links[n] for n in links])
            trace = (
                SideTrace() if traces is None else traces.setdefault((tensor, side), SideTrace())
            )
            starved = None
            if arch.same_step == "groups":
                if links not in same_step_cache:
                    same_step_cache[links] = same_step_supply(space_time, arch, temporal, links)
                relations = same_step_cache[links]
                if relations is not None:
                    starved = starved_for(space_time.data_assignment(access), *relations)
                    if starved is None and unresolved is not None:
                        unresolved.append((tensor, side))
            volumes[tensor][side] = count_volumes(
                space_time,
                access,
                temporal,
                [(n, link_relations[n]) for n in links],
                spatial_cache[links],
                used_links,
                size,
                minus,
                None if fetched is None else fetched[side],
                trace,
                tidy=space_time.tidy,
                write=side == "write",
                starved=starved,
            )
    return volumes


def same_step_supply(
    space_time: SpaceTime, arch: Arch, temporal: isl.UnionMap, links: tuple[int, ...]
) -> tuple[isl.UnionMap, isl.UnionMap] | None:
    """For a set of links that form a same-step cycle (`tenet.model.same_step`): every supply
    but the same-step forward links (the PE's own previous step, the other windows, the
    multicast groups) and the same-step stamp pairs; None without such a cycle."""
    serving = [arch.links[n] for n in links]
    if not has_same_step_cycle(serving):
        return None
    supply = temporal
    for link in serving:
        part = other_supply(link)
        if part is not None:
            supply = supply.union(space_time.link_relation(part))
    return supply, same_step_stamps(space_time, serving)


def starved_for(
    assignment: isl.UnionMap, supply: isl.UnionMap, same_step: isl.UnionMap
) -> isl.UnionMap | None:
    """The triples of one tensor side (A_D = `assignment`) charged a fetch by the same-step
    rule; None when the groups cannot be found exactly."""
    supplied = assignment.intersect(supply.apply_range(assignment))
    return starved_triples(assignment, same_step, supplied)


def crowded_stamps(
    space_time: SpaceTime, workload: Workload, macs_per_pe: int, instances: int, stamps: int
) -> bool:
    """Whether some (PE, step) holds more than macs_per_pe instances (exact)."""
    if macs_per_pe == 1 or instances <= stamps:
        return instances > stamps
    return not pe_conflict_chains(
        space_time.stamp_map, program_order(workload), macs_per_pe
    ).is_empty()


def count_bound(
    workload: Workload,
    arch: Arch,
    bound: BoundDataflow,
    per_step: bool = True,
    profile: bool = False,
    cost: bool = False,
    dram_words: int | None = None,
    source: str | None = None,
    simplify_relations: bool = True,
) -> Counts:
    """Every count of one dataflow with barvinok (the caller sets the operations limit):
    volumes (with read_back and exits), instances, stamps, PEs, steps; the per-step
    numbers unless `per_step` is False (with in(t) and out(t) piece by piece when
    `profile`); the memory levels' traffic and the time through them; with `cost`, the
    actions the cost prices. `simplify_relations`: as `SpaceTime`'s (the counts are the
    same either way)."""
    space_time = SpaceTime.of(bound, arch, simplify_relations)
    used_links: set[int] = set()
    fetched: dict[str, list[isl.UnionMap]] = {side: [] for side in SIDES}
    traces: dict[tuple[str, str], SideTrace] | None = {} if cost else None
    unresolved: list[tuple[str, str]] = []
    volumes = tensor_volumes(
        workload,
        arch,
        space_time,
        used_links,
        fetched=fetched,
        traces=traces,
        unresolved=unresolved,
    )
    instances = count(workload.domain)
    stamps = count(space_time.stamp_domain)
    counted = steps = None
    step_costs: dict[str, isl.PwAff] = {}
    if per_step or profile:
        words_in = per_step_words(fetched["read"])
        words_out = per_step_words(fetched["write"])
        memory = arch.memory
        counted, step_costs = step_counts_and_costs(
            space_time.time_domain,
            words_in,
            words_out,
            memory.word_bits,
            memory.bandwidth_bits,
        )
        steps = StepProfile.of(words_in, words_out) if profile else None
    with_maps = level_traffic_maps(workload, arch, bound, source)
    time_steps = count(space_time.time_domain)
    hierarchy = None
    if counted is not None and bound.time_tuple[0] in step_costs:
        hierarchy = hierarchy_time(
            with_maps,
            arch,
            step_costs[bound.time_tuple[0]],
            counted.step_cycles,
            time_steps,
        )
    n_outside, example = outside_facts(space_time.space_domain, space_time.pe_domain)
    return Counts(
        instances=instances,
        stamps=stamps,
        active_pes=count(space_time.space_domain),
        time_steps=time_steps,
        volumes=volumes,
        used_links=frozenset(used_links),
        outside_pes=n_outside,
        outside_example=example,
        crowded=crowded_stamps(space_time, workload, arch.macs_per_pe, instances, stamps),
        step_counts=counted,
        profile=steps,
        levels=tuple(traffic for traffic, _ in with_maps),
        hierarchy=hierarchy,
        actions=None if traces is None else count_actions(arch, space_time, volumes, traces),
        area=None if traces is None else area_counts(arch),
        dram_words=dram_words,
        same_step_unresolved=tuple(unresolved),
    )


def analyze_bound(
    workload: Workload,
    arch: Arch,
    bound: BoundDataflow,
    dataflow: Dataflow | str,
    max_operations: int = DEFAULT_MAX_OPERATIONS,
    source: str | None = None,
    per_step: bool = True,
    profile: bool = False,
    cost: bool | None = None,
    dram_words: int | None = None,
    simplify_relations: bool = True,
) -> Analysis:
    """All counts for a dataflow already checked against its workload and arch
    (`count_bound`), assembled into its Analysis (`assemble`). `dataflow` is the Dataflow
    or its name. With `cost` (None: when the arch has components), energy in pJ and area
    in µm² (docs/energy.md), DRAM priced from `dram_words`. `simplify_relations`: as
    `SpaceTime`'s."""
    name = dataflow if isinstance(dataflow, str) else dataflow.name
    with operations_limit(max_operations, f"analyzing {name!r}", source):
        if cost is None:
            cost = arch.components is not None
        counts = count_bound(
            workload, arch, bound, per_step, profile, cost, dram_words, source, simplify_relations
        )
        return assemble(counts, workload, arch, dataflow)


def analyze_counts(
    workload: Workload,
    arch: Arch,
    dataflow: Dataflow,
    max_operations: int = DEFAULT_MAX_OPERATIONS,
    per_step: bool = True,
    profile: bool = False,
    cost: bool | None = None,
) -> Counts:
    """The Counts that `analyze` assembles (`count_bound` of the bound dataflow)."""
    bound = bind_dataflow(dataflow, workload, arch)
    if cost is None:
        cost = arch.components is not None
    with operations_limit(max_operations, f"analyzing {dataflow.name!r}", dataflow.source):
        return count_bound(workload, arch, bound, per_step, profile, cost, source=dataflow.source)


def analyze(
    workload: Workload,
    arch: Arch,
    dataflow: Dataflow,
    max_operations: int = DEFAULT_MAX_OPERATIONS,
    per_step: bool = True,
    profile: bool = False,
    cost: bool | None = None,
    simplify_relations: bool = True,
) -> Analysis:
    """All metrics of docs/metrics.md for one workload, arch and dataflow (without the
    per-step ones when `per_step` is False; with in(t) and out(t) piece by piece when
    `profile`; with energy in pJ and area in µm² when `cost`, by default when the arch
    has components). `simplify_relations=False` leaves the reuse relations as built
    (`SpaceTime`): the same numbers, faster on the candidates `dse` generates."""
    bound = bind_dataflow(dataflow, workload, arch)
    return analyze_bound(
        workload,
        arch,
        bound,
        dataflow,
        max_operations,
        dataflow.source,
        per_step,
        profile,
        cost=cost,
        simplify_relations=simplify_relations,
    )
