"""PE arrays: the PE domain, interconnect links, memory and energy constants."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import islpy as isl

from tenet.errors import InputError
from tenet.model.components import Components, parse_components
from tenet.model.topology import generate
from tenet.model.warning_kinds import parse_silenced
from tenet.util.io import (
    check_keys,
    expect_int,
    expect_mapping,
    expect_number,
    expect_str,
    load_yaml,
    size_in_words,
)
from tenet.util.isl_util import (
    count,
    fix_params,
    is_bounded,
    name_of_map_domain,
    name_of_map_range,
    parse_union_map,
    parse_union_set,
    sets_of,
)

LINK_KINDS = ("forward", "multicast")
ACCESS_KINDS = ("read", "write", "both")


@dataclass(frozen=True)
class Link:
    """An interconnect entry: `relation` maps a receiver PE to the PEs it can take values from.

    A value touched at (p', t') is reusable at (p, t) when p' ∈ relation(p) and
    t' = prev^w(t) for some w in `window` (0 = same step, 1 = previous used step).
    A `multicast` relation is a symmetric group; within one step only a lexicographically
    smaller member supplies a value, so a group sharing a value pays one fetch.
    """

    relation: isl.UnionMap
    window: tuple[int, ...] = (0, 1)
    kind: str = "forward"
    tensors: tuple[str, ...] | None = None
    access: str = "both"
    label: str = ""
    entry: str = ""  # the interconnect entry it came from (a topology gives several links)

    def serves(self, tensor: str, side: str) -> bool:
        """Whether this link may carry values of `tensor` on access side `side`."""
        if self.tensors is not None and tensor not in self.tensors:
            return False
        return self.access in ("both", side)


@dataclass(frozen=True)
class Memory:
    word_bits: int = 16
    bandwidth_bits: int = 64
    avg_latency: int = 16
    l1_words: int = 256
    l2_words: int = 1024


@dataclass(frozen=True)
class Energy:
    """Energy per MAC and per L1 / L2 access (TENET's constants by default)."""

    mac: Fraction = Fraction("1")
    l1: Fraction = Fraction("1.68")
    l2: Fraction = Fraction("18.61")


@dataclass(frozen=True)
class MemoryLevel:
    """One level of a memory hierarchy (innermost first): capacity, the bandwidth at
    which it is read and written from the level inside it, and whether it holds two tiles
    (the next one filling while the current one runs)."""

    name: str
    capacity_words: int
    bandwidth_gbps: float
    double_buffered: bool = True

    def bits_per_cycle(self, clock_ghz: float) -> Fraction:
        """bandwidth_gbps · 8 / clock_ghz, exactly (the decimals as written): the bits
        per cycle of its boundary with the level inside it."""
        return Fraction(repr(self.bandwidth_gbps)) * 8 / Fraction(repr(clock_ghz))


@dataclass
class Arch:
    name: str
    pe_domain: isl.UnionSet
    pe_tuple: str
    pe_arity: int
    pe_count: int
    links: list[Link]
    macs_per_pe: int = 1
    memory: Memory = field(default_factory=Memory)
    energy: Energy = field(default_factory=Energy)
    source: str | None = None
    levels: list[MemoryLevel] = field(default_factory=list)
    components: Components | None = None  # per-action pJ and per-instance µm² (cost model)
    clock_ghz: float = 1.0  # cycles per ns: turns a level's GB/s into bits per cycle
    # warning kind patterns (fnmatch) whose warnings are left out (`silenced_warnings:`)
    silenced_warnings: tuple[str, ...] = ()
    # how same-step (window 0) forward links count (`same_step:`, docs/topologies.md):
    # "groups", one fetch per value per group that holds it; "tenet", TENET's literal rule
    same_step: str = "groups"


def pe_domain_from_shape(shape: list[int], name: str = "PE") -> isl.UnionSet:
    """`{ PE[p0, p1, ...] : 0 <= p_k < shape[k] }`"""
    dims = [f"p{k}" for k in range(len(shape))]
    cons = " and ".join(f"0 <= {d} < {n}" for d, n in zip(dims, shape))
    return isl.UnionSet(f"{{ {name}[{', '.join(dims)}] : {cons} }}")


def check_pe_domain(domain: isl.UnionSet, source: str | None, key: str) -> tuple[str, int]:
    """The PE domain must be one non-empty bounded tuple; returns (name, arity)."""
    sets = sets_of(domain)
    if len(sets) != 1:
        raise InputError("the PE domain must be one tuple, e.g. '{ PE[i,j] : ... }'", source, key)
    if domain.is_empty():
        raise InputError("the PE domain is empty", source, key)
    if not is_bounded(domain):
        raise InputError("the PE domain is unbounded", source, key)
    name = sets[0].get_tuple_name() or ""
    if not name:
        raise InputError("the PE tuple needs a name, e.g. PE[i,j]", source, key)
    return name, sets[0].dim(isl.dim_type.set)


def box_shape(domain: isl.UnionSet, source: str | None) -> list[int]:
    """The shape [n0, n1, ...] of a PE domain that is a box starting at 0 (for topologies)."""
    pe_set = sets_of(domain)[0]
    shape = []
    for k in range(pe_set.dim(isl.dim_type.set)):
        low, high = pe_set.dim_min_val(k).to_python(), pe_set.dim_max_val(k).to_python()
        if low != 0:
            raise InputError("topology presets need PE indices starting at 0", source, "pe")
        shape.append(high + 1)
    if not domain.is_equal(pe_domain_from_shape(shape, pe_set.get_tuple_name())):
        raise InputError("topology presets need a box-shaped PE array (use pe.shape)", source, "pe")
    return shape


def make_link(
    relation: isl.UnionMap,
    pe_domain: isl.UnionSet,
    pe: tuple[str, int],
    source: str | None,
    key: str,
    text: str = "",
    **options: Any,
) -> Link:
    """Check that a relation links PE tuples and restrict it to the PE domain on both sides."""
    relation = fix_params(relation, {}, source, key, hint="arch relations take no parameters")
    for tuple_ in name_of_map_domain(relation) + name_of_map_range(relation):
        if tuple_ != pe:
            raise InputError(
                f"link {text or relation} joins {tuple_[0]}[{tuple_[1]} dims], not the PE tuple {pe[0]}[{pe[1]} dims]",
                source,
                key,
            )
    relation = relation.intersect_domain(pe_domain).intersect_range(pe_domain)
    return Link(relation=relation, label=text or str(relation), **options)


LINK_OPTIONS = ("kind", "window", "tensors", "access", "name")


def _parse_topology(entry: Mapping[str, Any], key: str, domain, pe, source: str) -> list[Link]:
    """A `topology:` entry: a preset's links, with window/tensors/access/name overrides."""
    name = expect_str(entry["topology"], source, f"{key}.topology")
    if "kind" in entry:
        raise InputError("a topology sets its own link kinds", source, f"{key}.kind")
    options = {k: v for k, v in entry.items() if k not in ("topology", *LINK_OPTIONS)}
    shape = box_shape(domain, source)
    try:
        specs = generate(name, shape, options)
    except InputError as exc:
        raise InputError(exc.message, source, f"{key}.{exc.key or 'topology'}") from None
    links = []
    for spec in specs:
        merged = {
            "relation": spec.relation,
            "kind": spec.kind,
            "window": list(spec.window),
            "access": spec.access,
            "name": f"{entry.get('name', name)}: {spec.name}",
        }
        merged.update({k: entry[k] for k in ("window", "tensors", "access") if k in entry})
        link = _parse_link(merged, key, domain, pe, source)
        label = f"{key} ({entry.get('name', name)})" if key.startswith("interconnect") else key
        links.append(replace(link, entry=label))
    return links


def _parse_link(entry: Any, key: str, domain, pe, source: str) -> Link:
    """A `relation` entry with its options."""
    if isinstance(entry, str):
        entry = {"relation": entry}
    entry = expect_mapping(entry, source, key)
    check_keys(entry, ("relation", *LINK_OPTIONS), ("relation",), source, key + ".")
    text = expect_str(entry["relation"], source, f"{key}.relation")
    relation = parse_union_map(text, source, f"{key}.relation")
    kind = entry.get("kind", "forward")
    if kind not in LINK_KINDS:
        raise InputError(
            f"unknown link kind {kind!r} (supported: {', '.join(LINK_KINDS)})",
            source,
            f"{key}.kind",
        )
    window = entry.get("window", [0, 1])
    if not isinstance(window, list) or not window:
        raise InputError(
            "expected a non-empty list of time distances, e.g. [0, 1]", source, f"{key}.window"
        )
    window = tuple(sorted({expect_int(w, source, f"{key}.window", 0) for w in window}))
    tensors = entry.get("tensors")
    if tensors is not None:
        if not isinstance(tensors, list) or not all(isinstance(t, str) for t in tensors):
            raise InputError("expected a list of tensor names", source, f"{key}.tensors")
        tensors = tuple(tensors)
    access = entry.get("access", "both")
    if access not in ACCESS_KINDS:
        raise InputError(
            f"expected one of {', '.join(ACCESS_KINDS)}, got {access!r}", source, f"{key}.access"
        )
    label = str(entry.get("name") or text)
    link = make_link(
        relation,
        domain,
        pe,
        source,
        f"{key}.relation",
        text=label,
        window=window,
        kind=kind,
        tensors=tensors,
        access=access,
    )
    if kind == "multicast" and not link.relation.is_equal(link.relation.reverse()):
        raise InputError(
            f"a multicast relation must be symmetric (a group); {text!r} is not",
            source,
            f"{key}.relation",
        )
    return link


def parse_interconnect(raw: Any, domain, pe, source: str) -> list[Link]:
    """The `interconnect` list: `relation` entries and `topology` presets, in order."""
    raw = raw or []
    if not isinstance(raw, list):
        raise InputError("expected a list of links", source, "interconnect")
    links: list[Link] = []
    for n, entry in enumerate(raw):
        key = f"interconnect[{n}]"
        if isinstance(entry, Mapping) and "topology" in entry:
            links.extend(_parse_topology(entry, key, domain, pe, source))
        else:
            link = _parse_link(entry, key, domain, pe, source)
            links.append(replace(link, entry=f"{key} ({link.label})"))
    return links


def _memory(raw: Any, source: str) -> Memory:
    raw = expect_mapping(raw or {}, source, "memory")
    fields = ("word_bits", "bandwidth_bits", "avg_latency", "l1_words", "l2_words")
    check_keys(raw, fields, (), source, "memory.")
    values = {
        k: expect_int(v, source, f"memory.{k}", 0 if k in ("l1_words", "l2_words") else 1)
        for k, v in raw.items()
    }
    return Memory(**values)


def _energy(raw: Any, source: str) -> Energy:
    raw = expect_mapping(raw or {}, source, "energy")
    check_keys(raw, ("mac", "l1", "l2"), (), source, "energy.")
    values = {k: Fraction(str(expect_number(v, source, f"energy.{k}"))) for k, v in raw.items()}
    return Energy(**values)


def _levels(raw: Any, word_bits: int, source: str) -> list[MemoryLevel]:
    if raw is None:
        return []
    if not isinstance(raw, list) or len(raw) < 2:
        raise InputError(
            "expected a list of at least two memory levels, innermost first", source, "levels"
        )
    levels = []
    for n, entry in enumerate(raw):
        key = f"levels[{n}]"
        entry = expect_mapping(entry, source, key)
        check_keys(
            entry,
            ("name", "capacity", "bandwidth_gbps", "double_buffered"),
            ("name", "capacity"),
            source,
            key + ".",
        )
        capacity = size_in_words(entry["capacity"], word_bits, source, f"{key}.capacity")
        if capacity < 1:
            raise InputError("capacity must be positive", source, f"{key}.capacity")
        bandwidth = entry.get("bandwidth_gbps")
        if n > 0:
            if bandwidth is None:
                raise InputError(
                    "an outer level needs bandwidth_gbps", source, f"{key}.bandwidth_gbps"
                )
            if expect_number(bandwidth, source, f"{key}.bandwidth_gbps") <= 0:
                raise InputError("must be positive", source, f"{key}.bandwidth_gbps")
        if any(level.name == str(entry["name"]) for level in levels):
            raise InputError(f"a second level named {entry['name']!r}", source, f"{key}.name")
        double = entry.get("double_buffered", True)
        if not isinstance(double, bool):
            raise InputError(
                f"expected true or false, got {double!r}", source, f"{key}.double_buffered"
            )
        levels.append(MemoryLevel(str(entry["name"]), capacity, float(bandwidth or 0), double))
    for inner, outer in itertools.pairwise(levels):
        if outer.capacity_words < inner.capacity_words:
            raise InputError(
                f"level {outer.name!r} is smaller than {inner.name!r} inside it", source, "levels"
            )
    return levels


def load_arch(path: str | Path) -> Arch:
    """Read an architecture YAML file."""
    source = str(path)
    data = load_yaml(path, "arch file")
    check_keys(
        data,
        (
            "name",
            "pe",
            "macs_per_pe",
            "interconnect",
            "memory",
            "energy",
            "levels",
            "technology",
            "components",
            "clock_ghz",
            "silenced_warnings",
            "same_step",
        ),
        ("pe",),
        source,
    )
    pe = expect_mapping(data["pe"], source, "pe")
    check_keys(pe, ("shape", "domain"), (), source, "pe.")
    if ("shape" in pe) == ("domain" in pe):
        raise InputError("give exactly one of 'shape' or 'domain'", source, "pe")
    if "shape" in pe:
        shape = pe["shape"]
        if isinstance(shape, int) and not isinstance(shape, bool):
            shape = [shape]
        if not isinstance(shape, list) or not shape:
            raise InputError("expected a list of sizes, e.g. [8, 8]", source, "pe.shape")
        shape = [expect_int(n, source, f"pe.shape[{k}]", 1) for k, n in enumerate(shape)]
        domain = pe_domain_from_shape(shape)
    else:
        domain = fix_params(
            parse_union_set(pe["domain"], source, "pe.domain"),
            {},
            source,
            "pe.domain",
            hint="the PE domain takes no parameters",
        )
    pe_tuple = check_pe_domain(domain, source, "pe")
    links = parse_interconnect(data.get("interconnect"), domain, pe_tuple, source)
    memory = _memory(data.get("memory"), source)
    levels = _levels(data.get("levels"), memory.word_bits, source)
    return Arch(
        name=str(data.get("name") or Path(path).stem),
        pe_domain=domain,
        pe_tuple=pe_tuple[0],
        pe_arity=pe_tuple[1],
        pe_count=count(domain),
        links=links,
        macs_per_pe=expect_int(data.get("macs_per_pe", 1), source, "macs_per_pe", 1),
        memory=memory,
        levels=levels,
        energy=_energy(data.get("energy"), source),
        source=source,
        components=parse_components(
            data.get("technology"),
            data.get("components"),
            memory.word_bits,
            memory.l2_words,
            source,
            tuple(level.name for level in levels),
            levels[0].capacity_words if levels else None,
        ),
        clock_ghz=_clock(data.get("clock_ghz", 1.0), source),
        silenced_warnings=parse_silenced(data.get("silenced_warnings"), source),
        same_step=_same_step(data.get("same_step", "groups"), source),
    )


#: The rules for same-step links an arch may name (`same_step:`).
SAME_STEP_RULES = ("groups", "tenet")


def _same_step(value: Any, source: str | None) -> str:
    """`same_step`: `groups` (one fetch per value per same-step group) or `tenet`."""
    if value not in SAME_STEP_RULES:
        raise InputError(
            f"expected one of {', '.join(SAME_STEP_RULES)}, got {value!r}", source, "same_step"
        )
    return value


def _clock(value: Any, source: str) -> float:
    """`clock_ghz`: a positive number of cycles per ns."""
    if expect_number(value, source, "clock_ghz") <= 0:
        raise InputError(f"must be positive, got {value!r}", source, "clock_ghz")
    return float(value)


def with_topology(arch: Arch, topology: str) -> Arch:
    """The same PE array with its interconnect replaced by one topology preset."""
    pe = (arch.pe_tuple, arch.pe_arity)
    try:
        links = _parse_topology(
            {"topology": topology}, f"topology {topology}", arch.pe_domain, pe, arch.source
        )
    except InputError as exc:
        raise InputError(exc.message, option="topologies") from None
    return replace(arch, name=f"{arch.name}+{topology}", links=links)


def with_silenced(arch: Arch, patterns: tuple[str, ...]) -> Arch:
    """The arch with more warning kind patterns silenced (e.g. `--silence`)."""
    if not patterns:
        return arch
    return replace(arch, silenced_warnings=(*arch.silenced_warnings, *patterns))
