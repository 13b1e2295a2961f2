"""`--components FILE`: component energies and areas from another tool's tables.

Two formats:

* Accelergy's energy and area reference tables (ERT / ART, also their `_summary` forms),
  one file or both in one: `ERT: {tables: [{name, actions: [{name, energy}]}]}` and
  `ART: {tables: [{name, area}]}`, energies in pJ per action and areas in um2. An entry
  maps onto a component by the last part of its name (`system_top_level.mac[1..256]` is
  `mac`), by the words of `ENTRY_NAMES`. The first entry that maps onto a component gives
  it; the rest are not read. The widths of a row access (`width`, `datawidth`) are read
  from the entry's `attributes`, its ART entry's, or the flattened architecture
  (`architecture: {local: [{name, attributes}]}`) in the same file.
* A simple table: a YAML mapping `components:` with the keys of the arch's `components:`
  (docs/components.md), e.g. `components: {mac: {energy_pj: 0.5, area_um2: 400}}`.

Values the file does not give keep the arch's (or, for an arch without components, the
45 nm library's). Each value's source names the file and the entry it came from.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import fields, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from tenet.errors import InputError
from tenet.model.arch import Arch
from tenet.model.components import (
    LARGEST_NUMBER,
    Components,
    Quantity,
    parse_components,
    pe_pitch,
    scratchpad_values,
    technology_components,
)
from tenet.util.io import load_yaml

#: The words that map an ERT/ART entry onto each component, tried in this order: an entry is
#: the first component one of whose words the last part of its name contains (lower-cased,
#: `[..]` ranges removed). docs/components.md lists the same words.
ENTRY_NAMES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("mac", ("mac",)),
    ("adder", ("adder",)),
    ("register", ("reg", "regfile")),
    ("dram", ("dram",)),
    ("scratchpad", ("glb", "global_buffer", "globalbuffer", "sram", "scratchpad", "shared")),
    ("wire", ("wire",)),
)
#: ERT actions read for each role, first found wins (`leak` is never read).
COMPUTE_ACTIONS = ("compute", "mac_random", "mac", "multiply", "add", "read")
READ_ACTIONS = ("read", "random_read", "read_random")
WRITE_ACTIONS = ("write", "update", "random_write", "write_random")
#: The bits one DRAM action moves when no width is given: Accelergy's example DRAMs (the
#: timeloop-accelergy-exercises designs) are 64 bits wide.
DRAM_WIDTH_BITS = 64
#: Attribute keys, first found wins, of the bits one access moves (a row): Accelergy 0.4's
#: `width`, Timeloop 0.3's `memory_width`;
WIDTH_KEYS = ("width", "memory_width")
#: of the bits of one word: Accelergy 0.4's `datawidth`, Timeloop 0.3's `word_bits`;
WORD_KEYS = ("datawidth", "word_bits", "word-bits")
#: and of the words of one row, read only when no width is given (Timeloop's `block-size`).
BLOCK_KEYS = ("block_size", "block-size")
#: The largest width taken, in bits.
LARGEST_WIDTH_BITS = 2**60


def component_of(name: str) -> str | None:
    """The component an ERT/ART entry name maps onto (`ENTRY_NAMES`), or None."""
    leaf = base_name(name).rsplit(".", 1)[-1].lower()
    for component, words in ENTRY_NAMES:
        if any(word in leaf for word in words):
            return component
    return None


def base_name(name: Any) -> str:
    """An Accelergy component name without its instance ranges (`a.b[0..3].c[1..1]` is
    `a.b.c`), as Accelergy matches ERT entries to components."""
    return re.sub(r"\[[^\]]*\]", "", str(name))


def entry_names_text() -> str:
    """The words of `ENTRY_NAMES` as one line: `mac -> mac; adder -> adder; ...`."""
    return "; ".join(f"{', '.join(words)} -> {component}" for component, words in ENTRY_NAMES)


def _value(value: Any, source: str, key: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"expected a number, got {value!r}", source, key)
    if (isinstance(value, float) and not math.isfinite(value)) or value < 0:
        raise InputError(f"must be a non-negative finite number, got {value}", source, key)
    if value > LARGEST_NUMBER:  # compared exactly: a huge YAML integer is no float
        raise InputError("too large (at most 1e30)", source, key)
    return Fraction(str(value))


def _tables(data: dict[str, Any], top: str, source: str) -> list[tuple[str, dict[str, Any]]]:
    """(key path, entry) of each table of ERT/ART (`tables:`) or of their `_summary` forms
    (`table_summary:`)."""
    out = []
    for name, inner in ((top, "tables"), (f"{top}_summary", "table_summary")):
        if name not in data:
            continue
        block = data[name]
        if not isinstance(block, dict):
            raise InputError(f"expected a mapping with '{inner}:', a list of entries", source, name)
        # the other form's key is accepted too, as tenet always did
        key = next((k for k in (inner, "tables", "table_summary") if k in block), inner)
        if key not in block:
            raise InputError(
                f"missing: Accelergy's {name} lists its entries here", source, f"{name}.{key}"
            )
        tables = block[key]
        if not isinstance(tables, list):
            raise InputError("expected a list of tables", source, f"{name}.{key}")
        for n, entry in enumerate(tables):
            if not isinstance(entry, dict) or "name" not in entry:
                raise InputError("expected a table with a name", source, f"{name}.{key}[{n}]")
            out.append((f"{name}.{key}[{n}]", entry))
    return out


def _action(entry: dict[str, Any], names: tuple[str, ...], source: str, key: str):
    """(energy, action name, key path) of the first action of `names` the entry has."""
    actions = entry.get("actions") or []
    if not isinstance(actions, list):
        raise InputError("expected a list of actions", source, f"{key}.actions")
    found = {}
    for n, action in enumerate(actions):
        if isinstance(action, dict) and "name" in action:
            found.setdefault(str(action["name"]), (n, action))
    for name in names:
        if name in found:
            n, action = found[name]
            path = f"{key}.actions[{n}].energy"
            if "energy" not in action:
                raise InputError("missing energy", source, path)
            return _value(action["energy"], source, path), name, path
    return None


# --- widths: the attributes of an entry -----------------------------------------------------

#: Attributes of one component and their key path: [(mapping, path), ...] in the order read.
Attributes = list[tuple[dict[str, Any], str]]


def _attribute_map(raw: Any, source: str, path: str) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise InputError(f"expected a mapping, got {type(raw).__name__}", source, path)
    return raw


def _flattened(data: dict[str, Any], source: str) -> dict[str, tuple[dict[str, Any], str]]:
    """Attributes of each component of the flattened architecture in the file (Accelergy's
    flattened_architecture.yaml: `architecture: {local: [{name, attributes}]}`), by name
    without ranges; empty when the file has none."""
    if "architecture" not in data:
        return {}
    block = data["architecture"]
    local = block.get("local") if isinstance(block, dict) else None
    if not isinstance(local, list):
        raise InputError(
            "expected Accelergy's flattened architecture (a list of components with name and "
            "attributes, as in flattened_architecture.yaml)",
            source,
            "architecture.local",
        )
    out: dict[str, tuple[dict[str, Any], str]] = {}
    for n, component in enumerate(local):
        path = f"architecture.local[{n}]"
        if not isinstance(component, dict) or "name" not in component:
            raise InputError("expected a component with a name", source, path)
        attributes = _attribute_map(component.get("attributes"), source, f"{path}.attributes")
        out.setdefault(base_name(component["name"]), (attributes, f"{path}.attributes"))
    return out


def _bits(attributes: Attributes, keys: tuple[str, ...], source: str) -> tuple[int, str] | None:
    """(value, key path) of the first of `keys` found (each mapping in turn), a positive
    whole number; None when none has one."""
    for mapping, path in attributes:
        for key in keys:
            if key not in mapping:
                continue
            value, where = mapping[key], f"{path}.{key}"
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InputError(f"expected a positive whole number, got {value!r}", source, where)
            if value > LARGEST_WIDTH_BITS:
                raise InputError(f"too large: {value} (at most 2**60)", source, where)
            return value, where
    return None


def row_width(
    attributes: Attributes, word_bits: int, source: str
) -> tuple[int | None, int | None, str]:
    """(bits one access moves, bits of one word, how they were read) from an entry's
    attributes: `width` (or `memory_width`); without one, `block_size` words of `datawidth`
    (or of the arch's `word_bits`) bits. (None, None, "") when nothing gives the width."""
    word = _bits(attributes, WORD_KEYS, source)
    width = _bits(attributes, WIDTH_KEYS, source)
    if width is not None:
        why = f"{width[1]} = {width[0]} bits"
        return width[0], word[0] if word else None, why
    block = _bits(attributes, BLOCK_KEYS, source)
    if block is None:
        return None, word[0] if word else None, ""
    bits, of = (word[0], word[1]) if word else (word_bits, "the arch's memory.word_bits")
    return block[0] * bits, bits, f"{block[1]} = {block[0]} words x {bits} bits ({of})"


# --- the ERT/ART reader ---------------------------------------------------------------------


def _accelergy(
    data: dict[str, Any], source: str, word_bits: int, base_width: Fraction
) -> tuple[dict[str, Quantity], list[str]]:
    """(component fields, warnings) of an ERT/ART file; `base_width` is the scratchpad
    width the arch already has."""
    values: dict[str, Quantity] = {}
    warnings: list[str] = []
    mapped: list[str] = []

    def put(field: str, value: Fraction, unit: str, why: str) -> None:
        values.setdefault(field, Quantity(value, unit, f"{source}: {why}"))

    ert, art = _tables(data, "ERT", source), _tables(data, "ART", source)
    flattened = _flattened(data, source)
    art_attributes: dict[str, tuple[dict[str, Any], str]] = {}
    for key, entry in art:
        if "attributes" in entry:
            attributes = _attribute_map(entry["attributes"], source, f"{key}.attributes")
            art_attributes.setdefault(base_name(entry["name"]), (attributes, f"{key}.attributes"))

    def attributes_of(key: str, entry: dict[str, Any]) -> Attributes:
        """The entry's own attributes, then its ART entry's, then the flattened arch's."""
        own = _attribute_map(entry.get("attributes"), source, f"{key}.attributes")
        name = base_name(entry["name"])
        found = [(own, f"{key}.attributes")]
        found += [lookup[name] for lookup in (art_attributes, flattened) if name in lookup]
        return found

    seen: dict[tuple[str, str], str] = {}
    for key, entry in ert:
        component = component_of(entry["name"])
        if component is None or seen.setdefault((component, "ERT"), key) != key:
            continue
        mapped.append(f"{entry['name']} ({component})")
        label = f"ERT entry {entry['name']}"
        if component in ("mac", "adder"):
            hit = _action(entry, COMPUTE_ACTIONS, source, key)
            warnings += _variants(entry, hit, label, source)
            if hit:
                put(f"{component}_energy_pj", hit[0], "pJ", f"{label}, action {hit[1]}")
        elif component == "wire":
            # not read: Accelergy prices one transfer of the wire's whole width over its
            # length, and the ERT records neither, so no pJ/bit/mm follows from it
            continue
        elif component == "dram":
            hit = _action(entry, READ_ACTIONS, source, key)
            warnings += _variants(entry, hit, label, source)
            if hit:
                width, _, why = row_width(attributes_of(key, entry), word_bits, source)
                if width is None:
                    width, why = DRAM_WIDTH_BITS, f"{DRAM_WIDTH_BITS} bits (no width given)"
                why = f"{label}, action {hit[1]} / width ({why})"
                put("dram_pj_per_bit", hit[0] / width, "pJ/bit", why)
        else:
            read = _action(entry, READ_ACTIONS, source, key)
            write = _action(entry, WRITE_ACTIONS, source, key)
            warnings += _variants(entry, read, label, source) + _variants(
                entry, write, label, source
            )
            if read:
                put(f"{component}_read_pj", read[0], "pJ", f"{label}, action {read[1]}")
            if write:
                put(f"{component}_write_pj", write[0], "pJ", f"{label}, action {write[1]}")
            if component == "scratchpad" and (read or write):
                warnings += _scratchpad_width(
                    attributes_of(key, entry), label, source, word_bits, base_width, put
                )
    for key, entry in art:
        component = component_of(entry["name"])
        if component is None or component in ("dram", "wire"):
            continue
        if seen.setdefault((component, "ART"), key) != key:
            continue
        mapped.append(f"{entry['name']} ({component})")
        if "area" not in entry:
            raise InputError("missing area", source, f"{key}.area")
        area = _value(entry["area"], source, f"{key}.area")
        put(f"{component}_area_um2", area, "um2", f"ART entry {entry['name']}")
    if not values:
        _nothing_read(ert + art, mapped, source)
    return values, warnings


def _variants(entry: dict[str, Any], hit, label: str, source: str) -> list[str]:
    """A warning when the entry lists the action read several times with different
    energies (Accelergy 0.3 ERTs list one per set of arguments): the first is taken."""
    if hit is None:
        return []
    same = [a for a in entry["actions"] if isinstance(a, dict) and str(a.get("name")) == hit[1]]
    if len({str(a.get("energy")) for a in same}) < 2:
        return []
    message = (
        f"{source}: {label} lists action {hit[1]} {len(same)} times with different arguments "
        f"and energies; the first one listed ({float(hit[0]):g} pJ) is taken: keep the one "
        "that stands for an access, or give a components: table"
    )
    return [message]


def _scratchpad_width(
    attributes: Attributes,
    label: str,
    source: str,
    word_bits: int,
    base_width: Fraction,
    put: Callable[[str, Fraction, str, str], None],
) -> list[str]:
    """Put the scratchpad's row width read from its attributes; the warnings: a word that
    is not the arch's, or no width at all while the arch's scratchpad moves one word."""
    width, word, why = row_width(attributes, word_bits, source)
    if width is None:
        if base_width != word_bits:
            return []  # the arch's own row width stays: docs/components.md
        message = (
            f"{source}: {label} gives no width, so its read and write pJ are charged per "
            f"{word_bits}-bit word; if one access reads a wider row (64 or 256 bits in "
            "Accelergy's example global buffers), the scratchpad energy is width/"
            f"{word_bits} times too high: give the entry attributes: {{width: BITS, "
            "datawidth: BITS}, or append Accelergy's flattened_architecture.yaml to the file"
        )
        return [message]
    put("scratchpad_width_bits", Fraction(width), "bits", f"{label}, {why}")
    if word is None or word == word_bits:
        return []
    message = (
        f"{source}: {label} holds {word}-bit words (datawidth) but the arch's are {word_bits} "
        f"bits (memory.word_bits): its {width}-bit row is priced as {Fraction(width, word_bits)} "
        "of the arch's words"
    )
    return [message]


def _nothing_read(entries: list[tuple[str, dict[str, Any]]], mapped: list[str], source: str):
    """Refuse a file that gave no value, saying why: no name matched, or the entries that
    matched have none of the actions read."""
    if mapped:
        raise InputError(
            f"no value read: of the entries that map onto a component ({', '.join(mapped)}), "
            "wire entries are not read and the others have none of the actions read "
            "(docs/components.md)",
            source,
        )
    names = [str(entry["name"]) for _, entry in entries]
    shown = ", ".join(names[:4]) + (", ..." if len(names) > 4 else "")
    raise InputError(
        "no entry maps onto a component: the last part of an entry's name (without its "
        f"ranges) must contain one of {entry_names_text()} (wire entries are not read), and "
        f"none of the file's entries ({shown}) does; rename the entry that stands for one of "
        "these components, or give a components: table",
        source,
    )


def load_components(path: str | Path, arch: Arch) -> Components:
    """The arch's components with every value the file gives put in their place."""
    return import_components(path, arch)[0]


def import_components(path: str | Path, arch: Arch) -> tuple[Components, list[str]]:
    """(the arch's components with every value the file gives put in their place, the
    warnings of the import, one line each)."""
    source = str(path)
    data = load_yaml(path, "components file")
    if "components" in data:
        return _table(data, arch, source), []
    if not any(k in data for k in ("ERT", "ART", "ERT_summary", "ART_summary")):
        raise InputError(
            "expected an Accelergy ERT/ART (top-level ERT: or ART:) or a table "
            "(top-level components:)",
            source,
        )
    base = arch.components
    if base is None:
        base = technology_components(45, arch.memory.word_bits, default_scratchpad_bytes(arch))
    values, warnings = _accelergy(
        data, source, arch.memory.word_bits, base.scratchpad_width_bits.value
    )
    return _with_pitch(replace(base, **values), values), warnings


def _table(data: dict[str, Any], arch: Arch, source: str) -> Components:
    """The components of a `components:` table (with `technology:`, a whole new set)."""
    extra = set(data) - {"components", "technology"}
    if extra:
        raise InputError(
            "a components table has only 'components:' (and 'technology:')",
            source,
            min(extra),
        )
    parsed = parse_components(
        data.get("technology"),
        data["components"],
        arch.memory.word_bits,
        arch.memory.l2_words,
        source,
        tuple(level.name for level in arch.levels),
        arch.levels[0].capacity_words if arch.levels else None,
    )
    if not data["components"]:
        raise InputError("no component values in the table", source, "components")
    if arch.components is None or "technology" in data:
        return parsed
    given = {
        f.name: getattr(parsed, f.name)
        for f in fields(parsed)
        if isinstance(getattr(parsed, f.name), Quantity)
        and getattr(parsed, f.name).source.startswith(f"{source}:")
    }
    given.update(_resized_scratchpad(arch.components, given, source))
    return _with_pitch(replace(arch.components, **given), given)


def default_scratchpad_bytes(arch: Arch) -> int:
    """The scratchpad size the library prices by default: levels[0]'s capacity when the
    arch has memory levels (levels[0] is the scratchpad), else memory.l2_words, times
    word_bits / 8 (refused when the arch gives no scratchpad size: l2_words is 0)."""
    if arch.levels:
        return arch.levels[0].capacity_words * arch.memory.word_bits // 8
    size = arch.memory.l2_words * arch.memory.word_bits // 8
    if size < 1:
        raise InputError(
            "the scratchpad has no size (memory.l2_words is 0): set memory.l2_words, or give "
            "components.scratchpad.size_bytes in the arch",
            arch.source,
            "memory.l2_words",
        )
    return size


def _resized_scratchpad(
    base: Components, given: dict[str, Quantity], source: str
) -> dict[str, Quantity]:
    """When a table changes the scratchpad's size or width but not its energies and area,
    those of the arch's node at the new size and width (the table's own values win)."""
    if "scratchpad_size_bytes" not in given and "scratchpad_width_bits" not in given:
        return {}
    priced = ("scratchpad_read_pj", "scratchpad_write_pj", "scratchpad_area_um2")
    if all(key in given for key in priced):
        return {}
    if base.node_nm is None:
        raise InputError(
            "the arch's scratchpad values come from a file with no technology node: give "
            "read_pj, write_pj and area_um2 with the new size or width",
            source,
            "components.scratchpad",
        )
    size = given.get("scratchpad_size_bytes", base.scratchpad_size_bytes)
    width = given.get("scratchpad_width_bits", base.scratchpad_width_bits)
    values = scratchpad_values(
        base.node_nm, int(size.value), int(width.value), size.source, width.source
    )
    return {key: values[key] for key in priced if key not in given}


def _with_pitch(merged: Components, given: dict[str, Quantity]) -> Components:
    """Recompute a derived PE pitch (sqrt of the PE area) when an area it rests on changed."""
    derived = merged.pe_pitch_um.source.startswith("sqrt(")
    if derived and ("mac_area_um2" in given or "register_area_um2" in given):
        return replace(merged, pe_pitch_um=pe_pitch(merged.mac_area_um2, merged.register_area_um2))
    return merged
