"""Brute-force reference: the same metrics by enumerating every instance.

No barvinok here: isl only lists the points of the (finite) relations; all reuse
logic is plain Python over dictionaries, written independently of `relations.py`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

import islpy as isl

from .arch import Arch
from .checks import dataflow_warnings, idle_links, outside_array_message
from .dataflow import Dataflow, bind_dataflow
from .errors import InputError
from .isl_util import count, maps_of, sets_of
from .metrics import Analysis, Volumes, links_for
from .workload import SIDES, Workload

DEFAULT_MAX_INSTANCES = 10**6

Point = tuple[str, tuple[int, ...]]


def _coords(point: isl.Point, n: int) -> tuple[int, ...]:
    return tuple(point.get_coordinate_val(isl.dim_type.set, i).to_python() for i in range(n))


def _points(uset: isl.UnionSet) -> list[tuple[str, tuple[int, ...]]]:
    """All (tuple name, coordinates) of a finite set."""
    out: list[tuple[str, tuple[int, ...]]] = []
    for s in sets_of(uset):
        name, n = s.get_tuple_name() or "", s.dim(isl.dim_type.set)
        s.foreach_point(lambda point, name=name, n=n: out.append((name, _coords(point, n))))
    return out


def check_size(workload: Workload, max_instances: int) -> None:
    """Refuse problems above `max_instances` before enumerating anything.

    (The guard alone counts with barvinok; every metric below is enumerated.)
    """
    if max_instances < 1:
        raise InputError(f"must be positive, got {max_instances}", "--max-instances")
    size = count(workload.domain)
    if size > max_instances:
        raise InputError(
            f"{size:,} instances is more than --max-instances {max_instances:,}: too many to enumerate "
            "(raise --max-instances, shrink the problem with --set, or use 'tenet analyze')",
            workload.source,
        )


def _pairs(umap: isl.UnionMap) -> list[tuple[Point, Point]]:
    """All (domain point, range point) pairs of a finite relation."""
    out = []
    for m in maps_of(umap):
        n_in, n_out = m.dim(isl.dim_type.in_), m.dim(isl.dim_type.out)
        src, dst = (
            m.get_tuple_name(isl.dim_type.in_) or "",
            m.get_tuple_name(isl.dim_type.out) or "",
        )

        def add(point: isl.Point, src=src, dst=dst, n_in=n_in, n_out=n_out) -> None:
            xs = _coords(point, n_in + n_out)
            out.append(((src, xs[:n_in]), (dst, xs[n_in:])))

        m.wrap().foreach_point(add)
    return out


def _stamps(
    space_map: isl.UnionMap, time_map: isl.UnionMap
) -> dict[Point, tuple[Point, tuple[int, ...]]]:
    """instance -> (PE point, time coordinates)."""
    pe_of = dict(_pairs(space_map))
    time_of = dict(_pairs(time_map))
    return {inst: (pe_of[inst], time_of[inst][1]) for inst in pe_of}


def simulate(
    workload: Workload,
    arch: Arch,
    dataflow: Dataflow,
    max_instances: int = DEFAULT_MAX_INSTANCES,
    progress: Callable[[int, int], None] | None = None,
) -> Analysis:
    """Every metric of `analyze`, computed by enumeration (the test reference)."""
    check_size(workload, max_instances)
    bound = bind_dataflow(dataflow, workload, arch)
    instances = _points(workload.domain)
    stamps = _stamps(bound.space_map, bound.time_map)
    times = sorted({t for _, t in stamps.values()})
    position = {t: k for k, t in enumerate(times)}

    def earlier(t: tuple[int, ...], distance: int) -> tuple[int, ...] | None:
        k = position[t] - distance
        return times[k] if k >= 0 else None

    neighbours: list[dict[Point, list[Point]]] = []
    for link in arch.links:
        table: dict[Point, list[Point]] = defaultdict(list)
        for receiver, sender in _pairs(link.relation):
            table[receiver].append(sender)
        neighbours.append(table)

    volumes: dict[str, dict[str, Volumes | None]] = {}
    used_links: set[int] = set()
    for tensor in workload.tensors:
        volumes[tensor] = {}
        for side in SIDES:
            access = workload.access(tensor, side)
            if access is None:
                volumes[tensor][side] = None
                continue
            pairs = _pairs(access)
            touched: dict[tuple[Point, tuple[int, ...]], set[Point]] = defaultdict(set)
            for inst, element in pairs:
                touched[stamps[inst]].add(element)
            chosen = links_for(arch, tensor, side)
            unique = temporal_unique = spatial = 0
            carried = dict.fromkeys(chosen, 0)
            for (pe, t), elements in touched.items():
                before = earlier(t, 1)
                own = touched.get((pe, before), set()) if before is not None else set()
                by_link: dict[int, list[set[Point]]] = {}
                spatial_sources: list[set[Point]] = []
                for n in chosen:
                    link, held_by = arch.links[n], []
                    for other in neighbours[n].get(pe, ()):
                        for w in link.window:
                            t2 = earlier(t, w)
                            if t2 is None or (other, t2) == (pe, t):
                                continue
                            if link.kind == "multicast" and w == 0 and not other[1] < pe[1]:
                                continue  # same step: only a smaller group member supplies
                            held = touched.get((other, t2), set())
                            held_by.append(held)
                            if other != pe:
                                spatial_sources.append(held)
                    by_link[n] = held_by
                for element in elements:
                    if any(element in held for held in spatial_sources):
                        spatial += 1
                    for n in chosen:
                        if any(element in held for held in by_link[n]):
                            used_links.add(n)
                    if element in own:
                        continue
                    temporal_unique += 1
                    server = next(
                        (n for n in chosen if any(element in h for h in by_link[n])), None
                    )
                    if server is None:
                        unique += 1
                    else:
                        carried[server] += 1
            volumes[tensor][side] = Volumes(len(pairs), unique, temporal_unique, spatial, carried)
        if progress:
            progress(len(volumes), len(workload.tensors))
    pe_points = set(_points(arch.pe_domain))
    used = {pe for pe, _ in stamps.values()}
    outside = sorted(used - pe_points)
    example = f"{outside[0][0]}[{', '.join(map(str, outside[0][1]))}]" if outside else ""
    n_stamps = len(set(stamps.values()))
    return Analysis(
        workload=workload.name,
        arch=arch.name,
        dataflow=dataflow.name,
        instances=len(instances),
        macs=len(instances) * workload.macs_per_instance,
        pe_count=len(pe_points),
        active_pes=len(used),
        time_steps=len(times),
        stamps=n_stamps,
        volumes=volumes,
        word_bits=arch.memory.word_bits,
        bandwidth_bits=arch.memory.bandwidth_bits,
        avg_latency=arch.memory.avg_latency,
        energy_constants=(arch.energy.mac, arch.energy.l1, arch.energy.l2),
        links=[(link.label, link.kind, link.window) for link in arch.links],
        warnings=dataflow_warnings(
            outside_array_message(len(outside), example), arch, workload, len(instances), n_stamps
        )
        + idle_links(arch, used_links),
    )
