"""ZigZag's counts for the case of docs/energy-conventions.md (not run by the tests).

GEMM 64^3 on an 8x8 array with one 16-bit register per operand in each PE, a GLB of 2,048
words and DRAM, with the unit costs of tests/data/hierarchy/sys8-glb-dram.yaml (MAC 1 pJ,
register 0.1 pJ, GLB 5 pJ read and 6 pJ write per word, DRAM 100 pJ per word), and the
loop orders of workloads/gemm/dataflows/os-systolic-8x8.yaml and ws-systolic-8x8.yaml.

Needs zigzag-dse 3.9.1 in its own venv, never in tenet's environment:

    python -m venv VENV && VENV/bin/pip install zigzag-dse==3.9.1 six
    VENV/bin/python benchmarks/zigzag_reference/run_zigzag.py [OUT_DIR] [--json]

It writes ZigZag's input YAML into OUT_DIR (a new temporary folder by default) and prints,
per dataflow and DRAM bandwidth, ZigZag's priced accesses and pJ per operand and memory
level (the element counts it reports beside them with --json) and its latency.
"""

from __future__ import annotations

import json
import logging
import sys
import tempfile
from pathlib import Path

WORD_BITS = 16
REG_PJ = 0.1  # register read and write, per word
GLB_READ_PJ, GLB_WRITE_PJ = 5, 6  # per word
DRAM_PJ = 100  # per word, read or write
GLB_WORDS = 2048
GLB_PORT_BITS = 64  # the arch's memory.bandwidth_bits
DRAM_GBPS = (2, 8, 128)  # at 1 GHz, 1 GB/s is 8 bits a cycle
OPERAND_NAMES = {"I": "A", "W": "B", "O": "C"}
DIRECTIONS = ("rd_out_to_low", "wr_in_by_low", "rd_out_to_high", "wr_in_by_high")

WORKLOAD = """\
- id: 0
  name: gemm64
  operator_type: Gemm
  equation: O[m][n]+=I[m][k]*W[k][n]
  loop_dims: [M, N, K]
  loop_sizes: [64, 64, 64]
  operand_precision: {W: 16, I: 16, O: 16, O_final: 16}
"""

# Spatial unrolling and temporal loops, innermost first.
# os-systolic-8x8: PE[i%8, j%8], T[i/8, j/8, i%8 + j%8 + k].
# ws-systolic-8x8: PE[k%8, j%8], T[j/8, k/8, i + j%8 + k%8].
MAPPINGS = {
    "os": {"D1": "M", "D2": "N", "order": [("K", 64), ("N", 8), ("M", 8)]},
    "ws": {"D1": "K", "D2": "N", "order": [("M", 64), ("K", 8), ("N", 8)]},
}


def port(name: str, kind: str, bw_max: int, allocation: list[str]) -> str:
    """One port of a ZigZag memory; the minimum width is one word."""
    alloc = ", ".join(f'"{a}"' for a in allocation)
    return (
        f"      - {{name: {name}, type: {kind}, bandwidth_min: {WORD_BITS}, "
        f"bandwidth_max: {bw_max}, allocation: [{alloc}]}}\n"
    )


def memory(
    name: str,
    size_bits: int,
    per_word: tuple[float, float],
    port_bits: int,
    operands: list[str],
    ports: str,
    served: str,
) -> str:
    """A memory whose costs are per word: ZigZag charges r_cost and w_cost per access of
    bandwidth_max bits, so each is the per-word cost times the words of one access."""
    words = port_bits // WORD_BITS
    return (
        f"  {name}:\n    size: {size_bits}\n    r_cost: {per_word[0] * words}\n"
        f"    w_cost: {per_word[1] * words}\n    area: 0\n    latency: 1\n"
        f"    operands: [{', '.join(operands)}]\n    ports:\n{ports}"
        f"    served_dimensions: {served}\n"
    )


def accelerator(dram_bits: int, systolic: bool, size: int = 8, glb_words: int = GLB_WORDS) -> str:
    """Registers per PE (served_dimensions []), a GLB of `glb_words` and DRAM shared by the
    operands, on a `size` x `size` operational array (also used by run_zigzag_real_size)."""
    text = f"name: sys{size}-glb-dram\nmemories:\n"
    for name, op in (("reg_A", "I1"), ("reg_B", "I2")):
        ports = port("r_port_1", "read", WORD_BITS, [f"{op}, tl"])
        ports += port("w_port_1", "write", WORD_BITS, [f"{op}, fh"])
        text += memory(name, WORD_BITS, (REG_PJ, REG_PJ), WORD_BITS, [op], ports, "[]")
    ports = port("r_port_1", "read", WORD_BITS, ["O, tl"])
    ports += port("r_port_2", "read", WORD_BITS, ["O, th"])
    ports += port("w_port_1", "write", WORD_BITS, ["O, fh"])
    ports += port("w_port_2", "write", WORD_BITS, ["O, fl"])
    text += memory("reg_C", WORD_BITS, (REG_PJ, REG_PJ), WORD_BITS, ["O"], ports, "[]")
    ports = port("r_port_1", "read", GLB_PORT_BITS, ["I1, tl", "I2, tl", "O, tl", "O, th"])
    ports += port("w_port_1", "write", GLB_PORT_BITS, ["I1, fh", "I2, fh", "O, fh", "O, fl"])
    text += memory(
        "GLB",
        glb_words * WORD_BITS,
        (GLB_READ_PJ, GLB_WRITE_PJ),
        GLB_PORT_BITS,
        ["I1", "I2", "O"],
        ports,
        "[D1, D2]",
    )
    alloc = [f"{op}, {d}" for op in ("I1", "I2") for d in ("fh", "tl")]
    alloc += [f"O, {d}" for d in ("fh", "tl", "fl", "th")]
    ports = port("rw_port_1", "read_write", dram_bits, alloc)
    text += memory(
        "DRAM", 2**36, (DRAM_PJ, DRAM_PJ), dram_bits, ["I1", "I2", "O"], ports, "[D1, D2]"
    )
    text += (
        "operational_array:\n  input_precision: [16, 16]\n  unit_energy: 1\n  unit_area: 1\n"
        f"  dimensions: [D1, D2]\n  sizes: [{size}, {size}]\n"
    )
    if systolic:  # a key of zigzag-dse 3.9.1: adds the drain cycles of a systolic array
        text += "  systolic_dimensions: [D1, D2]\n"
    return text


def mapping(dataflow: str) -> str:
    m = MAPPINGS[dataflow]
    order = "".join(f"    - [{dim}, {size}]\n" for dim, size in m["order"])
    return (
        f"- name: default\n  spatial_mapping:\n    D1:\n      - {m['D1']}, 8\n"
        f"    D2:\n      - {m['D2']}, 8\n  temporal_ordering:\n{order}"
        "  memory_operand_links: {O: O, I: I1, W: I2}\n"
    )


def summarize(cme) -> dict:
    """Per operand and memory level: ZigZag's priced accesses, in words, its pJ and the
    element counts it reports, in the four directions; MAC pJ; latency terms."""
    from zigzag.mapping.data_movement import DataMoveAttr

    out = {"mac_pj": cme.mac_energy, "total_pj": cme.energy_total, "operands": {}}
    for layer_op, accesses in cme.memory_word_access.items():
        mem_op = cme.memory_operand_links.layer_to_mem_op(layer_op)
        levels = cme.accelerator.memory_hierarchy.get_memory_levels(mem_op)
        rows = []
        for lvl, (acc, energy, level) in enumerate(
            zip(accesses, cme.mem_energy_breakdown_further[layer_op], levels)
        ):
            moves = cme.mapping.unit_mem_data_movement[layer_op][lvl]
            elements = moves.get_attribute(DataMoveAttr.DATA_ELEM_MOVE_COUNT)
            row = {"level": level.name}
            for direction, count in acc.data.items():
                bw = level.get_max_bandwidth(mem_op, direction) or WORD_BITS
                row[f"words_{direction}"] = count * bw // WORD_BITS
            for direction, pj in energy.data.items():
                row[f"pj_{direction}"] = pj
            for direction, count in elements.data.items():
                row[f"elements_{direction}"] = count
            rows.append(row)
        out["operands"][OPERAND_NAMES.get(layer_op.name, layer_op.name)] = rows
    for key in (
        "ideal_temporal_cycle",
        "stall_slack_comb",
        "data_onloading_cycle",
        "data_offloading_cycle",
        "systolic_drain_cycle",
        "latency_total2",
    ):
        out[key] = getattr(cme, key, None)
    return out


def run(out_dir: Path) -> dict:
    from zigzag.api import get_hardware_performance_zigzag

    logging.disable(logging.WARNING)
    (out_dir / "workload.yaml").write_text(WORKLOAD)
    results = {}
    for dataflow in MAPPINGS:
        (out_dir / f"mapping_{dataflow}.yaml").write_text(mapping(dataflow))
        for gbps in DRAM_GBPS:
            for systolic in (True, False):
                tag = f"{dataflow}-{gbps}GBps" + ("" if systolic else "-no-systolic-key")
                accel = out_dir / f"accelerator_{tag}.yaml"
                accel.write_text(accelerator(gbps * 8, systolic))
                _, _, cmes = get_hardware_performance_zigzag(
                    workload=str(out_dir / "workload.yaml"),
                    accelerator=str(accel),
                    mapping=str(out_dir / f"mapping_{dataflow}.yaml"),
                    opt="energy",
                    dump_folder=str(out_dir / "dump" / tag),
                    loma_show_progress_bar=False,
                )
                results[tag] = summarize(cmes[0][1][0][0])
    return results


def print_table(results: dict) -> None:
    for tag, r in results.items():
        print(
            f"{tag}: total {r['total_pj']} pJ, MAC {r['mac_pj']} pJ, "
            f"latency {r['latency_total2']} cycles"
        )
        if not tag.endswith("2GBps"):
            continue
        for op, rows in r["operands"].items():
            for row in rows:
                words = {d: row[f"words_{d}"] for d in DIRECTIONS}
                pj = sum(row[f"pj_{d}"] for d in DIRECTIONS)
                print(f"  {op} {row['level']:6} words {words} pJ {pj}")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--json"]
    folder = Path(args[0]) if args else Path(tempfile.mkdtemp(prefix="zigzag-reference-"))
    folder.mkdir(parents=True, exist_ok=True)
    found = run(folder)
    if "--json" in sys.argv:
        print(json.dumps(found, indent=1, default=str))
    else:
        print_table(found)
