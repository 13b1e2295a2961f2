"""The memory levels in the design space (docs/dse.md, "Memory levels in the space").

A 4³ GEMM on a 2×2 array whose GLB sits under DRAM. The candidates are written out here by
hand, independently of the search's generator, and counted with plain `analyze`."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
import yaml

from tenet import load_arch, load_workload
from tenet.explore.dse import emit, explore
from tenet.model.dataflow import Dataflow, load_dataflow
from tenet.model.metrics import analyze
from tenet.util.isl_util import parse_union_map

GEMM = "workloads/gemm/workload.yaml"
SIZES = {"M": 4, "N": 4, "K": 4}


def write_arch(tmp_path, glb_words: int, technology: bool = False):
    arch = {
        "name": f"sys2-glb{glb_words}",
        "pe": {"shape": [2, 2]},
        "interconnect": [
            {"relation": "{ PE[i,j] -> PE[i-1,j] }"},
            {"relation": "{ PE[i,j] -> PE[i,j-1] }"},
        ],
        "memory": {"word_bits": 16, "bandwidth_bits": 64, "avg_latency": 16},
        "levels": [
            # single-buffered: the capacity these cases count is one tile's
            {"name": "GLB", "capacity": glb_words, "double_buffered": False},  # words
            {"name": "DRAM", "capacity": "1GiB", "bandwidth_gbps": 100},
        ],
    }
    if technology:
        arch["technology"] = {"node_nm": 45}  # DRAM lpddr4 by default: 8 pJ/bit
    path = tmp_path / f"arch-{glb_words}.yaml"
    path.write_text(yaml.safe_dump(arch))
    return load_arch(str(path))


def hand_space() -> list[Dataflow]:
    """Every unskewed candidate with one GLB depth: two distinct loops on the two axes
    (x % 2, y % 2), the tile coordinates floor(x/2), floor(y/2) in both orders, the third loop
    innermost; GLB depths 1 and 2 (of 3 time coordinates). 6 · 2 · 2 = 24 dataflows."""
    out = []
    for x, y in itertools.permutations("ijk", 2):
        (z,) = set("ijk") - {x, y}
        for first, second in ((x, y), (y, x)):
            for depth in (1, 2):
                out.append(
                    Dataflow(
                        f"{x}{y}-{first}{second}-{depth}",
                        parse_union_map(f"{{ S[i, j, k] -> PE[{x} % 2, {y} % 2] }}"),
                        parse_union_map(
                            f"{{ S[i, j, k] -> T[floor({first}/2), floor({second}/2), {z}] }}"
                        ),
                        tiles={"GLB": depth},
                    )
                )
    return out


@pytest.fixture(scope="module")
def workload():
    return load_workload(GEMM, SIZES)


@pytest.fixture(scope="module")
def plain(workload, tmp_path_factory):
    """(dram words, fits) of every hand-written candidate on the 24-word GLB."""
    arch = write_arch(tmp_path_factory.mktemp("a"), 24)
    out = []
    for dataflow in hand_space():
        analysis = analyze(workload, arch, dataflow)
        out.append((analysis.dram_words(), analysis.levels[0].fits))
    return out


def test_best_dram_is_the_least_over_the_fitting_candidates(workload, plain, tmp_path):
    arch = write_arch(tmp_path, 24)
    result = explore(workload, arch, objectives=("dram",), skew=False)
    fitting = [words for words, fits in plain if fits]
    assert result.candidates == len(plain) == 24
    assert [entry.objective_values()["dram"] for entry in result.pareto] == [min(fitting)]
    # By hand: a depth-1 tile fixes one spatial loop to 2 of its 4 values, so two tensors
    # keep 2·4 = 8 words and the third all 16: 32 > 24 words, none fits. A depth-2 tile
    # fixes two loops: 2·2 + 2·4 + 2·4 = 20 <= 24, all fit.
    assert [fits for _, fits in plain] == [False, True] * 12
    assert result.over_capacity == 12
    assert result.legal == 12
    # ... and the ones dropped would have won: a depth-1 tile that keeps the tensor the
    # first loop does not index moves each element once, 3 · 16 = 48 words.
    assert min(words for words, _ in plain) == 48 < min(fitting)


def test_every_candidate_fits_a_large_glb(workload, tmp_path):
    # 32 words hold a depth-1 tile (above); the front is then the algorithmic minimum,
    # every element of A, B and C moved once: 3 · 16 = 48 words.
    result = explore(workload, write_arch(tmp_path, 32), objectives=("dram",), skew=False)
    assert result.over_capacity == 0
    assert result.legal == 24
    assert [entry.objective_values()["dram"] for entry in result.pareto] == [48]


def test_emitted_yaml_round_trips(workload, tmp_path):
    arch = write_arch(tmp_path, 24)
    result = explore(workload, arch, objectives=("dram", "latency"), skew=False)
    paths = emit(result.pareto, tmp_path / "front")
    assert len(paths) == len(result.pareto) >= 1
    for entry, path in zip(result.pareto, paths):
        assert "tiles GLB=" in entry.notation
        dataflow = load_dataflow(path)
        assert dataflow.tiles == entry.tiles == {"GLB": 2}
        again = analyze(workload, arch, dataflow)
        assert again.dram_words() == entry.objective_values()["dram"]
        assert again.latency == entry.objective_values()["latency"]


def write_array_4x4(tmp_path, glb_words: int):
    """A 4×4 systolic array under a GLB of `glb_words` words and DRAM."""
    arch = {
        "name": f"sys4-glb{glb_words}",
        "pe": {"shape": [4, 4]},
        "interconnect": [
            {"relation": "{ PE[i,j] -> PE[i-1,j] }"},
            {"relation": "{ PE[i,j] -> PE[i,j-1] }"},
        ],
        "memory": {"word_bits": 16, "bandwidth_bits": 64, "avg_latency": 16},
        "levels": [
            {"name": "GLB", "capacity": glb_words, "double_buffered": False},
            {"name": "DRAM", "capacity": "1GiB", "bandwidth_gbps": 100},
        ],
    }
    path = tmp_path / "arch-4x4.yaml"
    path.write_text(yaml.safe_dump(arch))
    return load_arch(str(path))


@pytest.mark.parametrize(
    ("sizes", "glb_words"),
    [
        ({"M": 8, "N": 4, "K": 2}, 40),
        pytest.param({"M": 8, "N": 8, "K": 2}, 64, marks=pytest.mark.slow),
    ],
)
def test_pruning_with_the_dram_floor_keeps_the_front(tmp_path, sizes, glb_words):
    # K = 2 leaves some candidates 8 of the 16 PEs, so their time_steps bound loses to a
    # 16-PE candidate at the dram floor |A| + |B| + |C|: those are pruned.
    workload = load_workload(GEMM, sizes)
    arch = write_array_4x4(tmp_path, glb_words)
    objectives = ("dram", "time_steps")
    pruned = explore(workload, arch, objectives=objectives)
    full = explore(workload, arch, objectives=objectives, prune=False)
    assert pruned.pruned > 0 and full.pruned == 0
    assert pruned.to_dict()["pareto"] == full.to_dict()["pareto"]
    assert pruned.ties == full.ties
    floor = sizes["M"] * sizes["K"] + sizes["K"] * sizes["N"] + sizes["M"] * sizes["N"]
    assert pruned.pareto[0].objective_values()["dram"] >= floor


def test_energy_pj_prices_the_dram_words(workload, tmp_path):
    arch = write_arch(tmp_path, 24, technology=True)
    result = explore(workload, arch, objectives=("energy_pj",), skew=False, limit=2)
    assert result.pareto
    for entry in result.pareto:
        cost = entry.analysis.cost
        # DRAM part = words · 16 bits · 8 pJ/bit (lpddr4, docs/reference.md)
        assert cost.energy_pj.dram == Fraction(entry.analysis.dram_words() * 16 * 8)
        assert cost.energy_pj.dram > 0
