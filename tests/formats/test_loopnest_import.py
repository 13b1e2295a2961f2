"""The loop-nest importer: refused constructs, parameters, --function, the YAML round trip,
program order and real dependences in validate, and every command on imported workloads.

Counts of tests/data/loopnests/misc/triangle.{c,py} are worked out by hand below; the
dependences of seidel-2d and jacobi-1d are checked against an execution of the loops
written here (last writer of each element), independently of isl.
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import islpy as isl
import pytest

from tenet import analyze, load_arch, simulate
from tenet.analysis.validate import flow_dependences, validate
from tenet.errors import InputError
from tenet.formats.loopnest import load_loopnest
from tenet.formats.workloads import load_any_workload, workload_yaml
from tenet.model.dataflow import Dataflow
from tenet.model.relations import program_order
from tenet.model.workload import load_workload
from tenet.util.isl_util import maps_of
from tests.helpers import run_cli

DATA = Path(__file__).resolve().parent.parent / "data" / "loopnests"
ERRORS = sorted((DATA / "errors").iterdir())
KERNELS = sorted(
    p for p in [*DATA.glob("*.c"), *DATA.glob("*.py"), *(DATA / "misc").iterdir()] if p.is_file()
)
ARCH = "systolic-8x8"


def dataflow(space: str, time: str, name: str = "test") -> Dataflow:
    return Dataflow(name, isl.UnionMap(space), isl.UnionMap(time))


# --- refused constructs -------------------------------------------------------------------


@pytest.mark.parametrize("path", ERRORS, ids=lambda p: p.name)
def test_refused_construct_is_one_line_with_its_position(path, capsys):
    """Each file's first line says where the construct is (LINE:COL, checked by eye against
    the file) and what the message names."""
    expect = re.search(r"expect: (\d+):(\d+) (.*?)(?:\s*\*/)?$", path.read_text().split("\n")[0])
    line, col, what = expect.groups()
    rc, out, err = run_cli(["workload", "show", "-w", path], capsys)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1
    assert err.startswith(f"tenet: error: {path}:{line}:{col}: construct not affine: ")
    assert what in err


@pytest.mark.parametrize("command", ["analyze", "validate", "simulate"])
def test_refused_construct_in_other_commands(command, capsys):
    path = DATA / "errors" / "indirect.c"
    args = [command, "-w", path, "-a", ARCH, "-d", "gemm/os-systolic-8x8"]
    rc, _, err = run_cli(args, capsys)
    assert rc == 2 and f"{path}:8:7: construct not affine: indirect subscript" in err


def test_c_syntax_error_names_the_place(tmp_path, capsys):
    bad = tmp_path / "bad.c"
    bad.write_text("void f(double A[4])\n{\n#pragma scop\n  A[0] = ;\n#pragma endscop\n}\n")
    rc, _, err = run_cli(["workload", "show", "-w", bad], capsys)
    assert rc == 2 and err.startswith(f"tenet: error: {bad}:4:") and "C syntax error" in err


# --- counts worked out by hand ---------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".c", ".py"])
def test_triangle_counts_by_hand(suffix, capsys):
    """N = 5. S0: 5; S1 (j <= i): 1+2+3+4+5 = 15; S2: 5; S3 (k = 1, 3): 2; S4 (k = 4, 2, 0): 3;
    the ternary statement: 5. Footprints: L 15 (lower triangle), x 5 (x[0..4]), s 5 read and
    5 written, a 2 (i < 2), b 3 (b[3..5]), y 5 (odd 1..9), z 2, w 3, v 5."""
    rc, out, _ = run_cli(
        ["workload", "show", "-w", DATA / "misc" / f"triangle{suffix}", "--format", "json"],
        capsys,
    )
    assert rc == 0
    data = json.loads(out)
    assert data["params"] == {"N": 5}
    last = "scale" if suffix == ".c" else "S5"  # a C label names its statement
    names = ["S0", "S1", "S2", "S3", "S4", last]
    assert [s["name"] for s in data["statements"]] == names
    assert [s["instances"] for s in data["statements"]] == [5, 15, 5, 2, 3, 5]
    footprints = {
        t: (v["read_footprint"], v["write_footprint"]) for t, v in data["tensors"].items()
    }
    assert footprints == {
        "L": (15, 0),
        "x": (5, 0),
        "s": (5, 5),
        "a": (2, 0),
        "b": (3, 0),
        "y": (0, 5),
        "z": (0, 2),
        "w": (0, 3),
        "v": (0, 5),
    }
    shapes = {t: v["shape"] for t, v in data["tensors"].items()}
    assert shapes["y"] == [10]  # no size declared: one past the largest index, y[9]
    if suffix == ".c":
        assert shapes["b"] == [6] and shapes["L"] == [5, 5]  # declared b[N + 1], L[N][N]
    # the ternary: a[i] is read only where i < 2, b[i + 1] only where i >= 2
    ternary = data["statements"][-1]["accesses"]
    a_read = next(x["relation"] for x in ternary if x["tensor"] == "a")
    assert isl.Map(a_read).domain().is_equal(isl.Set(f"{{ {last}[i] : 0 <= i <= 1 }}"))


def test_triangle_program_order():
    """S4 runs k = 4, 2, 0: its program order decreases with k; S1 runs after S0 of its i."""
    w = load_loopnest(DATA / "misc" / "triangle.c")
    order = program_order(w)
    before = isl.UnionMap(
        "{ S4[4] -> S4[2]; S4[2] -> S4[0]; S0[3] -> S1[3, 0]; S1[2, 2] -> S0[3] }"
    )
    after = isl.UnionMap("{ S4[0] -> S4[2]; S1[3, 0] -> S0[3]; S2[1] -> S1[1, 1] }")
    assert before.is_subset(order)
    assert after.intersect(order).is_empty()


# --- parameters and --function ----------------------------------------------------------


def test_pb_names_defines_and_set(capsys):
    """`_PB_NI` is parameter NI with the file's #define NI 6 as default; --set overrides it."""
    gemm = DATA / "gemm.c"
    w = load_any_workload(gemm)
    assert w.params == {"NI": 6, "NJ": 7, "NK": 5}
    assert dict(w.statements) == {"S0": 2, "S1": 3}
    w = load_any_workload(gemm, {"NI": 2, "NK": 3})
    assert w.params == {"NI": 2, "NJ": 7, "NK": 3}
    rc, out, _ = run_cli(
        ["workload", "show", "-w", gemm, "--set", "NI=2", "--format", "json"], capsys
    )
    assert [s["instances"] for s in json.loads(out)["statements"]] == [2 * 7, 2 * 7 * 5]
    rc, _, err = run_cli(["workload", "show", "-w", gemm, "--set", "Q=2"], capsys)
    assert rc == 2 and "unknown parameter 'Q'" in err and "--set" in err


def test_undeclared_names_in_bounds_are_parameters(capsys):
    path = DATA / "misc" / "nodefault.c"
    rc, _, err = run_cli(["workload", "show", "-w", path], capsys)
    assert rc == 2 and "parameter 'N' has no value" in err
    w = load_any_workload(path, {"N": 3, "m": 4})
    assert w.params == {"N": 3, "m": 4}
    # i in 0..2, j in i..3: 4 + 3 + 2
    rc, out, _ = run_cli(
        ["workload", "show", "-w", path, "--set", "N=3", "--set", "m=4", "--format", "json"],
        capsys,
    )
    assert json.loads(out)["statements"][0]["instances"] == 9


@pytest.mark.parametrize("suffix, pairs", [(".c", 6 * 5 // 2), (".py", 4 * 3 // 2)])
def test_function_option(suffix, pairs, capsys):
    """second(): B[i][j] for j < i: N(N-1)/2 with N = 6 (C) or M = 4 (Python default)."""
    path = DATA / "misc" / f"functions{suffix}"
    rc, _, err = run_cli(["workload", "show", "-w", path], capsys)
    assert rc == 2 and "--function" in err
    rc, out, _ = run_cli(
        ["workload", "show", "-w", path, "--function", "second", "--format", "json"], capsys
    )
    data = json.loads(out)
    assert rc == 0 and data["name"] == "second"
    assert data["statements"][0]["instances"] == pairs
    assert data["tensors"]["A"]["read_footprint"] == (6 if suffix == ".c" else 4)
    rc, out, _ = run_cli(
        ["workload", "show", "-w", path, "--function", "first", "--format", "json"], capsys
    )
    assert json.loads(out)["statements"][0]["instances"] == 6
    rc, _, err = run_cli(["workload", "show", "-w", path, "--function", "third"], capsys)
    assert rc == 2 and "third" in err


def test_dispatch_on_suffix(tmp_path):
    assert load_any_workload(DATA / "gemm.py").statement_info["S1"].accumulates == ("C",)
    assert load_any_workload(DATA / "gemm.c").has_program_order()
    yaml_workload = load_any_workload(DATA.parents[2] / "workloads" / "gemm" / "workload.yaml")
    assert not yaml_workload.has_program_order()
    assert load_any_workload("gemm", {"M": 4}).params == {"M": 4, "N": 256, "K": 256}  # a preset
    with pytest.raises(InputError, match="applies only") as info:
        load_any_workload(DATA.parents[2] / "workloads" / "gemm" / "workload.yaml", None, "kernel")
    assert info.value.option == "function"


# --- the YAML round trip --------------------------------------------------------------------


def same_workload(a, b) -> bool:
    def same(x, y):
        return x.keys() == y.keys() and all(x[k].is_equal(y[k]) for k in x)

    return (
        a.statements == b.statements
        and a.params == b.params
        and a.domain.is_equal(b.domain)
        and same(a.statement_domains, b.statement_domains)
        and all(same(a.accesses[s], b.accesses[s]) for s in ("read", "write"))
        and a.program_schedule().is_equal(b.program_schedule())
        and a.tensor_shapes == b.tensor_shapes
        and all(
            a.statement_info[n].accumulates == b.statement_info[n].accumulates
            for n, _ in a.statements
        )
    )


@pytest.mark.parametrize(
    "path",
    # every other kernel in the default run, the rest with `-m slow`
    [pytest.param(p, marks=[pytest.mark.slow] if n % 2 else []) for n, p in enumerate(KERNELS)],
    ids=lambda p: str(p.relative_to(DATA)),
)
def test_yaml_round_trip(path, tmp_path, capsys):
    function = "second" if path.stem == "functions" else None
    sets = {"N": 4, "m": 6} if path.stem == "nodefault" else {}
    args = ["workload", "show", "-w", path, "--format", "yaml", "-o", tmp_path / "w.yaml"]
    args += [f"--set={k}={v}" for k, v in sets.items()]
    args += ["--function", function] if function else []
    assert run_cli(args, capsys)[0] == 0
    original = load_any_workload(path, sets, function)
    again = load_workload(tmp_path / "w.yaml")
    assert same_workload(original, again)
    # and the parameters stay symbolic: --set on the YAML is --set on the loop nest
    if original.params:
        name = next(iter(original.params))
        bigger = {**sets, name: original.params[name] + 1}
        assert same_workload(
            load_any_workload(path, bigger, function),
            load_workload(tmp_path / "w.yaml", {name: original.params[name] + 1}),
        )


def test_yaml_refuses_partial_schedules(tmp_path):
    text = workload_yaml(load_any_workload(DATA / "gemm.c"))
    broken = text.replace(
        "  schedule: '[NI, NJ, NK] -> { S0[i, j] -> [0, i, 0, j, 0, 0, 0] }'\n", ""
    )
    assert broken != text
    (tmp_path / "w.yaml").write_text(broken)
    with pytest.raises(InputError, match="schedule"):
        load_workload(tmp_path / "w.yaml")


# --- dependences ------------------------------------------------------------------------------


def dependence_pairs(rel: isl.UnionMap) -> set:
    pairs = set()
    for m in maps_of(rel):
        src, dst = m.get_tuple_name(isl.dim_type.in_), m.get_tuple_name(isl.dim_type.out)
        n_in = m.dim(isl.dim_type.in_)

        def add(point, src=src, dst=dst, n_in=n_in):
            coords = [
                point.get_coordinate_val(isl.dim_type.set, k).to_python()
                for k in range(point.get_space().dim(isl.dim_type.set))
            ]
            pairs.add(((src, tuple(coords[:n_in])), (dst, tuple(coords[n_in:]))))

        m.wrap().foreach_point(add)
    return pairs


def seidel_flow(tsteps: int, n: int) -> set:
    """Run seidel-2d's loops; each read's source is the element's last writer so far."""
    last: dict = {}
    pairs = set()
    for t, i, j in itertools.product(range(tsteps), range(1, n - 1), range(1, n - 1)):
        me = ("S0", (t, i, j))
        for di, dj in itertools.product((-1, 0, 1), repeat=2):
            if (i + di, j + dj) in last:
                pairs.add((last[(i + di, j + dj)], me))
        last[(i, j)] = me
    return pairs


def jacobi_1d_flow(tsteps: int, n: int) -> set:
    last: dict = {}
    pairs = set()
    for t in range(tsteps):
        for name, src, dst in (("S0", "A", "B"), ("S1", "B", "A")):
            for i in range(1, n - 1):
                me = (name, (t, i))
                for d in (-1, 0, 1):
                    if (src, i + d) in last:
                        pairs.add((last[(src, i + d)], me))
                last[(dst, i)] = me
    return pairs


def test_flow_dependences_of_seidel_and_jacobi_match_an_execution():
    seidel = load_any_workload(DATA / "seidel-2d.c", {"TSTEPS": 3, "N": 6})
    assert dependence_pairs(flow_dependences(seidel)) == seidel_flow(3, 6)
    jacobi = load_any_workload(DATA / "jacobi-1d.py", {"TSTEPS": 3, "N": 7})
    assert dependence_pairs(flow_dependences(jacobi)) == jacobi_1d_flow(3, 7)


def test_validate_seidel():
    """Original order on one PE: legal. Every (i, j) of a time step at once: illegal
    (S0[t, i, j] reads A[i-1][j] written in the same step). The wavefront 4t + 2i + j on
    PE[i, j] keeps every flow dependence forward: legal."""
    w = load_any_workload(DATA / "seidel-2d.c")
    arch = load_arch("archs/systolic-8x8.yaml")
    original = dataflow("{ S0[t, i, j] -> PE[0, 0] }", "{ S0[t, i, j] -> T[t, i, j] }")
    assert validate(w, arch, original).legal
    parallel = dataflow("{ S0[t, i, j] -> PE[i, j] }", "{ S0[t, i, j] -> T[t] }")
    result = validate(w, arch, parallel)
    assert not result.legal and [v.kind for v in result.violations] == ["dependence"]
    wavefront = dataflow("{ S0[t, i, j] -> PE[i, j] }", "{ S0[t, i, j] -> T[4t + 2i + j] }")
    assert validate(w, arch, wavefront).legal
    too_fast = dataflow("{ S0[t, i, j] -> PE[i, j] }", "{ S0[t, i, j] -> T[2t + i + j] }")
    assert not validate(w, arch, too_fast).legal  # S0[t, i-1, j+1] -> S0[t, i, j] at one step


def test_validate_jacobi_1d_time_loop():
    w = load_any_workload(DATA / "jacobi-1d.c")
    arch = load_arch("archs/systolic-8x8.yaml")
    in_order = dataflow(
        "{ S0[t, i] -> PE[0, 0]; S1[t, i] -> PE[0, 0] }",
        "{ S0[t, i] -> T[t, 0, i]; S1[t, i] -> T[t, 1, i] }",
    )
    assert validate(w, arch, in_order).legal
    swapped = dataflow(
        "{ S0[t, i] -> PE[0, 0]; S1[t, i] -> PE[0, 0] }",
        "{ S0[t, i] -> T[t, 1, i]; S1[t, i] -> T[t, 0, i] }",
    )
    assert not validate(w, arch, swapped).legal
    no_time_loop = dataflow(
        "{ S0[t, i] -> PE[0, 0]; S1[t, i] -> PE[0, 1] }",
        "{ S0[t, i] -> T[0, i, t]; S1[t, i] -> T[1, i, t] }",
    )
    assert not validate(w, arch, no_time_loop).legal  # S0 of step 1 needs S1 of step 0


def test_accumulations_are_free_unless_strict():
    """C[i][j] += ... over k on 8 PEs at one step: a reduction, legal by default; with
    --strict-reductions the updates of one element must be ordered: illegal. gemm's
    C *= beta must come before the updates in either mode."""
    arch = load_arch("archs/systolic-8x8.yaml")
    w = load_any_workload(DATA / "misc" / "matmul.c")
    spread = dataflow("{ S0[i, j, k] -> PE[k, 0] }", "{ S0[i, j, k] -> T[i, j] }")
    assert validate(w, arch, spread).legal
    assert not validate(w, arch, spread, strict_reductions=True).legal
    gemm = load_any_workload(DATA / "gemm.c")
    space = "{ S0[i, j] -> PE[i, j]; S1[i, k, j] -> PE[i, j] }"
    good = dataflow(space, "{ S0[i, j] -> T[0]; S1[i, k, j] -> T[k + 1] }")
    late = dataflow(space, "{ S0[i, j] -> T[5]; S1[i, k, j] -> T[k] }")
    assert validate(gemm, arch, good).legal
    assert validate(gemm, arch, good, strict_reductions=True).legal
    result = validate(gemm, arch, late)
    assert not result.legal and result.violations[0].kind == "dependence"


# --- commands on imported workloads --------------------------------------------------------------

GEMM_OS = (
    "name: os-gemm-c\n"
    'space: "{ S0[i, j] -> PE[i % 8, j % 8]; S1[i, k, j] -> PE[i % 8, j % 8] }"\n'
    'time: "{ S0[i, j] -> T[floor(i/8), floor(j/8), 0, i % 8 + j % 8]; '
    'S1[i, k, j] -> T[floor(i/8), floor(j/8), k + 1, i % 8 + j % 8] }"\n'
)


@pytest.mark.parametrize("suffix", [".c", ".py"])
def test_analyze_equals_simulate_on_imported_gemm(suffix, tmp_path, capsys):
    (tmp_path / "os.yaml").write_text(GEMM_OS)
    common = ["-w", DATA / f"gemm{suffix}", "-a", ARCH, "-d", tmp_path / "os.yaml"]
    common += ["--set", "NI=10", "--format", "json"]
    rc, out, _ = run_cli(["analyze", *common], capsys)
    assert rc == 0
    engine = json.loads(out)
    rc, out, _ = run_cli(["simulate", *common], capsys)
    brute = json.loads(out)
    engine, brute = (x[0] if isinstance(x, list) else x for x in (engine, brute))
    assert engine["instances"] == brute["instances"] == 10 * 7 + 10 * 5 * 7
    assert engine["tensors"] == brute["tensors"]
    assert engine["time_steps"] == brute["time_steps"]
    rc, out, _ = run_cli(["validate", *common[:-2]], capsys)
    assert rc == 0


def test_analyze_equals_simulate_on_jacobi_1d():
    w = load_any_workload(DATA / "jacobi-1d.py")
    arch = load_arch("archs/systolic-8x8.yaml")
    flow = dataflow(
        "{ S0[t, i] -> PE[0, i % 8]; S1[t, i] -> PE[1, i % 8] }",
        "{ S0[t, i] -> T[t, 0, floor(i/8)]; S1[t, i] -> T[t, 1, floor(i/8)] }",
    )
    engine, brute = analyze(w, arch, flow).to_dict(), simulate(w, arch, flow).to_dict()
    assert engine["tensors"] == brute["tensors"]
    assert engine["instances"] == brute["instances"] == 2 * 3 * 8


def test_trace_compare_dse_bounds_on_imported_workloads(tmp_path, capsys):
    (tmp_path / "os.yaml").write_text(GEMM_OS)
    gemm = ["-w", DATA / "gemm.c", "-d", tmp_path / "os.yaml"]
    rc, out, _ = run_cli(["trace", *gemm, "-a", ARCH, "--tensor", "A", "--format", "json"], capsys)
    assert rc == 0 and json.loads(out)
    rc, out, _ = run_cli(
        ["compare", *gemm, "-a", ARCH, "-a", "systolic-4x4", "--format", "json"], capsys
    )
    assert rc == 0
    matmul = DATA / "misc" / "matmul.py"
    rc, out, _ = run_cli(
        [
            "dse",
            "-w",
            matmul,
            "-a",
            "systolic-4x4",
            "--jobs",
            "1",
            "--limit",
            "6",
            "--format",
            "json",
        ],
        capsys,
    )
    assert rc == 0 and json.loads(out)
    rc, out, _ = run_cli(["bounds", "-w", DATA / "misc" / "matmul.c", "--format", "json"], capsys)
    report = json.loads(out)
    assert rc == 0 and report["shape"] == {"i": 8, "j": 8, "k": 8} and report["macs"] == 512
    # a kernel of several statements is not one einsum
    rc, _, err = run_cli(["bounds", "-w", DATA / "gemm.c"], capsys)
    assert rc == 2 and "single statement" in err


def test_show_table_lists_statements_and_tensors(capsys):
    rc, out, _ = run_cli(["workload", "show", "-w", DATA / "gemm.c"], capsys)
    assert rc == 0
    assert "S0" in out and "S1" in out and "210 instances" in out  # 6 * 5 * 7
    assert re.search(r"^C\s+\[6, 7\]\s+42\s+42$", out, re.MULTILINE)


def test_statements_that_run_no_instance(tmp_path, capsys):
    """correlation with M = 1: the loop `i < M - 1` runs no iteration, so S10..S13 have no
    instance; corr[M-1][M-1] = 1 (S14) runs once. They stay in the YAML, which at M = 3
    is the kernel at M = 3."""
    path = DATA / "correlation.c"
    rc, out, _ = run_cli(
        ["workload", "show", "-w", path, "--set", "M=1", "--format", "json"], capsys
    )
    assert rc == 0
    counts = {s["name"]: s["instances"] for s in json.loads(out)["statements"]}
    assert [counts[f"S{k}"] for k in range(10, 15)] == [0, 0, 0, 0, 1]
    w = load_any_workload(path, {"M": 1})
    assert "S10" not in dict(w.statements) and "S14" in dict(w.statements)
    (tmp_path / "w.yaml").write_text(workload_yaml(w))
    assert same_workload(
        load_workload(tmp_path / "w.yaml", {"M": 3}), load_any_workload(path, {"M": 3})
    )


def test_symbolic_analysis_of_a_loop_nest(tmp_path, capsys):
    """--symbolic keeps the kernel's parameters: with M = N = 64 fixed, 64 * 64 * K instances."""
    (tmp_path / "flow.yaml").write_text(
        'space: "{ S0[i, j, k] -> PE[i % 8, j % 8] }"\n'
        'time: "{ S0[i, j, k] -> T[floor(i/8), floor(j/8), k] }"\n'
    )
    args = ["analyze", "-w", DATA / "misc" / "matmul.c", "-a", ARCH, "-d", tmp_path / "flow.yaml"]
    rc, out, _ = run_cli([*args, "--symbolic", "--set", "M=64", "--set", "N=64"], capsys)
    assert rc == 0 and "instances = 4096*K" in out


@pytest.mark.parametrize("suffix", [".c", ".py"])
def test_features_counts_by_hand(suffix, capsys):
    """N = 6. i = 0, 2, 4; j from max(0, i-1) to min(N, i+2) - 1: 2 + 3 + 3 = 8 pairs, of
    which j even (S0): (0,0), (2,2), (4,4); j odd (S1): 5, writing A[i][j/2] = A[0][0],
    A[2][0], A[2][1], A[4][1], A[4][2]. A written: those and S0's, 7 distinct; A read (S1's
    update): 5. B read: B[j] for j = 1, 3, 5 and B[i] for i = 0, 2, 4: 6; written (i = 5, 3,
    1 going down): B[3] (S5) and B[1] (S6): 2. S2 `x = y = B[i]` is one statement."""
    rc, out, _ = run_cli(
        ["workload", "show", "-w", DATA / "misc" / f"features{suffix}", "--format", "json"], capsys
    )
    assert rc == 0
    data = json.loads(out)
    assert [s["instances"] for s in data["statements"]] == [3, 5, 3, 1, 1, 1, 1]
    footprints = {
        t: (v["read_footprint"], v["write_footprint"]) for t, v in data["tensors"].items()
    }
    assert footprints == {"A": (5, 7), "B": (6, 2), "x": (1, 1), "y": (0, 1), "t": (1, 1)}
    chained = data["statements"][2]["accesses"]
    assert sorted((a["tensor"], a["kind"]) for a in chained) == [
        ("B", "read"),
        ("x", "write"),
        ("y", "write"),
    ]
    order = program_order(load_any_workload(DATA / "misc" / f"features{suffix}"))
    assert isl.UnionMap("{ S5[3] -> S6[1]; S2[4] -> S3[]; S1[2, 3] -> S2[2] }").is_subset(order)


def test_isl_words_as_names(tmp_path, capsys):
    """A loop variable or a parameter named like an isl keyword is refused with its name; a
    scalar may be called `max` (a tensor name is a tuple name for isl)."""
    loop = tmp_path / "loop.py"
    loop.write_text("N = 4\n\n\ndef f(A):\n    for mod in range(N):\n        A[mod] = 0.0\n")
    rc, _, err = run_cli(["workload", "show", "-w", loop], capsys)
    assert rc == 2 and f"{loop}:5:5: loop variable 'mod'" in err
    param = tmp_path / "param.py"
    param.write_text("def f(A, max):\n    for i in range(max):\n        A[i] = 0.0\n")
    rc, _, err = run_cli(["workload", "show", "-w", param, "--set", "max=3"], capsys)
    assert rc == 2 and "parameter 'max'" in err
    scalar = tmp_path / "scalar.py"
    scalar.write_text(
        "N = 4\n\n\ndef f(A, B):\n    for i in range(N):\n        max = A[i]\n        B[i] = max\n"
    )
    w = load_any_workload(scalar)
    assert set(w.tensors) == {"A", "B", "max"}


# --- MIN/MAX macros in bounds, tensors untouched at some sizes, statements that never run ---


def test_min_macro_in_a_bound_counts_by_hand(tmp_path, capsys):
    """A strip-mined loop whose inner bound is a MIN macro (a ternary after expansion): with
    N = 10 and strips of 4 the inner loop runs 4 + 4 + 2 = 10 times; N = 3 gives 3."""
    path = tmp_path / "strips.c"
    path.write_text(
        "#define N 10\n"
        "#define MIN(a,b) ((a)<(b)?(a):(b))\n"
        "#define MAX(a,b) ((a)>(b)?(a):(b))\n"
        "void k(double A[N], double B[N]) {\n"
        "#pragma scop\n"
        "  for (int i = 0; i < N; i += 4)\n"
        "    for (int j = i; j < MIN(i+4, N); j++)\n"
        "      A[j] = A[j] * 2;\n"
        "  for (int j = 0; j < N; j++)\n"
        "    for (int r = MAX(j-1, 0); r <= j; r++)\n"
        "      B[j] += A[r];\n"
        "#pragma endscop\n"
        "}\n"
    )
    for n, first, second in ((10, 10, 1 + 2 * 9), (3, 3, 1 + 2 * 2)):
        rc, out, err = run_cli(
            ["workload", "show", "-w", path, "--set", f"N={n}", "--format", "json"], capsys
        )
        assert rc == 0, err
        counts = [s["instances"] for s in json.loads(out)["statements"]]
        assert counts == [first, second]


def test_ternary_that_is_not_min_or_max_is_refused(tmp_path, capsys):
    path = tmp_path / "pick.c"
    path.write_text(
        "#define N 10\nvoid k(double A[N]) {\n#pragma scop\n"
        "  for (int i = 0; i < (N > 4 ? 4 : 2); i++)\n    A[i] = 0;\n#pragma endscop\n}\n"
    )
    rc, out, err = run_cli(["workload", "show", "-w", path], capsys)
    assert rc == 2 and out == ""
    assert f"{path}:4:" in err and "construct not affine" in err


def test_tensor_untouched_at_these_sizes(capsys):
    """downsample at N = M = 1 never reads A: its footprints are 0 and its extent unknown;
    the scalar t keeps its 0-d shape."""
    path = DATA / "downsample.py"
    rc, out, err = run_cli(
        ["workload", "show", "-w", path, "--set", "N=1", "--set", "M=1", "--format", "json"],
        capsys,
    )
    assert rc == 0, err
    tensors = json.loads(out)["tensors"]
    assert tensors["A"] == {"shape": None, "read_footprint": 0, "write_footprint": 0}
    assert tensors["t"]["shape"] == []


def test_statement_that_never_runs_for_any_size(tmp_path, capsys):
    path = tmp_path / "never.py"
    path.write_text(
        "N = 4\n\ndef k(A):\n    for i in range(N):\n        if i < 0:\n            A[i] = 1\n"
    )
    rc, out, err = run_cli(["workload", "show", "-w", path, "--format", "json"], capsys)
    assert rc == 0, err
    shown = json.loads(out)
    assert [(s["name"], s["instances"]) for s in shown["statements"]] == [("S0", 0)]
    (warning,) = shown["warnings"]
    assert "S0" in warning and "never runs" in warning and "for every parameter value" in warning
