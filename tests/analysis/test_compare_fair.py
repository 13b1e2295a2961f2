"""`tenet compare` ranks an energy in pJ only across columns that price the same parts
(`priced_parts`); a column without component costs shows `-` in the pJ and µm² rows, which
are then not ranked; every warning is printed once, prefixed with its column. The DRAM
energies below are counted by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tenet import analyze, load_arch, load_dataflow, load_workload
from tenet.analysis.compare import (
    Row,
    column_labels,
    comparison_rows,
    comparison_warnings,
    cost_ranking,
    objective_winners,
    priced_parts,
)

from ..conftest import ARCHS, WORKLOADS
from ..helpers import run_cli, write_yaml

ROOT = Path(__file__).resolve().parents[1]
SYS8_GLB_DRAM = ROOT / "data" / "hierarchy" / "sys8-glb-dram.yaml"
GEMM = WORKLOADS / "gemm" / "workload.yaml"
OS_8X8 = WORKLOADS / "gemm" / "dataflows" / "os-systolic-8x8.yaml"
SIZE = ["--set", "M=16", "--set", "N=16", "--set", "K=8"]

# gemm M=16, N=16, K=8 under os-systolic-8x8 with GLB tiles of depth 2 (the hand count of
# tests/cli/test_compare_levels.py): one tile per 8x8 block of C. A's 8 rows stay while the
# block column moves: 16·8 = 128 reads; B's 8 columns enter with each of the 4 tiles:
# 4·8·8 = 256 reads; C is written first (no reads) and each of its 256 words leaves once.
# Words crossing into DRAM: 128 + 256 + 256 = 640; at 6.25 pJ/bit × 16 bits = 100 pJ a
# word, the DRAM part is 64,000 pJ.
DRAM_WORDS = 128 + 256 + 256
DRAM_PJ = DRAM_WORDS * 100


def with_l2(tmp_path: Path) -> Path:
    """sys8-glb-dram with an L2 between its GLB and DRAM: a GLB tile depth then prices
    no DRAM words (the GLB's level above is L2, not the outermost)."""
    data = yaml.safe_load(SYS8_GLB_DRAM.read_text())
    data["name"] = "sys8-l2"
    data["levels"] = [
        {"name": "GLB", "capacity": 2048},
        {"name": "L2", "capacity": 65536, "bandwidth_gbps": 20},
        {"name": "DRAM", "capacity": "1GiB", "bandwidth_gbps": 2},
    ]
    return write_yaml(tmp_path, "sys8-l2", data)


def analysis(arch: Path, tiles: dict[str, int] | None = None):
    from tenet.model.dataflow import with_tiles

    workload = load_workload(GEMM, {"M": 16, "N": 16, "K": 8})
    dataflow = load_dataflow(OS_8X8)
    if tiles:
        dataflow = with_tiles(dataflow, tiles)
    return analyze(workload, load_arch(arch), dataflow)


def row_cells(out: str, label: str) -> list[str]:
    line = next(line for line in out.splitlines() if line.strip().startswith(label))
    return line.strip().removeprefix(label).split()


# --- priced_parts --------------------------------------------------------------------------------


def test_dram_is_priced_iff_the_dram_words_are_known(tmp_path):
    tiled = analysis(SYS8_GLB_DRAM, {"GLB": 2})
    assert tiled.dram_words() == DRAM_WORDS
    assert tiled.cost.energy_pj.dram == DRAM_PJ
    assert "dram" in priced_parts(tiled)
    assert {"mac", "registers", "scratchpad", "interconnect"} <= priced_parts(tiled)
    untiled = analysis(SYS8_GLB_DRAM)  # no tile depth on the GLB: DRAM words unknown
    assert untiled.dram_words() is None and "dram" not in priced_parts(untiled)
    inner = analysis(with_l2(tmp_path), {"GLB": 2})  # the GLB's level above is L2
    assert inner.dram_words() is None and "dram" not in priced_parts(inner)
    assert priced_parts(analysis(ARCHS / "systolic-8x8.yaml")) == frozenset()  # no costs


# --- the table, JSON and warnings of the command ---------------------------------------------


def test_energy_is_not_ranked_across_different_parts(tmp_path, capsys):
    """Both archs have the same array and component values; only sys8-glb-dram prices the
    640 DRAM words (64,000 pJ), so its energy is far larger for that reason alone: the pJ
    rows are not ranked, and the warning names the arch and the part it does not price."""
    args = ["compare", "-w", "gemm", "-d", "os-systolic-8x8", *SIZE, "--tile", "GLB=2"]
    args += ["-a", SYS8_GLB_DRAM, "-a", with_l2(tmp_path)]
    rc, out, _ = run_cli(args, capsys)
    assert rc == 0
    cells = row_cells(out, "energy (pJ) (not ranked)")
    assert len(cells) == 2 and not any(c.startswith("*") for c in cells)
    message = "sys8-l2 prices no DRAM (energy_pj.dram), which sys8-glb-dram prices"
    assert [line for line in out.splitlines() if message in line] == [
        f"warning: {message}: the energies in pJ are not ranked"
    ]
    rc, out, err = run_cli([*args, "--format", "json"], capsys)
    data = json.loads(out)
    assert data["results"][0]["cost"]["energy_pj"]["dram"] == DRAM_PJ
    assert data["energy_ranked"] is False and data["area_ranked"] is True
    assert "dram" in data["priced_parts"][0] and "dram" not in data["priced_parts"][1]
    assert any(message in line for line in data["unranked_reason"])
    assert err.count(message) == 1  # JSON on stdout: the warning goes to stderr, once


def test_same_parts_are_ranked(tmp_path, capsys):
    """Two archs that price the same parts (both with DRAM words) are ranked as before: the
    one whose register reads cost 0.1 pJ less has the smaller energy and the star."""
    data = yaml.safe_load(SYS8_GLB_DRAM.read_text())
    data["name"] = "dearer-registers"
    data["components"]["register"]["read_pj"] = 0.2
    dearer = write_yaml(tmp_path, "dearer", data)
    args = ["compare", "-w", "gemm", "-d", "os-systolic-8x8", *SIZE, "--tile", "GLB=2"]
    rc, out, _ = run_cli([*args, "-a", SYS8_GLB_DRAM, "-a", dearer], capsys)
    assert rc == 0
    cells = row_cells(out, "energy (pJ)")
    assert cells[0].startswith("*") and not cells[1].startswith("*")
    assert "not ranked" not in out and "prices no" not in out


def test_a_column_without_costs_is_shown_not_dropped(capsys):
    """One arch with component values and one without: the pJ and µm² rows stay, with `-`
    for the arch without, unranked, and a warning naming that arch."""
    args = ["compare", "-w", "gemm", "-d", "os-systolic-8x8", *SIZE]
    rc, out, _ = run_cli([*args, "-a", SYS8_GLB_DRAM, "-a", "systolic-8x8"], capsys)
    assert rc == 0
    energy = row_cells(out, "energy (pJ) (not ranked)")
    area = row_cells(out, "area (µm²) (not ranked)")
    assert energy[1] == "-" and area[1] == "-"
    assert not energy[0].startswith("*") and not area[0].startswith("*")
    assert "warning: systolic-8x8 has no component costs" in out
    rc, out, _ = run_cli(
        [*args, "-a", SYS8_GLB_DRAM, "-a", "systolic-8x8", "--format", "json"], capsys
    )
    data = json.loads(out)
    assert data["energy_ranked"] is False and data["area_ranked"] is False
    assert data["priced_parts"][1] is None


def test_each_warning_once_prefixed_with_its_column(tmp_path, capsys):
    """-d and --best on one mesh array counted with TENET's literal same-step rule: both
    columns warn of the same-step cycle; each is printed once, named by its arch and
    dataflow (it was printed twice, both times under the arch's name alone)."""
    data = yaml.safe_load((ARCHS / "systolic-8x8.yaml").read_text())
    literal = write_yaml(tmp_path, "systolic-8x8", {**data, "same_step": "tenet"})
    args = ["compare", "-w", "gemm", "-a", str(literal), "--topologies", "mesh"]
    args += ["-d", "os-systolic-8x8", "--best", "latency", "--set", "M=8", "--set", "N=8"]
    args += ["--set", "K=2", "--jobs", "1", "-q"]
    rc, out, err = run_cli(args, capsys)
    assert rc == 0
    warnings = [line for line in out.splitlines() if line.startswith("warning:")]
    assert len(warnings) == len(set(warnings)) == 2
    assert warnings[0].startswith("warning: systolic-8x8+mesh · os-systolic-8x8: same-step")
    assert warnings[1].startswith("warning: systolic-8x8+mesh · best-latency: same-step")
    assert "warning" not in err
    rc, out, err = run_cli([*args, "--format", "json"], capsys)
    lines = err.splitlines()
    assert len(lines) == 2 and all(
        line.startswith("tenet: warning: systolic-8x8+mesh · ") for line in lines
    )
    assert json.loads(out)["warnings"] == [line.removeprefix("tenet: warning: ") for line in lines]


@pytest.mark.slow
def test_brief_command_best_energy_is_not_ranked(tmp_path, capsys):
    """The command of the report (16³ GEMM, --best energy_pj at 40 nm) on systolic-4x4 and
    the same array with a GLB and DRAM: the second column's search picks a GLB tile depth,
    so only it prices DRAM; neither the pJ row nor the objective's row is starred."""
    data = yaml.safe_load((ARCHS / "systolic-4x4.yaml").read_text())
    data["name"] = "sys4-glb"
    data["levels"] = [
        {"name": "GLB", "capacity": 1024},
        {"name": "DRAM", "capacity": "1GiB", "bandwidth_gbps": 2},
    ]
    glb = write_yaml(tmp_path, "sys4-glb", data)
    args = ["compare", "-w", "gemm", "-a", "systolic-4x4", "-a", glb, "--best", "energy_pj"]
    args += ["--technology", "40", "--set", "M=16", "--set", "N=16", "--set", "K=16"]
    rc, out, _ = run_cli([*args, "--jobs", "1", "-q"], capsys)
    assert rc == 0
    for label in ("energy (pJ) (not ranked)", "energy_pj (--best objective) (not ranked)"):
        assert not any(c.startswith("*") for c in row_cells(out, label))
    assert "warning: systolic-4x4 prices no DRAM (energy_pj.dram), which sys4-glb prices" in out


# --- the library, on hand-made results -------------------------------------------------------


def made(arch: str, energy: float | None, objective: str = "energy_pj", kinds=()) -> dict:
    """A result with what the comparison reads; `energy` None: no component costs."""
    side = {"unique": 1, "reuse": 1}
    result = {
        "arch": arch,
        "dataflow": f"best-{objective}",
        "notation": "n",
        "tensors": {"A": {"read": side, "write": None}},
        "bandwidth": {"ibw": 1.0, "sbw": 1.0},
        "links": [],
        "delay": {"latency": 10},
        "utilization": 0.5,
        "energy": 1.0,
        "warning_kinds": list(kinds),
        "best": {"objective": objective, "value": energy, "maximize": False},
    }
    if energy is not None:
        result["cost"] = {"energy_pj": {"total": energy}, "area_um2": {"total": 1.0}}
    return result


BASE = frozenset({"mac", "registers", "scratchpad", "interconnect"})


def test_objective_winners_are_the_starred_columns():
    results = [made("a", 5.0), made("b", 3.0), made("c", 3.0)]
    assert objective_winners(results, [BASE] * 3) == {1, 2}  # every tied winner
    results[1]["warning_kinds"] = ["same_step_cycle"]
    assert objective_winners(results, [BASE] * 3) == {2}  # never an unranked column
    priced = [BASE, BASE | {"dram"}, BASE]
    assert objective_winners(results, priced) == set()  # different parts: not ranked
    latency = [made("a", 5.0, "latency"), made("b", 3.0, "latency")]
    assert objective_winners(latency, [BASE, BASE | {"dram"}]) == {1}  # not an energy


def test_cost_ranking_and_rows_on_hand_made_results():
    results = [made("a", 5.0), made("b", 3.0)]
    ranking = cost_ranking(results, [BASE, BASE | {"dram"}])
    assert not ranking.energy and ranking.area
    assert ranking.reasons == (
        "a prices no DRAM (energy_pj.dram), which b prices: the energies in pJ are not ranked",
    )
    rows = {row.label: row for row in comparison_rows(results, [BASE, BASE | {"dram"}])}
    assert not rows["energy (pJ)"].ranked and rows["energy (pJ)"].best() == set()
    assert rows["area (µm²)"].ranked
    assert Row("x", "energy", [2, 1], ranked=False).best() == set()
    mixed = [made("a", 5.0), made("b", None)]
    rows = {row.label: row for row in comparison_rows(mixed, [BASE, frozenset()])}
    assert rows["energy (pJ)"].values == [5.0, None] and not rows["energy (pJ)"].ranked
    assert rows["area (µm²)"].values == [1.0, None] and not rows["area (µm²)"].ranked
    assert comparison_warnings(mixed, [BASE, frozenset()])[-1].startswith(
        "b has no component costs"
    )


def test_column_labels():
    one = [made("a", 1.0), made("b", 1.0)]
    assert column_labels(one) == ["a", "b"]
    two = [{**made("a", 1.0), "dataflow": "os"}, made("a", 1.0)]
    assert column_labels(two) == ["a · os", "a · best-energy_pj"]
    assert column_labels([made("a", 1.0), made("a", 1.0)]) == ["a [1]", "a [2]"]


def test_intermediate_part_is_priced_when_a_counted_boundary_touches_a_middle_level():
    """`intermediate` (the levels between the scratchpad and the outermost) is priced when
    some counted boundary has such a level at one end: GLB <-> L2 (L2 above), or L2 <->
    DRAM (L2 inside); never on a two-level arch."""
    from tenet import analyze, load_arch, load_dataflow, load_workload
    from tenet.analysis.compare import priced_parts
    from tenet.model.dataflow import with_tiles

    from ..conftest import ROOT, WORKLOADS

    workload = load_workload(WORKLOADS / "gemm" / "workload.yaml", {"M": 8, "N": 8, "K": 8})
    flow = load_dataflow(WORKLOADS / "gemm" / "dataflows" / "os-systolic-8x8.yaml")
    three = load_arch(ROOT / "tests" / "data" / "pricing" / "sys8-glb-l2-dram-priced.yaml")
    two = load_arch(ROOT / "tests" / "data" / "hierarchy" / "sys8-glb-dram.yaml")
    for arch, tiles, expected in (
        (three, {"GLB": 2}, True),
        (three, {"L2": 1}, True),
        (three, {"GLB": 2, "L2": 1}, True),
        (three, {}, False),
        (two, {"GLB": 2}, False),
    ):
        parts = priced_parts(analyze(workload, arch, with_tiles(flow, tiles)))
        assert ("intermediate" in parts) is expected, (arch.name, tiles)
        assert ("dram" in parts) is ("L2" in tiles or arch is two), (arch.name, tiles)
