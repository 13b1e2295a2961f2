"""Reading input files: YAML with strict keys, and readable one-line errors."""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from tenet.errors import InputError


def read_text(path: str | Path, what: str = "file") -> str:
    """The text of a file, or an InputError for missing, unreadable or binary files."""
    p = Path(path)
    source = str(path)
    if not p.exists():
        raise InputError(f"{what} not found", source)
    if p.is_dir():
        raise InputError(f"{what} is a directory, expected a file", source)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {what}: {exc.strerror}", source) from None
    if b"\x00" in data:
        raise InputError(f"{what} is binary, not text", source)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{what} is not UTF-8 text (bad byte at offset {exc.start})", source
        ) from None


class DuplicateKey(Exception):
    """A mapping of a YAML file gives the same key twice."""

    def __init__(self, key: Any, line: int, first_line: int):
        super().__init__(key, line, first_line)
        self.key, self.line, self.first_line = key, line, first_line


@functools.cache
def _strict_loader():
    """yaml's SafeLoader, except that a key given twice in one mapping is an error (plain
    YAML lets the last one win silently)."""
    import yaml

    class StrictLoader(yaml.SafeLoader):
        def construct_mapping(self, node, deep=False):
            if isinstance(node, yaml.MappingNode):
                seen: dict[Any, int] = {}
                for key_node, _ in node.value:
                    if key_node.tag == "tag:yaml.org,2002:merge":
                        continue
                    key = self.construct_object(key_node, deep=True)
                    line = key_node.start_mark.line + 1
                    try:
                        if key in seen:
                            raise DuplicateKey(key, line, seen[key])
                    except TypeError:  # an unhashable key: yaml reports it below
                        continue
                    seen[key] = line
            return super().construct_mapping(node, deep)

    return StrictLoader


def load_yaml(path: str | Path, what: str = "YAML file") -> dict[str, Any]:
    """Parse a YAML file whose top level must be a mapping; a key given twice in one
    mapping is an error naming the key and both lines."""
    import yaml  # here, so that commands reading no YAML do not pay for it

    text = read_text(path, what)
    source = str(path)
    try:
        data = yaml.load(text, Loader=_strict_loader())  # a SafeLoader
    except DuplicateKey as exc:
        raise InputError(
            f"key given twice (line {exc.first_line} and line {exc.line}); "
            "YAML would keep only the last one",
            source,
            str(exc.key),
        ) from None
    except RecursionError:
        raise InputError("YAML nesting is too deep", source) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        raise InputError(f"YAML syntax error: {where}{problem}", source) from None
    if data is None:
        raise InputError("file is empty", source)
    if not isinstance(data, dict):
        raise InputError(
            f"expected a YAML mapping at the top level, got {type(data).__name__}", source
        )
    return data


def did_you_mean(name: str, names: Iterable[str]) -> str:
    """`did you mean X? ` (the names closest to `name`: difflib's ratio at least 0.6 and
    within 0.1 of the closest), or "" when none is close."""
    import difflib

    def ratio(other: str) -> float:
        return difflib.SequenceMatcher(None, str(name), other).ratio()

    scored = sorted(((ratio(str(n)), str(n)) for n in names), key=lambda p: -p[0])
    close = [n for r, n in scored if r >= 0.6 and r >= scored[0][0] - 0.1][:3]
    return f"did you mean {', '.join(close)}? " if close else ""


def check_keys(
    data: Mapping[str, Any],
    allowed: Iterable[str],
    required: Iterable[str] = (),
    source: str | None = None,
    prefix: str = "",
) -> None:
    """Reject unknown keys and report the first missing required key."""
    allowed = list(allowed)
    for key in data:
        if key not in allowed:
            raise InputError(
                f"unknown key ({did_you_mean(key, allowed)}expected one of: {', '.join(allowed)})",
                source,
                f"{prefix}{key}",
            )
    for key in required:
        if key not in data:
            raise InputError("missing required key", source, f"{prefix}{key}")


def expect_mapping(value: Any, source: str | None, key: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InputError(f"expected a mapping, got {type(value).__name__}", source, key)
    return value


def expect_int(value: Any, source: str | None, key: str, minimum: int | None = None) -> int:
    """An integer (not a bool or float), at least `minimum` if given."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"expected an integer, got {value!r}", source, key)
    if minimum is not None and value < minimum:
        rule = "positive" if minimum == 1 else f">= {minimum}"
        raise InputError(f"must be {rule}, got {value}", source, key)
    return value


def expect_number(value: Any, source: str | None, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"expected a number, got {value!r}", source, key)
    if not math.isfinite(value):
        raise InputError(f"must be a finite number, got {value}", source, key)
    if value < 0:
        raise InputError(f"must not be negative, got {value}", source, key)
    return value


def expect_str(value: Any, source: str | None, key: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"expected a string, got {type(value).__name__}", source, key)
    return value


_UNITS = {
    "B": 1,
    "KB": 10**3,
    "KIB": 2**10,
    "MB": 10**6,
    "MIB": 2**20,
    "GB": 10**9,
    "GIB": 2**30,
    "TB": 10**12,
    "TIB": 2**40,
}


def size_in_words(value: Any, word_bits: int, source: str | None, key: str) -> int:
    """A size as words: an integer is words; text with a unit is bytes ('64KiB', '1.5TiB')."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise InputError(f"must not be negative, got {value}", source, key)
        return value
    text = str(value).strip().upper().replace(" ", "")
    number = text.rstrip("KMGTIB")
    unit = text[len(number) :]
    try:
        amount = float(number)
    except ValueError:
        amount = None
    if amount is None or not math.isfinite(amount) or amount < 0 or (unit and unit not in _UNITS):
        raise InputError(
            f"cannot read size {value!r} (e.g. 4096 words, 64KiB, 1MiB, 16MB)", source, key
        )
    if not unit:
        if amount != int(amount):
            raise InputError(
                f"a size in words is a whole number, got {value!r} (or give bytes: 64KiB)",
                source,
                key,
            )
        return int(amount)
    return int(amount * _UNITS[unit] * 8 // word_bits)
