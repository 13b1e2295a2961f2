"""Analyses of one dataflow: legality, brute-force simulation, space-time traces,
comparisons and closed forms."""
