"""Every memory level priced, at both ends of every boundary, and the accumulation reads
(docs/energy.md, "Memory levels" and "Registers").

Hand counts use round unit costs: MAC 1 pJ, register 0.1 / 0.1, GLB 5 pJ read / 6 pJ
write per word, L2 20 / 25, DRAM 100 per word, wires free. GEMM 64³ output-stationary on
an 8×8 systolic array, `T[floor(i/8), floor(j/8), i%8 + j%8 + k]`:

* GLB tile depth 2 (one tile per 8×8 block of C, 64 tiles, i-block outer): A's 8 rows
  enter when the i-block changes (8 × 512 = 4,096 words), B's 8 columns every tile
  (64 × 512 = 32,768), and each C word is written back once (4,096);
* L2 tile depth 1 (8 tiles, one per i-block): A's rows enter once (4,096), all of B once
  (4,096), each C word is written back once (4,096).
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

from tenet import analyze, load_arch, load_dataflow, load_workload, simulate
from tenet.model.components import sram_read_pj
from tenet.model.dataflow import with_tiles

from ..conftest import ROOT, WORKLOADS
from ..helpers import run_cli, write_yaml

DATA = ROOT / "tests" / "data"
GLB_DRAM = DATA / "hierarchy" / "sys8-glb-dram.yaml"
THREE = DATA / "pricing" / "sys8-glb-l2-dram-priced.yaml"


def gemm(size: int):
    return load_workload(WORKLOADS / "gemm" / "workload.yaml", {"M": size, "N": size, "K": size})


def gemm_flow(name: str, **tiles: int):
    return with_tiles(load_dataflow(WORKLOADS / "gemm" / "dataflows" / f"{name}.yaml"), tiles)


@pytest.fixture(scope="module")
def gemm64():
    return gemm(64)


def test_glb_is_priced_at_both_ends_os(gemm64):
    """Array side: A and B each read 32,768 words from the GLB (every PE row and column
    edge, 8 blocks deep) at 5 pJ and C's 4,096 results written at 6 pJ: 352,256 pJ; the
    fills write the GLB (36,864 × 6) and the write-backs read it (4,096 × 5)."""
    assert 65_536 * 5 + 4_096 * 6 == 352_256
    cost = analyze(gemm64, load_arch(GLB_DRAM), gemm_flow("os-systolic-8x8", GLB=2)).cost
    array_side = Fraction(352_256)
    assert cost.by_level["GLB"] == array_side + 36_864 * 6 + 4_096 * 5 == 593_920
    assert cost.energy_pj.scratchpad == 593_920
    assert cost.by_level["DRAM"] == cost.energy_pj.dram == (36_864 + 4_096) * 100
    assert cost.energy_pj.intermediate == 0


def test_glb_is_priced_at_both_ends_ws(gemm64):
    """WS: A enters every tile (32,768), B once (4,096), C is written back once (4,096);
    the array side is priced from the volumes (C's 28,672 partial sums read back too);
    GLB total 765,952 pJ, the figure another modeler (ZigZag 3.9.1) gives for this case."""
    result = analyze(gemm64, load_arch(GLB_DRAM), gemm_flow("ws-systolic-8x8", GLB=2))
    level = result.levels[0]
    assert level.tensors == {"A": (32_768, 0), "B": (4_096, 0), "C": (0, 4_096)}
    # array side: read words × 5 + written words × 6 (one word per row)
    read_words = sum(v["read"].unique for v in result.volumes.values() if v["read"]) + 28_672
    write_words = result.volumes["C"]["write"].unique
    array_side = read_words * 5 + write_words * 6
    assert result.cost.by_level["GLB"] == array_side + 36_864 * 6 + 4_096 * 5 == 765_952


def test_three_levels_are_priced_at_every_boundary(gemm64):
    cost = analyze(gemm64, load_arch(THREE), gemm_flow("os-systolic-8x8", GLB=2, L2=1)).cost
    # L2: the GLB side reads 36,864 fills (× 20) and takes 4,096 write-backs (× 25); the
    # DRAM side writes 8,192 fills (× 25) and reads 4,096 write-backs (× 20).
    l2 = 36_864 * 20 + 4_096 * 25 + 8_192 * 25 + 4_096 * 20
    assert cost.by_level == {"GLB": 593_920, "L2": l2, "DRAM": (8_192 + 4_096) * 100}
    assert cost.energy_pj.intermediate == l2 == 1_126_400
    assert cost.energy_pj.dram == 1_228_800
    e = cost.energy_pj
    parts = e.mac + e.registers + e.scratchpad + e.interconnect + e.intermediate + e.dram
    assert e.total == parts
    assert sum((p.total for p in cost.by_tensor.values()), e.mac) == e.total
    assert cost.area_by_level == {"GLB": 1, "L2": 1000}  # DRAM is off chip: no area
    assert cost.area_um2.intermediate == 1000


def test_untiled_level_warns_and_the_level_inside_is_still_priced(gemm64):
    result = analyze(gemm64, load_arch(THREE), gemm_flow("os-systolic-8x8", GLB=2))
    cost = result.cost
    assert cost.by_level["L2"] == 36_864 * 20 + 4_096 * 25  # the GLB <-> L2 words
    assert cost.energy_pj.dram == 0
    untiled = [w for w in result.warnings if getattr(w, "kind", None) == "untiled_level"]
    assert len(untiled) == 1 and "'L2'" in untiled[0] and "'DRAM'" in untiled[0]


def test_no_tile_depth_is_not_a_silent_zero(gemm64):
    result = analyze(gemm64, load_arch(GLB_DRAM), gemm_flow("os-systolic-8x8"))
    assert result.cost.energy_pj.dram == 0
    assert [w.kind for w in result.warnings if getattr(w, "kind", None)] == ["untiled_level"]


def test_accumulation_reads_and_read_outs_os(gemm64):
    """Each of the 64³ accumulations but each element's first reads its partial sum:
    262,144 − 4,096 = 258,048; each of the 4,096 results leaves a register once."""
    cost = analyze(gemm64, load_arch(GLB_DRAM), gemm_flow("os-systolic-8x8", GLB=2)).cost
    assert cost.actions["C"].accumulator_reads == 258_048
    assert cost.actions["C"].register_read_outs == 4_096
    assert cost.actions["A"].accumulator_reads == cost.actions["A"].register_read_outs == 0
    # registers: operand reads 2 × 262,144 plus those reads, and every write, at 0.1 pJ
    acts = cost.actions
    reads = sum(
        a.register_reads + a.accumulator_reads + a.register_read_outs for a in acts.values()
    )
    writes = sum(a.register_writes for a in acts.values())
    assert reads == 2 * 262_144 + 258_048 + 4_096
    assert cost.energy_pj.registers == Fraction(reads + writes, 10)


def test_explicit_output_read_has_no_extra_accumulation_read(tmp_path):
    """A workload that reads C itself counts that read on C's read side."""
    workload_path = write_yaml(
        tmp_path,
        "gemm-rw",
        {
            "name": "gemm-rw",
            "params": {"N": 4},
            "statements": [
                {
                    "domain": "[N] -> { S[i,j,k] : 0 <= i,j,k < N }",
                    "reads": {
                        "A": "{ S[i,j,k] -> A[i,k] }",
                        "B": "{ S[i,j,k] -> B[k,j] }",
                        "C": "{ S[i,j,k] -> C[i,j] }",
                    },
                    "writes": {"C": "{ S[i,j,k] -> C[i,j] }"},
                }
            ],
        },
    )
    workload = load_workload(workload_path, {})
    arch = load_arch(GLB_DRAM)
    flow = load_dataflow(
        write_yaml(
            tmp_path,
            "os",
            {"name": "os", "space": "{ S[i,j,k] -> PE[i, j] }", "time": "{ S[i,j,k] -> T[k] }"},
        )
    )
    cost = analyze(workload, arch, flow).cost
    assert cost.actions["C"].accumulator_reads == 0
    assert cost.actions["C"].register_reads == 64  # the workload's own reads of C
    assert cost == simulate(workload, arch, flow).cost


@pytest.mark.parametrize(
    "arch_path,flow_name,tiles",
    [
        (THREE, "os-systolic-8x8", {"GLB": 2, "L2": 1}),
        (THREE, "ws-systolic-8x8", {"GLB": 3, "L2": 1}),
        (THREE, "os-systolic-8x8", {"GLB": 2}),
        (GLB_DRAM, "ws-systolic-8x8", {"GLB": 1}),
    ],
)
def test_level_prices_match_enumeration(arch_path, flow_name, tiles):
    workload = load_workload(WORKLOADS / "gemm" / "workload.yaml", {"M": 12, "N": 10, "K": 9})
    arch, flow = load_arch(arch_path), gemm_flow(flow_name, **tiles)
    engine, reference = analyze(workload, arch, flow), simulate(workload, arch, flow)
    assert engine.cost == reference.cost
    assert engine.cost.by_level == reference.cost.by_level
    assert engine.cost.actions["C"].accumulator_reads == 12 * 10 * 9 - 12 * 10


def test_conv_level_prices_match_enumeration():
    workload = load_workload(
        WORKLOADS / "conv2d" / "workload.yaml",
        {"K": 8, "C": 3, "OX": 5, "OY": 4, "RX": 3, "RY": 3},
    )
    flow = with_tiles(load_dataflow(WORKLOADS / "conv2d" / "dataflows" / "os-8x8.yaml"), {"GLB": 1})
    arch = load_arch(THREE)
    engine, reference = analyze(workload, arch, flow), simulate(workload, arch, flow)
    assert engine.cost == reference.cost
    assert engine.cost.by_level["L2"] > 0


def test_scratchpad_is_sized_by_levels0(tmp_path):
    """A GLB of 32,768 16-bit words is a 65,536-byte SRAM: the library's fit prices it at
    that size, not at memory.l2_words (1,024 by default), and a warning says which won."""
    data = {
        "name": "big-glb",
        "pe": {"shape": [4, 4]},
        "technology": {"node_nm": 45},
        "levels": [
            {"name": "GLB", "capacity": 32768},
            {"name": "DRAM", "capacity": "1GiB", "bandwidth_gbps": 16},
        ],
    }
    arch = load_arch(write_yaml(tmp_path, "big", data))
    assert arch.components.scratchpad_size_bytes.value == 65_536
    assert arch.components.scratchpad_read_pj.value == sram_read_pj(65_536, 16, 45)
    workload = gemm(8)
    flow = load_dataflow(
        write_yaml(
            tmp_path,
            "os",
            {
                "name": "os",
                "space": "{ S[i,j,k] -> PE[i % 4, j % 4] }",
                "time": "{ S[i,j,k] -> T[floor(i/4), floor(j/4), k] }",
                "tiles": {"GLB": 2},
            },
        )
    )
    result = analyze(workload, arch, flow)
    sized = [w for w in result.warnings if getattr(w, "kind", None) == "scratchpad_size"]
    assert len(sized) == 1 and "32,768" in sized[0] and "l2_words" in sized[0]


def test_intermediate_level_from_the_sram_fit(tmp_path):
    """An L2 of 16,384 words with no values of its own: the fit at 32,768 bytes."""
    data = {
        "name": "fit-l2",
        "pe": {"shape": [4, 4]},
        "memory": {"l2_words": 1024},
        "technology": {"node_nm": 45},
        "levels": [
            {"name": "GLB", "capacity": 1024},
            {"name": "L2", "capacity": 16384, "bandwidth_gbps": 64},
            {"name": "DRAM", "capacity": "1GiB", "bandwidth_gbps": 16},
        ],
    }
    arch = load_arch(write_yaml(tmp_path, "fit", data))
    flow = load_dataflow(
        write_yaml(
            tmp_path,
            "os",
            {
                "name": "os",
                "space": "{ S[i,j,k] -> PE[i % 4, j % 4] }",
                "time": "{ S[i,j,k] -> T[floor(i/4), floor(j/4), k] }",
                "tiles": {"GLB": 2, "L2": 1},
            },
        )
    )
    result = analyze(gemm(8), arch, flow)
    glb, l2 = result.levels
    per_access = sram_read_pj(32_768, 16, 45)  # write = read in the fit
    expected = (glb.reads + glb.writes + l2.reads + l2.writes) * per_access
    assert result.cost.by_level["L2"] == expected
    assert result.cost.energy_pj.intermediate == expected


def _three_level(tmp_path, middle: dict, components: dict | None = None) -> str:
    data = {
        "name": "three",
        "pe": {"shape": [4, 4]},
        "technology": {"node_nm": 45},
        "levels": [
            {"name": "GLB", "capacity": 1024},
            middle,
            {"name": "DRAM", "capacity": "1TiB", "bandwidth_gbps": 16},
        ],
    }
    if components is not None:
        data["components"] = components
    return str(write_yaml(tmp_path, "three", data))


def test_level_that_cannot_be_priced_is_refused(tmp_path, capsys):
    arch = _three_level(tmp_path, {"name": "HBM", "capacity": "4GiB", "bandwidth_gbps": 800})
    flow = write_yaml(
        tmp_path,
        "os",
        {
            "name": "os",
            "space": "{ S[i,j,k] -> PE[i % 4, j % 4] }",
            "time": "{ S[i,j,k] -> T[floor(i/4), floor(j/4), k] }",
            "tiles": {"GLB": 2, "HBM": 1},
        },
    )
    args = ["analyze", "-w", "gemm", "-a", arch, "-d", str(flow), "--set", "M=8", "--set", "N=8"]
    code, _, err = run_cli([*args, "--set", "K=8"], capsys)
    assert code == 2
    assert "components.levels.HBM" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "levels_entry,key",
    [
        ({"GLB": {"read_pj": 1}}, "components.levels.GLB"),  # levels[0] is the scratchpad
        ({"L3": {"read_pj": 1}}, "components.levels.L3"),  # no such level
        ({"L2": {"read_pj": -1}}, "components.levels.L2.read_pj"),
        ({"L2": {"reed_pj": 1}}, "components.levels.L2.reed_pj"),
    ],
)
def test_bad_level_components_are_refused(tmp_path, capsys, levels_entry, key):
    arch = _three_level(
        tmp_path,
        {"name": "L2", "capacity": 16384, "bandwidth_gbps": 64},
        {"levels": levels_entry},
    )
    code, _, err = run_cli(["analyze", "-w", "gemm", "-a", arch, "-d", "os-systolic-8x8"], capsys)
    assert code == 2 and key in err and "Traceback" not in err


def test_zero_pe_pitch_is_refused(tmp_path, capsys):
    data = {"name": "p0", "pe": {"shape": [2, 2]}, "components": {"pe_pitch_um": 0}}
    arch = str(write_yaml(tmp_path, "p0", data))
    code, _, err = run_cli(["analyze", "-w", "gemm", "-a", arch, "-d", "os-systolic-8x8"], capsys)
    assert code == 2 and "components.pe_pitch_um" in err


def test_journal_rebuilds_the_level_prices(gemm64):
    from tenet.model.cost import rebuild_cost

    result = analyze(gemm(16), load_arch(THREE), gemm_flow("os-systolic-8x8", GLB=2, L2=1))
    rebuilt = rebuild_cost(result.cost.to_exact(), result.macs, load_arch(THREE))
    assert rebuilt == result.cost
    assert dataclasses.asdict(rebuilt)["by_level"] == dataclasses.asdict(result.cost)["by_level"]
