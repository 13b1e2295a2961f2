"""Physical cost of a dataflow: energy in pJ and area in µm² from per-action component
values (`tenet.model.components`), with every action counted exactly (docs/energy.md).

Counting and pricing are separate: `count_actions` counts, per tensor, the register,
scratchpad and interconnect actions with barvinok from the relations `tensor_volumes`
already built (its `traces`); `price` turns action counts into pJ and µm². The
brute-force simulator (`tenet.analysis.simulate_cost`) counts the same actions by
enumeration and prices them with the same `price`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

import islpy as isl

from tenet.model.arch import Arch, Link
from tenet.model.components import Components
from tenet.model.levels import LevelTraffic, levels_dram_words
from tenet.model.relations import SpaceTime
from tenet.util.isl_util import count, simplify

#: A hop or span length that is not an integer number of pitches (√2 for a diagonal) is
#: rounded to this many decimal places, as a Fraction; every other number is exact.
LENGTH_DECIMALS = 12


def hop_length(squared: int) -> Fraction:
    """√squared pitches: exact when squared is a perfect square, else rounded to
    LENGTH_DECIMALS decimal places."""
    root = math.isqrt(squared)
    if root * root == squared:
        return Fraction(root)
    with localcontext() as ctx:
        ctx.prec = 40
        value = Decimal(squared).sqrt().quantize(Decimal(1).scaleb(-LENGTH_DECIMALS))
    return Fraction(value)


class _Adds:
    """Frozen dataclasses of numbers that add field by field."""

    def __add__(self, other: Any) -> Any:
        if type(other) is not type(self):
            return NotImplemented
        return type(self)(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def __rmul__(self, factor: int) -> Any:
        """`n * parts`: every field n times (n runs of the same work)."""
        return type(self)(*(factor * getattr(self, f.name) for f in fields(self)))


@dataclass(frozen=True)
class TensorActions(_Adds):
    """The actions one tensor causes: counts, and three `*_pitches` lengths in PE pitches
    summed over the words that travel them (Σ words × pitches)."""

    register_reads: int = 0  # operand reads: read-side total
    register_writes: int = 0  # fetched words, accumulator writes, read-back words
    link_register_writes: int = 0  # a word a link or bus delivers, written at the receiver
    adds: int = 0  # partial sums a reduction tree merges
    scratchpad_read_words: int = 0  # read-side unique + read_back
    scratchpad_write_words: int = 0  # write-side unique
    read_back_words: int = 0  # (included in scratchpad_read_words)
    forward_pitches: Fraction = Fraction(0)  # Σ hop lengths of forwarded words
    bus_pitches: Fraction = Fraction(0)  # Σ over broadcast events of the bus span
    distribution_pitches: Fraction = Fraction(0)  # Σ scratchpad <-> PE distances

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = float(value) if isinstance(value, Fraction) else value
        return out

    def to_exact(self) -> dict[str, Any]:
        """Every field exactly, for a journal: counts as ints, lengths as [numerator,
        denominator] (`to_dict` gives the lengths as floats)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = (
                [value.numerator, value.denominator] if isinstance(value, Fraction) else value
            )
        return out

    @classmethod
    def from_exact(cls, data: Mapping[str, Any]) -> TensorActions:
        """The TensorActions whose `to_exact()` is `data`."""
        values = {}
        for f in fields(cls):
            value = data[f.name]
            values[f.name] = Fraction(*value) if isinstance(value, list) else int(value)
        return cls(**values)


@dataclass(frozen=True)
class AreaCounts:
    """What the area model counts on the array (docs/energy.md, "Area")."""

    pes: int
    forward_pairs: int  # (receiver, sender) pairs of forwarding links: one register each
    bus_groups: int  # multicast groups: one driver register each
    tree_receivers: int  # receivers of reduction trees: one adder each
    macs_per_pe: int = 1  # MAC lanes per PE, each with its MAC and three registers


@dataclass(frozen=True)
class EnergyParts(_Adds):
    """Energy in pJ, exact."""

    mac: Fraction = Fraction(0)
    registers: Fraction = Fraction(0)
    scratchpad: Fraction = Fraction(0)
    interconnect: Fraction = Fraction(0)
    dram: Fraction = Fraction(0)

    @property
    def total(self) -> Fraction:
        return self.mac + self.registers + self.scratchpad + self.interconnect + self.dram

    def to_dict(self) -> dict[str, float]:
        return {
            "total": float(self.total),
            **{f.name: float(getattr(self, f.name)) for f in fields(self)},
        }


@dataclass(frozen=True)
class AreaParts(_Adds):
    """Area in µm², exact."""

    pe_array: Fraction = Fraction(0)
    link_registers: Fraction = Fraction(0)
    buses: Fraction = Fraction(0)
    scratchpad: Fraction = Fraction(0)

    @property
    def total(self) -> Fraction:
        return self.pe_array + self.link_registers + self.buses + self.scratchpad

    def to_dict(self) -> dict[str, float]:
        return {
            "total": float(self.total),
            **{f.name: float(getattr(self, f.name)) for f in fields(self)},
        }


@dataclass(frozen=True)
class Cost:
    """energy_pj = Σ_tensors by_tensor + the parts no tensor owns (mac, and dram until
    levels give traffic per tensor)."""

    energy_pj: EnergyParts
    by_tensor: dict[str, EnergyParts]
    area_um2: AreaParts
    components: Components
    actions: dict[str, TensorActions] = field(default_factory=dict)

    def __add__(self, other: Any) -> Cost:
        """Runs one after another on one array: energies add, the area is the array's."""
        if not isinstance(other, Cost):
            return NotImplemented
        names = list(dict.fromkeys([*self.by_tensor, *other.by_tensor]))
        zero, none = EnergyParts(), TensorActions()
        return Cost(
            self.energy_pj + other.energy_pj,
            {t: self.by_tensor.get(t, zero) + other.by_tensor.get(t, zero) for t in names},
            self.area_um2,
            self.components,
            {t: self.actions.get(t, none) + other.actions.get(t, none) for t in names},
        )

    def dram_words(self) -> int | None:
        """The words the DRAM energy prices: energy_pj.dram / (word_bits · dram_pj_per_bit);
        None when DRAM costs nothing per bit (then the energy does not tell)."""
        per_word = self.components.word_bits * Fraction(self.components.dram_pj_per_bit.value)
        if per_word == 0:
            return None
        words = self.energy_pj.dram / per_word
        if words.denominator != 1:
            raise ValueError(
                f"the DRAM energy {self.energy_pj.dram} pJ is no whole number of words"
            )
        return int(words)

    def to_exact(self) -> dict[str, Any]:
        """What rebuilds this Cost exactly on the same arch (`rebuild_cost`): the action
        counts per tensor (`TensorActions.to_exact`) and the DRAM words."""
        return {
            "actions": {t: a.to_exact() for t, a in self.actions.items()},
            "dram_words": self.dram_words(),
        }

    def to_dict(self) -> dict[str, Any]:
        """The `cost` object of analyze's JSON."""
        energy = self.energy_pj.to_dict()
        energy["by_tensor"] = {t: parts.to_dict() for t, parts in self.by_tensor.items()}
        return {
            "energy_pj": energy,
            "area_um2": self.area_um2.to_dict(),
            "actions": {t: a.to_dict() for t, a in self.actions.items()},
            "components": self.components.to_dict(),
        }


# ---------------------------------------------------------------------------------------------
# Pricing


def word_pitch_pj(components: Components) -> Fraction:
    """pJ to move one word one PE pitch: pitch_mm × word_bits × wire pJ/bit/mm."""
    pitch_mm = components.pe_pitch_um.value / 1000
    return pitch_mm * components.word_bits * components.wire_pj_per_bit_mm.value


def tensor_energy(a: TensorActions, c: Components) -> EnergyParts:
    """One tensor's pJ: registers, scratchpad rows, and the interconnect (wires, the
    receiving registers of links and buses, reduction-tree adds)."""
    registers = (
        a.register_reads * c.register_read_pj.value + a.register_writes * c.register_write_pj.value
    )
    scratchpad = (
        c.scratchpad_accesses(a.scratchpad_read_words) * c.scratchpad_read_pj.value
        + c.scratchpad_accesses(a.scratchpad_write_words) * c.scratchpad_write_pj.value
    )
    wire = (a.forward_pitches + a.bus_pitches + a.distribution_pitches) * word_pitch_pj(c)
    interconnect = (
        wire + a.link_register_writes * c.register_write_pj.value + a.adds * c.adder_energy_pj.value
    )
    return EnergyParts(
        Fraction(0), Fraction(registers), Fraction(scratchpad), Fraction(interconnect)
    )


def area(counts: AreaCounts, c: Components) -> AreaParts:
    """pe_array: per PE, per MAC lane (`macs_per_pe`), one MAC and three word registers (two
    operands, one accumulator);
    link_registers: one word register per forwarding pair and one adder per reduction-tree
    receiver; buses: one driver register per multicast group (wires not modelled);
    scratchpad: one scratchpad."""
    reg = c.register_area_um2.value
    return AreaParts(
        pe_array=counts.pes * counts.macs_per_pe * (c.mac_area_um2.value + 3 * reg),
        link_registers=counts.forward_pairs * reg + counts.tree_receivers * c.adder_area_um2.value,
        buses=counts.bus_groups * reg,
        scratchpad=Fraction(c.scratchpad_area_um2.value),
    )


def price(
    actions: Mapping[str, TensorActions],
    macs: int,
    counts: AreaCounts,
    components: Components,
    dram_words: int | None = None,
) -> Cost:
    """The Cost of counted actions: Σ by_tensor + mac + dram = energy_pj, exactly."""
    by_tensor = {t: tensor_energy(a, components) for t, a in actions.items()}
    energy = EnergyParts(
        mac=macs * Fraction(components.mac_energy_pj.value),
        dram=Fraction((dram_words or 0) * components.word_bits) * components.dram_pj_per_bit.value,
    )
    for parts in by_tensor.values():
        energy = energy + parts
    return Cost(energy, by_tensor, area(counts, components), components, dict(actions))


# ---------------------------------------------------------------------------------------------
# Counting (barvinok)


def is_reduction_tree(link: Link) -> bool:
    """A forwarding link for writes on which receivers take from several senders while
    each sender feeds one receiver (an in-tree, like `binary-tree` with `mode: reduction`):
    every partial sum sent up it is one add at the receiver."""
    relation = link.relation
    return (
        link.kind == "forward"
        and link.access != "read"
        and not relation.is_single_valued()
        and relation.reverse().is_single_valued()
    )


def displacements(link: Link) -> dict[int, list[tuple[int, ...]]]:
    """The link's sender − receiver displacements grouped by squared length (a few per
    arch: these are points of a PE-sized set, not of the workload)."""
    out: dict[int, list[tuple[int, ...]]] = {}

    def add(point: isl.Point) -> None:
        n = point.get_space().dim(isl.dim_type.set)
        d = tuple(point.get_coordinate_val(isl.dim_type.set, k).to_python() for k in range(n))
        out.setdefault(sum(x * x for x in d), []).append(d)

    link.relation.deltas().foreach_set(lambda s: s.foreach_point(add))
    return dict(sorted(out.items()))


def _with_displacements(link: Link, arch: Arch, deltas: list[tuple[int, ...]]) -> Link:
    dims = [f"p{k}" for k in range(arch.pe_arity)]
    others = [f"q{k}" for k in range(arch.pe_arity)]
    pe, qe = f"{arch.pe_tuple}[{', '.join(dims)}]", f"{arch.pe_tuple}[{', '.join(others)}]"
    cases = " or ".join(
        "(" + " and ".join(f"{q} = {p} + ({x})" for p, q, x in zip(dims, others, d)) + ")"
        for d in deltas
    )
    shift = isl.UnionMap(f"{{ {pe} -> {qe} : {cases} }}")
    return replace(link, relation=link.relation.intersect(shift))


def bus_group(link: Link) -> isl.UnionMap:
    """A multicast link's groups, each PE with itself: R ∪ {p -> p : p in dom R} (a relation
    may leave the pairs (p, p) out; the group of p is R(p) ∪ {p} either way)."""
    return link.relation.union(link.relation.domain().identity())


def _any_step(space_time: SpaceTime) -> isl.UnionMap:
    """{ T[t] -> T[t'] }: every pair of used steps."""
    steps = space_time.time_domain
    return isl.UnionMap.from_domain_and_range(steps, steps)


def _stamp_pe(space_time: SpaceTime) -> isl.UnionMap:
    """[PE[p] -> T[t]] -> PE[p]."""
    return space_time.stamp_domain.unwrap().domain_map()


def _edge_lift(arch: Arch) -> isl.UnionMap:
    """{ PE[p] -> H[h] : 0 <= h <= p_0 }: a word crossing between the scratchpad and PE p
    travels p_0 + 1 pitches from the edge at p_0 = −1."""
    dims = [f"p{k}" for k in range(arch.pe_arity)]
    rel = isl.UnionMap(f"{{ {arch.pe_tuple}[{', '.join(dims)}] -> H[h] : 0 <= h <= p0 }}")
    return rel.intersect_domain(arch.pe_domain)


def _pe_sum(words: isl.UnionMap, to_pe: isl.UnionMap, weight: isl.UnionMap) -> int:
    """Σ over the pairs (stamp, element) of `words` of |weight(PE of the stamp)|."""
    return count(words.domain_map().apply_range(to_pe).apply_range(weight))


@dataclass
class SideTrace:
    """The sets `count_volumes` builds for one tensor side (filled by it)."""

    assignment: isl.UnionMap | None = None  # A_D: stamp -> element
    unique: isl.UnionMap | None = None  # A_D \ (M ; A_D)
    temporal: isl.UnionMap | None = None  # M_t
    links: dict[int, tuple[isl.UnionMap, isl.UnionMap, isl.UnionMap]] = field(
        default_factory=dict
    )  # link index -> (triples unserved before it, the triples its senders hold, M_l)
    exits: isl.UnionMap | None = None  # write sides: `exits(trace)`, once counted
    exit_count: Any = None  # |exits|, once counted

    def delivered(self, index: int) -> isl.UnionMap:
        """The triples link `index` serves (its `carried` values)."""
        before, reach, _ = self.links[index]
        return simplify(before.intersect(reach))

    def sent(self, relation: isl.UnionMap) -> isl.UnionMap:
        """A_D ∩ (relation⁻¹ ; A_D): the triples some receiver of `relation` takes on."""
        return simplify(self.assignment.intersect(relation.reverse().apply_range(self.assignment)))


def exits(trace: SideTrace) -> isl.UnionMap:
    """Write sides: the triples no triple takes on (not the PE's own next step, not a
    receiver of a link serving the side): where a partial sum leaves the array."""
    onward = trace.temporal
    for _, _, rel in trace.links.values():
        onward = onward.union(rel)
    return trace.assignment.subtract(trace.sent(onward))


def read_back(trace: SideTrace, size: Callable[[Any], Any] = count, minus: Any = None) -> Any:
    """Write sides: partial sums read back from the scratchpad, |exits| − |elements
    written|: an output starts empty, so every exit but an element's last is re-read."""
    trace.exits = exits(trace)
    n_exits, n_elements = size(trace.exits), size(trace.assignment.range())
    trace.exit_count = n_exits
    return n_exits - n_elements if minus is None else minus(n_exits, n_elements)


def _last_exit_pitches(left: isl.UnionMap, space_time: SpaceTime, lift: isl.UnionMap) -> int:
    """Σ distances of every element's last exit (at the largest (step, PE))."""
    last = left.reverse().range_reverse().lexmax()  # element -> [T -> PE]
    to_pe = space_time.stamp_domain.unwrap().reverse().range_map()  # [T -> PE] -> PE
    return count(last.apply_range(to_pe).apply_range(lift))


def count_actions(
    arch: Arch,
    space_time: SpaceTime,
    volumes: Mapping[str, Mapping[str, Any]],
    traces: Mapping[tuple[str, str], SideTrace],
) -> dict[str, TensorActions]:
    """Per tensor, the actions of docs/energy.md, counted from the volumes and the sets
    `tensor_volumes` built (`traces`)."""
    to_pe = _stamp_pe(space_time)
    lift = _edge_lift(arch)
    hops: dict[int, dict[int, list[tuple[int, ...]]]] = {}
    out: dict[str, TensorActions] = {}
    for tensor, sides in volumes.items():
        acts = TensorActions()
        for side, v in sides.items():
            if v is None:
                continue
            trace = traces[(tensor, side)]
            if side == "read":
                acts = acts + TensorActions(
                    register_reads=v.total,
                    register_writes=v.unique,
                    scratchpad_read_words=v.unique,
                    distribution_pitches=Fraction(_pe_sum(trace.unique, to_pe, lift)),
                )
            else:
                back = v.read_back
                if not isinstance(trace.exit_count, int) or not isinstance(back, int):
                    back = read_back(trace)  # not counted by tensor_volumes (or not exactly)
                left, n_exits = trace.exits, trace.exit_count
                distance = 2 * _pe_sum(left, to_pe, lift)
                if n_exits:
                    distance -= _last_exit_pitches(left, space_time, lift)
                acts = acts + TensorActions(
                    register_writes=v.total + back,
                    scratchpad_read_words=back,
                    scratchpad_write_words=n_exits,
                    read_back_words=back,
                    distribution_pitches=Fraction(distance),
                )
            for n, carried in v.carried.items():
                link = arch.links[n]
                if side == "write" and is_reduction_tree(link):
                    acts = acts + _tree_actions(link, n, trace, arch, space_time, hops)
                elif carried:
                    acts = acts + _link_actions(link, n, carried, trace, arch, space_time, hops)
        out[tensor] = acts
    return out


def _by_nearest(
    words: isl.UnionMap,
    link: Link,
    arch: Arch,
    classes: dict[int, list[tuple[int, ...]]],
    reach: Callable[[Link], isl.UnionMap],
) -> Fraction:
    """Σ hop lengths over `words`, each priced at the shortest displacement class of the
    link that reaches it (`reach(the link restricted to a class)` gives the triples);
    every word of `words` is reached by some class."""
    left, pitches = words, Fraction(0)
    *nearer, (farthest, _) = classes.items()
    for squared, deltas in nearer:
        reached = reach(_with_displacements(link, arch, deltas))
        pitches += count(left.intersect(reached)) * hop_length(squared)
        left = left.subtract(reached)
        if left.is_empty():
            return pitches
    return pitches + count(left) * hop_length(farthest)  # the rest: only the farthest reach


def _link_actions(
    link: Link,
    index: int,
    carried: int,
    trace: SideTrace,
    arch: Arch,
    space_time: SpaceTime,
    hops: dict[int, dict[int, list[tuple[int, ...]]]],
) -> TensorActions:
    """The actions of the `carried` values link `index` delivers to one tensor side."""
    if link.kind == "multicast":
        delivered = trace.delivered(index)
        group = bus_group(link)
        representative = group.lexmin().product(space_time.time_domain.identity())
        events = delivered.apply_domain(representative)  # [PE[r] -> T[t]] -> element
        span = _pe_sum(events, _stamp_pe(space_time), group)
        return TensorActions(link_register_writes=carried, bus_pitches=Fraction(span))
    if index not in hops:
        hops[index] = displacements(link)
    classes = hops[index]
    if len(classes) == 1:
        pitches = carried * hop_length(next(iter(classes)))
    else:
        stamps = _any_step(space_time)
        relation = trace.links[index][2]

        def reach(part: Link) -> isl.UnionMap:  # M_l restricted to the class's PE pairs
            return relation.intersect(part.relation.product(stamps)).apply_range(trace.assignment)

        pitches = _by_nearest(trace.delivered(index), link, arch, classes, reach)
    return TensorActions(link_register_writes=carried, forward_pitches=pitches)


def _tree_actions(
    link: Link,
    index: int,
    trace: SideTrace,
    arch: Arch,
    space_time: SpaceTime,
    hops: dict[int, dict[int, list[tuple[int, ...]]]],
) -> TensorActions:
    """A reduction tree on a write side: every partial sum a child sends up (a triple some
    parent takes on) is one wire trip, one register write at the parent and one add."""
    sent = trace.sent(trace.links[index][2])
    n_sent = count(sent)
    if not n_sent:
        return TensorActions()
    if index not in hops:
        hops[index] = displacements(link)

    stamps = _any_step(space_time)
    relation = trace.links[index][2]

    def reach(part: Link) -> isl.UnionMap:
        pairs = relation.intersect(part.relation.product(stamps))
        return pairs.reverse().apply_range(trace.assignment)

    pitches = _by_nearest(sent, link, arch, hops[index], reach)
    return TensorActions(link_register_writes=n_sent, adds=n_sent, forward_pitches=pitches)


def area_counts(arch: Arch) -> AreaCounts:
    """The array's PEs, forwarding pairs, multicast groups and reduction-tree receivers."""
    pairs = groups = receivers = 0
    for link in arch.links:
        if link.kind == "multicast":
            groups += count(bus_group(link).lexmin().range())
        else:
            pairs += count(link.relation)
            if is_reduction_tree(link):
                receivers += count(link.relation.domain())
    return AreaCounts(arch.pe_count, pairs, groups, receivers, arch.macs_per_pe)


def analysis_cost(
    arch: Arch,
    space_time: SpaceTime,
    volumes: Mapping[str, Mapping[str, Any]],
    traces: Mapping[tuple[str, str], SideTrace],
    macs: int,
    levels: list[LevelTraffic] | None = None,
    dram_words: int | None = None,
) -> Cost:
    """The Cost of one analysis on an arch with components: its actions counted, the
    memory levels' traffic (`levels`, docs/levels.md) priced; `dram_words` overrides the
    DRAM words the levels give."""
    if arch.components is None:
        raise ValueError(f"arch {arch.name!r} has no components to price")
    actions = count_actions(arch, space_time, volumes, traces)
    if dram_words is None:
        dram_words = levels_dram_words(levels or [])
    return price(actions, macs, area_counts(arch), arch.components, dram_words)


def rebuild_cost(exact: Mapping[str, Any], macs: int, arch: Arch) -> Cost:
    """The Cost whose `to_exact()` is `exact`, priced with the components of `arch` (the
    area counted on `arch` again): `price` of the journalled action counts, exactly."""
    if arch.components is None:
        raise ValueError(f"arch {arch.name!r} has no components to price")
    actions = {t: TensorActions.from_exact(a) for t, a in exact["actions"].items()}
    return price(actions, macs, area_counts(arch), arch.components, exact["dram_words"])
