"""Pruning the search: lower bounds of a generated candidate's objectives, from numbers that do
not depend on the candidate, and the test that a counted candidate already beats them.

The bound of each objective is its registry entry's `floor` (`tenet.explore.objectives`), read
from the `Floors` of a candidate: one stamp per instance, so time steps >= instances / PEs;
compute delay = ⌊macs / active PEs⌋; the unique words of a side are at least its first
accesses (docs/dse.md, "Pruning")."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol

import islpy as isl

from tenet.explore.objectives import OBJECTIVES, PRUNABLE_OBJECTIVES, Floors
from tenet.model.cost import (
    bus_group,
    displacements,
    hop_length,
    is_reduction_tree,
    word_pitch_pj,
)
from tenet.model.metrics import links_for
from tenet.model.results import Volumes
from tenet.model.same_step import has_same_step_cycle, is_same_step_forward
from tenet.model.workload import SIDES, Workload
from tenet.util.isl_util import count

if TYPE_CHECKING:
    from tenet.explore.space import DesignSpace, Enumerated
    from tenet.model.arch import Arch, Link


class CountedWork(Protocol):
    """What `FloorBasis.of` reads of `tenet.explore.candidate_counts.SharedWork`."""

    workload: Workload
    arch: Arch
    instances: int

    def size(self, obj: Any) -> int: ...


@dataclass(frozen=True)
class FloorBasis:
    """The candidate-independent numbers the lower bounds use (counted once)."""

    instances: int
    macs: int
    pe_count: int
    first_reads: (
        int  # Σ over read sides of |range(A)| (0 for a side TENET's same-step rule may serve)
    )
    first_writes: int  # the same for the write sides
    access_words: int  # Σ over tensors and sides of |A| (the L1 accesses of the energy)
    word_bits: int
    bandwidth_bits: int
    avg_latency: int
    energy_constants: tuple[Any, Any, Any]
    first: dict[tuple[str, str], int] = field(default_factory=dict)  # per side (or 0)
    elements: dict[tuple[str, str], int] = field(default_factory=dict)  # |range(A)| per side
    energy_pj: Fraction | None = None  # `cost_floor`: None without component costs
    word_prices: WordPrices | None = None  # what counted sides add to it (None: no costs)

    @classmethod
    def of(cls, shared: CountedWork) -> FloorBasis:
        """Every element a side touches is fetched at least once (its first stamp, lowest PE
        first, has no earlier step and no lower multicast sender), unless a forward link at
        distance 0 may serve that side under TENET's literal same-step rule (`same_step:
        tenet`; then the bound is 0)."""
        workload, arch = shared.workload, shared.arch
        first = {"read": 0, "write": 0}
        per_side = {}
        elements = {}
        access_words = 0
        for tensor in workload.tensors:
            for side in SIDES:
                access = workload.access(tensor, side)
                if access is None:
                    continue
                access_words += shared.size(access)
                # under TENET's literal rule a same-step cycle may supply a value nobody
                # fetched; under the default rule every element is fetched once at least
                same_step = arch.same_step == "tenet" and any(
                    is_same_step_forward(link) and link.serves(tensor, side) for link in arch.links
                )
                elements[tensor, side] = count(access.range())
                per_side[tensor, side] = 0 if same_step else elements[tensor, side]
                first[side] += per_side[tensor, side]
        memory = arch.memory
        macs = shared.instances * workload.macs_per_instance
        return cls(
            shared.instances,
            macs,
            arch.pe_count,
            first["read"],
            first["write"],
            access_words,
            memory.word_bits,
            memory.bandwidth_bits,
            memory.avg_latency,
            (arch.energy.mac, arch.energy.l1, arch.energy.l2),
            per_side,
            elements,
            cost_floor(shared, macs, per_side, elements),
            WordPrices.of(shared),
        )


@dataclass(frozen=True)
class WordPrices:
    """pJ per word of what a counted side adds to `cost_floor` (docs/energy.md): a read
    word fetched costs a row share read and a register write; a write side's exit a row
    share written and a register read-out; a partial sum read back a row share read and a
    register write; a value a link carries (`carried_pj`, per side) what every link serving the
    side costs at least per value; every crossing between the scratchpad and a PE at least
    the wire to the nearest PE row (`edge_pj`)."""

    row_read_pj: Fraction  # word_bits / width × the scratchpad's read energy
    row_write_pj: Fraction
    register_read_pj: Fraction
    register_write_pj: Fraction
    carried_pj: dict[tuple[str, str], Fraction]  # per side: the least pJ of a carried value
    edge_pj: Fraction  # a word's wire between the scratchpad and the nearest PE row

    @classmethod
    def of(cls, shared: CountedWork) -> WordPrices | None:
        arch, workload = shared.arch, shared.workload
        c = arch.components
        if c is None:
            return None
        share = c.scratchpad_accesses(1)
        row_read = Fraction(share * Fraction(c.scratchpad_read_pj.value))
        register_read = Fraction(c.register_read_pj.value)
        register_write = Fraction(c.register_write_pj.value)
        edge_pj = Fraction(nearest_row_pitches(arch) * word_pitch_pj(c))
        carried = {}
        for tensor in workload.tensors:
            for side in SIDES:
                if workload.access(tensor, side) is None:
                    continue
                links = links_for(arch, tensor, side)
                pj = carried_value_pj(arch, links, side, register_read, register_write)
                if arch.same_step == "groups" and has_same_step_cycle(
                    [arch.links[n] for n in links]
                ):
                    # counted the shared way (TENET's literal rule), a starved group's value
                    # is carried where the plain model fetches it: priced at the cheaper of
                    # the two; on a write side a fetch is not priced, so not at all
                    pj = min(pj, row_read + register_write + edge_pj) if side == "read" else 0
                carried[tensor, side] = Fraction(pj)
        return cls(
            row_read,
            Fraction(share * Fraction(c.scratchpad_write_pj.value)),
            register_read,
            register_write,
            carried,
            edge_pj,
        )

    def extra_pj(
        self, tensor: str, side: str, volumes: Volumes, first: int, elements: int | None
    ) -> Fraction:
        """pJ a counted side costs beyond the floor's `first` accesses (its elements, or 0):
        a read side's fetched words beyond them; a write side with its read_back counted,
        its exits (elements + read_back) beyond them written and each exit read out, and
        each read-back's row read and register write; with temporal_unique counted, the
        values the links carry (temporal_unique − unique) at `carried_pj`."""
        extra = Fraction(0)
        # every element is fetched at least once: max(unique, first) (TENET's literal count
        # on same-step cycles may fetch fewer); the values not fetched nor kept in place
        # are carried by links
        fetched = max(volumes.unique, first)
        if side == "read":
            extra += (fetched - first) * (self.row_read_pj + self.register_write_pj)
            extra += fetched * self.edge_pj
        elif volumes.read_back is not None and elements is not None:
            back = volumes.read_back
            exits = elements + back
            extra += (exits - first) * self.row_write_pj + exits * self.register_read_pj
            extra += back * (self.row_read_pj + self.register_write_pj)
            extra += (exits + back) * self.edge_pj  # a read-back goes out and comes back
        if volumes.temporal_unique is not None:
            carried = max(volumes.temporal_unique - fetched, 0)
            extra += carried * self.carried_pj[tensor, side]
        return extra


def nearest_row_pitches(arch: Arch) -> int:
    """The fewest pitches a word travels between the scratchpad and a PE: p_0 + 1 for the
    PE row nearest the edge at p_0 = −1 (`tenet.model.cost`'s distribution wires)."""
    lowest = arch.pe_domain.lexmin()
    points: list[int] = []
    lowest.foreach_point(
        lambda p: points.append(p.get_coordinate_val(isl.dim_type.set, 0).to_python())
    )
    return max(min(points) + 1, 0)  # no PE row before the edge: none nearer than 0


def carried_value_pj(
    arch: Arch,
    links: Sequence[int],
    side: str,
    register_read: Fraction,
    register_write: Fraction,
) -> Fraction:
    """The least pJ of one value the side's links carry (docs/energy.md): its register write
    at the receiver (and, on a write side, its read-out at the sender), and, when every
    link is a point-to-point forward link or a bus whose groups partition the PEs, its
    wire: the shortest hop of a forward link, one pitch on such a bus (an event drives
    the g pitches of its group's bus and delivers to at most the g members); 0 when a
    reduction tree serves a write side (its sends are priced as adds, not counted here)."""
    chosen = [arch.links[n] for n in links]
    if side == "write" and any(is_reduction_tree(link) for link in chosen):
        return Fraction(0)
    pj = register_write + (register_read if side == "write" else 0)
    lengths = []
    for link in chosen:
        if link.kind == "forward":
            lengths.append(hop_length(min(displacements(link), default=0)))
        elif link.kind == "multicast" and partitions_pes(link):
            lengths.append(Fraction(1))
        else:  # a bus of overlapping groups (k-hop): no wire claimed
            lengths.append(Fraction(0))
    if lengths:
        pj += min(lengths) * word_pitch_pj(arch.components)
    return Fraction(pj)


def partitions_pes(link: Link) -> bool:
    """A multicast link's groups (`bus_group`: each PE's image with itself) partition its
    PEs: the group relation is symmetric and transitive."""
    group = bus_group(link)
    return group.reverse().is_equal(group) and group.apply_range(group).is_subset(group)


def cost_floor(
    shared: CountedWork,
    macs: int,
    first: dict[tuple[str, str], int],
    elements: dict[tuple[str, str], int],
) -> Fraction | None:
    """pJ every dataflow of this workload pays on this arch (docs/energy.md): its MACs; one
    register read per operand access and one register write per output access; an output's
    accumulation reads (its accesses less its elements, when the workload does not read it
    itself); the scratchpad rows of each side's first accesses (`first`: read once, or
    written back once) and, for a read side, their register writes (`elements`: each
    side's |range(A)|). Every other part (links, wires, read-back, levels) is >= 0. None
    without component costs."""
    arch, workload = shared.arch, shared.workload
    c = arch.components
    if c is None:
        return None
    pj = macs * Fraction(c.mac_energy_pj.value)
    for tensor in workload.tensors:
        reads, writes = workload.access(tensor, "read"), workload.access(tensor, "write")
        if reads is not None:
            pj += shared.size(reads) * Fraction(c.register_read_pj.value)
            pj += c.scratchpad_accesses(first[tensor, "read"]) * c.scratchpad_read_pj.value
            pj += first[tensor, "read"] * Fraction(c.register_write_pj.value)
        if writes is not None:
            total = shared.size(writes)
            pj += total * Fraction(c.register_write_pj.value)
            pj += c.scratchpad_accesses(first[tensor, "write"]) * c.scratchpad_write_pj.value
            if reads is None:  # accumulations but each element's first read their sum
                pj += (total - elements[tensor, "write"]) * Fraction(c.register_read_pj.value)
    return Fraction(pj)


def floors(
    basis: FloorBasis,
    most_active_pes: int,
    read_words: int | None = None,
    write_words: int | None = None,
    time_steps: int | None = None,
    dram_words: int | None = None,
    energy_pj_extra: Fraction = Fraction(0),
) -> Floors:
    """The `Floors` of a generated candidate whose PE coordinates take at most
    `most_active_pes` values: steps >= ⌈instances / active⌉, compute = ⌊macs / active⌋, the
    unique words of the read (write) sides >= their first accesses. `read_words`,
    `write_words` and `time_steps` replace these defaults when known (counted);
    `energy_pj_extra` is what the counted sides add to the energy floor (`WordPrices`)."""
    from tenet.model.metrics import compute_delay, latency, transfer_delay, utilization

    active = max(1, min(most_active_pes, basis.pe_count))
    compute = compute_delay(basis.macs, active)
    if time_steps is None:
        time_steps = -(-basis.instances // active)
    reads = basis.first_reads if read_words is None else read_words
    writes = basis.first_writes if write_words is None else write_words
    memory = (basis.word_bits, basis.bandwidth_bits, basis.avg_latency)
    ingress = transfer_delay(reads, *memory)
    egress = transfer_delay(writes, *memory)
    slowest = latency(ingress, egress, compute)
    e_mac, e_l1, e_l2 = basis.energy_constants
    energy = e_mac * basis.macs + 2 * e_l1 * basis.access_words + 2 * e_l2 * (reads + writes)
    energy_pj = None if basis.energy_pj is None else basis.energy_pj + energy_pj_extra
    return Floors(
        active_pes=active,
        time_steps=time_steps,
        compute_cycles=compute,
        read_words=reads,
        write_words=writes,
        ingress_cycles=ingress,
        egress_cycles=egress,
        latency_cycles=slowest,
        energy=float(energy),
        avg_latency_cycles=basis.avg_latency,
        utilization=utilization(basis.macs, basis.pe_count, slowest) if slowest > 0 else None,
        dram_words=dram_words,
        energy_pj=None if energy_pj is None else float(energy_pj),
    )


def lower_bounds(
    basis: FloorBasis,
    most_active_pes: int,
    read_words: int | None = None,
    write_words: int | None = None,
    time_steps: int | None = None,
    dram_words: int | None = None,
    energy_pj_extra: Fraction = Fraction(0),
) -> dict[str, int | float]:
    """{objective: its floor} (as the objective reads it; an upper bound for the maximised
    ones) for every objective whose `floor` gives a bound here (see `floors`)."""
    found = floors(
        basis, most_active_pes, read_words, write_words, time_steps, dram_words, energy_pj_extra
    )
    out = {}
    for name in PRUNABLE_OBJECTIVES:
        value = OBJECTIVES[name].floor(found)
        if value is not None:
            out[name] = value
    return out


def signed_floors(values: dict[str, int | float], objectives: Sequence[str]) -> tuple:
    """The floor of each objective signed as the search compares them (smaller is better);
    -inf (never beaten) for an objective without a floor."""
    return tuple(
        OBJECTIVES[name].signed(values[name]) if name in values else -math.inf
        for name in objectives
    )


def dominates(a: Sequence[float], b: Sequence[float]) -> bool:
    """a is no worse than b in every objective and better in one (all minimised)."""
    return all(x <= y for x, y in zip(a, b)) and any(x < y for x, y in zip(a, b))


def dominated(floor: Sequence, front_so_far: Iterable[Sequence]) -> bool:
    """Some counted vector is no worse than `floor` everywhere and better somewhere: it then
    dominates every candidate whose vector is no better than `floor`."""
    return any(dominates(vector, floor) for vector in front_so_far)


#: Objectives whose floor prices a write side's exits and read-backs (`WordPrices`).
EXIT_PRICED_OBJECTIVES = ("energy_pj", "edp")


class Beaten(Exception):
    """A candidate whose partial lower bounds a counted candidate already dominates."""


class PartialFloor:
    """Lower bounds of a candidate's objectives while its sides are counted one by one: the
    exact active PEs and time steps, the unique words of the counted sides, and the first
    accesses of the others. `add` raises `Beaten` once a vector of `front_so_far` dominates
    them."""

    def __init__(
        self,
        basis: FloorBasis,
        active_pes: int,
        time_steps: int,
        objectives: Sequence[str],
        front_so_far: Sequence[Sequence],
    ) -> None:
        self.basis = basis
        self.active_pes = active_pes
        self.time_steps = time_steps
        self.objectives = objectives
        self.front_so_far = front_so_far
        self.words = {"read": basis.first_reads, "write": basis.first_writes}
        self.energy_pj_extra = Fraction(0)

    @property
    def prices_sides(self) -> bool:
        """The energy floor is wanted and priced (so what `WordPrices` prices is worth counting)."""
        return self.basis.word_prices is not None and any(
            name in EXIT_PRICED_OBJECTIVES for name in self.objectives
        )

    def add(self, tensor: str, side: str, volumes: Volumes) -> None:
        """One more side counted: its unique words replace its first accesses (and what it
        costs beyond them joins the energy floor)."""
        first = self.basis.first.get((tensor, side), 0)
        self.words[side] += volumes.unique - first
        if self.basis.word_prices is not None:
            elements = self.basis.elements.get((tensor, side))
            self.energy_pj_extra += self.basis.word_prices.extra_pj(
                tensor, side, volumes, first, elements
            )
        if self.front_so_far and dominated(self.signed(), self.front_so_far):
            raise Beaten

    def signed(self) -> tuple:
        """The signed lower bounds from what is counted so far (`signed_floors`)."""
        values = lower_bounds(
            self.basis,
            self.active_pes,
            self.words["read"],
            self.words["write"],
            self.time_steps,
            energy_pj_extra=self.energy_pj_extra,
        )
        return signed_floors(values, self.objectives)


def most_active_pes(space: DesignSpace, e: Enumerated) -> int:
    """Π over the PE axes of min(extent of the axis's loop, the axis's size): the most PEs a
    candidate's spatial loops can keep busy."""
    most = 1
    for a, name in enumerate(e.candidate.spatial):
        if name is not None:
            most *= min(space.loop(name).extent, space.axes[a].size)
    return most


def candidate_floors(
    basis: FloorBasis,
    space: DesignSpace,
    found: Sequence[Enumerated],
    objectives: Sequence[str],
    dram_floor: int | None = None,
) -> list[tuple] | None:
    """Per candidate, its objective vector's lower bounds (signed: smaller is better), or
    None when no objective has a floor (nothing to prune). `dram_floor`: the floor of the
    `dram` objective (`tenet.explore.tiling.dram_floor`), the same for every candidate."""
    if not any(name in PRUNABLE_OBJECTIVES for name in objectives):
        return None
    out = []
    cache: dict[int, tuple] = {}
    for e in found:
        most = most_active_pes(space, e)
        if most not in cache:
            values = lower_bounds(basis, most, dram_words=dram_floor)
            cache[most] = signed_floors(values, objectives)  # -inf: no floor, never beaten
        out.append(cache[most])
    return out
