"""The plot of `tenet compare --plot`: it hatches exactly the columns the table stars in the
--best objective's row (every tied winner, never an unranked column), names the archs under
the energy and area breakdowns, keeps its legends off the bars and its bars off the frame,
and shows the energy in pJ when every column has it; an empty `--plot` is refused."""

from __future__ import annotations

import pytest
import yaml

from tenet import analyze, load_arch, load_dataflow, load_workload
from tenet.report import plots
from tenet.report.plots import comparison_plot
from tenet.report.tables import render_comparison

from ..conftest import ARCHS, WORKLOADS
from ..helpers import run_cli, write_yaml


@pytest.fixture
def figures(monkeypatch) -> list:
    """The figures comparison_plot draws, kept open instead of written."""
    kept: list = []
    monkeypatch.setattr(plots, "save_figure", lambda fig, path, plt: kept.append(fig))
    yield kept
    import matplotlib.pyplot as plt

    for fig in kept:
        plt.close(fig)


@pytest.fixture(scope="module")
def base() -> dict:
    workload = load_workload(WORKLOADS / "gemm" / "workload.yaml", {"M": 8, "N": 8, "K": 4})
    dataflow = load_dataflow(WORKLOADS / "gemm" / "dataflows" / "os-systolic-8x8.yaml")
    return analyze(workload, load_arch(ARCHS / "systolic-8x8.yaml"), dataflow).to_dict()


def column(base: dict, arch: str, value: float, energy: dict | None = None) -> dict:
    """`base` as the --best latency column of `arch`, with `value` as its objective and,
    given `energy` ({part: pJ}), component costs (area: 1,500 + 500 µm²)."""
    result = {**base, "arch": arch, "dataflow": "best-latency", "notation": "n"}
    result["best"] = {"objective": "latency", "value": value, "maximize": False}
    if energy is not None:
        result["cost"] = {
            "energy_pj": {"total": sum(energy.values()), **energy},
            "area_um2": {"total": 2000.0, "pe_array": 1500.0, "scratchpad": 500.0},
        }
    return result


def starred(table: str, label: str) -> set[int]:
    """The columns whose cell carries the table's `*` in the row starting with `label`."""
    line = next(line for line in table.splitlines() if line.strip().startswith(label))
    cells = line.strip().removeprefix(label).split()
    return {n for n, cell in enumerate(cells) if cell.startswith("*")}


def hatched(fig) -> set[int]:
    ax = fig.axes[0]
    return {n for n, bars in enumerate(ax.containers) if bars.patches[0].get_hatch()}


def test_plot_hatches_every_starred_column_and_no_unranked_one(base, figures):
    """Objective values 50, 30, 30, 10: the last is best but its column rests on a warned
    effect (unranked, `!`), so the table stars the tied 30s, and the plot hatches both."""
    results = [column(base, name, v) for name, v in zip("abcd", (50, 30, 30, 10))]
    results[3]["warning_kinds"] = ["same_step_cycle"]
    table = render_comparison("gemm", "best latency", results, "table", flags={"best": "--best"})
    assert starred(table, "latency (--best objective)") == {1, 2}
    comparison_plot("gemm", "best latency", results, "x.png")
    assert hatched(figures[0]) == {1, 2}
    legend = [t.get_text() for t in figures[0].legends[0].get_texts()]
    assert ["★" in t for t in legend] == [False, True, True, False]
    assert "not ranked" in legend[3]


def test_no_hatch_when_the_objective_row_is_not_ranked(base, figures):
    """An energy objective on columns that price different parts: no star, no hatch."""
    results = [column(base, "a", 5.0, {"mac": 5.0}), column(base, "b", 3.0, {"mac": 3.0})]
    for r in results:
        r["best"]["objective"] = "energy_pj"
    base_parts = frozenset({"mac", "registers", "scratchpad", "interconnect"})
    priced = [base_parts, base_parts | {"dram"}]
    table = render_comparison(
        "gemm", "best energy_pj", results, "table", priced=priced, flags={"best": "--best"}
    )
    assert starred(table, "energy_pj (--best objective) (not ranked)") == set()
    comparison_plot("gemm", "best energy_pj", results, "x.png", priced=priced)
    assert hatched(figures[0]) == set()


PARTS_A = {"mac": 10.0, "registers": 5.0, "scratchpad": 20.0, "interconnect": 1.5, "dram": 100.0}
PARTS_B = {"mac": 10.0, "registers": 4.0, "scratchpad": 30.0, "interconnect": 0.5, "dram": 90.0}


def test_breakdowns_name_the_archs_and_energy_is_in_pj(base, figures):
    """Energies 10 + 5 + 20 + 1.5 + 100 = 136.5 pJ and 10 + 4 + 30 + 0.5 + 90 = 134.5 pJ:
    the relative panel's energy group shows 1 and 134.5 / 136.5 (TENET's unitless energy
    is the same in both columns, so it would show 1 and 1)."""
    results = [
        column(base, "sys-a", 1.0, PARTS_A),
        column(base, "sys-b", 2.0, PARTS_B),
    ]
    comparison_plot("gemm", "best latency", results, "x.png")
    fig = figures[0]
    relative, energy, area = fig.axes
    groups = [t.get_text() for t in relative.get_xticklabels()]
    group = groups.index("energy\n(pJ)")
    heights = [bars.patches[group].get_height() for bars in relative.containers]
    assert heights == pytest.approx([1.0, 134.5 / 136.5])
    for ax, unit in ((energy, "energy (pJ)"), (area, "area (µm²)")):
        assert [t.get_text() for t in ax.get_xticklabels()] == ["sys-a", "sys-b"]
        assert ax.get_ylabel() == unit and ax.get_xlabel() == ""
    tops = [p.get_y() + p.get_height() for p in energy.patches]
    assert max(tops) == pytest.approx(136.5)
    assert max(p.get_y() + p.get_height() for p in area.patches) == pytest.approx(2000.0)


def test_legends_stay_off_the_bars_and_bars_off_the_frame(base, figures):
    results = [
        column(base, "sys-a", 1.0, PARTS_A),
        column(base, "sys-b", 2.0, PARTS_B),
        column(base, "sys-c", 3.0, PARTS_B),
    ]
    comparison_plot("gemm", "best latency", results, "x.png")
    fig = figures[0]
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend())]
    assert len(legends) == 3  # the columns, the energy parts, the area parts
    for ax in fig.axes:
        top = max(p.get_y() + p.get_height() for p in ax.patches)
        assert ax.get_ylim()[1] >= 1.05 * top  # headroom above the tallest bar
        for bar in ax.patches:
            box = bar.get_window_extent(renderer)
            for legend in legends:
                assert not legend.get_window_extent(renderer).overlaps(box)


def test_without_costs_the_relative_energy_is_tenets(base, figures):
    comparison_plot("gemm", "os", [base, {**base, "arch": "other"}], "x.png")
    fig = figures[0]
    assert len(fig.axes) == 1
    groups = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert "energy\n(TENET, unitless)" in groups and hatched(fig) == set()


def test_empty_plot_name_is_refused(capsys):
    args = ["compare", "-w", "gemm", "-d", "os-systolic-8x8", "-a", "systolic-8x8"]
    rc, out, err = run_cli(
        [*args, "--set", "M=8", "--set", "N=8", "--set", "K=2", "--plot", ""], capsys
    )
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and "--plot" in err and "empty" in err


@pytest.mark.slow
def test_topologies_plot_matches_the_table(tmp_path, figures, capsys):
    """The report's command, on a 4x4 array and an 8³ GEMM, counted with TENET's literal
    same-step rule (`same_step: tenet`): mesh and torus rest on same-step free reuse
    (unranked); the plot hatches exactly the columns starred in the objective's row (it
    hatched mesh)."""
    data = yaml.safe_load((ARCHS / "systolic-4x4.yaml").read_text())
    literal = write_yaml(tmp_path, "systolic-4x4", {**data, "same_step": "tenet"})
    args = ["compare", "-w", "gemm", "-a", str(literal), "--best", "energy_pj"]
    args += ["--topologies", "systolic-2d,mesh,torus,row-multicast,broadcast,mtia-grid"]
    args += ["--technology", "40", "--set", "M=8", "--set", "N=8", "--set", "K=8"]
    rc, out, _ = run_cli([*args, "--jobs", "1", "-q", "--plot", tmp_path / "g.png"], capsys)
    assert rc == 0
    stars = starred(out, "energy_pj (--best objective)")
    assert stars and not stars & {1, 2}  # mesh and torus are unranked
    assert hatched(figures[0]) == stars
