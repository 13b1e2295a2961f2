"""Counting: per-tensor volumes and whole-dataflow metrics, exactly (barvinok)."""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import islpy as isl

from tenet.model.arch import Arch
from tenet.model.checks import dataflow_warnings, idle_links, outside_array
from tenet.model.dataflow import BoundDataflow, Dataflow, bind_dataflow
from tenet.model.relations import SpaceTime, pe_conflict_chains, program_order
from tenet.model.workload import SIDES, Workload
from tenet.util.isl_util import DEFAULT_MAX_OPERATIONS, count, operations_limit, simplify

#: The fields of one tensor side in analyze's JSON, in order.
TENSOR_FIELDS = (
    "total",
    "unique",
    "reuse",
    "temporal_reuse",
    "spatial_reuse",
    "reuse_factor",
    "ibw",
    "sbw",
)


@dataclass
class Volumes:
    """Per tensor and side (semantics.md, "Per-tensor volumes")."""

    total: int
    unique: int
    temporal_unique: int  # |A_D \ (M_t ; A_D)|
    spatial_reuse: int
    carried: dict[int, int] = field(default_factory=dict)  # link index -> values it serves

    @property
    def reuse(self) -> int:
        return self.total - self.unique

    @property
    def temporal_reuse(self) -> int:
        return self.total - self.temporal_unique

    @property
    def reuse_factor(self) -> float | None:
        return None if self.unique == 0 else self.total / self.unique


@dataclass
class Analysis:
    """Every count of one workload + arch + dataflow; derived metrics are properties."""

    workload: str
    arch: str
    dataflow: str
    instances: int
    macs: int
    pe_count: int
    active_pes: int
    time_steps: int
    stamps: int  # |ST|
    volumes: dict[str, dict[str, Volumes | None]]
    word_bits: int
    bandwidth_bits: int
    avg_latency: int
    energy_constants: tuple[Fraction, Fraction, Fraction]
    warnings: list[str] = field(default_factory=list)
    links: list[tuple[str, str, tuple[int, ...]]] = field(
        default_factory=list
    )  # name, kind, window

    @property
    def avg_active_pes(self) -> float:
        return self.stamps / self.time_steps

    @property
    def compute_delay(self) -> int:
        return self.macs // self.active_pes

    def _side_unique(self, side: str) -> int:
        return sum(v[side].unique for v in self.volumes.values() if v[side] is not None)

    @property
    def ingress_delay(self) -> int:
        return (
            self._side_unique("read") * self.word_bits // self.bandwidth_bits + self.avg_latency - 1
        )

    @property
    def egress_delay(self) -> int:
        return (
            self._side_unique("write") * self.word_bits // self.bandwidth_bits
            + self.avg_latency
            - 1
        )

    @property
    def latency(self) -> int:
        return max(self.ingress_delay, self.egress_delay, self.compute_delay)

    @property
    def utilization(self) -> float:
        return self.macs / (self.pe_count * self.latency)

    def l1_l2(self, tensor: str) -> dict[str, int]:
        """L1 reads = L1 writes = Σ_sides total; L2 reads = L2 writes = Σ_sides unique."""
        sides = [v for v in self.volumes[tensor].values() if v is not None]
        total = sum(v.total for v in sides)
        unique = sum(v.unique for v in sides)
        return {"l1_reads": total, "l1_writes": total, "l2_reads": unique, "l2_writes": unique}

    @property
    def energy_exact(self) -> Fraction:
        e_mac, e_l1, e_l2 = self.energy_constants
        energy = e_mac * self.macs
        for tensor in self.volumes:
            acc = self.l1_l2(tensor)
            energy += e_l1 * (acc["l1_reads"] + acc["l1_writes"])
            energy += e_l2 * (acc["l2_reads"] + acc["l2_writes"])
        return energy

    @property
    def energy(self) -> float:
        return float(self.energy_exact)

    def link_traffic(self) -> list[dict[str, Any]]:
        """Per interconnect entry: values it serves per tensor and side, and per step.

        A value is served by the PE's own previous step first, then by the links in
        the arch's order, so the values of all links plus temporal reuse equal the reuse.
        """
        out = []
        for n, (name, kind, window) in enumerate(self.links):
            values = {
                tensor: {side: v.carried.get(n, 0) for side, v in sides.items() if v is not None}
                for tensor, sides in self.volumes.items()
            }
            total = sum(x for sides in values.values() for x in sides.values())
            out.append(
                {
                    "name": name,
                    "kind": kind,
                    "window": list(window),
                    "values": values,
                    "total": total,
                    "per_step": total / self.compute_delay,
                }
            )
        return out

    def to_dict(self) -> dict[str, Any]:
        """The contract's JSON object (plus `accesses`, `bandwidth` and `warnings`)."""
        compute = self.compute_delay
        tensors: dict[str, Any] = {}
        ibw_sum = sbw_sum = 0.0
        for tensor, sides in self.volumes.items():
            tensors[tensor] = {}
            for side in SIDES:
                v = sides[side]
                if v is None:
                    tensors[tensor][side] = None
                    continue
                ibw, sbw = v.spatial_reuse / compute, v.unique / compute
                ibw_sum += ibw
                sbw_sum += sbw
                tensors[tensor][side] = {
                    "total": v.total,
                    "unique": v.unique,
                    "reuse": v.reuse,
                    "temporal_reuse": v.temporal_reuse,
                    "spatial_reuse": v.spatial_reuse,
                    "reuse_factor": v.reuse_factor,
                    "ibw": ibw,
                    "sbw": sbw,
                }
        return {
            "workload": self.workload,
            "arch": self.arch,
            "dataflow": self.dataflow,
            "instances": self.instances,
            "macs": self.macs,
            "pe_count": self.pe_count,
            "active_pes": self.active_pes,
            "avg_active_pes": self.avg_active_pes,
            "time_steps": self.time_steps,
            "utilization": self.utilization,
            "delay": {
                "ingress": self.ingress_delay,
                "egress": self.egress_delay,
                "compute": compute,
                "latency": self.latency,
            },
            "energy": self.energy,
            "tensors": tensors,
            "accesses": {tensor: self.l1_l2(tensor) for tensor in self.volumes},
            "links": self.link_traffic(),
            "bandwidth": {"ibw": ibw_sum, "sbw": sbw_sum},
            "warnings": list(self.warnings),
        }


def arch_constants(arch: Arch) -> dict[str, Any]:
    """The fields of an Analysis that come straight from the arch."""
    return {
        "word_bits": arch.memory.word_bits,
        "bandwidth_bits": arch.memory.bandwidth_bits,
        "avg_latency": arch.memory.avg_latency,
        "energy_constants": (arch.energy.mac, arch.energy.l1, arch.energy.l2),
        "links": [(link.label, link.kind, link.window) for link in arch.links],
    }


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
) -> Volumes:
    """total = |A|; temporal = |A_D \\ (M_t;A_D)|; then each link, in order, serves what is
    still unserved; unique = |A_D \\ (M;A_D)| is what no source serves;
    spatial = |A_D ∩ (M_x;A_D)|. Links that could serve something join `used_links`.
    `size` and `minus` count and subtract (barvinok's quasi-polynomials for symbolic counts)."""
    assignment = space_time.data_assignment(access)

    def reachable(rel: isl.UnionMap) -> isl.UnionMap:
        return simplify(rel.apply_range(assignment))

    remaining = assignment.subtract(reachable(temporal))
    temporal_unique = left = size(remaining)
    carried = {}
    for index, rel in link_relations:
        reach = reachable(rel)
        if (
            used_links is not None
            and index not in used_links
            and not assignment.intersect(reach).is_empty()
        ):
            used_links.add(index)
        remaining = remaining.subtract(reach)
        now = size(remaining)
        carried[index], left = minus(left, now), now
    return Volumes(
        total=size(access),
        unique=left,
        temporal_unique=temporal_unique,
        spatial_reuse=size(assignment.intersect(reachable(spatial))),
        carried=carried,
    )


def tensor_volumes(
    workload: Workload,
    arch: Arch,
    space_time: SpaceTime,
    used_links: set[int] | None = None,
    size: Callable[[Any], Any] = count,
    minus: Callable[[Any, Any], Any] = operator.sub,
) -> dict[str, dict[str, Volumes | None]]:
    """`count_volumes` of every tensor and side; the temporal, link and spatial relations
    are built once and shared (a spatial relation per distinct set of links)."""
    temporal = space_time.temporal_relation()
    link_relations = [space_time.link_relation(link) for link in arch.links]
    spatial_cache: dict[tuple[int, ...], isl.UnionMap] = {}
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
            volumes[tensor][side] = count_volumes(
                space_time,
                access,
                temporal,
                [(n, link_relations[n]) for n in links],
                spatial_cache[links],
                used_links,
                size,
                minus,
            )
    return volumes


def crowded_stamps(
    space_time: SpaceTime, workload: Workload, macs_per_pe: int, instances: int, stamps: int
) -> bool:
    """Whether some (PE, step) holds more than macs_per_pe instances (exact)."""
    if macs_per_pe == 1 or instances <= stamps:
        return instances > stamps
    return not pe_conflict_chains(
        space_time.stamp_map, program_order(workload), macs_per_pe
    ).is_empty()


def analyze_bound(
    workload: Workload,
    arch: Arch,
    bound: BoundDataflow,
    dataflow_name: str,
    max_operations: int = DEFAULT_MAX_OPERATIONS,
    source: str | None = None,
) -> Analysis:
    """All counts for a dataflow already checked against its workload and arch."""
    with operations_limit(max_operations, f"analyzing {dataflow_name!r}", source):
        space_time = SpaceTime.of(bound, arch)
        used_links: set[int] = set()
        volumes = tensor_volumes(workload, arch, space_time, used_links)
        instances = count(workload.domain)
        stamps = count(space_time.stamp_domain)
        return Analysis(
            workload=workload.name,
            arch=arch.name,
            dataflow=dataflow_name,
            instances=instances,
            macs=instances * workload.macs_per_instance,
            pe_count=arch.pe_count,
            active_pes=count(space_time.space_domain),
            time_steps=count(space_time.time_domain),
            stamps=stamps,
            volumes=volumes,
            **arch_constants(arch),
            warnings=dataflow_warnings(
                outside_array(space_time),
                arch,
                workload,
                instances,
                stamps,
                crowded_stamps(space_time, workload, arch.macs_per_pe, instances, stamps),
            )
            + idle_links(arch, used_links),
        )


def analyze(
    workload: Workload, arch: Arch, dataflow: Dataflow, max_operations: int = DEFAULT_MAX_OPERATIONS
) -> Analysis:
    """All metrics of `semantics.md` for one workload, arch and dataflow."""
    bound = bind_dataflow(dataflow, workload, arch)
    return analyze_bound(workload, arch, bound, dataflow.name, max_operations, dataflow.source)
