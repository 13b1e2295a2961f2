"""`tenet workload show`: the statements, domains, accesses, parameters and exact counts of a
workload (a YAML file, a preset, or a C or Python loop nest)."""

from __future__ import annotations

import argparse

from tenet.cli.common import add_set_argument, emit, parse_sets
from tenet.errors import InputError

EXAMPLE = "example: tenet workload show -w examples/loopnests/gemm.c --set NI=64 --format json"


def add_parser(sub) -> None:
    p = sub.add_parser(
        "workload",
        help="show a workload: statements, domains, accesses, exact counts (C/Python loop nests too)",
        description="Commands on one workload. 'show' prints its statements (domain, "
        "instances, program order, accesses), parameters and tensors (shape, read and write "
        "footprints), every count exact (barvinok).",
        epilog=EXAMPLE,
    )
    actions = p.add_subparsers(dest="action", metavar="ACTION", parser_class=type(p))
    show = actions.add_parser(
        "show",
        help="statements, domains, accesses, parameters and exact counts",
        description="Print a workload: its statements with their iteration domains, instance "
        "counts, 2d+1 program order (loop nests) and access relations, and its tensors with "
        "their shapes and read/write footprints, counted exactly at the parameter values. "
        "-w takes a workload YAML, a preset name, a C file (the '#pragma scop' region, or "
        "--function NAME) or a Python file (its kernel function). --format yaml writes a "
        "workload YAML that reads back to the same workload. Exit 2 on bad input, including "
        "a construct that is not affine (FILE:LINE:COL: construct not affine: ...).",
        epilog=EXAMPLE,
    )
    show.add_argument(
        "-w",
        "--workload",
        metavar="FILE",
        required=True,
        help="workload YAML, a preset name, or a loop nest (FILE.c, FILE.py)",
    )
    show.add_argument(
        "--function",
        metavar="NAME",
        help="the function whose body is the kernel (C: instead of the '#pragma scop' "
        "region; Python: when the file has several functions)",
    )
    add_set_argument(show)
    show.add_argument(
        "--format",
        choices=("table", "json", "yaml"),
        default="table",
        help="output format (default: table)",
    )
    show.add_argument(
        "-o", "--output", metavar="FILE", help="write the result to FILE instead of stdout"
    )


def run(args: argparse.Namespace) -> int:
    if args.action != "show":
        raise InputError("expected an action: tenet workload show -w FILE")
    from tenet.formats.presets import resolve_workload
    from tenet.formats.workloads import load_any_workload, workload_summary, workload_yaml

    workload = load_any_workload(
        resolve_workload(args.workload), parse_sets(args.set), args.function
    )
    if args.format == "yaml":
        text = workload_yaml(workload, "'tenet workload show --format yaml'")
    elif args.format == "json":
        from tenet.report.serial import to_json

        text = to_json(workload_summary(workload)) + "\n"
    else:
        text = summary_text(workload_summary(workload))
    emit(text, args.output)
    return 0


def summary_text(summary: dict) -> str:
    """`workload show` as plain text: parameters, then each statement, then the tensors."""
    lines = [f"workload {summary['name']}  ({summary['source']})"]
    params = summary["params"]
    lines.append(
        "params      " + (", ".join(f"{k}={v}" for k, v in params.items()) if params else "none")
    )
    for st in summary["statements"]:
        origin = f"  ({st['origin']})" if st.get("origin") else ""
        noun = "instance" if st["instances"] == 1 else "instances"
        lines += ["", f"{st['name']}{origin}: {st['instances']:,} {noun}"]
        lines.append(f"  domain    {st['domain']}")
        if st.get("schedule"):
            lines.append(f"  order     {st['schedule']}")
        for acc in st.get("accesses", []):
            lines.append(f"  {acc['kind']:<9} {acc['relation']}")
        if st.get("accumulates"):
            lines.append(f"  updates   {', '.join(st['accumulates'])} (compound assignment)")
    rows = [("tensor", "shape", "read footprint", "write footprint")]
    for name, t in summary["tensors"].items():
        shape = "?" if t["shape"] is None else "[" + ", ".join(map(str, t["shape"])) + "]"
        rows.append((name, shape, f"{t['read_footprint']:,}", f"{t['write_footprint']:,}"))
    widths = [max(len(r[k]) for r in rows) for k in range(4)]
    lines.append("")
    for r in rows:
        lines.append(
            f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:>{widths[2]}}  {r[3]:>{widths[3]}}"
        )
    if summary.get("warnings"):
        lines += ["", *(f"warning: {w}" for w in summary["warnings"])]
    return "\n".join(lines) + "\n"
