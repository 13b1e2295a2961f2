"""`analyze -n NETWORK --symbolic --family ...`: each family counted once, every layer equal to
counting it directly."""

from __future__ import annotations

import json

import pytest

from tenet import load_arch
from tenet.explore.network import analyze_network, load_network
from tenet.explore.network_symbolic import analyze_network_symbolic
from tenet.formats.presets import resolve_arch
from tenet.model.metrics import SCHEDULE_TIME_KEYS

from ..helpers import run_cli


def without_warnings(entry: dict) -> dict:
    """The entry without warnings and without the per-step numbers (no closed forms)."""
    out = {
        k: v
        for k, v in entry.items()
        if k not in ("warnings", "warning_kinds", *SCHEDULE_TIME_KEYS)
    }
    for key in SCHEDULE_TIME_KEYS:
        group, _, name = key.partition(".")
        if name and group in out:
            out[group] = {k: v for k, v in out[group].items() if k != name}
    return out


def same(a, b) -> bool:
    """Counts equal exactly; ratios within 1e-12 (analyze adds its bandwidth sums in floats,
    the formulas are evaluated exactly)."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, float) or isinstance(b, float):
        return a == pytest.approx(b, rel=1e-12)
    return a == b and type(a) is type(b)


@pytest.mark.parametrize(
    "network",
    [
        pytest.param("resnet50", marks=pytest.mark.slow),
        pytest.param("alexnet", marks=pytest.mark.slow),
    ],
)
def test_family_counts_equal_direct_counts(network):
    net = load_network(network)
    arch = load_arch(resolve_arch("systolic-8x8"))
    flows = "ws-8x8,os-systolic-8x8"
    direct = analyze_network(net, arch, flows).to_dict()
    symbolic = analyze_network_symbolic(
        net, arch, ["K", "C", "OX", "OY", "M", "N"], flows
    ).to_dict()
    for mine, reference in zip(symbolic["layers"], direct["layers"], strict=True):
        assert same(without_warnings(mine), without_warnings(reference)), mine["layer"]
    assert same(symbolic["total"], without_warnings(direct["total"]))
    # Fewer counts than layers: the point of a family.
    counted = sum(len(f["layers"]) for f in symbolic["families"])
    assert counted + len(symbolic["counted_directly"]) == len(net.layers)
    assert len(symbolic["families"]) < counted


@pytest.mark.slow
def test_resnet50_families_are_few():
    net = load_network("resnet50")
    arch = load_arch(resolve_arch("systolic-8x8"))
    result = analyze_network_symbolic(
        net, arch, ["K", "C", "OX", "OY"], "ws-8x8,os-systolic-8x8"
    ).to_dict()
    # The 1x1 and 3x3 convolutions form one family each; the 7x7 stem and the strided
    # layers are counted directly.
    shapes = sorted(tuple(sorted(f["fixed"].items())) for f in result["families"])
    assert (("RX", 1), ("RY", 1)) in shapes and (("RX", 3), ("RY", 3)) in shapes


def test_cli(capsys):
    code, out, err = run_cli(
        [
            "analyze",
            "-n",
            "alexnet",
            "-a",
            "systolic-8x8",
            "-d",
            "ws-8x8,os-systolic-8x8",
            "--symbolic",
            "--family",
            "K,C,N",
            "--format",
            "json",
        ],
        capsys,
    )
    assert code == 0, err
    assert json.loads(out)["families"]
    code, out, err = run_cli(
        ["analyze", "-n", "alexnet", "-a", "systolic-8x8", "-d", "ws-8x8", "--symbolic"], capsys
    )
    assert code == 2 and "--family" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "args, needle",
    [
        (["-n", "alexnet", "-d", "ws-8x8,os-systolic-8x8", "--symbolic", "--family", "ZZ"], "'ZZ'"),
        (["-w", "gemm", "-d", "os-systolic-8x8", "--family", "K"], "goes with"),
    ],
)
def test_family_errors(capsys, args, needle):
    code, out, err = run_cli(["analyze", "-a", "systolic-8x8", *args], capsys)
    assert code == 2 and out == "" and "--family" in err and needle in err
    assert len(err.strip().splitlines()) == 1
