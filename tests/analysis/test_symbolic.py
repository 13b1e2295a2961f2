"""Symbolic metrics (`tenet analyze --symbolic`): closed forms in the workload parameters.

The reference for every value is direct counting: `tenet.metrics.analyze` with the
parameters fixed to numbers (and, for GEMM, closed forms derived by hand).
"""

from __future__ import annotations

import json
import math
import random
from fractions import Fraction

import pytest
import sympy

from tenet import InputError, analyze, load_arch, load_dataflow, load_workload
from tenet.analysis.symbolic import (
    evaluate_family,
    evaluate_symbolic,
    flatten_metrics,
    is_ratio,
    symbolic_analysis,
)
from tenet.formats.presets import resolve_arch, resolve_dataflow, resolve_workload
from tenet.model.metrics import SCHEDULE_TIME_KEYS

from ..helpers import GEMM_OS_ARGS, run_cli, write_yaml

M, N, K = sympy.symbols("M N K", integer=True)


def load(workload: str, arch: str, dataflow: str, sets: dict | None = None):
    path = resolve_workload(workload)
    return (
        load_workload(path, sets or {}),
        load_arch(resolve_arch(arch)),
        load_dataflow(resolve_dataflow(dataflow, path)),
    )


def direct(workload: str, arch: str, dataflow: str, sizes: dict) -> dict:
    """Direct counting at one size: analyze's JSON as dotted keys."""
    flat = flatten_metrics(analyze(*load(workload, arch, dataflow, sizes)).to_dict())
    return {k: v for k, v in flat.items() if k not in SCHEDULE_TIME_KEYS}  # no closed forms


def assert_matches(got: dict, expected: dict, where: str) -> None:
    """Same keys; counts equal exactly (as ints), ratios equal up to float rounding."""
    assert set(got) == set(expected), where
    for key, want in expected.items():
        value = got[key]
        if value is None or want is None:
            assert value is want, f"{where}: {key}"
        elif is_ratio(key):
            assert isinstance(value, Fraction), f"{where}: {key}"
            # analyze sums float ratios (bandwidth totals), so allow its rounding
            assert math.isclose(float(value), want, rel_tol=1e-12), f"{where}: {key}"
        else:
            assert type(value) is int and value == want, f"{where}: {key} {value} != {want}"


def random_sizes(names: list[str], seed: int, low: int = 1, high: int = 40) -> list[dict]:
    """Five seeded sizes; the first is forced off the 8x8 array's multiples."""
    rng = random.Random(seed)
    sizes = [{n: rng.randint(low, high) for n in names} for _ in range(5)]
    sizes[0] = {n: 8 * (k + 1) + 3 + k for k, n in enumerate(names)}  # 11, 20, 29, ...
    return sizes


@pytest.mark.parametrize("dataflow", ["os-systolic-8x8", "ws-systolic-8x8"])
def test_gemm_symbolic_equals_direct_counting(dataflow):
    result = symbolic_analysis(*load("gemm", "systolic-8x8", dataflow))
    assert result["symbols"] == ["M", "N", "K"]
    sizes = random_sizes(["M", "N", "K"], seed=7)
    assert any(s["M"] % 8 and s["N"] % 8 and s["K"] % 8 for s in sizes)
    for size in sizes:
        got = evaluate_symbolic(result, size)
        assert_matches(got, direct("gemm", "systolic-8x8", dataflow, size), f"{dataflow} {size}")


def test_gemm_hand_closed_forms():
    """instances = M·N·K and, output-stationary on 8x8, each A (B) element enters once per
    column (row) tile: unique A = M·K·ceil(N/8), unique B = N·K·ceil(M/8), unique C = M·N."""
    result = symbolic_analysis(*load("gemm", "systolic-8x8", "os-systolic-8x8"))
    metrics = result["metrics"]
    assert sympy.expand(metrics["instances"] - M * N * K) == 0
    assert sympy.expand(metrics["macs"] - M * N * K) == 0
    assert sympy.expand(metrics["tensors.C.write.unique"] - M * N) == 0
    for m, n, k in [(1, 1, 1), (7, 9, 3), (8, 16, 2), (17, 5, 11), (100, 33, 7)]:
        got = evaluate_symbolic(result, {"M": m, "N": n, "K": k})
        assert got["instances"] == m * n * k
        assert got["tensors.A.read.unique"] == m * k * -(-n // 8)
        assert got["tensors.B.read.unique"] == n * k * -(-m // 8)
        assert got["active_pes"] == min(m, 8) * min(n, 8)


def test_gemm_large_size_exact():
    """Exact big integers far beyond 32 bits, same as direct counting."""
    result = symbolic_analysis(*load("gemm", "systolic-8x8", "os-systolic-8x8"))
    size = {"M": 16383, "N": 16385, "K": 4099}
    got = evaluate_symbolic(result, size)
    assert got["instances"] == 16383 * 16385 * 4099
    assert_matches(got, direct("gemm", "systolic-8x8", "os-systolic-8x8", size), "large")


@pytest.mark.slow
def test_conv2d_symbolic_equals_direct_counting():
    """conv2d weight-stationary on 8x8 with the 3x3 filter fixed; K, C, OX, OY symbolic."""
    workload, arch, dataflow = load("conv2d", "systolic-8x8", "ws-8x8")
    result = symbolic_analysis(workload, arch, dataflow, fixed={"RX": 3, "RY": 3})
    assert result["symbols"] == ["K", "C", "OX", "OY"]
    assert result["fixed"] == {"RX": 3, "RY": 3}
    sizes = random_sizes(["K", "C", "OX", "OY"], seed=11, high=20)
    for size, got in zip(sizes, evaluate_family(result, sizes)):
        want = direct("conv2d", "systolic-8x8", "ws-8x8", {**size, "RX": 3, "RY": 3})
        assert got["instances"] == 9 * size["K"] * size["C"] * size["OX"] * size["OY"]
        assert_matches(got, want, f"conv2d {size}")


def test_isl_statement_workload_jacobi2d():
    """A workload written as isl statements (five reads of A), one symbol N."""
    result = symbolic_analysis(*load("jacobi2d", "systolic-8x8", "os-8x8"))
    assert result["symbols"] == ["N"]
    for n in (1, 2, 7, 13, 30):
        got = evaluate_symbolic(result, {"N": n})
        assert got["instances"] == n * n
        assert got["tensors.B.write.unique"] == n * n
        assert_matches(got, direct("jacobi2d", "systolic-8x8", "os-8x8", {"N": n}), f"N={n}")


@pytest.mark.slow
def test_conv2d_output_stationary_symbolic_equals_direct_counting():
    """conv2d os-8x8 (about 10 s to count): long formulas with many small cases."""
    workload, arch, dataflow = load("conv2d", "systolic-8x8", "os-8x8")
    result = symbolic_analysis(workload, arch, dataflow, fixed={"RX": 3, "RY": 3})
    sizes = random_sizes(["K", "C", "OX", "OY"], seed=3, high=20)
    for size, got in zip(sizes, evaluate_family(result, sizes)):
        want = direct("conv2d", "systolic-8x8", "os-8x8", {**size, "RX": 3, "RY": 3})
        assert_matches(got, want, f"conv2d os {size}")


def test_family_equals_one_by_one():
    result = symbolic_analysis(*load("gemm", "systolic-8x8", "ws-systolic-8x8"), fixed={"K": 64})
    assert result["symbols"] == ["M", "N"]
    family = [{"M": 3, "N": 5}, {"M": 64, "N": 9}, {"M": 12, "N": 12, "K": 64}]
    rows = evaluate_family(result, family)
    assert rows == [evaluate_symbolic(result, size) for size in family]
    for size, row in zip(family, rows):
        want = direct("gemm", "systolic-8x8", "ws-systolic-8x8", {**size, "K": 64})
        assert_matches(row, want, str(size))


def test_evaluation_errors():
    result = symbolic_analysis(*load("gemm", "systolic-8x8", "os-systolic-8x8"), fixed={"K": 8})
    for bad in (
        {"M": 4},  # N missing
        {"M": 4, "N": 0},  # empty iteration domain
        {"M": 4, "N": 4, "Q": 1},  # unknown
        {"M": 4, "N": 4, "K": 9},  # K was fixed at 8
        {"M": 4, "N": 2.5},  # not an integer
    ):
        with pytest.raises(InputError):
            evaluate_symbolic(result, bad)
    assert evaluate_symbolic(result, {"M": 4, "N": 4, "K": 8})["instances"] == 128


@pytest.mark.parametrize(
    "fixed, needle",
    [({"Q": 1}, "unknown parameter 'Q'"), ({"K": 2.5}, "integer"), ({"K": 0}, "positive")],
)
def test_bad_fixed_parameter(fixed, needle):
    with pytest.raises(InputError, match=needle):
        symbolic_analysis(*load("gemm", "systolic-8x8", "os-systolic-8x8"), fixed=fixed)


def test_dataflow_not_a_function_for_some_sizes(tmp_path):
    """Fine at the workload's default N = 256, two PEs per instance when 4 <= N < 8."""
    workload = write_yaml(
        tmp_path,
        "w",
        {"name": "w", "params": {"N": 256}, "einsum": "C[i] += A[i]", "bounds": {"i": "N"}},
    )
    dataflow = write_yaml(
        tmp_path,
        "d",
        {
            "space": "[N] -> { S[i] -> PE[i % 8, 0] : N >= 4; S[i] -> PE[0, 0] : N < 8 }",
            "time": "{ S[i] -> T[floor(i/8)] }",
        },
    )
    arch = load_arch(resolve_arch("systolic-8x8"))
    assert analyze(load_workload(workload), arch, load_dataflow(dataflow)).instances == 256
    with pytest.raises(InputError) as info:
        symbolic_analysis(load_workload(workload), arch, load_dataflow(dataflow))
    assert info.value.key == "space" and info.value.source == str(dataflow)


def test_cli_json_formulas_parse_and_evaluate(capsys):
    rc, out, err = run_cli(
        [
            "analyze",
            "--symbolic",
            *GEMM_OS_ARGS,
            "--set",
            "K=16",
            "--format",
            "json",
        ],
        capsys,
    )
    assert rc == 0, err
    data = json.loads(out)
    assert data["symbols"] == ["M", "N"] and data["fixed"] == {"K": 16}
    assert all(isinstance(f, str) for f in data["metrics"].values())
    # sympy syntax; the symbols must be passed in (N, S, I, ... are also sympy names)
    names = {name: sympy.Symbol(name, integer=True) for name in data["symbols"]}

    def parse(key: str) -> sympy.Expr:
        return sympy.sympify(data["metrics"][key], locals=names)

    assert sympy.expand(parse("instances") - 16 * M * N) == 0
    # sympy's own substitution agrees with direct counting
    size = {"M": 13, "N": 21}
    want = direct("gemm", "systolic-8x8", "os-systolic-8x8", {**size, "K": 16})
    for key in ("time_steps", "tensors.A.read.spatial_reuse", "delay.latency", "energy"):
        value = parse(key).subs({names[n]: v for n, v in size.items()})
        assert math.isclose(float(value), want[key], rel_tol=1e-12), key
        if not is_ratio(key):
            assert value == want[key], key


def test_cli_table_one_line_per_metric(capsys):
    rc, out, err = run_cli(
        ["analyze", "--symbolic", "-w", "gemm", "-a", "systolic-8x8", "-d", "os-systolic-8x8"],
        capsys,
    )
    assert rc == 0, err
    lines = out.splitlines()
    assert "symbols: M, N, K; fixed: none" in lines
    assert "instances = K*M*N" in lines
    assert any(line.startswith("tensors.C.write.unique = M*N") for line in lines)


def test_cli_all_fixed_gives_the_counts(capsys):
    """With every parameter set, each formula is the number direct counting gives."""
    sets = ["--set", "M=10", "--set", "N=12", "--set", "K=5"]
    args = ["analyze", "-w", "gemm", "-a", "systolic-8x8", "-d", "os-systolic-8x8", *sets]
    rc, out, _ = run_cli([*args, "--symbolic", "--format", "json"], capsys)
    assert rc == 0
    data = json.loads(out)
    assert data["symbols"] == []
    want = direct("gemm", "systolic-8x8", "os-systolic-8x8", {"M": 10, "N": 12, "K": 5})
    assert int(data["metrics"]["instances"]) == 600
    assert int(data["metrics"]["tensors.A.read.unique"]) == want["tensors.A.read.unique"]


@pytest.mark.parametrize(
    "extra, needle",
    [
        (["--set", "Q=3"], "unknown parameter 'Q'"),
        (["--bound"], "--bound"),
        (["--set", "M=abc"], "--set"),
    ],
)
def test_cli_bad_input_one_line(capsys, extra, needle):
    args = ["analyze", "--symbolic", "-w", "gemm", "-a", "systolic-8x8", "-d", "os-systolic-8x8"]
    rc, out, err = run_cli([*args, *extra], capsys)
    assert rc == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and needle in err
