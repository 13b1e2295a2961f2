"""Same-step links without free values (tenet/model/same_step.py): the starved components
of the same-step holder graph, found with isl's closure, against a brute-force SCC walk."""

from __future__ import annotations

import dataclasses

import islpy as isl
import pytest

from tenet import load_arch, load_dataflow, load_workload
from tenet.model.dataflow import bind_dataflow
from tenet.model.relations import SpaceTime
from tenet.model.same_step import (
    has_same_step_cycle,
    is_same_step_forward,
    same_step_stamps,
    starved_triples,
)
from tenet.util.isl_util import count

from ..conftest import WORKLOADS
from ..helpers import write_yaml


def points(obj) -> list[tuple[int, ...]]:
    out = []
    obj.wrap().foreach_set(lambda s: s.foreach_point(lambda p: out.append(coordinates(p))))
    return out


def coordinates(point: isl.Point) -> tuple[int, ...]:
    n = point.get_space().dim(isl.dim_type.set)
    return tuple(point.get_coordinate_val(isl.dim_type.set, k).to_python() for k in range(n))


def brute_force(workload, arch, dataflow, tensor, side) -> int:
    """Starved components counted by enumeration: per (step, element), the PEs that hold
    it, the same-step edges among them, Tarjan's SCCs; a component of several PEs with no
    edge from outside and no PE that held the element at the previous step (its own, or a
    sender of a link whose window has 1) costs one fetch."""
    bound = bind_dataflow(dataflow, workload, arch)
    st = SpaceTime.of(bound, arch)
    assignment = st.data_assignment(workload.access(tensor, side))
    pe_arity = arch.pe_arity
    holders: dict[tuple, set] = {}
    for point in points(assignment):
        pe, rest = point[:pe_arity], point[pe_arity:]
        time_arity = len(rest) - (len(rest) - bound.time_tuple[1])
        t, e = rest[: bound.time_tuple[1]], rest[bound.time_tuple[1] :]
        assert time_arity
        holders.setdefault((t, e), set()).add(pe)
    steps = sorted({t for t, _ in holders})
    previous = {steps[n]: steps[n - 1] for n in range(1, len(steps))}
    same, earlier = [], []
    for link in arch.links:
        pairs = [tuple(p) for p in points(link.relation)]
        pairs = [(p[:pe_arity], p[pe_arity:]) for p in pairs]
        if is_same_step_forward(link):
            same += [(r, s) for r, s in pairs if r != s]
        if link.kind == "multicast" or any(w >= 1 for w in link.window):
            earlier += pairs
    total = 0
    for (t, e), pes in holders.items():
        before = holders.get((previous.get(t), e), set())
        supplied = {p for p in pes if p in before}
        supplied |= {r for r, s in earlier if r in pes and s in before}
        edges = {p: [s for r, s in same if r == p and s in pes] for p in pes}  # p takes from s
        for component in sccs(pes, edges):
            if len(component) < 2 or component & supplied:
                continue
            if any(s not in component for p in component for s in edges[p]):
                continue
            total += 1
    return total


def sccs(nodes, takes_from) -> list[set]:
    """Tarjan's strongly connected components (edges p -> s: p takes from s)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in takes_from[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on.discard(w)
                component.add(w)
                if w == v:
                    break
            out.append(component)

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def engine(workload, arch, dataflow, tensor, side) -> int | None:
    bound = bind_dataflow(dataflow, workload, arch)
    st = SpaceTime.of(bound, arch)
    assignment = st.data_assignment(workload.access(tensor, side))
    same = same_step_stamps(st, arch.links)
    supply = st.temporal_relation()
    for link in arch.links:
        windows = tuple(w for w in link.window if w != 0 or link.kind == "multicast")
        if windows:
            supply = supply.union(st.link_relation(dataclasses.replace(link, window=windows)))
    supplied = assignment.intersect(supply.apply_range(assignment))
    starved = starved_triples(assignment, same, supplied)
    return None if starved is None else count(starved)


def arch_of(tmp_path, shape, links):
    return load_arch(
        write_yaml(tmp_path, "arch", {"name": "a", "pe": {"shape": shape}, "interconnect": links})
    )


def flow_of(tmp_path, space, time):
    return load_dataflow(write_yaml(tmp_path, "flow", {"name": "f", "space": space, "time": time}))


def gemm(m, n, k):
    return load_workload(WORKLOADS / "gemm" / "workload.yaml", {"M": m, "N": n, "K": k})


CASES = {
    # every row of a 4x4 mesh needs A[i,k] at once: one fetch per row and step
    "mesh-rows": (
        [4, 4],
        [{"topology": "mesh"}],
        "{ S[i,j,k] -> PE[i % 4, j % 4] }",
        "{ S[i,j,k] -> T[floor(i/4), floor(j/4), k] }",
        (8, 8, 5),
    ),
    # the same, j-blocks innermost: A[i,k] stays in its row for the second j-block (held
    # from the previous step), so only the first block's step fetches it
    "mesh-rows-held": (
        [4, 4],
        [{"topology": "mesh"}],
        "{ S[i,j,k] -> PE[i % 4, j % 4] }",
        "{ S[i,j,k] -> T[floor(i/4), k, floor(j/4)] }",
        (8, 8, 5),
    ),
    # a ring of 4 (wrap-around): all four PEs need A[i,k] in the same step
    "ring": (
        [4],
        [{"relation": "{ PE[p] -> PE[q] : q = (p + 3) % 4 }", "window": [0]}],
        "{ S[i,j,k] -> PE[j % 4] }",
        "{ S[i,j,k] -> T[i, k, floor(j/4)] }",
        (3, 6, 4),
    ),
    # the ring with remainders: j < 6 leaves a partial group in the second block (a chain)
    "ring-partial": (
        [4],
        [{"relation": "{ PE[p] -> PE[q] : q = (p + 3) % 4 }", "window": [0]}],
        "{ S[i,j,k] -> PE[j % 4] }",
        "{ S[i,j,k] -> T[i, k, floor(j/4)] }",
        (2, 6, 3),
    ),
    # mesh with windows [0, 1] on a skewed dataflow: no same-step group needs the same value
    "mesh-skewed": (
        [4, 4],
        [{"topology": "mesh"}],
        "{ S[i,j,k] -> PE[i % 4, j % 4] }",
        "{ S[i,j,k] -> T[floor(i/4), floor(j/4), i % 4 + j % 4 + k] }",
        (8, 4, 4),
    ),
    # k on the ring: B[k,j] for one j is held by all PEs over 4 k, but each PE holds a
    # different element: no cycle of holders of one element
    "ring-distinct": (
        [4],
        [{"relation": "{ PE[p] -> PE[q] : q = (p + 3) % 4 }", "window": [0, 1]}],
        "{ S[i,j,k] -> PE[k % 4] }",
        "{ S[i,j,k] -> T[j, i, floor(k/4)] }",
        (4, 3, 8),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("tensor", ["A", "B"])
def test_starved_components_match_the_walk(tmp_path, name, tensor):
    shape, links, space, time, sizes = CASES[name]
    arch = arch_of(tmp_path, shape, links)
    workload, dataflow = gemm(*sizes), flow_of(tmp_path, space, time)
    assert engine(workload, arch, dataflow, tensor, "read") == brute_force(
        workload, arch, dataflow, tensor, "read"
    )


def test_mesh_rows_by_hand(tmp_path):
    """8x8x5 GEMM, 4x4 mesh, unskewed: A[i,k] is needed by the 4 PEs of row i%4 at step
    (I, J, k): one fetch per row per step: 4 rows × 2·2·5 steps = 80."""
    shape, links, space, time, sizes = CASES["mesh-rows"]
    arch = arch_of(tmp_path, shape, links)
    assert engine(gemm(*sizes), arch, flow_of(tmp_path, space, time), "A", "read") == 80


def test_a_component_held_from_the_previous_step_is_not_starved(tmp_path):
    """j-blocks innermost: A[i,k] is fetched once per row at (I, k, 0) and held at
    (I, k, 1): 4 rows × 2 × 5 = 40, half the unskewed count."""
    shape, links, space, time, sizes = CASES["mesh-rows-held"]
    arch = arch_of(tmp_path, shape, links)
    assert engine(gemm(*sizes), arch, flow_of(tmp_path, space, time), "A", "read") == 40


def test_cycle_detection(tmp_path):
    assert has_same_step_cycle(arch_of(tmp_path, [4, 4], [{"topology": "mesh"}]).links)
    chain = [{"relation": "{ PE[p] -> PE[p - 1] }"}]
    assert not has_same_step_cycle(arch_of(tmp_path, [4], chain).links)
    window_1 = [{"relation": "{ PE[p] -> PE[q] : q = (p + 3) % 4 }", "window": [1]}]
    assert not has_same_step_cycle(arch_of(tmp_path, [4], window_1).links)
