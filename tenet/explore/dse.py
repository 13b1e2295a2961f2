"""Design-space exploration: enumerate relation-centric dataflows of one workload on one PE
array, drop the illegal and the equivalent ones, count every metric exactly and keep the
Pareto front of the chosen objectives.

A candidate maps one loop to each PE axis (`PE[a] = x % size_a`), runs the tile coordinates
`floor(x / size_a)` of those loops and the remaining loops in some order as the time stamp,
and may skew the innermost time dimension by the PE coordinates (systolic style). When the arch
has memory levels, each candidate is also tried with every tile depth of the level just inside
the outermost (`tenet.explore.tiling`); one whose tiles do not fit is dropped (over capacity).
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import json
import pickle
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from tenet.analysis.validate import validate
from tenet.errors import InputError, IslLimitError
from tenet.explore.evaluate import (
    BoundBasis,
    bound_values,
    evaluate_chunk,
    shared_work,
    signed_bounds,
)
from tenet.explore.objectives import (
    ADDITIVE_OBJECTIVES,
    COST_HINT,
    COST_OBJECTIVES,
    DEFAULT_OBJECTIVES,
    OBJECTIVES,
    parse_objectives,
)
from tenet.explore.space import (  # the candidate space; callers also import it from here
    Candidate,
    DesignSpace,
    Enumerated,
    candidates,
    check_limit,
    design_space,
    enumerate_candidates,
    enumerate_dataflows,
    statement_loops,
    with_tile_depths,
)
from tenet.explore.tiling import (
    OVER_CAPACITY,
    dram_floor,
    tiles_text,
)
from tenet.model.arch import Arch
from tenet.model.dataflow import Dataflow
from tenet.model.metrics import Analysis, analyze
from tenet.model.workload import Workload
from tenet.util.isl_util import DEFAULT_MAX_OPERATIONS, parse_union_map

# --- evaluation --------------------------------------------------------------------------------

_CONTEXTS: dict[str, tuple[Workload, Arch]] = {}


def _context(blob: bytes) -> tuple[Workload, Arch]:
    """The (workload, arch) pickled in `blob`, unpickled once per process."""
    digest = hashlib.sha256(blob).hexdigest()
    if digest not in _CONTEXTS:
        if len(_CONTEXTS) > 4:
            _CONTEXTS.clear()
        _CONTEXTS[digest] = pickle.loads(blob)
    return _CONTEXTS[digest]


def evaluate_candidate(argument: tuple[bytes, str, str, str, int]) -> dict[str, Any]:
    """Validate one candidate and, when legal, analyze it (a picklable task of `run_tasks`).

    Returns {"legal": False, "violations": [kinds]}, {"legal": True, "analysis": ANALYZE
    with "notation"}, or {"legal": True, "error": message} when isl gives up.
    """
    blob, name, space_text, time_text, max_operations = argument
    workload, arch = _context(blob)
    dataflow = Dataflow(name, parse_union_map(space_text), parse_union_map(time_text))
    verdict = validate(workload, arch, dataflow)
    if not verdict.legal:
        return {"legal": False, "violations": sorted({v.kind for v in verdict.violations})}
    try:
        result = analyze(workload, arch, dataflow, max_operations).to_dict()
    except IslLimitError as exc:
        return {"legal": True, "error": exc.message}
    result["notation"] = verdict.notation
    return {"legal": True, "analysis": result}


def _run_inline(function, tasks, progress=None, **_: Any) -> dict[str, dict]:
    """Sequential fallback with the signature of `tenet.execution.run_tasks`."""
    results = {}
    for done, (key, argument) in enumerate(tasks, start=1):
        results[key] = function(argument)
        if progress:
            progress(done, len(tasks))
    return results


def _task_runner() -> Callable[..., dict[str, dict]]:
    try:
        from tenet.execution import run_tasks
    except ImportError:  # pragma: no cover - the module ships with tenet
        return _run_inline
    return run_tasks


# --- the Pareto front --------------------------------------------------------------------------


def objective_vector(analysis: Analysis, objectives: Sequence[str]) -> tuple[float, ...]:
    """The objectives of one analysis, each signed so that smaller is better."""
    out = []
    for name in objectives:
        objective = OBJECTIVES[name]
        value = objective.value(analysis)
        out.append(-value if objective.maximize else value)
    return tuple(out)


def dominates(a: Sequence[float], b: Sequence[float]) -> bool:
    """a is no worse than b in every objective and better in one (all minimised)."""
    return all(x <= y for x, y in zip(a, b)) and any(x < y for x, y in zip(a, b))


def pareto_indices(vectors: Sequence[Sequence[float]], keep_ties: bool = False) -> list[int]:
    """Indices of the vectors no other vector dominates; of equal vectors only the first,
    unless `keep_ties`."""
    front: list[int] = []
    seen: set[tuple] = set()
    for i, v in enumerate(vectors):
        if tuple(v) in seen and not keep_ties:
            continue
        if not any(dominates(w, v) for w in vectors):
            front.append(i)
            seen.add(tuple(v))
    return front


@dataclass
class FrontEntry:
    """A dataflow on the Pareto front: its analysis (the dataflow named dse-001, ...), its
    notation and isl text, and the objectives of the search."""

    analysis: Analysis
    notation: str | None
    space: str
    time: str
    objectives: tuple[str, ...]
    tiles: dict[str, int] = field(default_factory=dict)  # memory level -> tile depth

    @property
    def name(self) -> str:
        return self.analysis.dataflow

    def objective_values(self) -> dict[str, int | float]:
        """{objective: value}, in the order of the search's objectives."""
        return {name: OBJECTIVES[name].value(self.analysis) for name in self.objectives}

    def to_dict(self) -> dict[str, Any]:
        """The analyze JSON with "notation", "name", "space", "time" and "objectives"."""
        return {
            **self.analysis.to_dict(),
            "notation": self.notation,
            "name": self.name,
            "space": self.space,
            "time": self.time,
            **({"tiles": dict(self.tiles)} if self.tiles else {}),
            "objectives": self.objective_values(),
        }


@dataclass
class DseResult:
    """What `explore` found: the counts of the search and the Pareto front, sorted by the
    objectives in order."""

    workload: str
    arch: str
    objectives: tuple[str, ...]
    candidates: int  # the raw space
    evaluated: int  # distinct candidates analyzed
    legal: int
    skipped: int  # isl gave up
    ties: int  # legal dataflows equal on every objective to a front member, left out
    pareto: list[FrontEntry]
    pruned: int = 0  # distinct candidates not counted: their lower bounds already lose
    over_capacity: int = 0  # evaluated, not legal: a memory level's tiles do not fit

    def to_dict(self) -> dict[str, Any]:
        """`tenet dse`'s JSON object."""
        return {
            "workload": self.workload,
            "arch": self.arch,
            "objectives": list(self.objectives),
            "candidates": self.candidates,
            "evaluated": self.evaluated,
            "legal": self.legal,
            "skipped": self.skipped,
            "ties": self.ties,
            "pruned": self.pruned,
            "over_capacity": self.over_capacity,
            "pareto": [entry.to_dict() for entry in self.pareto],
        }


def explore(
    workload: Workload,
    arch: Arch,
    objectives: Sequence[str] = DEFAULT_OBJECTIVES,
    skew: bool = True,
    limit: int | None = None,
    seed: int | None = None,
    interleave: bool = False,
    keep_ties: bool = False,
    max_operations: int = DEFAULT_MAX_OPERATIONS,
    jobs: int = 1,
    scheduler: str | None = None,
    journal: str | None = None,
    progress: Callable[..., None] | None = None,
    prune: bool = True,
) -> DseResult:
    """Check and count every distinct candidate; the Pareto front of `objectives`.

    Candidates are counted with the shared-work evaluator (`tenet.explore.evaluate`), best
    lower bound first, in batches; with `prune`, a candidate whose lower bounds are already
    dominated by a counted candidate is not counted (it can be neither on the front nor tied
    with it). Every front member is then checked and counted again by the plain model
    (`validate` and `analyze`). Tied dataflows (equal on every objective to a front member)
    are left out and counted, unless `keep_ties`.
    """
    objectives = parse_objectives(objectives)
    check_costs(arch, objectives)
    raw_size, found = enumerate_candidates(workload, arch, skew, limit, seed, interleave)
    blob = pickle.dumps((workload, arch))
    per_step = any(name in PER_STEP_OBJECTIVES for name in objectives)
    bounds = candidate_bounds(workload, arch, blob, found, objectives) if prune else None
    order = list(range(len(found)))
    if bounds is not None:
        order.sort(key=lambda i: (bounds[i], i))
    runner = _task_runner()
    outcomes: dict[int, dict] = {}
    vectors: dict[int, tuple] = {}
    pruned = 0
    tracker = _Progress(progress, len(found), objectives)
    position = 0
    workers = contextlib.ExitStack()  # local workers kept from batch to batch (their caches)
    if scheduler is None and jobs > 1:
        from tenet.execution import kept_pool

        workers.enter_context(kept_pool(jobs))
    with workers:
        for size in _batch_sizes(len(order), bounds is not None):
            # the undominated vectors counted so far: a vector dominated by a counted one is
            # dominated by one of these too (dominance is transitive)
            front_so_far = _front_of(vectors.values()) if bounds is not None else []
            batch = []
            for i in order[position : position + size]:
                if bounds is not None and _beaten(bounds[i], front_so_far):
                    pruned += 1
                else:
                    batch.append(i)
            position += size
            tasks = {}
            # with pruning, a task also gets the vectors counted so far; its result depends on
            # them and on the isl budget, so both are in its key: a journal never serves a
            # pruned or skipped result to a search where it might not hold
            beat = [list(v) for v in front_so_far]
            against = hashlib.sha256(repr((beat, max_operations)).encode()).hexdigest()[:16]
            for i in batch:
                e = found[i]
                text = f"fast{int(per_step)}{int(bounds is not None)}{','.join(objectives)}"
                text += tiles_text(e.tiles) + against
                digest = hashlib.sha256(blob + (text + e.space + e.time).encode()).hexdigest()[:16]
                argument = (
                    blob,
                    e.name,
                    e.space,
                    e.time,
                    max_operations,
                    per_step,
                    objectives,
                    beat,
                )
                # the tile depths, and the candidate's structure (candidates equal up to a
                # renaming of loops share counts: tenet.explore.renaming)
                tasks[f"{e.name}-{digest}"] = (i, argument + (e.tiles, e.candidate))
            tracker.offset = len(outcomes) + pruned
            chunks = _chunks(sorted(tasks.items(), key=lambda item: item[1][0]))
            tracker.chunk_sizes = [len(chunk) for _, chunk in chunks]
            ran = runner(
                evaluate_chunk,
                chunks,
                jobs=jobs,
                scheduler=scheduler,
                journal=journal,
                progress=tracker.tick_chunks,
            )
            results = {}
            for chunk_key, chunk in chunks:
                got = ran[chunk_key]
                if not isinstance(got, dict) or any(key not in got for key, _ in chunk):
                    raise InputError(
                        "a result has no objective values; delete the journal to search again",
                        str(journal),
                    )
                results.update(got)
            for key, (i, _) in tasks.items():
                outcome = results[key]
                if outcome.get("pruned"):
                    pruned += 1
                    continue
                outcomes[i] = outcome
                if outcome["legal"] and "error" not in outcome:
                    vectors[i] = _vector_of(outcome, len(objectives), journal)
                    tracker.seen(vectors[i])
            tracker.done(len(outcomes) + pruned)
    legal = sum(1 for o in outcomes.values() if o["legal"])
    over_capacity = sum(1 for o in outcomes.values() if OVER_CAPACITY in o.get("violations", ()))
    skipped = sum(1 for o in outcomes.values() if o["legal"] and "error" in o)
    counted = sorted(vectors)  # enumeration order, as without pruning
    listed = [vectors[i] for i in counted]
    front = [counted[k] for k in pareto_indices(listed, keep_ties)]
    front.sort(key=lambda i: (vectors[i], i))
    pareto = []
    for rank, i in enumerate(front, start=1):
        e = found[i]
        analysis, notation = _plain_model(workload, arch, e, max_operations)
        if objective_vector(analysis, objectives) != vectors[i]:  # pragma: no cover - a bug
            raise AssertionError(f"the fast and the plain counts of {e.name} differ")
        named = replace(analysis, dataflow=f"dse-{rank:03d}")
        if e.tiles:
            notation = f"{notation} {tiles_text(e.tiles)}"
        pareto.append(FrontEntry(named, notation, e.space, e.time, objectives, dict(e.tiles)))
    on_front = {vectors[i] for i in front}
    ties = sum(1 for v in listed if v in on_front) - len(front)
    return DseResult(
        workload.name,
        arch.name,
        objectives,
        raw_size,
        len(found) - pruned,
        legal,
        skipped,
        ties,
        pareto,
        pruned,
        over_capacity,
    )


def check_costs(arch: Arch, objectives: Sequence[str]) -> None:
    """Objectives that read component costs need an arch that gives them."""
    for name in objectives:
        if name in COST_OBJECTIVES and getattr(arch, "components", None) is None:
            raise InputError(
                f"objective {name!r} needs component costs, which arch {arch.name!r} does not "
                f"have: {COST_HINT}",
                "objectives",
            )


#: Objectives that need the per-step numbers (schedule time).
PER_STEP_OBJECTIVES = ("schedule", "peak_ingress", "hierarchy", "edp")


def candidate_bounds(
    workload: Workload,
    arch: Arch,
    blob: bytes,
    found: Sequence[Enumerated],
    objectives: Sequence[str],
) -> list[tuple] | None:
    """Per candidate, its objective vector's lower bounds (signed: smaller is better), or
    None when no objective has a bound (nothing to prune)."""
    if not any(name in BOUNDED_OBJECTIVES for name in objectives):
        return None
    space = design_space(workload, arch)
    basis = BoundBasis.of(shared_work(blob))
    out = []
    cache: dict[int, tuple] = {}
    for e in found:
        most = 1
        for a, name in enumerate(e.candidate.spatial):
            if name is not None:
                most *= min(space.loop(name).extent, space.axes[a].size)
        if most not in cache:
            values = bound_values(basis, most)
            if "dram" in objectives:  # docs/dse.md, "Memory levels in the space"
                values["dram"] = dram_floor(workload, arch, values["traffic"])
            cache[most] = signed_bounds(values, objectives)  # -inf: no bound, never beaten
        out.append(cache[most])
    return out


#: Objectives with a lower bound (`tenet.explore.evaluate.bound_values`).
BOUNDED_OBJECTIVES = (
    "latency",
    "energy",
    "traffic",
    "ingress",
    "egress",
    "compute",
    "time_steps",
    "steps",
    "schedule",
    "hierarchy",
    "utilization",
    "active_pes",
    "dram",
)


def _front_of(vectors: Iterable[tuple]) -> list[tuple]:
    """The undominated ones of some vectors, without repeats (enough to test dominance)."""
    distinct = list(dict.fromkeys(vectors))
    return [distinct[i] for i in pareto_indices(distinct)]


def _beaten(bound: tuple, counted: Iterable[tuple]) -> bool:
    """Some counted vector dominates the bound: it is no worse than the candidate can be in
    every objective and strictly better in one, so it dominates the candidate too."""
    return any(dominates(v, bound) for v in counted)


#: At most this many candidates per task, and a batch is cut into at least CHUNKS_PER_BATCH
#: tasks when it has that many candidates (small batches still spread over the workers).
CHUNK = 256
CHUNKS_PER_BATCH = 8


def _chunks(tasks: list[tuple[str, tuple]]) -> list[tuple[str, list[tuple[str, tuple]]]]:
    """The tasks ((key, (index, argument)) in enumeration order) in chunks, each keyed by a
    digest of its keys: the candidates of one PE assignment together (they share their
    used PEs and most of their relations between stamps, so one worker builds them once),
    cut into runs of at most min(CHUNK, ⌈n / CHUNKS_PER_BATCH⌉). The chunks depend only on
    the batch, so every way of running makes the same ones."""
    size = max(1, min(CHUNK, -(-len(tasks) // CHUNKS_PER_BATCH)))
    groups: dict[Any, list[tuple[str, tuple]]] = {}
    for key, (_, argument) in tasks:
        candidate = argument[9]  # the task's Candidate (explore always passes it)
        groups.setdefault(candidate.spatial, []).append((key, argument))
    out = []
    for members in groups.values():
        for start in range(0, len(members), size):
            run = members[start : start + size]
            digest = hashlib.sha256("\n".join(key for key, _ in run).encode()).hexdigest()[:16]
            out.append((f"chunk-{run[0][0]}-{digest}", run))
    return out


def _batch_sizes(n: int, pruning: bool) -> Iterator[int]:
    """Batch sizes that add up to n: one batch without pruning; with it 16, then 4 times more
    per batch (each batch on processes or a cluster starts its workers). The same whichever
    way the tasks run, so local and remote runs count and prune the same candidates."""
    if not pruning:
        yield n
        return
    size, done = 16, 0
    while done < n:
        yield min(size, n - done)
        done += size
        size *= 4


class _Progress:
    """Progress over the batches: done/total of the whole search, and the best value so far
    of the first objective."""

    def __init__(self, progress, total: int, objectives: Sequence[str]) -> None:
        self.progress = progress
        self.takes_note = bool(progress) and _takes_note(progress)  # looked up once
        self.total = total
        self.objective = objectives[0]
        self.best: float | None = None
        self.offset = 0
        self.chunk_sizes: list[int] = []

    def seen(self, vector: tuple) -> None:
        if self.best is None or vector[0] < self.best:
            self.best = vector[0]

    def note(self) -> str | None:
        if self.best is None:
            return None
        value = -self.best if OBJECTIVES[self.objective].maximize else self.best
        shown = f"{value:,}" if isinstance(value, int) else f"{value:.6g}"
        return f"best {self.objective} {shown}"

    def tick_chunks(self, done: int, _total: int) -> None:
        """tick, with `done` chunks of the batch finished (their sizes in `chunk_sizes`, about
        equal: the first `done` of them stand for those finished)."""
        self.tick(sum(self.chunk_sizes[:done]), _total)

    def tick(self, done: int, _total: int) -> None:
        if self.progress:
            _call_progress(
                self.progress, self.offset + done, self.total, self.note(), self.takes_note
            )

    def done(self, done: int) -> None:
        if self.progress:
            _call_progress(self.progress, done, self.total, self.note(), self.takes_note)


def _call_progress(
    progress: Callable[..., None], done: int, total: int, note: str | None, takes_note: bool
):
    """progress(done, total, note=...) when it takes a note, else progress(done, total)."""
    if takes_note:
        progress(done, total, note=note)
    else:
        progress(done, total)


def _takes_note(progress: Callable[..., None]) -> bool:
    """The progress callback has a `note` parameter."""
    try:
        return "note" in inspect.signature(progress).parameters
    except (TypeError, ValueError):
        return False


def _vector_of(outcome: dict, size: int, journal: str | None) -> tuple:
    """The objective vector of a counted candidate (a journal may hold a damaged one)."""
    vector = outcome.get("vector")
    if not isinstance(vector, list) or len(vector) != size:
        raise InputError(
            "a result has no objective values; delete the journal to search again", str(journal)
        )
    return tuple(vector)


def _plain_model(
    workload: Workload, arch: Arch, e: Enumerated, max_operations: int
) -> tuple[Analysis, str | None]:
    """`validate` and `analyze` of one candidate, as `tenet analyze` gives them (the live
    Analysis: fields the JSON does not read back, such as component costs, stay)."""
    dataflow = Dataflow(
        e.name, parse_union_map(e.space), parse_union_map(e.time), tiles=dict(e.tiles)
    )
    verdict = validate(workload, arch, dataflow)
    if not verdict.legal:  # pragma: no cover - the fast path agreed it is legal
        raise AssertionError(f"the plain model rejects front member {e.name}: {verdict}")
    return analyze(workload, arch, dataflow, max_operations), verdict.notation


# --- whole networks ----------------------------------------------------------------------------


def _layer_key(layer) -> str:
    """Layers with the same workload, parameters, stride and dilation share one search."""
    return repr((layer.workload_ref, sorted(layer.params.items()), layer.stride, layer.dilation))


@dataclass
class LayerFront:
    """A layer of a network and the search of its shape (shared by identical layers)."""

    layer: str
    count: int
    result: DseResult

    def to_dict(self) -> dict[str, Any]:
        return {"layer": self.layer, "count": self.count, **self.result.to_dict()}


@dataclass
class NetworkPoint:
    """A point of the network front: Σ count · objective, and the dataflow of each layer."""

    objectives: dict[str, int | float]
    dataflows: dict[str, str]  # layer -> front entry name

    def to_dict(self) -> dict[str, Any]:
        return {"objectives": dict(self.objectives), "dataflows": dict(self.dataflows)}


@dataclass
class NetworkDseResult:
    """`explore` for every distinct layer of a network, and the network's front."""

    network: str
    arch: str
    objectives: tuple[str, ...]
    evaluated: int  # over the distinct layers
    legal: int
    layers: list[LayerFront]
    network_front: list[NetworkPoint]
    pruned: int = 0  # over the distinct layers

    def to_dict(self) -> dict[str, Any]:
        """`tenet dse -n`'s JSON object."""
        return {
            "network": self.network,
            "arch": self.arch,
            "objectives": list(self.objectives),
            "evaluated": self.evaluated,
            "legal": self.legal,
            "pruned": self.pruned,
            "layers": [layer.to_dict() for layer in self.layers],
            "network_front": [point.to_dict() for point in self.network_front],
        }


def explore_network(
    network,
    arch: Arch,
    objectives: Sequence[str] = DEFAULT_OBJECTIVES,
    **options: Any,
) -> NetworkDseResult:
    """`explore` for every distinct layer of a network, and the network's front.

    A network point picks one front dataflow per layer; its objectives are Σ count · value
    (additive objectives only).
    """
    from tenet.explore.network import in_layer, layer_workload

    objectives = parse_objectives(objectives)
    for name in objectives:
        if name not in ADDITIVE_OBJECTIVES:
            raise InputError(
                f"objective {name!r} does not add up over layers; with -n use: "
                + ", ".join(ADDITIVE_OBJECTIVES),
                "objectives",
            )
    check_limit(options.get("limit"))  # an error of the options, not of a layer
    results: dict[str, DseResult] = {}
    layers = []
    for n, layer in enumerate(network.layers):
        key = _layer_key(layer)
        if key not in results:
            try:
                results[key] = explore(layer_workload(layer), arch, objectives, **options)
            except InputError as exc:
                raise in_layer(exc, network.source, n, layer.name) from None
        layers.append(LayerFront(layer.name, layer.count, results[key]))
    return NetworkDseResult(
        network.name,
        arch.name,
        objectives,
        sum(r.evaluated for r in results.values()),
        sum(r.legal for r in results.values()),
        layers,
        network_front(layers, objectives),
        sum(r.pruned for r in results.values()),
    )


def network_front(layers: Sequence[LayerFront], objectives: Sequence[str]) -> list[NetworkPoint]:
    """The Pareto front of Σ count · objectives over one front dataflow per layer.

    Built layer by layer, pruning dominated partial sums: a dominated choice in one layer
    can always be swapped for the dataflow dominating it, so no network optimum is lost.
    """
    partial: list[tuple[tuple, dict[str, str]]] = [((0,) * len(objectives), {})]
    for layer in layers:
        combined = []
        for vector, choice in partial:
            for entry in layer.result.pareto:
                step = [_exact(v) for v in objective_vector(entry.analysis, objectives)]
                total = tuple(a + layer.count * b for a, b in zip(vector, step))
                combined.append((total, {**choice, layer.layer: entry.name}))
        kept = pareto_indices([v for v, _ in combined])
        partial = [combined[i] for i in kept]
    partial.sort(key=lambda item: item[0])
    return [
        NetworkPoint({n: _plain(v) for n, v in zip(objectives, vector)}, choice)
        for vector, choice in partial
        if choice
    ]


def _exact(value: float) -> int | Fraction:
    """A float as the exact decimal it prints as (energies are sums of decimal constants)."""
    return value if isinstance(value, int) else Fraction(repr(value))


def _plain(value: int | Fraction) -> int | float:
    return float(value) if isinstance(value, Fraction) else value


def write_network_dataflows(result: NetworkDseResult, directory: str | Path) -> list[Path]:
    """Each layer's front in `DIR/<layer>/dse-001.yaml`, ...; the paths written."""
    paths = []
    for layer in result.layers:
        folder = re.sub(r"[^A-Za-z0-9_.-]", "_", layer.layer)
        paths += write_dataflows(layer.result.pareto, Path(directory) / folder)
    return paths


# --- writing the winners -----------------------------------------------------------------------


def dataflow_yaml(entry: FrontEntry) -> str:
    """A dataflow YAML file for one front entry, its notation and objectives as comments."""
    values = ", ".join(
        f"{k} {v:,}" if isinstance(v, int) else f"{k} {v!r}"
        for k, v in entry.objective_values().items()
    )
    text = (
        f"# Found by tenet dse: {entry.analysis.workload} on {entry.analysis.arch}.\n"
        f"# notation: {entry.notation}\n"
        f"# {values}\n"
        f'name: "{entry.name}"\n'
        f'space: "{entry.space}"\n'
        f'time:  "{entry.time}"\n'
    )
    if entry.tiles:  # level names as JSON strings (valid YAML), depths as integers
        depths = ", ".join(f"{json.dumps(name)}: {depth}" for name, depth in entry.tiles.items())
        text += f"tiles: {{{depths}}}\n"
    return text


def write_dataflows(front: Sequence[FrontEntry], directory: str | Path) -> list[Path]:
    """Write each front entry as `DIR/<name>.yaml` (dse-001.yaml, ...); the paths written."""
    folder = Path(directory)
    if folder.exists() and not folder.is_dir():
        raise InputError("exists and is not a directory", str(directory), "directory")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        paths = []
        for entry in front:
            path = folder / f"{entry.name}.yaml"
            path.write_text(dataflow_yaml(entry))
            paths.append(path)
    except OSError as exc:
        raise InputError(
            f"cannot write dataflows: {exc.strerror}", str(directory), "directory"
        ) from None
    return paths


#: The old names of `write_dataflows` and `write_network_dataflows` (they write YAML files,
#: unlike `tenet.cli.common.emit`, which writes text), kept for one release.
emit = write_dataflows
emit_network = write_network_dataflows

__all__ = [
    "Candidate",
    "DesignSpace",
    "candidates",
    "design_space",
    "dominates",
    "emit",
    "enumerate_candidates",
    "enumerate_dataflows",
    "explore",
    "pareto_indices",
    "statement_loops",
    "with_tile_depths",
    "write_dataflows",
    "write_network_dataflows",
]
