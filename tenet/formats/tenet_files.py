"""TENET's own text inputs: statement (.s), PE array (.p) and mapping (.m) files."""

from __future__ import annotations

from pathlib import Path

from tenet.errors import InputError
from tenet.model.arch import Arch, Memory, check_pe_domain, make_link
from tenet.model.dataflow import Dataflow
from tenet.model.workload import RawStatement, Workload, build_workload
from tenet.util.io import read_text
from tenet.util.isl_util import count, fix_params, parse_union_map, parse_union_set


def _lines(path: str | Path, what: str) -> list[str]:
    return [line.strip() for line in read_text(path, what).splitlines() if line.strip()]


def _tensor_of(access: str, source: str, key: str) -> str:
    """TENET's rule: the tensor is the tuple name after the last '->'."""
    pos = access.rfind("->")
    name = access[pos + 2 :].split("[", 1)[0].strip() if pos >= 0 else ""
    if not name or not name.replace("_", "a").isalnum():
        raise InputError(
            f"cannot find the tensor name after the last '->' in {access!r}", source, key
        )
    return name


def load_statement(path: str | Path) -> Workload:
    """`R W` line, domain line, then R read and W write access lines."""
    source = str(path)
    lines = _lines(path, "statement file")
    if not lines:
        raise InputError("statement file is empty", source)
    head = lines[0].split()
    if len(head) != 2 or not all(h.isdigit() for h in head):
        raise InputError(f"line 1 must be two counts 'R W', got {lines[0]!r}", source, "line 1")
    n_read, n_write = int(head[0]), int(head[1])
    if len(lines) != 2 + n_read + n_write:
        raise InputError(
            f"expected {2 + n_read + n_write} non-empty lines (counts, domain, {n_read} reads, "
            f"{n_write} writes), found {len(lines)}",
            source,
        )
    accesses = []
    for n, text in enumerate(lines[2:]):
        key = f"line {n + 3}"
        side = "read" if n < n_read else "write"
        accesses.append((side, _tensor_of(text, source, key), text, key))
    raw = RawStatement(lines[1], "line 2", accesses)
    return build_workload(Path(path).stem, [raw], {}, source)


def load_pe_array(path: str | Path) -> Arch:
    """PE domain line, interconnect line, then `l1 l2 bandwidth avg_latency`."""
    source = str(path)
    lines = _lines(path, "PE array file")
    if len(lines) < 3:
        raise InputError(
            "expected 3 lines: PE domain, interconnect, 'l1 l2 bandwidth avg_latency'", source
        )
    domain = fix_params(
        parse_union_set(lines[0], source, "line 1"),
        {},
        source,
        "line 1",
        hint="TENET files take no parameters",
    )
    pe = check_pe_domain(domain, source, "line 1")
    link = make_link(
        parse_union_map(lines[1], source, "line 2"), domain, pe, source, "line 2", text=lines[1]
    )
    numbers = " ".join(lines[2:]).split()
    if len(numbers) != 4 or not all(x.isdigit() for x in numbers):
        raise InputError(
            f"expected four integers 'l1 l2 bandwidth avg_latency', got {' '.join(lines[2:])!r}",
            source,
            "line 3",
        )
    l1, l2, bandwidth, latency = map(int, numbers)
    if bandwidth <= 0:
        raise InputError("bandwidth must be positive", source, "line 3")
    return Arch(
        name=Path(path).stem,
        pe_domain=domain,
        pe_tuple=pe[0],
        pe_arity=pe[1],
        pe_count=count(domain),
        links=[link],
        memory=Memory(16, bandwidth, latency, l1, l2),
        source=source,
        same_step="tenet",  # TENET's own files: its literal counting, to reproduce the paper
    )


def load_mapping(path: str | Path) -> Dataflow:
    """Space map line, then time map line."""
    source = str(path)
    lines = _lines(path, "mapping file")
    if len(lines) != 2:
        raise InputError(f"expected 2 lines (space map, time map), found {len(lines)}", source)
    return Dataflow(
        Path(path).stem,
        parse_union_map(lines[0], source, "line 1"),
        parse_union_map(lines[1], source, "line 2"),
        source,
    )


def load_tenet(
    statement: str | Path, pe_array: str | Path, mapping: str | Path
) -> tuple[Workload, Arch, Dataflow]:
    return load_statement(statement), load_pe_array(pe_array), load_mapping(mapping)


def load_experiment(
    path: str | Path, base: str | Path | None = None
) -> tuple[Workload, Arch, Dataflow]:
    """A TENET experiment file: mapping, PE array and statement paths relative to `base`."""
    source = str(path)
    parts = read_text(path, "experiment file").split()
    if len(parts) != 3:
        raise InputError("expected three paths: mapping, PE array, statement", source)
    base = Path(base) if base is not None else Path(path).parent
    m, p, s = (base / part for part in parts)
    return load_tenet(s, p, m)
