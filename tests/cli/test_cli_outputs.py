"""The CLI's output formats: JSON against a schema of the contract's keys, CSV, table."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import jsonschema
import pytest

from tenet import __version__

from ..helpers import GEMM_OS_ARGS, SMALL_GEMM_ARGS, run_cli

VOLUME = {
    "type": "object",
    "required": [
        "total",
        "unique",
        "reuse",
        "temporal_reuse",
        "spatial_reuse",
        "reuse_factor",
        "ibw",
        "sbw",
    ],
    "properties": {
        **{
            k: {"type": "integer", "minimum": 0}
            for k in ("total", "unique", "reuse", "temporal_reuse", "spatial_reuse")
        },
        "reuse_factor": {"type": ["number", "null"]},
        "ibw": {"type": "number"},
        "sbw": {"type": "number"},
        "read_back": {"type": "integer"},  # write sides only (docs/energy.md)
    },
    "additionalProperties": False,
}
ANALYZE_SCHEMA = {
    "type": "object",
    "required": [
        "workload",
        "arch",
        "dataflow",
        "instances",
        "macs",
        "pe_count",
        "active_pes",
        "avg_active_pes",
        "time_steps",
        "utilization",
        "delay",
        "energy",
        "tensors",
    ],
    "properties": {
        "workload": {"type": "string"},
        "arch": {"type": "string"},
        "dataflow": {"type": "string"},
        **{
            k: {"type": "integer", "minimum": 1}
            for k in ("instances", "macs", "pe_count", "active_pes", "time_steps")
        },
        "avg_active_pes": {"type": "number"},
        "utilization": {"type": "number"},
        "energy": {"type": "number"},
        "delay": {
            "type": "object",
            "required": ["ingress", "egress", "compute", "latency"],
            "properties": {
                k: {"type": "integer"}
                for k in (
                    "ingress",
                    "egress",
                    "compute",
                    "latency",
                    "steps",
                    "schedule",
                    "overlapped",
                )
            },
            "additionalProperties": False,
        },
        "tensors": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["read", "write"],
                "additionalProperties": False,
                "properties": {
                    "read": {"oneOf": [{"type": "null"}, VOLUME]},
                    "write": {"oneOf": [{"type": "null"}, VOLUME]},
                },
            },
        },
    },
}


@pytest.mark.parametrize("command", ["analyze", "simulate"])
def test_json_matches_schema(command, capsys):
    rc, out, _ = run_cli([command, *SMALL_GEMM_ARGS, "--format", "json"], capsys)
    assert rc == 0
    result = json.loads(out)
    jsonschema.validate(result, ANALYZE_SCHEMA)
    assert result["instances"] == 16 * 16 * 8
    assert result["tensors"]["A"]["write"] is None and result["tensors"]["C"]["read"] is None


def test_json_keeps_big_integers_exact(capsys):
    rc, out, _ = run_cli(
        [
            "analyze",
            *GEMM_OS_ARGS,
            "--set",
            "M=16384",
            "--set",
            "N=16384",
            "--set",
            "K=16384",
            "--format",
            "json",
        ],
        capsys,
    )
    assert rc == 0
    result = json.loads(out)
    assert result["instances"] == 16384**3  # 4.4e12, beyond 32 bits and exact in JSON
    assert result["tensors"]["A"]["read"]["unique"] == 16384**3 // 8


def test_csv_one_row_with_dotted_columns(capsys):
    rc, out, _ = run_cli(["analyze", *SMALL_GEMM_ARGS, "--format", "csv"], capsys)
    assert rc == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 1
    row = rows[0]
    assert row["tensors.A.read.unique"] == str(16 * 8 * 2)
    assert row["delay.compute"] == str(16 * 16 * 8 // 64)
    assert row["tensors.A.write"] == ""


def test_table_lists_every_tensor_and_metric(capsys):
    rc, out, _ = run_cli(["analyze", *SMALL_GEMM_ARGS], capsys)
    assert rc == 0
    for text in ("latency", "energy", "PE utilization", "A ", "B ", "C ", "2,048"):
        assert text in out


def test_output_file(tmp_path, capsys):
    target = tmp_path / "out.json"
    rc, out, _ = run_cli(
        ["analyze", *SMALL_GEMM_ARGS, "--format", "json", "-o", str(target)], capsys
    )
    assert rc == 0 and out == ""
    assert json.loads(target.read_text())["macs"] == 16 * 16 * 8


def test_module_entry_point_and_version():
    done = subprocess.run(
        [sys.executable, "-m", "tenet", "--version"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and done.stdout.strip() == f"tenet {__version__}"


def test_help_lists_commands():
    done = subprocess.run(
        [sys.executable, "-m", "tenet", "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0
    for command in ("analyze", "simulate", "presets"):
        assert command in done.stdout


def test_presets_lists_archs_and_workloads(capsys):
    rc, out, _ = run_cli(["presets"], capsys)
    assert rc == 0
    assert "systolic-8x8" in out and "gemm: " in out and "os-systolic-8x8" in out
