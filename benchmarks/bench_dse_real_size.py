"""The tile-size search at real layer sizes, beside ZigZag 3.9.1's LOMA search.

    python benchmarks/bench_dse_real_size.py [--jobs 2] [--imperfect]

A 16 x 16 systolic array (links down and right, window 1) with a GLB of 262,144 words and
DRAM above it, priced with unit costs: MAC 1 pJ, register 0.1 pJ, GLB 5 pJ read / 6 pJ
write per word, DRAM 100 pJ per word, wires free. Two layers: ResNet-50's 3x3 64->64 at
56x56 and GEMM 1024^3, each with the GLB single-buffered and double-buffered (tenet's
default). Prints the wall time of `explore_tile_sizes(..., objectives=("energy_pj",))`, the
best energy_pj (counted again by `analyze`), its DRAM words, `dram_vs_bound` ("vs bound":
DRAM words over the least of Snowcat mappings with the buffer its tiles need, as `tenet dse`
reports it) and `dram_vs_capacity_bound` ("vs cap": over the least with the GLB's whole
capacity), and beside them ZigZag 3.9.1's LOMA figures for the same layers, costs and memories,
from one run of benchmarks/zigzag_reference/run_zigzag_real_size.py on the same machine
(its spatial unrolling chosen by ZigZag; see that folder's README for every unrolling).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from tenet.explore.tile_sizes import explore_tile_sizes
from tenet.formats.workloads import load_any_workload
from tenet.model.arch import load_arch

ARCH = """\
name: "systolic-16x16-glb-{buffering}"
pe: {{shape: [16, 16]}}
interconnect:
  - relation: "{{ PE[i,j] -> PE[i-1,j] }}"
  - relation: "{{ PE[i,j] -> PE[i,j-1] }}"
memory: {{word_bits: 16, bandwidth_bits: 64, avg_latency: 16, l2_words: 262144}}
levels:
  - {{name: GLB, capacity: 262144, double_buffered: {double}}}
  - {{name: DRAM, capacity: "1GiB", bandwidth_gbps: 16}}
components:
  mac: {{energy_pj: 1, area_um2: 1}}
  register: {{read_pj: 0.1, write_pj: 0.1, area_um2: 1}}
  scratchpad: {{size_bytes: 524288, width_bits: 16, read_pj: 5, write_pj: 6, area_um2: 1}}
  dram: {{pj_per_bit: 6.25}}
  wire: {{pj_per_bit_mm: 0}}
  adder: {{energy_pj: 1, area_um2: 1}}
  pe_pitch_um: 1
"""

CASES = [
    (
        "resnet50 3x3 64->64 56x56",
        "conv2d",
        {"K": 64, "C": 64, "OX": 56, "OY": 56, "RX": 3, "RY": 3},
        {"seconds": 13.5, "energy_pj": 3.114e8},
    ),
    (
        "gemm 1024^3",
        "gemm",
        {"M": 1024, "N": 1024, "K": 1024},
        {"seconds": 6.5, "energy_pj": 4.320e9},
    ),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--imperfect", action="store_true", help="also tile extents that leave a shorter last tile"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        print(
            f"{'case':28} {'GLB':7} {'seconds':>8} {'energy_pj':>12} {'DRAM words':>11} "
            f"{'vs bound':>8} {'vs cap':>6} {'designs':>8} | {'ZigZag s':>8} {'ZigZag pJ':>10}"
        )
        for label, workload_name, params, zigzag in CASES:
            workload = load_any_workload(workload_name, params)
            for double in (False, True):
                buffering = "double" if double else "single"
                path = Path(folder) / f"arch-{buffering}.yaml"
                path.write_text(ARCH.format(buffering=buffering, double=str(double).lower()))
                arch = load_arch(path)
                started = time.perf_counter()
                result = explore_tile_sizes(
                    workload, arch, ("energy_pj",), jobs=args.jobs, imperfect=args.imperfect
                )
                seconds = time.perf_counter() - started
                best = result.pareto[0].analysis
                print(
                    f"{label:28} {buffering:7} {seconds:8.1f} "
                    f"{float(best.cost.energy_pj.total):12.4g} {best.dram_words():11,} "
                    f"{result.pareto[0].dram_vs_bound:8.3f} "
                    f"{result.dram_vs_capacity_bound[0]:6.3f} {result.evaluated:8,} | "
                    f"{zigzag['seconds']:8} {zigzag['energy_pj']:10.3g}"
                )
                print(f"{'':28} best: {result.pareto[0].time}")


if __name__ == "__main__":
    main()
