"""Default safety limits, light to import (the command line's `--help` shows them)."""

from __future__ import annotations

#: isl operations one analysis may spend before it is stopped (0 = no limit).
DEFAULT_MAX_OPERATIONS = 200_000_000

#: Instances the brute-force simulator enumerates at most.
DEFAULT_MAX_INSTANCES = 10**6
