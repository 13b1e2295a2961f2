"""Loop nests as workloads: C (PolyBench-style `#pragma scop` regions) and Python loops.

`load_loopnest(path)` reads a `.c`/`.h` or `.py` file and returns a `Workload` whose
statements S0, S1, ... (or a C label) carry their domains, accesses and 2d+1 program order;
see docs/loopnests.md for the rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from tenet.model.workload import Workload

C_SUFFIXES = (".c", ".h")
PYTHON_SUFFIXES = (".py",)


def is_loopnest(path: str | Path) -> bool:
    """Whether a path names a loop-nest source file (by its suffix)."""
    return str(path).lower().endswith(C_SUFFIXES + PYTHON_SUFFIXES)


def load_loopnest(
    path: str | Path, overrides: Mapping[str, int] | None = None, function: str | None = None
) -> Workload:
    """The workload of a C or Python loop nest at its parameter defaults and `overrides`."""
    from tenet.formats.loopnest.common import workload_from_kernel

    source = str(path)
    if source.lower().endswith(PYTHON_SUFFIXES):
        from tenet.formats.loopnest.python_frontend import python_kernel

        kernel = python_kernel(source, function)
    else:
        from tenet.formats.loopnest.c_frontend import c_kernel

        kernel = c_kernel(source, function)
    return workload_from_kernel(kernel, source, overrides)
