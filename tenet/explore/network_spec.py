"""A network as data: its layers in execution order (read from YAML or imported from ONNX)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Layer:
    """One layer: a workload (preset name or file) with parameters, run `count` times.

    `stride` and `dilation` (x, y) turn the input index `ox+rx` of a convolution einsum into
    `sx*ox + dx*rx` (and `oy+ry` likewise); `dataflow` overrides the network-wide one.
    """

    name: str
    workload_ref: str
    params: dict[str, int]
    dataflow: str | None = None
    count: int = 1
    stride: tuple[int, int] = (1, 1)
    dilation: tuple[int, int] = (1, 1)


@dataclass
class Network:
    """Layers in execution order; `notes` say what an import left out."""

    name: str
    layers: list[Layer]
    source: str | None = None
    notes: list[str] = field(default_factory=list)
