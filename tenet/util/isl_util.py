"""Small helpers over islpy objects: parsing with readable errors, exact counting,
parameter substitution and an operations guard against blow-ups."""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Iterator, Mapping

import islpy as isl

from tenet.errors import InputError, IslLimitError, option_ref
from tenet.util.limits import DEFAULT_MAX_OPERATIONS

_NONAFFINE_PRODUCT = re.compile(r"[A-Za-z_]\w*\s*\*\s*[A-Za-z_(]|\)\s*\*\s*[A-Za-z_(]")


def _parse_hint(text: str) -> str:
    if _NONAFFINE_PRODUCT.search(text):
        return "not affine (a product of variables?) or not valid isl syntax"
    if text.count("{") != text.count("}") or text.count("[") != text.count("]"):
        return "unbalanced brackets"
    return "not valid isl syntax"


def _trailing_text(text: str) -> str:
    """Whatever follows the closing brace of the first top-level `{ ... }` (isl ignores it)."""
    depth = 0
    for pos, char in enumerate(text):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return text[pos + 1 :].strip()
    return ""


def _parse(kind: type, text: object, source: str | None, key: str | None):
    if not isinstance(text, str):
        raise InputError(f"expected isl text (a string), got {type(text).__name__}", source, key)
    stripped = " ".join(text.split())
    try:
        obj = kind(stripped)
    except isl.Error:
        raise InputError(
            f"isl cannot parse {stripped!r}: {_parse_hint(stripped)}", source, key
        ) from None
    trailing = _trailing_text(stripped)
    if trailing:
        raise InputError(
            f"unexpected text {trailing!r} after the closing brace in {stripped!r} "
            "(put every piece inside one '{ ...; ... }')",
            source,
            key,
        )
    return obj


def parse_union_set(
    text: object, source: str | None = None, key: str | None = None
) -> isl.UnionSet:
    """Parse isl set text, raising InputError that names the file, key and text."""
    return _parse(isl.UnionSet, text, source, key)


def parse_union_map(
    text: object, source: str | None = None, key: str | None = None
) -> isl.UnionMap:
    """Parse isl relation text, raising InputError that names the file, key and text."""
    return _parse(isl.UnionMap, text, source, key)


def param_names(obj) -> list[str]:
    """Names of the parameters of an isl object."""
    space = obj.get_space()
    return [space.get_dim_name(isl.dim_type.param, i) for i in range(space.dim(isl.dim_type.param))]


def fix_params(
    obj,
    values: Mapping[str, int],
    source: str | None = None,
    key: str | None = None,
    hint: str = "declare it in the workload's 'params'",
):
    """Substitute parameter values: `obj ∩ {params = values}`, parameters projected out."""
    names = param_names(obj)
    if not names:
        return obj
    missing = [n for n in names if n not in values]
    if missing:
        raise InputError(f"parameter {missing[0]!r} has no value ({hint})", source, key)
    context = _param_context(tuple((n, values[n]) for n in names))
    return obj.intersect_params(context).project_out_all_params()


@functools.lru_cache(maxsize=256)
def _param_context(pairs: tuple[tuple[str, int], ...]) -> isl.Set:
    """{ [names] -> { : name = value ... } }, parsed once per assignment (isl objects are
    values: every operation on one returns a new one)."""
    names = ", ".join(n for n, _ in pairs)
    return isl.Set(f"[{names}] -> {{ : {' and '.join(f'{n} = {v}' for n, v in pairs)} }}")


def simplify(obj):
    """Make implicit equalities explicit and merge pieces (detect_equalities + coalesce).

    Stamps of quasi-affine dataflows carry existential variables; exposing the
    equalities that pin them down keeps later subtractions from blowing up.
    """
    return obj.detect_equalities().coalesce()


def count(obj) -> int:
    """Exact number of integer points |X| of a parameter-free set or relation (barvinok)."""
    if isinstance(obj, (isl.UnionMap, isl.Map, isl.BasicMap)):
        obj = obj.wrap()
    if isinstance(obj, (isl.Set, isl.BasicSet)):
        obj = (
            isl.UnionSet.from_set(obj)
            if isinstance(obj, isl.Set)
            else isl.UnionSet.from_basic_set(obj)
        )
    card = obj.card()
    pieces: list = []
    card.foreach_pw_qpolynomial(pieces.append)
    total = 0
    for piece in pieces:
        if piece.dim(isl.dim_type.param):
            raise ValueError("count() needs a parameter-free object")
        value = piece.eval(isl.Point.zero(piece.get_domain_space())).to_python()
        total += int(value)
    return total


def sets_of(uset: isl.UnionSet) -> list[isl.Set]:
    """The sets of a union, one per space, as a Python list."""
    lst = uset.get_set_list()
    return [lst.get_at(i) for i in range(lst.n_set())]


def maps_of(umap: isl.UnionMap) -> list[isl.Map]:
    """The relations of a union, one per pair of spaces, as a Python list."""
    lst = umap.get_map_list()
    return [lst.get_at(i) for i in range(lst.n_map())]


def is_bounded(uset: isl.UnionSet) -> bool:
    """Whether every set of a union is bounded."""
    return all(s.is_bounded() for s in sets_of(uset))


def name_of_map_range(umap: isl.UnionMap) -> list[tuple[str, int]]:
    """(tuple name, arity) of each range space of a union relation."""
    out = []
    for m in maps_of(umap):
        space = m.get_space()
        out.append((m.get_tuple_name(isl.dim_type.out) or "", space.dim(isl.dim_type.out)))
    return out


def name_of_map_domain(umap: isl.UnionMap) -> list[tuple[str, int]]:
    """(tuple name, arity) of each domain space of a union relation."""
    out = []
    for m in maps_of(umap):
        space = m.get_space()
        out.append((m.get_tuple_name(isl.dim_type.in_) or "", space.dim(isl.dim_type.in_)))
    return out


@contextlib.contextmanager
def operations_limit(
    max_operations: int = DEFAULT_MAX_OPERATIONS, what: str = "", source: str | None = None
) -> Iterator[None]:
    """Run isl work under an operations quota; a blow-up becomes an IslLimitError."""
    if max_operations < 0:
        raise InputError(
            f"the isl operations limit must be >= 0, got {max_operations}", option="max_isl_ops"
        )
    ctx = isl.DEFAULT_CONTEXT
    old = ctx.get_max_operations()
    ctx.reset_operations()
    ctx.set_max_operations(max_operations)
    try:
        yield
    except isl.Error as exc:
        if "maximal number of operations" in str(exc):
            raise IslLimitError(
                f"isl exceeded {max_operations:,} operations{(' ' + what) if what else ''}; "
                f"the relations are too complex: fix some parameters with {option_ref('set')} "
                f"NAME=VALUE (or give them smaller values), or raise "
                f"{option_ref('max_isl_ops')} (0 = no limit)",
                source,
            ) from None
        raise
    finally:
        ctx.set_max_operations(old)
        ctx.reset_operations()
