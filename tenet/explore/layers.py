"""The old import path of `tenet.explore.network_spec` (`Layer`, `Network`), kept for one
release: the module holds the network type, not a list of layers."""

from __future__ import annotations

from tenet.explore.network_spec import Layer, Network

__all__ = ["Layer", "Network"]
