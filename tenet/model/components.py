"""Component energies and areas with units and sources: what one action of each part of a
design costs (pJ) and what one instance of it occupies (µm²).

`Components` is the interface the cost model reads (`tenet.model.cost`); the built-in
technology library and the arch YAML keys `technology:` and `components:` produce it.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, fields
from fractions import Fraction
from pathlib import Path
from typing import Any

from tenet.errors import InputError


@dataclass(frozen=True)
class Quantity:
    """One value with its unit (`pJ`, `um2`, `pJ/bit`, `pJ/bit/mm`, `um`, `bytes`, `bits`)
    and where it comes from (a citation, or the file and key that gave it)."""

    value: Fraction
    unit: str
    source: str

    def to_dict(self) -> dict[str, Any]:
        return {"value": float(self.value), "unit": self.unit, "source": self.source}


@dataclass(frozen=True)
class Components:
    """Per-action energies and per-instance areas of one design's parts.

    A scratchpad access moves one row of `scratchpad_width_bits`; `words` words of
    `word_bits` are words·word_bits/width_bits accesses (exact, a Fraction).
    """

    word_bits: int
    mac_energy_pj: Quantity
    mac_area_um2: Quantity
    register_read_pj: Quantity
    register_write_pj: Quantity
    register_area_um2: Quantity
    scratchpad_size_bytes: Quantity
    scratchpad_width_bits: Quantity
    scratchpad_read_pj: Quantity
    scratchpad_write_pj: Quantity
    scratchpad_area_um2: Quantity
    dram_pj_per_bit: Quantity
    wire_pj_per_bit_mm: Quantity
    adder_energy_pj: Quantity
    adder_area_um2: Quantity
    pe_pitch_um: Quantity
    node_nm: int | None = None
    #: `components.levels.NAME`: the values given for the memory levels above the
    #: scratchpad, (level name, ((key, value), ...)) in the order given.
    level_values: tuple[tuple[str, tuple[tuple[str, Quantity], ...]], ...] = ()

    def scratchpad_accesses(self, words: int) -> Fraction:
        """words·word_bits / width_bits: the row accesses that move `words` words."""
        return Fraction(words * self.word_bits) / self.scratchpad_width_bits.value

    def to_dict(self) -> dict[str, Any]:
        """`cost.components` of analyze's JSON: every value used, by component and key."""
        out: dict[str, Any] = {"node_nm": self.node_nm, "word_bits": self.word_bits}
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, Quantity):
                continue
            component, _, key = f.name.partition("_")
            if f.name.startswith("pe_pitch"):
                component, key = "pe", "pitch_um"
            out.setdefault(component, {})[key] = value.to_dict()
        return out


# --- the built-in library (tenet/model/data/technology.yaml) --------------------------------

#: The `components:` entries and the keys each takes (`pe_pitch_um` is a plain number).
COMPONENT_KEYS: dict[str, tuple[str, ...]] = {
    "mac": ("energy_pj", "area_um2"),
    "register": ("read_pj", "write_pj", "area_um2"),
    "scratchpad": ("size_bytes", "width_bits", "read_pj", "write_pj", "area_um2"),
    "dram": ("pj_per_bit",),
    "wire": ("pj_per_bit_mm",),
    "adder": ("energy_pj", "area_um2"),
    "pe_pitch_um": (),
    "levels": (),
}
#: The keys of one `components.levels.NAME` entry (a memory level above the scratchpad).
LEVEL_KEYS = ("read_pj", "write_pj", "size_bytes", "width_bits", "area_um2")
#: The unit of each LEVEL_KEYS value.
LEVEL_UNITS = {
    "read_pj": "pJ",
    "write_pj": "pJ",
    "size_bytes": "bytes",
    "width_bits": "bits",
    "area_um2": "um2",
}
TECHNOLOGY_KEYS = ("node_nm", "dram", "logic")
#: Registers a PE holds beside its MAC: two operands and the partial sum (PE area).
PE_REGISTERS = 3


@functools.cache
def library() -> dict[str, Any]:
    """The parsed technology.yaml (read once)."""
    import yaml

    return yaml.safe_load((Path(__file__).with_name("data") / "technology.yaml").read_text())


def _exact(value: Any) -> Fraction:
    """A YAML number as the exact decimal it was written as."""
    return Fraction(str(value))


def _approx(value: float) -> Fraction:
    """A computed real (a fit's power, a square root) to 9 decimals, as a Fraction."""
    return Fraction(repr(round(value, 9)))


def node_range() -> tuple[int, int]:
    """(smallest, largest) node in nm that the scaling table covers."""
    nodes = [int(n) for n in library()["scaling"]["nodes"]]
    return min(nodes), max(nodes)


def check_node(node_nm: Any, source: str | None, key: str) -> int:
    """A node inside the scaling table's range, or one line naming the range."""
    low, high = node_range()
    if isinstance(node_nm, bool) or not isinstance(node_nm, int):
        raise InputError(f"expected a node in nm (an integer), got {node_nm!r}", source, key)
    if not low <= node_nm <= high:
        raise InputError(
            f"no scaling data for {node_nm} nm: the library covers {low} nm to {high} nm "
            "(Stillmaker & Baas 2017)",
            source,
            key,
        )
    return node_nm


def _node_factors(node_nm: int) -> tuple[Fraction, Fraction]:
    """(area factor from 45 nm, energy polynomial at the table's Vdd) at `node_nm`:
    a table row, or linear interpolation in nm between the two rows around it."""
    scaling = library()["scaling"]
    vdd = _exact(scaling["vdd"])
    rows = {int(n): row for n, row in scaling["nodes"].items()}

    def at(n: int) -> tuple[Fraction, Fraction]:
        a, b, c = (_exact(x) for x in rows[n]["energy_poly"])
        return _exact(rows[n]["area_from_45nm"]), a * vdd * vdd + b * vdd + c

    if node_nm in rows:
        return at(node_nm)
    above = min(n for n in rows if n > node_nm)
    below = max(n for n in rows if n < node_nm)
    t = Fraction(node_nm - below, above - below)
    (area_lo, energy_lo), (area_hi, energy_hi) = at(below), at(above)
    return area_lo + t * (area_hi - area_lo), energy_lo + t * (energy_hi - energy_lo)


def area_scale(from_nm: int, to_nm: int) -> Fraction:
    """Area of a design at `to_nm` over its area at `from_nm` (Stillmaker & Baas)."""
    return _node_factors(to_nm)[0] / _node_factors(from_nm)[0]


def energy_scale(from_nm: int, to_nm: int) -> Fraction:
    """Energy per operation at `to_nm` over that at `from_nm` (Stillmaker & Baas)."""
    return _node_factors(to_nm)[1] / _node_factors(from_nm)[1]


def _scaled(node_nm: int, base_nm: int) -> str:
    return (
        "" if node_nm == base_nm else f", scaled {base_nm}->{node_nm} nm (Stillmaker & Baas 2017)"
    )


def mac_values(node_nm: int, word_bits: int, logic: str = "aladdin") -> dict[str, Quantity]:
    """A b-bit MAC (b-bit multiplier, energy/area ∝ b², plus a b-bit adder, ∝ b) and a
    b-bit adder at `node_nm`, from the `logic` table's 32-bit entries."""
    table = library()["logic"][logic]
    base = int(table["node_nm"])
    e, a = energy_scale(base, node_nm), area_scale(base, node_nm)
    mult, add = table["multiplier_32b"], table["adder_32b"]
    quad, lin = Fraction(word_bits, 32) ** 2, Fraction(word_bits, 32)
    why = f"{table['source']}; {word_bits}-bit{_scaled(node_nm, base)}"
    mac_e = (_exact(mult["energy_pj"]) * quad + _exact(add["energy_pj"]) * lin) * e
    mac_a = (_exact(mult["area_um2"]) * quad + _exact(add["area_um2"]) * lin) * a
    return {
        "mac_energy_pj": Quantity(mac_e, "pJ", f"multiplier + adder: {why}"),
        "mac_area_um2": Quantity(mac_a, "um2", f"multiplier + adder: {why}"),
        "adder_energy_pj": Quantity(_exact(add["energy_pj"]) * lin * e, "pJ", why),
        "adder_area_um2": Quantity(_exact(add["area_um2"]) * lin * a, "um2", why),
    }


def register_values(node_nm: int, word_bits: int) -> dict[str, Quantity]:
    """A word_bits-bit register: per-bit read/write energy and area times word_bits."""
    table = library()["register_1b"]
    base = int(table["node_nm"])
    e, a = energy_scale(base, node_nm), area_scale(base, node_nm)
    why = f"{table['source']}; x {word_bits} bits{_scaled(node_nm, base)}"
    return {
        "register_read_pj": Quantity(_exact(table["read_pj"]) * word_bits * e, "pJ", why),
        "register_write_pj": Quantity(_exact(table["write_pj"]) * word_bits * e, "pJ", why),
        "register_area_um2": Quantity(_exact(table["area_um2"]) * word_bits * a, "um2", why),
    }


def sram_read_pj(size_bytes: int, width_bits: int, node_nm: int = 45) -> Fraction:
    """The SRAM fit: coefficient · (S / 1 KiB)^size_exponent · (w / 64)^width_exponent pJ
    per access of one w-bit row, at 45 nm, times the node's energy scale."""
    sram = library()["sram"]
    fit = sram["fit"]
    value = (
        float(fit["coefficient_pj"])
        * (size_bytes / 1024) ** float(fit["size_exponent"])
        * (width_bits / 64) ** float(fit["width_exponent"])
    )
    return _approx(value) * energy_scale(int(sram["node_nm"]), node_nm)


def sram_byte_area_um2(node_nm: int = 45) -> Fraction:
    """SRAM area per byte (the fit's area_per_byte_um2 at 45 nm, times the node's area scale)."""
    sram = library()["sram"]
    return _exact(sram["fit"]["area_per_byte_um2"]) * area_scale(int(sram["node_nm"]), node_nm)


def scratchpad_values(
    node_nm: int, size_bytes: int, width_bits: int, size_why: str, width_why: str
) -> dict[str, Quantity]:
    """A size_bytes SRAM read and written width_bits at a time, from the SRAM fit."""
    sram = library()["sram"]
    why = f"SRAM fit ({sram['source']}) at {size_bytes} B x {width_bits} b" + _scaled(
        node_nm, int(sram["node_nm"])
    )
    read = sram_read_pj(size_bytes, width_bits, node_nm)
    return {
        "scratchpad_size_bytes": Quantity(Fraction(size_bytes), "bytes", size_why),
        "scratchpad_width_bits": Quantity(Fraction(width_bits), "bits", width_why),
        "scratchpad_read_pj": Quantity(read, "pJ", why),
        "scratchpad_write_pj": Quantity(read, "pJ", f"{why}; write = read"),
        "scratchpad_area_um2": Quantity(
            sram_byte_area_um2(node_nm) * size_bytes, "um2", f"{why}; area per byte x size"
        ),
    }


def dram_value(kind: str) -> Quantity:
    entry = library()["dram"]["types"][kind]
    return Quantity(_exact(entry["pj_per_bit"]), "pJ/bit", f"{kind}: {entry['source']}")


def wire_value() -> Quantity:
    wire = library()["wire"]
    return Quantity(_exact(wire["pj_per_bit_mm"]), "pJ/bit/mm", wire["source"])


def pe_pitch(mac_area: Quantity, register_area: Quantity) -> Quantity:
    """sqrt(PE area), PE area = one MAC + PE_REGISTERS word registers (two operands and
    the partial sum): the side of a square PE, the length of a link to a neighbour."""
    area = mac_area.value + PE_REGISTERS * register_area.value
    return Quantity(
        _approx(math.sqrt(area)),
        "um",
        f"sqrt(mac area + {PE_REGISTERS} x register area) = sqrt({float(area):.6g} um2)",
    )


def technology_components(
    node_nm: int,
    word_bits: int,
    scratchpad_size_bytes: int,
    scratchpad_width_bits: int | None = None,
    dram: str | None = None,
    logic: str = "aladdin",
) -> Components:
    """Every value from the built-in library at `node_nm` for `word_bits`-bit words."""
    width = scratchpad_width_bits or word_bits
    values: dict[str, Quantity] = {}
    values.update(mac_values(node_nm, word_bits, logic))
    values.update(register_values(node_nm, word_bits))
    values.update(
        scratchpad_values(
            node_nm,
            scratchpad_size_bytes,
            width,
            "the scratchpad's size: levels[0]'s capacity, or memory.l2_words, x word_bits / 8 "
            "(default)",
            "the word (default)",
        )
    )
    values["dram_pj_per_bit"] = dram_value(dram or library()["dram"]["default"])
    values["wire_pj_per_bit_mm"] = wire_value()
    values["pe_pitch_um"] = pe_pitch(values["mac_area_um2"], values["register_area_um2"])
    return Components(word_bits=word_bits, node_nm=node_nm, **values)


# --- the arch YAML keys `technology:` and `components:` -------------------------------------


def check_known(data: Any, allowed: tuple[str, ...], source: str | None, prefix: str) -> None:
    """Refuse a key not in `allowed`, naming the closest one."""
    import difflib

    for key in data:
        if key not in allowed:
            close = difflib.get_close_matches(str(key), allowed, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise InputError(
                f"unknown key ({hint}expected one of: {', '.join(allowed)})",
                source,
                f"{prefix}{key}",
            )


def _number(value: Any, source: str | None, key: str) -> Fraction:
    """A non-negative finite number, exact as written. YAML reads `1e-3` (no dot) as text,
    so text that is a plain decimal number is taken too, exactly."""
    if isinstance(value, str) and _DECIMAL.fullmatch(value.strip()):
        value = Fraction(value.strip())
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise InputError(f"expected a number, got {value!r}", source, key)
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"must be a finite number, got {value}", source, key)
    if value < 0:
        raise InputError(f"must not be negative, got {value}", source, key)
    if value > LARGEST_NUMBER:
        raise InputError("too large (at most 1e30)", source, key)
    return _exact(value)


#: A decimal number as text: 12, 0.5, 1e-3, 2.5E+2.
_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")

#: The largest component value taken (pJ, µm², µm, pJ/bit...): far above any real part, and
#: low enough that every total of the cost stays a float in the JSON.
LARGEST_NUMBER = 10**30


#: The largest size or width a component key takes (the fits compute in floating point).
LARGEST_INT = 2**60


def _positive_int(value: Any, source: str | None, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(f"expected a positive integer, got {value!r}", source, key)
    if value > LARGEST_INT:
        raise InputError(f"too large: {value} (at most 2**60)", source, key)
    return value


def _technology(raw: Any, source: str | None) -> tuple[int, str | None, str, bool]:
    """(node_nm, dram kind, logic table, given) of `technology:`; 45 nm when absent."""
    if raw is None:
        return int(library()["reference_node_nm"]), None, "aladdin", False
    if not isinstance(raw, dict):
        raise InputError(
            f"expected a mapping like {{node_nm: 45}}, got {type(raw).__name__}",
            source,
            "technology",
        )
    check_known(raw, TECHNOLOGY_KEYS, source, "technology.")
    if "node_nm" not in raw:
        raise InputError("missing required key", source, "technology.node_nm")
    node = check_node(raw["node_nm"], source, "technology.node_nm")
    kinds = tuple(library()["dram"]["types"])
    dram = raw.get("dram")
    if dram is not None and dram not in kinds:
        raise InputError(
            f"unknown DRAM {dram!r} (known: {', '.join(kinds)})", source, "technology.dram"
        )
    logics = tuple(library()["logic"])
    logic = raw.get("logic", "aladdin")
    if logic not in logics:
        raise InputError(
            f"unknown logic table {logic!r} (known: {', '.join(logics)})",
            source,
            "technology.logic",
        )
    return node, dram, logic, True


def _level_values(
    raw: Any, level_names: tuple[str, ...], source: str | None
) -> tuple[tuple[str, tuple[tuple[str, Quantity], ...]], ...]:
    """`components.levels`: {NAME: {read_pj, write_pj, size_bytes, width_bits, area_um2}}
    for the memory levels above the scratchpad (levels[0] is the scratchpad: its values
    are `components.scratchpad`)."""
    if raw is None:
        return ()
    if not isinstance(raw, dict):
        raise InputError(
            "expected a mapping of level names to {read_pj, write_pj, size_bytes, "
            "width_bits, area_um2}",
            source,
            "components.levels",
        )
    out = []
    for name, entry in raw.items():
        key = f"components.levels.{name}"
        if level_names and str(name) == level_names[0]:
            raise InputError(
                f"{name!r} is levels[0], the scratchpad: give its values under "
                "components.scratchpad",
                source,
                key,
            )
        if level_names and str(name) not in level_names:
            known = ", ".join(level_names[1:]) or "none"
            raise InputError(
                f"{name!r} is not a memory level of the arch above the scratchpad "
                f"(levels: {known})",
                source,
                key,
            )
        if not isinstance(entry, dict) or not entry:
            raise InputError(f"expected a mapping of {', '.join(LEVEL_KEYS)}", source, key)
        check_known(entry, LEVEL_KEYS, source, f"{key}.")
        values = []
        for item, value in entry.items():
            path = f"{key}.{item}"
            number = (
                Fraction(_positive_int(value, source, path))
                if item in ("size_bytes", "width_bits")
                else _number(value, source, path)
            )
            values.append((item, Quantity(number, LEVEL_UNITS[item], f"{source}: {path}")))
        out.append((str(name), tuple(values)))
    return tuple(out)


#: Where each Components value is given in `components:`: field -> (entry, key, unit).
COMPONENT_FIELDS = {
    "mac_energy_pj": ("mac", "energy_pj", "pJ"),
    "mac_area_um2": ("mac", "area_um2", "um2"),
    "register_read_pj": ("register", "read_pj", "pJ"),
    "register_write_pj": ("register", "write_pj", "pJ"),
    "register_area_um2": ("register", "area_um2", "um2"),
    "scratchpad_read_pj": ("scratchpad", "read_pj", "pJ"),
    "scratchpad_write_pj": ("scratchpad", "write_pj", "pJ"),
    "scratchpad_area_um2": ("scratchpad", "area_um2", "um2"),
    "dram_pj_per_bit": ("dram", "pj_per_bit", "pJ/bit"),
    "wire_pj_per_bit_mm": ("wire", "pj_per_bit_mm", "pJ/bit/mm"),
    "adder_energy_pj": ("adder", "energy_pj", "pJ"),
    "adder_area_um2": ("adder", "area_um2", "um2"),
}


def _check_entries(raw: Any, source: str | None) -> dict[str, Any]:
    """`components:` as a mapping of known entries, each a mapping of its known keys."""
    if not isinstance(raw, dict):
        raise InputError(f"expected a mapping, got {type(raw).__name__}", source, "components")
    check_known(raw, tuple(COMPONENT_KEYS), source, "components.")
    for name, entry in raw.items():
        if name in ("pe_pitch_um", "levels"):
            continue
        if not isinstance(entry, dict):
            raise InputError(
                f"expected a mapping of {', '.join(COMPONENT_KEYS[name])}",
                source,
                f"components.{name}",
            )
        check_known(entry, COMPONENT_KEYS[name], source, f"components.{name}.")
    return raw


def _scratchpad_shape(
    pad: dict[str, Any],
    word_bits: int,
    l2_words: int,
    source: str | None,
    level_names: tuple[str, ...],
    scratchpad_words: int | None,
) -> tuple[int, str, int, str]:
    """(size in bytes, where it comes from, width in bits, where it comes from) of the
    scratchpad: `components.scratchpad.size_bytes`, else levels[0]'s capacity, else
    memory.l2_words; the width given, else one word."""
    size = word_bits * l2_words // 8
    size_why = f"memory.l2_words x word_bits / 8 = {l2_words} x {word_bits} / 8 (default)"
    if scratchpad_words is not None and level_names:
        size = word_bits * scratchpad_words // 8
        size_why = (
            f"levels[0] {level_names[0]!r}: capacity x word_bits / 8 = "
            f"{scratchpad_words} x {word_bits} / 8 (default)"
        )
    if "size_bytes" in pad:
        size = _positive_int(pad["size_bytes"], source, "components.scratchpad.size_bytes")
        size_why = f"{source}: components.scratchpad.size_bytes"
    width, width_why = word_bits, f"the word, {word_bits} bits (default)"
    if "width_bits" in pad:
        width = _positive_int(pad["width_bits"], source, "components.scratchpad.width_bits")
        width_why = f"{source}: components.scratchpad.width_bits"
    if size < 1:
        raise InputError(
            "the scratchpad has no size: give components.scratchpad.size_bytes "
            "(memory.l2_words is 0)",
            source,
            "components.scratchpad.size_bytes",
        )
    return size, size_why, width, width_why


def _given_values(raw: dict[str, Any], source: str | None) -> dict[str, Quantity]:
    """The values `components:` gives, by Components field (COMPONENT_FIELDS)."""
    out = {}
    for field_name, (name, key, unit) in COMPONENT_FIELDS.items():
        entry = raw.get(name) or {}
        if key in entry:
            path = f"components.{name}.{key}"
            number = _number(entry[key], source, path)
            out[field_name] = Quantity(number, unit, f"{source}: {path}")
    return out


def _given_pitch(raw: dict[str, Any], source: str | None) -> Quantity | None:
    """`components.pe_pitch_um`, a positive number (a pitch of 0 would make wires free)."""
    if "pe_pitch_um" not in raw:
        return None
    pitch = _number(raw["pe_pitch_um"], source, "components.pe_pitch_um")
    if pitch == 0:
        raise InputError(
            "must be positive: a pitch of 0 would make every wire free (to price wires "
            "at nothing, set components.wire.pj_per_bit_mm: 0)",
            source,
            "components.pe_pitch_um",
        )
    return Quantity(pitch, "um", f"{source}: components.pe_pitch_um")


def parse_components(
    technology: Any,
    components: Any,
    word_bits: int,
    l2_words: int,
    source: str | None,
    level_names: tuple[str, ...] = (),
    scratchpad_words: int | None = None,
) -> Components | None:
    """`Arch.components` from the arch keys: None when neither is given; the built-in
    library at `technology.node_nm` (45 nm when only `components:` is given), with every
    value `components:` names put in its place (its source: the file and key).
    `level_names` are the arch's memory levels, innermost first; `scratchpad_words`,
    levels[0]'s capacity when the arch has levels, sizes the scratchpad instead of
    `memory.l2_words` (docs/energy.md)."""
    if technology is None and components is None:
        return None
    node, dram, logic, given = _technology(technology, source)
    raw = _check_entries(components if components is not None else {}, source)
    level_values = _level_values(raw.get("levels"), level_names, source)
    size, size_why, width, width_why = _scratchpad_shape(
        raw.get("scratchpad") or {}, word_bits, l2_words, source, level_names, scratchpad_words
    )
    values: dict[str, Quantity] = {}
    values.update(mac_values(node, word_bits, logic))
    values.update(register_values(node, word_bits))
    values.update(scratchpad_values(node, size, width, size_why, width_why))
    values["dram_pj_per_bit"] = dram_value(dram or library()["dram"]["default"])
    values["wire_pj_per_bit_mm"] = wire_value()
    if not given:
        note = " [no technology: given; 45 nm library]"
        values = {k: Quantity(q.value, q.unit, q.source + note) for k, q in values.items()}
    values.update(_given_values(raw, source))
    pitch = _given_pitch(raw, source)
    values["pe_pitch_um"] = pitch or pe_pitch(values["mac_area_um2"], values["register_area_um2"])
    return Components(word_bits=word_bits, node_nm=node, level_values=level_values, **values)


# --- the memory levels above the scratchpad ----------------------------------------------

#: The largest level the SRAM fit prices (bytes): the fit's points run from 8 KB to 1 MB,
#: and a level of more than 1 GiB is a memory the fit does not describe (HBM, DRAM).
LARGEST_SRAM_BYTES = 2**30


@dataclass(frozen=True)
class LevelComponent:
    """What one access of one memory level costs: `read_pj` and `write_pj` per access of
    one row of `width_bits`; `area_um2` None for an off-chip level (DRAM), which the
    design's area leaves out."""

    name: str
    role: str  # "scratchpad" (levels[0]), "intermediate" or "dram" (the outermost)
    read_pj: Quantity
    write_pj: Quantity
    width_bits: Quantity
    area_um2: Quantity | None

    def accesses(self, words: int, word_bits: int) -> Fraction:
        """words·word_bits / width_bits row accesses (exact)."""
        return Fraction(words * word_bits) / self.width_bits.value

    def to_dict(self) -> dict[str, Any]:
        out = {
            "role": self.role,
            "read_pj": self.read_pj.to_dict(),
            "write_pj": self.write_pj.to_dict(),
            "width_bits": self.width_bits.to_dict(),
        }
        if self.area_um2 is not None:
            out["area_um2"] = self.area_um2.to_dict()
        return out


def level_component(
    components: Components, index: int, names: list[str], capacity_words: int
) -> LevelComponent | str:
    """The component of level `names[index]` (innermost first), or why it has none:
    levels[0] is the scratchpad; a level between it and the outermost takes
    `components.levels.NAME` and the SRAM fit at its capacity for what that does not give;
    the outermost takes `components.levels.NAME`, else `components.dram` per word."""
    name, word_bits = names[index], components.word_bits
    if index == 0:
        return LevelComponent(
            name,
            "scratchpad",
            components.scratchpad_read_pj,
            components.scratchpad_write_pj,
            components.scratchpad_width_bits,
            components.scratchpad_area_um2,
        )
    given = dict(dict(components.level_values).get(name, ()))
    width = given.get("width_bits") or Quantity(
        Fraction(word_bits), "bits", f"the word, {word_bits} bits (default)"
    )
    if index == len(names) - 1 and not {"read_pj", "write_pj"} <= set(given):
        per_word = components.dram_pj_per_bit.value * word_bits
        why = f"components.dram: {float(components.dram_pj_per_bit.value):g} pJ/bit x "
        why += f"{word_bits} bits ({components.dram_pj_per_bit.source})"
        return LevelComponent(
            name,
            "dram",
            given.get("read_pj") or Quantity(per_word, "pJ", why),
            given.get("write_pj") or Quantity(per_word, "pJ", why),
            Quantity(Fraction(word_bits), "bits", "one word per DRAM access"),
            None,
        )
    role = "dram" if index == len(names) - 1 else "intermediate"
    if {"read_pj", "write_pj", "area_um2"} <= set(given) or (
        role == "dram" and {"read_pj", "write_pj"} <= set(given)
    ):
        return LevelComponent(
            name, role, given["read_pj"], given["write_pj"], width, given.get("area_um2")
        )
    size = given.get("size_bytes") or Quantity(
        Fraction(capacity_words * word_bits, 8),
        "bytes",
        f"the level's capacity, {capacity_words} words x {word_bits} bits / 8 (default)",
    )
    if components.node_nm is None:
        return (
            f"level {name!r} has no component values and no technology node to fit them "
            f"at: give components.levels.{name}.read_pj, write_pj and area_um2"
        )
    if size.value > LARGEST_SRAM_BYTES:
        return (
            f"level {name!r} ({int(size.value):,} bytes) is larger than the SRAM fit prices "
            f"(1 GiB): give components.levels.{name}.read_pj, write_pj and area_um2"
        )
    fitted = scratchpad_values(
        components.node_nm, int(size.value), int(width.value), size.source, width.source
    )
    return LevelComponent(
        name,
        role,
        given.get("read_pj") or fitted["scratchpad_read_pj"],
        given.get("write_pj") or fitted["scratchpad_write_pj"],
        width,
        given.get("area_um2") or fitted["scratchpad_area_um2"],
    )
