"""Exact evaluation of many generated candidates of one workload on one array, sharing the work
that does not depend on the candidate.

`tenet.model.metrics.analyze` counts one dataflow from scratch. The candidates of the design
space (`tenet.explore.dse`) share their workload and arch, so per (workload, arch) this module
counts once: the instances, the total accesses |A| of every tensor side, the flow dependences
and the warnings that depend only on the arch and the workload. Per candidate it counts what
depends on the candidate with the model's own functions (`SpaceTime`, `count_volumes`,
`step_counts`), so every number equals `analyze`'s (tests/explore/test_dse_fast.py compares
them). A tensor side's counts are made once per reuse relation and data assignment up to the
order of its element coordinates (`unique_volumes`), so candidates related by a symmetry of
the workload share them.

Legality of a generated candidate: its space and time maps are quasi-affine expressions of the
instance, so they are functions on the domain; its PE coordinates are `(x - low) % size`, or
`x - low` for a loop no longer than its axis, so it stays inside the box hull of the array
(a space map whose used PEs leave an array that is not a box is illegal: `outside_array`,
checked once per space map); and its
stamp determines the instance (every loop is either a PE coordinate, a time dimension, or
`size·floor(x/size) + x % size` of a tile dimension and a PE coordinate), so no (PE, step)
holds two instances. The one check left is the order of the flow dependences, done here as
`validate` does it. `explore` runs the full `validate` and `analyze` again on every front
member, so the front it reports is the plain model's.
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import islpy as isl

from tenet.analysis.validate import flow_dependences
from tenet.explore.objectives import SPATIAL_OBJECTIVES
from tenet.explore.prune import FloorBasis, PartialFloor
from tenet.explore.renaming import LoopRenaming, candidate_key
from tenet.explore.space import Candidate
from tenet.model.arch import Arch
from tenet.model.assemble import assemble
from tenet.model.checks import fixed_warnings, outside_facts
from tenet.model.counts import Counts
from tenet.model.metrics import Analysis, Volumes, count_volumes, links_for
from tenet.model.relations import SpaceTime, time_predecessor
from tenet.model.same_step import has_same_step_cycle, other_supply
from tenet.model.schedule_time import per_step_words, step_counts
from tenet.model.workload import SIDES, Workload
from tenet.util.isl_util import count, parse_union_map, simplify


@dataclass
class SharedWork:
    """What every candidate of one (workload, arch) shares: counted once per process."""

    workload: Workload
    arch: Arch
    instances: int
    totals: dict[int, int]  # id(access relation) -> |A|
    dependences: isl.UnionMap  # flow dependences, source -> sink (reductions free)
    fixed_warnings: list[str]  # the warnings that do not depend on the dataflow
    relations: dict[tuple[str, str], Any] = field(default_factory=dict)  # StampRelations
    spaces: dict[str, isl.UnionMap] = field(default_factory=dict)  # space text -> map on D
    # see unique_volumes: (unique, spatial reuse, exits, temporal_unique)
    counts: dict[tuple, tuple[int, int | None, int | None, int | None]] = field(
        default_factory=dict
    )
    ranges: dict[int, tuple[isl.UnionMap, isl.UnionSet]] = field(default_factory=dict)
    renamed_counts: dict[tuple, tuple[int, ...]] = field(default_factory=dict)
    stamp_sizes: dict[tuple, tuple[int, int]] = field(default_factory=dict)  # see analyze_renamed
    outsides: dict[str, tuple[int, str]] = field(default_factory=dict)  # see outside_facts
    functions: dict[int, tuple[isl.UnionMap, bool]] = field(default_factory=dict)  # id(access)
    _basis: Any = None
    _renaming: Any = False  # False: not looked at yet
    _same_step: bool | None = None  # None: not looked at yet

    @classmethod
    def of(cls, workload: Workload, arch: Arch) -> SharedWork:
        totals = {}
        for tensor in workload.tensors:
            for side in SIDES:
                access = workload.access(tensor, side)
                if access is not None:
                    totals[id(access)] = count(access)
        instances = count(workload.domain)
        return cls(
            workload,
            arch,
            instances,
            totals,
            flow_dependences(workload),
            fixed_warnings(arch, workload),
        )

    def same_step_groups(self) -> bool:
        """Whether some tensor side's links form a same-step cycle under the arch's
        `same_step: groups` rule (its starved groups need the plain model's count)."""
        if self._same_step is None:
            arch = self.arch
            self._same_step = arch.same_step == "groups" and any(
                has_same_step_cycle([arch.links[n] for n in links_for(arch, tensor, side)])
                for tensor in self.workload.tensors
                for side in SIDES
                if self.workload.access(tensor, side) is not None
            )
        return self._same_step

    def floor_basis(self) -> FloorBasis:
        """The FloorBasis of this workload and arch (pruning's lower bounds), built once."""
        if self._basis is None:
            self._basis = FloorBasis.of(self)
        return self._basis

    def renaming(self) -> LoopRenaming | None:
        """The loops and access shapes `analyze_renamed` needs, or None when candidates equal
        up to a renaming of loops may not share counts: the domain is not one box, or the
        flow dependences are not empty (the order check then needs each candidate's maps)."""
        if self._renaming is False:
            self._renaming = LoopRenaming.of(self.workload, self.dependences)
        return self._renaming

    def single_valued(self, access: isl.UnionMap) -> bool:
        """The access relation maps each instance to one element (checked once per access)."""
        found = self.functions.get(id(access))
        if found is None or found[0] is not access:
            found = self.functions[id(access)] = (access, access.is_single_valued())
        return found[1]

    def outside_facts(self, text: str) -> tuple[int, str]:
        """(how many used PEs of a space map lie outside the PE domain, one of them as isl
        text): `outside_array`'s facts, found once per space map (0: all inside)."""
        if text not in self.outsides:
            used = self.space_range(self.space_map(text))
            self.outsides[text] = outside_facts(used, self.arch.pe_domain)
        return self.outsides[text]

    def space_map(self, text: str) -> isl.UnionMap:
        """The space map of `text` on the domain (few distinct ones: parsed once each)."""
        found = self.spaces.get(text)
        if found is None:
            if len(self.spaces) >= RELATIONS_KEPT:
                self.spaces.clear()
            found = self.spaces[text] = parse_union_map(text).intersect_domain(self.workload.domain)
        return found

    def space_range(self, space: isl.UnionMap) -> isl.UnionSet:
        """P_used = Θ_S(D) of a space map given by `space_map` (built once per space map)."""
        found = self.ranges.get(id(space))
        if found is None or found[0] is not space:
            if len(self.ranges) >= RELATIONS_KEPT:
                self.ranges.clear()
            found = self.ranges[id(space)] = (space, simplify(space.range()))
        return found[1]

    def size(self, obj: Any) -> int:
        """|obj|: the shared total when obj is one of the workload's access relations."""
        known = self.totals.get(id(obj))
        return count(obj) if known is None else known


_SHARED: dict[str, SharedWork] = {}


def shared_work(blob: bytes) -> SharedWork:
    """The SharedWork of the (workload, arch) pickled in `blob`, built once per process."""
    digest = hashlib.sha256(blob).hexdigest()
    if digest not in _SHARED:
        if len(_SHARED) > 4:
            _SHARED.clear()
        _SHARED[digest] = SharedWork.of(*pickle.loads(blob))
    return _SHARED[digest]


def forget_shared_work() -> None:
    """Drop every SharedWork of this process (its relations and counts are built again)."""
    _SHARED.clear()


def runs_in_order(shared: SharedWork, time: isl.UnionMap) -> bool:
    """No flow dependence source -> sink has time(sink) ⪯ time(source) (validate's
    `dependence` check): the pairs (time(source), time(sink)) are all lexicographically
    increasing."""
    if shared.dependences.is_empty():
        return True
    pairs = shared.dependences.apply_domain(time).apply_range(time)
    t_used = time.range()
    return pairs.intersect(t_used.lex_ge_union_set(t_used)).is_empty()


class Stamps:
    """Θ applied to the workload without the relations between stamps: what `SpaceTime`
    builds per dataflow, the part that differs between candidates."""

    def __init__(
        self,
        space: isl.UnionMap,
        time: isl.UnionMap,
        pe_domain: isl.UnionSet,
        space_domain: isl.UnionSet | None = None,
    ) -> None:
        self.pe_domain = pe_domain
        self.stamp_map = simplify(space.range_product(time))
        self.stamp_to_instance = self.stamp_map.reverse()
        self.space_domain = simplify(space.range()) if space_domain is None else space_domain
        self.time_domain = simplify(time.range())

    @property
    def stamp_domain(self) -> isl.UnionSet:
        """ST, the used (PE, time) stamps (built when asked: the search does not need it)."""
        return simplify(self.stamp_map.range())

    def data_assignment(self, access: isl.UnionMap) -> isl.UnionMap:
        """A_D = Θ^{-1} ; A (as `SpaceTime.data_assignment`)."""
        return simplify(self.stamp_to_instance.apply_range(access))


class StampRelations:
    """The reuse relations between stamps, M_t, M_l and M_x: they depend only on the used
    PEs P_used and the used time stamps T_used, so candidates with equal P_used and T_used
    share them.

    They are `SpaceTime`'s own relations, built on the box P_used × T_used in place of the
    stamps ST. Only M_l differs: it drops the pairs (s, s) for s in P_used × T_used rather
    than for s in ST; the extra pairs have s outside ST, where A_D is empty, so M_l ; A_D and
    every count made from it are the same."""

    def __init__(self, arch: Arch, space_domain: isl.UnionSet, time_domain: isl.UnionSet):
        box = SpaceTime.__new__(SpaceTime)  # SpaceTime's relations, on the box
        box.pe_domain = arch.pe_domain
        box.simplify_relations = False  # faster here, the same points (measured)
        box.space_domain = space_domain
        box.time_domain = time_domain
        pairs = isl.UnionMap.from_domain_and_range(space_domain, time_domain)
        box.stamp_map = pairs  # spatial_relation reads only its (parameter) space
        box.stamp_domain = pairs.wrap()
        box.prev = time_predecessor(time_domain)
        box._windows = {}
        self.box = box
        self.arch = arch
        self.temporal = box.temporal_relation()
        self.links = [box.link_relation(link) for link in arch.links]
        self._spatial: dict[tuple[int, ...], isl.UnionMap] = {}
        self._reuse: dict[tuple[int, ...], isl.UnionMap] = {}
        self._supply: dict[tuple[int, ...], isl.UnionMap] = {}
        self.key = (str(space_domain), str(time_domain))
        self.active_pes = count(space_domain)  # |P_used|
        self.time_steps = count(time_domain)  # |T_used|

    def reuse(self, links: tuple[int, ...]) -> isl.UnionMap:
        """M = M_t ∪ ⋃_l M_l over the links with these indices, built once."""
        if links not in self._reuse:
            rel = self.temporal
            for n in links:
                rel = rel.union(self.links[n])
            self._reuse[links] = rel  # simplify costs more than it saves here (measured)
        return self._reuse[links]

    def supply(self, links: tuple[int, ...]) -> isl.UnionMap:
        """M_t ∪ the links with these indices but their window 0 (a multicast link whole):
        what supplies a value other than a same-step forward link, built once."""
        if links not in self._supply:
            rel = self.temporal
            for n in links:
                part = other_supply(self.arch.links[n])
                if part is not None:
                    rel = rel.union(self.box.link_relation(part))
            self._supply[links] = rel
        return self._supply[links]

    def spatial(self, links: tuple[int, ...]) -> isl.UnionMap:
        """M_x of the links with these indices, built once."""
        if links not in self._spatial:
            self._spatial[links] = self.box.spatial_relation([self.arch.links[n] for n in links])
        return self._spatial[links]


def stamp_relations(shared: SharedWork, stamps: Stamps) -> StampRelations:
    """The StampRelations of the candidate's P_used and T_used, shared between candidates."""
    key = (str(stamps.space_domain), str(stamps.time_domain))
    found = shared.relations.get(key)
    if found is None:
        if len(shared.relations) >= RELATIONS_KEPT:
            shared.relations.clear()
        found = shared.relations[key] = StampRelations(
            shared.arch, stamps.space_domain, stamps.time_domain
        )
    return found


#: How many StampRelations a process keeps (they are rebuilt when dropped).
RELATIONS_KEPT = 256


def assignment_key(assignment: isl.UnionMap) -> tuple[str, ...] | None:
    """A_D up to the order and the name of its element dimensions: its domain and the sorted
    texts of its coordinate functions (stamp -> one element coordinate); None when A_D is not
    one function (then nothing is shared). Permuting the element coordinates is a bijection
    of the elements, so |A_D \\ (M;A_D)| and |A_D ∩ (M_x;A_D)| (M, M_x relate stamps only)
    are the same for every A_D with the same key."""
    if assignment.n_map() != 1:
        return None
    relation = isl.Map.from_union_map(assignment)
    if not relation.is_single_valued():
        return None
    function = isl.PwMultiAff.from_map(relation)
    coordinates = sorted(str(function.get_pw_aff(n)) for n in range(function.dim(isl.dim_type.out)))
    return (str(function.domain()), *coordinates)


def unique_volumes(
    stamps: Stamps,
    access: isl.UnionMap,
    reuse: isl.UnionMap,
    spatial: isl.UnionMap | None,
    total: int,
    fetched: list[isl.UnionMap] | None,
    cache: dict[tuple, tuple[int, int | None, int | None, int | None]] | None = None,
    reuse_key: tuple | None = None,
    single_valued: bool = False,
    elements: int | None = None,
    temporal: isl.UnionMap | None = None,
    supply: isl.UnionMap | None = None,
) -> Volumes:
    """total, unique = |A_D \\ (M;A_D)| = |A| - |A_D ∩ (M;A_D)| in one operation (M = M_t ∪
    ⋃_l M_l; the same set `count_volumes` reaches link by link) and, when `spatial` is given, spatial reuse
    |A_D ∩ (M_x;A_D)|. What the objectives read; the temporal and per-link counts are left
    out (None and {}). With `cache` and `reuse_key` (what determines M and M_x), the two
    counts are made once per (reuse_key, `assignment_key`): candidates whose data assignments
    differ only by the order of the element coordinates share them. When the access is
    `single_valued` (so is A_D: a stamp holds one instance), (s, A_D(s)) ∈ M;A_D iff some
    (s, s') ∈ M has A_D(s') = A_D(s), so |A_D ∩ (M;A_D)| = |dom(M ∩ A_D;A_D^{-1})|, which
    barvinok counts in about half the time (measured on the conv space of docs/dse.md).
    With `elements` (a write side's |range(A)|), also its read_back = |exits| − elements,
    exits = A_D \\ (M^{-1};A_D) (`tenet.model.side_trace.exits`, `exits_count`); with
    `temporal` (M_t), also temporal_unique = |A_D \\ (M_t;A_D)|. With `supply` (on an arch
    with same-step groups, `StampRelations.supply`), unique is a lower bound of the plain
    model's when single-valued: TENET's literal count plus `starved_pairs`."""
    assignment = stamps.data_assignment(access)
    key = None
    if cache is not None and reuse_key is not None and fetched is None:
        found = assignment_key(assignment)
        if found is not None:
            key = (
                reuse_key,
                spatial is not None,
                elements is not None,
                temporal is not None,
                supply is not None,
                found,
            )
            if key in cache:
                return _volumes(total, *cache[key], elements)
    same_element = None
    exit_count = temporal_unique = None
    if fetched is not None:
        remaining = assignment.subtract(reuse.apply_range(assignment))  # A_D \ M;A_D
        fetched.append(remaining)
        unique = count(remaining)
    elif single_valued:  # |A_D| = |A| (Θ is one-to-one)
        same_element = assignment.apply_range(assignment.reverse())  # A_D;A_D^{-1}
        served = reuse.intersect(same_element)
        unique = total - count(served.domain())
        if elements is not None:  # stamps whose value no receiver takes on
            exit_count = exits_count(assignment.subtract_domain(served.range()), elements)
        if temporal is not None:
            temporal_unique = total - count(temporal.intersect(same_element).domain())
        if supply is not None:  # supply ⊆ reuse, so supply ∩ same_element ⊆ served
            unique += starved_pairs(assignment, served, served.domain(), supply)
    else:  # counting the intersection is cheaper than the difference (measured)
        unique = total - count(assignment.intersect(reuse.apply_range(assignment)))
    if elements is not None and exit_count is None:
        sent = assignment.intersect(reuse.reverse().apply_range(assignment))
        exit_count = exits_count(assignment.subtract(sent), elements)
    if temporal is not None and temporal_unique is None:
        temporal_unique = total - count(assignment.intersect(temporal.apply_range(assignment)))
    spatial_reuse = None
    if spatial is not None and same_element is not None:
        spatial_reuse = count(spatial.intersect(same_element).domain())
    elif spatial is not None:
        spatial_reuse = count(assignment.intersect(spatial.apply_range(assignment)))
    if key is not None:
        if len(cache) >= COUNTS_KEPT:
            cache.clear()
        cache[key] = (unique, spatial_reuse, exit_count, temporal_unique)
    return _volumes(total, unique, spatial_reuse, exit_count, temporal_unique, elements)


def starved_pairs(
    assignment: isl.UnionMap,
    same_element: isl.UnionMap,
    served: isl.UnionSet,
    supply: isl.UnionMap,
) -> int:
    """The (step, element) pairs all of whose triples only a same-step forward link serves:
    served by TENET's literal count (`served`) but by nothing in `supply`. Each holds a
    starved group (`tenet.model.same_step`: a source component of the pair's same-step
    links, a cycle, no triple supplied), which the plain model charges a fetch that TENET's
    count does not: a lower bound of the fetches it adds. `same_element` holds the stamp
    pairs (s, s') with A_D(s) = A_D(s'), or any part of them that holds supply's."""
    only_same_step = served.subtract(supply.intersect(same_element).domain())
    others = assignment.domain().subtract(only_same_step)

    def pairs(stamps: isl.UnionSet) -> isl.UnionMap:  # T[t] -> element
        return assignment.intersect_domain(stamps).domain_factor_range()

    return count(pairs(only_same_step).subtract(pairs(others)))


def exits_count(left: isl.UnionMap, elements: int) -> int:
    """|exits|: the triples nothing takes on (`left`), and one more for each element
    without one (a same-step cycle takes on all its triples: `tenet.model.side_trace`)."""
    return count(left) + elements - count(left.range())


def _volumes(
    total: int,
    unique: int,
    spatial_reuse: int | None,
    exit_count: int | None = None,
    temporal_unique: int | None = None,
    elements: int | None = None,
) -> Volumes:
    """The Volumes the shared counts give (no per-link counts; temporal_unique when
    counted); a write side's read_back = exits − elements when both are known."""
    read_back = None if exit_count is None or elements is None else exit_count - elements
    return Volumes(
        total=total,
        unique=unique,
        temporal_unique=temporal_unique,
        spatial_reuse=spatial_reuse,
        carried={},
        read_back=read_back,
    )


#: How many counts of distinct data assignments a process keeps (keys of about 1 kB each;
#: the 6,480-candidate conv space of docs/dse.md makes 3,963).
COUNTS_KEPT = 20_000


def tensor_sides(
    workload: Workload, basis: FloorBasis | None = None
) -> list[tuple[str, str, isl.UnionMap]]:
    """(tensor, side, access) of every tensor side; with a FloorBasis (when pruning), the
    sides with the most elements first, since their bounds bite first."""
    sides = [
        (tensor, side, access)
        for tensor in workload.tensors
        for side in SIDES
        if (access := workload.access(tensor, side)) is not None
    ]
    if basis is not None:
        sides.sort(key=lambda item: -basis.first.get(item[:2], 0))
    return sides


def analyze_candidate(
    shared: SharedWork,
    name: str,
    space: isl.UnionMap,
    time: isl.UnionMap,
    per_step: bool,
    objectives: Sequence[str] | None = None,
    front_so_far: Sequence[Sequence] | None = None,
    floors_out: list[tuple] | None = None,
) -> Analysis:
    """`analyze` of a generated candidate (maps already restricted to the domain) with the
    shared counts and relations; the per-step numbers only when `per_step`. With
    `objectives`, only what they read (`unique_volumes`): the Analysis is then for their
    values only (its temporal and per-link volumes are not counted). With `front_so_far`
    (objective vectors of counted candidates) as well, `Beaten` is raised as soon as the lower bounds
    from the sides counted so far (the others at their first accesses) are dominated. With
    `floors_out`, the signed lower bounds with every side counted are appended to it."""
    workload, arch = shared.workload, shared.arch
    stamps = Stamps(space, time, arch.pe_domain, shared.space_range(space))
    relations = stamp_relations(shared, stamps)
    used_links: set[int] = set()
    fetched: dict[str, list[isl.UnionMap]] = {side: [] for side in SIDES}
    volumes: dict[str, dict[str, Any]] = {}
    check = None
    if (front_so_far or floors_out is not None) and objectives is not None:
        check = PartialFloor(
            shared.floor_basis(),
            relations.active_pes,
            relations.time_steps,
            objectives,
            front_so_far or [],
        )
    sides = tensor_sides(workload, None if check is None else check.basis)
    counted_sides: dict[tuple[str, str], Volumes] = {}
    for tensor, side, access in sides:
        links = links_for(arch, tensor, side)
        if objectives is not None:
            counted_sides[tensor, side] = unique_volumes(
                stamps,
                access,
                relations.reuse(links),
                relations.spatial(links)
                if any(o in SPATIAL_OBJECTIVES for o in objectives)
                else None,
                shared.size(access),
                fetched[side] if per_step else None,
                shared.counts,
                (relations.key, links),
                shared.single_valued(access),
                exit_elements(check, tensor, side),
                relations.temporal if priced(check) else None,
                relations.supply(links) if starved_counted(shared, check, side) else None,
            )
            if check is not None:
                check.add(tensor, side, counted_sides[tensor, side])
            continue
        counted_sides[tensor, side] = count_volumes(
            stamps,
            access,
            relations.temporal,
            [(n, relations.links[n]) for n in links],
            relations.spatial(links),
            used_links,
            size=shared.size,
            fetched=fetched[side] if per_step else None,
            tidy=_as_is,
        )
    for tensor in workload.tensors:  # in the workload's order, as analyze lists them
        volumes[tensor] = {side: counted_sides.get((tensor, side)) for side in SIDES}
    if floors_out is not None and check is not None:
        floors_out.append(check.signed())
    per_step_counts = None
    if per_step:
        memory = arch.memory
        per_step_counts = step_counts(
            stamps.time_domain,
            per_step_words(fetched["read"]),
            per_step_words(fetched["write"]),
            memory.word_bits,
            memory.bandwidth_bits,
        )
    return candidate_analysis(
        shared,
        name,
        volumes,
        relations.active_pes,
        relations.time_steps,
        outside_facts(stamps.space_domain, stamps.pe_domain),
        used_links,
        per_step_counts,
    )


def candidate_analysis(
    shared: SharedWork,
    name: str,
    volumes: dict[str, dict[str, Any]],
    active_pes: int,
    time_steps: int,
    outside: tuple[int, str],
    used_links: set[int],
    per_step_counts: Any = None,
) -> Analysis:
    """The Analysis of a generated candidate from its counts (`assemble`, with the warnings
    that do not depend on the dataflow found once). |ST| = |D|: a generated candidate's
    stamp determines its instance, so no stamp is crowded; `outside` is (number, example)
    of its used PEs off the array."""
    counts = Counts(
        instances=shared.instances,
        stamps=shared.instances,
        active_pes=active_pes,
        time_steps=time_steps,
        volumes=volumes,
        used_links=frozenset(used_links),
        outside_pes=outside[0],
        outside_example=outside[1],
        step_counts=per_step_counts,
    )
    return assemble(
        counts, shared.workload, shared.arch, name, fixed_warnings=shared.fixed_warnings
    )


class CandidateStamps:
    """A candidate's Stamps and StampRelations, built from its map texts when first asked
    for (`analyze_renamed` needs them only for counts no renamed candidate has made)."""

    def __init__(self, shared: SharedWork, space_text: str, time_text: str) -> None:
        self.shared = shared
        self.space_text = space_text
        self.time_text = time_text
        self._built: tuple[Stamps, StampRelations] | None = None

    def get(self) -> tuple[Stamps, StampRelations]:
        if self._built is None:
            shared = self.shared
            space = shared.space_map(self.space_text)
            time = parse_union_map(self.time_text).intersect_domain(shared.workload.domain)
            stamps = Stamps(space, time, shared.arch.pe_domain, shared.space_range(space))
            self._built = (stamps, stamp_relations(shared, stamps))
        return self._built


def analyze_renamed(
    shared: SharedWork,
    renaming: LoopRenaming,
    name: str,
    candidate: Candidate,
    space_text: str,
    time_text: str,
    objectives: Sequence[str],
    front_so_far: Sequence[Sequence] | None = None,
    floors_out: list[tuple] | None = None,
) -> Analysis:
    """`analyze_candidate` with `objectives` (no per-step numbers) of a generated candidate
    whose counts are shared with every candidate equal to it up to a renaming of loops
    (`tenet.explore.renaming`): |P_used| and |T_used| per `candidate_key`, and a side's unique
    words and spatial reuse per (its links, `candidate_key` with its access shape). Only
    counts no such candidate has made are made with isl. Raises `Beaten` as
    `analyze_candidate` does."""
    workload, arch = shared.workload, shared.arch
    lazy = CandidateStamps(shared, space_text, time_text)
    sizes_key = candidate_key(renaming.loops, candidate)
    sizes = shared.stamp_sizes.get(sizes_key)
    if sizes is None:
        relations = lazy.get()[1]
        if len(shared.stamp_sizes) >= COUNTS_KEPT:
            shared.stamp_sizes.clear()
        sizes = shared.stamp_sizes[sizes_key] = (relations.active_pes, relations.time_steps)
    active_pes, time_steps = sizes
    check = None
    if front_so_far or floors_out is not None:
        basis = shared.floor_basis()
        check = PartialFloor(basis, active_pes, time_steps, objectives, front_so_far or [])
    spatial_wanted = any(o in SPATIAL_OBJECTIVES for o in objectives)
    sides = tensor_sides(workload, None if check is None else check.basis)
    counted_sides: dict[tuple[str, str], Volumes] = {}
    for tensor, side, access in sides:
        links = links_for(arch, tensor, side)
        shape = renaming.shapes.get((tensor, side))
        elements = exit_elements(check, tensor, side)
        key = None
        if shape is not None:
            key = (
                links,
                spatial_wanted,
                elements is not None,
                priced(check),
                starved_counted(shared, check, side),
                candidate_key(renaming.loops, candidate, shape),
            )
        known = shared.renamed_counts.get(key) if key is not None else None
        if known is not None:
            volumes = _volumes(shared.size(access), *known, elements)
        else:
            stamps, relations = lazy.get()
            volumes = unique_volumes(
                stamps,
                access,
                relations.reuse(links),
                relations.spatial(links) if spatial_wanted else None,
                shared.size(access),
                None,
                shared.counts,
                (relations.key, links),
                shared.single_valued(access),
                elements,
                relations.temporal if priced(check) else None,
                relations.supply(links) if starved_counted(shared, check, side) else None,
            )
            if key is not None:
                if len(shared.renamed_counts) >= COUNTS_KEPT:
                    shared.renamed_counts.clear()
                exit_count = None if elements is None else volumes.read_back + elements
                shared.renamed_counts[key] = (
                    volumes.unique,
                    volumes.spatial_reuse,
                    exit_count,
                    volumes.temporal_unique,
                )
        counted_sides[tensor, side] = volumes
        if check is not None:
            check.add(tensor, side, volumes)
    volumes_by_tensor = {
        tensor: {side: counted_sides.get((tensor, side)) for side in SIDES}
        for tensor in workload.tensors
    }
    if floors_out is not None and check is not None:
        floors_out.append(check.signed())
    return candidate_analysis(
        shared,
        name,
        volumes_by_tensor,
        active_pes,
        time_steps,
        shared.outside_facts(space_text),
        set(),
    )


def priced(check: PartialFloor | None) -> bool:
    """The energy floor is checked (`PartialFloor.prices_sides`): each side's
    temporal_unique (its links' values) and a write side's exits are worth counting."""
    return check is not None and check.prices_sides


def starved_counted(shared: SharedWork, check: PartialFloor | None, side: str) -> bool:
    """A read side's unique counts the starved same-step pairs (`starved_pairs`) when the
    energy floor is checked on an arch with same-step groups."""
    return side == "read" and priced(check) and shared.same_step_groups()


def exit_elements(check: PartialFloor | None, tensor: str, side: str) -> int | None:
    """A write side's elements |range(A)| when its floor prices its exits (they are then
    counted, `unique_volumes`), else None."""
    if side != "write" or not priced(check):
        return None
    return check.basis.elements[tensor, side]


def _as_is(relation: Any) -> Any:
    """No rewriting: on generated candidates `simplify` of M;A_D costs more than it saves
    (measured in benchmarks/bench_dse.py); the points, hence the counts, are the same."""
    return relation
