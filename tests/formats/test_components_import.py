"""`--components FILE`: Accelergy ERT/ART tables and simple tables onto Components."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from tenet.formats.components_import import component_of, load_components
from tenet.formats.presets import resolve_arch
from tenet.model.arch import load_arch
from tenet.model.components import technology_components

from ..helpers import GEMM_OS_ARGS, run_cli, write_yaml

#: A small ERT and ART in Accelergy's 0.4 layout (as timeloop-mapper.ERT.yaml writes it).
ERT_ART = {
    "ERT": {
        "version": "0.4",
        "tables": [
            {
                "name": "system_top_level.DRAM[1..1]",
                "actions": [
                    {"name": "leak", "arguments": {}, "energy": 0.0},
                    {"name": "read", "arguments": {}, "energy": 512.0},
                ],
            },
            {
                "name": "system_top_level.shared_glb[1..1]",
                "actions": [
                    {"name": "write", "energy": 26.5},
                    {"name": "read", "energy": 32.25},
                ],
            },
            {
                "name": "system_top_level.weight_reg[1..256]",
                "actions": [{"name": "read", "energy": 0.144}],
            },
            {
                "name": "system_top_level.input_reg[1..256]",
                "actions": [{"name": "read", "energy": 9.0}],
            },
            {
                "name": "system_top_level.mac[1..256]",
                "actions": [{"name": "compute", "energy": 0.315}],
            },
            {
                "name": "system_top_level.noc_thing[1..1]",
                "actions": [{"name": "read", "energy": 1.0}],
            },
        ],
    },
    "ART": {
        "version": "0.4",
        "tables": [
            {"name": "system_top_level.shared_glb[1..1]", "area": 429745.625},
            {"name": "system_top_level.mac[1..256]", "area": 417.0},
            {"name": "system_top_level.weight_reg[1..256]", "area": 95.68},
        ],
    },
}


def systolic():
    return load_arch(resolve_arch("systolic-8x8"))


def test_names_map_onto_components():
    assert component_of("system_top_level.mac[1..256]") == "mac"
    assert component_of("system.PE[0..15].mac") == "mac"  # a range before the last part
    assert component_of("PE.weights_spad_regfile[0..3]") == "register"
    assert component_of("System_top_level.GlobalBuffer[1..1]") == "scratchpad"
    assert component_of("system_top_level.DRAM[1..1]") == "dram"
    assert component_of("top.inter_PE_spatial[1..1]") is None


def test_ert_art_values_and_sources(tmp_path):
    path = write_yaml(tmp_path, "acc", ERT_ART)
    c = load_components(path, systolic())
    assert c.mac_energy_pj.value == Fraction("0.315")
    assert c.mac_area_um2.value == 417
    assert c.register_read_pj.value == Fraction("0.144")  # the first reg entry, not input_reg
    assert c.register_area_um2.value == Fraction("95.68")
    assert c.scratchpad_read_pj.value == Fraction("32.25")
    assert c.scratchpad_write_pj.value == Fraction("26.5")
    assert c.scratchpad_area_um2.value == Fraction("429745.625")
    assert c.dram_pj_per_bit.value == 8  # 512 pJ per 64-bit access
    assert "system_top_level.mac[1..256], action compute" in c.mac_energy_pj.source
    assert c.mac_energy_pj.source.startswith(str(path))
    # Not in the file: the 45 nm library's (the arch has no components).
    library = technology_components(45, 16, 1024 * 16 // 8)
    assert c.adder_energy_pj == library.adder_energy_pj
    assert c.register_write_pj == library.register_write_pj
    # The PE pitch follows the imported areas: sqrt(417 + 3 x 95.68) = sqrt(704.04).
    assert float(c.pe_pitch_um.value) == pytest.approx(704.04**0.5, rel=1e-9)


def test_simple_table_overrides_only_what_it_gives(tmp_path):
    arch_path = write_yaml(
        tmp_path,
        "arch",
        {"pe": {"shape": [2, 2]}, "technology": {"node_nm": 16}, "memory": {"l2_words": 2048}},
    )
    table = write_yaml(tmp_path, "table", {"components": {"mac": {"energy_pj": 0.25}}})
    arch = load_arch(arch_path)
    c = load_components(table, arch)
    assert c.mac_energy_pj.value == Fraction("0.25")
    assert c.mac_energy_pj.source == f"{table}: components.mac.energy_pj"
    assert c.mac_area_um2 == arch.components.mac_area_um2  # the arch's 16 nm value stays
    assert c.node_nm == 16


def test_cli_flag_changes_the_components(tmp_path, capsys):
    path = write_yaml(tmp_path, "acc", ERT_ART)
    rc, out, _ = run_cli(
        [
            "analyze",
            *GEMM_OS_ARGS,
            "--set",
            "M=8",
            "--set",
            "N=8",
            "--set",
            "K=8",
            "--components",
            path,
            "--format",
            "json",
        ],
        capsys,
    )
    assert rc == 0
    assert json.loads(out)  # the run succeeds with the imported components
    # The arch the commands analyze carries them (and --technology sets the library).
    import argparse

    from tenet.cli.common import with_cost_flags

    arch = with_cost_flags(systolic(), argparse.Namespace(components=str(path), technology=None))
    assert arch.components.mac_energy_pj.value == Fraction("0.315")
    arch = with_cost_flags(systolic(), argparse.Namespace(components=None, technology=28))
    assert arch.components.node_nm == 28
    assert arch.components.mac_area_um2 == technology_components(28, 16, 2048).mac_area_um2


@pytest.mark.parametrize(
    ("data", "where"),
    [
        ({"ERT": {"tables": [{"name": "top.thing", "actions": []}]}}, "no entry maps"),
        (
            {
                "ERT": {
                    "tables": [{"name": "top.mac", "actions": [{"name": "compute", "energy": -1}]}]
                }
            },
            "ERT.tables[0].actions[0].energy",
        ),
        ({"ART": {"tables": [{"name": "top.mac", "area": "big"}]}}, "ART.tables[0].area"),
        ({"hello": 1}, "expected an Accelergy ERT/ART"),
        ({"components": {"mac": {"energy_pj": "x"}}}, "components.mac.energy_pj"),
    ],
)
def test_bad_files_one_line_exit_2(tmp_path, capsys, data, where):
    path = write_yaml(tmp_path, "bad", data)
    rc, out, err = run_cli(["analyze", *GEMM_OS_ARGS, "--components", path], capsys)
    assert rc == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert str(path) in err and where in err


def small_arch(tmp_path, **extra) -> str:
    data = {"name": "t", "pe": {"shape": [2, 2]}, "memory": {"word_bits": 16, "l2_words": 1024}}
    data.update(extra)
    return write_yaml(tmp_path, "arch", data)


def test_table_that_resizes_the_scratchpad_reprices_it(tmp_path):
    """An arch at 45 nm with a 2 KiB scratchpad; a table giving only size_bytes: 131072 prices
    the scratchpad at 128 KiB (the library's values at that size), exactly as the arch key
    would; read_pj given in the table wins over the re-priced one."""
    arch = load_arch(small_arch(tmp_path, technology={"node_nm": 45}))
    table = write_yaml(tmp_path, "t", {"components": {"scratchpad": {"size_bytes": 131072}}})
    merged = load_components(table, arch)
    direct = technology_components(45, 16, 131072)
    assert merged.scratchpad_size_bytes.value == 131072
    for key in ("scratchpad_read_pj", "scratchpad_write_pj", "scratchpad_area_um2"):
        assert getattr(merged, key).value == getattr(direct, key).value, key
    assert merged.scratchpad_read_pj.value != arch.components.scratchpad_read_pj.value
    own = write_yaml(
        tmp_path, "t2", {"components": {"scratchpad": {"size_bytes": 131072, "read_pj": 5}}}
    )
    assert load_components(own, arch).scratchpad_read_pj.value == 5


def test_technology_flag_on_an_arch_with_components_is_refused(tmp_path, capsys):
    path = small_arch(tmp_path, technology={"node_nm": 45})
    for node in ("7", "3"):  # a valid node, and one outside the library
        rc, out, err = run_cli(
            ["analyze", "-w", "gemm", "-a", path, "-d", "os-systolic-8x8", "--technology", node],
            capsys,
        )
        assert rc == 2 and not out
        assert len(err.strip().splitlines()) == 1 and "--technology" in err


def test_technology_flag_needs_a_scratchpad_size(tmp_path, capsys):
    data = {"name": "t", "pe": {"shape": [2, 2]}, "memory": {"word_bits": 16, "l2_words": 0}}
    path = write_yaml(tmp_path, "arch", data)
    rc, out, err = run_cli(
        ["analyze", "-w", "gemm", "-a", path, "-d", "os-systolic-8x8", "--technology", "45"],
        capsys,
    )
    assert rc == 2 and not out
    assert len(err.strip().splitlines()) == 1 and "memory.l2_words" in err


def test_ert_wire_entry_is_not_read(tmp_path):
    """An ERT wire entry prices a transfer of a wire whose width and length the ERT does
    not record: the wire energy stays the library's (0.1015625 pJ/bit/mm at 45 nm)."""
    ert = {
        "ERT": {
            "version": "0.4",
            "tables": [
                {"name": "system.mac[0..3]", "actions": [{"name": "compute", "energy": 1.5}]},
                {"name": "system.wire", "actions": [{"name": "transfer", "energy": 7.0}]},
            ],
        }
    }
    arch = load_arch(small_arch(tmp_path))
    loaded = load_components(write_yaml(tmp_path, "ert", ert), arch)
    assert loaded.mac_energy_pj.value == Fraction(3, 2)
    assert loaded.wire_pj_per_bit_mm.value == Fraction("0.1015625")
