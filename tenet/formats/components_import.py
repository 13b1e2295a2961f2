"""`--components FILE`: component energies and areas from another tool's tables.

Two formats:

* Accelergy's energy and area reference tables (ERT / ART, also their `_summary` forms),
  one file or both in one: `ERT: {tables: [{name, actions: [{name, energy}]}]}` and
  `ART: {tables: [{name, area}]}`, energies in pJ per action and areas in um2. An entry
  maps onto a component by the last part of its name (`system_top_level.mac[1..256]` is
  `mac`): a MAC (`mac`), a register (`reg`, `regfile`), the scratchpad (`glb`,
  `global_buffer`, `sram`, `scratchpad`, `shared`), DRAM (`dram`), a wire (`wire`), an adder
  (`adder`). The first entry that maps onto a component gives it; the rest are not read.
* A simple table: a YAML mapping `components:` with the keys of the arch's `components:`
  (docs/components.md), e.g. `components: {mac: {energy_pj: 0.5, area_um2: 400}}`.

Values the file does not give keep the arch's (or, for an arch without components, the
45 nm library's). Each value's source names the file and the entry it came from.
"""

from __future__ import annotations

import math
import re
from dataclasses import fields, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from tenet.errors import InputError
from tenet.model.arch import Arch
from tenet.model.components import (
    Components,
    Quantity,
    parse_components,
    pe_pitch,
    scratchpad_values,
    technology_components,
)
from tenet.util.io import load_yaml

#: Name patterns (on the last part of an entry's name) of each component, tried in order.
PATTERNS: tuple[tuple[str, str], ...] = (
    ("mac", r"mac"),
    ("adder", r"adder"),
    ("register", r"reg|regfile"),
    ("dram", r"dram"),
    ("scratchpad", r"glb|global_?buffer|sram|scratchpad|shared"),
    ("wire", r"wire"),
)
#: ERT actions read for each role, first found wins (`leak` is never read).
COMPUTE_ACTIONS = ("compute", "mac_random", "mac", "multiply", "add", "read")
READ_ACTIONS = ("read", "random_read", "read_random")
WRITE_ACTIONS = ("write", "update", "random_write", "write_random")
#: Accelergy's DRAM actions move one `width` row; its examples use 64-bit DRAM.
DRAM_WIDTH_BITS = 64


def component_of(name: str) -> str | None:
    """The component an ERT/ART entry name maps onto, or None."""
    leaf = re.sub(r"\[[^\]]*\]", "", str(name)).rsplit(".", 1)[-1].lower()  # ranges anywhere
    for component, pattern in PATTERNS:
        if re.search(pattern, leaf):
            return component
    return None


def _value(value: Any, source: str, key: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"expected a number, got {value!r}", source, key)
    if not math.isfinite(value) or value < 0:
        raise InputError(f"must be a non-negative finite number, got {value}", source, key)
    return Fraction(str(value))


def _tables(data: dict[str, Any], top: str, source: str) -> list[tuple[str, dict[str, Any]]]:
    """(key path, entry) of each table of ERT/ART (or of their `_summary` forms)."""
    out = []
    for name in (top, f"{top}_summary"):
        if name not in data:
            continue
        block = data[name]
        inner = "tables" if isinstance(block, dict) and "tables" in block else "table_summary"
        tables = block.get(inner) if isinstance(block, dict) else None
        if not isinstance(tables, list):
            raise InputError("expected a list of tables", source, f"{name}.{inner}")
        for n, entry in enumerate(tables):
            if not isinstance(entry, dict) or "name" not in entry:
                raise InputError("expected a table with a name", source, f"{name}.{inner}[{n}]")
            out.append((f"{name}.{inner}[{n}]", entry))
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


def _accelergy(data: dict[str, Any], source: str) -> dict[str, Quantity]:
    """Component fields given by an ERT/ART file."""
    values: dict[str, Quantity] = {}

    def put(field: str, value: Fraction, unit: str, why: str) -> None:
        values.setdefault(field, Quantity(value, unit, f"{source}: {why}"))

    seen: dict[tuple[str, str], str] = {}
    for key, entry in _tables(data, "ERT", source):
        component = component_of(entry["name"])
        if component is None or seen.setdefault((component, "ERT"), key) != key:
            continue
        label = f"ERT entry {entry['name']}"
        if component in ("mac", "adder"):
            hit = _action(entry, COMPUTE_ACTIONS, source, key)
            if hit:
                put(f"{component}_energy_pj", hit[0], "pJ", f"{label}, action {hit[1]}")
        elif component == "wire":
            # not read: Accelergy prices one transfer of the wire's whole width over its
            # length, and the ERT records neither, so no pJ/bit/mm follows from it
            continue
        elif component == "dram":
            hit = _action(entry, READ_ACTIONS, source, key)
            if hit:
                why = f"{label}, action {hit[1]} / {DRAM_WIDTH_BITS} bits"
                put("dram_pj_per_bit", hit[0] / DRAM_WIDTH_BITS, "pJ/bit", why)
        else:
            read = _action(entry, READ_ACTIONS, source, key)
            write = _action(entry, WRITE_ACTIONS, source, key)
            if read:
                put(f"{component}_read_pj", read[0], "pJ", f"{label}, action {read[1]}")
            if write:
                put(f"{component}_write_pj", write[0], "pJ", f"{label}, action {write[1]}")
    for key, entry in _tables(data, "ART", source):
        component = component_of(entry["name"])
        if component is None or component in ("dram", "wire"):
            continue
        if seen.setdefault((component, "ART"), key) != key:
            continue
        if "area" not in entry:
            raise InputError("missing area", source, f"{key}.area")
        area = _value(entry["area"], source, f"{key}.area")
        put(f"{component}_area_um2", area, "um2", f"ART entry {entry['name']}")
    return values


def load_components(path: str | Path, arch: Arch) -> Components:
    """The arch's components with every value the file gives put in their place."""
    source = str(path)
    data = load_yaml(path, "components file")
    if "components" in data:
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
    if not any(k in data for k in ("ERT", "ART", "ERT_summary", "ART_summary")):
        raise InputError(
            "expected an Accelergy ERT/ART (top-level ERT: or ART:) or a table "
            "(top-level components:)",
            source,
        )
    values = _accelergy(data, source)
    if not values:
        raise InputError(
            "no entry maps onto a component (names containing mac, adder, reg, dram, glb/"
            "sram/buffer/scratchpad; wire entries are not read)",
            source,
        )
    base = arch.components
    if base is None:
        base = technology_components(45, arch.memory.word_bits, default_scratchpad_bytes(arch))
    return _with_pitch(replace(base, **values), values)


def default_scratchpad_bytes(arch: Arch) -> int:
    """memory.l2_words x word_bits / 8: the scratchpad size the library prices by default
    (refused when the arch gives no scratchpad size: l2_words is 0)."""
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
