"""Time `analyze` with and without the cost model on TENET's 27 experiments.

Prints seconds per experiment without components (no `cost`) and with them (energy in
pJ and area in µm², docs/energy.md), and the ratio; the target is a ratio <= 1.3.

    python benchmarks/bench_cost.py --tenet-data DIR [--repeat N]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
from fractions import Fraction
from pathlib import Path

from tenet import analyze, load_experiment
from tenet.model.components import Components, Quantity

ROOT = Path(__file__).resolve().parent.parent

# Placeholder per-action values: the timing does not depend on them.
VALUES = {
    "mac_energy_pj": ("1", "pJ"),
    "mac_area_um2": ("100", "um2"),
    "register_read_pj": ("0.1", "pJ"),
    "register_write_pj": ("0.2", "pJ"),
    "register_area_um2": ("10", "um2"),
    "scratchpad_size_bytes": ("65536", "bytes"),
    "scratchpad_width_bits": ("64", "bits"),
    "scratchpad_read_pj": ("4", "pJ"),
    "scratchpad_write_pj": ("5", "pJ"),
    "scratchpad_area_um2": ("50000", "um2"),
    "dram_pj_per_bit": ("10", "pJ/bit"),
    "wire_pj_per_bit_mm": ("0.1", "pJ/bit/mm"),
    "adder_energy_pj": ("0.05", "pJ"),
    "adder_area_um2": ("20", "um2"),
    "pe_pitch_um": ("100", "um"),
}
COMPONENTS = Components(
    word_bits=16,
    **{k: Quantity(Fraction(v), u, "benchmark placeholder") for k, (v, u) in VALUES.items()},
)


def best_of(repeat: int, fn) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tenet-data", type=Path, default=ROOT.parent / "shared" / "tenet-data")
    args = parser.parse_args()
    if not args.tenet_data.is_dir():
        print(f"(no TENET data at {args.tenet_data}; nothing to time)")
        return
    experiments = sorted(
        args.tenet_data.glob("*/experiment/experiment_*"),
        key=lambda p: (p.parent.parent.name, int(p.name.split("_")[1])),
    )
    print(f"{'TENET experiment':48} {'plain s':>9} {'cost s':>9} {'ratio':>7}")
    plain, priced = [], []
    for exp in experiments:
        workload, arch, dataflow = load_experiment(exp, args.tenet_data)
        with_parts = dataclasses.replace(arch, components=COMPONENTS)
        t_plain = best_of(args.repeat, lambda w=workload, a=arch, d=dataflow: analyze(w, a, d))
        t_cost = best_of(args.repeat, lambda w=workload, a=with_parts, d=dataflow: analyze(w, a, d))
        plain.append(t_plain)
        priced.append(t_cost)
        name = str(exp.relative_to(args.tenet_data))
        print(f"{name:48} {t_plain:9.3f} {t_cost:9.3f} {t_cost / t_plain:7.2f}")
    print(
        f"total {sum(plain):.3f} s without components, {sum(priced):.3f} s with: "
        f"ratio of totals {sum(priced) / sum(plain):.2f}, "
        f"median ratio {statistics.median(c / p for c, p in zip(priced, plain)):.2f}, "
        f"largest {max(c / p for c, p in zip(priced, plain)):.2f} (target <= 1.3)"
    )


if __name__ == "__main__":
    main()
