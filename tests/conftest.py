"""Shared fixtures: paths to the repo's presets and to TENET's published inputs."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARCHS = ROOT / "archs"
WORKLOADS = ROOT / "workloads"
TENET_DATA = ROOT.parent / "shared" / "tenet-data"


@pytest.fixture
def tenet_data() -> Path:
    if not TENET_DATA.is_dir():
        pytest.skip("../shared/tenet-data is absent")
    return TENET_DATA
