"""The derived metrics of docs/metrics.md, each written once.

The formulas take plain numbers: ints and Fractions (counts), sympy expressions (closed
forms, `tenet.analysis.symbolic`) or anything with `+` and a rational `·` (parametric
counts); `ratio`, `_floor_div` and `_max` switch to sympy's undefined ratio, floor and Max
when an argument is a sympy expression. `tenet.model.results` builds its properties from
them, `tenet.model.counting` gives them the counts.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from typing import Any


def _sympy_in(*values: Any):
    """The sympy module when some value is a sympy expression, else None (sympy is never
    imported here: no sympy expression exists before it is)."""
    sympy = sys.modules.get("sympy")
    if sympy is not None and any(isinstance(v, sympy.Basic) for v in values):
        return sympy
    return None


def fold(expr: Any) -> Any:
    """A sympy expression with its one Piecewise pulled out: Piecewise((f(q_k), c_k), ...)
    reads better than f(Piecewise((q_k, c_k), ...)). Anything else as it is."""
    sympy = _sympy_in(expr)
    if sympy is not None and len(expr.atoms(sympy.Piecewise)) == 1:
        return sympy.piecewise_fold(expr)
    return expr


def ratio(numerator: Any, denominator: Any) -> Any:
    """numerator / denominator: a float for ints, a Fraction for Fractions; a sympy quotient
    (folded), NaN (undefined, like analyze's null) when the denominator is 0."""
    sympy = _sympy_in(numerator, denominator)
    if sympy is None:
        return numerator / denominator
    if denominator == 0:
        return sympy.nan
    return fold(numerator / denominator)


def _floor_div(numerator: Any, denominator: Any) -> Any:
    """floor(numerator / denominator)."""
    sympy = _sympy_in(numerator, denominator)
    if sympy is None:
        return numerator // denominator
    return sympy.floor(ratio(numerator, denominator))


def _max(*values: Any) -> Any:
    sympy = _sympy_in(*values)
    return max(values) if sympy is None else sympy.Max(*values)


def compute_delay(macs: Any, active_pes: Any) -> Any:
    """floor(macs / active_pes): TENET's compute delay (not the number of time steps)."""
    return _floor_div(macs, active_pes)


def transfer_delay(words: Any, word_bits: int, bandwidth_bits: int, avg_latency: int) -> Any:
    """The ingress delay (words: Σ unique of the read sides) or egress delay (the write
    sides): floor(words · word_bits / bandwidth_bits) + avg_latency − 1."""
    return _floor_div(words * word_bits, bandwidth_bits) + avg_latency - 1


def latency(ingress: Any, egress: Any, compute: Any) -> Any:
    """max(ingress, egress, compute)."""
    return _max(ingress, egress, compute)


def schedule_delay(step_cycles: int, avg_latency: int) -> int:
    """Σ_t max(1, ceil(in(t)·word_bits/bandwidth_bits), ceil(out(t)·word_bits/bandwidth_bits))
    + avg_latency − 1: the schedule's cycles when each step waits for its own words."""
    return step_cycles + avg_latency - 1


def hierarchy_delay(cycles: int, avg_latency: int) -> int:
    """Σ_U s(U) + prologues + epilogues + avg_latency − 1: the time through the memory
    hierarchy (docs/levels.md), the latency paid once as in schedule_delay."""
    return cycles + avg_latency - 1


def overlapped_delay(steps: int, ingress: int, egress: int) -> int:
    """max(steps, ingress, egress): the schedule's steps with perfect prefetch."""
    return max(steps, ingress, egress)


def utilization(macs: Any, pe_count: Any, latency: Any) -> Any:
    """macs / (pe_count · latency): every PE of the array counts, used or not."""
    return ratio(macs, pe_count * latency)


def avg_active_pes(stamps: Any, time_steps: Any) -> Any:
    """Busy PEs per used time step: |Θ(D)| / time_steps."""
    return ratio(stamps, time_steps)


def reuse_factor(total: Any, unique: Any) -> Any:
    """total / unique, the average uses of a fetched value; None when unique = 0 (NaN for a
    sympy expression that is 0)."""
    if unique == 0 and _sympy_in(total, unique) is None:
        return None
    return ratio(total, unique)


def per_cycle(words: Any, compute: Any) -> Any:
    """Words per compute cycle, words / compute delay: IBW (words: spatial reuse), SBW
    (unique), a link's per_step (the values it serves)."""
    return ratio(words, compute)


def energy(macs: Any, accesses: Iterable[Any], constants: Sequence[Any]) -> Any:
    """macs·e_mac + Σ_F [e_l1·(l1_reads + l1_writes) + e_l2·(l2_reads + l2_writes)], the
    accesses given per tensor F (`tenet.model.results.Accesses`); constants = (e_mac, e_l1,
    e_l2)."""
    e_mac, e_l1, e_l2 = constants
    out = e_mac * macs
    for a in accesses:
        out = out + (e_l1 * (a.l1_reads + a.l1_writes) + e_l2 * (a.l2_reads + a.l2_writes))
    return out
