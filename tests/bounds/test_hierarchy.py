"""Multi-level memory: the Snowcat bound between adjacent levels, probed at the inner
level's capacity, timed at the outer level's bandwidth; the bottleneck."""

from __future__ import annotations

import json

import pytest

from tenet import InputError, load_arch

from ..conftest import ARCHS
from ..helpers import run_cli, write_yaml


def test_levels_parse_units():
    arch = load_arch(ARCHS / "sn40l-like.yaml")
    assert [level.name for level in arch.levels] == ["SRAM", "HBM", "DDR"]
    # 16-bit words: bytes / 2
    assert arch.levels[0].capacity_words == 520 * 2**20 // 2
    assert arch.levels[2].capacity_words == int(1.5 * 2**40) // 2
    assert arch.levels[1].bandwidth_gbps == 2000


def test_mtia_like_gemm_by_hand(capsys):
    rc, out, _ = run_cli(
        [
            "bounds",
            "-w",
            "gemm-4k",
            "-a",
            "mtia-like",
            "--macs-per-cycle",
            "4096",
            "--format",
            "json",
        ],
        capsys,
    )
    assert rc == 0
    hierarchy = json.loads(out)["hierarchy"]
    local, sram = hierarchy["levels"]
    # 8 MiB of PE memory = 4,194,304 words: the largest fitting tiles are m0 = 1024, n0 = 2048
    # (buffer 1024*2048 + 1024 + 2048), moving M*N*K/n0 + M*N*K/m0 + M*N words.
    assert local["capacity_words"] == 4 * 2**20
    assert local["accesses"] == 2**36 // 2048 + 2**36 // 1024 + 2**24
    assert local["seconds"] == pytest.approx(local["accesses"] * 2 / 800e9)
    # 128 MiB of SRAM holds a whole operand: the algorithmic minimum, 3 * 4096^2.
    assert sram["accesses"] == 3 * 4096**2
    assert sram["seconds"] == pytest.approx(3 * 4096**2 * 2 / 176e9)
    assert hierarchy["compute_seconds"] == pytest.approx(4096**3 / (4096 * 1e9))
    assert hierarchy["bottleneck"] == "compute"


def test_bandwidth_bound_bottleneck(capsys):
    rc, out, _ = run_cli(
        ["bounds", "-w", "gemm-4k", "-a", "sn40l-like", "--format", "json"], capsys
    )
    hierarchy = json.loads(out)["hierarchy"]
    times = {f"{p['inner']} <-> {p['outer']}": p["seconds"] for p in hierarchy["levels"]}
    assert rc == 0 and hierarchy["bottleneck"] == max(times, key=times.get) == "HBM <-> DDR"


@pytest.mark.parametrize(
    "levels,needle",
    [
        ([{"name": "a", "capacity": "1MiB"}], "at least two"),
        (
            [{"name": "a", "capacity": "1MiB"}, {"name": "b", "capacity": "1GiB"}],
            "needs bandwidth_gbps",
        ),
        (
            [
                {"name": "a", "capacity": "1GiB"},
                {"name": "b", "capacity": "1MiB", "bandwidth_gbps": 10},
            ],
            "smaller",
        ),
        (
            [
                {"name": "a", "capacity": "lots"},
                {"name": "b", "capacity": "1MiB", "bandwidth_gbps": 10},
            ],
            "cannot read",
        ),
    ],
)
def test_bad_levels(tmp_path, levels, needle):
    with pytest.raises(InputError) as info:
        load_arch(write_yaml(tmp_path, "a", {"name": "a", "pe": {"shape": [1]}, "levels": levels}))
    assert needle in str(info.value) and "levels" in str(info.value)


def test_arch_without_levels(capsys):
    rc, _, err = run_cli(["bounds", "-w", "gemm-4k", "-a", "systolic-8x8"], capsys)
    assert rc == 2 and "no 'levels'" in err
