"""Error types: every bad input becomes one readable line and exit code 2."""

from __future__ import annotations


class TenetError(Exception):
    """Base class of the errors the CLI reports without a traceback."""

    exit_code = 1


class InputError(TenetError):
    """Bad input: names the file, the key (or isl text) at fault and what is wrong."""

    exit_code = 2

    def __init__(self, message: str, source: str | None = None, key: str | None = None):
        self.message = message
        self.source = source
        self.key = key
        super().__init__(self.line())

    def line(self) -> str:
        parts = [p for p in (self.source, self.key) if p]
        prefix = ": ".join(parts)
        return f"{prefix}: {self.message}" if prefix else self.message

    def at(self, source: str | None = None, key: str | None = None) -> InputError:
        """The same error, with a file or key filled in where it was missing."""
        return InputError(self.message, self.source or source, self.key or key)


class IslLimitError(InputError):
    """isl gave up: the relations are too complex for the operations limit."""
