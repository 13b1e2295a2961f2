"""Fusion study timings and the published Orojenesis findings (ISCA 2024, Figs. 18-22).

Every study runs twice: with the default buffer rule (`live`: the peak of live words of the
fused loop nest, every point reached by a schedule) and with the published artifact's rule
(`paper`, to compare with the figures; its points may be unattainable).

Targets: the two-GEMM FFN study in <= 10 s; the whole GPT-3 block with segmentation in
<= 60 s (the published artifact's multi-einsum flow: about 2 h on a 4-core i7); the uneven
front (`tenet fuse --space uneven`) of each preset in <= 60 s.

    python benchmarks/bench_fusion.py
"""

from __future__ import annotations

import time

from tenet.bounds.chain import load_chain
from tenet.bounds.fusion import fuse
from tenet.formats.presets import resolve_workload

MIB = 2**19  # 16-bit words per MiB


def gain(base, front, mib):
    words = int(mib * MIB)
    a, b = base.at(words), front.at(words)
    return a.accesses / b.accesses if a and b else float("nan")


def where_minimum(front):
    return front[-1].buffer / MIB


def better_from(base, front):
    """The least buffer (MiB) from which `front` is strictly below `base` at every size."""
    sizes = sorted({p.buffer for p in base} | {p.buffer for p in front})
    start = None
    for size in sizes:
        a, b = base.at(size), front.at(size)
        if a and b and b.accesses < a.accesses:
            start = size if start is None else start
        else:
            start = None
    return start / MIB if start is not None else float("nan")


def ffn_study(rule: str) -> None:
    start = time.perf_counter()
    ffn = fuse(load_chain(resolve_workload("gpt3-ffn")), "ffmt", ("flat", "flash"), rule=rule)
    took = time.perf_counter() - start
    print(f"[{rule}] FFN 32k x 4k x 16k -> 32k x 16k x 4k: {took:.2f} s (target <= 10 s)")
    for mib in (4, 8, 10, 16, 32, 50, 64, 128, 256, 257):
        print(f"  {mib:>4} MiB  fused/unfused gain {gain(ffn.unfused, ffn.tiled, mib):5.2f}x")
    print(f"  fused strictly better from {better_from(ffn.unfused, ffn.tiled):.3f} MiB on")
    print(f"  fused minimum reached at {where_minimum(ffn.tiled):.2f} MiB")


def attention_study(rule: str) -> None:
    start = time.perf_counter()
    chain = load_chain(resolve_workload("gpt3-attention"))
    att = fuse(chain, "flat", ("flash", "ffmt"), False, rule=rule)
    took = time.perf_counter() - start
    flat, flash, ffmt = att.tiled, att.strategies["flash"], att.strategies["ffmt"]
    print(f"[{rule}] attention (FLAT-like vs FlashAttention-like): {took:.2f} s")
    for mib in (8, 16, 24, 32, 32.2):
        print(
            f"  {mib:>4} MiB  FLAT/Flash {gain(flat, flash, mib):5.2f}x"
            f"   FLAT/ffmt {gain(flat, ffmt, mib):5.2f}x"
        )
    print(
        f"  minimum reached: FLAT {where_minimum(flat):.2f} MiB, Flash {where_minimum(flash):.2f}"
        f" MiB, ffmt {where_minimum(ffmt):.2f} MiB"
    )


def block_study(rule: str) -> None:
    start = time.perf_counter()
    block = fuse(load_chain(resolve_workload("gpt3-6.7b-block")), rule=rule)
    took = time.perf_counter() - start
    print(
        f"[{rule}] GPT-3 6.7B block, {block.segmentations} segmentations: {took:.2f} s "
        "(target <= 60 s)"
    )
    for mib in (10, 50, 128, 320, 352.2):
        print(
            f"  {mib:>5} MiB  best segmentation "
            f"{gain(block.unfused, block.best_segmentation, mib):5.2f}x"
            f"   whole chain fused {gain(block.unfused, block.tiled, mib):5.2f}x"
        )
    print(f"  fused minimum reached at {where_minimum(block.best_segmentation):.2f} MiB")


def uneven_study() -> None:
    """`tenet fuse --space uneven`: the uneven front (best over segmentations) of each
    preset, its time (target <= 60 s each), and where it beats the best segmentation."""
    from tenet.bounds.fusion_uneven import chain_lower_bound, uneven_front

    for name in ("gpt3-ffn", "gpt3-attention", "bert-attention", "gpt3-6.7b-block"):
        chain = load_chain(resolve_workload(name))
        start = time.perf_counter()
        front = uneven_front(chain)
        took = time.perf_counter() - start
        best = fuse(chain).best_segmentation
        sizes = sorted({p.buffer for p in front} | {p.buffer for p in best})
        wins = [
            (size, best.at(size).accesses / front.at(size).accesses)
            for size in sizes
            if best.at(size) and front.at(size)
        ]
        wins = [(size, ratio) for size, ratio in wins if ratio > 1]
        print(f"[uneven] {name}: {took:.2f} s (target <= 60 s), {len(front)} points")
        if wins:
            size, ratio = max(wins, key=lambda w: w[1])
            above = [w for w in wins if w[0] >= 0.5 * MIB]
            print(
                f"  below best segmentation at {len(wins)} of {len(sizes)} breakpoints, "
                f"at most {ratio:.2f}x (at {size / MIB:.4f} MiB); {len(above)} from 0.5 MiB on"
            )
        for mib in (1, 4, 10, 50, 128):
            words = int(mib * MIB)
            point = front.at(words)
            floor = chain_lower_bound(chain, words)
            if point:
                print(
                    f"  {mib:>4} MiB  uneven {point['accesses']:,}  floor {floor:,}  "
                    f"gap {point['accesses'] / floor:.2f}x"
                )


def main() -> None:
    for rule in ("live", "paper"):
        ffn_study(rule)
        attention_study(rule)
        block_study(rule)
    uneven_study()


if __name__ == "__main__":
    main()
