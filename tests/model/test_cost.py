"""The cost model (docs/energy.md) against hand counts: every expected number below is
closed-form arithmetic on the array and the mapping, never our own output."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

from tenet import analyze, load_arch, load_dataflow, load_workload
from tenet.model.components import Components, Quantity
from tenet.model.cost import (
    AreaCounts,
    EnergyParts,
    TensorActions,
    hop_length,
    price,
)

from ..conftest import ARCHS, WORKLOADS
from ..helpers import write_yaml

#: A hand-given component table with round numbers (not a technology: test input only).
HAND = {
    "mac_energy_pj": ("1", "pJ"),
    "mac_area_um2": ("100", "um2"),
    "register_read_pj": ("1/10", "pJ"),
    "register_write_pj": ("1/5", "pJ"),
    "register_area_um2": ("10", "um2"),
    "scratchpad_size_bytes": ("65536", "bytes"),
    "scratchpad_width_bits": ("64", "bits"),
    "scratchpad_read_pj": ("4", "pJ"),
    "scratchpad_write_pj": ("5", "pJ"),
    "scratchpad_area_um2": ("50000", "um2"),
    "dram_pj_per_bit": ("10", "pJ/bit"),
    "wire_pj_per_bit_mm": ("1/10", "pJ/bit/mm"),
    "adder_energy_pj": ("1/20", "pJ"),
    "adder_area_um2": ("20", "um2"),
    "pe_pitch_um": ("100", "um"),
}


def hand_components(**values: str) -> Components:
    """Components from HAND, with some values replaced (`wire_pj_per_bit_mm="1/5"`)."""
    table = {key: (values.get(key, value), unit) for key, (value, unit) in HAND.items()}
    return Components(
        word_bits=16,
        **{k: Quantity(Fraction(v), unit, "test: hand-given") for k, (v, unit) in table.items()},
    )


# With HAND: one word over one pitch = 0.1 mm × 16 bit × 1/10 pJ/bit/mm = 4/25 pJ; a
# scratchpad row holds 64/16 = 4 words.
WIRE = Fraction(1, 10) * 16 * Fraction(1, 10)
ROW = 4


def gemm(m: int, n: int, k: int):
    return load_workload(WORKLOADS / "gemm" / "workload.yaml", {"M": m, "N": n, "K": k})


def flow(tmp_path, name: str, space: str, time: str):
    return load_dataflow(write_yaml(tmp_path, name, {"name": name, "space": space, "time": time}))


def preset(arch: str):
    return dataclasses.replace(load_arch(ARCHS / f"{arch}.yaml"), components=hand_components())


def gemm_flow(name: str):
    return load_dataflow(WORKLOADS / "gemm" / "dataflows" / f"{name}.yaml")


def expected_energy(acts: TensorActions) -> EnergyParts:
    """The pJ of docs/energy.md written out with HAND's numbers."""
    return EnergyParts(
        registers=(acts.register_reads + acts.accumulator_reads + acts.register_read_outs)
        * Fraction(1, 10)
        + acts.register_writes * Fraction(1, 5),
        scratchpad=Fraction(acts.scratchpad_read_words, ROW) * 4
        + Fraction(acts.scratchpad_write_words, ROW) * 5,
        interconnect=(acts.forward_pitches + acts.bus_pitches + acts.distribution_pitches) * WIRE
        + acts.link_register_writes * Fraction(1, 5)
        + acts.adds * Fraction(1, 20),
    )


def check_sums(cost, macs: int) -> None:
    """The parts add up to the total; the tensors plus the MACs to the parts."""
    e = cost.energy_pj
    assert e.total == e.mac + e.registers + e.scratchpad + e.interconnect + e.intermediate + e.dram
    assert e.mac == macs  # 1 pJ per MAC
    summed = EnergyParts(mac=e.mac) if cost.by_level else EnergyParts(mac=e.mac, dram=e.dram)
    for parts in cost.by_tensor.values():
        assert parts.mac == 0
        summed = summed + parts
    assert summed == e
    a = cost.area_um2
    assert a.total == a.pe_array + a.link_registers + a.buses + a.scratchpad
    for tensor, acts in cost.actions.items():
        assert cost.by_tensor[tensor] == expected_energy(acts)


@pytest.fixture(scope="module")
def gemm64():
    return gemm(64, 64, 64)


# ---------------------------------------------------------------------------------------------
# Partial sums read back


def test_ws_read_back_64(gemm64):
    """WS on systolic-8x8: C[i,j] runs down one PE column through the 8 k of a k-block
    and leaves at the bottom: 64/8 = 8 exits per element, 4096 elements, so 32,768 exits
    and 32,768 − 4,096 = 28,672 re-entries (an output starts empty)."""
    result = analyze(gemm64, load_arch(ARCHS / "systolic-8x8.yaml"), gemm_flow("ws-systolic-8x8"))
    write = result.to_dict()["tensors"]["C"]["write"]
    assert write["read_back"] == 64 * 64 * (64 // 8) - 64 * 64 == 28_672
    assert write["unique"] == 32_768  # TENET's egress words: the exits, here
    assert "cost" not in result.to_dict()  # systolic-8x8 has no components


def test_ws_cost_of_read_back(gemm64):
    """docs/energy.md, weight-stationary: C's partial sums run down 7 one-pitch hops per
    k-block (229,376 forwarded), leave from row 7 (8 pitches from the edge) 32,768 times,
    and 28,672 of them come back (priced at their exit's 8 pitches)."""
    cost = analyze(gemm64, preset("systolic-8x8"), gemm_flow("ws-systolic-8x8")).cost
    assert cost.actions["C"] == TensorActions(
        register_writes=64**3 + 28_672,
        link_register_writes=229_376,
        scratchpad_read_words=28_672,
        scratchpad_write_words=32_768,
        read_back_words=28_672,
        forward_pitches=Fraction(229_376),
        distribution_pitches=Fraction(8 * 32_768 + 8 * 28_672),
        # 64³ accumulations less each element's first; every partial sum leaves a
        # register once, down a link (229,376) or out of the array (32,768)
        accumulator_reads=64**3 - 4096,
        register_read_outs=229_376 + 32_768,
    )
    # 28,672/4 row reads × 4 pJ + 32,768/4 row writes × 5 pJ
    assert cost.by_tensor["C"].scratchpad == 28_672 + 40_960 == 69_632
    check_sums(cost, 64**3)


def test_os_reads_nothing_back(gemm64):
    """OS: every C element stays in one PE for all 64 k: one exit each, none read back."""
    result = analyze(gemm64, load_arch(ARCHS / "systolic-8x8.yaml"), gemm_flow("os-systolic-8x8"))
    assert result.to_dict()["tensors"]["C"]["write"]["read_back"] == 0


# ---------------------------------------------------------------------------------------------
# Worked examples (docs/energy.md), 64³ GEMM


def os_8x8_reads(bus: bool) -> dict[str, TensorActions]:
    """A and B of the 64³ GEMM output-stationary on an 8x8 array, 64 tiles of 8x8 outputs.
    A[i,k] enters row i%8 at column 0 (tile, k: 8 words), B[k,j] column j%8 at row 0:
    64·64·8 = 32,768 fetches each; the other 7 PEs of the row (column) receive it:
    229,376 deliveries. A forwarded word moves one pitch; a bus event (one per fetch)
    drives the 8 PEs of the row (column). A fetch to PE (r, c) travels r + 1 pitches:
    A: Σ_r (r + 1) = 36 per (tile, k) → 36·64·64 = 147,456; B: 1 each → 32,768."""
    fetched, delivered = 64 * 64 * 8, 64 * 64 * 8 * 7
    base = {"register_reads": 64**3, "register_writes": fetched}
    base |= {"scratchpad_read_words": fetched, "link_register_writes": delivered}
    wire = {"bus_pitches": fetched * 8} if bus else {"forward_pitches": delivered}
    return {
        "A": TensorActions(**base, **wire, distribution_pitches=Fraction(36 * 64 * 64)),
        "B": TensorActions(**base, **wire, distribution_pitches=Fraction(fetched)),
    }


# C in every output-stationary 8x8 case: 64³ accumulator writes, one exit per element
# (4096), from PE (r, c): Σ_{r,c} (r + 1) = 8·36 = 288 pitches per tile, 64 tiles.
# Every accumulation but each element's first reads the partial sum it adds to: 64³ − 4,096;
# each finished C word is read out of its PE's register once on its way out: 4,096.
C_OS_8X8 = TensorActions(
    register_writes=64**3,
    scratchpad_write_words=4096,
    distribution_pitches=Fraction(288 * 64),
    accumulator_reads=64**3 - 4096,
    register_read_outs=4096,
)


@pytest.mark.parametrize(
    "arch_name,flow_name,bus,area",
    [
        # 8x8 PEs × (100 + 3·10) µm²; 2·56 forwarding pairs × 10 µm²; no bus.
        ("systolic-8x8", "os-systolic-8x8", False, (64 * 130, 112 * 10, 0)),
        # systolic-2d write links: 112 pairs; 8 row + 8 column groups, one driver each.
        pytest.param(
            "multicast-8x8",
            "os-multicast-8x8",
            True,
            (64 * 130, 112 * 10, 16 * 10),
            marks=pytest.mark.slow,
        ),
        # mtia-grid: its reduction links are one-hop shifts (56 + 56 pairs, single-valued,
        # no adder); 16 bus groups.
        pytest.param(
            "mtia-8x8",
            "os-multicast-8x8",
            True,
            (64 * 130, 112 * 10, 16 * 10),
            marks=pytest.mark.slow,
        ),
    ],
)
def test_worked_examples_8x8(gemm64, arch_name, flow_name, bus, area):
    result = analyze(gemm64, preset(arch_name), gemm_flow(flow_name))
    cost = result.cost
    assert cost.actions == {**os_8x8_reads(bus), "C": C_OS_8X8}
    assert (cost.area_um2.pe_array, cost.area_um2.link_registers, cost.area_um2.buses) == area
    assert cost.area_um2.scratchpad == 50_000
    check_sums(cost, 64**3)
    assert cost.energy_pj.dram == 0  # no memory levels: no DRAM traffic given
    if arch_name == "systolic-8x8":
        # docs/energy.md: 262,144 MACs + registers (2·262,144·0.1 operand reads +
        # (258,048 accumulation reads + 4,096 read-outs)·0.1 + 327,680·0.2 writes) +
        # scratchpad (65,536/4·4 + 4,096/4·5) + wire 657,408 pitches · 0.16 + 458,752 · 0.2
        assert cost.energy_pj.registers == Fraction("144179.2")
        assert cost.energy_pj.scratchpad == 70_656
        assert cost.energy_pj.interconnect == Fraction("196935.68")
        assert cost.energy_pj.total == Fraction("673914.88")


def test_worked_example_reduction_tree(gemm64, tmp_path):
    """maeri-64 (binary distribution and reduction trees over 64 PEs in a row), C[i,j]'s
    64 products at once: k on PE k, one step per (i, j). The tree merges them: every PE
    but the root sends its partial sum to its parent (n − 1)/2: 63 sends and adds per
    element, over n − floor((n − 1)/2) pitches; the root (PE 0, 1 pitch from the edge)
    writes the result. A[i,k] stays on PE k for the 64 j: fetched once per (i, k); B is
    fetched every step: 4096·64 words to PE k at k + 1 pitches."""
    dataflow = flow(tmp_path, "tree", "{ S[i,j,k] -> PE[k] }", "{ S[i,j,k] -> T[i, j] }")
    cost = analyze(gemm64, preset("maeri-64"), dataflow).cost
    tree_pitches = sum(n - (n - 1) // 2 for n in range(1, 64))
    assert tree_pitches == 2016 - 961 == 1055  # Σ n − Σ_{m=0}^{62} floor(m/2)
    reach = sum(k + 1 for k in range(64))  # 2080
    assert cost.actions["A"] == TensorActions(
        register_reads=64**3,
        register_writes=4096,
        scratchpad_read_words=4096,
        distribution_pitches=Fraction(64 * reach),
    )
    assert cost.actions["B"] == TensorActions(
        register_reads=64**3,
        register_writes=64**3,
        scratchpad_read_words=64**3,
        distribution_pitches=Fraction(4096 * reach),
    )
    # 63 merges per element each read the partial sum they add to; every partial sum sent
    # up (63 per element) and every result leaving the root (1) is read out of a register.
    assert cost.actions["C"] == TensorActions(
        register_writes=64**3,
        link_register_writes=4096 * 63,
        adds=4096 * 63,
        scratchpad_write_words=4096,
        forward_pitches=Fraction(4096 * tree_pitches),
        distribution_pitches=Fraction(4096),
        accumulator_reads=4096 * 63,
        register_read_outs=4096 * 63 + 4096,
    )
    # 63 + 63 tree pairs, one register each; 32 parents with an adder each.
    assert cost.area_um2.link_registers == 126 * 10 + 32 * 20
    check_sums(cost, 64**3)


def arch_32x32(tmp_path, interconnect: list) -> object:
    memory = {"word_bits": 16, "bandwidth_bits": 64, "avg_latency": 16}
    data = {"name": "a32", "pe": {"shape": [32, 32]}, "interconnect": interconnect}
    arch = load_arch(write_yaml(tmp_path, "a32", {**data, "memory": memory}))
    return dataclasses.replace(arch, components=hand_components())


@pytest.mark.slow
def test_row_bus_costs_more_than_forwarding_on_8_columns(tmp_path):
    """M=256, N=8, K=256 output-stationary on 32x32: only 8 of 32 columns work. A[i,k]
    (65,536 fetches, one per (i, k)) crosses the 7 other used columns when forwarded:
    7 pitches; the row bus drives all 32 PEs of the row: 32 pitches per event."""
    workload = gemm(256, 8, 256)
    forward = analyze(
        workload,
        arch_32x32(tmp_path, [{"topology": "systolic-2d"}]),
        flow(
            tmp_path,
            "os-skew",
            "{ S[i,j,k] -> PE[i % 32, j % 32] }",
            "{ S[i,j,k] -> T[floor(i/32), floor(j/32), i % 32 + j % 32 + k] }",
        ),
    ).cost
    bus = analyze(
        workload,
        arch_32x32(
            tmp_path,
            [
                {"topology": "row-multicast", "access": "read"},
                {"topology": "column-multicast", "access": "read"},
            ],
        ),
        flow(
            tmp_path,
            "os-bus",
            "{ S[i,j,k] -> PE[i % 32, j % 32] }",
            "{ S[i,j,k] -> T[floor(i/32), floor(j/32), k] }",
        ),
    ).cost
    a_words = 256 * 256
    assert forward.actions["A"].forward_pitches == a_words * 7 == 458_752
    assert bus.actions["A"].bus_pitches == a_words * 32 == 2_097_152
    assert bus.actions["A"].forward_pitches == 0
    # B[k,j] enters column j at row 0 once per (row tile, k, j): 8·256·8 = 16,384 words;
    # forwarded down 31 rows, or one column-bus event over 32 PEs.
    assert forward.actions["B"].forward_pitches == 16_384 * 31
    assert bus.actions["B"].bus_pitches == 16_384 * 32
    wire_forward = forward.by_tensor["A"].interconnect - 458_752 * Fraction(1, 5)
    wire_bus = bus.by_tensor["A"].interconnect - 458_752 * Fraction(1, 5)
    assert wire_bus > wire_forward
    check_sums(forward, 256 * 8 * 256)
    check_sums(bus, 256 * 8 * 256)


# ---------------------------------------------------------------------------------------------
# Pricing


def test_doubling_wire_energy_doubles_only_the_wire(tmp_path):
    """interconnect = wire + link register writes + adds: doubling wire pJ/bit/mm adds
    the wire share once more and changes no other part; with free registers and adders
    the interconnect part exactly doubles."""
    arch = dataclasses.replace(load_arch(ARCHS / "systolic-8x8.yaml"), components=hand_components())
    counted = analyze(gemm(16, 16, 16), arch, gemm_flow("os-systolic-8x8")).cost
    counts = AreaCounts(64, 112, 0, 0)

    def cost(**values):
        return price(counted.actions, 16**3, counts, hand_components(**values)).energy_pj

    assert cost() == counted.energy_pj
    one, two = cost(), cost(wire_pj_per_bit_mm="1/5")
    assert (two.mac, two.registers, two.scratchpad, two.dram) == (
        one.mac,
        one.registers,
        one.scratchpad,
        one.dram,
    )
    free = {"register_write_pj": "0", "adder_energy_pj": "0"}
    one_free, two_free = cost(**free), cost(wire_pj_per_bit_mm="1/5", **free)
    assert two_free.interconnect == 2 * one_free.interconnect > 0
    assert two.interconnect - one.interconnect == one_free.interconnect


def test_dram_words_are_priced():
    """DRAM: words × word_bits × pJ/bit = 1000 · 16 · 10 pJ; no tensor owns it."""
    counts = AreaCounts(pes=1, forward_pairs=0, bus_groups=0, tree_receivers=0)
    cost = price({"A": TensorActions(register_reads=3)}, 2, counts, hand_components(), 1000)
    assert cost.energy_pj.dram == 160_000
    assert cost.energy_pj.mac == 2
    assert cost.by_tensor["A"].dram == 0
    assert cost.energy_pj.total == 160_000 + 2 + Fraction(3, 10)
    assert price({}, 0, counts, hand_components()).energy_pj.dram == 0


def test_hop_length():
    assert hop_length(49) == 7
    assert hop_length(2) == Fraction("1.414213562373")  # √2 to 12 decimal places
    assert hop_length(0) == 0


def test_cost_json():
    counts = AreaCounts(pes=4, forward_pairs=1, bus_groups=0, tree_receivers=0)
    cost = price({"A": TensorActions(register_reads=10)}, 4, counts, hand_components())
    data = cost.to_dict()
    assert set(data["energy_pj"]) == {
        "total",
        "mac",
        "registers",
        "scratchpad",
        "interconnect",
        "intermediate",
        "dram",
        "by_tensor",
        "by_level",
    }
    assert data["energy_pj"]["total"] == 5.0  # 4 MACs + 10 reads × 0.1 pJ
    assert data["energy_pj"]["by_level"] == {}  # no memory levels
    assert data["area_um2"] == {
        "total": 4 * 130 + 10 + 50_000,
        "pe_array": 520.0,
        "link_registers": 10.0,
        "buses": 0.0,
        "scratchpad": 50_000.0,
        "intermediate": 0.0,
        "by_level": {},
    }
    assert data["components"]["mac"]["energy_pj"]["value"] == 1.0
    doubled = cost + cost
    assert doubled.energy_pj.total == 2 * cost.energy_pj.total
    assert doubled.area_um2 == cost.area_um2  # one array


def test_analyze_table_shows_cost():
    """The analyze table gains an energy table (pJ, per tensor) and an area table."""
    from tenet.report.tables import analysis_tables, render_tables

    arch = dataclasses.replace(load_arch(ARCHS / "systolic-8x8.yaml"), components=hand_components())
    result = analyze(gemm(8, 8, 8), arch, gemm_flow("os-systolic-8x8")).to_dict()
    text = render_tables(analysis_tables(result))
    assert "interconnect pJ" in text and "total (mm²)" in text
    # 8³ MACs at 1 pJ each; area 64·130 + 112·10 + 50,000 = 59,440 µm² = 0.0594 mm².
    assert "512.00" in text and "59,440.00" in text and "0.0594" in text
    plain = analyze(
        gemm(8, 8, 8), load_arch(ARCHS / "systolic-8x8.yaml"), gemm_flow("os-systolic-8x8")
    )
    assert "interconnect pJ" not in render_tables(analysis_tables(plain.to_dict()))


def test_pe_area_counts_every_mac_lane():
    """systolic-8x8-mac9: 64 PEs of 9 MAC lanes each; the PE array's area is
    64 · 9 · (MAC + 3 registers), 9 times that of systolic-8x8 with the same components."""
    nine = dataclasses.replace(preset("systolic-8x8-mac9"), components=hand_components())
    one = dataclasses.replace(preset("systolic-8x8"), components=hand_components())
    c = hand_components()
    lane = c.mac_area_um2.value + 3 * c.register_area_um2.value
    workload = gemm(8, 8, 8)
    dataflow = gemm_flow("os-systolic-8x8")
    assert analyze(workload, nine, dataflow).cost.area_um2.pe_array == 64 * 9 * lane
    assert analyze(workload, one, dataflow).cost.area_um2.pe_array == 64 * lane
