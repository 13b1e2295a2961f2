"""Physical cost of a dataflow: energy in pJ and area in µm² from per-action component
values (`tenet.model.components`), with every action counted exactly (docs/energy.md).

Counting and pricing are separate: `count_actions` counts, per tensor, the register,
scratchpad and interconnect actions with barvinok from the relations `tensor_volumes`
already built (its `traces`, with each write side's exits, which counting counts);
`price` and `priced_on` turn action counts into pJ and µm²
(`tenet.model.assemble` prices an analysis's counts). The
brute-force simulator (`tenet.analysis.simulate_cost`) counts the same actions by
enumeration and prices them with the same `price`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

import islpy as isl

from tenet.model.arch import Arch, Link
from tenet.model.components import Components, LevelComponent, level_component
from tenet.model.fieldwise import Fieldwise
from tenet.model.levels import LevelTraffic
from tenet.model.relations import SpaceTime
from tenet.model.side_trace import SideTrace
from tenet.model.warning_kinds import AnalysisWarning
from tenet.util.isl_util import count

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


@dataclass(frozen=True)
class TensorActions(Fieldwise):
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
    accumulator_reads: int = 0  # partial sums an accumulation reads (not an element's first)
    register_read_outs: int = 0  # output values read out of a PE register (exits, sends)

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
            value = data.get(f.name, 0)  # a journal written before a field existed: 0
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
class EnergyParts(Fieldwise):
    """Energy in pJ, exact."""

    mac: Fraction = Fraction(0)
    registers: Fraction = Fraction(0)
    scratchpad: Fraction = Fraction(0)
    interconnect: Fraction = Fraction(0)
    dram: Fraction = Fraction(0)
    intermediate: Fraction = Fraction(0)  # the levels between the scratchpad and the outermost

    @property
    def total(self) -> Fraction:
        return (
            self.mac
            + self.registers
            + self.scratchpad
            + self.interconnect
            + self.intermediate
            + self.dram
        )

    def to_dict(self) -> dict[str, float]:
        return {
            "total": float(self.total),
            **{f.name: float(getattr(self, f.name)) for f in fields(self)},
        }


@dataclass(frozen=True)
class AreaParts(Fieldwise):
    """Area in µm², exact."""

    pe_array: Fraction = Fraction(0)
    link_registers: Fraction = Fraction(0)
    buses: Fraction = Fraction(0)
    scratchpad: Fraction = Fraction(0)
    intermediate: Fraction = Fraction(0)  # on-chip levels between the scratchpad and DRAM

    @property
    def total(self) -> Fraction:
        return (
            self.pe_array + self.link_registers + self.buses + self.scratchpad + self.intermediate
        )

    def to_dict(self) -> dict[str, float]:
        return {
            "total": float(self.total),
            **{f.name: float(getattr(self, f.name)) for f in fields(self)},
        }


@dataclass(frozen=True)
class BoundaryWords:
    """The words crossing one memory boundary, per tensor: (fills, write-backs) between
    level `inner` and the level `above` it (a `LevelTraffic` without its tiles)."""

    inner: str
    above: str
    outermost: bool  # `above` is the outermost level
    tensors: tuple[tuple[str, int, int], ...]

    @classmethod
    def of(cls, level: LevelTraffic) -> BoundaryWords:
        words = tuple((x, r, w) for x, (r, w) in level.tensors.items())
        return cls(level.name, level.above, level.outermost_above, words)

    @property
    def words(self) -> int:
        return sum(r + w for _, r, w in self.tensors)

    def to_exact(self) -> dict[str, Any]:
        return {
            "inner": self.inner,
            "above": self.above,
            "outermost": self.outermost,
            "tensors": [list(t) for t in self.tensors],
        }

    @classmethod
    def from_exact(cls, data: Mapping[str, Any]) -> BoundaryWords:
        tensors = tuple((str(x), int(r), int(w)) for x, r, w in data["tensors"])
        return cls(data["inner"], data["above"], bool(data["outermost"]), tensors)


@dataclass(frozen=True)
class Cost:
    """energy_pj = Σ_tensors by_tensor + mac (the one part no tensor owns), exactly;
    `by_level` splits the memory energy by level (levels[0], the scratchpad, with its
    array side), and `area_by_level` the on-chip levels' area."""

    energy_pj: EnergyParts
    by_tensor: dict[str, EnergyParts]
    area_um2: AreaParts
    components: Components
    actions: dict[str, TensorActions] = field(default_factory=dict)
    by_level: dict[str, Fraction] = field(default_factory=dict)
    area_by_level: dict[str, Fraction] = field(default_factory=dict)
    level_components: tuple[LevelComponent, ...] = ()
    dram_words_priced: int | None = None  # words crossing into the outermost level
    boundaries: tuple[BoundaryWords, ...] = ()  # the level words priced
    # what the cost leaves out (joined to the analysis's warnings)
    warnings: tuple[str, ...] = field(default=(), compare=False)

    def __add__(self, other: Any) -> Cost:
        """Runs one after another on one array: energies add, the area is the array's."""
        if not isinstance(other, Cost):
            return NotImplemented
        names = list(dict.fromkeys([*self.by_tensor, *other.by_tensor]))
        levels = list(dict.fromkeys([*self.by_level, *other.by_level]))
        zero, none = EnergyParts(), TensorActions()
        words = (
            None
            if self.dram_words_priced is None and other.dram_words_priced is None
            else (self.dram_words_priced or 0) + (other.dram_words_priced or 0)
        )
        return Cost(
            self.energy_pj + other.energy_pj,
            {t: self.by_tensor.get(t, zero) + other.by_tensor.get(t, zero) for t in names},
            self.area_um2,
            self.components,
            {t: self.actions.get(t, none) + other.actions.get(t, none) for t in names},
            {
                n: self.by_level.get(n, Fraction(0)) + other.by_level.get(n, Fraction(0))
                for n in levels
            },
            self.area_by_level,
            self.level_components,
            words,
            self.boundaries + other.boundaries,
        )

    def dram_words(self) -> int | None:
        """The words crossing into the outermost memory level that the DRAM part prices;
        None when none are counted."""
        return self.dram_words_priced

    def to_exact(self) -> dict[str, Any]:
        """What rebuilds this Cost exactly on the same arch with the same level traffic
        (`rebuild_cost`): the action counts per tensor (`TensorActions.to_exact`) and the
        DRAM words."""
        return {
            "actions": {t: a.to_exact() for t, a in self.actions.items()},
            "dram_words": self.dram_words(),
            "boundaries": [b.to_exact() for b in self.boundaries],
        }

    def to_dict(self) -> dict[str, Any]:
        """The `cost` object of analyze's JSON."""
        energy = self.energy_pj.to_dict()
        energy["by_tensor"] = {t: parts.to_dict() for t, parts in self.by_tensor.items()}
        energy["by_level"] = {name: float(pj) for name, pj in self.by_level.items()}
        area = self.area_um2.to_dict()
        area["by_level"] = {name: float(um2) for name, um2 in self.area_by_level.items()}
        components = self.components.to_dict()
        if self.level_components:
            components["levels"] = {c.name: c.to_dict() for c in self.level_components}
        return {
            "energy_pj": energy,
            "area_um2": area,
            "actions": {t: a.to_dict() for t, a in self.actions.items()},
            "components": components,
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
    reads = a.register_reads + a.accumulator_reads + a.register_read_outs
    registers = reads * c.register_read_pj.value + a.register_writes * c.register_write_pj.value
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


def level_components_of(arch: Arch) -> dict[str, LevelComponent | str]:
    """Each memory level's component, or why it has none (`level_component`)."""
    names = [level.name for level in arch.levels]
    if arch.components is None:
        return {}
    return {
        level.name: level_component(arch.components, n, names, level.capacity_words)
        for n, level in enumerate(arch.levels)
    }


_ROLE_PART = {"scratchpad": "scratchpad", "intermediate": "intermediate", "dram": "dram"}


def _priced(
    name: str, components: Mapping[str, LevelComponent | str], source: str | None
) -> LevelComponent:
    component = components[name]
    if isinstance(component, str):
        from tenet.errors import InputError

        raise InputError(component, source, f"components.levels.{name}")
    return component


def level_energy(
    traffic: list[BoundaryWords],
    components: Mapping[str, LevelComponent | str],
    word_bits: int,
    source: str | None = None,
) -> tuple[dict[str, Fraction], dict[str, EnergyParts]]:
    """(pJ per level, pJ per tensor by part) of the words crossing every counted boundary,
    priced at both ends: a fill (read from above) is a read of the level above and a write
    of the level inside it; a write-back is a read inside and a write above. A level whose
    words cannot be priced is refused (InputError naming components.levels.NAME)."""
    by_level: dict[str, Fraction] = {}
    by_tensor: dict[str, EnergyParts] = {}
    for boundary in traffic:
        if not boundary.words:
            continue
        inner = _priced(boundary.inner, components, source)
        outer = _priced(boundary.above, components, source)
        for tensor, fills, backs in boundary.tensors:
            inside = (
                inner.accesses(fills, word_bits) * inner.write_pj.value
                + inner.accesses(backs, word_bits) * inner.read_pj.value
            )
            above = (
                outer.accesses(fills, word_bits) * outer.read_pj.value
                + outer.accesses(backs, word_bits) * outer.write_pj.value
            )
            parts = by_tensor.get(tensor, EnergyParts())
            for component, pj in ((inner, inside), (outer, above)):
                by_level[component.name] = by_level.get(component.name, Fraction(0)) + pj
                parts = parts + EnergyParts(**{_ROLE_PART[component.role]: Fraction(pj)})
            by_tensor[tensor] = parts
    return by_level, by_tensor


def price(
    actions: Mapping[str, TensorActions],
    macs: int,
    counts: AreaCounts,
    components: Components,
    dram_words: int | None = None,
    traffic: list[BoundaryWords] | None = None,
    levels: Mapping[str, LevelComponent | str] | None = None,
    source: str | None = None,
) -> Cost:
    """The Cost of counted actions and of the memory levels' `traffic` priced by the
    `levels` components (`level_components_of`): Σ by_tensor + mac = energy_pj, exactly.
    Without levels, `dram_words` are priced at components.dram."""
    by_tensor = {t: tensor_energy(a, components) for t, a in actions.items()}
    energy = EnergyParts(mac=macs * Fraction(components.mac_energy_pj.value))
    by_level: dict[str, Fraction] = {}
    area_by_level: dict[str, Fraction] = {}
    resolved: tuple[LevelComponent, ...] = ()
    if levels:
        names = list(levels)
        scratchpad = sum((p.scratchpad for p in by_tensor.values()), Fraction(0))
        boundary, level_parts = level_energy(traffic or [], levels, components.word_bits, source)
        by_level = {name: boundary.get(name, Fraction(0)) for name in names}
        by_level[names[0]] += scratchpad
        for tensor, parts in level_parts.items():
            by_tensor[tensor] = by_tensor.get(tensor, EnergyParts()) + parts
        resolved = tuple(c for c in levels.values() if not isinstance(c, str))
        area_by_level = {
            c.name: Fraction(c.area_um2.value) for c in resolved if c.area_um2 is not None
        }
        dram_words = next((b.words for b in traffic or [] if b.outermost), None)
    elif dram_words:
        energy = energy + EnergyParts(
            dram=Fraction(dram_words * components.word_bits) * components.dram_pj_per_bit.value
        )
    for parts in by_tensor.values():
        energy = energy + parts
    array_area = area(counts, components)
    intermediate_area = sum(
        (Fraction(c.area_um2.value) for c in resolved if c.role == "intermediate" and c.area_um2),
        Fraction(0),
    )
    return Cost(
        energy,
        by_tensor,
        replace(array_area, intermediate=intermediate_area),
        components,
        dict(actions),
        by_level,
        area_by_level,
        resolved,
        dram_words,
        tuple(traffic or ()) if levels else (),
    )


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


def _last_exit_pitches(left: isl.UnionMap, space_time: SpaceTime, lift: isl.UnionMap) -> int:
    """Σ distances of every element's last exit (at the largest (step, PE))."""
    last = left.reverse().range_reverse().lexmax()  # element -> [T -> PE]
    to_pe = space_time.stamp_domain.unwrap().reverse().range_map()  # [T -> PE] -> PE
    return count(last.apply_range(to_pe).apply_range(lift))


def accumulator_reads(writes: int, elements: int, sides: Mapping[str, Any]) -> int:
    """An output's accumulations read the partial sum they add to, all but each element's
    first (it starts from zero): writes − distinct elements; 0 when the workload reads
    the tensor itself (`C = C + ...` written with a read): its read side counts those."""
    if sides.get("read") is not None:
        return 0
    return writes - elements


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
                back = v.read_back  # exits and read_back are counted by counting
                left, n_exits = trace.exits, trace.exit_count
                distance = 2 * _pe_sum(left, to_pe, lift)
                if n_exits:
                    distance -= _last_exit_pitches(left, space_time, lift)
                elements = n_exits - back  # read_back = exits − distinct elements
                acts = acts + TensorActions(
                    register_writes=v.total + back,
                    scratchpad_read_words=back,
                    scratchpad_write_words=n_exits,
                    read_back_words=back,
                    distribution_pitches=Fraction(distance),
                    accumulator_reads=accumulator_reads(v.total, elements, sides),
                    register_read_outs=n_exits,
                )
            for n, carried in v.carried.items():
                link = arch.links[n]
                if side == "write" and is_reduction_tree(link):
                    sent = _tree_actions(link, n, trace, arch, space_time, hops)
                elif carried:
                    sent = _link_actions(link, n, carried, trace, arch, space_time, hops)
                else:
                    continue
                if side == "write":  # a partial sum sent on is read out of its register
                    sent = sent + TensorActions(register_read_outs=sent.link_register_writes)
                acts = acts + sent
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


def level_cost_warnings(arch: Arch, tiled: set[str]) -> list[str]:
    """What the priced memory levels leave out: a level below the outermost without a tile
    depth (its words with the level above are not counted, so not priced), and a scratchpad
    whose priced size is not levels[0]'s capacity or not memory.l2_words."""
    if arch.components is None or not arch.levels:
        return []
    out = []
    for inner, outer in itertools.pairwise(arch.levels):
        if inner.name not in tiled:
            out.append(
                AnalysisWarning(
                    "untiled_level",
                    f"level {inner.name!r} has no tile depth: the words between it and "
                    f"{outer.name!r} are not counted, and the energy leaves them out",
                )
            )
    first, size = arch.levels[0], arch.components.scratchpad_size_bytes
    level_bytes = Fraction(first.capacity_words * arch.memory.word_bits, 8)
    if size.value != level_bytes:
        out.append(
            AnalysisWarning(
                "scratchpad_size",
                f"the scratchpad is priced at {float(size.value):,.0f} bytes ({size.source}), "
                f"not at the capacity of levels[0] {first.name!r} ({float(level_bytes):,.0f} "
                "bytes)",
            )
        )
    elif first.capacity_words != arch.memory.l2_words:
        out.append(
            AnalysisWarning(
                "scratchpad_size",
                f"the scratchpad is levels[0] {first.name!r}, priced at its capacity of "
                f"{first.capacity_words:,} words; memory.l2_words ({arch.memory.l2_words:,}) "
                "does not size it",
            )
        )
    return out


def priced_on(
    arch: Arch,
    actions: Mapping[str, TensorActions],
    macs: int,
    counts: AreaCounts,
    traffic: list[BoundaryWords] | None = None,
    dram_words: int | None = None,
) -> Cost:
    """`price` with the arch's components and its levels' components, and the warnings
    of what it leaves out (`level_cost_warnings`)."""
    if arch.components is None:
        raise ValueError(f"arch {arch.name!r} has no components to price")
    cost = price(
        actions,
        macs,
        counts,
        arch.components,
        dram_words,
        traffic or [],
        level_components_of(arch) if arch.levels else None,
        arch.source,
    )
    tiled = {boundary.inner for boundary in traffic or []}
    return replace(cost, warnings=tuple(level_cost_warnings(arch, tiled)))


def rebuild_cost(
    exact: Mapping[str, Any], macs: int, arch: Arch, levels: list[LevelTraffic] | None = None
) -> Cost:
    """The Cost whose `to_exact()` is `exact`, priced with the components of `arch` (the
    area counted on `arch` again) and the analysis's level traffic `levels`: `price` of
    the journalled action counts, exactly."""
    actions = {t: TensorActions.from_exact(a) for t, a in exact["actions"].items()}
    if "boundaries" in exact:
        traffic = [BoundaryWords.from_exact(b) for b in exact["boundaries"]]
    else:  # a journal written before the boundaries were kept
        traffic = [BoundaryWords.of(level) for level in levels or []]
    words = None if arch.levels else exact.get("dram_words")
    return priced_on(arch, actions, macs, area_counts(arch), traffic, words)
