"""Shared fixtures: paths to the repo's presets and to TENET's published inputs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARCHS = ROOT / "archs"
WORKLOADS = ROOT / "workloads"
# TENET's published inputs; TENET_DATA_DIR points elsewhere (a missing folder simulates a
# plain clone). Only the comparisons with the published numbers need them: everything else
# runs on our own TENET-format files in examples/tenet.
TENET_DATA = Path(os.environ.get("TENET_DATA_DIR") or ROOT.parent / "shared" / "tenet-data")


#: The comparison with TENET's published numbers is an optional extra: without the data it is
#: not collected at all (no skips), and the report header says so.
collect_ignore = [] if TENET_DATA.is_dir() else ["formats/test_tenet_data.py"]


def pytest_report_header(config) -> str:
    if TENET_DATA.is_dir():
        return f"TENET's published inputs: {TENET_DATA}"
    return "TENET's published inputs absent: formats/test_tenet_data.py (an optional extra) not run"


@pytest.fixture
def tenet_data() -> Path:
    """TENET's published inputs; skips when they are absent (e.g. on a plain clone)."""
    if not TENET_DATA.is_dir():
        pytest.skip(f"TENET's published inputs are absent ({TENET_DATA})")
    return TENET_DATA


@pytest.fixture(scope="session")
def dask_scheduler_address():
    """`tcp://127.0.0.1:PORT` of a real Dask scheduler with 2 one-thread workers (separate
    processes, shared by the session); skips when Dask is not installed."""
    pytest.importorskip("distributed")
    from .dask_cluster import local_dask_cluster

    with local_dask_cluster(workers=2) as address:
        yield address
