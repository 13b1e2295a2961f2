"""A plain islpy script, with no tenet import: read TENET's three text files and count the
same sets `tenet analyze` counts for TENET's metrics (instances, PEs, steps, stamps, and per
tensor the total, unique, temporal-reuse and spatial-reuse volumes). bench_startup.py times
it against `tenet analyze --tenet` to measure what tenet's start-up and bookkeeping cost.

    python benchmarks/plain_islpy_counts.py STATEMENT.s PE.p MAPPING.m
"""

from __future__ import annotations

import sys

import islpy as isl


def count(obj) -> int:
    """|X| of a parameter-free set or relation, with barvinok."""
    if isinstance(obj, isl.UnionMap):
        obj = obj.wrap()
    pieces = []
    obj.card().foreach_pw_qpolynomial(pieces.append)
    zero = isl.Point.zero
    return sum(int(p.eval(zero(p.get_domain_space())).to_python()) for p in pieces)


def lines(path: str) -> list[str]:
    with open(path) as file:
        return [line.strip() for line in file if line.strip()]


def main(statement: str, pe_array: str, mapping: str) -> dict:
    s = lines(statement)
    reads, writes = (int(x) for x in s[0].split())
    dom = isl.UnionSet(s[1])
    accesses = {"read": s[2 : 2 + reads], "write": s[2 + reads : 2 + reads + writes]}
    p = lines(pe_array)
    pe_domain, links = isl.UnionSet(p[0]), isl.UnionMap(p[1])
    m = lines(mapping)
    space = isl.UnionMap(m[0]).intersect_domain(dom)
    time_map = isl.UnionMap(m[1]).intersect_domain(dom)
    stamp = space.range_product(time_map)
    out = {
        "instances": count(dom),
        "pes": count(dom.apply(space)),
        "steps": count(dom.apply(time_map)),
        "stamps": count(dom.apply(stamp)),
    }
    t_used = dom.apply(time_map)
    p_used = dom.apply(space)
    prev = t_used.lex_gt_union_set(t_used).lexmax()
    t_near = prev.union(t_used.identity())
    s_near = p_used.identity().apply_range(links.union(pe_domain.identity()))
    reuse = s_near.product(t_near).subtract(dom.apply(stamp).identity())
    temporal = p_used.identity().product(prev)
    spatial = p_used.identity().apply_range(links).subtract(pe_domain.identity()).product(t_near)
    for side, texts in accesses.items():
        for text in texts:
            access = isl.UnionMap(text).intersect_domain(dom)
            assignment = stamp.reverse().apply_range(access)
            out[(text, side)] = (
                count(access),
                count(assignment.subtract(reuse.apply_range(assignment))),
                count(assignment.subtract(temporal.apply_range(assignment))),
                count(assignment.intersect(spatial.apply_range(assignment))),
            )
    return out


if __name__ == "__main__":
    print(main(*sys.argv[1:4]))
