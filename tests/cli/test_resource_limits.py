"""Limits that stop a run before it exhausts the machine: `simulate`'s memory estimate
(refused in one line when it exceeds the memory available), large boxes enumerated in
slabs, and the isl operations limit (its message and its default)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from tenet import load_arch, load_dataflow, load_workload
from tenet.formats.presets import resolve_arch, resolve_dataflow, resolve_workload

from ..conftest import ROOT
from ..helpers import GEMM_OS_ARGS, run_cli

GEMM = ["-w", "gemm", "-a", "systolic-8x8", "-d", "os-systolic-8x8"]
SMALL = ["--set", "M=16", "--set", "N=16", "--set", "K=16"]


# --- memory ----------------------------------------------------------------------------------


def test_simulate_refuses_what_does_not_fit_in_memory(capsys, monkeypatch):
    """GEMM 16^3 = 4,096 instances; 3 loops, 2-D PEs, 3-D time stamps, 2-D tensors: the
    estimate is 8·(2·(3 + 2 + 3) + 4 + 2·2 + 16)·4096 = 8·40·4096 = 1,310,720 bytes."""
    from tenet.analysis.simulate import memory_estimate
    from tenet.model.dataflow import bind_dataflow

    path = resolve_workload("gemm")
    workload = load_workload(path, {"M": 16, "N": 16, "K": 16})
    arch = load_arch(resolve_arch("systolic-8x8"))
    bound = bind_dataflow(load_dataflow(resolve_dataflow("os-systolic-8x8", path)), workload, arch)
    assert memory_estimate(workload, arch, bound, 4096) == 1_310_720
    monkeypatch.setenv("TENET_MEMORY_AVAILABLE", "1000000")
    rc, out, err = run_cli(["simulate", *GEMM, *SMALL], capsys)
    assert rc == 2 and out == "" and err.count("\n") == 1
    assert "4,096 instances needs about 1.2 MiB of memory" in err
    assert "1,000,000" not in err and "1.0 MiB available (TENET_MEMORY_AVAILABLE)" in err
    monkeypatch.setenv("TENET_MEMORY_AVAILABLE", "1400000")
    rc, out, err = run_cli(["simulate", *GEMM, *SMALL, "--format", "json"], capsys)
    assert rc == 0 and json.loads(out)["instances"] == 4096


@pytest.mark.slow
def test_a_simulate_needing_80_gib_is_refused_at_once_on_this_machine():
    """M=4096, N=K=256: 268,435,456 instances x 320 bytes = 80 GiB, above any test machine's
    MemAvailable (read from /proc/meminfo when the variable is not set)."""
    from tenet.analysis.simulate import available_memory

    available, where = available_memory()
    if available is None or available > 80 * 2**30:
        pytest.skip(f"this machine has {available} bytes free ({where})")
    env = {k: v for k, v in os.environ.items() if k != "TENET_MEMORY_AVAILABLE"}
    env["PYTHONPATH"] = str(ROOT)
    args = [*GEMM, "--set", "M=4096", "--max-instances", "100000000000"]
    done = subprocess.run(
        [sys.executable, "-m", "tenet", "simulate", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )
    assert done.returncode == 2
    assert "268,435,456 instances needs about 80.0 GiB of memory" in done.stderr
    assert done.stderr.count("\n") == 1


def test_large_boxes_are_enumerated_in_slabs_in_order(monkeypatch):
    """Slabs give the same points, in the same (lexicographic) order, as one scan."""
    import islpy as isl

    from tenet.analysis import points

    s = isl.Set(
        "{ [i, j, k] : 0 <= i < 3 and 0 <= j < 12 and 0 <= k <= j and (i + j + k) % 3 = 0 }"
    )
    expected = np.array(
        [
            (i, j, k)
            for i in range(3)
            for j in range(12)
            for k in range(j + 1)
            if (i + j + k) % 3 == 0
        ]
    )
    for slab in (10**9, 100, 7, 1):
        monkeypatch.setattr(points, "SLICE_BOX", slab)
        assert np.array_equal(points.set_points(s), expected), slab


# --- the isl operations limit -------------------------------------------------------------


def test_the_isl_limit_message_names_set_and_max_isl_ops(capsys):
    rc, out, err = run_cli(["analyze", *GEMM_OS_ARGS, "--max-isl-ops", "1000"], capsys)
    assert rc == 2 and out == ""
    assert "1,000 operations" in err
    assert "--set NAME=VALUE" in err and "--max-isl-ops" in err
    assert err.count("\n") == 1


def test_the_default_isl_limit_is_a_bounded_time():
    from tenet.util.limits import DEFAULT_MAX_OPERATIONS

    # About 30 s of a heavy symbolic count here (~2.7 million isl operations per second).
    assert 50_000_000 <= DEFAULT_MAX_OPERATIONS <= 100_000_000
