"""Same-step links without free values (docs/topologies.md, "Same-step links").

Within one time step, a value reaches the PEs joined by window-0 forward links only from a
PE of that group that fetched it or held it from an earlier step. TENET's literal counting
lets each PE of a same-step cycle take a value from its neighbour, so a cycle needs no
fetch at all; here it needs one.

For one tensor side, take the triples (p, t, e) of A_D and draw an edge y -> x when x's PE
takes values from y's PE over a window-0 forward link in the same step t, for the same
element e. Every strongly connected component (SCC) of that graph that

* has more than one triple (a cycle),
* has no edge coming in from outside it (a source SCC), and
* has no triple supplied otherwise (the PE's own previous step, a link of an earlier step,
  a multicast group)

is *starved*: TENET counts none of its triples as fetched, yet one must be. Its lowest PE
(lexicographically) is charged the fetch. On acyclic same-step links there is no such
component, and the counts are TENET's.

The components come from the transitive closure of the edges: isl's when isl says it is
exact, else by squaring the relation until it stops growing (a finite graph). When neither
gives it, `starved_triples` says so and the caller keeps TENET's count (with its
`same_step_cycle` warning, which `compare` does not rank).
"""

from __future__ import annotations

from dataclasses import replace

import islpy as isl

from tenet.model.arch import Link
from tenet.model.relations import SpaceTime
from tenet.util.isl_util import simplify


def is_same_step_forward(link: Link) -> bool:
    """A forward link whose window holds 0: it may pass a value on within one step."""
    return link.kind == "forward" and 0 in link.window


def same_step_stamps(space_time: SpaceTime, links: list[Link]) -> isl.UnionMap | None:
    """{ (p, t) -> (p', t) : p' ∈ link(p), p' ≠ p } over the window-0 forward links (receiver
    stamp -> sender stamp); None when no link passes values within a step."""
    out = None
    for link in links:
        if not is_same_step_forward(link):
            continue
        pairs = link.relation.intersect_domain(space_time.space_domain)
        pairs = pairs.subtract(space_time.pe_domain.identity())
        stamps = pairs.product(space_time.time_domain.identity())
        out = stamps if out is None else out.union(stamps)
    return None if out is None else simplify(out)


def other_supply(link: Link) -> Link | None:
    """The part of a link that supplies values otherwise than within one step: its windows
    but 0 (a multicast link whole, its groups being supply); None when only 0 is left."""
    windows = tuple(w for w in link.window if w != 0 or link.kind == "multicast")
    return replace(link, window=windows) if windows else None


def cycle_pes(links: list[Link]) -> isl.UnionSet:
    """The PEs on a cycle of the window-0 forward links among `links` (empty: none). The PE
    graph is small; its closure is exact (`closure`), or taken as a cycle when unknown."""
    pairs = None
    for link in links:
        if is_same_step_forward(link):
            pairs = link.relation if pairs is None else pairs.union(link.relation)
    if pairs is None:
        return isl.UnionSet("{ }")
    pairs = pairs.subtract(pairs.domain().identity())
    reach = closure(pairs)
    if reach is None:  # not found exactly: assume a cycle (the groups are counted exactly)
        return pairs.domain()
    return reach.intersect(reach.domain().identity()).domain()


def has_same_step_cycle(links: list[Link]) -> bool:
    """Whether the PEs' window-0 forward links form a cycle (the only case where a
    starved component can exist); found once per set of links (by their kind, window and
    relation text) per process."""
    key = tuple((link.kind, link.window, str(link.relation)) for link in links)
    found = _CYCLES.get(key)
    if found is None:
        if len(_CYCLES) >= 64:
            _CYCLES.clear()
        found = _CYCLES[key] = not cycle_pes(links).is_empty()
    return found


_CYCLES: dict[tuple, bool] = {}


#: Squarings tried before giving up on a closure (paths of up to 2**MAX_SQUARINGS edges).
MAX_SQUARINGS = 24


def closure(edges: isl.UnionMap) -> isl.UnionMap | None:
    """The transitive closure of `edges`, exactly: isl's when isl reports it exact, else by
    squaring (R, R ∪ R;R, ...) until it stops growing, which it does on a finite graph;
    None when it has not after MAX_SQUARINGS squarings."""
    reach, exact = edges.transitive_closure()
    if exact:
        return reach
    reach = edges
    for _ in range(MAX_SQUARINGS):
        longer = simplify(reach.union(reach.apply_range(reach)))
        if longer.is_equal(reach):
            return reach
        reach = longer
    return None


def starved_triples(
    assignment: isl.UnionMap, same_step: isl.UnionMap, supplied: isl.UnionMap
) -> isl.UnionMap | None:
    """The triples charged a fetch because their component of same-step holders is starved
    (module docstring), as a relation [PE -> T] -> element like `assignment` (A_D);
    `supplied` ⊆ A_D holds the triples with some other supply. None when the closure of
    the same-step edges cannot be computed exactly (the components are then unknown)."""
    triples = assignment.wrap()
    elements = assignment.range().identity()
    # x -> y: y supplies x over a same-step link (same t, same element, both hold it)
    takes_from = same_step.product(elements).intersect_domain(triples).intersect_range(triples)
    if takes_from.is_empty():
        return assignment.subtract(assignment)
    reach = closure(takes_from)
    if reach is None:
        return None
    same_component = simplify(reach.intersect(reach.reverse()))
    members = same_component.domain()
    fed_from_outside = takes_from.subtract(same_component).domain()
    tainted = fed_from_outside.union(supplied.wrap().intersect(members))
    tainted_components = same_component.intersect_range(tainted).domain().union(tainted)
    lower_member = same_component.intersect(triples.lex_gt_union_set(triples))
    representatives = members.subtract(lower_member.domain()).subtract(tainted_components)
    return simplify(representatives.unwrap())
