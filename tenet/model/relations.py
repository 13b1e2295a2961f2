"""The relations of the relation-centric model (docs/metrics.md), each built once.

Space-time stamps are wrapped pairs ``[PE[p] -> T[t]]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import islpy as isl

from tenet.model.arch import Arch, Link
from tenet.model.dataflow import BoundDataflow
from tenet.model.workload import Workload
from tenet.util.isl_util import simplify


def time_predecessor(time_domain: isl.UnionSet) -> isl.UnionMap:
    """prev = { t -> t' : t' is the lexicographically largest used stamp below t }."""
    return simplify(time_domain.lex_gt_union_set(time_domain).lexmax())


def time_window(distance: int, time_domain: isl.UnionSet, prev: isl.UnionMap) -> isl.UnionMap:
    """{ t -> prev^distance(t) } inside the used time domain (distance 0 is the identity)."""
    rel = time_domain.identity()
    for _ in range(distance):
        rel = rel.apply_range(prev)
    return rel


@dataclass
class SpaceTime:
    """Θ applied to the workload: stamps, used domains and the time predecessor."""

    space_map: isl.UnionMap  # S[n] -> PE[p]
    time_map: isl.UnionMap  # S[n] -> T[t]
    pe_domain: isl.UnionSet
    # `simplify` the link and spatial relations (and, in `count_volumes`, each M;A_D): the
    # points are the same either way; generated candidates count faster without (measured)
    simplify_relations: bool = True
    stamp_map: isl.UnionMap = field(init=False)  # S[n] -> [PE[p] -> T[t]]
    stamp_to_instance: isl.UnionMap = field(init=False)  # [PE[p] -> T[t]] -> S[n]
    space_domain: isl.UnionSet = field(init=False)  # P_used
    time_domain: isl.UnionSet = field(init=False)  # T_used
    stamp_domain: isl.UnionSet = field(init=False)  # ST
    prev: isl.UnionMap = field(init=False)  # t -> prev(t)
    _windows: dict[int, isl.UnionMap] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.stamp_map = simplify(self.space_map.range_product(self.time_map))
        self.stamp_to_instance = self.stamp_map.reverse()
        self.space_domain = simplify(self.space_map.range())
        self.time_domain = simplify(self.time_map.range())
        self.stamp_domain = simplify(self.stamp_map.range())
        self.prev = time_predecessor(self.time_domain)

    @classmethod
    def of(cls, bound: BoundDataflow, arch: Arch, simplify_relations: bool = True) -> SpaceTime:
        return cls(bound.space_map, bound.time_map, arch.pe_domain, simplify_relations)

    def tidy(self, relation: isl.UnionMap) -> isl.UnionMap:
        """`simplify` of a relation when `simplify_relations`, else the relation as it is."""
        return simplify(relation) if self.simplify_relations else relation

    def window(self, distance: int) -> isl.UnionMap:
        """{ t -> prev^distance(t) }, cached."""
        if distance not in self._windows:
            self._windows[distance] = simplify(time_window(distance, self.time_domain, self.prev))
        return self._windows[distance]

    def windows(self, distances: tuple[int, ...]) -> isl.UnionMap:
        rel = None
        for d in distances:
            rel = self.window(d) if rel is None else rel.union(self.window(d))
        return rel

    def data_assignment(self, access: isl.UnionMap) -> isl.UnionMap:
        """A_D = Θ^{-1} ; A: the tensor elements each stamp [PE[p] -> T[t]] touches."""
        return simplify(self.stamp_to_instance.apply_range(access))

    def link_reuse(self, link: Link, exclude_self: bool = False) -> isl.UnionMap:
        """{ (p,t) -> (p',t') : p' ∈ link(p), t' ∈ prev^w(t), w ∈ window } (p ≠ p' if exclude_self).

        For a multicast group at w = 0 only senders p' lexicographically below p count.
        """
        rel = link.relation.intersect_domain(self.space_domain)
        if exclude_self:
            rel = rel.subtract(self.pe_domain.identity())
        if link.kind != "multicast":
            return rel.product(self.windows(link.window))
        lower = rel.intersect(self.pe_domain.lex_gt_union_set(self.pe_domain))
        parts = [(lower if w == 0 else rel).product(self.window(w)) for w in link.window]
        out = parts[0]
        for part in parts[1:]:
            out = out.union(part)
        return out

    def temporal_relation(self) -> isl.UnionMap:
        """M_t = { (p,t) -> (p, prev(t)) }: a PE's own previous step."""
        return simplify(self.space_domain.identity().product(self.prev))

    def link_relation(self, link: Link) -> isl.UnionMap:
        """M_l = link_reuse(link) \\ identity; M = M_t ∪ ⋃_l M_l is TENET's reuse relation."""
        return self.tidy(self.link_reuse(link).subtract(self.stamp_domain.identity()))

    def spatial_relation(self, links: list[Link]) -> isl.UnionMap:
        """M_x = ⋃_l { (p,t) -> (p',t') : p' ∈ link_l(p) \\ {p}, t' ∈ window_l(t) }."""
        rel = isl.UnionMap.empty(self.stamp_map.get_space().params())
        for link in links:
            rel = rel.union(self.link_reuse(link, exclude_self=True))
        return self.tidy(rel)


def program_order(workload: Workload) -> isl.UnionMap:
    """{ s -> s' : s runs before s' in the original program }: by the statements' own
    schedules when they have them (imported loop nests), else in list order."""
    if workload.has_program_order():
        schedule = workload.program_schedule()
        return schedule.lex_lt_union_map(schedule)
    names = [name for name, _ in workload.statements]
    order = None
    for a, first in enumerate(names):
        dom_a = workload.statement_domains[first]
        rel = dom_a.lex_lt_union_set(dom_a)
        for second in names[a + 1 :]:
            rel = rel.union(
                isl.UnionMap.from_domain_and_range(dom_a, workload.statement_domains[second])
            )
        order = rel if order is None else order.union(rel)
    return order


def pe_conflict_chains(stamp: isl.UnionMap, order: isl.UnionMap, macs_per_pe: int) -> isl.UnionMap:
    """Chains s_0 < s_1 < ... < s_m of distinct instances sharing one stamp (m = macs_per_pe):
    their first elements map to their last."""
    same_stamp = stamp.apply_range(stamp.reverse()).intersect(order)
    chain = same_stamp
    for _ in range(macs_per_pe - 1):
        chain = chain.apply_range(same_stamp)
    return chain
