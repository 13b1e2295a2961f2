"""Schedule time (docs/metrics.md, "Schedule time"): steps by closed forms for output-,
weight- and input-stationary GEMM on R x C arrays, the schedule delay by hand, and the
64^3 weight-stationary GEMM on 4x4 whose TENET latency is below its own time steps."""

from __future__ import annotations

from fractions import Fraction
from math import ceil

import pytest

from tenet import analyze, load_arch, load_dataflow, load_workload, simulate
from tenet.model.schedule_time import step_cost

from ..conftest import ARCHS, WORKLOADS
from ..helpers import write_yaml

GEMM = WORKLOADS / "gemm" / "workload.yaml"


def systolic(tmp_path, rows: int, cols: int, bandwidth_bits: int = 64):
    return load_arch(
        write_yaml(
            tmp_path,
            f"systolic-{rows}x{cols}-{bandwidth_bits}",
            {
                "name": f"systolic-{rows}x{cols}",
                "pe": {"shape": [rows, cols]},
                "interconnect": ["{ PE[i,j] -> PE[i-1,j] }", "{ PE[i,j] -> PE[i,j-1] }"],
                "memory": {"bandwidth_bits": bandwidth_bits},
            },
        )
    )


# Each stationary dataflow: the two loops spread over rows and columns (tiled by R and C),
# and the loop streamed through the array with a systolic skew (row + column offset).
STATIONARY = {
    "os": ("i", "j", "k"),  # C[i,j] stays; A and B stream along k
    "ws": ("k", "j", "i"),  # B[k,j] stays; A streams along i
    "is": ("i", "k", "j"),  # A[i,k] stays; B streams along j
}


def stationary(tmp_path, kind: str, rows: int, cols: int):
    x, y, s = STATIONARY[kind]
    space = f"{{ S[i,j,k] -> PE[{x} % {rows}, {y} % {cols}] }}"
    time = (
        f"{{ S[i,j,k] -> T[floor({x}/{rows}), floor({y}/{cols}), "
        f"{s} + {x} % {rows} + {y} % {cols}] }}"
    )
    return load_dataflow(
        write_yaml(tmp_path, f"{kind}-{rows}x{cols}", {"name": kind, "space": space, "time": time})
    )


def folds(extent: int, size: int) -> list[int]:
    """The sizes of the tiles of one loop: full ones, then the partial last one."""
    return [min(size, extent - start) for start in range(0, extent, size)]


def steps_by_hand(kind: str, sizes: dict[str, int], rows: int, cols: int) -> int:
    """Σ over folds of (E + r_f + c_f − 2): E the streamed extent, r_f and c_f the rows and
    columns the fold uses."""
    x, y, s = STATIONARY[kind]
    extent = {"i": sizes["M"], "j": sizes["N"], "k": sizes["K"]}
    return sum(
        extent[s] + r + c - 2 for r in folds(extent[x], rows) for c in folds(extent[y], cols)
    )


@pytest.mark.parametrize("kind", ["os", "ws", "is"])
@pytest.mark.parametrize(
    "rows,cols,sizes",
    [
        (4, 4, {"M": 8, "N": 8, "K": 8}),
        (4, 3, {"M": 10, "N": 7, "K": 5}),  # partial folds on both axes
        (3, 5, {"M": 7, "N": 11, "K": 13}),
        (2, 2, {"M": 1, "N": 3, "K": 2}),
    ],
)
def test_steps_closed_form(tmp_path, kind, rows, cols, sizes):
    workload = load_workload(GEMM, sizes)
    arch = systolic(tmp_path, rows, cols)
    result = analyze(workload, arch, stationary(tmp_path, kind, rows, cols)).to_dict()
    assert result["delay"]["steps"] == steps_by_hand(kind, sizes, rows, cols)
    assert result["delay"]["steps"] == result["time_steps"]


@pytest.mark.parametrize("kind", ["os", "ws", "is"])
def test_steps_closed_form_large(tmp_path, kind):
    # Exact at sizes no enumeration reaches (1000 x 999 x 1001 on 8 x 7).
    sizes = {"M": 1000, "N": 999, "K": 1001}
    workload = load_workload(GEMM, sizes)
    result = analyze(workload, systolic(tmp_path, 8, 7), stationary(tmp_path, kind, 8, 7))
    assert result.to_dict()["delay"]["steps"] == steps_by_hand(kind, sizes, 8, 7)


def test_ws_64_cubed_on_4x4_latency_below_steps(tmp_path):
    # The case. By hand: 16 x 16 folds of 64 + 4 + 4 - 2 = 70 steps = 17,920 steps.
    # A flows along the rows once per column tile (64*64*16 words), B is read once (64*64):
    # ingress = (65,536 + 4,096) * 16 // 64 + 16 - 1 = 17,423 = TENET's latency.
    workload = load_workload(GEMM, {"M": 64, "N": 64, "K": 64})
    result = analyze(workload, systolic(tmp_path, 4, 4), stationary(tmp_path, "ws", 4, 4))
    data = result.to_dict()
    assert 16 * 16 * (64 + 4 + 4 - 2) == 17920
    assert data["delay"]["steps"] == 17920
    assert data["delay"]["ingress"] == (65536 + 4096) * 16 // 64 + 15 == 17423
    assert data["delay"]["compute"] == 64**3 // 16
    assert data["delay"]["latency"] == 17423 < data["delay"]["steps"]
    assert data["delay"]["overlapped"] == 17920
    assert data["delay"]["schedule"] >= data["delay"]["steps"] + 15
    # TENET's utilisation is above MACs / (PEs x steps); the schedule's is below it.
    assert data["utilization"] > Fraction(64**3, 16 * 17920) > data["utilization_schedule"]


# --- the schedule delay by hand on the worked example (docs/metrics.md) --------------------
#
# Y[i,j] += A[i,k] * B[k,j], 2 x 2 x 4, on a 2 x 2 systolic array, T = i + j + k.
# A[i,k] enters at PE[i,0] at t = i + k, B[k,j] at PE[0,j] at t = j + k: per step
# in(t) = 2, 4, 4, 4, 2, 0 for t = 0..5. Y[i,j] is first written at t = i + j (later writes
# are reuse of its own previous step): out(t) = 1, 2, 1, 0, 0, 0.

IN = [2, 4, 4, 4, 2, 0]
OUT = [1, 2, 1, 0, 0, 0]


def worked_example(tmp_path, bandwidth_bits: int):
    workload = load_workload(GEMM, {"M": 2, "N": 2, "K": 4})
    dataflow = load_dataflow(
        write_yaml(
            tmp_path,
            "os-skewed",
            {
                "name": "os-skewed",
                "space": "{ S[i,j,k] -> PE[i, j] }",
                "time": "{ S[i,j,k] -> T[i + j + k] }",
            },
        )
    )
    return workload, systolic(tmp_path, 2, 2, bandwidth_bits), dataflow


@pytest.mark.parametrize(
    "bandwidth_bits,cycles",
    [
        (64, [1, 1, 1, 1, 1, 1]),  # 4 words a cycle: every step fits in one
        (16, [2, 4, 4, 4, 2, 1]),  # 1 word a cycle: max(1, in, out)
        (48, [1, 2, 2, 2, 1, 1]),  # 3 words a cycle: ceil(4 / 3) = 2
    ],
)
def test_schedule_delay_by_hand(tmp_path, bandwidth_bits, cycles):
    workload, arch, dataflow = worked_example(tmp_path, bandwidth_bits)
    words = bandwidth_bits // 16
    assert cycles == [max(1, ceil(a / words), ceil(b / words)) for a, b in zip(IN, OUT)]
    schedule = sum(cycles) + 16 - 1
    ingress = sum(IN) * 16 // bandwidth_bits + 15
    egress = sum(OUT) * 16 // bandwidth_bits + 15
    for result in (analyze(workload, arch, dataflow), simulate(workload, arch, dataflow)):
        data = result.to_dict()
        assert data["delay"]["steps"] == 6
        assert data["delay"]["schedule"] == schedule
        assert data["delay"]["overlapped"] == max(6, ingress, egress)
        assert data["bandwidth"]["peak_ingress"] == 4
        assert data["bandwidth"]["peak_egress"] == 2
        assert data["bandwidth"]["avg_ingress"] == 16 / 6
        assert data["bandwidth"]["avg_egress"] == 4 / 6
        assert data["utilization_schedule"] == 16 / (4 * schedule)


def test_step_cost():
    assert step_cost(0, 0, 16, 64) == 1
    assert step_cost(5, 0, 16, 64) == 2
    assert step_cost(4, 9, 16, 64) == 3
    assert step_cost(3, 1, 16, 48) == 1


def test_preset_os_on_8x8_by_hand():
    # os-systolic-8x8 on 64^3: 8 x 8 folds of 64 + 8 + 8 - 2 = 78 steps.
    workload = load_workload(GEMM, {"M": 64, "N": 64, "K": 64})
    arch = load_arch(ARCHS / "systolic-8x8.yaml")
    dataflow = load_dataflow(WORKLOADS / "gemm" / "dataflows" / "os-systolic-8x8.yaml")
    assert analyze(workload, arch, dataflow).to_dict()["delay"]["steps"] == 64 * 78
