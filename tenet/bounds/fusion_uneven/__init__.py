"""Fused mappings with per-tensor tile placement (the uneven space of `tenet fuse`).

A mapping of a fused segment is one loop nest at the backing store (docs/fusion.md, "The
uneven space"):

* the row loops are outermost and shared by every product (the rows, flattened, tiled by a
  divisor M0; a weight group boundary splits them into an outer loop that changes the group
  and an inner one that does not);
* two neighbours may share the loop S over the intermediate's columns (the producer's N loop
  is the consumer's K loop); inside S each runs its own other loop;
* every other product runs its own K and N loops, in either order, inside the row loops;
* every tensor's tile sits at its own position among the loops that enclose its product's
  step; a weight may also stream through one word; an intermediate is kept on chip (its tile
  sits at the innermost loop enclosing both its producer and its consumer) or spilled
  (written by the producer and read back by the consumer, both charged).

Costs, for a tile at position p (below the first p enclosing loops):

* its extent in a rank is the tile of the innermost loop above p over that rank (the whole
  rank if none); L* is the innermost loop above p that indexes the tensor;
* an instance of the tile lives in one iteration of L* (the whole segment if there is none),
  from the first step that touches it to the last; it is fetched once (inputs), written back
  once (outputs: writes W = tile x instances, accesses 2W - |O|), or never moves (kept
  intermediates); a streamed weight moves every word each step, through one word;
* the buffer is the peak, over the steps of the nest, of the words of every live instance
  (the tile-level form of the live-buffer rule of `fusion.live_buffer`).

The peak is exact without walking the nest: whether an instance is live at a step depends
only on whether each enclosing loop is in its first, a middle, or its last iteration, so
every such pattern is probed (a middle exists only with at least three trips).

Search (`segment_front`): two products, the whole space (`pair_front`); three or more, the
block nests of `long_front` plus the FFMT templates; one product, the single-einsum uneven
space. `uneven_front` takes the best over every segmentation. `chain_lower_bound` is a floor
on the accesses of every schedule of the chain (docs/fusion.md, "A floor under every
schedule").

The package holds one idea per module: `nest` (the loop nest and what a mapping costs),
`options` (where each tile may sit, and the one loop combining one option per tensor),
`pair` (two products), `long` (three or more), `fronts` (segments and chains), `floor` (the
chain floor). This module re-exports their public names, so the old imports keep working;
`evaluate` is the old name of `mapping_cost`.
"""

from __future__ import annotations

from tenet.bounds.fusion_uneven.floor import (
    chain_lower_bound,
    chain_tensors,
    monotone_floors,
    product_floor,
)
from tenet.bounds.fusion_uneven.fronts import lone_front, segment_front, uneven_front
from tenet.bounds.fusion_uneven.long import long_front
from tenet.bounds.fusion_uneven.nest import (
    FIRST,
    LAST,
    MIDDLE,
    STREAM,
    TOP,
    Loop,
    Mapping,
    NestLoop,
    SegmentSpec,
    Step,
    Tile,
    build_nest,
    describe,
    extent,
    indexes,
    keep,
    live,
    mapping_cost,
    mapping_tiles,
    peak,
    place,
    probes,
    row_levels,
    row_loops,
    segment_spec,
    steps_of,
    tensor_dims,
    total_traffic,
)
from tenet.bounds.fusion_uneven.pair import pair_front

evaluate = mapping_cost  # the old name of `mapping_cost` (docs/architecture.md, "Names")

__all__ = [
    "FIRST",
    "LAST",
    "MIDDLE",
    "STREAM",
    "TOP",
    "Loop",
    "Mapping",
    "NestLoop",
    "SegmentSpec",
    "Step",
    "Tile",
    "build_nest",
    "chain_lower_bound",
    "chain_tensors",
    "describe",
    "evaluate",
    "extent",
    "indexes",
    "keep",
    "live",
    "lone_front",
    "long_front",
    "mapping_cost",
    "mapping_tiles",
    "monotone_floors",
    "pair_front",
    "peak",
    "place",
    "probes",
    "product_floor",
    "row_levels",
    "row_loops",
    "segment_front",
    "segment_spec",
    "steps_of",
    "tensor_dims",
    "total_traffic",
    "uneven_front",
]
