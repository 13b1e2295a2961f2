"""A progress bar for long computations, shown only on an interactive terminal."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator

from rich.console import Console
from rich.progress import Progress


@contextlib.contextmanager
def progress_bar(description: str) -> Iterator[Callable[[int, int], None]]:
    """Yield `tick(done, total)`; draws on stderr when it is a terminal."""
    if not sys.stderr.isatty():
        yield lambda done, total: None
        return
    with Progress(transient=True, console=Console(stderr=True)) as progress:
        task = progress.add_task(description, total=None)

        def tick(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        yield tick
