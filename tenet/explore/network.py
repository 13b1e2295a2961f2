"""Whole networks: a list of layers, each a workload preset with its parameters, analyzed
layer by layer on one arch, with per-layer results and network totals."""

from __future__ import annotations

import hashlib
import json
import pickle
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from tenet.errors import InputError, option_ref
from tenet.execution import run_tasks
from tenet.explore.network_spec import Layer, Network
from tenet.formats.presets import preset_names, resolve_dataflow, resolve_network, resolve_workload
from tenet.model.arch import Arch
from tenet.model.checks import example_point
from tenet.model.dataflow import bind_dataflow, load_dataflow
from tenet.model.einsum import TensorRef, parse_einsum
from tenet.model.metrics import Analysis, Totals, analyze_bound
from tenet.model.workload import (
    Workload,
    load_workload,
    parse_workload_data,
    workload_from_data,
)
from tenet.util.io import check_keys, expect_int, expect_mapping, expect_str, load_yaml
from tenet.util.isl_util import DEFAULT_MAX_OPERATIONS

LAYER_KEYS = ("name", "workload", "params", "dataflow", "count", "stride", "dilation")

#: Per spatial axis, the (output loop, filter loop) pairs whose sum indexes a convolution's
#: input: `ox+rx`, `oy+ry` in conv2d and depthwise-conv, `p+r`, `q+s` in the conv-* presets.
CONV_AXES = ((("ox", "rx"), ("p", "r")), (("oy", "ry"), ("q", "s")))


# --- reading a network ----------------------------------------------------------------------


def load_network(path_or_preset: str | Path) -> Network:
    """A network from a preset name (`alexnet`), a network YAML file or an ONNX model."""
    text = str(path_or_preset)
    if text.lower().endswith(".onnx"):
        from tenet.explore.onnx_import import network_from_onnx

        return network_from_onnx(text)
    path = resolve_network(text)
    if not path.exists() and "/" not in text and not text.endswith((".yaml", ".yml")):
        known = ", ".join(preset_names("networks")) or "none"
        raise InputError(
            f"no network preset or file named {text!r} (presets: {known}; "
            "or give a network .yaml or an .onnx model)",
            text,
        )
    return parse_network(load_yaml(path, "network file"), str(path), path.parent)


def parse_network(data: Mapping[str, Any], source: str, base: Path) -> Network:
    """Check a network mapping and every layer's workload, parameters and dataflow."""
    check_keys(data, ("name", "layers"), ("layers",), source)
    raw = data["layers"]
    if not isinstance(raw, list) or not raw:
        raise InputError("expected a non-empty list of layers", source, "layers")
    layers = [parse_layer(entry, n, base, source) for n, entry in enumerate(raw)]
    seen: dict[str, int] = {}
    for n, layer in enumerate(layers):
        if layer.name in seen:
            raise InputError(
                f"layer name {layer.name!r} is already used by layers[{seen[layer.name]}]",
                source,
                f"layers[{n}].name",
            )
        seen[layer.name] = n
    name = expect_str(data.get("name") or Path(source).stem, source, "name")
    network = Network(name, layers, source)
    for n, layer in enumerate(layers):
        check_layer(layer, n, source)
    return network


def parse_layer(entry: Any, index: int, base: Path, source: str) -> Layer:
    """One `layers[i]` entry; file paths in it are relative to the network file."""
    key = f"layers[{index}]"
    entry = expect_mapping(entry, source, key)
    check_keys(entry, LAYER_KEYS, ("name", "workload"), source, key + ".")
    name = expect_str(entry["name"], source, f"{key}.name").strip()
    if not name:
        raise InputError("must not be empty", source, f"{key}.name")
    workload = relative_ref(expect_str(entry["workload"], source, f"{key}.workload"), base)
    params = {
        str(p): expect_int(v, source, f"{key}.params.{p}", 1)
        for p, v in expect_mapping(entry.get("params") or {}, source, f"{key}.params").items()
    }
    dataflow = entry.get("dataflow")
    if dataflow is not None:
        dataflow = relative_ref(expect_str(dataflow, source, f"{key}.dataflow"), base)
    return Layer(
        name=name,
        workload_ref=workload,
        params=params,
        dataflow=dataflow,
        count=expect_int(entry.get("count", 1), source, f"{key}.count", 1),
        stride=parse_pair(entry.get("stride", 1), source, f"{key}.stride"),
        dilation=parse_pair(entry.get("dilation", 1), source, f"{key}.dilation"),
    )


def relative_ref(text: str, base: Path) -> str:
    """A preset name as it is; a relative file path joined to the network file's folder."""
    is_path = "/" in text or "\\" in text or text.endswith((".yaml", ".yml"))
    if not is_path or Path(text).is_absolute():
        return text
    return str(base / text)


def parse_pair(value: Any, source: str, key: str) -> tuple[int, int]:
    """`2` -> (2, 2); `[2, 1]` -> (2, 1) (x, y); both positive."""
    if isinstance(value, list):
        if len(value) != 2:
            raise InputError(f"expected one integer or [x, y], got {value!r}", source, key)
        return (
            expect_int(value[0], source, f"{key}[0]", 1),
            expect_int(value[1], source, f"{key}[1]", 1),
        )
    number = expect_int(value, source, key, 1)
    return (number, number)


def check_layer(layer: Layer, index: int, source: str | None) -> None:
    """Parameters known to the workload, the workload buildable, a given dataflow found."""
    key = f"layers[{index}]"
    path = workload_path(layer, source, key)
    if path.suffix.lower() in (".c", ".py"):
        raise InputError(
            f"a layer's workload is a workload YAML or preset, not a loop nest ({path.name}); "
            f"turn it into one with `tenet workload show -w {path.name} {option_ref('format')} yaml -o FILE`",
            source,
            f"{key}.workload",
        )
    declared = load_yaml(path, "workload file").get("params") or {}
    for param in layer.params:
        if param not in declared:
            known = ", ".join(map(str, declared)) or "none"
            raise InputError(
                f"workload {layer.workload_ref!r} has no parameter {param!r} (it has: {known})",
                source,
                f"{key}.params.{param}",
            )
    try:
        layer_workload(layer)
        if layer.dataflow is not None:
            layer_dataflow(layer, None)
    except InputError as exc:
        raise in_layer(exc, source, index, layer.name) from None


def workload_path(layer: Layer, source: str | None = None, key: str | None = None) -> Path:
    """The workload file of a layer (a preset name resolved, a folder's workload.yaml)."""
    path = resolve_workload(layer.workload_ref)
    if not path.is_file():
        known = ", ".join(preset_names("workloads"))
        raise InputError(
            f"no workload preset or file {layer.workload_ref!r} (presets: {known})",
            source,
            f"{key}.workload" if key else None,
        )
    return path


def in_layer(exc: InputError, source: str | None, index: int, name: str) -> InputError:
    """The error of one layer, prefixed with the network file and the layer."""
    return InputError(exc.marked_line(), source, f"layers[{index}] ({name})")


# --- a layer's workload and dataflow --------------------------------------------------------


def layer_workload(layer: Layer) -> Workload:
    """The layer's workload with its parameters, strided or dilated if asked."""
    path = workload_path(layer)
    if layer.stride == (1, 1) and layer.dilation == (1, 1):
        return load_workload(path, layer.params)
    return strided_workload(path, layer.params, layer.stride, layer.dilation)


def strided_workload(
    path: Path, params: dict[str, int], stride: tuple[int, int], dilation: tuple[int, int]
) -> Workload:
    """The einsum workload at `path` with input index `ox+rx` made `sx*ox + dx*rx` (same in y)."""
    source = str(path)
    data = dict(load_yaml(path, "workload file"))
    if "einsum" not in data:
        raise InputError(
            "stride and dilation need a workload written as an einsum", source, "statements"
        )
    data["einsum"] = strided_einsum(data["einsum"], stride, dilation, source)
    return workload_from_data(parse_workload_data(data, source, params, path.stem))


def strided_einsum(
    text: Any, stride: tuple[int, int], dilation: tuple[int, int], source: str | None = None
) -> str:
    """`O[..] += I[c, ox+rx, oy+ry] * ...` -> `... I[c, sx*ox + dx*rx, sy*oy + dy*ry] ...`."""
    einsum = parse_einsum(text, source)
    found = [False, False]
    inputs = []
    for ref in einsum.inputs:
        indices = []
        for expr in ref.indices:
            axis, loops = conv_axis(expr)
            if axis is not None:
                found[axis] = True
                expr = f"{stride[axis]}*{loops[0]} + {dilation[axis]}*{loops[1]}"
            indices.append(expr)
        inputs.append(TensorRef(ref.tensor, tuple(indices)))
    if not all(found):
        raise InputError(
            "stride and dilation need a convolution einsum whose input is indexed by "
            "ox+rx and oy+ry (or p+r and q+s), like the conv2d and depthwise-conv presets",
            source,
            "einsum",
        )
    op = "+=" if einsum.accumulate else "="
    return f"{einsum.output.isl_tuple()} {op} {' * '.join(r.isl_tuple() for r in inputs)}"


def conv_axis(expr: str) -> tuple[int | None, tuple[str, str]]:
    """(axis, (output loop, filter loop)) when `expr` is `out+tap` of CONV_AXES, else (None, _)."""
    compact = expr.replace(" ", "")
    for axis, pairs in enumerate(CONV_AXES):
        for out, tap in pairs:
            if compact in (f"{out}+{tap}", f"{tap}+{out}"):
                return axis, (out, tap)
    return None, ("", "")


def layer_dataflow(layer: Layer, override: str | None) -> Path:
    """The layer's own dataflow, else the first of the comma-separated `override` names
    that exists beside the layer's workload (`workloads/W/dataflows/NAME.yaml`) or as a file."""
    text = layer.dataflow or override
    if not text:
        raise InputError("no dataflow: give -d NAME on the command line or a 'dataflow:' key")
    wpath = workload_path(layer)
    names = [text] if layer.dataflow else [n.strip() for n in text.split(",") if n.strip()]
    for name in names:
        path = resolve_dataflow(name, wpath)
        if path.is_file():
            return path
    own = sorted(p.stem for p in (wpath.parent / "dataflows").glob("*.yaml"))
    known = ", ".join(own) or "none"
    raise InputError(
        f"workload {layer.workload_ref!r} has no dataflow {' or '.join(map(repr, names))} "
        f"(its dataflows: {known})"
    )


# --- analysis -----------------------------------------------------------------------------


@dataclass
class LayerJob:
    """Everything one worker needs to analyze one distinct layer (picklable)."""

    layer: Layer
    index: int
    arch: Arch
    dataflow: str
    max_isl_ops: int
    source: str | None


def analyze_layer(
    layer: Layer, arch: Arch, dataflow_path: str | Path, max_isl_ops: int = DEFAULT_MAX_OPERATIONS
) -> Analysis:
    """All metrics of one run of the layer; InputError if its PEs fall outside the array."""
    workload = layer_workload(layer)
    dataflow = load_dataflow(dataflow_path)
    bound = bind_dataflow(dataflow, workload, arch)
    outside = bound.space_map.range().subtract(arch.pe_domain)
    if not outside.is_empty():
        raise InputError(
            f"dataflow {dataflow.name!r} does not fit arch {arch.name!r}: it places instances "
            f"on PEs outside the array, e.g. {example_point(outside.lexmin())}",
            dataflow.source,
            "space",
        )
    return analyze_bound(workload, arch, bound, dataflow, max_isl_ops, dataflow.source)


def layer_analysis(job: LayerJob) -> Analysis:
    """One run of the job's layer; an InputError names the layer."""
    try:
        return analyze_layer(job.layer, job.arch, job.dataflow, job.max_isl_ops)
    except InputError as exc:
        raise in_layer(exc, job.source, job.index, job.layer.name) from None


def run_layer_job(job: LayerJob) -> dict[str, Any]:
    """A worker: the journal record of one layer run (its analyze JSON, |ST| and exact energy)."""
    analysis = layer_analysis(job)
    energy = analysis.energy_exact
    record = {
        "analysis": analysis.to_dict(),
        "stamps": analysis.stamps,
        "energy": [energy.numerator, energy.denominator],
    }
    if analysis.cost is not None:  # the JSON's cost has float lengths: keep the exact counts
        record["cost"] = analysis.cost.to_exact()
    return record


def record_analysis(record: Mapping[str, Any], arch: Arch) -> Analysis:
    """The Analysis of a `run_layer_job` record, its cost rebuilt from the exact action
    counts; ValueError if its numbers do not follow from its counts on `arch` (a journal
    written with other constants or components, or without a cost the arch now has)."""
    analysis = Analysis.from_dict(
        record["analysis"], arch, record["stamps"], exact_cost=record.get("cost")
    )
    if arch.components is not None and analysis.cost is None:  # journalled without a cost
        raise ValueError(f"the journal has no exact cost of {analysis.dataflow!r}")
    if analysis.energy_exact != Fraction(*record["energy"]):
        raise ValueError(f"the energy of {analysis.dataflow!r} does not follow from its counts")
    return analysis


def job_key(job: LayerJob) -> str:
    """Identical layers (same workload, parameters, stride, dataflow, arch) share one key. It
    holds what the files say, not only their names (a hash of the workload and dataflow files
    and of the loaded arch), and the isl budget: a journal never answers for an edited file."""
    layer = job.layer
    workload = workload_path(layer)
    return json.dumps(
        [
            str(workload),
            sorted(layer.params.items()),
            list(layer.stride),
            list(layer.dilation),
            job.dataflow,
            job.arch.name,
            str(job.arch.source),
            job.max_isl_ops,
            _digest(Path(workload).read_bytes()),
            _digest(Path(job.dataflow).read_bytes()),
            _digest(pickle.dumps(job.arch)),
        ]
    )


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


@dataclass
class LayerResult:
    """One layer of a network and the analysis of one run of it."""

    layer: Layer
    analysis: Analysis

    @property
    def count(self) -> int:
        """Runs of the layer in the network."""
        return self.layer.count

    def to_dict(self) -> dict[str, Any]:
        """The analyze JSON of one run, with the layer's name, count and shape."""
        layer = self.layer
        return {
            "layer": layer.name,
            "count": layer.count,
            **self.analysis.to_dict(),
            "params": dict(layer.params),
            "stride": list(layer.stride),
            "dilation": list(layer.dilation),
        }


@dataclass
class NetworkResult:
    """Per-layer analyses and the network totals (every run of every layer)."""

    network: str
    arch: str
    layers: list[LayerResult]
    total: Totals
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """`tenet analyze -n`'s JSON object."""
        return {
            "network": self.network,
            "arch": self.arch,
            "layers": [layer.to_dict() for layer in self.layers],
            "total": self.total.to_dict(),
            "notes": list(self.notes),
        }


def analyze_network(
    network: Network,
    arch: Arch,
    dataflow: str | None = None,
    max_isl_ops: int = DEFAULT_MAX_OPERATIONS,
    jobs: int = 1,
    scheduler: str | None = None,
    journal: str | Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> NetworkResult:
    """Per-layer analyses and network totals.

    `dataflow` (names, comma-separated: the first one each layer's workload has) applies to
    every layer without a `dataflow:` of its own. Identical layers are analyzed once.
    """
    layer_jobs = []
    for n, layer in enumerate(network.layers):
        try:
            path = layer_dataflow(layer, dataflow)
        except InputError as exc:
            raise in_layer(exc, network.source, n, layer.name) from None
        layer_jobs.append(LayerJob(layer, n, arch, str(path), max_isl_ops, network.source))
    keys = [job_key(job) for job in layer_jobs]
    distinct: dict[str, LayerJob] = {}
    for key, job in zip(keys, layer_jobs):
        distinct.setdefault(key, job)
    records = run_tasks(run_layer_job, list(distinct.items()), jobs, scheduler, journal, progress)
    analyses = {}
    for key, record in records.items():
        try:
            analyses[key] = record_analysis(record, arch)
        except ValueError as exc:
            if journal is None:
                raise
            raise InputError(f"{exc}; delete the journal to count again", str(journal)) from None
    return network_result(network, arch, [analyses[key] for key in keys], list(network.notes))


def network_result(
    network: Network, arch: Arch, analyses: list[Analysis], notes: list[str]
) -> NetworkResult:
    """The layers with their analyses (one run each) and the totals of every run."""
    layers = [LayerResult(layer, analysis) for layer, analysis in zip(network.layers, analyses)]
    return NetworkResult(
        network.name, arch.name, layers, network_totals(layers, arch.pe_count), notes
    )


def network_totals(layers: list[LayerResult], pe_count: int) -> Totals:
    """Σ count · (one run's totals): the counts add up, the ratios are recomputed from the
    sums (docs/networks.md)."""
    return sum((layer.count * Totals.of(layer.analysis) for layer in layers), Totals(pe_count))


# --- output ---------------------------------------------------------------------------------
