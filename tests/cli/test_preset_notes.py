"""Preset dataflows and their archs: every preset dataflow names its arch, and `presets`
lists each one that validate calls illegal with a note whose count of instances per PE
and step is exact."""

from __future__ import annotations

import dataclasses

import pytest

from tenet import load_arch, load_dataflow, load_workload
from tenet.formats.presets import (
    DATAFLOW_ARCHS,
    SEVERAL_PER_STEP,
    list_presets,
    resolve_arch,
    resolve_dataflow,
    resolve_workload,
)

from ..helpers import run_cli


def preset_dataflows() -> list[str]:
    out = []
    for line in list_presets()["workloads"]:
        workload, _, flows = line.partition(": ")
        out += [f"{workload}/{f}" for f in flows.split(", ") if f]
    return out


def test_every_preset_dataflow_has_its_arch():
    assert sorted(preset_dataflows()) == sorted(DATAFLOW_ARCHS)


def validation(name: str, arch, macs_per_pe: int | None = None):
    from tenet.analysis.validate import validate

    workload_name, _ = name.split("/")
    path = resolve_workload(workload_name)
    if macs_per_pe is not None:
        arch = dataclasses.replace(arch, macs_per_pe=macs_per_pe)
    return validate(load_workload(path), arch, load_dataflow(resolve_dataflow(name, path)))


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=() if n in ("conv2d/os-8x8", "gemm/ncf-rs-64") else pytest.mark.slow)
        for n in sorted(DATAFLOW_ARCHS)
    ],
)
def test_each_presets_legality_note_matches_validate(name):
    """Legal on its arch, or listed with a note whose count is exact: legal with that many
    MACs per PE and step, a pe_conflict with one fewer, legal on the arch it names."""
    arch = load_arch(resolve_arch(DATAFLOW_ARCHS[name]))
    result = validation(name, arch)
    notes = [n for n in list_presets()["notes"] if n.startswith(f"{name} on ")]
    if name not in SEVERAL_PER_STEP:
        assert result.legal and not notes
        return
    per_step, legal_on = SEVERAL_PER_STEP[name]
    assert not result.legal
    assert {v.kind for v in result.violations} == {"pe_conflict"}
    assert notes == [
        f"{name} on {DATAFLOW_ARCHS[name]}: illegal (pe_conflict: up to {per_step} instances "
        f"per PE and step, as in TENET's mapping)" + (f"; legal on {legal_on}" if legal_on else "")
    ]
    assert validation(name, arch, per_step).legal
    assert not validation(name, arch, per_step - 1).legal
    if legal_on:
        assert validation(name, load_arch(resolve_arch(legal_on))).legal


def test_conv2d_os_8x8_is_listed_with_its_note(capsys):
    rc, out, _ = run_cli(["presets"], capsys)
    assert rc == 0
    assert (
        "  conv2d/os-8x8 on systolic-8x8: illegal (pe_conflict: up to 9 instances per PE and "
        "step, as in TENET's mapping); legal on systolic-8x8-mac9\n" in out
    )
    rc, out, _ = run_cli(
        ["validate", "-w", "conv2d", "-a", "systolic-8x8-mac9", "-d", "os-8x8"], capsys
    )
    assert rc == 0 and ": legal" in out
