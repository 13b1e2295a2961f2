"""Default safety limits, light to import (the command line's `--help` shows them)."""

from __future__ import annotations

#: isl operations one analysis may spend before it is stopped (0 = no limit). Heavy counts
#: (conv2d os-8x8 or os-16x16 with every parameter symbolic) ran about 2.7 million isl
#: operations per second on one Xeon core, so this stops a blow-up after about 30 s (isl
#: slows down further on, so a higher limit costs more than proportionally: 200 million
#: took over four minutes). Every preset analysis needs far fewer.
DEFAULT_MAX_OPERATIONS = 80_000_000

#: Instances the brute-force simulator enumerates at most.
DEFAULT_MAX_INSTANCES = 10**6
