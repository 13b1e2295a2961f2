"""`tenet validate` and `tenet trace`: violation counts against a brute-force checker
written here by enumeration, exit codes, the compact notation, the worked-example table."""

from __future__ import annotations

import json
from collections import defaultdict

import islpy as isl
import pytest

from tenet import load_arch, load_dataflow, load_workload
from tenet.analysis.validate import validate
from tenet.util.isl_util import maps_of, sets_of

from ..conftest import ARCHS, WORKLOADS
from ..helpers import run_cli, write_yaml


def points(uset) -> list[tuple[str, tuple[int, ...]]]:
    out = []
    for s in sets_of(uset):
        n = s.dim(isl.dim_type.set)
        s.foreach_point(
            lambda p, s=s, n=n: out.append(
                (
                    s.get_tuple_name(),
                    tuple(p.get_coordinate_val(isl.dim_type.set, i).to_python() for i in range(n)),
                )
            )
        )
    return out


def pairs(umap) -> list[tuple[tuple, tuple]]:
    out = []
    for m in maps_of(umap):
        n_in, n_out = m.dim(isl.dim_type.in_), m.dim(isl.dim_type.out)
        src, dst = m.get_tuple_name(isl.dim_type.in_), m.get_tuple_name(isl.dim_type.out)

        def add(p, src=src, dst=dst, n_in=n_in, n_out=n_out):
            xs = tuple(
                p.get_coordinate_val(isl.dim_type.set, i).to_python() for i in range(n_in + n_out)
            )
            out.append(((src, xs[:n_in]), (dst, xs[n_in:])))

        m.wrap().foreach_point(add)
    return out


def brute_force(workload, arch, dataflow) -> dict[str, int]:
    """Offending-instance counts of each check, by enumeration."""
    instances = points(workload.domain)
    space, time = defaultdict(set), defaultdict(set)
    for inst, pe in pairs(dataflow.space.intersect_domain(workload.domain)):
        space[inst].add(pe)
    for inst, t in pairs(dataflow.time.intersect_domain(workload.domain)):
        time[inst].add(t[1])
    counts = {"space_missing": 0, "space_several": 0, "time_missing": 0, "time_several": 0}
    for inst in instances:
        for key, table in (("space", space), ("time", time)):
            n = len(table.get(inst, ()))
            counts[f"{key}_missing"] += n == 0
            counts[f"{key}_several"] += n > 1
    array = set(points(arch.pe_domain))
    counts["outside"] = sum(
        1 for inst in instances if any(pe not in array for pe in space.get(inst, ()))
    )
    per_stamp = defaultdict(int)
    for inst in instances:
        for pe in space.get(inst, ()):
            for t in time.get(inst, ()):
                per_stamp[(pe, t)] += 1
    counts["conflict"] = sum(
        1
        for inst in instances
        if any(
            per_stamp[(pe, t)] > arch.macs_per_pe
            for pe in space.get(inst, ())
            for t in time.get(inst, ())
        )
    )
    return counts


def violation_counts(result) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for v in result.violations:
        if v.kind == "not_a_function":
            key = ("space" if "space stamp" in v.message else "time") + (
                "_missing" if "no " in v.message else "_several"
            )
            out[key] += v.count
        else:
            out[
                {"outside_array": "outside", "pe_conflict": "conflict", "dependence": "dependence"}[
                    v.kind
                ]
            ] += v.count
    return out


GEMM = WORKLOADS / "gemm" / "workload.yaml"
BROKEN = [
    (
        "{ S[i,j,k] -> PE[i % 4, j % 5] : k < 5; S[i,j,k] -> PE[0, 0] : k < 2 }",
        "{ S[i,j,k] -> T[floor(i/4), floor(j/4), k] }",
    ),
    ("{ S[i,j,k] -> PE[i % 4, j % 4] }", "{ S[i,j,k] -> T[floor(i/4), k] }"),
    ("{ S[i,j,k] -> PE[i, j] }", "{ S[i,j,k] -> T[k] : i + j < 9; S[i,j,k] -> T[k + 1] : j < 2 }"),
    ("{ S[i,j,k] -> PE[i % 4, floor(j/2)] }", "{ S[i,j,k] -> T[floor(i/4), j % 2, k] }"),
]


@pytest.mark.parametrize("space,time", BROKEN)
def test_violation_counts_match_enumeration(tmp_path, space, time):
    workload = load_workload(GEMM, {"M": 8, "N": 7, "K": 6})
    arch = load_arch(write_yaml(tmp_path, "a", {"name": "a", "pe": {"shape": [4, 4]}}))
    dataflow = load_dataflow(write_yaml(tmp_path, "d", {"name": "d", "space": space, "time": time}))
    result = validate(workload, arch, dataflow)
    expected = {k: v for k, v in brute_force(workload, arch, dataflow).items() if v}
    assert dict(violation_counts(result)) == expected
    assert result.legal == (not expected)


def test_macs_per_pe_allows_that_many(tmp_path):
    workload = load_workload(GEMM, {"M": 4, "N": 4, "K": 6})
    dataflow = load_dataflow(
        write_yaml(
            tmp_path,
            "d",
            {
                "name": "d",
                "space": "{ S[i,j,k] -> PE[i, j] }",
                "time": "{ S[i,j,k] -> T[floor(k/3)] }",
            },
        )
    )
    for macs, legal in ((1, False), (2, False), (3, True), (4, True)):
        arch = load_arch(
            write_yaml(
                tmp_path, f"a{macs}", {"name": "a", "pe": {"shape": [4, 4]}, "macs_per_pe": macs}
            )
        )
        result = validate(workload, arch, dataflow)
        assert result.legal == legal
        if not legal:
            assert (
                violation_counts(result)["conflict"]
                == brute_force(workload, arch, dataflow)["conflict"]
                == 96
            )


def test_dependences_of_a_two_statement_chain(tmp_path):
    workload = load_workload(WORKLOADS / "mmc" / "workload.yaml", {"M": 4, "N": 4, "K": 3, "L": 5})
    arch = load_arch(ARCHS / "systolic-8x8.yaml")
    good = load_dataflow(WORKLOADS / "mmc" / "dataflows" / "os-8x8.yaml")
    assert validate(workload, arch, good).legal
    backwards = load_dataflow(
        write_yaml(
            tmp_path,
            "d",
            {
                "name": "backwards",
                "space": "{ S0[i,j,k] -> PE[i, j]; S1[i,l,j] -> PE[i, l] }",
                "time": "{ S0[i,j,k] -> T[1, k]; S1[i,l,j] -> T[0, j] }",
            },
        )
    )
    result = validate(workload, arch, backwards)
    # Every S1 instance reads C[i,j], produced by S0 later: all 4*5*4 readers are offenders.
    assert [v.kind for v in result.violations] == ["dependence"]
    assert result.violations[0].count == 4 * 5 * 4
    # S1[i,l,j] at T[2, j, -1] needs the last update of C[i,j], S0[i,j,2] at T[2, 0, 0]:
    # later for j > 0, earlier for j = 0, so the 4*5 readers with j = 0 break.
    partly = load_dataflow(
        write_yaml(
            tmp_path,
            "s",
            {
                "name": "partly",
                "space": "{ S0[i,j,k] -> PE[i, j]; S1[i,l,j] -> PE[i, l] }",
                "time": "{ S0[i,j,k] -> T[k, 0, 0]; S1[i,l,j] -> T[2, j, -1] }",
            },
        )
    )
    result = validate(workload, arch, partly)
    assert [v.kind for v in result.violations] == ["dependence"]
    assert result.violations[0].count == 4 * 5


def test_strict_reductions(tmp_path):
    workload = load_workload(GEMM, {"M": 4, "N": 4, "K": 5})
    arch = load_arch(write_yaml(tmp_path, "a", {"name": "a", "pe": {"shape": [4, 4]}}))
    reversed_k = load_dataflow(
        write_yaml(
            tmp_path,
            "d",
            {"name": "d", "space": "{ S[i,j,k] -> PE[i, j] }", "time": "{ S[i,j,k] -> T[10 - k] }"},
        )
    )
    assert validate(workload, arch, reversed_k).legal  # accumulation order is free by default
    strict = validate(workload, arch, reversed_k, strict_reductions=True)
    assert [v.kind for v in strict.violations] == ["dependence"]
    assert strict.violations[0].count == 4 * 4 * 4  # every accumulation but the first per C[i,j]


def test_notation():
    workload = load_workload(GEMM)
    arch = load_arch(ARCHS / "systolic-8x8.yaml")
    result = validate(
        workload, arch, load_dataflow(WORKLOADS / "gemm" / "dataflows" / "os-systolic-8x8.yaml")
    )
    assert result.notation == "(I%8, J%8 - P | floor(I/8), floor(J/8), K+I%8+J%8 - T)"


def test_cli_exit_codes_and_json(tmp_path, capsys):
    base = [
        "validate",
        "-w",
        "gemm",
        "-a",
        "systolic-8x8",
        "--set",
        "M=16",
        "--set",
        "N=16",
        "--set",
        "K=8",
    ]
    rc, out, _ = run_cli([*base, "-d", "os-systolic-8x8"], capsys)
    assert rc == 0 and "legal" in out and "K+I%8+J%8 - T" in out
    rc, out, _ = run_cli([*base, "-d", "os-systolic-8x8", "--format", "json"], capsys)
    assert rc == 0 and json.loads(out) == {
        "legal": True,
        "workload": "gemm",
        "arch": "systolic-8x8",
        "dataflow": "os-systolic-8x8",
        "violations": [],
        "notation": "(I%8, J%8 - P | floor(I/8), floor(J/8), K+I%8+J%8 - T)",
    }
    conflict = write_yaml(
        tmp_path,
        "c",
        {
            "name": "c",
            "space": "{ S[i,j,k] -> PE[i % 8, j % 8] }",
            "time": "{ S[i,j,k] -> T[floor(i/8), floor(j/8)] }",
        },
    )
    rc, out, _ = run_cli([*base, "-d", str(conflict), "--format", "json"], capsys)
    data = json.loads(out)
    assert rc == 3 and not data["legal"]
    violation = data["violations"][0]
    assert violation["kind"] == "pe_conflict" and violation["count"] == 16 * 16 * 8
    assert (
        set(violation["example"]) == {"instances", "pe", "time"}
        and len(violation["example"]["instances"]) == 2
    )
    rc, _, err = run_cli([*base, "-d", "missing.yaml"], capsys)
    assert rc == 2 and err.count("\n") == 1


WORKED = {
    "statements": [
        {
            "domain": "{ S[i,j,k] : 0 <= i < 2 and 0 <= j < 2 and 0 <= k < 4 }",
            "reads": {"A": "{ S[i,j,k] -> A[i,k] }", "B": "{ S[i,j,k] -> B[k,j] }"},
            "writes": {"C": "{ S[i,j,k] -> C[i,j] }"},
        }
    ]
}


def test_trace_reproduces_the_worked_example(tmp_path, capsys):
    w = write_yaml(tmp_path, "w", {"name": "gemm", **WORKED})
    a = write_yaml(
        tmp_path,
        "a",
        {
            "name": "s",
            "pe": {"shape": [2, 2]},
            "interconnect": [
                {"relation": "{ PE[i,j] -> PE[i-1,j] }"},
                {"relation": "{ PE[i,j] -> PE[i,j-1] }"},
            ],
        },
    )
    d = write_yaml(
        tmp_path,
        "d",
        {"name": "d", "space": "{ S[i,j,k] -> PE[i,j] }", "time": "{ S[i,j,k] -> T[i+j+k] }"},
    )
    rc, out, _ = run_cli(
        ["trace", "-w", str(w), "-a", str(a), "-d", str(d), "--tensor", "A", "--format", "json"],
        capsys,
    )
    assert rc == 0
    cells = {
        (c["time"], c["pe"]): [e["element"] for e in c["elements"]]
        for c in json.loads(out)["cells"]
    }
    # docs/metrics.md's worked example, t = 0..3
    paper = {
        0: {"PE[0, 0]": "A[0, 0]"},
        1: {"PE[0, 0]": "A[0, 1]", "PE[0, 1]": "A[0, 0]", "PE[1, 0]": "A[1, 0]"},
        2: {
            "PE[0, 0]": "A[0, 2]",
            "PE[0, 1]": "A[0, 1]",
            "PE[1, 0]": "A[1, 1]",
            "PE[1, 1]": "A[1, 0]",
        },
        3: {
            "PE[0, 0]": "A[0, 3]",
            "PE[0, 1]": "A[0, 2]",
            "PE[1, 0]": "A[1, 2]",
            "PE[1, 1]": "A[1, 1]",
        },
    }
    for t, row in paper.items():
        for pe, element in row.items():
            assert cells[(f"T[{t}]", pe)] == [element]
    fetched = [
        e["element"] for c in json.loads(out)["cells"] for e in c["elements"] if not e["reused"]
    ]
    assert len(fetched) == 8  # each element of A enters the array once
    rc, out, _ = run_cli(
        [
            "trace",
            "-w",
            str(w),
            "-a",
            str(a),
            "-d",
            str(d),
            "--tensor",
            "A",
            "--plot",
            str(tmp_path / "t.png"),
        ],
        capsys,
    )
    assert rc == 0 and "A[0, 0]*" in out and (tmp_path / "t.png").read_bytes()[:4] == b"\x89PNG"
    rc, _, err = run_cli(
        ["trace", "-w", str(w), "-a", str(a), "-d", str(d), "--tensor", "Z"], capsys
    )
    assert rc == 2 and "unknown tensor 'Z'" in err
