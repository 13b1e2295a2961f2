"""`tenet analyze -n NETWORK --symbolic --family P,Q,...`: one symbolic count per shape family.

Layers that share a workload, a dataflow, stride and dilation, and the values of every
parameter outside the family, form one family: its metrics are counted once with the family
parameters left symbolic (`tenet.symbolic`), and each layer is the formulas evaluated at its
sizes (exact). One layer of each family is also counted directly: it checks that the
dataflow fits the array and gives the shape of the result. Strided or dilated layers are
counted directly (their einsum is rewritten, not read from a YAML file).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tenet.analysis.symbolic import analysis_at, symbolic_analysis
from tenet.errors import InputError
from tenet.explore.network import (
    LayerJob,
    Network,
    NetworkResult,
    in_layer,
    layer_analysis,
    layer_dataflow,
    layer_workload,
    network_result,
    workload_path,
)
from tenet.model.arch import Arch
from tenet.model.dataflow import load_dataflow
from tenet.model.metrics import Analysis
from tenet.util.io import load_yaml
from tenet.util.isl_util import DEFAULT_MAX_OPERATIONS

NOTE = (
    "symbolic: layers of a family are its formulas evaluated at their sizes; they "
    "carry no warnings (the network counted exactly, not symbolically, gives them)"
)


@dataclass
class Family:
    """Layers counted once: a workload and dataflow with `symbols` left symbolic."""

    workload: str
    dataflow: str
    symbols: list[str]
    fixed: dict[str, int]
    layers: list[str]  # the layers evaluated from the family's formulas

    def to_dict(self) -> dict[str, Any]:
        return {
            "workload": self.workload,
            "dataflow": self.dataflow,
            "symbols": list(self.symbols),
            "fixed": dict(self.fixed),
            "layers": list(self.layers),
        }


@dataclass
class SymbolicNetworkResult(NetworkResult):
    """A network result whose layers come from family formulas (or direct counts)."""

    families: list[Family] = field(default_factory=list)
    counted_directly: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            **super().to_dict(),
            "families": [family.to_dict() for family in self.families],
            "counted_directly": list(self.counted_directly),
        }


def _defaults(path) -> dict[str, int]:
    """The parameter values a workload file declares."""
    data = load_yaml(path, "workload file")
    return {str(k): int(v) for k, v in (data.get("params") or {}).items()}


def family_key(layer, dataflow: str, family: set[str]) -> str | None:
    """Layers with equal keys share one symbolic count (None: count the layer directly)."""
    if layer.stride != (1, 1) or layer.dilation != (1, 1):
        return None
    fixed = sorted((k, v) for k, v in layer.params.items() if k not in family)
    return repr((str(workload_path(layer)), dataflow, fixed))


def analyze_network_symbolic(
    network: Network,
    arch: Arch,
    family: list[str],
    dataflow: str | None = None,
    max_isl_ops: int = DEFAULT_MAX_OPERATIONS,
    progress: Callable[[int, int], None] | None = None,
) -> SymbolicNetworkResult:
    """Per-layer analyses and totals like `analyze_network`, counting each family once."""
    wanted = set(family)
    declared = {p for layer in network.layers for p in _defaults(workload_path(layer))}
    unknown = sorted(wanted - declared)
    if unknown:
        raise InputError(
            f"no layer's workload has a parameter {unknown[0]!r} "
            f"(they have: {', '.join(sorted(declared))})",
            "family",
        )
    groups: dict[str, list[int]] = {}
    direct: list[int] = []
    paths = []
    for n, layer in enumerate(network.layers):
        try:
            paths.append(str(layer_dataflow(layer, dataflow)))
        except InputError as exc:
            raise in_layer(exc, network.source, n, layer.name) from None
        key = family_key(layer, paths[-1], wanted)
        if key is None:
            direct.append(n)
        else:
            groups.setdefault(key, []).append(n)
    total_tasks = len(groups) + len(direct)  # progress: one per family and direct layer
    done = 0
    runs: list[Analysis | None] = [None] * len(network.layers)
    families = []
    for members in groups.values():
        first = network.layers[members[0]]
        job = LayerJob(first, members[0], arch, paths[members[0]], max_isl_ops, network.source)
        template = layer_analysis(job)
        defaults = _defaults(workload_path(first))
        symbols = [p for p in defaults if p in wanted]
        fixed = {k: v for k, v in {**defaults, **first.params}.items() if k not in wanted}
        first_workload, first_dataflow = layer_workload(first), load_dataflow(paths[members[0]])
        try:
            result = symbolic_analysis(first_workload, arch, first_dataflow, fixed, max_isl_ops)
        except InputError as exc:
            raise in_layer(exc, network.source, members[0], first.name) from None
        from_formulas = []  # the layers whose metrics the family's formulas give
        for n in members:
            layer = network.layers[n]
            sizes = {p: {**defaults, **layer.params}[p] for p in symbols}
            try:  # the closed forms at this size, assembled as every engine's counts are
                runs[n] = analysis_at(result, sizes, first_workload, arch, first_dataflow)
            except InputError:  # outside the formulas' domain: count this one directly
                direct.append(n)
                continue
            from_formulas.append(layer.name)
        families.append(
            Family(template.workload, template.dataflow, result["symbols"], fixed, from_formulas)
        )
        done += 1
        if progress:
            progress(done, total_tasks)
    for n in direct:
        layer = network.layers[n]
        runs[n] = layer_analysis(LayerJob(layer, n, arch, paths[n], max_isl_ops, network.source))
        done += 1
        if progress:
            progress(done, max(done, total_tasks))
    plain = network_result(network, arch, runs, [*network.notes, NOTE])
    return SymbolicNetworkResult(
        **vars(plain),
        families=families,
        counted_directly=[network.layers[n].name for n in sorted(set(direct))],
    )
