"""ZigZag 3.9.1's LOMA search on the two real-size layers of bench_dse_real_size.py.

Not run by the tests.

The arch: a 16 x 16 array (ZigZag's operational array D1 = D2 = 16, systolic along both),
one 16-bit register per operand in each PE (0.1 pJ per word read or written), a GLB of
262,144 16-bit words shared by the operands (5 pJ read, 6 pJ write per word, a 64-bit port)
and DRAM above it (100 pJ per word, 16 GB/s at 1 GHz: a 128-bit port); MAC 1 pJ, wires free.
The layers: ResNet-50's 3x3 conv with K = C = 64, OX = OY = 56, stride 1 and no padding (the
input is 58 x 58, as tenet's conv2d has it), and GEMM M = N = K = 1024.

For each layer, LOMA searches the temporal mapping (optimising energy) once per fixed
spatial unrolling (D1|D2) and once with the spatial unrolling left to ZigZag, which then
tries its `nb_spatial_mappings_generated` best-utilised candidates (3, its default) and
keeps the cheapest. Needs zigzag-dse 3.9.1 in a venv of its own (VENV below), never in
tenet's environment:

    python -m venv VENV && VENV/bin/pip install zigzag-dse==3.9.1 six
    VENV/bin/python benchmarks/zigzag_reference/run_zigzag_real_size.py \
        [--out OUT_DIR] [--case conv|gemm] [--only D1|D2|auto ...] [--json]
    VENV/bin/python benchmarks/zigzag_reference/run_zigzag_real_size.py --load RUN.json

It writes ZigZag's input YAML into OUT_DIR (a new temporary folder by default) and prints,
per layer and spatial unrolling: ZigZag's total pJ, the wall time of its search, its latency
in cycles, the pJ of the MACs, of each operand's register, GLB (read, write) and DRAM (read,
write), each operand's DRAM words (elements moved, reads plus writes) and the loop order
LOMA chose with the memory level of each loop per operand. --load prints the table of an
earlier --json run without running ZigZag again.

ZigZag prices an access of a port's full width (its `bandwidth_max` bits): r_cost and w_cost
below are the per-word cost times the words of one access, so an access that moves fewer
words than the port is wide still costs the whole width. The "priced words" of --json are
ZigZag's accesses times the port's words; "elements" are the words it says move.
"""

from __future__ import annotations

import argparse
import json
import logging
import tempfile
import time
from pathlib import Path
from typing import Any

from run_zigzag import WORD_BITS
from run_zigzag import accelerator as zigzag_accelerator

# the costs (register 0.1 pJ, GLB 5 / 6 pJ, DRAM 100 pJ per word) and the 64-bit GLB port
# are run_zigzag's, and so is the memory hierarchy it writes
ARRAY = 16  # D1 = D2 = 16
GLB_WORDS = 262_144
DRAM_PORT_BITS = 128  # 16 GB/s at 1 GHz
LEVELS = ("reg", "GLB", "DRAM")
READS = ("rd_out_to_low", "rd_out_to_high")
WRITES = ("wr_in_by_low", "wr_in_by_high")

CONV = """\
- id: 0
  name: resnet50_3x3_64
  operator_type: Conv
  equation: O[b][k][oy][ox]+=W[k][c][fy][fx]*I[b][c][iy][ix]
  dimension_relations: [ix=1*ox+1*fx, iy=1*oy+1*fy]
  loop_dims: [B, K, C, OY, OX, FY, FX]
  loop_sizes: [1, 64, 64, 56, 56, 3, 3]
  pr_loop_dims: [IX, IY]
  padding: [[0, 0], [0, 0]]
  operand_precision: {W: 16, I: 16, O: 16, O_final: 16}
"""

GEMM = """\
- id: 0
  name: gemm1024
  operator_type: Gemm
  equation: O[m][n]+=I[m][k]*W[k][n]
  loop_dims: [M, N, K]
  loop_sizes: [1024, 1024, 1024]
  operand_precision: {W: 16, I: 16, O: 16, O_final: 16}
"""

# Per case: its workload, the fixed spatial unrollings (D1, D2) to search under, and the
# names of its operands (ZigZag's I, W, O) in tenet's workload.
CASES: dict[str, dict[str, Any]] = {
    "conv": {
        "label": "resnet50 3x3 64->64 56x56",
        "workload": CONV,
        "spatial": [("K", "C"), ("K", "OX"), ("K", "OY"), ("C", "OX"), ("C", "OY"), ("OX", "OY")],
        "names": {"I": "I", "W": "W", "O": "O"},
        "issue": {"seconds": 18, "energy_pj": 3.17e8},
    },
    "gemm": {
        "label": "gemm 1024^3",
        "workload": GEMM,
        "spatial": [("M", "N"), ("K", "N"), ("M", "K")],
        "names": {"I": "A", "W": "B", "O": "C"},
        "issue": {"seconds": 11, "energy_pj": 4.32e9},
    },
}


def accelerator() -> str:
    """run_zigzag's arch (one register per operand in each PE, a GLB and DRAM shared by the
    operands), here 16 x 16 and systolic along both, with a GLB of GLB_WORDS and a DRAM port
    of DRAM_PORT_BITS."""
    return zigzag_accelerator(DRAM_PORT_BITS, systolic=True, size=ARRAY, glb_words=GLB_WORDS)


def mapping(spatial: tuple[str, str] | None) -> str:
    """A mapping without temporal_ordering, so that LOMA searches it; with no spatial
    unrolling, ZigZag generates its own."""
    text = "- name: default\n"
    if spatial is not None:
        text += (
            f"  spatial_mapping:\n    D1:\n      - {spatial[0]}, {ARRAY}\n"
            f"    D2:\n      - {spatial[1]}, {ARRAY}\n"
        )
    return text + "  memory_operand_links: {O: O, I: I1, W: I2}\n"


def temporal_loops(cme, names: dict[str, str]) -> list[dict[str, Any]]:
    """The temporal loops, innermost first, each with the memory level it sits at for each
    operand (ZigZag's stationarity-merged mapping, the one its cost model prices)."""
    per_operand = cme.temporal_mapping.mapping_dic_stationary
    loops: list[dict[str, Any]] | None = None
    for layer_op, levels in per_operand.items():
        flat = [(dim, size, LEVELS[lvl]) for lvl, level in enumerate(levels) for dim, size in level]
        if loops is None:
            loops = [{"dim": str(d), "size": int(s), "level": {}} for d, s, _ in flat]
        for loop, (dim, size, lvl) in zip(loops, flat, strict=True):
            assert loop["dim"] == str(dim) and loop["size"] == int(size)
            loop["level"][names[layer_op.name]] = lvl
    return loops or []


def summarize(cme, names: dict[str, str]) -> dict[str, Any]:
    """Energy per part, DRAM words per operand, latency and the temporal loops of one CME."""
    from zigzag.mapping.data_movement import DataMoveAttr

    out: dict[str, Any] = {
        "spatial_mapping": str(cme.layer.spatial_mapping),
        "total_energy_pj": float(cme.energy_total),
        "mac_energy_pj": float(cme.mac_energy),
        "latency_cycles": float(cme.latency_total2),
        "ideal_temporal_cycles": float(cme.ideal_temporal_cycle),
        "operand_elements": {names[o.name]: int(n) for o, n in cme.layer.operand_size_elem.items()},
        "operands": {},
    }
    for layer_op, accesses in cme.memory_word_access.items():
        mem_op = cme.memory_operand_links.layer_to_mem_op(layer_op)
        levels = cme.accelerator.memory_hierarchy.get_memory_levels(mem_op)
        rows = {}
        for lvl, (acc, energy, level) in enumerate(
            zip(accesses, cme.mem_energy_breakdown_further[layer_op], levels, strict=True)
        ):
            moves = cme.mapping.unit_mem_data_movement[layer_op][lvl]
            elements = moves.get_attribute(DataMoveAttr.DATA_ELEM_MOVE_COUNT).data
            priced = {}
            for direction, count in acc.data.items():
                bw = level.get_max_bandwidth(mem_op, direction) or WORD_BITS
                priced[str(direction)] = int(count) * bw // WORD_BITS
            pj = {str(d): float(e) for d, e in energy.data.items()}
            elem = {str(d): int(n) for d, n in elements.items()}
            rows[LEVELS[lvl]] = {
                "memory": level.name,
                "read_energy_pj": sum(pj[d] for d in READS),
                "write_energy_pj": sum(pj[d] for d in WRITES),
                "read_elements_words": sum(elem[d] for d in READS),
                "write_elements_words": sum(elem[d] for d in WRITES),
                "read_priced_words": sum(priced[d] for d in READS),
                "write_priced_words": sum(priced[d] for d in WRITES),
                "energy_pj_by_direction": pj,
                "elements_words_by_direction": elem,
                "priced_words_by_direction": priced,
            }
        out["operands"][names[layer_op.name]] = rows
    out["dram_words"] = sum(
        r["DRAM"]["read_elements_words"] + r["DRAM"]["write_elements_words"]
        for r in out["operands"].values()
    )
    out["temporal_loops"] = temporal_loops(cme, names)
    return out


class _SpatialCandidates(logging.Handler):
    """Collects the spatial mappings ZigZag's generator launches (its INFO lines)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.found: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if "Launching spatial mapping" in str(record.msg):
            self.found.append(str(record.args[-1]))


def run_one(out_dir: Path, case: str, spatial: tuple[str, str] | None) -> dict[str, Any]:
    """One LOMA search (optimising energy); its wall time covers the whole ZigZag call."""
    from zigzag.api import get_hardware_performance_zigzag

    tag = f"{case}-{'auto' if spatial is None else '-'.join(spatial)}"
    (out_dir / f"mapping_{tag}.yaml").write_text(mapping(spatial))
    candidates = _SpatialCandidates()
    logger = logging.getLogger("zigzag.stages.mapping.spatial_mapping_generation")
    logger.addHandler(candidates)
    try:
        started = time.perf_counter()
        _, _, cmes = get_hardware_performance_zigzag(
            workload=str(out_dir / f"workload_{case}.yaml"),
            accelerator=str(out_dir / "accelerator.yaml"),
            mapping=str(out_dir / f"mapping_{tag}.yaml"),
            opt="energy",
            dump_folder=str(out_dir / "dump" / tag),
            loma_show_progress_bar=False,
        )
        seconds = time.perf_counter() - started
    finally:
        logger.removeHandler(candidates)
    result = summarize(cmes[0][1][0][0], CASES[case]["names"])
    result["spatial"] = "auto" if spatial is None else "|".join(spatial)
    result["wall_seconds"] = round(seconds, 1)
    result["spatial_candidates"] = candidates.found
    return result


def run(out_dir: Path, cases: list[str], only: set[str] | None) -> dict[str, list[dict]]:
    """Every case and spatial unrolling, one ZigZag search at a time."""
    # ZigZag's api sets INFO on the root logger; keep its lines off the console but let
    # the spatial-mapping logger reach _SpatialCandidates.
    logging.basicConfig(level=logging.INFO, handlers=[logging.NullHandler()])
    (out_dir / "accelerator.yaml").write_text(accelerator())
    results: dict[str, list[dict]] = {}
    for case in cases:
        (out_dir / f"workload_{case}.yaml").write_text(CASES[case]["workload"])
        spatials: list[tuple[str, str] | None] = [*CASES[case]["spatial"], None]
        results[case] = [
            run_one(out_dir, case, s)
            for s in spatials
            if only is None or ("auto" if s is None else "|".join(s)) in only
        ]
    return results


def loops_text(loops: list[dict[str, Any]]) -> str:
    """Loops innermost first as dim size@level, the level given per operand when they differ."""
    parts = []
    for loop in loops:
        levels = set(loop["level"].values())
        where = (
            levels.pop()
            if len(levels) == 1
            else ",".join(f"{o}:{lvl}" for o, lvl in loop["level"].items())
        )
        parts.append(f"{loop['dim']}{loop['size']}@{where}")
    return " ".join(parts)


def print_table(results: dict[str, list[dict]]) -> None:
    for case, rows in results.items():
        info = CASES[case]
        print(
            f"== {info['label']} (issue: {info['issue']['energy_pj']:.3g} pJ, "
            f"{info['issue']['seconds']} s)"
        )
        print(
            f"{'D1|D2':8} {'total pJ':>14} {'wall s':>7} {'latency cyc':>13} {'MAC pJ':>14} "
            f"{'reg pJ':>12} {'GLB pJ':>13} {'DRAM pJ':>13} {'DRAM words':>11}"
        )
        for r in rows:
            ops = r["operands"].values()
            part = {
                lvl: sum(o[lvl]["read_energy_pj"] + o[lvl]["write_energy_pj"] for o in ops)
                for lvl in LEVELS
            }
            print(
                f"{r['spatial']:8} {r['total_energy_pj']:14,.1f} {r['wall_seconds']:7.1f} "
                f"{r['latency_cycles']:13,.0f} {r['mac_energy_pj']:14,.1f} {part['reg']:12,.1f} "
                f"{part['GLB']:13,.1f} {part['DRAM']:13,.1f} {r['dram_words']:11,}"
            )
        best = min(rows, key=lambda r: r["total_energy_pj"])
        print(f"best: {best['spatial']} ({best['spatial_mapping']})")
        for r in rows:
            print(f"-- {r['spatial']}: {r['spatial_mapping']}")
            if r["spatial_candidates"] and r["spatial"] == "auto":
                print(f"   ZigZag's candidates: {'; '.join(r['spatial_candidates'])}")
            for op, levels in r["operands"].items():
                reg, glb, dram = (levels[lvl] for lvl in LEVELS)
                print(
                    f"   {op}: reg {reg['read_energy_pj'] + reg['write_energy_pj']:,.1f} | "
                    f"GLB rd {glb['read_energy_pj']:,.1f} wr {glb['write_energy_pj']:,.1f} | "
                    f"DRAM rd {dram['read_energy_pj']:,.1f} wr {dram['write_energy_pj']:,.1f} | "
                    f"DRAM words {dram['read_elements_words']:,} rd + "
                    f"{dram['write_elements_words']:,} wr"
                )
            print(f"   loops (innermost first): {loops_text(r['temporal_loops'])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="folder for ZigZag's input YAML and dumps")
    parser.add_argument("--case", choices=sorted(CASES), action="append")
    parser.add_argument("--only", action="append", help="a spatial unrolling D1|D2, or auto")
    parser.add_argument("--json", action="store_true", help="print everything as JSON")
    parser.add_argument(
        "--load", type=Path, help="print the results of an earlier --json run instead of running"
    )
    args = parser.parse_args()
    if args.load:
        found = json.loads(args.load.read_text())
    else:
        folder = args.out or Path(tempfile.mkdtemp(prefix="zigzag-real-size-"))
        folder.mkdir(parents=True, exist_ok=True)
        found = run(folder, args.case or list(CASES), set(args.only) if args.only else None)
    if args.json:
        print(json.dumps(found, indent=1))
    else:
        print_table(found)


if __name__ == "__main__":
    main()
