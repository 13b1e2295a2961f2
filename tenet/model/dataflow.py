"""Dataflows: the space map S[n] -> PE[p] and the time map S[n] -> T[t]."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import islpy as isl

from tenet.errors import InputError
from tenet.model.arch import Arch
from tenet.model.warning_kinds import parse_silenced
from tenet.model.workload import Workload
from tenet.util.io import check_keys, expect_int, expect_mapping, expect_str, load_yaml
from tenet.util.isl_util import (
    fix_params,
    maps_of,
    name_of_map_domain,
    name_of_map_range,
    parse_union_map,
    sets_of,
)


@dataclass
class Dataflow:
    """Θ = { S[n] -> (PE[p] | T[t]) } as two relations, parsed but not yet bound."""

    name: str
    space: isl.UnionMap
    time: isl.UnionMap
    source: str | None = None
    # memory level name -> tile depth (docs/levels.md)
    tiles: dict[str, int] = field(default_factory=dict)
    # warning kind patterns (fnmatch) whose warnings are left out (`silenced_warnings:`)
    silenced_warnings: tuple[str, ...] = ()


@dataclass
class BoundDataflow:
    """A dataflow checked against a workload and an arch: maps restricted to D."""

    space_map: isl.UnionMap
    time_map: isl.UnionMap
    time_tuple: tuple[str, int]
    tiles: dict[str, int] = field(default_factory=dict)


def load_dataflow(path: str | Path) -> Dataflow:
    """Read a dataflow YAML file (`space` and `time` maps)."""
    source = str(path)
    data = load_yaml(path, "dataflow file")
    check_keys(
        data, ("name", "space", "time", "tiles", "silenced_warnings"), ("space", "time"), source
    )
    space = parse_dataflow_map(expect_str(data["space"], source, "space"), source, "space")
    time = parse_dataflow_map(expect_str(data["time"], source, "time"), source, "time")
    tiles = parse_tiles(data.get("tiles"), source)
    silenced = parse_silenced(data.get("silenced_warnings"), source)
    name = str(data.get("name") or Path(path).stem)
    return Dataflow(name, space, time, source, tiles, silenced_warnings=silenced)


def parse_tiles(raw: object, source: str | None) -> dict[str, int]:
    """The `tiles:` key: { LEVEL: DEPTH } with positive integer depths (checked against the
    arch's levels and the time stamp when the dataflow is analyzed)."""
    if raw is None:
        return {}
    raw = expect_mapping(raw, source, "tiles")
    return {str(name): expect_int(depth, source, f"tiles.{name}", 1) for name, depth in raw.items()}


def with_tiles(dataflow: Dataflow, tiles: dict[str, int]) -> Dataflow:
    """The dataflow with the given tile depths (level -> depth) overriding its own."""
    if not tiles:
        return dataflow
    return replace(dataflow, tiles={**dataflow.tiles, **tiles})


def parse_dataflow_map(
    text: str, source: str | None = None, key: str | None = None
) -> isl.UnionMap:
    """Parse a space or time map; refuse pieces that name the indices of one statement in
    different orders (isl merges them and reads all but the first piece by position)."""
    rel = parse_union_map(text, source, key)
    seen: dict[tuple[str, int], list[str | None]] = {}
    for piece in _pieces(text):
        try:
            maps = maps_of(isl.UnionMap(piece))
        except isl.Error:
            continue
        for m in maps:
            stmt, names = m.get_tuple_name(isl.dim_type.in_) or "", _index_names(m)
            first = seen.setdefault((stmt, len(names)), names)
            if any(a and b and a != b for a, b in zip(first, names)):
                raise InputError(
                    f"{_tuple_text(stmt, first)} and {_tuple_text(stmt, names)} order the indices "
                    f"of {stmt} differently (isl would read the second by position); write every "
                    f"piece of {stmt} in one order",
                    source,
                    key,
                )
    return rel


def _pieces(text: str) -> list[str]:
    """The `;`-separated pieces of isl map text, each as a map text of its own (none if one)."""
    start, end = text.find("{"), text.rfind("}")
    if ";" not in text or start < 0 or end < start:
        return []
    prefix, body = text[:start], text[start + 1 : end]
    pieces, depth, begin = [], 0, 0
    for pos, char in enumerate(body + ";"):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == ";" and depth == 0:
            if body[begin:pos].strip():
                pieces.append(f"{prefix}{{ {body[begin:pos]} }}")
            begin = pos + 1
    return pieces


def _index_names(m: isl.Map) -> list[str | None]:
    return [m.get_dim_name(isl.dim_type.in_, k) for k in range(m.dim(isl.dim_type.in_))]


def _tuple_text(name: str, names: list[str | None]) -> str:
    return f"{name}[{','.join(n or '_' for n in names)}]"


def loop_names(workload: Workload) -> dict[str, list[str | None]]:
    """The loop index names of each statement of a workload, in the order of its tuple."""
    return {
        dom.get_tuple_name(): [
            dom.get_dim_name(isl.dim_type.set, k) for k in range(dom.dim(isl.dim_type.set))
        ]
        for dom in sets_of(workload.domain)
    }


def _permuted(
    stmt: str, names: list[str | None], loops: list[str | None], source: str | None, key: str | None
) -> bool:
    """Whether the dataflow's index names are the statement's loops in another order; False
    when the tuple binds by position: the same names, or no names to match on either side
    (unnamed indices or loops). A name that is not a loop of the statement is refused."""
    if not any(names) or not all(loops) or len(set(loops)) != len(loops):
        return False  # unnamed indices or loops can only be matched by position
    unknown = ", ".join(repr(n) for n in names if n and n not in loops)
    if unknown:
        verb = "is not a loop" if "," not in unknown else "are not loops"
        raise InputError(
            f"{_tuple_text(stmt, names)}: {unknown} {verb} of {_tuple_text(stmt, loops)}",
            source,
            key,
        )
    if all(n is None or n == loop for n, loop in zip(names, loops)):
        return False
    if None in names:
        raise InputError(
            f"{_tuple_text(stmt, names)}: the indices are in another order than "
            f"{_tuple_text(stmt, loops)}, so each needs the name of its loop",
            source,
            key,
        )
    return True


def align_loops(
    rel: isl.UnionMap, workload: Workload, source: str | None = None, key: str | None = None
) -> isl.UnionMap:
    """`rel` with the indices of every statement tuple bound BY NAME to the workload's loops.

    `{ S[k,i,j] -> PE[i,j] }` on a workload `S[i,j,k]` becomes `{ S[i,j,k] -> PE[i,j] }`;
    a tuple whose names already match by position (or share none with the loops) is left
    as it is; a tuple that uses some loop names and also a name that is not a loop of the
    statement (`S[k,i,q]`) is an InputError.
    """
    loops = loop_names(workload)
    out, changed = None, False
    for m in maps_of(rel):
        stmt, names = m.get_tuple_name(isl.dim_type.in_), _index_names(m)
        stmt_loops = loops.get(stmt)
        if (
            stmt_loops is not None
            and len(stmt_loops) == len(names)
            and _permuted(stmt, names, stmt_loops, source, key)
        ):
            # { S[loops] -> S[names] } then the map: the same relation, read by name
            move = isl.Map(f"{{ {stmt}[{', '.join(stmt_loops)}] -> {stmt}[{', '.join(names)}] }}")
            m, changed = move.apply_range(m), True
        piece = isl.UnionMap.from_map(m)
        out = piece if out is None else out.union(piece)
    return out if changed else rel


def align_dataflow(dataflow: Dataflow, workload: Workload) -> Dataflow:
    """The dataflow with both maps bound by name to the workload's loops (see align_loops)."""
    return replace(
        dataflow,
        space=align_loops(dataflow.space, workload, dataflow.source, "space"),
        time=align_loops(dataflow.time, workload, dataflow.source, "time"),
    )


def bind_dataflow(dataflow: Dataflow, workload: Workload, arch: Arch) -> BoundDataflow:
    """Check tuple names and arities against workload and arch; restrict the maps to D.

    The indices of each statement tuple bind BY NAME to the workload's loops (align_loops).
    Raises InputError when the dataflow is not a function on D (one space and one
    time stamp per instance).
    """
    source = dataflow.source
    stmts = workload.statement_arities()  # an entry for a statement with no instance is kept
    maps = {}
    for key, rel in (("space", dataflow.space), ("time", dataflow.time)):
        for name, arity in name_of_map_domain(rel):
            if name not in stmts:
                raise InputError(
                    f"statement {name!r} is not in workload {workload.name!r} "
                    f"(its statements: {', '.join(stmts)})",
                    source,
                    key,
                )
            if stmts[name] != arity:
                raise InputError(
                    f"statement {name} has {stmts[name]} loop indices in the workload but {arity} here",
                    source,
                    key,
                )
        # by name before the parameters: a misspelled index used in the range is a parameter
        rel = align_loops(rel, workload, source, key)
        known = ", ".join(workload.params) or "none"
        rel = fix_params(
            rel, workload.params, source, key, hint=f"the workload's parameters are: {known}"
        )
        covered = {name for name, _ in name_of_map_domain(rel)}
        for name, _ in workload.statements:
            if name not in covered:
                raise InputError(f"no entry for statement {name}", source, key)
        maps[key] = rel.intersect_domain(workload.domain)
    pe = (arch.pe_tuple, arch.pe_arity)
    for name, arity in name_of_map_range(maps["space"]):
        if (name, arity) != pe:
            raise InputError(
                f"maps to {name}[{arity} dims] but arch {arch.name!r} has {pe[0]}[{pe[1]} dims]",
                source,
                "space",
            )
    time_tuples = set(name_of_map_range(maps["time"]))
    if not time_tuples:
        raise InputError("maps no instance of the workload's domain", source, "time")
    if len(time_tuples) != 1:
        raise InputError(
            "all statements must map to one time tuple of one arity, got "
            + ", ".join(f"{n}[{a} dims]" for n, a in sorted(time_tuples)),
            source,
            "time",
        )
    for key in ("space", "time"):
        rel = maps[key]
        if not rel.domain().is_equal(workload.domain) or not rel.is_single_valued():
            raise InputError(
                f"the {key} map is not a function on the iteration domain (an instance has no or "
                f"several {key} stamps); run 'tenet validate' for a counterexample",
                source,
                key,
            )
    return BoundDataflow(maps["space"], maps["time"], time_tuples.pop(), dict(dataflow.tiles))
