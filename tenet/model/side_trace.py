"""The sets counting builds for one tensor side (`SideTrace`), kept for the cost model:
`tenet.model.counting` fills them (with a write side's exits, counted there), and
`tenet.model.cost.count_actions` counts the wire actions from them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import islpy as isl

from tenet.util.isl_util import simplify


@dataclass
class SideTrace:
    """The sets `count_volumes` builds for one tensor side (filled by it, as it counts)."""

    assignment: isl.UnionMap | None = None  # A_D: stamp -> element
    unique: isl.UnionMap | None = None  # A_D \ (M ; A_D)
    temporal: isl.UnionMap | None = None  # M_t
    links: dict[int, tuple[isl.UnionMap, isl.UnionMap, isl.UnionMap]] = field(
        default_factory=dict
    )  # link index -> (triples unserved before it, the triples its senders hold, M_l)
    exits: isl.UnionMap | None = None  # write sides: `exits(trace)`, counted by counting
    exit_count: Any = None  # |exits| (write sides)

    def delivered(self, index: int) -> isl.UnionMap:
        """The triples link `index` serves (its `carried` values)."""
        before, reach, _ = self.links[index]
        return simplify(before.intersect(reach))

    def sent(self, relation: isl.UnionMap) -> isl.UnionMap:
        """A_D ∩ (relation⁻¹ ; A_D): the triples some receiver of `relation` takes on."""
        return simplify(self.assignment.intersect(relation.reverse().apply_range(self.assignment)))


def exits(trace: SideTrace) -> isl.UnionMap:
    """Write sides: A_D \\ (A_D ∩ ((M_t ∪ ⋃_l M_l)⁻¹ ; A_D)), the triples no triple takes on
    (not the PE's own next step, not a receiver of a link serving the side): where a
    partial sum leaves the array; and `cycle_exits`, so every element leaves once at least."""
    onward = trace.temporal
    for _, _, rel in trace.links.values():
        onward = onward.union(rel)
    left = trace.assignment.subtract(trace.sent(onward))
    return left.union(cycle_exits(trace.assignment, left))


def cycle_exits(assignment: isl.UnionMap, left: isl.UnionMap) -> isl.UnionMap:
    """The exit of each element whose every triple is taken on by another (a same-step cycle
    of links passes it round within one step): its triple at the largest (step, PE), where
    its value leaves the array (empty when every element has an exit)."""
    missing = assignment.range().subtract(left.range())
    if missing.is_empty():
        return isl.UnionMap.empty(assignment.get_space())
    last = assignment.intersect_range(missing).reverse().range_reverse().lexmax()
    return last.range_reverse().reverse()
