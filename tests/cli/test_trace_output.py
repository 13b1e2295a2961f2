"""`trace`'s report and plot: off the array it warns as `analyze` does and counts PEs
outside the array, its utilization above one is drawn unclipped, and the plot's panels
share one time axis."""

from __future__ import annotations

import pytest

from tenet import analyze, load_arch, load_dataflow, load_workload
from tenet.cli import main
from tenet.formats.presets import resolve_arch, resolve_dataflow, resolve_workload

from ..helpers import GEMM_OS_ARGS, run_cli

SMALL = ["--set", "M=16", "--set", "N=16", "--set", "K=16"]
# os-systolic-8x8 (PE[i%8, j%8]) on the 4x4 array: 64 PEs used, 64 - 16 = 48 outside it.
OFF_ARRAY = ["-w", "gemm", "-a", "systolic-4x4", "-d", "gemm/os-systolic-8x8", *SMALL]
OFF_ARRAY_WARNING = "48 used PEs lie outside the array, e.g. PE[0, 4]: an outside_array violation"


def analysis_of(workload: str, arch: str, dataflow: str, sets: dict[str, int]):
    path = resolve_workload(workload)
    return analyze(
        load_workload(path, sets),
        load_arch(resolve_arch(arch)),
        load_dataflow(resolve_dataflow(dataflow, path)),
    )


def test_trace_off_the_array_warns_as_analyze_does(capsys):
    rc, out, _ = run_cli(
        ["trace", *OFF_ARRAY, "--tensor", "A", "--steps", "2", "--pes", "3"], capsys
    )
    assert rc == 0
    analysis = analysis_of(
        "gemm", "systolic-4x4", "gemm/os-systolic-8x8", {"M": 16, "N": 16, "K": 16}
    )
    assert list(analysis.warnings) == [OFF_ARRAY_WARNING]
    assert f"warning: {OFF_ARRAY_WARNING}" in out
    assert "of 64 active PEs" not in out
    assert "3 of 64 used PEs (48 of them outside the 16-PE array)" in out


def test_trace_utilization_above_one_is_not_clipped(monkeypatch):
    """At M = N = K = 16, when i%8 + j%8 + k is 14 or 15 every (i%8, j%8) has a k in 0..15:
    all 64 PEs of the 8x8 dataflow are busy, 64/16 = 4 times the 4x4 array."""
    from tenet.analysis.trace import trace
    from tenet.report import plots

    path = resolve_workload("gemm")
    workload = load_workload(path, {"M": 16, "N": 16, "K": 16})
    result = trace(
        workload,
        load_arch(resolve_arch("systolic-4x4")),
        load_dataflow(resolve_dataflow("os-systolic-8x8", path)),
        "A",
    )
    busy = (result.activity > 0).sum(axis=0) / 16
    assert busy.max() == 4.0
    figures = []
    monkeypatch.setattr(plots, "save_figure", lambda fig, path, plt: figures.append(fig))
    plots.activity_plot(result, "unused.png", "t")
    bottom = figures[0].axes[2]
    assert bottom.get_ylabel() == "utilization"
    assert bottom.get_ylim()[1] >= 4.0


def test_trace_plot_panels_share_the_time_axis(monkeypatch, tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.colorbar import Colorbar

    from tenet.report import plots

    figures = []

    def keep(fig, path, plt):
        figures.append(fig)
        return str(path)

    monkeypatch.setattr(plots, "save_figure", keep)
    args = ["trace", *GEMM_OS_ARGS, "--set", "M=8", "--set", "N=8", "--set", "K=8"]
    assert main([*args, "--tensor", "A", "--plot", str(tmp_path / "t.png")]) == 0
    (fig,) = figures
    fig.canvas.draw()
    heatmap, colorbar_ax, utilization, _spare = fig.axes[:4]
    image = heatmap.images[0]
    steps = image.get_array().shape[1]
    assert heatmap.get_xlim() == utilization.get_xlim() == (-0.5, steps - 0.5)
    top, bottom = heatmap.get_position(), utilization.get_position()
    assert top.x0 == pytest.approx(bottom.x0, abs=1e-6)
    assert top.x1 == pytest.approx(bottom.x1, abs=1e-6)  # the colorbar takes no width from one
    assert colorbar_ax.get_position().x0 >= top.x1
    ticks = [t for t in colorbar_ax.get_yticks() if image.get_clim()[0] <= t <= image.get_clim()[1]]
    assert ticks and all(float(t).is_integer() for t in ticks)
    assert all(float(t).is_integer() for t in utilization.get_xticks())
    assert isinstance(image.colorbar, Colorbar)
