"""The library calls behind `tenet bounds` and `tenet fuse` (search_report, fusion_study,
chimera_study), without the CLI: values checked by hand."""

from __future__ import annotations

from tenet.bounds.chain import build_chain, load_chain
from tenet.bounds.fusion_study import ChimeraOptions, FusionOptions, chimera_study, fusion_study
from tenet.bounds.slope import BoundsOptions, search_report
from tenet.bounds.snowcat import problem_from_einsum
from tenet.formats.presets import resolve_workload


def test_search_report_reads_the_front_at_sizes():
    n = 64
    problem = problem_from_einsum("Z[m,n] += A[m,k] * B[k,n]", {"m": n, "k": n, "n": n})
    options = BoundsOptions(at=(str(n * n + 2 * n - 1), str(n * n + 2 * n)))
    report = search_report(problem, options).to_dict()
    # n^2 + 2n words hold Z whole, a row of A and a column of B: every tensor moves once,
    # 3 n^2 = 12,288. One word less and one of A or B is read twice: 4 n^2 = 16,384.
    assert [row["accesses"] for row in report["at"]] == [4 * n * n, 3 * n * n]
    assert report["pareto"][-1]["accesses"] == report["algorithmic_minimum"] == 3 * n * n
    assert "hierarchy" not in report and "area_split" not in report


def test_fusion_study_reaches_the_fused_minimum():
    chain = build_chain(
        "small",
        [("G1", "B[m,n] += A[m,k] * W1[k,n]"), ("G2", "C[m,p] += B[m,n] * W2[n,p]")],
        {"m": 8, "k": 4, "n": 4, "p": 4},
    )
    study = fusion_study(chain, FusionOptions(at=(("40", 40),)))
    report = study.to_dict()
    # Fused, the intermediate B never leaves the chip: A (8x4), W1 (4x4), W2 (4x4) and
    # C (8x4) once each, 32 + 16 + 16 + 32 = 96 accesses; unfused adds B written and read
    # back, 2 x 32 = 64 more.
    row = report["at"][0]
    assert row["tiled"] == 96
    assert report["algorithmic_minimum"] == {"fused": 96, "unfused": 96 + 32 + 32}
    assert row["lower_bound"] <= row["tiled"]
    assert "uneven" not in report and "area_split" not in report


def test_chimera_study_with_whole_loops_moves_each_tensor_once():
    chain = load_chain(resolve_workload("bert-attention"))
    one = chimera_study(chain, ChimeraOptions(order="hmlkn")).to_dict()
    # Every loop whole: Q, K, V and O (12 heads x 512 tokens x 64 each) move once.
    h, t, e = 12, 512, 64
    assert one["dv"] == 4 * h * t * e
    both = chimera_study(chain, ChimeraOptions(order="hmlkn", capacity=1024)).to_dict()
    assert both["dv"] == one["dv"] and both["capacity"] == 1024
    assert both["best"]["dv"] >= one["dv"]  # 1,024 words cannot beat moving each word once
