"""`--components FILE`: the row width of an Accelergy scratchpad entry, and the import's
messages (one line, the file and the key at fault, exit 2).

The ERT files are in tests/data/components/; their energies are round numbers chosen for
the arithmetic below (read 32 pJ and write 26 pJ per access of the global buffer).
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

from tenet.formats.components_import import ENTRY_NAMES, import_components, load_components
from tenet.formats.presets import resolve_arch
from tenet.model.arch import load_arch

from ..helpers import GEMM_OS_ARGS, run_cli, write_yaml

DATA = Path(__file__).resolve().parents[1] / "data" / "components"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "components.md"

#: A 64-bit-row buffer of 16-bit words, the width in the ERT entry's own attributes.
ATTRIBUTES = DATA / "glb64_attributes.yaml"
#: The same widths in the flattened architecture appended to an ERT and ART as Accelergy
#: writes them; its DRAM is 128 bits wide.
FLATTENED = DATA / "glb64_flattened.yaml"
#: An ERT alone: no width anywhere.
NO_WIDTH = DATA / "glb_no_width.yaml"

#: GEMM M = N = 32, K = 16, output-stationary on the 8x8 systolic array (16-bit words).
SIZES = ["--set", "M=32", "--set", "N=32", "--set", "K=16"]


def systolic():
    return load_arch(resolve_arch("systolic-8x8"))


def analyze_json(capsys, components: Path, *extra: str) -> tuple[dict, str]:
    rc, out, err = run_cli(
        ["analyze", *GEMM_OS_ARGS, *SIZES, "--components", components, "--format", "json", *extra],
        capsys,
    )
    assert rc == 0, err
    return json.loads(out), err


# --- the row width ----------------------------------------------------------------------------


@pytest.mark.parametrize("path", [ATTRIBUTES, FLATTENED])
def test_row_width_is_read_from_the_attributes(path):
    c = load_components(path, systolic())
    assert c.scratchpad_width_bits.value == 64
    assert "width = 64 bits" in c.scratchpad_width_bits.source
    # 4,096 words of 16 bits are 4,096 x 16 / 64 = 1,024 accesses of a 64-bit row.
    assert c.scratchpad_accesses(4096) == 1024
    assert c.scratchpad_read_pj.value == 32 and c.scratchpad_write_pj.value == 26


@pytest.mark.parametrize("path", [ATTRIBUTES, FLATTENED])
def test_scratchpad_energy_is_priced_per_row(capsys, path):
    """The scratchpad part of the energy counts read words = the read sides' unique + the
    write side's read_back, and write words = the write side's exits (docs/energy.md).

    By hand, output-stationary GEMM on 8x8 PEs, M = N = 32, K = 16: A is fetched 8 words per
    (tile, k) over (32/8)(32/8) = 16 tiles and 16 k: 16 x 16 x 8 = 2,048 words, B the same;
    every C element leaves the array once: 32 x 32 = 1,024 exits, none read back. So 4,096
    words read = 1,024 row reads at 32 pJ, and 1,024 words written = 256 row writes at 26 pJ:
    32,768 + 6,656 = 39,424 pJ (a 16-bit access would be 4x that: 157,696 pJ).
    """
    data, _ = analyze_json(capsys, path)
    tensors = data["tensors"]
    assert tensors["A"]["read"]["unique"] == 2048 and tensors["B"]["read"]["unique"] == 2048
    assert tensors["C"]["write"]["unique"] == 1024 and tensors["C"]["write"]["read_back"] == 0
    read_words = (
        tensors["A"]["read"]["unique"]
        + tensors["B"]["read"]["unique"]
        + tensors["C"]["write"]["read_back"]
    )
    write_words = 32 * 32  # exits: each C element once
    expected = Fraction(read_words, 4) * 32 + Fraction(write_words, 4) * 26
    assert expected == 39424
    assert data["cost"]["energy_pj"]["scratchpad"] == pytest.approx(39424, rel=1e-12)


def test_dram_width_from_the_flattened_architecture():
    """512 pJ per read of the 128-bit DRAM row: 4 pJ/bit (not 512/64 = 8)."""
    c = load_components(FLATTENED, systolic())
    assert c.dram_pj_per_bit.value == 4
    assert "architecture.local[0].attributes.width = 128 bits" in c.dram_pj_per_bit.source


def test_dram_without_width_is_64_bits(tmp_path):
    ert = {"ERT": {"tables": [{"name": "s.DRAM", "actions": [{"name": "read", "energy": 512}]}]}}
    c = load_components(write_yaml(tmp_path, "ert", ert), systolic())
    assert c.dram_pj_per_bit.value == 8  # 512 / 64


def test_width_in_the_art_entry_and_timeloop_names(tmp_path):
    """The ART entry's attributes serve too; Timeloop 0.3's memory_width and word_bits, and
    block_size words of the word when no width is given."""
    ert = {"ERT": {"tables": [{"name": "s.glb", "actions": [{"name": "read", "energy": 8}]}]}}
    art = {"ART": {"tables": [{"name": "s.glb", "area": 5, "attributes": {"width": 128}}]}}
    c = load_components(write_yaml(tmp_path, "a", {**ert, **art}), systolic())
    assert c.scratchpad_width_bits.value == 128
    ert["ERT"]["tables"][0]["attributes"] = {"memory_width": 256, "word_bits": 16}
    c = load_components(write_yaml(tmp_path, "b", ert), systolic())
    assert c.scratchpad_width_bits.value == 256
    ert["ERT"]["tables"][0]["attributes"] = {"block_size": 8}
    c = load_components(write_yaml(tmp_path, "c", ert), systolic())
    assert c.scratchpad_width_bits.value == 8 * 16  # 8 words of the arch's 16 bits


def test_a_datawidth_other_than_the_word_warns(tmp_path):
    """A 64-bit row stays 64 bits, that is 4 of the arch's 16-bit words, when the ERT's words
    are 8 bits; the import says so."""
    ert = {
        "ERT": {
            "tables": [
                {
                    "name": "s.glb",
                    "attributes": {"width": 64, "datawidth": 8},
                    "actions": [{"name": "read", "energy": 8}],
                }
            ]
        }
    }
    c, warnings = import_components(write_yaml(tmp_path, "ert", ert), systolic())
    assert c.scratchpad_width_bits.value == 64
    assert len(warnings) == 1 and "datawidth" in warnings[0] and "memory.word_bits" in warnings[0]


# --- no width given -------------------------------------------------------------------------


def test_no_width_warns_and_keeps_the_word(capsys):
    c, warnings = import_components(NO_WIDTH, systolic())
    assert c.scratchpad_width_bits.value == 16  # the arch's: the word
    assert len(warnings) == 1
    assert str(NO_WIDTH) in warnings[0] and "shared_glb" in warnings[0]
    assert "width" in warnings[0]
    # The CLI prints it, one line, and prices per 16-bit word: 4,096 x 32 + 1,024 x 26.
    data, err = analyze_json(capsys, NO_WIDTH)
    lines = [line for line in err.splitlines() if "shared_glb" in line]
    assert len(lines) == 1 and lines[0].startswith("tenet: warning:")
    assert data["cost"]["energy_pj"]["scratchpad"] == pytest.approx(4096 * 32 + 1024 * 26)


def test_no_warning_with_a_width_or_an_arch_row(tmp_path):
    assert import_components(ATTRIBUTES, systolic())[1] == []
    assert import_components(FLATTENED, systolic())[1] == []
    # An arch whose scratchpad already reads 64-bit rows keeps them: no warning.
    arch = load_arch(
        write_yaml(
            tmp_path,
            "arch",
            {
                "name": "t",
                "pe": {"shape": [2, 2]},
                "memory": {"word_bits": 16, "l2_words": 1024},
                "components": {"scratchpad": {"width_bits": 64}},
            },
        )
    )
    c, warnings = import_components(NO_WIDTH, arch)
    assert warnings == [] and c.scratchpad_width_bits.value == 64


# --- messages -------------------------------------------------------------------------------


def one_line_error(tmp_path, capsys, data: dict) -> tuple[Path, str]:
    path = write_yaml(tmp_path, "bad", data)
    rc, out, err = run_cli(["analyze", *GEMM_OS_ARGS, "--components", path], capsys)
    assert rc == 2 and out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert str(path) in err
    return path, err


def test_unmapped_buffer_entry_message_is_true(tmp_path, capsys):
    """`weight_buffer` maps onto nothing (only global buffers are the scratchpad); the line
    names the entry and the words that do map, and not a bare `buffer`."""
    read = [{"name": "read", "energy": 1.0}]
    path, err = one_line_error(
        tmp_path, capsys, {"ERT": {"tables": [{"name": "sys.weight_buffer", "actions": read}]}}
    )
    err = err.replace(str(path), "FILE")
    assert "sys.weight_buffer" in err and "no entry maps" in err
    words = [w for _, ws in ENTRY_NAMES for w in ws]
    assert all(w in err for w in words)
    assert "buffer" not in err.replace("weight_buffer", "").replace("global_buffer", "").replace(
        "globalbuffer", ""
    )


def test_entries_that_map_but_give_nothing(tmp_path, capsys):
    leak = [{"name": "leak", "energy": 1.0}]
    _, err = one_line_error(
        tmp_path, capsys, {"ERT": {"tables": [{"name": "sys.glb", "actions": leak}]}}
    )
    assert "sys.glb (scratchpad)" in err and "no entry maps" not in err


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ({"ERT": {"version": "0.4"}}, "ERT.tables"),
        ({"ART": {"version": "0.4"}}, "ART.tables"),
        ({"ERT_summary": {"version": "0.4"}}, "ERT_summary.table_summary"),
    ],
)
def test_missing_tables_names_the_key(tmp_path, capsys, data, key):
    _, err = one_line_error(tmp_path, capsys, data)
    assert f": {key}:" in err
    if key == "ERT.tables":
        assert "table_summary" not in err


@pytest.mark.parametrize(
    ("data", "key"),
    [
        (
            {
                "ERT": {
                    "tables": [{"name": "s.mac", "actions": [{"name": "compute", "energy": 1e300}]}]
                }
            },
            "ERT.tables[0].actions[0].energy",
        ),
        ({"ART": {"tables": [{"name": "s.mac", "area": 1e31}]}}, "ART.tables[0].area"),
        ({"ART": {"tables": [{"name": "s.mac", "area": 10**400}]}}, "ART.tables[0].area"),
    ],
)
def test_huge_values_are_refused_as_in_a_table(tmp_path, capsys, data, key):
    _, err = one_line_error(tmp_path, capsys, data)
    assert key in err and "at most 1e30" in err
    # the same words as a components: table
    _, table_err = one_line_error(tmp_path, capsys, {"components": {"mac": {"energy_pj": 1e300}}})
    assert "at most 1e30" in table_err


@pytest.mark.parametrize(
    ("attributes", "key"),
    [
        ({"width": "must_specify"}, "ERT.tables[0].attributes.width"),
        ({"width": 0}, "ERT.tables[0].attributes.width"),
        ({"width": 64, "datawidth": -16}, "ERT.tables[0].attributes.datawidth"),
        ("wide", "ERT.tables[0].attributes"),
    ],
)
def test_bad_widths_one_line(tmp_path, capsys, attributes, key):
    entry = {"name": "s.glb", "attributes": attributes, "actions": [{"name": "read", "energy": 1}]}
    _, err = one_line_error(tmp_path, capsys, {"ERT": {"tables": [entry]}})
    assert f": {key}:" in err


def test_architecture_that_is_not_flattened_one_line(tmp_path, capsys):
    read = [{"name": "read", "energy": 1}]
    data = {
        "ERT": {"tables": [{"name": "s.glb", "actions": read}]},
        "architecture": {"subtree": []},
    }
    _, err = one_line_error(tmp_path, capsys, data)
    assert "architecture.local" in err


def test_docs_list_the_names_the_code_maps():
    """docs/components.md's mapping table gives, per component, exactly the words of
    ENTRY_NAMES."""
    text = DOCS.read_text()
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[1] in dict(ENTRY_NAMES) and "`" in cells[0]:
            rows[cells[1]] = tuple(re.findall(r"`([^`]+)`", cells[0]))
    assert rows == dict(ENTRY_NAMES)


def test_actions_listed_per_argument_set_warn(tmp_path):
    """Accelergy 0.3 ERTs list a buffer's read once per (address_delta, data_delta), cheapest
    first (0 pJ for the exercises' GLB): the first is taken, and the import says so."""
    reads = [
        {"name": "read", "arguments": {"address_delta": a, "data_delta": d}, "energy": e}
        for (a, d), e in zip([(0, 0), (0, 1), (1, 0), (1, 1)], [0.0, 2.743, 1.176, 3.918])
    ]
    entry = {"name": "simple_primitive.GLB", "attributes": {"width": 64}, "actions": reads}
    c, warnings = import_components(
        write_yaml(tmp_path, "ert", {"ERT": {"tables": [entry]}}), systolic()
    )
    assert c.scratchpad_read_pj.value == 0
    assert len(warnings) == 1
    assert "action read 4 times" in warnings[0] and "(0 pJ)" in warnings[0]


def test_simulator_prices_the_same_rows(capsys):
    """The brute-force enumeration (`tenet simulate`) with the same file: 39,424 pJ."""
    rc, out, err = run_cli(
        ["simulate", *GEMM_OS_ARGS, *SIZES, "--components", FLATTENED, "--format", "json"],
        capsys,
    )
    assert rc == 0, err
    assert json.loads(out)["cost"]["energy_pj"]["scratchpad"] == pytest.approx(39424, rel=1e-12)
