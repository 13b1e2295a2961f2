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
import json
import pickle
import re
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from tenet.analysis.validate import validate
from tenet.errors import InputError, TenetError
from tenet.explore.candidate_counts import shared_work
from tenet.explore.chunking import batch_sizes, chunk_weights, task_chunks
from tenet.explore.dram_bound import dram_against_snowcat
from tenet.explore.objectives import (
    ADDITIVE_OBJECTIVES,
    COST_HINT,
    COST_OBJECTIVES,
    OBJECTIVES,
    PER_STEP_OBJECTIVES,
    PLAIN_OBJECTIVES,
    PRUNABLE_OBJECTIVES,
    default_objectives,
    parse_objectives,
)
from tenet.explore.prune import candidate_floors, dominated, dominates
from tenet.explore.renaming import LoopRenaming, twins_of
from tenet.explore.search_progress import SearchProgress
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
from tenet.explore.stopping import (  # INTERRUPT and TIME_LIMIT: callers import them here
    INTERRUPT,
    STOP_REASONS,
    TIME_LIMIT,  # noqa: F401  (re-exported)
    SearchStopped,
    Stopper,
    check_time_limit,
    stopping,
)
from tenet.explore.tasks import (
    DAMAGED,
    CandidateTask,
    Outcome,
    count_chunk,
    floor_chunk,
    signed_values,
)
from tenet.explore.tiling import OVER_CAPACITY, dram_floor, tiles_text
from tenet.model.arch import Arch
from tenet.model.dataflow import Dataflow
from tenet.model.metrics import Analysis, analyze
from tenet.model.workload import Workload
from tenet.util.isl_util import DEFAULT_MAX_OPERATIONS, parse_union_map

# --- the Pareto front --------------------------------------------------------------------------


def objective_vector(analysis: Analysis, objectives: Sequence[str]) -> tuple[float, ...]:
    """The objectives of one analysis, each signed so that smaller is better."""
    return tuple(signed_values(analysis, objectives))


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
    dram_bound: dict[str, Any] | None = None  # `dram_against_snowcat`; None: no tiled level

    @property
    def name(self) -> str:
        return self.analysis.dataflow

    @property
    def dram_vs_bound(self) -> float | None:
        """bound_words / snowcat_accesses of `dram_bound` (None when not known)."""
        return None if self.dram_bound is None else self.dram_bound["ratio"]

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
            **(
                {"dram_vs_bound": self.dram_vs_bound, "dram_bound": dict(self.dram_bound)}
                if self.dram_bound is not None
                else {}
            ),
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
    distinct: int | None = None  # the distinct candidates to settle (None: not recorded)
    stopped_by: str | None = None  # TIME_LIMIT or INTERRUPT: the search stopped early
    # evaluated or pruned with a twin (`tenet.explore.renaming.twin_key`), not counted itself
    twins: int = 0

    @property
    def complete(self) -> bool:
        """Every distinct candidate was counted or pruned (the search was not stopped)."""
        return self.stopped_by is None

    @property
    def settled(self) -> int:
        """The distinct candidates counted or pruned: evaluated + pruned."""
        return self.evaluated + self.pruned

    def stop_note(self) -> str | None:
        """`incomplete: stopped after N of M candidates (time limit)`, or None if complete."""
        if self.complete:
            return None
        why = STOP_REASONS.get(self.stopped_by or "", self.stopped_by)
        total = self.distinct if self.distinct is not None else "?"
        return f"incomplete: stopped after {self.settled:,} of {total:,} candidates ({why})"

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
            "distinct": self.distinct,
            "complete": self.complete,
            "stopped_by": self.stopped_by,
            "twins": self.twins,
            "pareto": [entry.to_dict() for entry in self.pareto],
        }


def explore(
    workload: Workload,
    arch: Arch,
    objectives: Sequence[str] | None = None,
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
    time_limit_s: float | None = None,
    stop_on_interrupt: bool = False,
) -> DseResult:
    """Check and count every distinct candidate; the Pareto front of `objectives`.

    Candidates are counted with the shared-work evaluator (`tenet.explore.candidate_counts`,
    one `CandidateTask` each), best lower bound first, in batches; with `prune`, a candidate
    whose lower bounds are already dominated by a counted candidate is not counted (it can
    be neither on the front nor tied with it). When an objective is counted by the plain
    model and no time limit is set, every candidate's bounds are first counted the shared
    way (`refine_floors`). Every front member is then checked and
    counted again by the plain model (`validate` and `analyze`). Tied dataflows (equal on
    every objective to a front member) are left out and counted, unless `keep_ties`.
    Without `objectives`, cost first: `default_objectives(arch)`.

    A search may stop early and keep what it counted: once `time_limit_s` seconds have
    passed since the call, or, with `stop_on_interrupt`, on SIGINT (Ctrl-C). The front is
    then that of the candidates counted so far (re-checked by the plain model all the same)
    and `stopped_by` says why (`TIME_LIMIT`, `INTERRUPT`).
    """
    objectives = parse_objectives(default_objectives(arch) if objectives is None else objectives)
    check_costs(arch, objectives)
    check_time_limit(time_limit_s)
    with contextlib.ExitStack() as scratch, stopping(time_limit_s, stop_on_interrupt) as stopper:
        raw_size, found = enumerate_candidates(workload, arch, skew, limit, seed, interleave)
        context = pickle.dumps((workload, arch))
        search = Search(
            context,
            found,
            objectives,
            max_operations,
            any(name in PER_STEP_OBJECTIVES for name in objectives),
            search_floors(workload, arch, context, found, objectives) if prune else None,
            journal,
            twins=twins_of(shared_work(context).renaming(), found),
        )
        if stopper.active and journal is None:  # where a stopped batch's finished chunks are
            folder = scratch.enter_context(tempfile.TemporaryDirectory(prefix="tenet-dse-"))
            search.scratch = str(Path(folder) / "journal.jsonl")
        run_search(
            search, jobs, scheduler, SearchProgress(progress, len(found), objectives), stopper
        )
    settled = len(search.outcomes) + search.pruned
    stopped_by = stopper.reason if settled < len(found) else None
    pareto, ties = front_entries(workload, arch, search, keep_ties)
    outcomes = search.outcomes.values()
    return DseResult(
        workload.name,
        arch.name,
        objectives,
        raw_size,
        len(search.outcomes),
        sum(1 for o in outcomes if o.legal),
        sum(1 for o in outcomes if o.legal and o.error is not None),
        ties,
        pareto,
        search.pruned,
        sum(1 for o in outcomes if OVER_CAPACITY in o.violations),
        len(found),
        stopped_by,
        search.twin_count,
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


def search_floors(
    workload: Workload,
    arch: Arch,
    context: bytes,
    found: Sequence[Enumerated],
    objectives: Sequence[str],
) -> list[tuple] | None:
    """Per candidate, its objective vector's lower bounds (signed: smaller is better), or
    None when no objective has a floor (nothing to prune)."""
    if not any(name in PRUNABLE_OBJECTIVES for name in objectives):
        return None
    basis = shared_work(context).floor_basis()
    dram = None
    if "dram" in objectives:  # docs/dse.md, "Memory levels in the space"
        dram = dram_floor(workload, arch, basis.first_reads + basis.first_writes)
    return candidate_floors(basis, design_space(workload, arch), found, objectives, dram)


# --- the search: batches of tasks, pruned against the front so far ------------------------------


@dataclass
class Search:
    """The candidates of one search and what counting them gave so far: each candidate's
    `Outcome` and, when counted, its signed objective vector, by index in `found`; how many
    were pruned. `floors`: each candidate's signed lower bounds (None: no pruning)."""

    context: bytes  # the pickled (workload, arch)
    found: Sequence[Enumerated]
    objectives: tuple[str, ...]
    max_operations: int
    per_step: bool
    floors: list[tuple] | None
    journal: str | None = None
    scratch: str | None = None  # a journal of our own, when the search may stop and has none
    outcomes: dict[int, Outcome] = field(default_factory=dict)
    vectors: dict[int, tuple] = field(default_factory=dict)
    pruned: int = 0
    # a counted candidate's index -> its twins (`tenet.explore.renaming.twins_of`): they
    # are settled with it, with its outcome, and never counted themselves
    twins: dict[int, tuple[int, ...]] = field(default_factory=dict)

    @property
    def twin_count(self) -> int:
        """How many candidates are settled as twins of another."""
        return sum(len(later) for later in self.twins.values())

    def counted_indices(self) -> list[int]:
        """The candidates the search counts (or prunes) itself: all but the twins."""
        later = {j for twins in self.twins.values() for j in twins}
        return [i for i in range(len(self.found)) if i not in later]

    def prune(self, i: int) -> None:
        """Candidate i (and its twins) pruned before counting."""
        self.pruned += 1 + len(self.twins.get(i, ()))

    def renaming(self) -> LoopRenaming | None:
        """The workload's `LoopRenaming` (None: candidates do not share counts by renaming)."""
        return shared_work(self.context).renaming()

    @property
    def pruning(self) -> bool:
        return self.floors is not None

    def order(self) -> list[int]:
        """The candidates' indices in the order they are counted: best floor first."""
        order = self.counted_indices()
        if self.floors is not None:
            floors = self.floors
            order.sort(key=lambda i: (floors[i], i))
        return order

    def settle(self, i: int, outcome: Outcome) -> None:
        """Record candidate i's outcome, and its twins'."""
        if outcome.pruned:
            self.prune(i)
            return
        for j in (i, *self.twins.get(i, ())):
            self.outcomes[j] = outcome
            if outcome.counted:
                self.vectors[j] = outcome.vector


def run_search(
    search: Search,
    jobs: int,
    scheduler: str | None,
    tracker: SearchProgress,
    stopper: Stopper | None = None,
) -> None:
    """Count the candidates batch by batch (`batch_sizes`), on local workers kept from batch
    to batch (their caches stay) or on the cluster at `scheduler`. Before each batch, a
    candidate whose floors the front so far dominates is pruned without being counted. When
    `stopper` stops the search, the batch under way keeps its finished chunks (read back from
    the journal) and no other batch starts."""
    from tenet.execution import run_tasks

    stopper = stopper or Stopper(None, False)
    position = 0
    workers = contextlib.ExitStack()
    if scheduler is None and jobs > 1:
        from tenet.execution import kept_pool

        workers.enter_context(kept_pool(jobs))
    with workers:
        refined = refines_floors(search, stopper)
        if refined:
            refine_floors(search, jobs, scheduler, tracker, stopper)
        order = search.order()
        for size in batch_sizes(len(order), search.pruning):
            stopper.check()
            if stopper.reason is not None:
                break
            # the undominated vectors counted so far: a vector dominated by a counted one is
            # dominated by one of these too (dominance is transitive)
            front_so_far = _front_of(search.vectors.values()) if search.pruning else []
            batch = []
            for i in order[position : position + size]:
                if search.floors is not None and dominated(search.floors[i], front_so_far):
                    search.prune(i)
                else:
                    batch.append(i)
            position += size
            # after the floor pass, each floor was tested against this front: not again
            tasks = batch_tasks(search, batch, [] if refined else front_so_far)
            tracker.offset = len(search.outcomes) + search.pruned
            chunks = task_chunks(tasks, search.renaming())
            tracker.chunk_sizes = chunk_weights(search.twins, chunks, tasks)
            tracker.stopper = stopper
            ran = _run_batch(run_tasks, search, chunks, jobs, scheduler, tracker, stopper)
            if ran is None:  # stopped: the chunks that finished
                ran = _finished_chunks(chunks, search.scratch or search.journal)
            records = _chunk_records([c for c in chunks if c[0] in ran], ran, search.journal)
            for key, (i, _) in tasks.items():
                if key not in records:
                    continue
                outcome = Outcome.from_record(records[key], len(search.objectives), search.journal)
                search.settle(i, outcome)
                if outcome.counted:
                    tracker.seen(outcome.vector)
            tracker.done(len(search.outcomes) + search.pruned)


def refines_floors(search: Search, stopper: Stopper) -> bool:
    """Whether the search first counts every candidate's floors the shared way: when it
    prunes, an objective is counted by the plain model (`PLAIN_OBJECTIVES`, whose candidates
    cost far more than their floors), and no time limit is set (a stopped search keeps what
    it counted, and this pass counts no objective; Ctrl-C during it stops the search with
    nothing counted)."""
    plain = any(name in PLAIN_OBJECTIVES for name in search.objectives)
    return search.pruning and plain and stopper.deadline is None


def refine_floors(
    search: Search, jobs: int, scheduler: str | None, tracker: SearchProgress, stopper: Stopper
) -> None:
    """Each candidate's floors with its sides counted the shared way (`floor_task`, the
    bounds `beaten_before_plain` tests): the candidates are then counted best counted floor
    first, and one whose floors the front so far dominates is pruned before its batch.
    Stopped by Ctrl-C, it leaves the floors as they were and the stop to the caller."""
    from tenet.execution import run_tasks

    tasks = batch_tasks(search, search.counted_indices(), [])
    keyed = {f"floors-{key}": item for key, item in tasks.items()}
    chunks = task_chunks(keyed, search.renaming())
    tracker.note_text = "counting floors"
    tracker.chunk_sizes = chunk_weights(search.twins, chunks, keyed)
    tracker.offset = 0
    try:
        with stopper.running():
            ran = run_tasks(
                floor_chunk, chunks, jobs=jobs, scheduler=scheduler, progress=tracker.tick_chunks
            )
    except (SearchStopped, KeyboardInterrupt):
        if not stopper.interrupt:
            raise
        stopper.reason = stopper.reason or INTERRUPT
        return
    finally:
        tracker.note_text = None
    for chunk_key, chunk in chunks:
        for key, _ in chunk:
            floors = ran[chunk_key][key]
            if floors is not None:
                search.floors[keyed[key][0]] = tuple(floors)


def _run_batch(run_tasks, search, chunks, jobs, scheduler, tracker, stopper) -> dict | None:
    """`run_tasks` of one batch's chunks; None when the search was stopped during it (a
    worker that ended with the same Ctrl-C is part of the stop, not an error)."""
    journal = search.scratch or search.journal
    try:
        with stopper.running():
            return run_tasks(
                count_chunk,
                chunks,
                jobs=jobs,
                scheduler=scheduler,
                journal=journal,
                progress=tracker.tick_chunks,
            )
    except SearchStopped:
        return None
    except KeyboardInterrupt:
        if not stopper.interrupt:
            raise
        stopper.reason = stopper.reason or INTERRUPT
        return None
    except TenetError:
        if stopper.reason is None:
            raise
        return None


def _finished_chunks(chunks, journal: str | None) -> dict[str, Any]:
    """{chunk key: result} of the chunks of a stopped batch that the journal holds whole."""
    if journal is None:
        return {}
    from tenet.execution import read_journal

    finished = read_journal(Path(journal))
    return {
        key: finished[key]
        for key, chunk in chunks
        if isinstance(finished.get(key), dict) and all(k in finished[key] for k, _ in chunk)
    }


def batch_tasks(
    search: Search, batch: Sequence[int], front_so_far: Sequence[tuple]
) -> dict[str, tuple[int, CandidateTask]]:
    """{journal key: (index, task)} of the candidates of one batch. With pruning, a task also
    gets the vectors counted so far; its outcome depends on them and on the isl budget, so
    both are in its key (`batch_digest`): a journal never serves a pruned or skipped outcome
    to a search where it might not hold."""
    beat = [list(v) for v in front_so_far]
    against = batch_digest(beat, search.max_operations)
    tasks = {}
    for i in batch:
        e = search.found[i]
        task = CandidateTask(
            search.context,
            e.name,
            e.space,
            e.time,
            search.max_operations,
            search.per_step,
            search.objectives,
            beat,
            # the tile depths, and the candidate's structure (candidates equal up to a
            # renaming of loops share counts: tenet.explore.renaming)
            e.tiles,
            e.candidate,
        )
        tasks[task_key(task, search.pruning, against)] = (i, task)
    return tasks


def batch_digest(front_so_far: list[list], max_operations: int) -> str:
    """16 hex digits of SHA-256 of the vectors a batch's tasks must beat and the isl budget."""
    return hashlib.sha256(repr((front_so_far, max_operations)).encode()).hexdigest()[:16]


def task_key(task: CandidateTask, pruning: bool, against: str) -> str:
    """The journal key of a task: its name and 16 hex digits of SHA-256 of the pickled
    workload and arch, the per-step, pruning and objectives settings, the tile depths, the
    batch's digest (`batch_digest`) and the isl maps."""
    text = f"fast{int(task.per_step)}{int(pruning)}{','.join(task.objectives)}"
    text += tiles_text(task.tiles) + against
    digest = hashlib.sha256(task.context + (text + task.space + task.time).encode())
    return f"{task.name}-{digest.hexdigest()[:16]}"


def _chunk_records(
    chunks: list[tuple[str, list[tuple[str, CandidateTask]]]],
    ran: dict[str, Any],
    journal: str | None,
) -> dict[str, Any]:
    """{task key: outcome record} of a batch's chunks; a chunk's result without one of its
    keys (a damaged journal) is bad input of the journal."""
    records: dict[str, Any] = {}
    for chunk_key, chunk in chunks:
        got = ran[chunk_key]
        if not isinstance(got, dict) or any(key not in got for key, _ in chunk):
            raise InputError(DAMAGED, str(journal))
        records.update(got)
    return records


def _front_of(vectors: Iterable[tuple]) -> list[tuple]:
    """The undominated ones of some vectors, without repeats (enough to test dominance)."""
    distinct = list(dict.fromkeys(vectors))
    return [distinct[i] for i in pareto_indices(distinct)]


# --- the front and its ties --------------------------------------------------------------------


def front_entries(
    workload: Workload, arch: Arch, search: Search, keep_ties: bool
) -> tuple[list[FrontEntry], int]:
    """The front (sorted by the objectives, each member checked and counted again by the
    plain model and named dse-001, ...) and the number of ties left out: counted candidates
    equal on every objective to a front member (none when `keep_ties`)."""
    vectors = search.vectors
    indices = sorted(vectors)  # enumeration order, as without pruning
    listed = [vectors[i] for i in indices]
    front = [indices[k] for k in pareto_indices(listed, keep_ties)]
    front.sort(key=lambda i: (vectors[i], i))
    pareto = []
    for rank, i in enumerate(front, start=1):
        e = search.found[i]
        analysis, notation = _plain_model(workload, arch, e, search.max_operations)
        if objective_vector(analysis, search.objectives) != vectors[i]:  # pragma: no cover
            raise AssertionError(f"the fast and the plain counts of {e.name} differ")
        named = replace(analysis, dataflow=f"dse-{rank:03d}")
        if e.tiles:
            notation = f"{notation} {tiles_text(e.tiles)}"
        entry = FrontEntry(named, notation, e.space, e.time, search.objectives, dict(e.tiles))
        pareto.append(entry)
    on_front = {vectors[i] for i in front}
    ties = sum(1 for v in listed if v in on_front) - len(front)
    snowcat: dict[int, Any] = {}  # capacity -> Snowcat point, shared by the members
    pareto = [
        replace(entry, dram_bound=dram_against_snowcat(workload, entry.analysis, snowcat))
        for entry in pareto
    ]
    return pareto, ties


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
    objectives: Sequence[str] | None = None,
    **options: Any,
) -> NetworkDseResult:
    """`explore` for every distinct layer of a network, and the network's front.

    A network point picks one front dataflow per layer; its objectives are Σ count · value
    (additive objectives only). Without `objectives`, cost first: `default_objectives(arch)`.
    """
    from tenet.explore.network import in_layer, layer_workload

    objectives = parse_objectives(default_objectives(arch) if objectives is None else objectives)
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
                one_run = [_exact(v) for v in objective_vector(entry.analysis, objectives)]
                total = tuple(a + layer.count * b for a, b in zip(vector, one_run))
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
