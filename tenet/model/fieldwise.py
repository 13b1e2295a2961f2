"""The one add-by-field mixin of the model's results (`Accesses`, `SideVolumes`,
`TensorActions`, `EnergyParts`, `AreaParts`)."""

from __future__ import annotations

from dataclasses import fields
from typing import Any


class Fieldwise:
    """For dataclasses of numbers: `a + b` adds field by field (a_f + b_f), `n * a` scales
    every field (n runs of the same work); `to_dict()` gives every field by name."""

    def __add__(self, other: Any) -> Any:
        if type(other) is not type(self):
            return NotImplemented
        return type(self)(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def __rmul__(self, factor: int) -> Any:
        return type(self)(*(factor * getattr(self, f.name) for f in fields(self)))

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}
