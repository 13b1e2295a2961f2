"""Closed forms for classic dataflows, computed by hand, checked against the engine
and (for small sizes) the brute-force simulator."""

from __future__ import annotations

from math import ceil
from pathlib import Path

import pytest

from tenet import analyze, load_arch, load_dataflow, load_workload, simulate

from ..conftest import ARCHS, WORKLOADS

GEMM = WORKLOADS / "gemm" / "workload.yaml"
OS = WORKLOADS / "gemm" / "dataflows" / "os-systolic-8x8.yaml"
WS = WORKLOADS / "gemm" / "dataflows" / "ws-systolic-8x8.yaml"
SYSTOLIC = ARCHS / "systolic-8x8.yaml"


def gemm_result(dataflow: Path, m: int, n: int, k: int, method=analyze) -> dict:
    workload = load_workload(GEMM, {"M": m, "N": n, "K": k})
    return method(workload, load_arch(SYSTOLIC), load_dataflow(dataflow)).to_dict()


def uniques(result: dict) -> tuple[int, int, int]:
    t = result["tensors"]
    return t["A"]["read"]["unique"], t["B"]["read"]["unique"], t["C"]["write"]["unique"]


@pytest.mark.parametrize(
    "m,n,k", [(8, 8, 8), (16, 24, 5), (20, 12, 7), (256, 256, 256), (100, 36, 50)]
)
def test_gemm_output_stationary(m, n, k):
    # A enters each PE row once per column tile, B once per row tile, C leaves once.
    result = gemm_result(OS, m, n, k)
    assert uniques(result) == (m * k * ceil(n / 8), k * n * ceil(m / 8), m * n)
    assert result["instances"] == m * n * k
    assert result["tensors"]["C"]["write"]["temporal_reuse"] == m * n * k - m * n


@pytest.mark.parametrize("m,n,k", [(8, 8, 8), (16, 24, 5), (256, 256, 256), (12, 20, 30)])
def test_gemm_weight_stationary(m, n, k):
    # B stays in its PE; A flows along j (once per j tile); C partial sums leave once per k tile.
    result = gemm_result(WS, m, n, k)
    assert uniques(result) == (m * k * ceil(n / 8), k * n, m * n * ceil(k / 8))


@pytest.mark.parametrize("m,n,k", [(16, 24, 5), (12, 20, 6)])
def test_closed_forms_match_simulation(m, n, k):
    for dataflow in (OS, WS):
        assert gemm_result(dataflow, m, n, k) == gemm_result(dataflow, m, n, k, simulate)


def test_gemm_os_delays_by_hand():
    # 256^3 on 8x8: compute = MACs / 64; ingress = (2 * 2^21 words * 16 bits) / 64 + 16 - 1.
    result = gemm_result(OS, 256, 256, 256)
    tenet_delays = ("ingress", "egress", "compute", "latency")  # TENET's; the rest: schedule time
    assert {key: result["delay"][key] for key in tenet_delays} == {
        "ingress": 2 * 2**21 * 16 // 64 + 15,
        "egress": 65536 * 16 // 64 + 15,
        "compute": 256**3 // 64,
        "latency": 2 * 2**21 * 16 // 64 + 15,
    }
    # Time steps: 32 x 32 tiles, each 8+8+256-1 = 271 (i%8 + j%8 + k spans 0..270) steps.
    assert result["time_steps"] == 32 * 32 * 270
    # Energy: MACs + 2*1.68*(3 totals) + 2*18.61*(uniques), TENET's constants.
    macs = 256**3
    expected = macs + 2 * 1.68 * 3 * macs + 2 * 18.61 * (2 * 2**21 + 65536)
    assert result["energy"] == pytest.approx(expected, rel=1e-12)


def test_big_gemm_is_exact_beyond_32_bits():
    size = 8192
    result = gemm_result(OS, size, size, size)
    assert result["instances"] == size**3 == 2**39
    assert uniques(result) == (size * size * size // 8, size * size * size // 8, size * size)
    assert result["tensors"]["A"]["read"]["reuse"] == 2**39 - 2**36
    assert isinstance(result["instances"], int) and result["instances"] > 2**31
