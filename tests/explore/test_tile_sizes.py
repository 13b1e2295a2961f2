"""The tile-size search (tenet/explore/tile_sizes.py): every closed form against barvinok
(`analyze` of the emitted dataflow: levels[0] reads and writes, capacity needed, cost.actions,
cost.energy_pj, time_steps), one design against the brute-force simulator and by hand, the
search against an unpruned scan of its own space, and its input errors."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tenet.analysis.simulate import simulate
from tenet.analysis.validate import validate
from tenet.errors import InputError
from tenet.explore import tile_sizes as ts
from tenet.explore.dse import write_dataflows
from tenet.formats.workloads import load_any_workload
from tenet.model.arch import load_arch
from tenet.model.dataflow import load_dataflow
from tenet.model.metrics import analyze

# Unit costs: MAC 1 pJ, register 0.1 pJ, GLB 5 pJ read / 6 pJ write per word, DRAM 100 pJ
# per word (16 bits at 6.25 pJ/bit), wires free; the pitch and wire make distances cost 1 pJ
# per word-pitch when `wire` is 1/16 pJ/bit/mm at a 1,000 um pitch, so they are counted too.
ARCH = """\
name: "sys-{rows}x{cols}"
pe: {{shape: [{rows}, {cols}]}}
interconnect:
  - relation: "{{ PE[i,j] -> PE[i-1,j] }}"
  - relation: "{{ PE[i,j] -> PE[i,j-1] }}"
memory: {{word_bits: 16, bandwidth_bits: 64, avg_latency: 16, l2_words: {capacity}}}
levels:
  - {{name: GLB, capacity: {capacity}, double_buffered: {double}}}
  - {{name: DRAM, capacity: "1GiB", bandwidth_gbps: 16}}
components:
  mac: {{energy_pj: 1, area_um2: 1}}
  register: {{read_pj: 0.1, write_pj: 0.1, area_um2: 1}}
  scratchpad: {{size_bytes: {size_bytes}, width_bits: 16, read_pj: 5, write_pj: 6, area_um2: 1}}
  dram: {{pj_per_bit: 6.25}}
  wire: {{pj_per_bit_mm: 0.0625}}
  adder: {{energy_pj: 1, area_um2: 1}}
  pe_pitch_um: 1000
"""


def arch_file(tmp_path: Path, rows: int, cols: int, capacity: int, double: bool) -> Path:
    path = tmp_path / f"sys-{rows}x{cols}-{capacity}-{double}.yaml"
    text = ARCH.format(
        rows=rows,
        cols=cols,
        capacity=capacity,
        double=str(double).lower(),
        size_bytes=2 * capacity,
    )
    path.write_text(text)
    return path


def check_design(workload, arch, problem, design) -> None:
    """Every closed form of one design equals analyze's count of its dataflow."""
    analysis = analyze(workload, arch, ts.dataflow_of(problem, design, "d"))
    level = analysis.levels[0]
    traffic = ts.glb_traffic(problem, design)
    text = ts.time_text(problem, design)
    assert traffic.tensors == {x: tuple(v) for x, v in level.tensors.items()}, text
    assert traffic.capacity == level.capacity_needed, text
    assert traffic.footprint == level.capacity_needed_single, text
    assert level.tile_depth == len(design.outer)
    assert ts.array_actions(problem, design) == dict(analysis.cost.actions), text
    prices = ts.prices_of(arch, problem)
    assert ts.energy_pj(problem, design, prices) == analysis.cost.energy_pj.total, text
    assert ts.priced(arch, problem, design) == analysis.cost.energy_pj.total, text
    assert ts.time_steps(problem, design) == analysis.time_steps, text
    assert ts.latency_cycles(problem, design) == analysis.latency, text


CASES = [
    ("gemm", {"M": 8, "N": 12, "K": 16}, (2, 4), True),
    ("gemm", {"M": 10, "N": 7, "K": 6}, (4, 4), True),  # blocks of 4, 4, 2 and 4, 3
    ("conv2d", {"K": 3, "C": 5, "OX": 6, "OY": 3, "RX": 2, "RY": 3}, (2, 4), True),
    ("mttkrp", {"I": 6, "J": 8, "K": 4, "L": 3}, (4, 4), True),  # three inputs
    ("batched-gemm", {"B": 3, "M": 8, "N": 6, "K": 4}, (2, 4), False),
    ("depthwise-conv", {"C": 8, "OX": 6, "OY": 5, "RX": 3, "RY": 2}, (4, 4), True),
    ("gemm", {"M": 16, "N": 8, "K": 12}, (4, 4), False),
    ("conv2d", {"K": 8, "C": 4, "OX": 6, "OY": 5, "RX": 3, "RY": 2}, (4, 4), True),
    ("conv2d", {"K": 4, "C": 8, "OX": 4, "OY": 3, "RX": 2, "RY": 3}, (2, 4), False),
]


def sample_designs(case, tmp_path, n, seed, imperfect=False):
    name, params, (rows, cols), double = case
    workload = load_any_workload(name, params)
    arch = load_arch(arch_file(tmp_path, rows, cols, 512, double))
    problem = ts.tile_problem(workload, arch)
    designs = list(ts.designs(problem, imperfect))
    if imperfect:  # the designs with a remainder tile
        designs = [d for d in designs if any(problem.extents[x] % t for x, t in d.tile)]
    chosen = random.Random(seed).sample(designs, min(n, len(designs)))
    return workload, arch, problem, chosen


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0] if isinstance(c, tuple) else None)
def test_closed_forms_equal_barvinok(case, tmp_path):
    workload, arch, problem, chosen = sample_designs(case, tmp_path, 3, 7)
    for design in chosen:
        check_design(workload, arch, problem, design)


UNEVEN = [
    ("gemm", {"M": 13, "N": 7, "K": 9}, (4, 4), True),
    ("conv2d", {"K": 5, "C": 9, "OX": 7, "OY": 5, "RX": 3, "RY": 2}, (2, 4), True),
    ("conv2d", {"K": 5, "C": 9, "OX": 7, "OY": 5, "RX": 3, "RY": 2}, (2, 4), False),
    ("mttkrp", {"I": 5, "J": 9, "K": 4, "L": 3}, (4, 4), True),
    ("depthwise-conv", {"C": 9, "OX": 7, "OY": 5, "RX": 3, "RY": 2}, (4, 4), True),
]


@pytest.mark.parametrize(
    "case", [UNEVEN[0], UNEVEN[3]], ids=lambda c: c[0] if isinstance(c, tuple) else None
)
def test_uneven_tiles_equal_barvinok(case, tmp_path):
    """Tile extents that leave a shorter last tile (imperfect=True)."""
    workload, arch, problem, chosen = sample_designs(case, tmp_path, 2, 3, imperfect=True)
    for design in chosen:
        check_design(workload, arch, problem, design)


def test_uneven_spatial_tiles_equal_barvinok(tmp_path):
    """A spatial loop P does not divide, tiled by a multiple of P below its extent: M = 13 on
    4 rows in GLB tiles of 4 or 8 (blocks of 4 rows, the last of 1)."""
    workload = load_any_workload("gemm", {"M": 13, "N": 10, "K": 5})
    arch = load_arch(arch_file(tmp_path, 4, 4, 512, True))
    problem = ts.tile_problem(workload, arch)
    designs = [
        d for d in ts.designs(problem, imperfect=True) if d.spatial[0] == "i" and d.extent("i") < 13
    ]
    for design in random.Random(4).sample(designs, 3):
        check_design(workload, arch, problem, design)


@pytest.mark.slow
@pytest.mark.parametrize("case", UNEVEN, ids=lambda c: c[0] if isinstance(c, tuple) else None)
def test_uneven_tiles_equal_barvinok_many(case, tmp_path):
    for seed in range(2):
        workload, arch, problem, chosen = sample_designs(case, tmp_path, 8, 50 + seed, True)
        for design in chosen:
            check_design(workload, arch, problem, design)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0] if isinstance(c, tuple) else None)
def test_closed_forms_equal_barvinok_many(case, tmp_path):
    for seed in range(3):
        workload, arch, problem, chosen = sample_designs(case, tmp_path, 25, 100 + seed)
        for design in chosen:
            check_design(workload, arch, problem, design)


def test_one_design_by_hand_and_by_the_simulator(tmp_path):
    """GEMM 8 x 8 x 4 (C[i,j] += A[i,k] B[k,j]) on 4 x 4, i on rows, j on columns, GLB
    tiles of 4 x 8 x 2 (T_i, T_j, T_k), outer order (i, k), k innermost and skewed."""
    workload = load_any_workload("gemm", {"M": 8, "N": 8, "K": 4})
    arch = load_arch(arch_file(tmp_path, 4, 4, 512, False))
    problem = ts.tile_problem(workload, arch)
    design = ts.TiledDesign(("i", "j"), (("i", 4), ("j", 8), ("k", 2)), ("i", "k"), "k")
    assert ts.time_text(problem, design) == (
        "{ S[i, j, k] -> T[floor(i/4), floor(k/2), floor(j/4), k % 2 + i % 4 + j % 4] }"
    )
    # 256 MACs in runs of 16 PEs x T_k = 2 steps: 8 runs, each 2 + 3 + 3 = 8 steps: 64.
    assert ts.time_steps(problem, design) == 64
    actions = ts.array_actions(problem, design)
    # A[i,k] does not depend on j: column 0 fetches it (4 words a step, 2 steps a run), the
    # other 12 PEs take it from the left: 8 runs x 8 = 64 fetched, 8 x 24 = 192 forwarded.
    assert (actions["A"].scratchpad_read_words, actions["A"].link_register_writes) == (64, 192)
    # C[i,j] does not depend on k: each PE keeps its sum through a run and sends it out at
    # its end: 16 exits a run, 128 in all, of which 128 - 64 elements are read back later.
    assert (actions["C"].scratchpad_write_words, actions["C"].read_back_words) == (128, 64)
    # GLB tiles (i/4, k/2): A's 4 x 2 block changes every tile (4 tiles x 8 = 32 reads);
    # B's 2 x 8 block changes every tile (4 x 16 = 64); C's 4 x 8 block stays while k moves
    # and is written back once per i block (2 x 32 = 64 writes, no reads: written first).
    traffic = ts.glb_traffic(problem, design)
    assert traffic.tensors == {"A": (32, 0), "B": (64, 0), "C": (0, 64)}
    assert traffic.footprint == 8 + 16 + 32
    simulated = simulate(workload, arch, ts.dataflow_of(problem, design, "hand"))
    assert {x: tuple(v) for x, v in simulated.levels[0].tensors.items()} == traffic.tensors
    assert dict(simulated.cost.actions) == actions
    assert simulated.time_steps == 64
    assert simulated.cost.energy_pj.total == ts.priced(arch, problem, design)


@pytest.mark.parametrize(
    ("objectives", "imperfect"),
    [
        (("energy_pj",), False),
        (("energy_pj", "dram", "time_steps"), False),
        (("latency", "dram"), False),
        (("energy_pj", "dram"), True),
    ],
)
def test_search_finds_the_best_of_its_space(objectives, imperfect, tmp_path):
    """Pruned search against an unpruned scan of every design (closed forms, tested above)."""
    workload = load_any_workload(
        "gemm", {"M": 8, "N": 16, "K": 8} if not imperfect else {"M": 8, "N": 6, "K": 5}
    )
    arch = load_arch(arch_file(tmp_path, 4, 4, 256, True))
    problem = ts.tile_problem(workload, arch)
    prices = ts.prices_of(arch, problem)
    scanned = []
    for design in ts.designs(problem, imperfect):
        traffic = ts.glb_traffic(problem, design)
        if traffic.capacity > problem.capacity:
            continue
        values = {
            "energy_pj": ts.energy_pj(problem, design, prices),
            "dram": traffic.words,
            "time_steps": ts.time_steps(problem, design),
            "latency": ts.latency_cycles(problem, design),
        }
        scanned.append(tuple(values[o] for o in objectives))
    front = [
        v for v in scanned if not any(w != v and all(a <= b for a, b in zip(w, v)) for w in scanned)
    ]
    result = ts.explore_tile_sizes(workload, arch, objectives, imperfect=imperfect)
    found = sorted(tuple(e.objective_values().values()) for e in result.pareto)
    assert found == sorted({tuple(float(x) for x in v) for v in front})
    for entry, closed in zip(result.pareto, result.closed_forms):
        assert entry.objective_values() == pytest.approx(closed)
        assert entry.analysis.levels[0].fits
    ratio = result.pareto[0].analysis.dram_words() / result.snowcat_words
    assert result.dram_vs_capacity_bound[0] == ratio
    record = result.to_dict()
    assert record["pareto"][0]["dram_vs_capacity_bound"] == ratio
    # dse's figure: against Snowcat with the buffer the member's tiles need
    block = record["pareto"][0]["dram_bound"]
    assert block["capacity_words"] == result.pareto[0].analysis.levels[0].capacity_needed_single
    assert record["pareto"][0]["dram_vs_bound"] == block["ratio"]
    assert block["ratio"] >= ratio  # a smaller buffer: Snowcat moves at least as many words
    assert record["complete"] is True
    assert record["candidates"] == record["evaluated"] + record["pruned"]
    # every design of the space whose tiles fit the GLB alone is a candidate
    alone = [
        d for d in ts.designs(problem, imperfect) if ts.glb_traffic(problem, d).footprint <= 256
    ]
    assert record["candidates"] == len(alone)


def test_limit_stops_the_search(tmp_path):
    workload = load_any_workload("gemm", {"M": 8, "N": 16, "K": 8})
    arch = load_arch(arch_file(tmp_path, 4, 4, 256, True))
    result = ts.explore_tile_sizes(workload, arch, ("energy_pj",), limit=1)
    record = result.to_dict()
    assert record["complete"] is False
    assert record["stopped_by"] == ts.LIMIT
    assert len(result.pareto) == 1


def test_emitted_dataflow_analyzes_to_the_front_entry(tmp_path):
    workload = load_any_workload("gemm", {"M": 8, "N": 16, "K": 8})
    arch = load_arch(arch_file(tmp_path, 4, 4, 256, False))
    result = ts.explore_tile_sizes(workload, arch, ("energy_pj",), jobs=2)
    [path] = write_dataflows(result.pareto[:1], tmp_path / "front")
    again = analyze(workload, arch, load_dataflow(path))
    assert again.cost.energy_pj.total == result.pareto[0].analysis.cost.energy_pj.total
    assert again.levels[0].tile_depth == result.pareto[0].tiles["GLB"]


def test_refused_inputs(tmp_path):
    workload = load_any_workload("gemm", {"M": 8, "N": 8, "K": 8})
    good = load_arch(arch_file(tmp_path, 4, 4, 256, False))
    with pytest.raises(InputError, match="ranks by"):
        ts.explore_tile_sizes(workload, good, ("hierarchy",))
    mesh = load_arch(Path(__file__).parents[2] / "archs" / "mesh-16x16.yaml")
    with pytest.raises(InputError) as error:
        ts.tile_problem(workload, mesh)
    assert error.value.key == "levels"
    text = arch_file(tmp_path, 4, 4, 256, False).read_text()
    reversed_links = tmp_path / "reversed.yaml"
    reversed_links.write_text(text.replace("i-1,j", "i+1,j"))
    with pytest.raises(InputError) as error:
        ts.tile_problem(workload, load_arch(reversed_links))
    assert error.value.key == "interconnect"


def test_a_flat_design_by_hand_and_by_the_simulator(tmp_path):
    """conv2d K=4, C=2, OX=2, OY=4, RX=2, RY=2 on 2 x 4, K on rows and OY on columns, one GLB
    tile per ox: the flat variant folds rx and ry into the skewed coordinate with c, so a PE
    runs (c, rx, ry) on 8 consecutive steps and keeps O[k, ox, oy] (which depends on none of
    them) throughout: every output leaves once (32 exits, nothing read back)."""
    workload = load_any_workload("conv2d", {"K": 4, "C": 2, "OX": 2, "OY": 4, "RX": 2, "RY": 2})
    arch = load_arch(arch_file(tmp_path, 2, 4, 512, False))
    problem = ts.tile_problem(workload, arch)
    tile = tuple((x, 1 if x == "ox" else problem.extents[x]) for x in problem.loops)
    design = ts.TiledDesign(("k", "oy"), tile, ("ox",), "c")
    assert ts.time_text(problem, design) == (
        "{ S[k, c, ox, oy, rx, ry] -> T[ox, floor(k/2), rx, ry, c + k % 2 + oy % 4] }"
    )
    variants = ts.flattened(problem, design)
    # one variant per loop of the run (rx, ry, c) innermost, the others in statement order
    assert [(v.flat, v.innermost) for v in variants] == [
        (("c", "ry"), "rx"),
        (("c", "rx"), "ry"),
        (("rx", "ry"), "c"),
    ]
    flat = variants[2]
    assert ts.time_text(problem, flat) == (
        "{ S[k, c, ox, oy, rx, ry] -> T[ox, floor(k/2), 4*rx + 2*ry + c + k % 2 + oy % 4] }"
    )
    dataflow = ts.dataflow_of(problem, flat, "flat")
    assert validate(workload, arch, dataflow).legal
    analysis = analyze(workload, arch, dataflow)
    actions = analysis.cost.actions["O"]
    assert (actions.scratchpad_write_words, actions.read_back_words) == (4 * 2 * 4, 0)
    # the unflattened design sends each output out once per (rx, ry): 4 times
    plain = analyze(workload, arch, ts.dataflow_of(problem, design, "d"))
    assert plain.cost.actions["O"].scratchpad_write_words == 4 * 32
    simulated = simulate(workload, arch, dataflow)
    assert simulated.to_dict() == analysis.to_dict()


@pytest.mark.slow
def test_the_search_counts_the_flat_variants_of_its_front(tmp_path):
    """The front is that of the closed-form front and its flat variants, each counted by
    analyze: here a flat design beats every design of the closed-form space."""
    workload = load_any_workload("conv2d", {"K": 4, "C": 8, "OX": 6, "OY": 4, "RX": 3, "RY": 3})
    arch = load_arch(arch_file(tmp_path, 4, 4, 512, False))
    problem = ts.tile_problem(workload, arch)
    prices = ts.prices_of(arch, problem)
    least = min(
        ts.energy_pj(problem, d, prices)
        for d in ts.designs(problem)
        if ts.glb_traffic(problem, d).capacity <= problem.capacity
    )
    result = ts.explore_tile_sizes(workload, arch, ("energy_pj",))
    [best] = result.pareto
    assert result.closed_forms == [None]  # a flat design: no closed form
    assert best.analysis.cost.energy_pj.total < least
    [path] = write_dataflows(result.pareto, tmp_path / "front")
    again = analyze(workload, arch, load_dataflow(path))
    assert again.cost.energy_pj.total == best.analysis.cost.energy_pj.total
