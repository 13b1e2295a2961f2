"""Candidates of the design space that are equal up to a renaming of loops share their counts.

A renaming π of the statement's loops that keeps every loop's first value and extent maps a
box domain D onto itself. If candidate c' is candidate c with each loop name n written π(n)
(`tenet.explore.space` writes a candidate's maps from its loops' names, first values and
extents only), then Θ_c'(x) = Θ_c(y) with y_n = x_π(n), so both have the same stamps, the same
used PEs and time stamps, and so the same reuse relations M and M_x. If the access A of a
tensor side is affine with coordinates whose terms π maps onto the terms of the same
coordinates in another order, A(x) = σ(A(y)) for a fixed permutation σ of the element
coordinates, so A_D(c') = (id × σ)(A_D(c)): σ is a bijection of the elements, and
|A_D ∩ (M;A_D)| and |A_D ∩ (M_x;A_D)| are the same for both.

`candidate_key` writes a candidate with its loops named by their first appearance (PE axes,
then time dimensions, then the loops that appear in neither, in the statement's order) and
each loop's (first value, extent); with an `AccessShape` it adds the access's coordinates in
those names, sorted. Equal keys give the renaming above, so equal keys give equal counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import islpy as isl

from tenet.explore.space import Candidate, Loop, statement_loops
from tenet.model.workload import SIDES, Workload

#: One coordinate of an affine access: its (loop index, coefficient) terms and its constant.
Coordinate = tuple[tuple[tuple[int, int], ...], int]


@dataclass(frozen=True)
class AccessShape:
    """An access { S[x] -> E[Σ_k a_jk·x_k + b_j] } on the whole domain, as integer terms."""

    coordinates: tuple[Coordinate, ...]


def box_domain(domain: isl.UnionSet, statement: str, loops: tuple[Loop, ...]) -> bool:
    """D is exactly the box ∏ [low, low + extent) of its loops (one statement)."""
    names = ", ".join(f"x{k}" for k in range(len(loops)))
    bounds = " and ".join(
        f"{loop.low} <= x{k} < {loop.low + loop.extent}" for k, loop in enumerate(loops)
    )
    box = isl.UnionSet(
        f"{{ {statement}[{names}] : {bounds} }}" if loops else f"{{ {statement}[] }}"
    )
    return domain.is_equal(box)


def access_shape(access: isl.UnionMap, domain: isl.UnionSet) -> AccessShape | None:
    """The integer affine terms of an access that is one affine function on all of D; None
    for any other access (a piecewise, quasi-affine, partial or parametric one)."""
    if access.n_map() != 1 or access.dim(isl.dim_type.param) != 0:
        return None
    relation = isl.Map.from_union_map(access)
    if not relation.is_single_valued():
        return None
    function = isl.PwMultiAff.from_map(relation)
    if function.n_piece() != 1:
        return None
    pieces: list[isl.MultiAff] = []
    function.foreach_piece(lambda _domain, multi: pieces.append(multi))
    multi = pieces[0]  # the graph check below covers the piece's domain
    arity = multi.dim(isl.dim_type.in_)
    coordinates = []
    for j in range(multi.dim(isl.dim_type.out)):
        aff = multi.get_at(j)
        if aff.dim(isl.dim_type.div) != 0:
            return None
        values = [aff.get_coefficient_val(isl.dim_type.in_, k) for k in range(arity)]
        values.append(aff.get_constant_val())
        if not all(v.is_int() for v in values):
            return None
        numbers = [int(v.to_python()) for v in values]
        terms = tuple((k, a) for k, a in enumerate(numbers[:-1]) if a != 0)
        coordinates.append((terms, numbers[-1]))
    graph = isl.UnionMap.from_map(isl.Map.from_multi_aff(multi)).intersect_domain(domain)
    if not graph.is_equal(access):
        return None
    return AccessShape(tuple(coordinates))


def candidate_key(
    loops: tuple[Loop, ...], candidate: Candidate, shape: AccessShape | None = None
) -> tuple:
    """The candidate with its loops named by first appearance, each loop's (low, extent) in
    that order, and, with `shape`, the access's coordinates in those names (sorted)."""
    index = {loop.name: k for k, loop in enumerate(loops)}
    label: dict[str, int] = {}

    def named(name: str | None) -> int | None:
        if name is None:
            return None
        if name not in label:
            label[name] = len(label)
        return label[name]

    spatial = tuple(named(name) for name in candidate.spatial)
    order = tuple((kind, named(name)) for kind, name in candidate.order)
    for loop in loops:
        named(loop.name)
    by_label = sorted(label, key=label.__getitem__)
    tokens = tuple((loops[index[n]].low, loops[index[n]].extent) for n in by_label)
    access = None
    if shape is not None:
        access = tuple(
            sorted(
                (tuple(sorted((label[loops[k].name], a) for k, a in terms)), constant)
                for terms, constant in shape.coordinates
            )
        )
    return tokens, spatial, order, candidate.skew, access


@dataclass(frozen=True)
class LoopRenaming:
    """The statement's loops and, per tensor side (tensor, side), the `AccessShape` of its
    access (None: not one affine function on the whole domain; such a side is counted per
    candidate)."""

    loops: tuple[Loop, ...]
    shapes: dict[tuple[str, str], AccessShape | None]

    @classmethod
    def of(cls, workload: Workload, dependences: isl.UnionMap) -> LoopRenaming | None:
        """The renaming data of a workload, or None when candidates equal up to a renaming
        of loops may not share counts: more than one statement, a domain that is not one
        box, or flow `dependences` (the order check then needs each candidate's maps)."""
        if len(workload.statements) != 1 or not dependences.is_empty():
            return None
        statement, loops = statement_loops(workload)
        if not box_domain(workload.domain, statement, loops):
            return None
        shapes = {}
        for tensor in workload.tensors:
            for side in SIDES:
                access = workload.access(tensor, side)
                if access is not None:
                    shapes[tensor, side] = access_shape(access, workload.domain)
        return cls(loops, shapes)


def twin_key(renaming: LoopRenaming, candidate: Candidate, tiles: tuple = ()) -> tuple | None:
    """`candidate_key` with every tensor side's access (and the tile depths): candidates
    with equal twin keys are equal up to one renaming of loops that maps every access onto
    itself up to a permutation of its element coordinates. Every count of the model is the
    size of a set built from the stamps, the PE and time relations and which stamps touch
    the same element (never from an element's coordinates), so every count, and so every
    objective, is equal (an example point a warning quotes may differ by the renaming).
    None when a side's access is not one affine function (no claim)."""
    if any(shape is None for shape in renaming.shapes.values()):
        return None
    sides = tuple(
        candidate_key(renaming.loops, candidate, renaming.shapes[side])
        for side in sorted(renaming.shapes)
    )
    return candidate_key(renaming.loops, candidate), sides, tuple(tiles)


def twins_of(renaming: LoopRenaming | None, found: Sequence) -> dict[int, tuple[int, ...]]:
    """{index of a candidate: indices of the later candidates with its `twin_key`} over the
    enumerated candidates `found` (each with `candidate` and `tiles`); empty without a
    renaming."""
    if renaming is None:
        return {}
    first: dict[tuple, int] = {}
    out: dict[int, list[int]] = {}
    for i, e in enumerate(found):
        if e.candidate is None:
            continue
        key = twin_key(renaming, e.candidate, tuple(sorted(dict(e.tiles).items())))
        if key is None:
            return {}
        if key in first:
            out.setdefault(first[key], []).append(i)
        else:
            first[key] = i
    return {i: tuple(later) for i, later in out.items()}
