"""Chimera's analytical model of fused chains of einsums (Zheng et al., HPCA 2023), and two
variants of it.

A chain is split into blocks by tiling every loop r of size S_r with a tile t_r (trip count
n_r = ceil(S_r / t_r)); a block execution order is a permutation of all the chain's loops,
outermost first. For one order and one tiling, each model gives DV, the words moved between
the backing store and the on-chip memory (only the chain's inputs and its final output move;
intermediates stay on chip), and MU, the on-chip words. The operators are visited in chain
order; after operator i is visited, its private loops (those of no later operator) leave the
order. MU is the largest, over the operators, of the sum of the tiles of the operator's
tensors (inputs, output, intermediates), a tile being prod(t_r) over its ranks; the strict
model adds to it (below).

* "paper" (the default): Algorithm 1 exactly as printed. A moved tensor T of operator i
  starts at DM = its tile (the tile as given, so an edge tile counts as a whole one). Walking
  the order from the innermost loop outwards, from the innermost loop indexing T on, every
  loop of operator i multiplies DM by its trip count; loops of other operators are skipped.
  DV is the sum of the DMs. No order is rejected: an order whose producer would hand over
  incomplete tiles (below) gets a warning.
* "producer-rerun": T moves |T| * prod(n_r) over the loops r still in the order that lie
  outside the innermost loop indexing T and do not index T, whichever operator they belong
  to (a later operator's loop outside operator i's loops re-runs operator i for each of its
  trips). Edge tiles count at their actual size. An order is rejected when a reduction loop
  of a producer (a loop not indexing its output) with more than one trip lies outside a loop
  with more than one trip that indexes that output: the producer would hand over incomplete
  tiles.
* "strict": producer-rerun's orders and reloads, with the final output charged 2W - |O|
  (`dv_rmw`: each reload of a partial sum is a read and a write, as Orojenesis counts it)
  and the tiles of other operators that stay on chip while an operator runs added to MU
  (`mu_live`).

`evaluate_order` gives one model's DV and MU and the strict numbers beside them. `search`
finds the least DV within a capacity over every order the model accepts and every integer
tiling, exhaustively (`docs/chimera.md` explains why its reductions lose nothing).

The model of one order and tiling is `tenet.bounds.chimera_model`, the choice of tiles
(closed form and search) `tenet.bounds.chimera_search`; this module re-exports their public
names.
"""

from __future__ import annotations

from tenet.bounds.chimera_model import (
    MODELS,
    ChimeraOp,
    ChimeraTensor,
    algorithm1_loops,
    algorithm1_reloads,
    algorithmic_minimum,
    chain_loops,
    chain_sizes,
    check_model,
    chimera_ops,
    enclosing_loops,
    evaluate_order,
    format_order,
    held_tensors,
    illegal_pair,
    illegal_pairs,
    least_memory_use,
    memory_use,
    op_views,
    parse_order,
    reload_loops,
    tensor_size,
    tensor_users,
    tile_words,
    trips,
)
from tenet.bounds.chimera_search import (
    MAX_CANDIDATE_ORDERS,
    OrderClass,
    closed_form_tiles,
    gemm_pair_roles,
    order_classes,
    search,
    tile_candidates,
)

__all__ = [
    "MAX_CANDIDATE_ORDERS",
    "MODELS",
    "ChimeraOp",
    "ChimeraTensor",
    "OrderClass",
    "algorithm1_loops",
    "algorithm1_reloads",
    "algorithmic_minimum",
    "chain_loops",
    "chain_sizes",
    "check_model",
    "chimera_ops",
    "closed_form_tiles",
    "enclosing_loops",
    "evaluate_order",
    "format_order",
    "gemm_pair_roles",
    "held_tensors",
    "illegal_pair",
    "illegal_pairs",
    "least_memory_use",
    "memory_use",
    "op_views",
    "order_classes",
    "parse_order",
    "reload_loops",
    "search",
    "tensor_size",
    "tensor_users",
    "tile_candidates",
    "tile_words",
    "trips",
]
