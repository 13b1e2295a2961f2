"""Brute-force reference: the same metrics by enumerating every instance.

No barvinok here. Instances are listed and the dataflow and access functions are
evaluated point by point (numpy, see `points.py`); each (PE, step, element) a PE
touches is then checked against every source the semantics allow: the PE's own
previous step and each link's senders at each window distance. This is written
independently of `relations.py` and is what the engine is tested against.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import islpy as isl
import numpy as np

from tenet.analysis.points import (
    apply_relation,
    relation_pairs,
    set_points,
    union_points,
    unique_rows,
)
from tenet.analysis.simulate_cost import (
    area_counts_by_enumeration,
    read_back_of,
    simulate_actions,
)
from tenet.analysis.simulate_levels import simulate_level_walks, walk_hierarchy
from tenet.errors import InputError, option_ref
from tenet.model.arch import Arch
from tenet.model.assemble import assemble
from tenet.model.checks import (
    AnalysisWarning,
    dataflow_warnings,
    outside_array_message,
)
from tenet.model.counts import Counts
from tenet.model.dataflow import BoundDataflow, Dataflow, bind_dataflow
from tenet.model.metrics import Analysis, Volumes, links_for
from tenet.model.schedule_time import StepCounts
from tenet.model.workload import SIDES, Workload
from tenet.util.isl_util import count, maps_of, sets_of
from tenet.util.limits import DEFAULT_MAX_INSTANCES


def check_size(workload: Workload, max_instances: int) -> None:
    """Refuse problems above `max_instances` before enumerating anything.

    (The guard alone counts with barvinok; every metric below is enumerated.)
    """
    if max_instances < 1:
        raise InputError(f"must be positive, got {max_instances}", option="max_instances")
    size = count(workload.domain)
    if size > max_instances:
        raise InputError(
            f"{size:,} instances is more than {option_ref('max_instances')} {max_instances:,}: "
            f"too many to enumerate (raise {option_ref('max_instances')}, shrink the problem "
            f"with {option_ref('set')}, or use 'tenet analyze')",
            workload.source,
        )


#: Environment variable that overrides the memory `simulate` may use, in bytes (tests, or
#: a machine whose /proc/meminfo does not say what a job may take).
MEMORY_ENV = "TENET_MEMORY_AVAILABLE"


def memory_estimate(workload: Workload, arch: Arch, bound: BoundDataflow, instances: int) -> int:
    """Bytes the enumeration holds at its peak, estimated from above: per instance, int64
    arrays of its coordinates, PE and time stamp (twice: values and their sorting), and of
    the one tensor side being checked (its element coordinates twice, and about 16 index
    and mask arrays). On GEMM (3 loops, 2-D PEs, 3-D time, 2-D tensors) this is 320 bytes
    per instance, where the measured peak grows by about 245 bytes per instance."""
    loop_dims = max(s.dim(isl.dim_type.set) for s in sets_of(workload.domain))
    element_dims = [
        maps_of(workload.access(t, side))[0].dim(isl.dim_type.out)
        for t in workload.tensors
        for side in SIDES
        if workload.access(t, side) is not None
    ]
    stamps = 2 * (loop_dims + arch.pe_arity + bound.time_tuple[1]) + 4
    side = 2 * max(element_dims, default=0) + 16
    return 8 * (stamps + side) * instances


def available_memory() -> tuple[int | None, str]:
    """(bytes this process may still allocate, where that number comes from): the
    environment variable MEMORY_ENV, else MemAvailable in /proc/meminfo, else the free
    physical pages (sysconf); (None, ...) when none says."""
    text = os.environ.get(MEMORY_ENV)
    if text:
        try:
            return int(text), MEMORY_ENV
        except ValueError:
            raise InputError(f"expected a number of bytes, got {text!r}", MEMORY_ENV) from None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024, "MemAvailable in /proc/meminfo"
    except (OSError, ValueError, IndexError):
        pass
    try:
        pages = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        return int(pages), "free physical memory"
    except (AttributeError, ValueError, OSError):
        return None, "unknown"


def _gib(n: int) -> str:
    return f"{n / 2**30:,.1f} GiB" if n >= 2**30 else f"{n / 2**20:,.1f} MiB"


def check_memory(
    workload: Workload,
    arch: Arch,
    bound: BoundDataflow,
    available: int | None = None,
) -> None:
    """Refuse, before enumerating, a problem whose estimated memory (`memory_estimate`)
    exceeds `available` bytes (None: what the machine has free, `available_memory`)."""
    where = "given"
    if available is None:
        available, where = available_memory()
        if available is None:
            return
    instances = count(workload.domain)
    need = memory_estimate(workload, arch, bound, instances)
    if need > available:
        raise InputError(
            f"enumerating {instances:,} instances needs about {_gib(need)} of memory, more "
            f"than the {_gib(available)} available ({where}): shrink the problem with {option_ref('set')}, "
            "or count it with 'tenet analyze'",
            workload.source,
        )


def _function_values(
    umap, points: dict[str, np.ndarray], offsets: dict[str, int], n: int, width: int
) -> np.ndarray:
    """Image of every instance under a function given as a union of relations."""
    out = np.zeros((n, width), dtype=np.int64)
    for src, idx, _dst, img in relation_pairs(umap, points):
        out[offsets[src] + idx] = img
    return out


@dataclass
class SideUse:
    """What happens to each (PE, step, element) triple of one tensor side (arrays of equal length)."""

    total: int  # (instance, element) pairs
    pe: np.ndarray
    step: np.ndarray
    element: np.ndarray  # row index into `elements`
    elements: np.ndarray  # element coordinates
    own: np.ndarray  # held by this PE at the previous step
    served: dict[int, np.ndarray]  # link index -> a sender held it (within the link's window)
    spatial: np.ndarray  # a different PE held it (any link)
    forced: np.ndarray  # charged a fetch: its same-step group is starved (starved_by_walk)

    @property
    def unique(self) -> np.ndarray:
        reused = self.own.copy()
        for mask in self.served.values():
            reused |= mask
        return ~reused | self.forced


class Enumeration:
    """Every instance of a workload with its (PE, step) stamp, and the PE links as tables."""

    def __init__(self, workload: Workload, arch: Arch, bound: BoundDataflow):
        self.workload, self.arch = workload, arch
        self.points = union_points(workload.domain)
        self.offsets, total = {}, 0
        for name, _ in workload.statements:
            self.offsets[name] = total
            total += len(self.points.get(name, ()))
        self.n_instances = total
        pe_width = arch.pe_arity
        time_width = bound.time_tuple[1]
        pe_coords = _function_values(bound.space_map, self.points, self.offsets, total, pe_width)
        time_coords = _function_values(bound.time_map, self.points, self.offsets, total, time_width)
        array = set_points(sets_of(arch.pe_domain)[0])
        # PE ids follow lexicographic order of coordinates (the multicast rule relies on it).
        self.pes, inverse = unique_rows(np.concatenate([array, pe_coords]))
        self.in_array = np.zeros(len(self.pes), dtype=bool)
        self.in_array[inverse[: len(array)]] = True
        self.instance_pe = inverse[len(array) :]
        self.times, self.instance_step = unique_rows(time_coords)
        self.links = [self._link_table(link.relation) for link in arch.links]

    @functools.cached_property
    def used_pes(self) -> np.ndarray:
        """Ids of the PEs that run at least one instance (inside the array or not)."""
        return np.unique(self.instance_pe)

    def stamp_warnings(self) -> list[AnalysisWarning]:
        """The warnings of `analyze` that do not depend on the links: PEs outside the array,
        crowded (PE, step) stamps, same-step link cycles, links naming unknown tensors."""
        arch = self.arch
        return dataflow_warnings(
            outside_array_message(*self.outside_facts()),
            arch,
            self.workload,
            self.n_instances,
            self.n_stamps,
            self.crowded,
        )

    def outside_facts(self) -> tuple[int, str]:
        """(used PEs outside the array, the smallest of them as isl text or '')."""
        outside = [p for p in self.used_pes.tolist() if not self.in_array[p]]
        if not outside:
            return 0, ""
        coords = ", ".join(map(str, self.pes[outside[0]].tolist()))
        return len(outside), f"{self.arch.pe_tuple}[{coords}]"

    @functools.cached_property
    def _stamp_counts(self) -> np.ndarray:
        _keys, per_stamp = np.unique(
            self.instance_pe * len(self.times) + self.instance_step, return_counts=True
        )
        return per_stamp

    @property
    def n_stamps(self) -> int:
        """|ST|: distinct (PE, step) pairs."""
        return len(self._stamp_counts)

    @property
    def crowded(self) -> bool:
        """Some (PE, step) pair holds more than macs_per_pe instances."""
        return bool(self._stamp_counts.max(initial=0) > self.arch.macs_per_pe)

    def _link_table(self, relation) -> np.ndarray:
        """(receiver id, sender id) pairs of a link among the known PEs."""
        rows = []
        for m in maps_of(relation):
            idx, img = apply_relation(m, self.pes)
            ids = _row_ids(self.pes, img)
            keep = ids >= 0
            rows.append(np.stack([idx[keep], ids[keep]], axis=1))
        return np.concatenate(rows) if rows else np.zeros((0, 2), dtype=np.int64)

    def side_use(self, tensor: str, side: str) -> SideUse:
        access = self.workload.access(tensor, side)
        instance_parts, element_parts = [], []
        for src, idx, _dst, img in relation_pairs(access, self.points):
            instance_parts.append(self.offsets[src] + idx)
            element_parts.append(img)
        instances = np.concatenate(instance_parts)
        coords = np.concatenate(element_parts)
        elements, element = unique_rows(coords)
        n_steps, n_elements = len(self.times), len(elements)
        keys = np.unique(
            (self.instance_pe[instances] * n_steps + self.instance_step[instances]) * n_elements
            + element
        )
        pe, rest = np.divmod(keys, n_steps * n_elements)
        step, element = np.divmod(rest, n_elements)

        def held(other_pe: np.ndarray, other_step: np.ndarray, valid: np.ndarray) -> np.ndarray:
            candidate = (other_pe * n_steps + other_step) * n_elements + element
            found = np.zeros(len(keys), dtype=bool)
            where = np.nonzero(valid)[0]
            pos = np.searchsorted(keys, candidate[where])
            pos[pos == len(keys)] = 0
            found[where] = keys[pos] == candidate[where]
            return found

        def holder(other_pe: np.ndarray, other_step: np.ndarray, valid: np.ndarray) -> np.ndarray:
            """The index of the triple (other_pe, other_step, element) of each triple, -1
            where there is none."""
            candidate = (other_pe * n_steps + other_step) * n_elements + element
            out = np.full(len(keys), -1, dtype=np.int64)
            where = np.nonzero(valid)[0]
            pos = np.searchsorted(keys, candidate[where])
            pos[pos == len(keys)] = 0
            hit = keys[pos] == candidate[where]
            out[where[hit]] = pos[hit]
            return out

        own = held(pe, step - 1, step >= 1)
        other_supply = own.copy()  # any supply but a same-step forward link
        same_step_edges: list[tuple[np.ndarray, np.ndarray]] = []  # (receiver, sender) triples
        served, spatial = {}, np.zeros(len(keys), dtype=bool)
        for n in links_for(self.arch, tensor, side):
            link, table = self.arch.links[n], self.links[n]
            mask = np.zeros(len(keys), dtype=bool)
            order = np.argsort(table[:, 0], kind="stable")
            receivers, senders = table[order, 0], table[order, 1]
            starts = np.searchsorted(receivers, pe, side="left")
            ends = np.searchsorted(receivers, pe, side="right")
            for slot in range(int((ends - starts).max(initial=0))):
                has = starts + slot < ends
                sender = np.where(has, senders[np.minimum(starts + slot, len(senders) - 1)], -1)
                for w in link.window:
                    valid = has & (step - w >= 0) & ~((sender == pe) & (w == 0))
                    if link.kind == "multicast" and w == 0:
                        valid &= sender < pe  # same step: only a smaller group member supplies
                    found = held(sender, step - w, valid)
                    mask |= found
                    spatial |= found & (sender != pe)
                    if link.kind == "forward" and w == 0:
                        index = holder(sender, step, valid)
                        hit = index >= 0
                        same_step_edges.append((np.nonzero(hit)[0], index[hit]))
                    else:
                        other_supply |= found
            served[n] = mask
        forced = np.zeros(len(keys), dtype=bool)
        if self.arch.same_step == "groups" and same_step_edges:
            forced = starved_by_walk(len(keys), same_step_edges, other_supply)
        return SideUse(len(instances), pe, step, element, elements, own, served, spatial, forced)


def _row_ids(table: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Index of each row of `rows` in the lexicographically sorted unique `table` (-1 if absent)."""
    if not len(rows):
        return np.zeros(0, dtype=np.int64)
    combined, inverse = unique_rows(np.concatenate([table, rows]))
    lookup = np.full(len(combined), -1, dtype=np.int64)
    lookup[inverse[: len(table)]] = np.arange(len(table))
    return lookup[inverse[len(table) :]]


def starved_by_walk(
    n: int, edges: list[tuple[np.ndarray, np.ndarray]], supplied: np.ndarray
) -> np.ndarray:
    """The triples charged a fetch by the same-step rule (docs/topologies.md): the lowest
    (first) triple of every strongly connected component of the same-step edges (receiver
    triple -> sender triple, same step and element) that has several triples, no edge from
    a triple outside it, and no triple with another supply (`supplied`). Components by an
    iterative Tarjan walk over the triples that have edges."""
    takes_from: dict[int, list[int]] = {}
    for receivers, senders in edges:
        for r, s in zip(receivers.tolist(), senders.tolist()):
            takes_from.setdefault(r, []).append(s)
            takes_from.setdefault(s, [])
    component = strongly_connected(takes_from)
    forced = np.zeros(n, dtype=bool)
    members: dict[int, list[int]] = {}
    for v, c in component.items():
        members.setdefault(c, []).append(v)
    for c, vs in members.items():
        if len(vs) < 2 or any(supplied[v] for v in vs):
            continue
        if any(component[s] != c for v in vs for s in takes_from[v]):
            continue  # fed from outside: not a source component
        forced[min(vs)] = True  # triples sort by PE first: the lowest PE fetches
    return forced


def strongly_connected(graph: dict[int, list[int]]) -> dict[int, int]:
    """Tarjan's strongly connected components, iteratively: node -> component id."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[int] = []
    component: dict[int, int] = {}
    for root in graph:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = len(index)
                stack.append(v)
                on_stack.add(v)
            recurse = False
            neighbours = graph[v]
            while i < len(neighbours):
                w = neighbours[i]
                i += 1
                if w not in index:
                    work.append((v, i))
                    work.append((w, 0))
                    recurse = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if recurse:
                continue
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component[w] = v
                    if w == v:
                        break
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return component


def volumes_of(
    use: SideUse, link_order: tuple[int, ...], read_back: int | None = None
) -> tuple[Volumes, set[int]]:
    """Counts of one tensor side; links serve in arch order after the PE's own register
    (`read_back`: a write side's, counted by `read_back_of`)."""
    remaining = ~use.own & ~use.forced
    carried = {}
    for n in link_order:
        carried[n] = int(np.count_nonzero(remaining & use.served[n]))
        remaining &= ~use.served[n]
    used = {n for n in link_order if use.served[n].any()}
    volumes = Volumes(
        total=use.total,
        unique=int(np.count_nonzero(remaining | use.forced)),
        temporal_unique=int(np.count_nonzero(~use.own)),
        spatial_reuse=int(np.count_nonzero(use.spatial & ~use.forced)),
        carried=carried,
        read_back=read_back,
    )
    return volumes, used


def words_per_step(use: SideUse, n_steps: int) -> np.ndarray:
    """How many (PE, element) pairs of one side are fetched (not reused) at each used step."""
    return np.bincount(use.step[use.unique], minlength=n_steps)


def step_costs_of(
    words_in: np.ndarray, words_out: np.ndarray, word_bits: int, bandwidth_bits: int
) -> list[int]:
    """The cycles of each step: max(1, ceil(in·word_bits/bandwidth_bits),
    ceil(out·word_bits/bandwidth_bits))."""
    return [
        max(
            1,
            math.ceil(Fraction(a * word_bits, bandwidth_bits)),
            math.ceil(Fraction(b * word_bits, bandwidth_bits)),
        )
        for a, b in zip(words_in.tolist(), words_out.tolist())
    ]


def walk_steps(
    words_in: np.ndarray, words_out: np.ndarray, word_bits: int, bandwidth_bits: int
) -> StepCounts:
    """Step by step: each step costs max(1, ceil(in·word_bits/bandwidth_bits),
    ceil(out·word_bits/bandwidth_bits)) cycles; the busiest steps give the peaks."""
    return StepCounts(
        peak_ingress=int(words_in.max(initial=0)),
        peak_egress=int(words_out.max(initial=0)),
        step_cycles=sum(step_costs_of(words_in, words_out, word_bits, bandwidth_bits)),
    )


def simulate(
    workload: Workload,
    arch: Arch,
    dataflow: Dataflow,
    max_instances: int = DEFAULT_MAX_INSTANCES,
    progress: Callable[[int, int], None] | None = None,
    cost: bool | None = None,
    memory_available: int | None = None,
) -> Analysis:
    """Every metric of `analyze`, computed by enumeration (the test reference): the
    `simulate_counts` assembled into the Analysis as `analyze`'s counts are
    (`tenet.model.assemble`)."""
    counts = simulate_counts(
        workload, arch, dataflow, max_instances, progress, cost, memory_available
    )
    return assemble(counts, workload, arch, dataflow)


def simulate_counts(
    workload: Workload,
    arch: Arch,
    dataflow: Dataflow,
    max_instances: int = DEFAULT_MAX_INSTANCES,
    progress: Callable[[int, int], None] | None = None,
    cost: bool | None = None,
    memory_available: int | None = None,
) -> Counts:
    """Every count of `analyze` (`tenet.model.counting.count_bound`), by enumeration.

    `progress(done, total)` is called as the work advances: the enumeration of the instances
    is one step, each tensor side another. A problem whose estimated memory exceeds
    `memory_available` bytes (None: what the machine has free) is refused first. With `cost`
    (None: when the arch has components), the energy and area of docs/energy.md by
    enumeration (`simulate_cost`)."""
    check_size(workload, max_instances)
    bound = bind_dataflow(dataflow, workload, arch)
    check_memory(workload, arch, bound, memory_available)
    steps = 1 + sum(workload.access(t, s) is not None for t in workload.tensors for s in SIDES)
    if progress:
        progress(0, steps)
    run = Enumeration(workload, arch, bound)
    done = 1
    if progress:
        progress(done, steps)
    volumes: dict[str, dict[str, Volumes | None]] = {}
    used_links: set[int] = set()
    n_steps = len(run.times)
    per_step = {side: np.zeros(n_steps, dtype=np.int64) for side in SIDES}
    uses: dict[tuple[str, str], SideUse] = {}
    for tensor in workload.tensors:
        volumes[tensor] = {}
        for side in SIDES:
            if workload.access(tensor, side) is None:
                volumes[tensor][side] = None
                continue
            use = run.side_use(tensor, side)
            back = read_back_of(run, arch, tensor, use) if side == "write" else None
            volumes[tensor][side], used = volumes_of(use, links_for(arch, tensor, side), back)
            if cost or (cost is None and arch.components is not None):
                uses[(tensor, side)] = use
            per_step[side] += words_per_step(use, n_steps)
            used_links |= used
            done += 1
            if progress:
                progress(done, steps)
    walks = simulate_level_walks(run, workload, arch, bound, dataflow.source)
    levels = [traffic for traffic, _ in walks]
    memory = arch.memory
    costs = step_costs_of(
        per_step["read"], per_step["write"], memory.word_bits, memory.bandwidth_bits
    )
    n_outside, example = run.outside_facts()
    return Counts(
        instances=run.n_instances,
        stamps=run.n_stamps,
        active_pes=len(run.used_pes),
        time_steps=len(run.times),
        volumes=volumes,
        used_links=frozenset(used_links),
        outside_pes=n_outside,
        outside_example=example,
        crowded=run.crowded,
        step_counts=walk_steps(
            per_step["read"],
            per_step["write"],
            arch.memory.word_bits,
            arch.memory.bandwidth_bits,
        ),
        levels=tuple(levels),
        hierarchy=walk_hierarchy(walks, arch, costs),
        actions=simulate_actions(run, arch, uses, volumes) if uses else None,
        area=area_counts_by_enumeration(run, arch) if uses else None,
    )
