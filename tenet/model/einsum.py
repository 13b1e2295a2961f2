"""Parsing einsum text such as ``C[i,j] += A[i,k] * B[k,j]`` into tensor references."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tenet.errors import InputError

_IDENT = r"[A-Za-z_]\w*"
_REF = re.compile(rf"\s*({_IDENT})\s*(?:\[([^\[\]]*)\])?\s*")
_INDEX_NAME = re.compile(_IDENT)


@dataclass(frozen=True)
class TensorRef:
    """One operand: a tensor name and its index expressions (affine text)."""

    tensor: str
    indices: tuple[str, ...]

    def isl_tuple(self) -> str:
        return f"{self.tensor}[{', '.join(self.indices)}]"

    def variables(self) -> set[str]:
        return {name for expr in self.indices for name in _INDEX_NAME.findall(expr)}


@dataclass(frozen=True)
class Einsum:
    """``output (+)= input_0 * input_1 * ...``"""

    output: TensorRef
    inputs: tuple[TensorRef, ...]
    accumulate: bool


def _parse_ref(text: str, source: str | None, key: str) -> TensorRef:
    match = _REF.fullmatch(text)
    if not match:
        raise InputError(
            f"cannot parse operand {text.strip()!r} (expected NAME[index, ...])", source, key
        )
    name, body = match.group(1), match.group(2)
    if body is None or not body.strip():
        return TensorRef(name, ())
    indices = tuple(" ".join(part.split()) for part in body.split(","))
    if any(not part for part in indices):
        raise InputError(f"empty index in {text.strip()!r}", source, key)
    return TensorRef(name, indices)


def _split_top_level(text: str, sep: str) -> list[str]:
    """Split at `sep` outside brackets (so ``I[2*p + r]`` stays whole)."""
    parts, depth, start = [], 0, 0
    for pos, char in enumerate(text):
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        elif char == sep and depth == 0:
            parts.append(text[start:pos])
            start = pos + 1
    parts.append(text[start:])
    return parts


def parse_einsum(text: object, source: str | None = None, key: str = "einsum") -> Einsum:
    """Parse ``OUT[...] += IN0[...] * IN1[...]`` (or ``=``)."""
    if not isinstance(text, str):
        raise InputError(f"expected einsum text, got {type(text).__name__}", source, key)
    if "+=" in text:
        lhs, rhs = text.split("+=", 1)
        accumulate = True
    elif text.count("=") == 1:
        lhs, rhs = text.split("=", 1)
        accumulate = False
    else:
        raise InputError(
            f"cannot parse {text!r}: expected 'OUT[...] += A[...] * B[...]'", source, key
        )
    output = _parse_ref(lhs, source, key)
    if not rhs.strip():
        raise InputError(f"cannot parse {text!r}: nothing on the right-hand side", source, key)
    inputs = tuple(_parse_ref(part, source, key) for part in _split_top_level(rhs, "*"))
    for ref in inputs:
        if ref.tensor == output.tensor:
            raise InputError(
                f"tensor {ref.tensor!r} is both read and written; use the isl 'statements' form",
                source,
                key,
            )
    return Einsum(output, inputs, accumulate)
