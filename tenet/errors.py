"""Error types: every bad input becomes one readable line and exit code 2.

Library errors never name command-line flags. An error about an option the caller passed
(a keyword argument such as `max_isl_ops`, or the command line's flag for it) carries the
option's name in `option`, and a message that points at an option (a hint such as "raise
max_instances") writes it with `option_ref`. `InputError.line(flags)` writes both with the
names in `flags` (the command line passes its table option name -> flag) and otherwise with
the option names themselves."""

from __future__ import annotations

import re
from collections.abc import Mapping

#: How `option_ref` marks an option's name inside a message.
OPTION_REF = re.compile(r"\{option:([a-z_]+)\}")


def option_ref(name: str) -> str:
    """The option `name` inside an error message; `InputError.line` writes it as the flag
    the user typed (`max_isl_ops` -> `--max-isl-ops` on the command line)."""
    return "{option:" + name + "}"


def write_options(text: str, flags: Mapping[str, str] | None = None) -> str:
    """`text` with each `option_ref` written as `flags[name]`, else as the name itself."""
    names = flags or {}
    return OPTION_REF.sub(lambda m: names.get(m.group(1), m.group(1)), text)


class TenetError(Exception):
    """Base class of the errors the CLI reports without a traceback."""

    exit_code = 1


class InputError(TenetError):
    """Bad input: names the file or the option, the key (or isl text) at fault and what is
    wrong."""

    exit_code = 2

    def __init__(
        self,
        message: str,
        source: str | None = None,
        key: str | None = None,
        *,
        option: str | None = None,
    ):
        self.message = message
        self.source = source
        self.key = key
        self.option = option
        super().__init__(self.line())

    def line(self, flags: Mapping[str, str] | None = None) -> str:
        """`OPTION-or-SOURCE: KEY: MESSAGE`, each option named by `flags[name]` when given
        (else by its own name)."""
        names = flags or {}
        head = names.get(self.option, self.option) if self.option else self.source
        parts = [p for p in (head, self.key) if p]
        prefix = ": ".join(parts)
        message = self.text(flags)
        return f"{prefix}: {message}" if prefix else message

    def marked_line(self) -> str:
        """`line()` with its options still marked by `option_ref`: the message of an error
        that wraps this one (the command line then writes them as its flags)."""
        head = option_ref(self.option) if self.option else self.source
        return ": ".join(p for p in (head, self.key, self.message) if p)

    def text(self, flags: Mapping[str, str] | None = None) -> str:
        """The message alone, each `option_ref` written as `flags[name]` (else its name)."""
        return write_options(self.message, flags)

    def at(self, source: str | None = None, key: str | None = None) -> InputError:
        """The same error, with a file or key filled in where it was missing."""
        return type(self)(self.message, self.source or source, self.key or key, option=self.option)


class IslLimitError(InputError):
    """isl gave up: the relations are too complex for the operations limit."""
