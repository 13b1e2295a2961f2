"""Ski slopes as typed values: `FrontPoint` and `Front`.

A front is a staircase of (buffer words, backing-store accesses) points whose buffer
strictly rises and whose accesses strictly fall. It is read at a buffer size B as its last
point with buffer <= B (a step function: a schedule that fits a smaller buffer fits B).
Every front of tenet.bounds (Snowcat slopes, the spaces of `uneven`, the fusion fronts)
is a `Front`; its JSON is made only at output (`to_json`).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, eq=False)
class FrontPoint:
    """One point of a ski slope: exact buffer words and backing-store words.

    `detail` holds the JSON-able description of the mapping beyond its text (loops,
    positions, tiles, ...). A point of work that runs piece after piece (`Front.step_sum`)
    lists its pieces in `parts`; `segments` names the cut of a chain a point belongs to,
    and `source` keeps what rebuilds the mapping (a fusion plan, an uneven nest), never
    written to JSON."""

    buffer: int
    accesses: int
    mapping: str = ""
    detail: Mapping[str, Any] = field(default_factory=dict)
    parts: tuple[FrontPoint, ...] = ()
    segments: str | None = None
    source: Any = None

    @property
    def pieces(self) -> tuple[FrontPoint, ...]:
        """The points that run one after another to make this one (itself when alone)."""
        return self.parts or (self,)

    def to_dict(self) -> dict[str, Any]:
        """`buffer`, `accesses`, `mapping`, then the detail's keys."""
        return {
            "buffer": self.buffer,
            "accesses": self.accesses,
            "mapping": self.mapping,
            **self.detail,
        }


@dataclass(frozen=True)
class Front:
    """A ski slope: points with buffer strictly rising and accesses strictly falling."""

    points: tuple[FrontPoint, ...] = ()

    @classmethod
    def pareto(cls, points: Iterable[FrontPoint]) -> Front:
        """The staircase of `points`: sorted by (buffer, accesses), each kept when its accesses
        are below every point before it. Of equal points the first given is kept."""
        keep: list[FrontPoint] = []
        for point in sorted(points, key=lambda p: (p.buffer, p.accesses)):
            if not keep or point.accesses < keep[-1].accesses:
                keep.append(point)
        return cls(tuple(keep))

    def __iter__(self) -> Iterator[FrontPoint]:
        return iter(self.points)

    def __len__(self) -> int:
        return len(self.points)

    def __getitem__(self, index: int) -> FrontPoint:
        return self.points[index]

    def __bool__(self) -> bool:
        return bool(self.points)

    @property
    def buffers(self) -> list[int]:
        return [p.buffer for p in self.points]

    def at(self, words: int) -> FrontPoint | None:
        """The point that applies at buffer size `words`: the last one whose buffer fits,
        None when none does."""
        index = bisect_right(self.buffers, words)
        return self.points[index - 1] if index else None

    def accesses_at(self, words: int) -> int | None:
        """Accesses of the point at `words`, None when no point fits."""
        point = self.at(words)
        return point.accesses if point else None

    @staticmethod
    def step_sum(fronts: Iterable[Front]) -> Front:
        """Pieces run one after another, each with the whole buffer: at every buffer size the
        accesses of the pieces add. Empty when a piece has no point; starts at the largest of
        the pieces' smallest buffers."""
        fronts = [f for f in fronts if f is not None]
        if any(not f for f in fronts):
            return Front()
        if len(fronts) == 1:
            return fronts[0]
        start = max(f[0].buffer for f in fronts)
        sizes = sorted({p.buffer for f in fronts for p in f if p.buffer >= start} | {start})
        points = []
        for size in sizes:
            parts = [f.at(size) for f in fronts]
            points.append(
                FrontPoint(
                    size,
                    sum(p.accesses for p in parts),
                    parts=tuple(q for p in parts for q in p.pieces),
                )
            )
        return Front.pareto(points)

    def __add__(self, other: Front) -> Front:
        """The staircase of both fronts' points (the better option at every size)."""
        return Front.pareto([*self.points, *other.points])

    def to_json(self) -> list[dict[str, Any]]:
        """The points as JSON objects (`FrontPoint.to_dict`)."""
        return [p.to_dict() for p in self.points]

    to_dict = to_json
