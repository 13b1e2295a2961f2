"""The progress of a search (`tenet.explore.dse`): done/total over its batches, the best
value so far of its first objective, or what it is doing when it counts no objective."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence

from tenet.explore.objectives import OBJECTIVES
from tenet.explore.stopping import Stopper


class SearchProgress:
    """Progress over the batches: done/total of the whole search, and the best value so far
    of the first objective."""

    def __init__(self, progress, total: int, objectives: Sequence[str]) -> None:
        self.progress = progress
        self.takes_note = bool(progress) and takes_note(progress)  # looked up once
        self.total = total
        self.objective = objectives[0]
        self.best: float | None = None
        self.offset = 0
        self.chunk_sizes: list[int] = []
        self.stopper: Stopper | None = None  # checked as chunks end (its deadline)
        self.note_text: str | None = None  # what the run is doing, when not counting

    def seen(self, vector: tuple) -> None:
        if self.best is None or vector[0] < self.best:
            self.best = vector[0]

    def note(self) -> str | None:
        if self.note_text is not None:
            return self.note_text
        if self.best is None:
            return None
        value = -self.best if OBJECTIVES[self.objective].maximize else self.best
        shown = f"{value:,}" if isinstance(value, int) else f"{value:.6g}"
        return f"best {self.objective} {shown}"

    def tick_chunks(self, done: int, _total: int) -> None:
        """tick, with `done` chunks of the batch finished (their sizes in `chunk_sizes`, about
        equal: the first `done` of them stand for those finished)."""
        self.tick(sum(self.chunk_sizes[:done]), _total)
        if self.stopper is not None:
            self.stopper.check()

    def tick(self, done: int, _total: int) -> None:
        if self.progress:
            call_progress(
                self.progress, self.offset + done, self.total, self.note(), self.takes_note
            )

    def done(self, done: int) -> None:
        if self.progress:
            call_progress(self.progress, done, self.total, self.note(), self.takes_note)


def call_progress(
    progress: Callable[..., None], done: int, total: int, note: str | None, takes_note: bool
):
    """progress(done, total, note=...) when it takes a note, else progress(done, total)."""
    if takes_note:
        progress(done, total, note=note)
    else:
        progress(done, total)


def takes_note(progress: Callable[..., None]) -> bool:
    """The progress callback has a `note` parameter."""
    try:
        return "note" in inspect.signature(progress).parameters
    except (TypeError, ValueError):
        return False
