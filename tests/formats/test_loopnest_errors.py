"""Loop nests the importer refuses, each in one line that names the place and what is at
fault: names isl cannot read, a power of a variable in a bound, an unknown call, a parameter
set to a non-integer, a loop condition that does not test its variable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import run_cli


def _show(path: Path, capsys, *extra: str) -> tuple[int, str, str]:
    return run_cli(["workload", "show", "-w", path, *extra], capsys)


def test_non_ascii_names_are_refused_in_one_line(tmp_path, capsys):
    py = tmp_path / "uni.py"
    py.write_text("def kernel(A, \u00ef=8):\n    for i in range(\u00ef):\n        A[i] = 0\n")
    c = tmp_path / "uni.c"
    c.write_text(
        "#define N 8\nvoid k(double A[N]) {\n#pragma scop\n"
        "  for (int \u00ef = 0; \u00ef < N; \u00ef++) A[\u00ef] = 0;\n#pragma endscop\n}\n"
    )
    for path, place in ((py, f"{py}:2:20:"), (c, f"{c}:4:12:")):
        rc, out, err = _show(path, capsys)
        assert rc == 2 and out == "" and err.count("\n") == 1, err
        assert place in err and "\u00ef" in err and "isl cannot parse" not in err


def test_a_power_of_a_variable_in_a_bound_is_refused_by_name(tmp_path, capsys):
    path = tmp_path / "power.py"
    path.write_text(
        "def kernel(A):\n    for i in range(4):\n        for j in range(i**2):\n"
        "            A[j] = 0\n"
    )
    rc, _, err = _show(path, capsys)
    assert rc == 2 and f"{path}:3:" in err and "i**2" in err and "power" in err
    assert "pow(" not in err


@pytest.mark.parametrize("func", ["exec", "eval"])
def test_an_unknown_call_is_named_before_its_arguments(tmp_path, capsys, func):
    path = tmp_path / "call.py"
    path.write_text(f"def kernel(A):\n    for i in range(4):\n        A[i] = {func}('1')\n")
    rc, _, err = _show(path, capsys)
    assert rc == 2 and f"{path}:3:" in err
    assert f"call to {func}, not a known pure function" in err and "constant" not in err


@pytest.mark.parametrize(("value", "shown"), [("True", "True"), ("'8'", "'8'"), ("8.0", "8.0")])
def test_a_parameter_set_to_a_non_integer_says_so(tmp_path, capsys, value, shown):
    path = tmp_path / "param.py"
    path.write_text(f"N = {value}\n\ndef kernel(A):\n    for i in range(N):\n        A[i] = 0\n")
    rc, _, err = _show(path, capsys)
    assert rc == 2 and err.count("\n") == 1
    assert f"parameter 'N' is set to {shown} (line 1), not an integer" in err
    assert "has no value" not in err
    rc, out, _ = _show(path, capsys, "--set", "N=3", "--format", "json")
    assert rc == 0 and json.loads(out)["statements"][0]["instances"] == 3


def test_an_argument_default_that_is_not_an_integer_says_so(tmp_path, capsys):
    path = tmp_path / "param.py"
    path.write_text("def kernel(A, N=True):\n    for i in range(N):\n        A[i] = 0\n")
    rc, _, err = _show(path, capsys)
    assert rc == 2 and "parameter 'N' is set to True (default of argument N" in err


def test_a_loop_condition_that_does_not_test_its_variable_is_refused(tmp_path, capsys):
    path = tmp_path / "loop.c"
    path.write_text(
        "#define N 8\nvoid k(double A[N]) {\n  int i, j;\n#pragma scop\n"
        "  for (i = 0; j < N; i++) A[i] = 0;\n#pragma endscop\n}\n"
    )
    rc, _, err = _show(path, capsys)
    assert rc == 2 and err.count("\n") == 1 and f"{path}:5:" in err
    assert "the condition j < N of loop i does not test i" in err
    assert "parameter 'j'" not in err
