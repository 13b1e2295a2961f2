"""tenet: relation-centric modeling of tensor dataflows on spatial accelerators.

Typical use::

    from tenet import load_workload, load_arch, load_dataflow, analyze
    result = analyze(load_workload("workloads/gemm/workload.yaml"),
                     load_arch("archs/systolic-8x8.yaml"),
                     load_dataflow("workloads/gemm/dataflows/os-systolic-8x8.yaml"))
    print(result.to_dict()["tensors"]["A"]["read"]["unique"])

The names below are imported on first use, so that `import tenet` (and `tenet --version`)
does not load isl.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

#: Public name -> the module that defines it.
_PUBLIC = {
    "Analysis": "tenet.model.results",
    "analyze": "tenet.model.counting",
    "Arch": "tenet.model.arch",
    "Link": "tenet.model.arch",
    "load_arch": "tenet.model.arch",
    "Dataflow": "tenet.model.dataflow",
    "load_dataflow": "tenet.model.dataflow",
    "Workload": "tenet.model.workload",
    "load_workload": "tenet.model.workload",
    "InputError": "tenet.errors",
    "TenetError": "tenet.errors",
    "simulate": "tenet.analysis.simulate",
    "load_experiment": "tenet.formats.tenet_files",
    "load_tenet": "tenet.formats.tenet_files",
}

__all__ = list(_PUBLIC)


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        value = getattr(importlib.import_module(_PUBLIC[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'tenet' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_PUBLIC])
