"""How the search cuts its candidates into tasks: batches of growing size, and chunks of
candidates that share counts (one chunk is one task of `tenet.execution.run_tasks`)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from tenet.explore.renaming import LoopRenaming, candidate_key

if TYPE_CHECKING:
    from tenet.explore.tasks import CandidateTask

#: At most this many candidates per task, and a batch is cut into at least CHUNKS_PER_BATCH
#: tasks when it has that many candidates (small batches still spread over the workers).
CHUNK = 256
CHUNKS_PER_BATCH = 8


def task_chunks(
    tasks: dict[str, tuple[int, CandidateTask]],
    renaming: LoopRenaming | None = None,
) -> list[tuple[str, list[tuple[str, CandidateTask]]]]:
    """The tasks ({key: (index, task)}, taken in enumeration order) in chunks, each keyed by
    a digest of its keys: the candidates of one class together, cut into runs of at most
    min(CHUNK, ⌈n / CHUNKS_PER_BATCH⌉). A class is the candidates equal up to a renaming of
    loops (`candidate_key`, when the workload's candidates share counts that way:
    `renaming`), else those of one PE assignment. One worker then makes once the counts, the
    used PEs and most relations between stamps that a class shares (on the 16⁴ 3×3 conv of
    benchmarks/bench_compare_best.py no side's count is shared across classes, measured on
    its systolic and mesh spaces). The chunks depend only on the batch, so every way of
    running makes the same ones."""
    size = max(1, min(CHUNK, -(-len(tasks) // CHUNKS_PER_BATCH)))
    groups: dict[Any, list[tuple[str, CandidateTask]]] = {}
    for key, (_, task) in sorted(tasks.items(), key=lambda item: item[1][0]):
        groups.setdefault(chunk_class(task, renaming), []).append((key, task))
    out = []
    for members in groups.values():
        for start in range(0, len(members), size):
            run = members[start : start + size]
            digest = hashlib.sha256("\n".join(key for key, _ in run).encode()).hexdigest()[:16]
            out.append((f"chunk-{run[0][0]}-{digest}", run))
    return out


def chunk_weights(
    twins: dict[int, tuple[int, ...]], chunks, tasks: dict[str, tuple[int, Any]]
) -> list[int]:
    """Per chunk, the candidates it settles: its tasks and their `twins` (for the progress)."""
    return [sum(1 + len(twins.get(tasks[key][0], ())) for key, _ in chunk) for _, chunk in chunks]


def chunk_class(task: CandidateTask, renaming: LoopRenaming | None) -> Any:
    """The class of `task_chunks` a task's candidate belongs to."""
    if renaming is None or task.candidate is None:
        return task.candidate.spatial if task.candidate is not None else None
    return candidate_key(renaming.loops, task.candidate)


def batch_sizes(n: int, pruning: bool) -> Iterator[int]:
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
