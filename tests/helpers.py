"""Building small inputs in tests without touching the filesystem much."""

from __future__ import annotations

from pathlib import Path

import yaml

from tenet import analyze, load_arch, load_dataflow, load_workload, simulate
from tenet.cli import main

#: The output-stationary GEMM on the 8x8 systolic preset, for CLI tests.
GEMM_OS_ARGS = ["-w", "gemm", "-a", "systolic-8x8", "-d", "os-systolic-8x8"]

#: The same at a small size.
SMALL_GEMM_ARGS = [
    *GEMM_OS_ARGS,
    "--set",
    "M=16",
    "--set",
    "N=16",
    "--set",
    "K=8",
]


def write_yaml(directory: Path, name: str, data: dict) -> Path:
    path = directory / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def both(workload, arch, dataflow) -> tuple[dict, dict]:
    """(engine result, brute-force result) as JSON dicts."""
    return analyze(workload, arch, dataflow).to_dict(), simulate(workload, arch, dataflow).to_dict()


def load_all(workload: Path, arch: Path, dataflow: Path, sets: dict | None = None):
    return load_workload(workload, sets or {}), load_arch(arch), load_dataflow(dataflow)


def run_cli(args, capsys) -> tuple[int, str, str]:
    """Run the CLI in-process: (exit code, stdout, stderr)."""
    rc = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return rc, out, err
