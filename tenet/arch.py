"""PE arrays: the PE domain, interconnect links, memory and energy constants."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import islpy as isl

from .errors import InputError
from .io import check_keys, expect_int, expect_mapping, expect_number, expect_str, load_yaml
from .isl_util import (
    count,
    fix_params,
    is_bounded,
    name_of_map_domain,
    name_of_map_range,
    parse_union_map,
    parse_union_set,
    sets_of,
)

LINK_KINDS = ("forward",)
ACCESS_KINDS = ("read", "write", "both")


@dataclass(frozen=True)
class Link:
    """An interconnect entry: `relation` maps a receiver PE to the PEs it can take values from.

    A value touched at (p', t') is reusable at (p, t) when p' ∈ relation(p) and
    t' = prev^w(t) for some w in `window` (0 = same step, 1 = previous used step).
    """

    relation: isl.UnionMap
    window: tuple[int, ...] = (0, 1)
    kind: str = "forward"
    tensors: tuple[str, ...] | None = None
    access: str = "both"
    label: str = ""

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


def _parse_link(entry: Any, n: int, domain, pe, source: str) -> Link:
    key = f"interconnect[{n}]"
    if isinstance(entry, str):
        entry = {"relation": entry}
    entry = expect_mapping(entry, source, key)
    if "topology" in entry:
        raise InputError(
            "topology presets are not supported yet; write the link as 'relation'",
            source,
            f"{key}.topology",
        )
    check_keys(
        entry,
        ("relation", "kind", "window", "tensors", "access", "name"),
        ("relation",),
        source,
        key + ".",
    )
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
    return make_link(
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


def load_arch(path: str | Path) -> Arch:
    """Read an architecture YAML file."""
    source = str(path)
    data = load_yaml(path, "arch file")
    check_keys(
        data, ("name", "pe", "macs_per_pe", "interconnect", "memory", "energy"), ("pe",), source
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
    raw_links = data.get("interconnect") or []
    if not isinstance(raw_links, list):
        raise InputError("expected a list of links", source, "interconnect")
    links = [_parse_link(entry, n, domain, pe_tuple, source) for n, entry in enumerate(raw_links)]
    return Arch(
        name=str(data.get("name") or Path(path).stem),
        pe_domain=domain,
        pe_tuple=pe_tuple[0],
        pe_arity=pe_tuple[1],
        pe_count=count(domain),
        links=links,
        macs_per_pe=expect_int(data.get("macs_per_pe", 1), source, "macs_per_pe", 1),
        memory=_memory(data.get("memory"), source),
        energy=_energy(data.get("energy"), source),
        source=source,
    )
