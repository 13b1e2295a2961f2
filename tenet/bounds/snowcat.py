"""The Orojenesis ski slope on the Snowcat architecture (one PE, a buffer, a backing store).

A mapping tiles every rank r of size R into inner r0 and outer r1 = R / r0 (perfect
factors), orders the non-unit outer loops, holds one tile per tensor at that one buffer
level, and optionally bypasses tensors. Costs are evaluated for the whole mapspace at once
with numpy (docs/bounds.md). The front is the least traffic over these Snowcat
mappings: every point is attained, so it is an upper bound on the least traffic possible,
not a lower bound (per-tensor tile placement or imperfect tiles can move less; see
docs/bounds.md).

Tiles are boxes: a tensor dimension indexed by Σ_r a_r·r spans E = Σ_r |a_r|(r0 - 1) + 1
words per tile (the convolution rule stride·(p0-1) + dilation·(r0-1) + 1). Consecutive
tiles in time overlap by ∏_d max(0, E_d - |Δ_d|); only the part not held by the previous
tile is fetched, so stationary tiles cost nothing and sliding windows fetch their new part.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from math import factorial, prod
from typing import TYPE_CHECKING, Any

import islpy as isl
import numpy as np

from tenet.bounds.front import Front, FrontPoint
from tenet.errors import InputError
from tenet.model.einsum import parse_einsum
from tenet.model.workload import Workload
from tenet.util.io import size_in_words
from tenet.util.isl_util import count, maps_of, sets_of

if TYPE_CHECKING:
    from tenet.model.arch import Arch
    from tenet.model.metrics import Analysis


@dataclass(frozen=True)
class BoundTensor:
    """A tensor and, per dimension, the coefficients of its index in the ranks."""

    name: str
    dims: tuple[tuple[int, ...], ...]  # dims[d][r] = coefficient of rank r in index d
    output: bool = False


@lru_cache(maxsize=1024)
def _touched(
    ranks: tuple[str, ...], sizes: tuple[int, ...], name: str, dims: tuple[tuple[int, ...], ...]
) -> int:
    """`Problem.size`: the range of the access relation over the box of rank sizes, counted
    by barvinok."""
    index = ", ".join(
        " + ".join(f"{a}*{r}" for a, r in zip(dim, ranks) if a).replace("+ -", "- ") or "0"
        for dim in dims
    )
    box = " and ".join(f"0 <= {r} < {n}" for r, n in zip(ranks, sizes))
    return count(isl.UnionMap(f"{{ S[{', '.join(ranks)}] -> {name}[{index}] : {box} }}").range())


@dataclass
class Problem:
    """One einsum: rank names and sizes, input tensors and one output."""

    name: str
    ranks: list[str]
    sizes: list[int]
    tensors: list[BoundTensor]

    @property
    def macs(self) -> int:
        return prod(self.sizes)

    def extent(self, tensor: BoundTensor, factors: list[int]) -> int:
        """Words of a box tile whose ranks span `factors` (exact Python ints)."""
        return prod(sum(abs(a) * (f - 1) for a, f in zip(dim, factors)) + 1 for dim in tensor.dims)

    def size(self, tensor: BoundTensor) -> int:
        """Distinct elements the einsum touches (exact, isl/barvinok: holes left by a
        stride larger than the filter are not counted; counted once per shape and tensor)."""
        return _touched(tuple(self.ranks), tuple(self.sizes), tensor.name, tensor.dims)

    @property
    def output(self) -> BoundTensor:
        return next(t for t in self.tensors if t.output)

    @property
    def algorithmic_minimum(self) -> int:
        """Every tensor moved exactly once: Σ sizes."""
        return sum(self.size(t) for t in self.tensors)

    def ops(self) -> int:
        """2·MACs - |O| (the first addition into each output is not needed)."""
        return 2 * self.macs - self.size(self.output)

    def is_matrix_product(self) -> bool:
        """Three 2-D tensors over three ranks, each rank in exactly two tensors (M, N, K)."""
        if len(self.ranks) != 3 or len(self.tensors) != 3:
            return False
        uses = [sum(1 for t in self.tensors for dim in t.dims if dim[r]) for r in range(3)]
        return all(len(t.dims) == 2 for t in self.tensors) and uses == [2, 2, 2]


def _coefficients(index: str, ranks: list[str], source: str | None, key: str) -> tuple[int, ...]:
    """Coefficients of an affine index expression in the ranks (isl parses it)."""
    try:
        aff = isl.PwAff(f"{{ [{', '.join(ranks)}] -> [({index})] }}")
    except isl.Error:
        raise InputError(
            f"index {index!r} is not affine in the ranks {', '.join(ranks)}", source, key
        ) from None
    pieces = []
    aff.foreach_piece(lambda _set, piece: pieces.append(piece))
    if len(pieces) != 1 or pieces[0].dim(isl.dim_type.div):
        raise InputError(f"index {index!r} is not affine (no floor or mod)", source, key)
    out = []
    for r in range(len(ranks)):
        value = pieces[0].get_coefficient_val(isl.dim_type.in_, r)
        if not value.is_int():
            raise InputError(f"index {index!r} has a fractional coefficient", source, key)
        out.append(value.to_python())
    return tuple(out)


def problem_from_einsum(
    text: str, shape: dict[str, int], name: str | None = None, source: str | None = "--einsum"
) -> Problem:
    """`--einsum "O[m,n] += A[m,k] * W[k,n]" --shape m=4096,k=4096,n=4096`."""
    einsum = parse_einsum(text, source)
    ranks: list[str] = []
    for ref in (einsum.output, *einsum.inputs):
        for var in sorted(ref.variables(), key=lambda v: text.index(v)):
            if var not in ranks:
                ranks.append(var)
    missing = [r for r in ranks if r not in shape]
    if missing:
        raise InputError(
            f"rank {missing[0]!r} has no size (give --shape {missing[0]}=N)", "--shape"
        )
    unknown = [r for r in shape if r not in ranks]
    if unknown:
        raise InputError(f"rank {unknown[0]!r} does not appear in the einsum", "--shape")
    for r in ranks:
        if shape[r] < 1:
            raise InputError(f"size of {r} must be positive, got {shape[r]}", "--shape")
    ranks = list(shape)  # the user's order
    tensors = [
        BoundTensor(
            ref.tensor, tuple(_coefficients(i, ranks, source, "einsum") for i in ref.indices)
        )
        for ref in einsum.inputs
    ]
    tensors.append(
        BoundTensor(
            einsum.output.tensor,
            tuple(_coefficients(i, ranks, source, "einsum") for i in einsum.output.indices),
            output=True,
        )
    )
    return Problem(name or " ".join(text.split()), ranks, [shape[r] for r in ranks], tensors)


def problem_from_workload(workload: Workload) -> Problem:
    """Ranks and projections derived from a single-statement workload's access relations."""
    source = workload.source
    if len(workload.statements) != 1:
        raise InputError(
            "bounds need a single statement (a chain of einsums is 'tenet fuse')", source
        )
    stmt_set = sets_of(workload.domain)[0]
    n = stmt_set.dim(isl.dim_type.set)
    ranks = [stmt_set.get_dim_name(isl.dim_type.set, k) or f"r{k}" for k in range(n)]
    sizes = []
    for k in range(n):
        low, high = stmt_set.dim_min_val(k).to_python(), stmt_set.dim_max_val(k).to_python()
        if low != 0:
            raise InputError(f"loop {ranks[k]} must start at 0 for bounds", source)
        sizes.append(high + 1)
    box = isl.Set(
        f"{{ {stmt_set.get_tuple_name()}[{', '.join(ranks)}] : "
        + " and ".join(f"0 <= {r} < {s}" for r, s in zip(ranks, sizes))
        + " }"
    )
    if not isl.UnionSet.from_set(box).is_equal(workload.domain):
        raise InputError("bounds need a rectangular iteration domain (a box)", source)
    writes = workload.accesses["write"]
    if len(writes) != 1:
        raise InputError("bounds need exactly one written tensor", source)
    tensors = []
    for side in ("read", "write"):
        for name, rel in workload.accesses[side].items():
            if side == "read" and name in writes:
                continue  # a read of the output is its read-modify-write, counted with it
            maps = maps_of(rel)
            if len(maps) != 1 or len(maps[0].get_basic_maps()) != 1:
                raise InputError(f"bounds need one access per tensor; {name} has several", source)
            tensors.append(
                BoundTensor(name, _projection(maps[0], name, source), output=side == "write")
            )
    return Problem(workload.name, ranks, sizes, tensors)


def _projection(access: isl.Map, name: str, source: str | None) -> tuple[tuple[int, ...], ...]:
    pieces = []
    access.as_pw_multi_aff().foreach_piece(lambda _s, ma: pieces.append(ma))
    dims = []
    for d in range(pieces[0].dim(isl.dim_type.out)):
        aff = pieces[0].get_at(d)
        if aff.dim(isl.dim_type.div):
            raise InputError(f"access to {name} is not affine (floor or mod)", source)
        dims.append(
            tuple(
                aff.get_coefficient_val(isl.dim_type.in_, r).to_python()
                for r in range(aff.dim(isl.dim_type.in_))
            )
        )
    return tuple(dims)


def divisors(n: int) -> list[int]:
    small = [d for d in range(1, int(n**0.5) + 1) if n % d == 0]
    return sorted(set(small + [n // d for d in small]))


@dataclass
class Mapspace:
    """Every (tiling, order) pair: inner factors, outer factors, and the outer order."""

    inner: np.ndarray  # (n, R)
    outer: np.ndarray  # (n, R)
    order: np.ndarray  # (n, R) rank indices outermost first, -1 padded (non-unit loops only)
    position: np.ndarray  # (n, R) position of each rank in the order, R for unit loops

    def __len__(self) -> int:
        return len(self.inner)


def build_mapspace(
    problem: Problem, progress: Callable[[int, int], None] | None = None
) -> Mapspace:
    """All divisor tilings x all orders of their non-unit outer loops."""
    n_ranks = len(problem.ranks)
    grids = np.meshgrid(
        *[np.array(divisors(s), dtype=np.int64) for s in problem.sizes], indexing="ij"
    )
    inner = np.stack([g.reshape(-1) for g in grids], axis=1)
    outer = np.array(problem.sizes, dtype=np.int64)[None, :] // inner
    nonunit = outer > 1
    codes = (nonunit * (1 << np.arange(n_ranks))).sum(axis=1)
    parts_inner, parts_order = [], []
    for done, code in enumerate(range(1 << n_ranks)):
        rows = np.nonzero(codes == code)[0]
        if len(rows):
            members = [r for r in range(n_ranks) if code >> r & 1]
            perms = np.array(list(itertools.permutations(members)), dtype=np.int64)
            perms = perms.reshape(len(perms), len(members))
            orders = np.full((len(perms), n_ranks), -1, dtype=np.int64)
            orders[:, : len(members)] = perms
            parts_inner.append(np.repeat(inner[rows], len(perms), axis=0))
            parts_order.append(np.tile(orders, (len(rows), 1)))
        if progress:
            progress(done + 1, 1 << n_ranks)
    inner = np.concatenate(parts_inner)
    order = np.concatenate(parts_order)
    outer = np.array(problem.sizes, dtype=np.int64)[None, :] // inner
    position = np.full(inner.shape, n_ranks, dtype=np.int64)
    for j in range(n_ranks):
        valid = order[:, j] >= 0
        position[np.nonzero(valid)[0], order[valid, j]] = j
    return Mapspace(inner, outer, order, position)


def tile_words(tensor: BoundTensor, inner: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """Words of each mapping's tile of `tensor`, and its extent per dimension."""
    extents = [
        np.abs(np.array(dim))[None, :].dot((inner - 1).T).reshape(-1) + 1 for dim in tensor.dims
    ]
    return (prod(extents) if extents else np.ones(len(inner), dtype=np.int64)), extents


def transfers(tensor: BoundTensor, space: Mapspace) -> tuple[np.ndarray, np.ndarray]:
    """(tile words, words moved into the buffer) for every mapping.

    Σ over steps of |tile(t) \\ tile(prev t)|: the first tile, then for each position j,
    (F_j - 1)·∏_{i<j} F_i steps where loop j advances and the loops below it wrap.
    """
    n, n_ranks = space.inner.shape
    tile, extents = tile_words(tensor, space.inner)
    moved = tile.copy()
    before = np.ones(n, dtype=np.int64)
    rows = np.arange(n)
    for j in range(n_ranks):
        loop = space.order[:, j]
        valid = loop >= 0
        if not valid.any():
            break
        factor = np.where(valid, space.outer[rows, np.maximum(loop, 0)], 1)
        # Δr1 per rank: +1 for loop j, -(F - 1) for loops below it (they wrap), 0 above.
        delta = np.where(space.position > j, -(space.outer - 1), 0)
        delta[rows, np.maximum(loop, 0)] = np.where(valid, 1, delta[rows, np.maximum(loop, 0)])
        overlap = np.ones(n, dtype=np.int64)
        for dim, extent in zip(tensor.dims, extents):
            shift = (delta * space.inner * np.array(dim)[None, :]).sum(axis=1)
            overlap *= np.maximum(0, extent - np.abs(shift))
        moved += np.where(valid, (factor - 1) * before * (tile - overlap), 0)
        before *= factor
    return tile, moved


@dataclass
class BoundResult:
    problem: Problem
    bypass: bool
    buffer: np.ndarray
    accesses: np.ndarray
    space: Mapspace
    kept: np.ndarray  # (n, tensors) bool
    front: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @property
    def mappings(self) -> int:
        return len(self.buffer)


def evaluate(
    problem: Problem, bypass: bool = False, progress: Callable[[int, int], None] | None = None
) -> BoundResult:
    """Buffer requirement and backing-store accesses of every mapping, and the front.

    `progress(done, total)` counts the steps: the mapspace, each tensor's transfers, each
    keep/bypass choice and the front."""
    choices = (
        list(itertools.product([True, False], repeat=len(problem.tensors)))
        if bypass
        else [(True,) * len(problem.tensors)]
    )
    steps = 1 + len(problem.tensors) + len(choices) + 1
    done = 0

    def step() -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, steps)

    if progress:
        progress(0, steps)
    space = build_mapspace(problem)
    step()
    tiles, moved = [], []
    for tensor in problem.tensors:
        tile, words = transfers(tensor, space)
        if tensor.output:
            words = 2 * words - problem.size(tensor)  # read-modify-write, first read skipped
        tiles.append(tile)
        moved.append(words)
        step()
    tiles_arr, moved_arr = np.stack(tiles, axis=1), np.stack(moved, axis=1)
    bypass_cost = np.array(
        [problem.ops() if t.output else problem.macs for t in problem.tensors], dtype=np.int64
    )
    buffers, accesses, kept = [], [], []
    for choice in choices:
        keep = np.array(choice)
        buffers.append((tiles_arr * keep).sum(axis=1))
        accesses.append((moved_arr * keep).sum(axis=1) + int((bypass_cost * ~keep).sum()))
        kept.append(np.repeat(keep[None, :], len(space), axis=0))
        step()
    result = BoundResult(
        problem,
        bypass,
        np.concatenate(buffers),
        np.concatenate(accesses),
        space,
        np.concatenate(kept),
    )
    result.front = pareto_front(result.buffer, result.accesses)
    step()
    return result


def pareto_front(buffer: np.ndarray, accesses: np.ndarray) -> np.ndarray:
    """Indices of the ski slope: least accesses per buffer size, strictly falling."""
    order = np.lexsort((accesses, buffer))
    best = np.minimum.accumulate(accesses[order])
    falls = np.ones(len(order), dtype=bool)
    falls[1:] = best[1:] < best[:-1]
    keep = order[falls & (accesses[order] == best)]
    return keep


def mapping_text(result: BoundResult, index: int) -> dict[str, Any]:
    """Tiles, order and kept tensors of one mapping (index into the evaluated arrays)."""
    problem, space = result.problem, result.space
    row = index % len(space)
    ranks = problem.ranks
    tiles = {r: int(space.inner[row, k]) for k, r in enumerate(ranks)}
    order = [ranks[k] for k in space.order[row].tolist() if k >= 0]
    kept = [t.name for t, keep in zip(problem.tensors, result.kept[index]) if keep]
    bypassed = [t.name for t, keep in zip(problem.tensors, result.kept[index]) if not keep]
    loops = " ".join(f"{r}1={problem.sizes[ranks.index(r)] // tiles[r]}" for r in order) or "(none)"
    text = f"outer {loops} | tile " + " ".join(f"{r}0={tiles[r]}" for r in ranks)
    if bypassed:
        text += " | bypass " + ",".join(bypassed)
    return {"mapping": text, "tiles": tiles, "order": order, "kept": kept}


def front_of(result: BoundResult) -> Front:
    """The Snowcat front of `evaluate`, each point with its mapping text and, as detail,
    its tiles per rank, outer order and kept tensors."""
    points = []
    for i in result.front.tolist():
        detail = mapping_text(result, i)
        text = detail.pop("mapping")
        points.append(FrontPoint(int(result.buffer[i]), int(result.accesses[i]), text, detail))
    return Front(tuple(points))


def word_count(text: str, word_bits: int, flag: str = "--at") -> int:
    """'1MiB', '512KB', '4096' (words) -> words; errors name `flag`."""
    return size_in_words(text, word_bits, flag, None)


def area_split(
    front: list[dict[str, Any]],
    word_bytes: float,
    area_mm2: float,
    mac_area_um2: float,
    byte_area_um2: float,
    bandwidth_gbps: float,
    clock_ghz: float,
) -> dict[str, Any]:
    """Best split of a fixed area between buffer and MACs: throughput = min(compute, OI·BW)."""
    total = area_mm2 * 1e6
    options = []
    for p in front:
        buffer_area = p["buffer"] * word_bytes * byte_area_um2
        if buffer_area >= total:
            break
        macs = int((total - buffer_area) // mac_area_um2)
        gops = min(2 * macs * clock_ghz, p["oi"] * bandwidth_gbps)
        options.append(
            {
                "buffer": p["buffer"],
                "buffer_bytes": p["buffer"] * word_bytes,
                "macs": macs,
                "buffer_share": buffer_area / total,
                "gops": gops,
            }
        )
    if not options:
        raise InputError("the area cannot hold even the smallest buffer on the front", "--area-mm2")
    best = max(options, key=lambda o: o["gops"])
    return {"best": best, "curve": options}


def area_constants(
    components: Any,
    node_nm: int | None,
    word_bits: int,
    mac_area_um2: float | None = None,
    byte_area_um2: float | None = None,
) -> dict[str, dict[str, Any]] | None:
    """The MAC area and the buffer area per byte of the area split, each `{value, unit,
    source}`: a flag's value when given, else the arch's components (the MAC's area; the
    scratchpad's area over its size in bytes), else the built-in library at `node_nm`
    (a word_bits MAC; the SRAM fit's area per byte). None when one of them is unknown."""
    from tenet.model.components import mac_values, sram_byte_area_um2

    def entry(value: Any, source: str) -> dict[str, Any]:
        return {"value": float(value), "unit": "um2", "source": source}

    mac = byte = None
    if components is not None:
        mac = entry(components.mac_area_um2.value, components.mac_area_um2.source)
        size = components.scratchpad_size_bytes.value
        byte = entry(
            components.scratchpad_area_um2.value / size,
            f"scratchpad area / {int(size)} B: {components.scratchpad_area_um2.source}",
        )
    elif node_nm is not None:
        quantity = mac_values(node_nm, word_bits)["mac_area_um2"]
        mac = entry(quantity.value, quantity.source)
        byte = entry(
            sram_byte_area_um2(node_nm),
            f"SRAM fit area per byte at {node_nm} nm (docs/components.md)",
        )
    if mac_area_um2:
        mac = entry(mac_area_um2, "--mac-area-um2")
    if byte_area_um2:
        byte = entry(byte_area_um2, "--byte-area-um2")
    if mac is None or byte is None:
        return None
    return {"mac_area_um2": mac, "byte_area_um2": byte}


def fused_area_split(
    report: dict[str, Any],
    area_mm2: float,
    constants: dict[str, dict[str, Any]],
    bandwidth_gbps: float,
    clock_ghz: float,
) -> dict[str, Any]:
    """The best area split of the unfused front and of the fused one (the best
    segmentation, else tiled fusion) of a `tenet fuse` report, and their ratios."""
    word_bytes = report["word_bits"] / 8
    mac = constants["mac_area_um2"]["value"]
    byte = constants["byte_area_um2"]["value"]
    fused_key = "best_segmentation" if report.get("best_segmentation") else "tiled"
    out: dict[str, Any] = {
        "area_mm2": area_mm2,
        "word_bits": report["word_bits"],
        "fused_front": fused_key,
        **constants,
    }
    for name, key in (("unfused", "unfused"), ("fused", fused_key)):
        front = [p for p in report[key] if p.get("oi")]
        out[name] = area_split(front, word_bytes, area_mm2, mac, byte, bandwidth_gbps, clock_ghz)
    unfused, fused = out["unfused"]["best"], out["fused"]["best"]
    out["buffer_area_ratio"] = (
        fused["buffer_share"] / unfused["buffer_share"] if unfused["buffer_share"] else None
    )
    out["throughput_ratio"] = fused["gops"] / unfused["gops"] if unfused["gops"] else None
    return out


def bound_at_capacity(workload: Workload, arch: Arch, analysis: Analysis) -> dict[str, Any]:
    """The least traffic over Snowcat mappings at the array's on-chip capacity next to the
    dataflow's scratchpad traffic counted the same way (unique fetches of inputs; 2W - |O|
    for the output, whose partial sums are written W times and read back W - |O| times),
    and their ratio (a comparison with the Snowcat front, not an optimality gap)."""
    capacity = arch.pe_count * arch.memory.l1_words + arch.memory.l2_words
    problem = problem_from_workload(workload)
    point = snowcat_at(problem, capacity)
    # Charged like the front: inputs once per fetch, outputs read-modify-write (2W - |O|).
    traffic = 0
    for tensor in problem.tensors:
        sides = analysis.volumes[tensor.name]
        if tensor.output:
            traffic += 2 * sides["write"].unique - problem.size(tensor)
        else:
            traffic += sides["read"].unique
    return {
        "capacity_words": capacity,
        "accesses": point.accesses if point else None,
        "mapping": point.mapping if point else None,
        "dataflow_traffic": traffic,
        "ratio": traffic / point.accesses if point and point.accesses else None,
    }


def hierarchy_report(
    front: Front,
    levels,
    word_bits: int,
    macs: int,
    macs_per_cycle: float | None = None,
    clock_ghz: float = 1.0,
) -> dict[str, Any]:
    """For each pair of adjacent levels (innermost first): the Snowcat front probed at the
    inner level's capacity, the time that traffic takes at the outer level's bandwidth, and the
    bottleneck (compute counts too when --macs-per-cycle is given)."""
    word_bytes = word_bits / 8
    pairs = []
    for inner, outer in itertools.pairwise(levels):
        point = front.at(inner.capacity_words)
        accesses = point.accesses if point else None
        seconds = accesses * word_bytes / (outer.bandwidth_gbps * 1e9) if point else None
        pairs.append(
            {
                "inner": inner.name,
                "outer": outer.name,
                "capacity_words": inner.capacity_words,
                "accesses": accesses,
                "bytes": accesses * word_bytes if point else None,
                "bandwidth_gbps": outer.bandwidth_gbps,
                "seconds": seconds,
                "mapping": point.mapping if point else None,
            }
        )
    report: dict[str, Any] = {"levels": pairs}
    times = {
        f"{p['inner']} <-> {p['outer']}": p["seconds"] for p in pairs if p["seconds"] is not None
    }
    if macs_per_cycle:
        report["compute_seconds"] = macs / (macs_per_cycle * clock_ghz * 1e9)
        times["compute"] = report["compute_seconds"]
    report["bottleneck"] = max(times, key=times.get) if times else None
    return report


# --- the Snowcat front without materializing the mapspace -------------------------------------
#
# `evaluate` costs every (tiling, order) pair: n! orders per tiling, millions of rows for a
# real convolution. Two facts make that unnecessary, exactly:
#
# 1. For one tiling and keep choice, every order needs the same buffer (Σ kept tiles), so only
#    an order with the least accesses can be on the front; of orders with equal accesses the
#    first in `build_mapspace`'s order (itertools.permutations: lexicographic) is the one
#    `pareto_front` keeps.
# 2. `transfers` charges loop j of an order (F_j - 1) · before_j · (tile - overlap_j): before_j
#    is ∏ F over the loops outside j, i.e. P / (F_j · ∏_{q inside j} F_q) with P = ∏_r F_r,
#    and overlap_j depends only on the shift Δ (+1 on j's rank, -(F_q - 1) on every rank q
#    inside j). So each loop costs g(rank, set of ranks inside it), an order costs the sum of
#    its loops' g, and the least over orders is a shortest path over subsets of ranks:
#    best(S) = min_{r in S} g(r, S - r) + best(S - r), best(∅) = 0 (2^n states, n·2^(n-1)
#    edges, not n! orders). Unit loops (F = 1) cost 0 and shift nothing, so the subsets may
#    range over every rank. The lexicographically first optimal order is rebuilt greedily,
#    outermost first: the smallest non-unit r with g(r, S - r) + best(S - r) = best(S).
#
# Front and lookups then compare one candidate per (keep choice, tiling) by (buffer, accesses,
# then `evaluate`'s row index: keep choice, code of non-unit ranks, tiling's flat index), which
# is the order in which `pareto_front` breaks ties. tests/bounds/test_snowcat_fast.py checks
# fronts, mappings and lookups against `evaluate` on random small problems.


def count_dtype(problem: Problem) -> Any:
    """int64 when no count or partial product of a search can reach 2^62, else exact Python
    ints (object arrays).

    A tile is a box of ∏_d (Σ_r |a_dr| (f_r - 1) + 1) words; when no rank is in two dims of
    the tensor this is at most ∏_d (Σ_r |a_dr| + 1) ∏_{r of X} f_r, so a tile times the
    number of tile steps (∏_r F_r) is at most that constant times the MACs (else the tile is at
    most ∏_d (Σ_r |a_dr| R_r + 1), times MACs steps). Every charge and partial product of a
    search is below such a value; an output counts twice, a bypassed tensor at most 2 MACs."""
    bound = 0
    for t in problem.tensors:
        ranks = [r for dim in t.dims for r, a in enumerate(dim) if a]
        if len(ranks) == len(set(ranks)):
            factor = prod(sum(abs(a) for a in dim) + 1 for dim in t.dims)
        else:
            factor = prod(sum(abs(a) * s for a, s in zip(dim, problem.sizes)) + 1 for dim in t.dims)
        bound += (2 * factor + 2) * problem.macs
    return np.int64 if bound < 2**62 else object


@dataclass
class _Tilings:
    """Every perfect tiling (meshgrid of divisors, C order): inner and outer factors per rank,
    and the code of its non-unit outer loops (bit r set when F_r > 1)."""

    inner: np.ndarray
    outer: np.ndarray
    code: np.ndarray

    def __len__(self) -> int:
        return len(self.inner)


def _tilings(problem: Problem) -> _Tilings:
    n = len(problem.ranks)
    grids = np.meshgrid(
        *[np.array(divisors(s), dtype=np.int64) for s in problem.sizes], indexing="ij"
    )
    inner = np.stack([g.reshape(-1) for g in grids], axis=1).reshape(-1, n)
    outer = np.array(problem.sizes, dtype=np.int64)[None, :] // inner
    code = ((outer > 1) * (1 << np.arange(n))).sum(axis=1)
    return _Tilings(inner, outer, code)


def _choices(problem: Problem, bypass: bool) -> list[tuple[bool, ...]]:
    """Keep choices in `evaluate`'s order (keep every tensor first)."""
    if not bypass:
        return [(True,) * len(problem.tensors)]
    return list(itertools.product([True, False], repeat=len(problem.tensors)))


def _bits(mask: int, n: int) -> list[int]:
    return [r for r in range(n) if mask >> r & 1]


def least_order_accesses(
    problem: Problem, inner: np.ndarray, outer: np.ndarray, weights: list[tuple[int, ...]]
) -> list[np.ndarray]:
    """For each weight vector w (per tensor: 0 bypassed, 1 input, 2 output) and each tiling,
    min over orders of Σ_X w_X (moved_X - tile_X): the subset shortest path above."""
    n = len(problem.ranks)
    dtype = count_dtype(problem)
    inner = inner.astype(dtype)
    outer = outer.astype(dtype)
    rows = len(inner)
    total = prod((outer[:, r] for r in range(n)), start=np.ones(rows, dtype=dtype))
    needed = [k for k in range(len(problem.tensors)) if any(w[k] for w in weights)]
    tiles, extents, wraps = {}, {}, {}
    for k in needed:
        tensor = problem.tensors[k]
        ext = [
            1 + sum(abs(a) * (inner[:, r] - 1) for r, a in enumerate(dim) if a)
            for dim in tensor.dims
        ]
        extents[k] = [np.broadcast_to(np.asarray(e, dtype=dtype), (rows,)) for e in ext]
        tiles[k] = prod(extents[k], start=np.ones(rows, dtype=dtype))
        # shift of a dim when rank q wraps: -a_dq · inner_q · (F_q - 1)
        wraps[k] = [
            [dim[q] * inner[:, q] * (outer[:, q] - 1) for q in range(n)] for dim in tensor.dims
        ]
    zero = np.zeros(rows, dtype=dtype)
    best: list[list[Any]] = [[None] * (1 << n) for _ in weights]
    for w in range(len(weights)):
        best[w][0] = zero
    for inside in range(1 << n):
        members = _bits(inside, n)
        shifted = {
            k: [sum((wraps[k][d][q] for q in members), start=zero) for d in range(len(wraps[k]))]
            for k in needed
        }
        held = prod((outer[:, q] for q in members), start=np.ones(rows, dtype=dtype))
        for r in range(n):
            if inside >> r & 1:
                continue
            factor = (outer[:, r] - 1) * (total // (outer[:, r] * held))
            charge = {}
            for k in needed:
                overlap = np.ones(rows, dtype=dtype)
                for d, dim in enumerate(problem.tensors[k].dims):
                    shift = dim[r] * inner[:, r] - shifted[k][d]
                    overlap = overlap * np.maximum(0, extents[k][d] - np.abs(shift))
                charge[k] = factor * (tiles[k] - overlap)
            grown = inside | 1 << r
            for w, weight in enumerate(weights):
                value = best[w][inside] + sum(
                    (weight[k] * charge[k] for k in needed if weight[k]), start=zero
                )
                current = best[w][grown]
                best[w][grown] = value if current is None else np.minimum(current, value)
    return [best[w][(1 << n) - 1] for w in range(len(weights))]


def _edge(
    problem: Problem,
    inner: list[int],
    outer: list[int],
    weight: tuple[int, ...],
    r: int,
    inside: int,
) -> int:
    """g(r, inside) of one tiling in exact Python ints (the charge of a loop of rank r with the
    ranks of `inside` inside it), weighted per tensor."""
    n = len(problem.ranks)
    total = prod(outer)
    held = prod(outer[q] for q in _bits(inside, n))
    factor = (outer[r] - 1) * (total // (outer[r] * held))
    charge = 0
    for tensor, w in zip(problem.tensors, weight):
        if not w:
            continue
        extents = [sum(abs(a) * (f - 1) for a, f in zip(dim, inner)) + 1 for dim in tensor.dims]
        overlap = 1
        for dim, extent in zip(tensor.dims, extents):
            shift = dim[r] * inner[r] - sum(
                dim[q] * inner[q] * (outer[q] - 1) for q in _bits(inside, n)
            )
            overlap *= max(0, extent - abs(shift))
        charge += w * factor * (prod(extents) - overlap)
    return charge


def best_order(
    problem: Problem, inner: list[int], weight: tuple[int, ...]
) -> tuple[list[int], int]:
    """The lexicographically first order of the non-unit outer loops (rank indices, outermost
    first) with the least Σ_X w_X (moved_X - tile_X), and that least value (exact ints)."""
    n = len(problem.ranks)
    outer = [s // f for s, f in zip(problem.sizes, inner)]
    best: dict[int, int] = {0: 0}
    for inside in range(1 << n):
        for r in range(n):
            if inside >> r & 1:
                continue
            value = best[inside] + _edge(problem, inner, outer, weight, r, inside)
            grown = inside | 1 << r
            best[grown] = min(best.get(grown, value), value)
    order: list[int] = []
    left = (1 << n) - 1
    while any(outer[r] > 1 for r in _bits(left, n)):
        for r in _bits(left, n):
            rest = left & ~(1 << r)
            if (
                outer[r] > 1
                and _edge(problem, inner, outer, weight, r, rest) + best[rest] == best[left]
            ):
                order.append(r)
                left = rest
                break
    return order, best[(1 << n) - 1]


def _mapping_info(
    problem: Problem, tiles: list[int], order: list[int], keep: tuple[bool, ...]
) -> dict[str, Any]:
    """`mapping_text`'s dictionary of one mapping given by its tiles, order and keep choice."""
    ranks = problem.ranks
    tiles_by = {r: int(t) for r, t in zip(ranks, tiles)}
    order_names = [ranks[k] for k in order]
    kept = [t.name for t, k in zip(problem.tensors, keep) if k]
    bypassed = [t.name for t, k in zip(problem.tensors, keep) if not k]
    loops = (
        " ".join(f"{r}1={problem.sizes[ranks.index(r)] // tiles_by[r]}" for r in order_names)
        or "(none)"
    )
    text = f"outer {loops} | tile " + " ".join(f"{r}0={tiles_by[r]}" for r in ranks)
    if bypassed:
        text += " | bypass " + ",".join(bypassed)
    return {"mapping": text, "tiles": tiles_by, "order": order_names, "kept": kept}


@dataclass
class _Candidates:
    """One candidate per (keep choice, tiling): buffer, least accesses over orders, and the
    keys of `evaluate`'s row index (choice, code, flat tiling index)."""

    tilings: _Tilings
    choices: list[tuple[bool, ...]]
    buffer: np.ndarray
    accesses: np.ndarray
    choice: np.ndarray
    flat: np.ndarray

    def order(self, rows: np.ndarray) -> np.ndarray:
        """`rows` sorted by (buffer, accesses, choice, code, flat)."""
        keys = (
            self.flat[rows],
            self.tilings.code[self.flat[rows]],
            self.choice[rows],
            self.accesses[rows],
            self.buffer[rows],
        )
        return rows[np.lexsort(keys)]

    def point(self, problem: Problem, row: int) -> FrontPoint:
        keep = self.choices[int(self.choice[row])]
        flat = int(self.flat[row])
        tiles = [int(x) for x in self.tilings.inner[flat]]
        weight = tuple((2 if t.output else 1) * k for t, k in zip(problem.tensors, keep))
        order, _ = best_order(problem, tiles, weight)
        detail = _mapping_info(problem, tiles, order, keep)
        text = detail.pop("mapping")
        return FrontPoint(int(self.buffer[row]), int(self.accesses[row]), text, detail)


def _candidates(problem: Problem, bypass: bool, within: int | None = None) -> _Candidates:
    """The per-(choice, tiling) candidates; with `within`, only the tilings whose buffer for
    that choice fits `within` words are costed (buffers do not depend on the order)."""
    tilings = _tilings(problem)
    choices = _choices(problem, bypass)
    dtype = count_dtype(problem)
    inner = tilings.inner.astype(dtype)
    tile = []
    for tensor in problem.tensors:
        ext = [
            1 + sum(abs(a) * (inner[:, r] - 1) for r, a in enumerate(dim) if a)
            for dim in tensor.dims
        ]
        tile.append(prod(ext, start=np.ones(len(inner), dtype=dtype)))
    sizes = [problem.size(t) if t.output else 0 for t in problem.tensors]
    bypass_cost = [problem.ops() if t.output else problem.macs for t in problem.tensors]
    buffers, accesses, choice_ids, flats = [], [], [], []
    for c, keep in enumerate(choices):
        buffer = sum(
            (tile[k] for k in range(len(keep)) if keep[k]), start=np.zeros(len(inner), dtype)
        )
        rows = np.arange(len(inner)) if within is None else np.nonzero(buffer <= within)[0]
        weight = tuple((2 if t.output else 1) * k for t, k in zip(problem.tensors, keep))
        (least,) = least_order_accesses(problem, tilings.inner[rows], tilings.outer[rows], [weight])
        base = sum(
            (weight[k] * tile[k][rows] for k in range(len(keep)) if keep[k]),
            start=np.zeros(len(rows), dtype),
        )
        fixed = sum(sizes[k] for k in range(len(keep)) if keep[k])
        fixed = -fixed + sum(bypass_cost[k] for k in range(len(keep)) if not keep[k])
        buffers.append(buffer[rows])
        accesses.append(base + least + fixed)
        choice_ids.append(np.full(len(rows), c, dtype=np.int64))
        flats.append(rows.astype(np.int64))
    return _Candidates(
        tilings,
        choices,
        np.concatenate(buffers),
        np.concatenate(accesses),
        np.concatenate(choice_ids),
        np.concatenate(flats),
    )


def mapspace_size(problem: Problem, bypass: bool = False) -> int:
    """Mappings of the Snowcat mapspace (`evaluate`'s rows): Σ over tilings of (non-unit
    outer loops)! orders, times the keep choices."""
    tilings = _tilings(problem)
    nonunit = (tilings.outer > 1).sum(axis=1)
    orders = sum(
        int(c) * factorial(int(k)) for k, c in zip(*np.unique(nonunit, return_counts=True))
    )
    return orders * len(_choices(problem, bypass))


def snowcat_front(
    problem: Problem, bypass: bool = False, progress: Callable[[int, int], None] | None = None
) -> tuple[Front, int]:
    """The Snowcat front (`front_of(evaluate(problem, bypass))`, the same points, mappings and
    ties) and the size of the mapspace it covers, by the subset shortest path above. The
    last few fronts are kept (`--compare-spaces` asks for the same one four times)."""
    if progress:
        progress(0, 1)
    key = (tuple(problem.ranks), tuple(problem.sizes), tuple(problem.tensors), bypass)
    front, size = _snowcat_front(key)
    if progress:
        progress(1, 1)
    return front, size


@lru_cache(maxsize=8)
def _snowcat_front(key: tuple) -> tuple[Front, int]:
    ranks, sizes, tensors, bypass = key
    problem = Problem("", list(ranks), list(sizes), list(tensors))
    found = _candidates(problem, bypass)
    order = found.order(np.arange(len(found.buffer)))
    ordered = found.accesses[order]
    best = np.minimum.accumulate(ordered)
    falls = np.ones(len(order), dtype=bool)
    falls[1:] = best[1:] < best[:-1]
    keep = order[falls & (ordered == best)]
    front = Front(tuple(found.point(problem, int(row)) for row in keep.tolist()))
    return front, mapspace_size(problem, bypass)


def snowcat_at(problem: Problem, words: int, bypass: bool = False) -> FrontPoint | None:
    """`front_of(evaluate(problem, bypass)).at(words)`: the least accesses over Snowcat mappings
    whose buffer fits `words` (of those, the smallest buffer, then `evaluate`'s first row),
    costing only the tilings that fit."""
    found = _candidates(problem, bypass, within=words)
    if not len(found.buffer):
        return None
    rows = np.arange(len(found.buffer))
    keys = (
        found.flat,
        found.tilings.code[found.flat],
        found.choice,
        found.buffer,
        found.accesses,
    )
    first = int(rows[np.lexsort(keys)][0])
    return found.point(problem, first)
