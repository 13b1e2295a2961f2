"""Draw the combined figures of docs/bounds.md from `tenet bounds --format json`.

    python docs/bounds/figures.py        # about 20 s; writes PNGs next to this file

Each study runs the CLI once and reads its JSON; nothing here recomputes a bound.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

HERE = Path(__file__).resolve().parent
AREA_FLAGS = [
    "--macs-per-cycle",
    "1024",
    "--bandwidth-gbps",
    "200",
    "--clock-ghz",
    "1",
    "--area-mm2",
    "10",
    "--mac-area-um2",
    "500",
    "--byte-area-um2",
    "0.5",
]


def bounds(workload: str, *flags: str) -> dict:
    cmd = [sys.executable, "-m", "tenet", "bounds", "-w", workload, "--format", "json", *flags]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def steps(report: dict, key: str, right: float) -> tuple[list[float], list[float]]:
    """The front as a step function, carried on to `right` (lookups past the last point)."""
    front = [p for p in report["pareto"] if p["buffer"] > 0]
    return [p["buffer"] for p in front] + [right], [p[key] for p in front] + [front[-1][key]]


def study(names: list[str], labels: list[str], title: str, out: str) -> None:
    reports = [bounds(n) for n in names]
    right = 2 * max(r["max_effectual_buffer"] for r in reports)
    fig, (slope, oi) = plt.subplots(1, 2, figsize=(11, 4.2))
    for report, label in zip(reports, labels):
        xs, ys = steps(report, "accesses", right)
        (line,) = slope.step(xs, ys, where="post", label=label)
        slope.axhline(report["algorithmic_minimum"], color=line.get_color(), ls=":", lw=0.8)
        xs, ys = steps(report, "oi", right)
        oi.step(xs, ys, where="post", label=label)
    slope.set(
        xscale="log",
        yscale="log",
        xlabel="buffer (words)",
        ylabel="backing-store accesses (words)",
        title=f"{title}: Snowcat ski slopes",
    )
    oi.set(
        xscale="log",
        xlabel="buffer (words)",
        ylabel="OI (ops/byte, 16-bit words)",
        title=f"{title}: OI mesas (Snowcat)",
    )
    slope.legend(fontsize=8)
    oi.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(HERE / out, dpi=110)
    plt.close(fig)


def area_split(out: str) -> None:
    split = bounds("gemm-4k", *AREA_FLAGS)["area_split"]
    curve, best = split["curve"], split["best"]
    fig, ax = plt.subplots(figsize=(6.5, 4.0))
    ax.plot([c["buffer_share"] * 100 for c in curve], [c["gops"] for c in curve], marker=".")
    ax.plot(
        [best["buffer_share"] * 100],
        [best["gops"]],
        "r*",
        ms=12,
        label=f"best: {best['buffer_bytes']:,.0f} B, {best['macs']:,} MACs",
    )
    ax.set(
        xscale="log",
        xlabel="buffer share of the 10 mm² (%)",
        ylabel="attainable GOPS",
        title="area split: gemm-4k, 200 GB/s",
    )
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(HERE / out, dpi=110)
    plt.close(fig)


def main() -> None:
    convs = ["conv-1x1", "conv-3x3", "conv-5x5", "conv-3x3-stride2", "conv-3x3-dilation2"]
    study(
        convs,
        ["1x1", "3x3", "5x5", "3x3 stride 2", "3x3 dilation 2"],
        "conv C=K=64, P=Q=16",
        "conv.png",
    )
    study(
        ["bmm-h1", "bmm-h8", "bmm-h64"],
        ["1 x 4096^3", "8 x 2048^3", "64 x 1024^3"],
        "BMM, 2^36 MACs",
        "bmm.png",
    )
    study(
        ["attention-mha", "attention-gqa", "attention-mqa"],
        ["MHA (32 KV heads)", "GQA (8 KV heads)", "MQA (1 KV head)"],
        "Q·K^T",
        "attention.png",
    )
    area_split("area-split.png")


if __name__ == "__main__":
    main()
