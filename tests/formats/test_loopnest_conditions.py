"""What the loop-nest importer reads from conditions and bounds, checked against an
execution of the Python twin (tests/formats/loopnest_bruteforce.py: instances, footprints,
and point by point domains, access relations and program order) or counted by hand:
negated conditions, a statement whose guard never holds, constant powers in bounds, and an
import time linear in the number of statements."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tenet.formats.loopnest import load_loopnest
from tests.formats import loopnest_bruteforce as brute
from tests.formats.test_loopnest_kernels import _check_counts, _check_points
from tests.helpers import run_cli


def _show(path: Path, capsys, *extra: str) -> tuple[int, str, str]:
    return run_cli(["workload", "show", "-w", path, *extra], capsys)


def _twins(tmp_path: Path, name: str, python: str, c: str) -> list[Path]:
    paths = [tmp_path / f"{name}.py", tmp_path / f"{name}.c"]
    paths[0].write_text(python)
    paths[1].write_text(c)
    return paths


def _check_against_execution(paths: list[Path], capsys) -> dict:
    """Both twins' `workload show --format json` equal the execution of the Python twin."""
    expected = brute.run(paths[0])
    for path in paths:
        rc, out, err = _show(path, capsys, "--format", "json")
        assert rc == 0, err
        shown = json.loads(out)
        _check_counts(shown, expected, path.name)
        _check_points(shown, expected, path.name)
    return shown


# --- negated conditions ------------------------------------------------------------------


NEGATION_PY = """N = 10

def kernel_negation(A, B, C, D):
    for i in range(N):
        if not (i > 2):
            A[i] = 0.0
        else:
            B[i] = 1.0
        C[i] = A[i] if not (i > 5) else B[i]
        if not (not (i < 4) or i == 8):
            D[i] = 2.0
        else:
            D[i] = 3.0
"""

NEGATION_C = """#define N 10
void kernel_negation(double A[N], double B[N], double C[N], double D[N]) {
#pragma scop
  for (int i = 0; i < N; i++) {
    if (!(i > 2)) A[i] = 0; else B[i] = 1;
    C[i] = !(i > 5) ? A[i] : B[i];
    if (!(!(i < 4) || i == 8)) D[i] = 2; else D[i] = 3;
  }
#pragma endscop
}
"""


def test_negated_conditions_match_an_execution(tmp_path, capsys):
    """The else branch of `if not c` is `not not c`; by hand at N = 10: S0 runs for
    i = 0..2 (3), S1 for 3..9 (7), S3 for i < 4 and i != 8 (4), S4 for the other 6."""
    paths = _twins(tmp_path, "negation", NEGATION_PY, NEGATION_C)
    shown = _check_against_execution(paths, capsys)
    counts = {s["name"]: s["instances"] for s in shown["statements"]}
    assert counts == {"S0": 3, "S1": 7, "S2": 10, "S3": 4, "S4": 6}


# --- a statement that never runs ----------------------------------------------------------


NEVER_PY = """N = 4

def kernel_never(A, B):
    for i in range(N):
        A[i] = 0.0
        if i > 5 + N:
            B[i] = 1.0
"""

NEVER_C = """#define N 4
void kernel_never(double A[N], double B[N]) {
#pragma scop
  for (int i = 0; i < N; i++) { A[i] = 0; if (i > 5 + N) B[i] = 1; }
#pragma endscop
}
"""

FLOW = (
    'space: "{ S0[i] -> PE[i, 0]; S1[i] -> PE[i, 0] }"\ntime: "{ S0[i] -> T[0]; S1[i] -> T[1] }"\n'
)


def test_statement_that_never_runs_is_listed_with_a_warning(tmp_path, capsys):
    """S1's guard i > 5 + N never holds inside 0 <= i < N: 0 instances, for any N."""
    paths = _twins(tmp_path, "never", NEVER_PY, NEVER_C)
    shown = _check_against_execution(paths, capsys)
    assert [(s["name"], s["instances"]) for s in shown["statements"]] == [("S0", 4), ("S1", 0)]
    (warning,) = shown["warnings"]
    assert "S1" in warning and "never runs" in warning
    rc, out, err = _show(paths[1], capsys)
    assert rc == 0 and "S1  (" in out and "0 instances" in out
    assert "warning: statement S1" in out and err == ""
    (warning,) = load_loopnest(paths[1], {"N": 40}).warnings  # any N: never
    assert "S1" in warning and "never runs" in warning
    # the YAML keeps S1 (its domain `{ S1[i] : false }`) and reads back to the same listing
    rc, out, err = _show(paths[1], capsys, "--format", "yaml")
    assert rc == 0 and "S1[i] : false" in out, err
    (tmp_path / "never.yaml").write_text(out)
    rc, out, err = _show(tmp_path / "never.yaml", capsys, "--format", "json")
    assert rc == 0, err
    again = json.loads(out)
    assert [(s["name"], s["instances"]) for s in again["statements"]] == [("S0", 4), ("S1", 0)]
    assert len(again["warnings"]) == 1 and "S1" in again["warnings"][0]


@pytest.mark.parametrize("command", ["analyze", "validate", "simulate"])
def test_a_dataflow_may_map_a_statement_that_never_runs(tmp_path, capsys, command):
    """The dataflow names S1 (as a user writing one for the kernel does): accepted; S0's
    4 instances sit on PE[0..3, 0] at T[0]."""
    (path,) = _twins(tmp_path, "never", NEVER_PY, NEVER_C)[1:]
    flow = tmp_path / "flow.yaml"
    flow.write_text(FLOW)
    args = [command, "-w", path, "-a", "systolic-8x8", "-d", flow, "--format", "json"]
    rc, out, err = run_cli(args, capsys)
    assert rc == 0, err
    result = json.loads(out)
    if command == "validate":
        assert result["legal"] is True
    else:
        assert result["instances"] == 4 and result["time_steps"] == 1
        assert any("S1" in w and "never runs" in w for w in result["warnings"])


# --- powers in bounds ----------------------------------------------------------------------


def test_a_constant_power_is_a_number_in_a_bound(tmp_path, capsys):
    """range(10**30) has 10**30 iterations (an exact integer, not a refused call)."""
    path = tmp_path / "power.py"
    path.write_text("def kernel(A):\n    for i in range(10**30):\n        A[i] = 0\n")
    rc, out, err = _show(path, capsys, "--format", "json")
    assert rc == 0, err
    assert json.loads(out)["statements"][0]["instances"] == 10**30


def test_c_pow_of_constants_counts_and_of_a_variable_is_refused(tmp_path, capsys):
    """pow(10, 3) in a C bound is 1,000 iterations; pow(i, 2) is named as a power."""
    path = tmp_path / "power.c"
    head = "void k(double A[1000]) {\n#pragma scop\n"
    path.write_text(head + "  for (int i = 0; i < pow(10, 3); i++) A[i] = 0;\n#pragma endscop\n}\n")
    rc, out, err = _show(path, capsys, "--format", "json")
    assert rc == 0 and json.loads(out)["statements"][0]["instances"] == 1000, err
    path.write_text(
        head + "  for (int i = 0; i < 4; i++) for (int j = 0; j < pow(i, 2); j++) A[j] = 1;\n"
        "#pragma endscop\n}\n"
    )
    rc, _, err = _show(path, capsys)
    assert rc == 2 and "pow(i, 2)" in err and "power of a variable" in err


# --- import time --------------------------------------------------------------------------


def _many(tmp_path: Path, n: int) -> Path:
    path = tmp_path / f"many{n}.py"
    body = "".join(f"        A[{k}, i] = B[i] + {k}.0\n" for k in range(n))
    path.write_text(f"N = 8\n\ndef kernel(A, B):\n    for i in range(N):\n{body}")
    return path


@pytest.mark.slow
def test_import_time_grows_linearly_with_statements(tmp_path):
    """4x the statements must cost well under 16x the time (quadratic); linear is 4x. This
    guards against checking every pair of statements' schedules for a common time (isl's
    is_injective on their union), which took 12x-16x."""
    seconds = {}
    for n in (150, 600):
        path = _many(tmp_path, n)
        start = time.perf_counter()
        workload = load_loopnest(path)
        seconds[n] = time.perf_counter() - start
        assert len(workload.statements) == n
    assert seconds[600] < 8 * seconds[150], seconds
