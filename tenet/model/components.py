"""Component energies and areas with units and sources: what one action of each part of a
design costs (pJ) and what one instance of it occupies (µm²).

`Components` is the interface the cost model reads (`tenet.model.cost`); the built-in
technology library and the arch YAML keys `technology:` and `components:` produce it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from fractions import Fraction
from typing import Any


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
