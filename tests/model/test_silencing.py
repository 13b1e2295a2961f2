"""Warnings silenced by kind: `silenced_warnings:` in a dataflow or arch YAML and
`--silence KIND` on the command line (fnmatch patterns); a silenced warning is neither
printed nor in the JSON `warnings`; a pattern that matches no kind is refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tenet import analyze, load_arch, load_dataflow, load_workload
from tenet.formats.workloads import load_any_workload
from tenet.model.warning_kinds import WARNING_KINDS, unsilenced, warning_kind

from ..conftest import ARCHS, WORKLOADS
from ..helpers import run_cli, write_yaml

GEMM = WORKLOADS / "gemm"
GLB_DRAM = Path(__file__).parent.parent / "data" / "hierarchy" / "sys8-glb-dram.yaml"
SIZE = ["--set", "M=10", "--set", "N=9", "--set", "K=6"]
#: Both links of systolic-8x8-rev point the wrong way for the output-stationary GEMM:
#: each interconnect entry gets one idle_link warning.
REVERSED = ["-w", "gemm", *SIZE, "-a", "systolic-8x8-rev", "-d", "os-systolic-8x8"]


def small_glb(tmp_path: Path, **extra) -> Path:
    """sys8-glb-dram with a GLB of 8 words: tiles of depth 2 overflow it (level_capacity),
    and the scratchpad is priced at its 4,096 bytes, not at the GLB's 16 (scratchpad_size)."""
    data = yaml.safe_load(GLB_DRAM.read_text())
    data["levels"][0]["capacity"] = 8
    data.update(extra)
    return write_yaml(tmp_path, "small-glb", data)


def json_warnings(args, capsys) -> tuple[list[str], list[str], str]:
    rc, out, err = run_cli([*args, "--format", "json"], capsys)
    assert rc == 0, err
    data = json.loads(out)
    return data["warnings"], data["warning_kinds"], err


def test_without_silencing_the_cases_warn(tmp_path, capsys):
    _, kinds, _ = json_warnings(["analyze", *REVERSED], capsys)
    assert kinds == ["idle_link", "idle_link"]
    glb = ["analyze", "-w", "gemm", *SIZE, "-a", small_glb(tmp_path), "-d", "ws-systolic-8x8"]
    _, kinds, _ = json_warnings([*glb, "--tile", "GLB=2"], capsys)
    assert kinds == ["level_capacity", "scratchpad_size"]


def test_dataflow_yaml_silences_by_pattern(tmp_path):
    data = yaml.safe_load((GEMM / "dataflows" / "os-systolic-8x8.yaml").read_text())
    flow = load_dataflow(write_yaml(tmp_path, "flow", {**data, "silenced_warnings": ["idle_*"]}))
    assert flow.silenced_warnings == ("idle_*",)
    workload = load_workload(GEMM / "workload.yaml", {"M": 10, "N": 9, "K": 6})
    assert analyze(workload, load_arch(ARCHS / "systolic-8x8-rev.yaml"), flow).warnings == []


def test_arch_yaml_silences_by_pattern(tmp_path, capsys):
    arch = small_glb(tmp_path, silenced_warnings=["level_*"])
    assert load_arch(arch).silenced_warnings == ("level_*",)
    args = ["analyze", "-w", "gemm", *SIZE, "-a", arch, "-d", "ws-systolic-8x8", "--tile", "GLB=2"]
    _warnings, kinds, err = json_warnings(args, capsys)
    assert kinds == ["scratchpad_size"]
    assert "level 'GLB'" not in err and "scratchpad" in err


@pytest.mark.parametrize(
    "flags",
    [
        ["--silence", "level_capacity", "--silence", "scratchpad_size"],
        ["--silence", "level_*,scratchpad_size"],
        ["--silence", "*"],
    ],
)
def test_command_line_silences(tmp_path, capsys, flags):
    glb = ["-w", "gemm", *SIZE, "-a", small_glb(tmp_path), "-d", "ws-systolic-8x8"]
    warnings, kinds, err = json_warnings(["analyze", *glb, "--tile", "GLB=2", *flags], capsys)
    assert warnings == [] and kinds == []
    assert "warning" not in err


def test_silenced_warnings_are_not_printed_in_the_table(capsys):
    rc, out, err = run_cli(["analyze", *REVERSED, "--silence", "idle_link"], capsys)
    assert rc == 0, err
    assert "carries no reuse" not in out + err
    rc, out, err = run_cli(["analyze", *REVERSED], capsys)
    assert "carries no reuse" in out + err


def test_simulate_and_compare_silence(capsys):
    warnings, _, _ = json_warnings(["simulate", *REVERSED, "--silence", "idle_link"], capsys)
    assert warnings == []
    compare = ["compare", "-w", "gemm", *SIZE, "-a", "systolic-8x8", "-a", "systolic-8x8-rev"]
    rc, out, err = run_cli([*compare, "-d", "os-systolic-8x8", "--format", "json"], capsys)
    assert rc == 0 and json.loads(out)["warnings"]
    rc, out, err = run_cli(
        [*compare, "-d", "os-systolic-8x8", "--format", "json", "--silence", "idle_link"], capsys
    )
    assert rc == 0, err
    assert json.loads(out)["warnings"] == []


@pytest.mark.parametrize("command", ["analyze", "simulate", "compare", "dse", "validate"])
def test_unknown_kind_is_refused_on_the_command_line(capsys, command):
    args = {
        "compare": ["-w", "gemm", "-a", "systolic-8x8", "-d", "os-systolic-8x8"],
        "dse": ["-w", "gemm", "-a", "systolic-4x4"],
    }.get(command, ["-w", "gemm", "-a", "systolic-8x8", "-d", "os-systolic-8x8"])
    rc, _out, err = run_cli([command, *args, "--silence", "idle_link,idel_*"], capsys)
    assert rc == 2
    (line,) = err.strip().splitlines()
    assert "--silence" in line and "'idel_*' matches no warning kind" in line


@pytest.mark.parametrize("value", [["nope"], [3], "bogus_*", {"a": 1}])
def test_unknown_kind_is_refused_in_yaml(tmp_path, capsys, value):
    data = yaml.safe_load((GEMM / "dataflows" / "os-systolic-8x8.yaml").read_text())
    flow = write_yaml(tmp_path, "flow", {**data, "silenced_warnings": value})
    rc, _out, err = run_cli(["analyze", "-w", "gemm", "-a", "systolic-8x8", "-d", flow], capsys)
    assert rc == 2
    (line,) = err.strip().splitlines()
    assert str(flow) in line and "silenced_warnings" in line
    arch = small_glb(tmp_path, silenced_warnings=value)
    rc, _out, err = run_cli(["analyze", "-w", "gemm", "-a", arch, "-d", "os-systolic-8x8"], capsys)
    assert rc == 2
    (line,) = err.strip().splitlines()
    assert str(arch) in line and "silenced_warnings" in line


def test_every_warning_has_a_kind_including_statements_that_never_run(tmp_path):
    path = tmp_path / "never.py"
    path.write_text(
        "N = 4\n\ndef k(A):\n    for i in range(N):\n        if i < 0:\n            A[i] = 1\n"
    )
    (warning,) = load_any_workload(path).warnings
    assert warning_kind(warning) == "statement_never_runs" in WARNING_KINDS
    assert unsilenced([warning], ["statement_*"]) == []
    assert unsilenced([warning], ["idle_link"]) == [warning]


def test_dse_silences(tmp_path, capsys):
    data = yaml.safe_load((ARCHS / "systolic-4x4.yaml").read_text())
    # a link naming a tensor GEMM does not have: every candidate gets unknown_link_tensor
    data["interconnect"][0] = {"relation": data["interconnect"][0]["relation"], "tensors": ["Z"]}
    arch = write_yaml(tmp_path, "arch", data)
    dse = ["dse", "-w", "gemm", "-a", arch, *SIZE, "--format", "json", "--jobs", "1"]
    fronts = []
    for flags in ([], ["--silence", "unknown_*"]):
        rc, out, err = run_cli([*dse, *flags], capsys)
        assert rc == 0, err
        fronts.append({e["name"]: e["warning_kinds"] for e in json.loads(out)["pareto"]})
    loud, quiet = fronts
    assert loud.keys() == quiet.keys()
    for name, kinds in loud.items():
        assert "unknown_link_tensor" in kinds
        assert quiet[name] == [k for k in kinds if k != "unknown_link_tensor"]
