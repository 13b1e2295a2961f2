"""Bounds on Snowcat: the single-einsum search, chains of einsums, fusion and Chimera."""
