"""The worked example of docs/metrics.md: 2x2x4 GEMM on a 2x2 systolic array,
Θ = { S[i,j,k] -> (PE[i,j] | T[i+j+k]) }. Expected values are the paper's table."""

from __future__ import annotations

import pytest

from tenet import analyze, load_arch, load_dataflow, load_workload, simulate

from ..helpers import write_yaml

ARCH = {
    "name": "systolic-2x2",
    "pe": {"shape": [2, 2]},
    "interconnect": [
        {"relation": "{ PE[i,j] -> PE[i-1,j] }"},
        {"relation": "{ PE[i,j] -> PE[i,j-1] }"},
    ],
}
DATAFLOW = {
    "name": "skewed",
    "space": "{ S[i,j,k] -> PE[i,j] }",
    "time": "{ S[i,j,k] -> T[i+j+k] }",
}


def gemm(extra: str = "") -> dict:
    return {
        "name": "gemm-2x2x4",
        "statements": [
            {
                "domain": f"{{ S[i,j,k] : 0 <= i < 2 and 0 <= j < 2 and 0 <= k < 4 {extra} }}",
                "reads": {"A": "{ S[i,j,k] -> A[i,k] }", "B": "{ S[i,j,k] -> B[k,j] }"},
                "writes": {"C": "{ S[i,j,k] -> C[i,j] }"},
            }
        ],
    }


@pytest.fixture(params=[analyze, simulate], ids=["analyze", "simulate"])
def method(request):
    return request.param


def run(tmp_path, method, workload):
    return method(
        load_workload(write_yaml(tmp_path, "w", workload)),
        load_arch(write_yaml(tmp_path, "a", ARCH)),
        load_dataflow(write_yaml(tmp_path, "d", DATAFLOW)),
    ).to_dict()


def test_first_four_steps(tmp_path, method):
    # Only the instances with t = i+j+k <= 3, as in the paper's table.
    a = run(tmp_path, method, gemm("and i + j + k <= 3"))["tensors"]["A"]["read"]
    assert (a["total"], a["reuse"], a["unique"]) == (12, 5, 7)
    assert a["reuse_factor"] == pytest.approx(12 / 7)


def test_whole_domain(tmp_path, method):
    result = run(tmp_path, method, gemm())
    a = result["tensors"]["A"]["read"]
    assert (a["total"], a["unique"]) == (16, 8)  # each of A's 8 elements enters once
    assert result["time_steps"] == 6  # t = 0..5
    assert result["instances"] == 16 and result["active_pes"] == 4
