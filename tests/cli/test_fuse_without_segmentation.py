"""`fuse --no-segmentation`: the table shows no best segmentation, and every legend entry of
the plot has a line or a marker to see."""

from __future__ import annotations

import pytest

from tenet.cli import main

from ..helpers import run_cli


@pytest.mark.slow
def test_no_segmentation_prints_no_best_segmentation(capsys):
    rc, out, err = run_cli(["fuse", "-w", "gpt3-ffn", "--no-segmentation"], capsys)
    assert rc == 0, err
    assert "best segmentation" not in out and "best gain" not in out
    assert "tiled fusion, ffmt (ski slope)" in out
    assert "none (not searched)" in out
    rc, out, err = run_cli(["fuse", "-w", "gpt3-ffn"], capsys)
    assert rc == 0, err
    assert "best segmentation (ski slope)" in out and "segments" in out


@pytest.mark.parametrize(
    "chain", [pytest.param("gpt3-attention", marks=pytest.mark.slow), "gpt3-ffn"]
)
def test_every_legend_entry_of_the_fusion_plot_has_a_line(chain, monkeypatch, tmp_path):
    from tenet.report import plots

    figures = []
    monkeypatch.setattr(plots, "save_figure", lambda fig, path, plt: figures.append(fig))
    args = ["fuse", "-w", chain, "--no-segmentation", "--plot", str(tmp_path / "f.png")]
    assert main(args) == 0
    (fig,) = figures
    (ax,) = fig.axes
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert "best segmentation" not in labels
    lines = {line.get_label(): line for line in ax.get_lines()}
    for label in labels:
        line = lines[label]
        xs = line.get_xdata()
        # Something to see: a segment (two points or more) or a marker.
        assert len(set(map(float, xs))) > 1 or line.get_marker() not in (None, "None", "")
