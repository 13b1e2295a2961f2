"""The memory levels in the design space (docs/dse.md, "Memory levels in the space").

When the arch lists `levels:`, every candidate dataflow of the search is tried with each tile
depth of the level just inside the outermost one (docs/levels.md): the tiles of depth d are the
values of the first d time coordinates. This module names those choices and counts, for one
candidate, the traffic of its levels with `tenet.model.levels.level_traffic`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import islpy as isl

from tenet.model.arch import Arch
from tenet.model.dataflow import BoundDataflow
from tenet.model.levels import LevelTraffic, level_traffic
from tenet.model.workload import Workload
from tenet.util.isl_util import count

#: The violation kind of a candidate whose tiles need more words than their level holds.
OVER_CAPACITY = "over_capacity"


def tiled_level(arch: Arch) -> str | None:
    """The level whose tile depth the search varies: the one just inside the outermost
    (None when the arch has fewer than two levels: nothing takes a tile)."""
    levels = getattr(arch, "levels", None) or []
    return levels[-2].name if len(levels) >= 2 else None


def tile_depths(time_arity: int) -> range:
    """The depths tried for a time stamp of `time_arity` coordinates: 1 .. arity − 1 (the
    outer tile loops; depth = arity, one tile per time step, is left out), and 1 alone for a
    one-dimensional stamp (its only possible depth)."""
    return range(1, max(2, time_arity))


def tiles_text(tiles: Sequence[tuple[str, int]]) -> str:
    """`tiles GLB=2`, as `--tile` writes it; empty without tiles."""
    if not tiles:
        return ""
    return "tiles " + ",".join(f"{name}={depth}" for name, depth in tiles)


def candidate_levels(
    workload: Workload,
    arch: Arch,
    space: isl.UnionMap,
    time: isl.UnionMap,
    tiles: Mapping[str, int],
) -> list[LevelTraffic]:
    """`level_traffic` of a generated candidate whose maps are already restricted to the
    domain (one time tuple: its name and arity are read from the map)."""
    spaces = [m.get_space() for m in _maps_of(time)]
    out_tuple = spaces[0].get_tuple_name(isl.dim_type.out)
    arity = spaces[0].dim(isl.dim_type.out)
    bound = BoundDataflow(space, time, (out_tuple, arity), dict(tiles))
    return level_traffic(workload, arch, bound)


def over_capacity(levels: Sequence[LevelTraffic]) -> bool:
    """Some level's tiles need more words than its capacity (`fits: false`)."""
    return any(not level.fits for level in levels)


def dram_floor(workload: Workload, arch: Arch, traffic_floor: int) -> int:
    """A lower bound of the `dram` objective of every candidate of the search.

    With memory levels (every candidate has a tile depth of the level just inside the
    outermost): Σ_X |range(A_X)|, every element a tensor's accesses touch. An element only read
    is read from the outermost level at least once (its first entry is a read), and an element
    written is written back at least once (the stay holding a write ends with a dirty exit);
    proof in docs/dse.md. Without levels `dram` is the scratchpad traffic, and its floor is
    `traffic_floor` (the search's bound of `traffic`)."""
    if tiled_level(arch) is None:
        return traffic_floor
    total = 0
    for tensor in workload.tensors:
        accesses = [workload.access(tensor, side) for side in ("read", "write")]
        present = [a for a in accesses if a is not None]
        if not present:
            continue
        touched = present[0].range()
        for other in present[1:]:
            touched = touched.union(other.range())
        total += count(touched)
    return total


def _maps_of(union: isl.UnionMap) -> list[isl.Map]:
    maps: list[isl.Map] = []
    union.foreach_map(maps.append)
    return maps
