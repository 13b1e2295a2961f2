"""Warning kinds: `AnalysisWarning` (a message with its kind), `WARNING_KINDS`, and the
patterns that silence warnings by kind (`silenced_warnings:` in an arch or dataflow YAML,
`--silence` on the command line).

A small module of its own so that both `tenet.model.workload` (whose "statement never
runs" is a warning) and `tenet.model.checks` (which imports the workload) can use it."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from typing import Any, Self

from tenet.errors import InputError

#: Every warning kind, with what it flags.
WARNING_KINDS = {
    "statement_never_runs": "a statement's domain is empty for every parameter value",
    "outside_array": "used PEs lie outside the PE array (a validate outside_array violation)",
    "crowded_stamps": "some PE runs more than macs_per_pe MACs in one step (a pe_conflict)",
    "same_step_cycle": "same-step forward links form a cycle: free reuse nobody fetched",
    "unknown_link_tensor": "a link names a tensor the workload does not have",
    "idle_link": "an interconnect entry carries no reuse for this dataflow",
    "level_capacity": "a memory level's tiles need more words than the level holds",
    "untiled_level": "a memory level has no tile depth: its words with the level above are "
    "neither counted nor priced",
    "scratchpad_size": "the scratchpad's priced size is not memory.l2_words or not levels[0]'s "
    "capacity (which one wins is said)",
}

#: Kinds whose effect makes the counts of that analysis rest on something the model does
#: not allow a real array (PEs that do not exist, more MACs than a PE has, or values no one
#: fetched): `compare` does not rank such results.
SUSPECT_KINDS = frozenset({"outside_array", "crowded_stamps", "same_step_cycle"})


class AnalysisWarning(str):
    """A warning message (the `str` itself) with its `kind`, one of WARNING_KINDS."""

    kind: str

    def __new__(cls, kind: str, message: str) -> Self:
        if kind not in WARNING_KINDS:
            raise ValueError(f"unknown warning kind {kind!r}")
        self = super().__new__(cls, message)
        self.kind = kind
        return self

    def __reduce__(self) -> tuple[Any, ...]:  # pickled across worker processes with its kind
        return (AnalysisWarning, (self.kind, str(self)))

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "message": str(self)}


def warning_kind(warning: str) -> str | None:
    """The kind of a warning (None for a plain string, e.g. one read back from old JSON)."""
    return getattr(warning, "kind", None)


def with_kinds(messages: Iterable[str], kinds: Iterable[str | None] | None) -> list[str]:
    """Warnings read back from JSON: `warnings` paired with `warning_kinds` when given."""
    messages = list(messages)
    if kinds is None:
        return messages
    return [
        AnalysisWarning(kind, text) if kind in WARNING_KINDS else text
        for text, kind in zip(messages, kinds, strict=True)
    ]


def silence_patterns(
    patterns: Iterable[Any], source: str | None, key: str = "silenced_warnings"
) -> tuple[str, ...]:
    """Kind patterns (fnmatch: `*`, `?`, `[...]`), each checked to match some kind of
    WARNING_KINDS; InputError naming `source` and `key` otherwise."""
    out = []
    for pattern in patterns:
        if not isinstance(pattern, str) or not pattern:
            raise InputError(f"expected a warning kind or pattern, got {pattern!r}", source, key)
        if not fnmatch.filter(WARNING_KINDS, pattern):
            raise InputError(
                f"{pattern!r} matches no warning kind (the kinds: {', '.join(WARNING_KINDS)})",
                source,
                key,
            )
        out.append(pattern)
    return tuple(out)


def parse_silenced(raw: Any, source: str | None) -> tuple[str, ...]:
    """The YAML key `silenced_warnings`: a list of kind patterns (or one string)."""
    if raw is None:
        return ()
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list):
        raise InputError(
            f"expected a list of warning kinds, got {raw!r}", source, "silenced_warnings"
        )
    return silence_patterns(raw, source)


def is_silenced(warning: str, patterns: Sequence[str]) -> bool:
    """Whether some pattern matches the warning's kind (a warning without a kind is never
    silenced)."""
    kind = warning_kind(warning)
    return kind is not None and any(fnmatch.fnmatchcase(kind, p) for p in patterns)


def unsilenced(warnings: Iterable[str], patterns: Sequence[str]) -> list[str]:
    """The warnings no pattern silences, in their order."""
    return [w for w in warnings if not is_silenced(w, patterns)]
