"""Importing an ONNX model as a network: Conv, Gemm and MatMul nodes become layers of the
conv2d, depthwise-conv, gemm and batched-gemm presets; every other node is skipped."""

from __future__ import annotations

from collections import Counter
from math import prod
from pathlib import Path
from typing import Any

from tenet.errors import InputError
from tenet.explore.network_spec import Layer, Network

#: Node types that become layers; the rest (activations, pooling, ...) do no MACs we model.
IMPORTED_OPS = ("Conv", "Gemm", "MatMul")

Shapes = dict[str, list[Any]]  # tensor name -> dims (int, or str for a symbolic dimension)


def import_onnx(source: str | None = None):
    """The `onnx` module, or an InputError saying how to install it."""
    try:
        import onnx
    except ImportError:
        raise InputError(
            "reading ONNX models needs the onnx package: pip install 'tenet-dataflow[onnx]'", source
        ) from None
    return onnx


def read_model(path: str | Path):
    """The model at `path` with inferred shapes (weights in external files are not read)."""
    source = str(path)
    onnx = import_onnx(source)
    from google.protobuf.message import DecodeError

    if not Path(path).is_file():
        raise InputError("ONNX model not found", source)
    try:
        model = onnx.load(source, load_external_data=False)
    except (DecodeError, OSError, ValueError, RuntimeError) as exc:
        raise InputError(f"not a readable ONNX model: {first_line(exc)}", source) from None
    try:
        return onnx.shape_inference.infer_shapes(model)
    except (onnx.shape_inference.InferenceError, ValueError, RuntimeError) as exc:
        raise InputError(f"ONNX shape inference failed: {first_line(exc)}", source) from None


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def tensor_shapes(graph) -> Shapes:
    """Dims of every tensor whose shape the model states or shape inference found."""
    shapes: Shapes = {init.name: list(init.dims) for init in graph.initializer}
    for info in (*graph.input, *graph.value_info, *graph.output):
        tensor_type = info.type.tensor_type
        if not tensor_type.HasField("shape"):
            continue
        dims = []
        for dim in tensor_type.shape.dim:
            if dim.HasField("dim_value"):
                dims.append(dim.dim_value)
            else:
                dims.append(dim.dim_param or "?")
        shapes.setdefault(info.name, dims)
    return shapes


def fixed_dims(shapes: Shapes, tensor: str, node: str, source: str) -> list[int]:
    """The dims of `tensor` as positive integers, or an InputError naming the node."""
    if tensor not in shapes:
        raise InputError(f"the shape of {tensor!r} is unknown after shape inference", source, node)
    dims = shapes[tensor]
    for n, dim in enumerate(dims):
        if not isinstance(dim, int) or dim < 1:
            raise InputError(
                f"dimension {n} of {tensor!r} is {dim!r}, not a fixed size; "
                "export the model with fixed input shapes",
                source,
                node,
            )
    return list(dims)


def attributes(node) -> dict[str, Any]:
    onnx = import_onnx()
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def conv_layer(node, name: str, shapes: Shapes, source: str) -> Layer | None:
    """A 2D Conv: conv2d, or depthwise-conv when each group is one input channel; groups
    and images (batch) become runs (`count`). None for a 1D or 3D Conv."""
    x = fixed_dims(shapes, node.input[0], name, source)
    if len(x) != 4:
        return None
    w = fixed_dims(shapes, node.input[1], name, source)
    y = fixed_dims(shapes, node.output[0], name, source)
    attrs = attributes(node)
    groups = int(attrs.get("group", 1))
    batch, channels = x[0], x[1]
    kernels, group_channels = w[0], w[1]
    out = {"OX": y[2], "OY": y[3], "RX": w[2], "RY": w[3]}
    stride = tuple(int(s) for s in attrs.get("strides", (1, 1)))
    dilation = tuple(int(d) for d in attrs.get("dilations", (1, 1)))
    if groups == channels and group_channels == 1 and groups > 1:
        params, workload, runs = {"C": channels, **out}, "depthwise-conv", kernels // channels
    else:
        params = {"K": kernels // groups, "C": group_channels, **out}
        workload, runs = "conv2d", groups
    return Layer(name, workload, params, None, batch * runs, stride, dilation)


def gemm_layer(node, name: str, shapes: Shapes, source: str) -> Layer:
    """Gemm: Y = op(A) op(B) (+ C, not a MAC) with op a transpose when transA/transB."""
    a = fixed_dims(shapes, node.input[0], name, source)
    b = fixed_dims(shapes, node.input[1], name, source)
    attrs = attributes(node)
    m, k = (a[1], a[0]) if attrs.get("transA", 0) else (a[0], a[1])
    n = b[0] if attrs.get("transB", 0) else b[1]
    return Layer(name, "gemm", {"M": m, "N": n, "K": k})


def matmul_layer(node, name: str, shapes: Shapes, source: str, notes: list[str]) -> Layer:
    """MatMul with numpy semantics: a gemm when one side has no batch dims (its matrix is
    shared, so the batch joins M or N), else a batched-gemm over the broadcast batch."""
    a = fixed_dims(shapes, node.input[0], name, source)
    b = fixed_dims(shapes, node.input[1], name, source)
    a = [1, *a] if len(a) == 1 else a
    b = [*b, 1] if len(b) == 1 else b
    m, k, n = a[-2], a[-1], b[-1]
    batch_a, batch_b = prod(a[:-2]), prod(b[:-2])
    if batch_b == 1:
        return Layer(name, "gemm", {"M": batch_a * m, "N": n, "K": k})
    if batch_a == 1:
        return Layer(name, "gemm", {"M": m, "N": batch_b * n, "K": k})
    batch = broadcast(a[:-2], b[:-2])
    if batch_a != batch_b:
        notes.append(
            f"{name}: batch dims {a[:-2]} and {b[:-2]} broadcast to {batch}; "
            "each of the batches is counted as a product of its own"
        )
    return Layer(name, "batched-gemm", {"B": prod(batch), "M": m, "N": n, "K": k})


def broadcast(left: list[int], right: list[int]) -> list[int]:
    """numpy broadcasting of two batch shapes of equal or different rank."""
    rank = max(len(left), len(right))
    left = [1] * (rank - len(left)) + left
    right = [1] * (rank - len(right)) + right
    return [max(x, y) for x, y in zip(left, right)]


def unique_name(node, index: int, used: set[str]) -> str:
    base = node.name or f"{node.op_type.lower()}_{index}"
    name, suffix = base, 2
    while name in used:
        name, suffix = f"{base}_{suffix}", suffix + 1
    used.add(name)
    return name


def network_from_onnx(path: str | Path) -> Network:
    """Every Conv (2D), Gemm and MatMul node of the main graph as a layer, in graph order."""
    source = str(path)
    graph = read_model(path).graph
    shapes = tensor_shapes(graph)
    layers: list[Layer] = []
    notes: list[str] = []
    skipped: Counter[str] = Counter()
    used: set[str] = set()
    for index, node in enumerate(graph.node):
        if node.op_type not in IMPORTED_OPS:
            skipped[node.op_type] += 1
            continue
        name = unique_name(node, index, used)
        if node.op_type == "Conv":
            layer = conv_layer(node, name, shapes, source)
        elif node.op_type == "Gemm":
            layer = gemm_layer(node, name, shapes, source)
        else:
            layer = matmul_layer(node, name, shapes, source, notes)
        if layer is None:
            skipped[f"{node.op_type} (not 2D)"] += 1
        else:
            layers.append(layer)
    if not layers:
        raise InputError("the model has no 2D Conv, Gemm or MatMul node to analyze", source)
    if skipped:
        listed = ", ".join(f"{op} x{n}" for op, n in sorted(skipped.items()))
        notes.insert(0, f"skipped {sum(skipped.values())} nodes that do no modeled MACs: {listed}")
    return Network(Path(source).stem, layers, source, notes)
