"""The search's unit of work: one generated candidate to check and count (`CandidateTask`), what
the worker gives back (`Outcome`), and the worker functions that `tenet.execution.run_tasks`
runs (`count_task`, `count_chunk`). Outcomes cross processes and the journal as JSON records
(`Outcome.to_record`, `Outcome.from_record`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from tenet.errors import InputError, IslLimitError
from tenet.explore.candidate_counts import (
    SharedWork,
    analyze_candidate,
    analyze_renamed,
    runs_in_order,
    shared_work,
)
from tenet.explore.objectives import OBJECTIVES, PLAIN_OBJECTIVES
from tenet.explore.prune import Beaten
from tenet.explore.renaming import LoopRenaming
from tenet.explore.space import Candidate
from tenet.explore.tiling import OVER_CAPACITY, candidate_levels, over_capacity
from tenet.model.metrics import Analysis
from tenet.util.isl_util import operations_limit, parse_union_map

#: What a damaged result (of a journal, most likely) makes the search say.
DAMAGED = "a result has no objective values; delete the journal to search again"


@dataclass(frozen=True)
class CandidateTask:
    """One generated candidate for a worker: `context` is the pickled (workload, arch); its
    name and isl maps; the isl budget; whether to count the per-step numbers; the objectives;
    `front_so_far`, the objective vectors it must beat (None: no pruning); the memory
    levels' tile depths ((level, depth) pairs: their traffic is counted, and tiles that do not
    fit make the candidate illegal for the search); and the `Candidate` its maps were written
    from (None: nothing is shared by renaming of loops)."""

    context: bytes
    name: str
    space: str
    time: str
    max_operations: int
    per_step: bool
    objectives: tuple[str, ...]
    front_so_far: list[list] | None = None
    tiles: tuple[tuple[str, int], ...] = ()
    candidate: Candidate | None = None

    def to_record(self) -> dict[str, Any]:
        """The task as a JSON object, without its context (the pickled workload and arch)."""
        candidate = self.candidate
        return {
            "name": self.name,
            "space": self.space,
            "time": self.time,
            "max_operations": self.max_operations,
            "per_step": self.per_step,
            "objectives": list(self.objectives),
            "front_so_far": self.front_so_far,
            "tiles": [list(pair) for pair in self.tiles],
            "candidate": None
            if candidate is None
            else {
                "spatial": list(candidate.spatial),
                "order": [list(dim) for dim in candidate.order],
                "skew": list(candidate.skew),
            },
        }

    @classmethod
    def from_record(cls, record: dict[str, Any], context: bytes) -> CandidateTask:
        """The task of `to_record`'s JSON object, with its context given again."""
        found = record.get("candidate")
        candidate = None
        if found is not None:
            candidate = Candidate(
                tuple(found["spatial"]),
                tuple(tuple(dim) for dim in found["order"]),
                tuple(found["skew"]),
            )
        return cls(
            context,
            record["name"],
            record["space"],
            record["time"],
            record["max_operations"],
            record["per_step"],
            tuple(record["objectives"]),
            record.get("front_so_far"),
            tuple((level, depth) for level, depth in record.get("tiles", ())),
            candidate,
        )


@dataclass(frozen=True)
class Outcome:
    """What checking and counting one candidate gave: not `legal` (with the `violations`'
    kinds), or legal with its signed objective `vector` (smaller is better), or legal and
    `pruned` (a vector of the task's front so far dominates its partial lower bounds), or
    legal with an `error` (isl gave up)."""

    legal: bool
    violations: tuple[str, ...] = ()
    vector: tuple | None = None
    pruned: bool = False
    error: str | None = None

    @property
    def counted(self) -> bool:
        """Legal and counted to the end: it has an objective vector."""
        return self.legal and not self.pruned and self.error is None

    def to_record(self) -> dict[str, Any]:
        """The journal's JSON object: {"legal": false, "violations": [...]}, {"legal": true,
        "vector": [...]}, {"legal": true, "pruned": true} or {"legal": true, "error": "..."}."""
        if not self.legal:
            return {"legal": False, "violations": list(self.violations)}
        if self.pruned:
            return {"legal": True, "pruned": True}
        if self.error is not None:
            return {"legal": True, "error": self.error}
        return {"legal": True, "vector": list(self.vector)}

    @classmethod
    def from_record(cls, record: Any, size: int, source: str | None = None) -> Outcome:
        """The outcome of a JSON object of `to_record` (keys it does not know are ignored), its
        vector of `size` objectives; a damaged one is bad input of `source` (the journal)."""
        if not isinstance(record, dict) or not isinstance(record.get("legal"), bool):
            raise InputError(DAMAGED, str(source))
        if not record["legal"]:
            return cls(False, tuple(record.get("violations") or ()))
        if record.get("pruned"):
            return cls(True, pruned=True)
        if "error" in record:
            return cls(True, error=str(record["error"]))
        vector = record.get("vector")
        if not isinstance(vector, list) or len(vector) != size:
            raise InputError(DAMAGED, str(source))
        return cls(True, vector=tuple(vector))


def illegal(*kinds: str) -> Outcome:
    """The outcome of a candidate with these kinds of violation."""
    return Outcome(False, tuple(kinds))


def signed_values(analysis: Analysis, objectives: Sequence[str]) -> list[int | float]:
    """The objectives of one analysis, each signed so that smaller is better."""
    return [OBJECTIVES[name].signed(OBJECTIVES[name].value(analysis)) for name in objectives]


def count_task(task: CandidateTask) -> Outcome:
    """Check and count one generated candidate (the work of one task of the search).

    Objectives that read fields only the plain model fills (`PLAIN_OBJECTIVES`) are counted
    with `validate` and `analyze`, once `beaten_before_plain` has not pruned the candidate
    against the task's front; so are candidates on an arch whose same-step links form a
    cycle (their starved groups, `tenet.model.same_step`). Otherwise, with the task's
    `Candidate` (and no tiles, no per-step numbers) and a workload whose candidates share
    counts by renaming of loops, by `analyze_renamed`; else by `analyze_candidate` after the
    order check, with the memory levels' traffic when the task has tile depths."""
    shared = shared_work(task.context)
    if any(objective in PLAIN_OBJECTIVES for objective in task.objectives):
        if task.front_so_far and beaten_before_plain(shared, task):
            return Outcome(True, pruned=True)
        return _count_plain(shared, task)
    if shared.same_step_groups():  # starved same-step groups: counted by the plain model
        return _count_plain(shared, task)
    if shared.outside_facts(task.space)[0]:  # used PEs off an array that is not a box
        return illegal("outside_array")
    shares = task.candidate is not None and not task.tiles and not task.per_step
    renaming = shared.renaming() if shares else None
    try:
        with operations_limit(task.max_operations, f"analyzing {task.name!r}", None):
            if renaming is not None:  # no flow dependences: every generated candidate is legal
                analysis = _renamed(shared, renaming, task, task.front_so_far)
            else:
                analysis = _count_ordered(shared, task)
    except Beaten:
        return Outcome(True, pruned=True)
    except IslLimitError as exc:
        return Outcome(True, error=exc.text())
    if isinstance(analysis, Outcome):
        return analysis
    return Outcome(True, vector=tuple(signed_values(analysis, task.objectives)))


def beaten_before_plain(shared: SharedWork, task: CandidateTask) -> bool:
    """The floors of a candidate the plain model would count (`PLAIN_OBJECTIVES`), with its
    unique words counted the shared way (`analyze_renamed`, else `analyze_candidate`): True
    when the front so far dominates them (the candidate cannot join it). On an arch with
    same-step groups the shared counts follow TENET's literal rule, and the floor prices
    what that rule may carry rather than fetch at the cheaper of the two
    (`tenet.explore.prune.WordPrices`). Candidates off the array are left to the plain
    model."""
    if shared.outside_facts(task.space)[0]:
        return False
    try:
        _shared_floors(shared, task, task.front_so_far, None)
    except Beaten:
        return True
    except IslLimitError:
        return False
    return False


def floor_task(task: CandidateTask) -> list[float] | None:
    """The signed lower bounds of one candidate's objectives with every side counted the
    shared way (those `beaten_before_plain` tests); None for a candidate off the array or
    over the isl budget (its floors are not refined)."""
    shared = shared_work(task.context)
    if shared.outside_facts(task.space)[0]:
        return None
    found: list[tuple] = []
    try:
        _shared_floors(shared, task, None, found)
    except IslLimitError:
        return None
    return list(found[0]) if found else None


def floor_chunk(tasks: list[tuple[str, CandidateTask]]) -> dict[str, list[float] | None]:
    """`floor_task` of several candidates as one task of `run_tasks` ((key, task) pairs ->
    {key: signed floors or None})."""
    return {key: floor_task(task) for key, task in tasks}


def _shared_floors(
    shared: SharedWork,
    task: CandidateTask,
    front_so_far: Sequence[Sequence] | None,
    floors_out: list[tuple] | None,
) -> None:
    """Count a candidate's sides the shared way for its floors: raises `Beaten` when
    `front_so_far` dominates them, appends them to `floors_out` when given."""
    renaming = shared.renaming() if task.candidate is not None else None
    with operations_limit(task.max_operations, f"analyzing {task.name!r}", None):
        if renaming is not None:
            _renamed(shared, renaming, task, front_so_far, floors_out)
        else:
            space = shared.space_map(task.space)
            time = parse_union_map(task.time).intersect_domain(shared.workload.domain)
            analyze_candidate(
                shared, task.name, space, time, False, task.objectives, front_so_far, floors_out
            )


def _renamed(
    shared: SharedWork,
    renaming: LoopRenaming,
    task: CandidateTask,
    front_so_far: Sequence[Sequence] | None,
    floors_out: list[tuple] | None = None,
) -> Analysis:
    """`analyze_renamed` of the task's candidate, for its objectives."""
    return analyze_renamed(
        shared,
        renaming,
        task.name,
        task.candidate,
        task.space,
        task.time,
        task.objectives,
        front_so_far,
        floors_out,
    )


def _count_ordered(shared: SharedWork, task: CandidateTask) -> Analysis | Outcome:
    """The order check and `analyze_candidate`, with the memory levels of the task's tile
    depths (docs/levels.md); an illegal Outcome when the order or a level's capacity fails."""
    space = shared.space_map(task.space)
    time = parse_union_map(task.time).intersect_domain(shared.workload.domain)
    if not runs_in_order(shared, time):
        return illegal("dependence")
    analysis = analyze_candidate(
        shared, task.name, space, time, task.per_step, task.objectives, task.front_so_far
    )
    if task.tiles:
        tiles = dict(task.tiles)
        levels = candidate_levels(shared.workload, shared.arch, space, time, tiles)
        if over_capacity(levels):
            return illegal(OVER_CAPACITY)
        analysis = replace(analysis, levels=levels)
    return analysis


def count_chunk(tasks: list[tuple[str, CandidateTask]]) -> dict[str, dict[str, Any]]:
    """`count_task` of several candidates as one task of `run_tasks` ((key, task) pairs ->
    {key: outcome record}): one worker counts them all, with its shared counts at hand."""
    return {key: count_task(task).to_record() for key, task in tasks}


def _count_plain(shared: SharedWork, task: CandidateTask) -> Outcome:
    """`validate` and `analyze` of one candidate, as `tenet analyze` does them (with the
    memory levels' tiles; a level that does not fit makes it illegal for the search)."""
    from tenet.analysis.validate import validate
    from tenet.model.dataflow import Dataflow
    from tenet.model.metrics import analyze

    dataflow = Dataflow(
        task.name, parse_union_map(task.space), parse_union_map(task.time), tiles=dict(task.tiles)
    )
    if not known_legal(shared, task):
        verdict = validate(shared.workload, shared.arch, dataflow)
        if not verdict.legal:
            return illegal(*sorted({v.kind for v in verdict.violations}))
    try:
        analysis = analyze(
            shared.workload,
            shared.arch,
            dataflow,
            task.max_operations,
            per_step=task.per_step,
            simplify_relations=False,
        )
    except IslLimitError as exc:
        return Outcome(True, error=exc.text())
    if over_capacity(analysis.levels):
        return illegal(OVER_CAPACITY)
    return Outcome(True, vector=tuple(signed_values(analysis, task.objectives)))


def known_legal(shared: SharedWork, task: CandidateTask) -> bool:
    """A generated candidate is legal without `validate` when the workload has no flow
    dependences (`SharedWork.renaming`) and its used PEs are on the array: its maps are
    functions and its stamp determines its instance (`tenet.explore.candidate_counts`), so
    only `outside_array` could fail. Front members are validated again all the same."""
    if task.candidate is None or shared.renaming() is None:
        return False
    return shared.outside_facts(task.space)[0] == 0
