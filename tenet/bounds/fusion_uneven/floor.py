"""A floor under the backing-store accesses of every schedule of a chain (docs/fusion.md, "A
floor under every schedule"): each product reading two chain inputs by the stretch argument
of `product_floor`, the chain's own inputs and outputs once each."""

from __future__ import annotations

from collections.abc import Iterable
from math import isqrt

from tenet.bounds.chain import Chain


def chain_tensors(chain: Chain) -> tuple[dict[str, int], dict[str, int]]:
    """Sizes of the chain's inputs (read, never written) and final outputs (written, never
    read): every schedule moves each of their words at least once."""
    read, written, sizes = set(), set(), {}
    for entry in chain.einsums:
        for ref in entry.einsum.inputs:
            read.add(ref.tensor)
            sizes[ref.tensor] = chain.size_of(ref.indices)
        written.add(entry.output)
        sizes[entry.output] = chain.size_of(entry.tensor_ranks(entry.output))
    inputs = {t: sizes[t] for t in sizes if t in read and t not in written}
    outputs = {t: sizes[t] for t in sizes if t in written and t not in read}
    return inputs, outputs


def product_floor(macs: int, reduction: int, words: int) -> int:
    """Accesses of a product's three tensors under any schedule with `words` of buffer, when
    both inputs come from the backing store and the output may stay on chip (docs/fusion.md,
    "A floor under every schedule"): a stretch of t accesses runs at most
    F = floor(sqrt(floor((S+t)^2/4) * (2S + t + floor((S+t)^2 / (4 K^2))))) MACs, so
    Q >= t * (ceil(MACs / F) - 1); the best t of a small grid."""
    best = 0
    s = words
    t = max(1, s // 64)
    while t <= 64 * s:
        pair = (s + t) ** 2 // 4
        outputs = 2 * s + t + (s + t) ** 2 // (4 * reduction * reduction)
        per = isqrt(pair * outputs)
        if per > 0:
            best = max(best, t * (-(-macs // per) - 1))
        t *= 2
    return best


def chain_lower_bound(chain: Chain, words: int) -> int:
    """A floor on backing-store accesses of every schedule of the chain with `words` of
    buffer: the chain's inputs and final outputs once each, and, for products reading two
    chain inputs (no tensor shared between them), the larger of their own floor and
    their tensors once."""
    inputs, outputs = chain_tensors(chain)
    external = {**inputs, **outputs}
    total = sum(external.values())
    used: set[str] = set()
    for entry in chain.einsums:
        if entry.elementwise or entry.activation not in inputs or entry.weight not in inputs:
            continue
        tensors = {entry.activation, entry.weight, entry.output}
        if tensors & used:
            continue
        used |= tensors
        macs = chain.size_of(entry.ranks)
        floor = product_floor(macs, chain.size_of(entry.k), words)
        own = sum(external.get(t, 0) for t in tensors)
        total += max(floor, own) - own
    return total


def monotone_floors(chain: Chain, sizes: Iterable[int]) -> dict[int, int]:
    """The chain floor at each of `sizes` (words), as the running maximum from the largest
    size down: floor(S) = max over given S' >= S of chain_lower_bound(chain, S'). A floor that
    holds with S' words of buffer holds with S <= S' (a schedule that fits S fits S'), and
    `chain_lower_bound` alone is not monotone (its grid of stretch lengths moves with S)."""
    floors: dict[int, int] = {}
    highest = 0
    for words in sorted(set(sizes), reverse=True):
        highest = max(highest, chain_lower_bound(chain, words))
        floors[words] = highest
    return floors
