"""The energy_pj and edp objectives prune with a proven floor: the MACs, one register read
per operand access and one register write per output access, the output's accumulation
reads and the scratchpad rows of each side's first accesses (docs/dse.md). No candidate
costs less, and the front is the same with and without pruning."""

from __future__ import annotations

import math
import pickle
from fractions import Fraction
from types import SimpleNamespace

import pytest
import yaml

from tenet import load_arch, load_workload
from tenet.explore.candidate_counts import analyze_candidate, shared_work
from tenet.explore.dse import explore
from tenet.explore.prune import PartialFloor, floors
from tenet.explore.space import enumerate_candidates
from tenet.explore.tasks import CandidateTask, floor_task
from tenet.model.arch import with_topology
from tenet.model.dataflow import Dataflow
from tenet.model.metrics import analyze
from tenet.util.isl_util import parse_union_map

GEMM = "workloads/gemm/workload.yaml"


def priced_arch(tmp_path, wire=0, shape=(2, 2)):
    data = {
        "name": f"sys{shape[0]}-priced",
        "pe": {"shape": list(shape)},
        "interconnect": [
            {"relation": "{ PE[i,j] -> PE[i-1,j] }"},
            {"relation": "{ PE[i,j] -> PE[i,j-1] }"},
        ],
        "components": {
            "mac": {"energy_pj": 1, "area_um2": 1},
            "register": {"read_pj": 0.1, "write_pj": 0.2, "area_um2": 1},
            "scratchpad": {
                "size_bytes": 2048,
                "width_bits": 16,
                "read_pj": 5,
                "write_pj": 6,
                "area_um2": 1,
            },
            "wire": {"pj_per_bit_mm": wire},
            "pe_pitch_um": 10,
        },
    }
    path = tmp_path / "arch.yaml"
    path.write_text(yaml.safe_dump(data))
    return load_arch(str(path))


def test_the_floor_by_hand_and_below_every_candidate(tmp_path):
    """GEMM 4x4x2: 32 MACs (32 pJ); 64 operand reads x 0.1; 32 accumulator writes x 0.2;
    32 − 16 accumulation reads x 0.1; A (8) and B (8) fetched once at least x 5 and
    written into a register x 0.2; C's 16 elements written back once at least x 6:
    32 + 6.4 + 6.4 + 1.6 + 80 + 3.2 + 96 = 225.6 pJ."""
    workload = load_workload(GEMM, {"M": 4, "N": 4, "K": 2})
    arch = priced_arch(tmp_path)
    basis = shared_work(pickle.dumps((workload, arch))).floor_basis()
    assert basis.energy_pj == Fraction("225.6")
    floor = floors(basis, 4).energy_pj
    _, found = enumerate_candidates(workload, arch)
    for e in found[:24]:
        flow = Dataflow(e.name, parse_union_map(e.space), parse_union_map(e.time))
        assert floor <= float(analyze(workload, arch, flow).cost.energy_pj.total)


@pytest.mark.slow
@pytest.mark.parametrize("objectives", [("energy_pj", "latency"), ("edp",)])
def test_pruning_with_the_energy_floor_keeps_the_front(tmp_path, objectives):
    workload = load_workload(GEMM, {"M": 4, "N": 4, "K": 2})
    arch = priced_arch(tmp_path)
    pruned = explore(workload, arch, objectives=objectives)
    full = explore(workload, arch, objectives=objectives, prune=False)
    assert pruned.to_dict()["pareto"] == full.to_dict()["pareto"]
    assert pruned.ties == full.ties


def counted_floor(shared, e, objectives=("energy_pj",)):
    """The energy floor of one candidate with every side counted the shared way (the floor
    the search prunes with before counting it with the plain model), and those volumes."""
    space = shared.space_map(e.space)
    time = parse_union_map(e.time).intersect_domain(shared.workload.domain)
    fast = analyze_candidate(shared, e.name, space, time, False, objectives, [(math.inf,)])
    check = PartialFloor(shared.floor_basis(), 1, 1, objectives, [])
    for tensor, sides in fast.volumes.items():
        for side, volumes in sides.items():
            if volumes is not None:
                check.add(tensor, side, volumes)
    return shared.floor_basis().energy_pj + check.energy_pj_extra, fast.volumes


TOPOLOGIES = ["systolic-2d", "mesh", "torus", "row-multicast", "broadcast", "mtia-grid"]


@pytest.mark.parametrize("topology", TOPOLOGIES)
def test_the_counted_floor_is_below_the_energy_and_its_counts_are_the_plain_models(
    tmp_path, topology
):
    """Per candidate, the floor with its sides counted (fetched words, exits, read-backs,
    values the links carry, wires to the nearest PE row) never exceeds analyze's energy,
    and the exits (read_back) and temporal_unique it counts are analyze's. Mesh and torus
    have same-step cycles: the shared counts follow TENET's literal rule there, and the
    floor still holds under the plain model's same-step groups."""
    workload = load_workload(GEMM, {"M": 4, "N": 4, "K": 2})
    arch = with_topology(priced_arch(tmp_path, wire=0.5), topology)
    shared = shared_work(pickle.dumps((workload, arch)))
    _, found = enumerate_candidates(workload, arch)
    assert found
    for e in found[:: max(1, len(found) // 20)]:
        floor, fast = counted_floor(shared, e)
        flow = Dataflow(e.name, parse_union_map(e.space), parse_union_map(e.time))
        plain = analyze(workload, arch, flow)
        assert floor <= plain.cost.energy_pj.total, e.name
        for tensor, sides in plain.volumes.items():
            for side, volumes in sides.items():
                if volumes is None:
                    continue
                assert fast[tensor][side].temporal_unique == volumes.temporal_unique
                if side == "write":
                    assert fast[tensor][side].read_back == volumes.read_back


def test_word_prices_by_hand(tmp_path):
    """sys2 (links one pitch down and right), register read 0.1 and write 0.2 pJ, GLB rows of
    one word (5 pJ read, 6 write), wire 0.5 pJ/bit/mm at a 10 µm pitch with 16-bit words:
    0.08 pJ a word a pitch. A carried read value: 0.2 + 0.08; a carried partial sum also
    its read-out: 0.2 + 0.1 + 0.08. The nearest PE row is 1 pitch from the edge: 0.08."""
    workload = load_workload(GEMM, {"M": 4, "N": 4, "K": 2})
    arch = priced_arch(tmp_path, wire=0.5)
    prices = shared_work(pickle.dumps((workload, arch))).floor_basis().word_prices
    assert prices.row_read_pj == 5 and prices.row_write_pj == 6
    assert prices.carried_pj["A", "read"] == Fraction("0.28")
    assert prices.carried_pj["C", "write"] == Fraction("0.38")
    assert prices.edge_pj == Fraction("0.08")


def test_the_counted_floor_by_hand(tmp_path):
    """GEMM 4x4x2, output-stationary on sys2 with C[i,j] at PE[i%2, j%2], A flowing right
    and B down (`os-systolic` shape): every side's counts, then the floor by hand."""
    workload = load_workload(GEMM, {"M": 4, "N": 4, "K": 2})
    arch = priced_arch(tmp_path, wire=0.5)
    shared = shared_work(pickle.dumps((workload, arch)))
    e = SimpleNamespace(
        name="os",
        space="{ S[i,j,k] -> PE[i % 2, j % 2] }",
        time="{ S[i,j,k] -> T[floor(i/2), floor(j/2), i % 2 + j % 2 + k] }",
    )
    floor, fast = counted_floor(shared, e)
    flow = Dataflow("os", parse_union_map(e.space), parse_union_map(e.time))
    plain = analyze(workload, arch, flow)
    # Per 2x2 output tile (4 tiles), A's 2x2 block enters at PE column 0 and moves right one
    # step later, B's at row 0 and moves down: 32 accesses, none reused in place
    # (temporal_unique 32), 16 carried, 16 fetched; B the same. C: 16 outputs, each kept
    # in its PE while k runs (no link, no read-back): 16 exits, read_back 0.
    assert (fast["A"]["read"].unique, fast["A"]["read"].temporal_unique) == (16, 32)
    assert (fast["B"]["read"].unique, fast["B"]["read"].temporal_unique) == (16, 32)
    assert (fast["C"]["write"].read_back, fast["C"]["write"].temporal_unique) == (0, 16)
    # C[i,j] stays at its PE for k = 0, 1 on consecutive steps: 32 - 16 temporal_unique
    # The floor: the basis 225.6 (222.4 above and the 16 first reads' register writes at
    # 0.2), then per counted side: A and B each fetch 16 - 8 words beyond their first
    # accesses at 5 + 0.2 (83.2 for both), carry 16 values at 0.28 (8.96) and bring 16
    # words over the edge at 0.08 (2.56); C's 16 exits are read out at 0.1 (1.6) and
    # travel the edge at 0.08 (1.28), with no read-back: 225.6 + 97.6 = 323.2 pJ.
    assert floor == Fraction("323.2")
    assert floor <= plain.cost.energy_pj.total


@pytest.mark.parametrize("topology", ["systolic-2d", pytest.param("mesh", marks=pytest.mark.slow)])
def test_pruning_before_the_plain_model_keeps_the_front(tmp_path, topology):
    """energy_pj is counted by the plain model, after the counted floor had its chance to
    prune: the front is the one without pruning (mesh: same-step groups, which the shared
    counts do not follow)."""
    workload = load_workload(GEMM, {"M": 8, "N": 8, "K": 4})
    arch = with_topology(priced_arch(tmp_path, wire=0.5), topology)
    pruned = explore(workload, arch, objectives=("energy_pj",))
    full = explore(workload, arch, objectives=("energy_pj",), prune=False)
    assert pruned.to_dict()["pareto"] == full.to_dict()["pareto"]
    assert pruned.pruned > 0


def test_starved_pairs_by_hand_on_a_mesh(tmp_path):
    """8x8x5 GEMM on a 4x4 mesh (window-0 links both ways), C[i,j] on PE[i%4, j%4] and all
    of k in one step each: the 4 PEs of a row need A[i,k] in the same step and only pass
    it round among themselves. TENET's literal count fetches none of it; every (step,
    A[i,k]) pair is starved, so the shared count used by the floor adds one fetch for each:
    4 rows x 2 x 2 tiles x 5 steps = 80, the plain model's count (tests/analysis/
    test_same_step_groups.py). B likewise by columns: 80."""
    workload = load_workload(GEMM, {"M": 8, "N": 8, "K": 5})
    arch = with_topology(priced_arch(tmp_path, shape=(4, 4)), "mesh")
    shared = shared_work(pickle.dumps((workload, arch)))
    e = SimpleNamespace(
        name="os-flat",
        space="{ S[i,j,k] -> PE[i % 4, j % 4] }",
        time="{ S[i,j,k] -> T[floor(i/4), floor(j/4), k] }",
    )
    _, fast = counted_floor(shared, e)
    assert fast["A"]["read"].unique == fast["B"]["read"].unique == 80
    flow = Dataflow(e.name, parse_union_map(e.space), parse_union_map(e.time))
    plain = analyze(workload, arch, flow)
    assert plain.volumes["A"]["read"].unique == 80


def test_the_floor_pass_gives_the_counted_floor(tmp_path):
    """`floor_task` (the pass that orders the plain model's candidates) returns the floor
    `counted_floor` finds for the same candidate: 323.2 pJ for the hand case above."""
    workload = load_workload(GEMM, {"M": 4, "N": 4, "K": 2})
    arch = priced_arch(tmp_path, wire=0.5)
    context = pickle.dumps((workload, arch))
    space = "{ S[i,j,k] -> PE[i % 2, j % 2] }"
    time = "{ S[i,j,k] -> T[floor(i/2), floor(j/2), i % 2 + j % 2 + k] }"
    task = CandidateTask(context, "os", space, time, 10**8, False, ("energy_pj",), [], (), None)
    assert floor_task(task) == [float(Fraction("323.2"))]


@pytest.mark.parametrize(
    "topology, carried",
    [
        # a bus event drives its group's g pitches and reaches at most the g members: at
        # least one pitch (0.08 pJ) per value, with the receiver's register write (0.2)
        ("row-multicast", "0.28"),
        ("broadcast", "0.28"),
        # k-hop neighbourhoods overlap (no partition): the register write only
        ("k-hop-multicast", "0.2"),
    ],
)
def test_a_value_a_bus_carries_by_hand(tmp_path, topology, carried):
    """The least price of a read value a bus carries, on the 2x2 array of the hand tests."""
    workload = load_workload(GEMM, {"M": 4, "N": 4, "K": 2})
    arch = with_topology(priced_arch(tmp_path, wire=0.5), topology)
    prices = shared_work(pickle.dumps((workload, arch))).floor_basis().word_prices
    assert prices.carried_pj["A", "read"] == Fraction(carried)
