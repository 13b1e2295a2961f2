"""Exact evaluation of many generated candidates of one workload on one array, sharing the work
that does not depend on the candidate.

`tenet.model.metrics.analyze` counts one dataflow from scratch. The candidates of the design
space (`tenet.explore.dse`) share their workload and arch, so per (workload, arch) this module
counts once: the instances, the total accesses |A| of every tensor side, the flow dependences
and the warnings that depend only on the arch and the workload. Per candidate it counts what
depends on the candidate with the model's own functions (`SpaceTime`, `count_volumes`,
`step_counts`), so every number equals `analyze`'s (tests/explore/test_dse_fast.py compares
them).

Legality of a generated candidate: its space and time maps are quasi-affine expressions of the
instance, so they are functions on the domain; its PE coordinates are `(x - low) % size`, or
`x - low` for a loop no longer than its axis, so it stays inside the array's box; and its
stamp determines the instance (every loop is either a PE coordinate, a time dimension, or
`size·floor(x/size) + x % size` of a tile dimension and a PE coordinate), so no (PE, step)
holds two instances. The one check left is the order of the flow dependences, done here as
`validate` does it. `explore` runs the full `validate` and `analyze` again on every front
member, so the front it reports is the plain model's.
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import islpy as isl

from tenet.analysis.validate import flow_dependences
from tenet.errors import IslLimitError
from tenet.explore.objectives import COST_OBJECTIVES, OBJECTIVES
from tenet.model.arch import Arch
from tenet.model.checks import dataflow_warnings, idle_links, outside_array
from tenet.model.metrics import Analysis, arch_constants, count_volumes, links_for
from tenet.model.relations import SpaceTime
from tenet.model.schedule_time import per_step_words, step_counts
from tenet.model.workload import SIDES, Workload
from tenet.util.isl_util import count, operations_limit, parse_union_map


@dataclass
class SharedWork:
    """What every candidate of one (workload, arch) shares: counted once per process."""

    workload: Workload
    arch: Arch
    instances: int
    totals: dict[int, int]  # id(access relation) -> |A|
    dependences: isl.UnionMap  # flow dependences, source -> sink (reductions free)
    fixed_warnings: list[str]  # dataflow_warnings that do not depend on the dataflow

    @classmethod
    def of(cls, workload: Workload, arch: Arch) -> SharedWork:
        totals = {}
        for tensor in workload.tensors:
            for side in SIDES:
                access = workload.access(tensor, side)
                if access is not None:
                    totals[id(access)] = count(access)
        instances = count(workload.domain)
        return cls(
            workload,
            arch,
            instances,
            totals,
            flow_dependences(workload),
            dataflow_warnings(None, arch, workload, instances, instances, False),
        )

    def size(self, obj: Any) -> int:
        """|obj|: the shared total when obj is one of the workload's access relations."""
        known = self.totals.get(id(obj))
        return count(obj) if known is None else known


_SHARED: dict[str, SharedWork] = {}


def shared_work(blob: bytes) -> SharedWork:
    """The SharedWork of the (workload, arch) pickled in `blob`, built once per process."""
    digest = hashlib.sha256(blob).hexdigest()
    if digest not in _SHARED:
        if len(_SHARED) > 4:
            _SHARED.clear()
        _SHARED[digest] = SharedWork.of(*pickle.loads(blob))
    return _SHARED[digest]


def runs_in_order(shared: SharedWork, time: isl.UnionMap) -> bool:
    """No flow dependence source -> sink has time(sink) ⪯ time(source) (validate's
    `dependence` check): the pairs (time(source), time(sink)) are all lexicographically
    increasing."""
    if shared.dependences.is_empty():
        return True
    pairs = shared.dependences.apply_domain(time).apply_range(time)
    t_used = time.range()
    return pairs.intersect(t_used.lex_ge_union_set(t_used)).is_empty()


def analyze_candidate(
    shared: SharedWork, name: str, space: isl.UnionMap, time: isl.UnionMap, per_step: bool
) -> Analysis:
    """`analyze` of a generated candidate (maps already restricted to the domain) with the
    shared counts; the per-step numbers only when `per_step`."""
    workload, arch = shared.workload, shared.arch
    space_time = SpaceTime(space, time, arch.pe_domain)
    used_links: set[int] = set()
    fetched: dict[str, list[isl.UnionMap]] = {side: [] for side in SIDES}
    temporal = space_time.temporal_relation()
    link_relations = [space_time.link_relation(link) for link in arch.links]
    spatial_cache: dict[tuple[int, ...], isl.UnionMap] = {}
    volumes: dict[str, dict[str, Any]] = {}
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
            volumes[tensor][side] = count_volumes(
                space_time,
                access,
                temporal,
                [(n, link_relations[n]) for n in links],
                spatial_cache[links],
                used_links,
                size=shared.size,
                tidy=_as_is,
                fetched=fetched[side] if per_step else None,
            )
    counted = None
    if per_step:
        memory = arch.memory
        counted = step_counts(
            space_time.time_domain,
            per_step_words(fetched["read"]),
            per_step_words(fetched["write"]),
            memory.word_bits,
            memory.bandwidth_bits,
        )
    instances = shared.instances
    stamps = count(space_time.stamp_domain)
    outside = outside_array(space_time)
    warnings = ([outside] if outside else []) + list(shared.fixed_warnings)
    if instances > stamps:  # never for a generated candidate; as analyze says it
        warnings = dataflow_warnings(outside, arch, workload, instances, stamps, True)
    return Analysis(
        workload=workload.name,
        arch=arch.name,
        dataflow=name,
        instances=instances,
        macs=instances * workload.macs_per_instance,
        pe_count=arch.pe_count,
        active_pes=count(space_time.space_domain),
        time_steps=count(space_time.time_domain),
        stamps=stamps,
        volumes=volumes,
        **arch_constants(arch),
        warnings=warnings + idle_links(arch, used_links),
        step_counts=counted,
    )


def evaluate_generated(argument: tuple) -> dict[str, Any]:
    """Check and count one generated candidate (a picklable task of `run_tasks`); argument =
    (blob, name, space text, time text, max_operations, per_step, objectives).

    Returns {"legal": False, "violations": [kinds]}, {"legal": True, "vector": the signed
    objective values (smaller is better)}, or {"legal": True, "error": message} when isl
    gives up. Objectives that read fields only the plain model fills (component costs,
    memory levels: `PLAIN_OBJECTIVES`) are counted with `validate` and `analyze`.
    """
    blob, name, space_text, time_text, max_operations, per_step, objectives = argument
    shared = shared_work(blob)
    if any(objective in PLAIN_OBJECTIVES for objective in objectives):
        return _evaluate_plain(shared, name, space_text, time_text, max_operations, objectives)
    domain = shared.workload.domain
    space = parse_union_map(space_text).intersect_domain(domain)
    time = parse_union_map(time_text).intersect_domain(domain)
    try:
        with operations_limit(max_operations, f"analyzing {name!r}", None):
            if not runs_in_order(shared, time):
                return {"legal": False, "violations": ["dependence"]}
            analysis = analyze_candidate(shared, name, space, time, per_step)
    except IslLimitError as exc:
        return {"legal": True, "error": exc.message}
    return {"legal": True, "vector": signed_values(analysis, objectives)}


#: Objectives whose numbers only `analyze` gives (component costs, memory levels).
PLAIN_OBJECTIVES = (*COST_OBJECTIVES, "dram")


def signed_values(analysis: Analysis, objectives: Sequence[str]) -> list[int | float]:
    """The objectives of one analysis, each signed so that smaller is better."""
    out = []
    for name in objectives:
        objective = OBJECTIVES[name]
        value = objective.value(analysis)
        out.append(-value if objective.maximize else value)
    return out


def _evaluate_plain(
    shared: SharedWork,
    name: str,
    space_text: str,
    time_text: str,
    max_operations: int,
    objectives: Sequence[str],
) -> dict[str, Any]:
    """`validate` and `analyze` of one candidate, as `tenet analyze` does them."""
    from tenet.analysis.validate import validate
    from tenet.model.dataflow import Dataflow
    from tenet.model.metrics import analyze

    dataflow = Dataflow(name, parse_union_map(space_text), parse_union_map(time_text))
    verdict = validate(shared.workload, shared.arch, dataflow)
    if not verdict.legal:
        return {"legal": False, "violations": sorted({v.kind for v in verdict.violations})}
    try:
        analysis = analyze(shared.workload, shared.arch, dataflow, max_operations)
    except IslLimitError as exc:
        return {"legal": True, "error": exc.message}
    return {"legal": True, "vector": signed_values(analysis, objectives)}


def _as_is(relation: Any) -> Any:
    """No rewriting: on generated candidates `simplify` of M;A_D costs more than it saves
    (measured in benchmarks/bench_dse.py); the points, hence the counts, are the same."""
    return relation


# --- lower bounds for pruning ------------------------------------------------------------------


@dataclass(frozen=True)
class BoundBasis:
    """The candidate-independent numbers the lower bounds use (counted once)."""

    instances: int
    macs: int
    pe_count: int
    first_reads: int  # Σ over read sides of |range(A)|, sides a same-step forward link may serve: 0
    first_writes: int  # the same for the write sides
    access_words: int  # Σ over tensors and sides of |A| (the L1 accesses of the energy)
    word_bits: int
    bandwidth_bits: int
    avg_latency: int
    energy_constants: tuple[Any, Any, Any]

    @classmethod
    def of(cls, shared: SharedWork) -> BoundBasis:
        """Every element a side touches is fetched at least once (its first stamp, lowest PE
        first, has no earlier step and no lower multicast sender), unless a forward link at
        distance 0 may serve that side (then the bound is 0)."""
        workload, arch = shared.workload, shared.arch
        first = {"read": 0, "write": 0}
        access_words = 0
        for tensor in workload.tensors:
            for side in SIDES:
                access = workload.access(tensor, side)
                if access is None:
                    continue
                access_words += shared.size(access)
                same_step = any(
                    link.kind == "forward" and 0 in link.window and link.serves(tensor, side)
                    for link in arch.links
                )
                if not same_step:
                    first[side] += count(access.range())
        memory = arch.memory
        return cls(
            shared.instances,
            shared.instances * workload.macs_per_instance,
            arch.pe_count,
            first["read"],
            first["write"],
            access_words,
            memory.word_bits,
            memory.bandwidth_bits,
            memory.avg_latency,
            (arch.energy.mac, arch.energy.l1, arch.energy.l2),
        )


def bound_values(basis: BoundBasis, most_active_pes: int) -> dict[str, int | float]:
    """Lower bounds of the objectives (as the objectives read them) of a generated candidate
    whose PE coordinates take at most `most_active_pes` values; objectives without a bound are
    absent. Stamps are one per instance, so steps >= instances / PEs; compute delay =
    floor(macs / active PEs); the unique words of a side are at least its first accesses."""
    from tenet.model.metrics import compute_delay, latency, transfer_delay, utilization

    active = max(1, min(most_active_pes, basis.pe_count))
    compute = compute_delay(basis.macs, active)
    steps = -(-basis.instances // active)
    memory = (basis.word_bits, basis.bandwidth_bits, basis.avg_latency)
    ingress = transfer_delay(basis.first_reads, *memory)
    egress = transfer_delay(basis.first_writes, *memory)
    slowest = latency(ingress, egress, compute)
    e_mac, e_l1, e_l2 = basis.energy_constants
    energy = (
        e_mac * basis.macs
        + 2 * e_l1 * basis.access_words
        + 2 * e_l2 * (basis.first_reads + basis.first_writes)
    )
    return {
        "latency": slowest,
        "energy": float(energy),
        "traffic": basis.first_reads + basis.first_writes,
        "ingress": ingress,
        "egress": egress,
        "compute": compute,
        "time_steps": steps,
        "steps": steps,
        "schedule": steps + basis.avg_latency - 1,
        "utilization": utilization(basis.macs, basis.pe_count, slowest),
        "active_pes": active,
    }
