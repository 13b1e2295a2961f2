"""GLB tile sizes in the search (docs/dse.md, "Tile sizes: `explore_tile_sizes`").

`tenet dse` splits each loop once, by the array, so a GLB tile is a prefix of its time stamp
and its extents are fixed. Here every loop `x` of extent `N_x` is split three ways: an outer
coordinate `floor(x/T_x)` (when `Q_x = ceil(N_x/T_x) > 1`), a coordinate inside the GLB tile, and,
for the two spatial loops, the PE coordinate `x % P`. A design is

* the spatial loops `s0, s1` (on PE axes 0 and 1; `P | T_s`, or `T_s = N_s` when P does not
  divide N_s, whose last block of PEs is then narrower);
* the GLB tile extents `T_x` (divisors of `N_x`; with `imperfect`, any, the last tile
  shorter);
* the order of the outer coordinates (the loops with `Q_x > 1`, outermost first);
* the innermost loop `r` of the GLB tile (a temporal loop), skewed by both PE coordinates:
  the last time coordinate is `x_r % T_r + s0 % P_0 + s1 % P_1`.

The time stamp is `T[outer..., inner..., innermost]` and `tiles: {GLB: d}` with `d` the number
of outer coordinates, so `analyze` reads a design as it reads any dataflow.

Every count the search ranks by is a closed form in the tile sizes (exact Python ints, checked
against barvinok in tests/explore/test_tile_sizes.py): the array side follows from which of
`s0`, `s1`, `r` each tensor depends on (one *run* of the innermost loop is the same on every
value of the other coordinates but its length, and no reuse crosses runs), the GLB <-> DRAM
traffic from the rule of docs/levels.md applied to the box footprints of consecutive tiles. Every front member is
counted again by plain `analyze`.
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
import time as clock
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from tenet.bounds.snowcat import divisors, problem_from_workload, snowcat_at
from tenet.errors import InputError
from tenet.explore.dram_bound import dram_against_snowcat
from tenet.explore.dse import TIME_LIMIT, DseResult, FrontEntry, pareto_indices
from tenet.explore.stopping import Stopper, stopping
from tenet.explore.tile_counts import (  # the closed forms; callers import them here too
    Prices,
    _axis_blocks,
    _boundary,
    _capacity,
    actions_energy,
    array_actions,
    energy_pj,
    footprint,
    glb_traffic,
    latency_cycles,
    priced,
    prices_of,
    time_steps,
)
from tenet.explore.tile_space import (
    ARRAY_OBJECTIVES,
    LIMIT,
    TILE_SIZE_OBJECTIVES,
    TiledDesign,
    TileProblem,
    dataflow_of,
    flattened,
    notation,
    space_text,
    tile_problem,
    time_text,
)
from tenet.model.arch import Arch
from tenet.model.metrics import Analysis, analyze
from tenet.model.workload import Workload


def _tile_choices(
    problem: TileProblem, spatial: tuple[str, str], imperfect: bool = False
) -> list[list[int]]:
    """Per loop, the extents T_x tried: divisors of N_x; on a spatial loop the multiples of
    its axis' P, or N_x alone when P does not divide it (its last block is narrower). With
    `imperfect`, the least T_x of each number of tiles Q_x = ceil(N_x / T_x) (a larger T_x
    with the same Q_x only grows the tiles), multiples of P on a spatial loop, and N_x."""
    sizes = {spatial[0]: problem.rows, spatial[1]: problem.cols}
    out = []
    for x in problem.loops:
        n, p = problem.extents[x], sizes.get(x, 1)
        if imperfect:
            least: dict[int, int] = {}  # Q -> the least extent (a multiple of p) giving it
            for t in range(p, n + 1, p):
                least.setdefault(-(-n // t), t)
            out.append(sorted(set(least.values()) | {n}))
        else:
            out.append([t for t in divisors(n) if t % p == 0] if n % p == 0 else [n])
    return out


def separable(problem: TileProblem, spatial: tuple[str, str], innermost: str) -> bool:
    """Whether the closed forms of `array_actions` hold for these spatial and innermost
    loops: r is temporal; no index holds two of s0, s1 and r (a sliding index `ox + rx` over
    the skewed PEs meets the same word on a diagonal); the blocks do not include a single PE
    (its run would hand its words to the next run's first step); and an output that does not
    depend on s0 has one block width on axis 0 (its partial sums leave at one row)."""
    if innermost in spatial:
        return False
    chosen = {*spatial, innermost}
    if any(len(chosen & set(dim)) > 1 for t in problem.tensors for dim in t.dims):
        return False
    widths0 = {w for _, w in _axis_blocks(problem.extents[spatial[0]], problem.rows)}
    widths1 = {w for _, w in _axis_blocks(problem.extents[spatial[1]], problem.cols)}
    if 1 in widths0 and 1 in widths1:
        return False
    output = next(t for t in problem.tensors if t.output)
    return spatial[0] in output.loops() or len(widths0) == 1


def spatial_pairs(problem: TileProblem) -> list[tuple[str, str]]:
    """Ordered pairs of distinct loops of extent > 1 (for axis 0, axis 1)."""
    loops = [x for x in problem.loops if problem.extents[x] > 1]
    return list(itertools.permutations(loops, 2))


@dataclass
class _Scored:
    vector: tuple[float, ...]
    design: TiledDesign


@dataclass
class TileSizeResult(DseResult):
    """`DseResult` of a tile-size search, with per front member its closed-form objective
    values (None for a `flat` design, counted by `analyze` alone) and its DRAM words over
    the Snowcat front at the GLB's capacity (`dram_vs_capacity_bound`; each entry's
    `dram_vs_bound` is dse's, at the buffer its tiles need, `capacity_needed_single`), and
    whether `limit`, `time_limit` or Ctrl-C stopped the search before it visited every tile
    vector (`stopped_by`: `LIMIT`, `TIME_LIMIT` or `INTERRUPT`, and `complete` False, as
    `DseResult` says it)."""

    closed_forms: list[dict[str, Any] | None] = field(default_factory=list)
    dram_vs_capacity_bound: list[float | None] = field(default_factory=list)
    snowcat_words: int | None = None
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        ratios = self.dram_vs_capacity_bound
        for entry, closed, ratio in zip(out["pareto"], self.closed_forms, ratios):
            entry["closed_form"] = closed
            entry["dram_vs_capacity_bound"] = ratio
        out["snowcat_words"] = self.snowcat_words
        return out


def designs(problem: TileProblem, imperfect: bool = False) -> Iterator[TiledDesign]:
    """Every design (spatial pair × tile extents × innermost × outer order), unpruned; the
    outer coordinates need at least one loop with Q_x > 1 (a GLB tile depth ≥ 1)."""
    for spatial in spatial_pairs(problem):
        for tile in itertools.product(*_tile_choices(problem, spatial, imperfect)):
            yield from _designs_of(problem, spatial, tile)


def _designs_of(
    problem: TileProblem, spatial: tuple[str, str], tile: Sequence[int]
) -> Iterator[TiledDesign]:
    pairs = tuple(zip(problem.loops, tile))
    tiled = [x for x, t in pairs if problem.extents[x] > t]
    if not tiled:
        return
    for r in problem.loops:
        if not separable(problem, spatial, r):
            continue
        for outer in itertools.permutations(tiled):
            yield TiledDesign(spatial, pairs, tuple(outer), r)


def explore_tile_sizes(
    workload: Workload,
    arch: Arch,
    objectives: Sequence[str] = ("energy_pj",),
    jobs: int = 1,
    imperfect: bool = False,
    limit: int | None = None,
    time_limit: float | None = None,
    stop_on_interrupt: bool = False,
) -> TileSizeResult:
    """The Pareto front of GLB tile sizes, spatial loops, outer orders and innermost loops,
    ranked by closed forms and pruned with lower bounds, each member counted again by plain
    `analyze` (its objective values are analyze's). With `stop_on_interrupt`, Ctrl-C (SIGINT)
    during the ranking stops it as `limit` and `time_limit` do: the front is that of the
    tile vectors visited, re-checked all the same, and `stopped_by` is `INTERRUPT`."""
    started = clock.monotonic()
    unknown = [o for o in objectives if o not in TILE_SIZE_OBJECTIVES]
    if unknown:
        raise InputError(
            f"the tile-size search ranks by {', '.join(TILE_SIZE_OBJECTIVES)}; not {unknown[0]}",
            option="objectives",
        )
    problem = tile_problem(workload, arch)
    prices = prices_of(arch, problem) if "energy_pj" in objectives else None
    with stopping(None, stop_on_interrupt) as stopper:
        front, counts = _search(
            problem, prices, tuple(objectives), limit, time_limit, started, imperfect, stopper
        )
    flats = [f for s in sorted(front, key=lambda s: s.vector) for f in flattened(problem, s.design)]
    flats = flats[:FLAT_VARIANTS]
    entries, closed = _recheck(workload, arch, problem, front, objectives, jobs, flats)
    bound = snowcat_at(problem_from_workload(workload), problem.capacity)
    snowcat_words = bound.accesses if bound is not None else None
    ratios = [
        None if snowcat_words in (None, 0) else entry.analysis.dram_words() / snowcat_words
        for entry in entries
    ]
    return TileSizeResult(
        workload=workload.name,
        arch=arch.name,
        objectives=tuple(objectives),
        candidates=counts.candidates,
        evaluated=counts.evaluated,
        legal=counts.evaluated,
        pruned=counts.pruned,
        skipped=0,
        ties=0,
        pareto=entries,
        closed_forms=closed,
        dram_vs_capacity_bound=ratios,
        snowcat_words=snowcat_words,
        stopped_by=counts.stopped_by,
        distinct=counts.candidates,
        seconds=clock.monotonic() - started,
    )


#: The most flat variants of the front's members counted by `analyze` (first members first).
FLAT_VARIANTS = 12


def _search(
    problem: TileProblem,
    prices: Prices | None,
    objectives: tuple[str, ...],
    limit: int | None,
    time_limit: float | None,
    started: float,
    imperfect: bool = False,
    stopper: Stopper | None = None,
) -> tuple[list[_Scored], SearchCounts]:
    """Best first over tile vectors, by their lower bounds (`_tile_vectors`); a vector whose
    bounds some front member reaches on every objective cannot improve the front and is
    skipped. Within a vector the array side depends only on (spatial, r) and the boundary
    only on the outer order, so the designs are the pairs of their two fronts. A stop that
    `stopper` received (Ctrl-C) ends the search before the next vector."""
    vectors = _tile_vectors(problem, prices, objectives, imperfect)
    front: list[_Scored] = []
    counts = SearchCounts()
    counts.candidates = sum(len(c) * math.factorial(_tiled(problem, t)) for _, t, c in vectors)
    for floors, tile, choices in vectors:
        designs_here = len(choices) * math.factorial(_tiled(problem, tile))
        if limit is not None and counts.evaluated >= limit:
            counts.stopped_by = LIMIT
            break
        if time_limit is not None and clock.monotonic() - started > time_limit:
            counts.stopped_by = TIME_LIMIT
            break
        if stopper is not None and stopper.reason is not None:
            counts.stopped_by = stopper.reason
            break
        if _dominated(front, floors):
            counts.pruned += designs_here
            continue
        counts.evaluated += designs_here
        orders = _order_front(problem, tile, prices, objectives)
        for spatial, r, array_energy, array_values in choices:
            for boundary_energy, words, outer in orders:
                energy = array_energy + boundary_energy
                vector = _vector(objectives, energy, words, array_values)
                if _dominated(front, vector):
                    continue
                front = [f for f in front if not _covers(vector, f.vector)]
                front.append(_Scored(vector, TiledDesign(spatial, tile, outer, r)))
    return front, counts


@dataclass
class SearchCounts:
    """Designs whose tiles fit the GLB alone (`candidates`), those of the tile vectors whose
    counts were formed (`evaluated`) and of those skipped by their floors (`pruned`); whether
    why the search stopped before it visited every tile vector (`stopped_by`, None if not)."""

    candidates: int = 0
    evaluated: int = 0
    pruned: int = 0
    stopped_by: str | None = None


def _tiled(problem: TileProblem, tile: tuple[tuple[str, int], ...]) -> int:
    """The outer coordinates of a tile vector: loops with Q_x > 1."""
    return sum(1 for x, t in tile if problem.extents[x] > t)


def _vector(
    objectives: tuple[str, ...], energy: float, words: int, array_values: dict[str, int]
) -> tuple[float, ...]:
    values = {"energy_pj": energy, "dram": float(words)}
    return tuple(float(array_values[n]) if n in array_values else values[n] for n in objectives)


def _covers(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """a is no worse than b on every objective."""
    return all(x <= y for x, y in zip(a, b))


def _dominated(front: list[_Scored], vector: tuple[float, ...]) -> bool:
    return any(_covers(f.vector, vector) for f in front)


def _order_front(
    problem: TileProblem,
    tile: tuple[tuple[str, int], ...],
    prices: Prices | None,
    objectives: tuple[str, ...],
) -> list[tuple[float, int, tuple[str, ...]]]:
    """The outer orders of one tile vector that fit the GLB and that no other fitting order
    beats on both boundary energy and DRAM words: (boundary pJ, words, order), by pJ.
    The capacity is computed only for the orders that would join."""
    extents = dict(tile)
    q = {x: -(-problem.extents[x] // t) for x, t in tile}
    tiled = [x for x, _ in tile if q[x] > 1]
    rows = []
    for outer in itertools.permutations(tiled):
        boundary = _boundary(problem, extents, outer, q)
        energy = 0.0
        if prices is not None:
            energy = sum(
                r * prices.fill_float + w * prices.back_float for r, w in boundary.tensors.values()
            )
        rows.append((energy, boundary.words, outer, boundary))
    rows.sort(key=lambda row: (row[0], row[1]))
    wants_words = "dram" in objectives
    out: list[tuple[float, int, tuple[str, ...]]] = []
    least_words: int | None = None
    for energy, words, outer, boundary in rows:
        if least_words is not None and words >= least_words:
            continue
        if _capacity(problem, outer, q, boundary) > problem.capacity:
            continue
        out.append((energy, words, outer))
        least_words = words
        if not wants_words:
            break
    return out


def _tile_vectors(
    problem: TileProblem,
    prices: Prices | None,
    objectives: tuple[str, ...],
    imperfect: bool = False,
) -> list[tuple[tuple[float, ...], tuple[tuple[str, int], ...], list[tuple]]]:
    """Each tile vector that some (spatial pair, innermost loop) allows and whose tiles fit
    alone (Σ_X |F_X| <= capacity, needed by every order): its lower bounds, itself, and its
    (spatial, r, array pJ, time steps) choices, best first. The bounds: the least array pJ
    plus every touched element moved once (inputs read, the output written once: docs/dse.md
    proves `dram` >= Σ_X |X|), Σ_X |X| words, the least time steps. Sorted by the bounds."""
    compulsory = sum(problem.sizes.values())
    output = next(t.name for t in problem.tensors if t.output)
    least_boundary = 0.0
    if prices is not None:
        inputs = compulsory - problem.sizes[output]
        least_boundary = inputs * prices.fill_float + problem.sizes[output] * prices.back_float
    arrays: dict[tuple[tuple[str, str], str, int], tuple[float, int]] = {}
    by_tile: dict[tuple[tuple[str, int], ...], list[tuple]] = {}
    for spatial in spatial_pairs(problem):
        for extents in itertools.product(*_tile_choices(problem, spatial, imperfect)):
            tile = tuple(zip(problem.loops, extents))
            if all(problem.extents[x] == t for x, t in tile):
                continue  # one tile: no outer coordinate, no tile depth
            fits = sum(footprint(t, dict(tile)) for t in problem.tensors) <= problem.capacity
            if not fits:
                continue
            for r in problem.loops:
                if not separable(problem, spatial, r):
                    continue
                key = (spatial, r, dict(tile)[r])
                if key not in arrays:
                    design = TiledDesign(spatial, tile, (), r)
                    energy = 0.0
                    if prices is not None:
                        actions = array_actions(problem, design)
                        energy = float(problem.macs * prices.mac + actions_energy(actions, prices))
                    values = {
                        "time_steps": time_steps(problem, design),
                        "latency": latency_cycles(problem, design),
                    }
                    arrays[key] = (energy, values)
                energy, values = arrays[key]
                by_tile.setdefault(tile, []).append((spatial, r, energy, values))
    out = []
    for tile, choices in by_tile.items():
        choices.sort(key=lambda c: c[2])
        least = {
            "energy_pj": choices[0][2] + least_boundary,
            "dram": float(compulsory),
            **{n: float(min(c[3][n] for c in choices)) for n in ARRAY_OBJECTIVES},
        }
        out.append((tuple(least[name] for name in objectives), tile, choices))
    out.sort(key=lambda row: row[0])
    return out


def _recheck(
    workload: Workload,
    arch: Arch,
    problem: TileProblem,
    front: list[_Scored],
    objectives: Sequence[str],
    jobs: int,
    flats: Sequence[TiledDesign] = (),
) -> tuple[list[FrontEntry], list[dict[str, Any] | None]]:
    """Each front member counted by plain `analyze` (on `jobs` processes), sorted by the
    objectives; its closed-form values kept beside it. `flats` (designs without closed
    forms, the front members' `flattened` variants) are counted beside them, and the front
    is that of every design counted."""
    front = sorted(front, key=lambda s: s.vector)
    designs_counted = [s.design for s in front] + list(flats)
    names = [f"dse-{k + 1:03d}" for k in range(len(designs_counted))]
    tasks = list(zip(designs_counted, names))
    _SHARED[:] = [workload, arch, problem]
    try:
        if jobs > 1 and len(tasks) > 1:
            context = multiprocessing.get_context("fork")
            with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
                records = list(pool.map(_analyze_design, tasks))
        else:
            records = [_analyze_design(t) for t in tasks]
    finally:
        _SHARED.clear()
    analyses = [
        Analysis.from_dict(r["analysis"], arch, r["stamps"], exact_cost=r.get("cost"))
        for r in records
    ]
    entries: list[FrontEntry] = []
    closed: list[dict[str, Any] | None] = []
    snowcat: dict[int, Any] = {}  # Snowcat's least words per buffer, shared by the members
    vectors = [s.vector for s in front] + [None] * len(flats)
    for design, vector, analysis in zip(designs_counted, vectors, analyses):
        entries.append(
            FrontEntry(
                analysis,
                notation(design),
                space_text(problem, design),
                time_text(problem, design),
                tuple(objectives),
                {problem.level: len(design.outer)},
                dram_against_snowcat(workload, analysis, snowcat),
            )
        )
        closed.append(
            None if vector is None else dict(zip(objectives, (_plain(v) for v in vector)))
        )
    order = sorted(range(len(entries)), key=lambda k: tuple(entries[k].objective_values().values()))
    keep = pareto_indices([tuple(entries[k].objective_values().values()) for k in order])
    entries = [entries[order[k]] for k in keep]
    closed = [closed[order[k]] for k in keep]
    return entries, closed


def _plain(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


#: (workload, arch, problem) of the re-check in progress: the workers are forked, and isl
#: objects do not pickle.
_SHARED: list[Any] = []


def _analyze_design(task: tuple[TiledDesign, str]) -> dict[str, Any]:
    """`analyze` of one design, as its JSON object (what a worker sends back)."""
    design, name = task
    workload, arch, problem = _SHARED
    dataflow = dataflow_of(problem, design, name)
    analysis = analyze(workload, arch, dataflow, cost=arch.components is not None)
    record = {"analysis": analysis.to_dict(), "stamps": analysis.stamps}
    if analysis.cost is not None:  # the JSON's cost has float lengths: keep the exact counts
        record["cost"] = analysis.cost.to_exact()
    return record


__all__ = [
    "TILE_SIZE_OBJECTIVES",
    "TileProblem",
    "TileSizeResult",
    "TiledDesign",
    "array_actions",
    "dataflow_of",
    "designs",
    "energy_pj",
    "explore_tile_sizes",
    "glb_traffic",
    "latency_cycles",
    "priced",
    "prices_of",
    "tile_problem",
    "time_steps",
]
