"""tenet: relation-centric modeling of tensor dataflows on spatial accelerators.

Typical use::

    from tenet import load_workload, load_arch, load_dataflow, analyze
    result = analyze(load_workload("workloads/gemm/workload.yaml"),
                     load_arch("archs/systolic-8x8.yaml"),
                     load_dataflow("workloads/gemm/dataflows/os-systolic-8x8.yaml"))
    print(result.to_dict()["tensors"]["A"]["read"]["unique"])
"""

__version__ = "0.1.0"

from tenet.analysis.simulate import simulate
from tenet.errors import InputError, TenetError
from tenet.formats.tenet_files import load_experiment, load_tenet
from tenet.model.arch import Arch, Link, load_arch
from tenet.model.dataflow import Dataflow, load_dataflow
from tenet.model.metrics import Analysis, analyze
from tenet.model.workload import Workload, load_workload

__all__ = [
    "Analysis",
    "Arch",
    "Dataflow",
    "InputError",
    "Link",
    "TenetError",
    "Workload",
    "analyze",
    "load_arch",
    "load_dataflow",
    "load_experiment",
    "load_tenet",
    "load_workload",
    "simulate",
]
