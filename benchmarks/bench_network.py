"""Time whole-network analysis: AlexNet's 5 conv layers x 3 dataflows [target <= 10 s].

The three dataflows are conv2d's output-stationary and weight-stationary 8x8 mappings on the
8x8 systolic array and its output-channel-parallel mapping on the 64-PE chain (TENET's
conv2d_os.m, conv2d_ws.m, conv2d_kp.m). Also times every network preset once.

    python benchmarks/bench_network.py [--jobs N]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from tenet import load_arch
from tenet.explore.network import Network, analyze_network, load_network

ROOT = Path(__file__).resolve().parent.parent
CASES = [("systolic-8x8", "os-8x8"), ("systolic-8x8", "ws-8x8"), ("chain-64", "kp-64")]
PRESETS = {
    "alexnet": ("systolic-8x8", "os-8x8,os-systolic-8x8"),
    "vgg16": ("systolic-8x8", "os-8x8,os-systolic-8x8"),
    "resnet50": ("systolic-8x8", "os-8x8,os-systolic-8x8"),
    "mobilenet": ("systolic-8x8", "os-8x8,os-systolic-8x8"),
    "bert-base": ("systolic-8x8", "os-systolic-8x8"),
}


def alexnet_convs() -> Network:
    network = load_network("alexnet")
    convs = [layer for layer in network.layers if layer.workload_ref == "conv2d"]
    return Network("alexnet-conv", convs, network.source)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1, help="local processes (default 1)")
    args = parser.parse_args()

    start = time.perf_counter()
    network = alexnet_convs()
    print(f"{'AlexNet conv1-conv5':24} {'arch':14} {'dataflow':10} {'seconds':>8} {'latency':>14}")
    for arch_name, dataflow in CASES:
        arch = load_arch(ROOT / "archs" / f"{arch_name}.yaml")
        case_start = time.perf_counter()
        result = analyze_network(network, arch, dataflow, jobs=args.jobs)
        seconds = time.perf_counter() - case_start
        latency = result["total"]["delay"]["latency"]
        print(f"{'':24} {arch_name:14} {dataflow:10} {seconds:8.2f} {latency:14,}")
    total = time.perf_counter() - start
    verdict = "ok" if total <= 10 else "MISSED"
    print(f"5 layers x 3 dataflows: {total:.2f} s (target <= 10 s: {verdict})\n")

    print(f"{'preset':12} {'layers':>6} {'runs':>5} {'seconds':>8}")
    for name, (arch_name, dataflow) in PRESETS.items():
        preset_start = time.perf_counter()
        network = load_network(name)
        result = analyze_network(
            network, load_arch(ROOT / "archs" / f"{arch_name}.yaml"), dataflow, jobs=args.jobs
        )
        seconds = time.perf_counter() - preset_start
        print(f"{name:12} {len(network.layers):6} {result['total']['layers']:5} {seconds:8.2f}")


if __name__ == "__main__":
    main()
