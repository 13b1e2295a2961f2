"""The bounds reports are dataclasses until output: `BoundsReport` (`search_report`),
`ChimeraStudy` (`chimera_study`), `CapacityBound` and `DramBound` (`analyze --bound`). Their
`to_dict()` is the JSON the dictionaries were: the same keys, in the same order, and the
same numbers. The library names options, never flags; the command line names the flags."""

from __future__ import annotations

import json

import pytest

from tenet.bounds.capacity import CapacityBound
from tenet.bounds.chain import load_chain
from tenet.bounds.fusion_study import ChimeraOptions, ChimeraStudy, chimera_study
from tenet.bounds.level_bound import DramBound
from tenet.bounds.slope import BoundsOptions, BoundsReport, search_report, slope_report
from tenet.bounds.snowcat import problem_from_einsum, snowcat_front
from tenet.errors import InputError
from tenet.formats.presets import resolve_workload

from ..helpers import run_cli

GEMM = "Z[m,n] += A[m,k] * B[k,n]"

CAPACITY_KEYS = ["capacity_words", "accesses", "mapping", "dataflow_traffic", "ratio"]
DRAM_KEYS = [
    "level",
    "above",
    "capacity_words",
    "dataflow_words",
    "bound_words",
    "snowcat_accesses",
    "snowcat_mapping",
    "lower_bound",
    "ratio_to_lower_bound",
    "note",
]


def test_capacity_bound_is_the_bound_block():
    # 1,500 words of dataflow traffic against 1,000 at the capacity: ratio 1.5.
    bound = CapacityBound(4096, 1000, "outer m1=2", 1500)
    data = bound.to_dict()
    assert list(data) == CAPACITY_KEYS
    assert data == {
        "capacity_words": 4096,
        "accesses": 1000,
        "mapping": "outer m1=2",
        "dataflow_traffic": 1500,
        "ratio": 1.5,
    }
    # No mapping fits: no accesses, no ratio.
    assert CapacityBound(2, None, None, 1500).to_dict()["ratio"] is None


def test_dram_bound_is_the_dram_block():
    # docs/levels.md's 16^3 example (tests/bounds/test_levels_vs_bound.py counts it by
    # hand): 1,536 words against a floor of 768, ratio 2.
    bound = DramBound("GLB", "DRAM", 144, 1536, 1536, None, 1280, "m", 768)
    data = bound.to_dict()
    assert list(data) == DRAM_KEYS
    assert (data["ratio_to_lower_bound"], data["note"]) == (2.0, None)
    # Words the lower bound's model cannot charge: only the note and the level's own words.
    why = DramBound("GLB", "DRAM", 144, 1536, None, note="read at other elements")
    assert why.to_dict() == {
        "level": "GLB",
        "above": "DRAM",
        "capacity_words": 144,
        "dataflow_words": 1536,
        "bound_words": None,
        "snowcat_accesses": None,
        "snowcat_mapping": None,
        "lower_bound": None,
        "ratio_to_lower_bound": None,
        "note": "read at other elements",
    }


@pytest.mark.parametrize(
    "options",
    [
        BoundsOptions(),
        BoundsOptions(at=("1KiB", "300"), bypass=True),
        BoundsOptions(macs_per_cycle=64, bandwidth_gbps=20.0),
    ],
    ids=["plain", "lookups", "mesa"],
)
def test_bounds_report_is_the_slope_report_of_its_front(options):
    # The report was the slope report of the searched front: the typed one gives it at output.
    problem = problem_from_einsum(GEMM, {"m": 16, "k": 8, "n": 12})
    report = search_report(problem, options)
    assert isinstance(report, BoundsReport)
    front, evaluated = snowcat_front(problem, options.bypass)
    assert report.front == front and report.mappings_evaluated == evaluated
    old = slope_report(
        problem,
        front,
        evaluated,
        options.bypass,
        options.word_bits,
        options.at,
        macs_per_cycle=options.macs_per_cycle,
        bandwidth_gbps=options.bandwidth_gbps,
    )
    assert json.dumps(report.to_dict()) == json.dumps(old)


def test_bounds_report_reaches_the_algorithmic_minimum():
    # n^2 + 2n words hold Z whole, a row of A and a column of B: 3 n^2 accesses at n = 8.
    problem = problem_from_einsum(GEMM, {"m": 8, "k": 8, "n": 8})
    data = search_report(problem, BoundsOptions(at=("80",))).to_dict()
    assert data["at"][0]["accesses"] == 3 * 64 == data["algorithmic_minimum"]


def test_chimera_study_joins_the_order_and_the_search():
    found = {"best": {"dv": 8, "warnings": ["v"]}, "capacity": 64, "perfect": False}
    both = ChimeraStudy({"dv": 10, "warnings": ["w"]}, {**found, "evaluated": 5})
    assert both.to_dict() == {
        "dv": 10,
        "warnings": ["w"],
        "best": {"dv": 8, "warnings": ["v"]},
        "capacity": 64,
        "perfect": False,
        "evaluated": 5,
    }
    assert both.warnings == ["w", "v"]
    assert ChimeraStudy(None, found).to_dict() == found
    assert ChimeraStudy({"dv": 10}).to_dict() == {"dv": 10}


def test_chimera_study_of_bert_attention_moves_each_tensor_once():
    # Every loop whole: Q, K, V and O (12 heads x 512 tokens x 64 each) move once.
    chain = load_chain(resolve_workload("bert-attention"))
    study = chimera_study(chain, ChimeraOptions(order="hmlkn"))
    assert study.found is None and study.to_dict()["dv"] == 4 * 12 * 512 * 64


def test_library_errors_name_options_and_the_cli_names_flags(capsys):
    with pytest.raises(InputError) as info:
        problem_from_einsum(GEMM, {"m": 4, "k": 4})
    assert info.value.option == "shape"
    assert info.value.line() == "shape: rank 'n' has no size (give shape n=N)"
    rc, _, err = run_cli(["bounds", "--einsum", GEMM, "--shape", "m=4,k=4"], capsys)
    assert rc == 2
    assert err.strip() == "tenet: error: --shape: rank 'n' has no size (give --shape n=N)"
    rc, _, err = run_cli(
        ["bounds", "--einsum", GEMM, "--shape", "m=4,k=4,n=4", "--at", "4x"], capsys
    )
    assert rc == 2 and err.startswith("tenet: error: --at: cannot read size '4x'")
