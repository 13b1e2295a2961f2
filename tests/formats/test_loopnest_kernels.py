"""Imported loop nests against brute force: every kernel of tests/data/loopnests, C and Python.

For each kernel and parameter setting, `tenet workload show --format json` of the C file and of
the Python file must give, for every statement, the number of instances, and for every tensor,
the number of distinct elements read and written, that executing the Python twin with recording
arrays gives (tests/formats/loopnest_bruteforce.py, no tenet, no isl). Point by point too:
each domain is the set of executed instances, each access relation the (instance, element)
pairs touched, and the schedule orders the instances as the execution did. The C and Python
twins must agree with each other, and random kernels within the conventions (each with a C
twin) are checked the same way.
"""

from __future__ import annotations

import ast
import itertools
import json
import re
from pathlib import Path

import islpy as isl
import pytest

from tests.formats import loopnest_bruteforce as brute
from tests.helpers import run_cli

KERNELS_DIR = Path(__file__).resolve().parent.parent / "data" / "loopnests"

#: Per kernel: parameter settings beyond the files' defaults (non-square ones, edge sizes).
#: The first runs by default, the others are slow.
SETTINGS: dict[str, list[dict[str, int]]] = {
    "gemm": [
        {"NI": 3, "NJ": 5, "NK": 2},
        {"NI": 9, "NJ": 4, "NK": 11},
        {"NI": 1, "NJ": 1, "NK": 1},
    ],
    "2mm": [{"NI": 2, "NJ": 3, "NK": 4, "NL": 5}, {"NI": 7, "NJ": 2, "NK": 5, "NL": 8}],
    "3mm": [
        {"NI": 2, "NJ": 3, "NK": 4, "NL": 5, "NM": 6},
        {"NI": 6, "NJ": 5, "NK": 4, "NL": 3, "NM": 2},
    ],
    "atax": [{"M": 3, "N": 5}, {"M": 9, "N": 2}],
    "bicg": [{"M": 4, "N": 2}, {"M": 3, "N": 8}],
    "mvt": [{"N": 3}, {"N": 11}],
    "gesummv": [{"N": 3}, {"N": 10}],
    "gemver": [{"N": 2}, {"N": 9}],
    "syrk": [{"M": 3, "N": 4}, {"M": 8, "N": 3}],
    "syr2k": [{"M": 4, "N": 3}, {"M": 2, "N": 9}],
    "symm": [{"M": 4, "N": 2}, {"M": 7, "N": 5}, {"M": 1, "N": 3}],
    "trmm": [{"M": 3, "N": 5}, {"M": 8, "N": 2}],
    "doitgen": [{"NR": 2, "NQ": 3, "NP": 4}, {"NR": 4, "NQ": 2, "NP": 6}],
    "jacobi-1d": [{"TSTEPS": 2, "N": 5}, {"TSTEPS": 5, "N": 13}, {"TSTEPS": 1, "N": 2}],
    "jacobi-2d": [{"TSTEPS": 1, "N": 5}, {"TSTEPS": 3, "N": 9}, {"TSTEPS": 2, "N": 2}],
    "seidel-2d": [{"TSTEPS": 3, "N": 4}, {"TSTEPS": 2, "N": 10}],
    "heat-3d": [{"TSTEPS": 1, "N": 4}, {"TSTEPS": 3, "N": 7}],
    "fdtd-2d": [{"TMAX": 2, "NX": 3, "NY": 4}, {"TMAX": 4, "NX": 7, "NY": 2}],
    "adi": [{"TSTEPS": 1, "N": 4}, {"TSTEPS": 3, "N": 8}, {"TSTEPS": 2, "N": 2}],
    "lu": [{"N": 3}, {"N": 10}, {"N": 1}],
    "ludcmp": [{"N": 4}, {"N": 9}, {"N": 1}],
    "cholesky": [{"N": 4}, {"N": 11}],
    "trisolv": [{"N": 4}, {"N": 12}],
    "floyd-warshall": [{"N": 3}, {"N": 9}],
    "nussinov": [{"N": 5}, {"N": 12}, {"N": 1}],
    "covariance": [{"M": 3, "N": 5}, {"M": 8, "N": 3}],
    "correlation": [{"M": 3, "N": 5}, {"M": 7, "N": 4}, {"M": 1, "N": 3}],
    "conv2d-strided": [
        {"K": 2, "C": 3, "P": 2, "Q": 3, "R": 3, "S": 2},
        {"K": 3, "C": 2, "P": 4, "Q": 2, "R": 2, "S": 4},
        {"K": 1, "C": 1, "P": 1, "Q": 1, "R": 1, "S": 1},
    ],
    # beyond the issue's list: literal steps, min/max bounds, guards with else, chained
    # assignments, ternaries on loop variables
    "tiled-gemm": [{"NI": 9, "NJ": 5, "NK": 3, "K0": 1}, {"NI": 4, "NJ": 13, "NK": 6, "K0": 9}],
    "downsample": [{"N": 5, "M": 8}, {"N": 12, "M": 3}, {"N": 1, "M": 1}],
}


def _cases(files: tuple[str, ...]):
    """(kernel, file, setting) parameters: the defaults and the first setting run by default."""
    cases = []
    for kernel, settings in SETTINGS.items():
        for n, setting in enumerate([{}, *settings]):
            marks = [pytest.mark.slow] if n >= 2 else []
            ident = "defaults" if not setting else ",".join(f"{k}={v}" for k, v in setting.items())
            for suffix in files:
                cases.append(
                    pytest.param(
                        kernel, suffix, setting, marks=marks, id=f"{kernel}.{suffix}-{ident}"
                    )
                )
    return cases


_SHOWN: dict[tuple, dict] = {}
_BRUTE: dict[tuple, brute.BruteForce] = {}


def _set_args(setting: dict[str, int]) -> list[str]:
    return [arg for name, value in setting.items() for arg in ("--set", f"{name}={value}")]


def _show(path: Path, setting: dict[str, int], capsys) -> dict:
    """`tenet workload show -w path --set ... --format json`, parsed (once per run)."""
    key = (path, tuple(sorted(setting.items())))
    if key not in _SHOWN:
        args = ["workload", "show", "-w", path, *_set_args(setting), "--format", "json"]
        rc, out, err = run_cli(args, capsys)
        assert rc == 0, f"{path.name}: exit {rc}: {err.strip()}"
        _SHOWN[key] = json.loads(out)
    return _SHOWN[key]


def _brute(kernel: str, setting: dict[str, int]) -> brute.BruteForce:
    path = KERNELS_DIR / f"{kernel}.py"
    key = (path, tuple(sorted(setting.items())))
    if key not in _BRUTE:
        _BRUTE[key] = brute.run(path, setting)
    return _BRUTE[key]


def _expected_params(kernel: str, setting: dict[str, int]) -> dict[str, int]:
    return {**brute.defaults(KERNELS_DIR / f"{kernel}.py"), **setting}


def _access_kinds(statement: dict) -> set[tuple[str, str]]:
    return {(a["tensor"], a["kind"]) for a in statement["accesses"]}


@pytest.mark.parametrize(("kernel", "suffix", "setting"), _cases(("c", "py")))
def test_counts_equal_brute_force(kernel, suffix, setting, capsys):
    path = KERNELS_DIR / f"{kernel}.{suffix}"
    shown = _show(path, setting, capsys)
    expected = _brute(kernel, setting)
    where = f"{path.name} {setting or 'defaults'}"
    assert {k: int(v) for k, v in shown["params"].items()} == _expected_params(kernel, setting)
    _check_counts(shown, expected, where)


def _check_counts(shown: dict, expected: brute.BruteForce, where: str) -> None:
    """Statement names and instances, listed accesses, footprints, subscripts inside shapes."""
    names = [s["name"] for s in shown["statements"]]
    assert names == expected.statements, where
    for statement in shown["statements"]:
        name = statement["name"]
        assert statement["instances"] == expected.instances[name], f"{where} {name} instances"
        # every access that happened is listed (one in a ternary branch never taken at these
        # sizes may be listed too: its relation is empty, checked point by point below)
        kinds = {(t, k) for s, t, k in expected.accesses if s == name}
        assert kinds <= _access_kinds(statement), f"{where} {name} accesses"

    tensors = shown["tensors"]
    for tensor in sorted(expected.tensors):
        assert tensor in tensors, f"{where}: tensor {tensor} missing"
        got = (tensors[tensor]["read_footprint"], tensors[tensor]["write_footprint"])
        want = (expected.read_footprint(tensor), expected.write_footprint(tensor))
        assert got == want, f"{where} {tensor} (read, write) footprints"
    for tensor in set(tensors) - expected.tensors:
        got = (tensors[tensor]["read_footprint"], tensors[tensor]["write_footprint"])
        assert got == (0, 0), f"{where}: {tensor} is never accessed"

    # the kernel itself: subscripts stay inside the array (declared shape for C)
    for tensor in expected.tensors:
        extent = expected.extent(tensor)
        assert all(low >= 0 for low, _ in extent), f"{where}: {tensor} negative subscript"
        shape = tensors[tensor]["shape"]
        if isinstance(shape, list) and all(isinstance(d, int) for d in shape):
            assert len(shape) == len(extent), f"{where}: {tensor} rank"
            assert all(high < d for (_, high), d in zip(extent, shape)), f"{where}: {tensor} shape"


def _points(text: str, params: dict[str, int]) -> set[tuple]:
    """The integer points of an isl set, or the (in, out) pairs of an isl map, at `params`."""
    if "".join(text.split()) == "{}":  # an empty set printed without its space
        return set()
    obj = isl.Map(text) if "->" in text else isl.Set(text)
    for d in range(obj.dim(isl.dim_type.param)):
        name = obj.get_dim_name(isl.dim_type.param, d)
        obj = obj.fix_val(isl.dim_type.param, d, isl.Val(params[name]))
    n_in = obj.dim(isl.dim_type.in_) if isinstance(obj, isl.Map) else None
    space = obj.wrap() if isinstance(obj, isl.Map) else obj
    points: list[tuple] = []
    space.foreach_point(
        lambda p: points.append(
            tuple(
                p.get_coordinate_val(isl.dim_type.set, d).to_python()
                for d in range(space.dim(isl.dim_type.set))
            )
        )
    )
    if n_in is None:
        return set(points)
    return {(p[:n_in], p[n_in:]) for p in points}


@pytest.mark.parametrize(("kernel", "suffix", "setting"), _cases(("c", "py")))
def test_domains_relations_and_order_equal_brute_force(kernel, suffix, setting, capsys):
    path = KERNELS_DIR / f"{kernel}.{suffix}"
    shown = _show(path, setting, capsys)
    _check_points(shown, _brute(kernel, setting), f"{path.name} {setting or 'defaults'}")


def _check_points(shown: dict, expected: brute.BruteForce, where: str) -> None:
    """Point by point: each domain is the set of executed instances, each access relation maps
    every instance to the elements it touched, and the schedule orders the instances as the
    execution did."""
    params = {k: int(v) for k, v in shown["params"].items()}
    timestamps: dict[tuple, tuple] = {}
    for statement in shown["statements"]:
        name = statement["name"]
        domain = _points(statement["domain"], params)
        assert domain == expected.points.get(name, set()), f"{where} {name} domain"
        relations: dict[tuple, set] = {}
        for access in statement["accesses"]:
            key = (name, access["tensor"], access["kind"])
            relations.setdefault(key, set()).update(_points(access["relation"], params))
        for key in set(relations) | {k for k in expected.pairs if k[0] == name}:
            assert relations.get(key, set()) == expected.pairs.get(key, set()), f"{where} {key}"
        if statement.get("schedule"):
            for point, time in _points(statement["schedule"], params):
                timestamps[(name, point)] = time
    if timestamps:
        times = [timestamps[instance] for instance in expected.order]
        later = [b > a for a, b in itertools.pairwise(times)]
        assert all(later), f"{where}: schedule out of execution order at {later.index(False)}"


@pytest.mark.parametrize(("kernel", "suffix", "setting"), _cases(("c",)))
def test_c_and_python_twins_agree(kernel, suffix, setting, capsys):
    from_c = _show(KERNELS_DIR / f"{kernel}.c", setting, capsys)
    from_py = _show(KERNELS_DIR / f"{kernel}.py", setting, capsys)
    assert from_c["params"] == from_py["params"]
    assert [(s["name"], s["instances"]) for s in from_c["statements"]] == [
        (s["name"], s["instances"]) for s in from_py["statements"]
    ]
    for c_statement, py_statement in zip(from_c["statements"], from_py["statements"]):
        assert _access_kinds(c_statement) == _access_kinds(py_statement), c_statement["name"]

    def footprints(shown):
        return {
            name: (t["read_footprint"], t["write_footprint"])
            for name, t in shown["tensors"].items()
            if t["read_footprint"] or t["write_footprint"]
        }

    assert footprints(from_c) == footprints(from_py)


def test_every_kernel_has_both_twins():
    stems = {p.stem for p in KERNELS_DIR.glob("*.c")}
    assert stems == {p.stem for p in KERNELS_DIR.glob("*.py")} == set(SETTINGS)


# -- the brute forcer itself, on a kernel counted by hand --------------------------------------

TINY = """\
N = 4
M = 3


def kernel_tiny(N, M, A, B, C, D, s, alpha):
    t = 0.0
    for i in range(N - 1, -1, -1):
        for j in range(i, M):
            A[i, j] += alpha * B[j][i]
            t = s[i] = B[i][j] if i < j else C[j, i]
        if i >= 1:
            s[i] = max(s[i - 1], t) if s[i] > t else D[i]
        else:
            t += 1.0
"""


def test_brute_force_on_a_kernel_counted_by_hand(tmp_path):
    path = tmp_path / "tiny.py"
    path.write_text(TINY)
    result = brute.run(path)
    # i = 3, 2, 1, 0 and j in [i, 3): (2,2), (1,1), (1,2), (0,0), (0,1), (0,2): 6 points
    assert result.statements == ["S0", "S1", "S2", "S3", "S4"]
    assert result.instances == {"S0": 1, "S1": 6, "S2": 6, "S3": 3, "S4": 1}
    footprints = {t: (result.read_footprint(t), result.write_footprint(t)) for t in result.tensors}
    assert footprints == {
        "A": (6, 6),  # compound assignment: the 6 (i, j) read and written
        "B": (9, 0),  # S1 reads B[j][i] (6), S2 adds B[i][j] for i < j: all 9 of 3x3
        "C": (3, 0),  # affine ternary: C[j, i] only when i == j
        "D": (3, 0),  # data-dependent ternary: both branches read, D[3], D[2], D[1]
        "s": (4, 4),  # S3 reads s[i], s[i-1] for i = 3, 2, 1; S2 writes s[0..2], S3 s[1..3]
        "alpha": (1, 0),
        "t": (1, 1),
    }
    kinds = {(s, t, k) for s, t, k in result.accesses}
    assert {(t, k) for s, t, k in kinds if s == "S2"} == {
        ("B", "read"),
        ("C", "read"),
        ("t", "write"),
        ("s", "write"),
    }
    assert {(t, k) for s, t, k in kinds if s == "S4"} == {("t", "read"), ("t", "write")}
    assert result.extent("B") == ((0, 2), (0, 2))


def test_brute_force_gemm_closed_form():
    result = brute.run(KERNELS_DIR / "gemm.py", {"NI": 2, "NJ": 3, "NK": 4})
    assert result.instances == {"S0": 2 * 3, "S1": 2 * 3 * 4}
    assert result.read_footprint("B") == 4 * 3
    assert result.write_footprint("C") == 2 * 3


@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_brute_force_closed_forms(n):
    """Counts of the triangular and strided kernels by hand, as functions of the size."""
    lu = brute.run(KERNELS_DIR / "lu.py", {"N": n})
    # S0: sum over i of sum_{j<i} j = C(n, 3); S1: pairs j < i = C(n, 2); S2: sum_i (n - i) i
    assert lu.instances == {
        "S0": n * (n - 1) * (n - 2) // 6,
        "S1": n * (n - 1) // 2,
        "S2": sum((n - i) * i for i in range(n)),
    }
    syrk = brute.run(KERNELS_DIR / "syrk.py", {"N": n, "M": 3})
    assert syrk.instances == {"S0": n * (n + 1) // 2, "S1": 3 * n * (n + 1) // 2}
    assert syrk.read_footprint("C") == n * (n + 1) // 2  # the lower triangle
    nussinov = brute.run(KERNELS_DIR / "nussinov.py", {"N": n})
    # S4 runs for i < k < j: C(n, 3) times; S2 needs j >= i + 2, S3 j == i + 1
    assert nussinov.instances["S4"] == n * (n - 1) * (n - 2) // 6
    assert nussinov.instances["S2"] == (n - 1) * (n - 2) // 2
    assert nussinov.instances["S3"] == max(n - 1, 0)
    conv = brute.run(
        KERNELS_DIR / "conv2d-strided.py", {"K": 2, "C": 3, "P": n, "Q": 2, "R": 2, "S": 3}
    )
    # rows 2p + 2r: the even rows 0 .. 2(n - 1) + 2, that is n + 1 of them; columns 2q + s: 0 .. 4
    assert conv.read_footprint("I") == 3 * (n + 1) * 5


def test_brute_force_refuses_an_indirect_subscript(tmp_path):
    path = tmp_path / "indirect.py"
    path.write_text(
        "N = 3\n\n\ndef kernel_x(N, A, B):\n    for i in range(N):\n        A[B[i]] = 0.0\n"
    )
    with pytest.raises(brute.UnsupportedKernel):
        brute.run(path)


# -- random loop nests within the conventions, against the same brute force -------------------


class _RandomKernel:
    """A random Python kernel: loops with affine, min/max bounds and steps 1, 2 or -1, affine
    guards with else, and statements (plain, compound, chained) over A (2-d), B (1-d), C (2-d),
    the scalar t and the scalar input alpha, with affine and data-dependent ternaries."""

    LOOP_VARS = ("i", "j", "k", "l")

    def __init__(self, rng):
        self.rng = rng
        self.lines = ["N = 4", "M = 3", "", "", "def kernel_random(N, M, A, B, C, alpha):"]
        self.statements = 0
        self.block(1, [])
        if not self.statements:
            self.lines.append("    t = alpha")

    def affine(self, loops: list[str]) -> str:
        terms = [f"{self.rng.choice(('', '2 * '))}{v}" for v in loops if self.rng.random() < 0.6]
        terms.append(str(self.rng.randint(0, 2)))
        return " + ".join(terms)

    def element(self, loops: list[str]) -> str:
        array = self.rng.choice("ABC")
        if array == "B":
            return f"B[{self.affine(loops)}]"
        first, second = self.affine(loops), self.affine(loops)
        return (
            f"{array}[{first}, {second}]"
            if self.rng.random() < 0.5
            else f"{array}[{first}][{second}]"
        )

    def value(self, loops: list[str], depth: int = 0) -> str:
        terms = []
        for _ in range(self.rng.randint(1, 3)):
            roll = self.rng.random()
            if roll < 0.5:
                terms.append(self.element(loops))
            elif roll < 0.6:
                terms.append("alpha")
            elif roll < 0.7:
                terms.append("t")
            elif roll < 0.8:
                terms.append("0.5")
            elif depth == 0 and roll < 0.9:
                if loops and self.rng.random() < 0.5:
                    condition = self.condition(loops)
                else:
                    condition = f"{self.element(loops)} > 0.0"
                body, orelse = self.value(loops, 1), self.value(loops, 1)
                terms.append(f"({body} if {condition} else {orelse})")
            elif depth == 0:
                terms.append(f"max({self.element(loops)}, sqrt({self.value(loops, 1)}))")
            else:
                terms.append(self.element(loops))
        return " * ".join(terms) if self.rng.random() < 0.3 else " + ".join(terms)

    def condition(self, loops: list[str]) -> str:
        left = self.rng.choice(loops)
        right = self.rng.choice([v for v in loops if v != left] + ["1", "2", "N - 2"])
        op = self.rng.choice(("<", "<=", ">=", ">", "=="))
        return f"{left} {op} {right}"

    def bounds(self, loops: list[str]) -> tuple[str, str]:
        outer = self.rng.choice(loops) if loops else None
        lows = ["0", "1"] + ([outer, f"{outer} + 1", f"max(0, {outer} - 1)"] if outer else [])
        highs = ["N", "M", "N - 1"] + ([f"{outer} + 2", f"min(N, {outer} + 2)"] if outer else [])
        return self.rng.choice(lows), self.rng.choice(highs)

    def statement(self, indent: str, loops: list[str]) -> None:
        self.statements += 1
        target = self.element(loops) if self.rng.random() < 0.8 else "t"
        roll = self.rng.random()
        if roll < 0.5:
            self.lines.append(f"{indent}{target} = {self.value(loops)}")
        elif roll < 0.85:
            op = self.rng.choice(("+=", "-=", "*=", "/="))
            self.lines.append(f"{indent}{target} {op} {self.value(loops)}")
        else:
            self.lines.append(f"{indent}t = {self.element(loops)} = {self.value(loops)}")

    def block(self, depth: int, loops: list[str]) -> None:
        indent = "    " * depth
        for _ in range(self.rng.randint(1, 3)):
            roll = self.rng.random()
            if roll < 0.45 and len(loops) < len(self.LOOP_VARS):
                var = self.LOOP_VARS[len(loops)]
                low, high = self.bounds(loops)
                step = self.rng.choice((1, 1, 1, 2, -1))
                if step == -1:
                    header = f"range({high} - 1, {low} - 1, -1)"
                elif step == 2:
                    header = f"range({low}, {high}, 2)"
                else:
                    header = f"range({low}, {high})"
                self.lines.append(f"{indent}for {var} in {header}:")
                self.block(depth + 1, [*loops, var])
            elif roll < 0.6 and loops:
                self.lines.append(f"{indent}if {self.condition(loops)}:")
                self.statement(indent + "    ", loops)
                if self.rng.random() < 0.5:
                    self.lines.append(f"{indent}else:")
                    self.statement(indent + "    ", loops)
            else:
                self.statement(indent, loops)

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def _c_expr(node: ast.expr) -> str:
    """A value or bound of a random Python kernel in C syntax."""
    if isinstance(node, ast.Subscript):
        name, indices = node, []
        while isinstance(name, ast.Subscript):
            index = name.slice
            indices = (list(index.elts) if isinstance(index, ast.Tuple) else [index]) + indices
            name = name.value
        return name.id + "".join(f"[{_c_expr(i)}]" for i in indices)
    if isinstance(node, ast.IfExp):
        return f"({_c_expr(node.test)} ? {_c_expr(node.body)} : {_c_expr(node.orelse)})"
    if isinstance(node, ast.BinOp):
        op = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}[type(node.op)]
        return f"({_c_expr(node.left)} {op} {_c_expr(node.right)})"
    if isinstance(node, ast.UnaryOp):
        return f"(-{_c_expr(node.operand)})"
    if isinstance(node, ast.Compare):
        op = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "=="}
        return f"{_c_expr(node.left)} {op[type(node.ops[0])]} {_c_expr(node.comparators[0])}"
    if isinstance(node, ast.Call):
        return f"{node.func.id}({', '.join(_c_expr(a) for a in node.args)})"
    return ast.unparse(node)


def _c_block(body: list[ast.stmt], indent: str, lines: list[str]) -> None:
    for node in body:
        if isinstance(node, ast.For):
            v, args = node.target.id, [_c_expr(a) for a in node.iter.args]
            if len(args) == 2:
                header = f"{v} = {args[0]}; {v} < {args[1]}; {v}++"
            elif args[2] == "2":
                header = f"{v} = {args[0]}; {v} < {args[1]}; {v} += 2"
            else:  # range(high - 1, low - 1, -1)
                header = f"{v} = {args[0]}; {v} > {args[1]}; {v}--"
            lines.append(f"{indent}for ({header}) {{")
            _c_block(node.body, indent + "  ", lines)
            lines.append(f"{indent}}}")
        elif isinstance(node, ast.If):
            lines.append(f"{indent}if ({_c_expr(node.test)}) {{")
            _c_block(node.body, indent + "  ", lines)
            if node.orelse:
                lines.append(f"{indent}}} else {{")
                _c_block(node.orelse, indent + "  ", lines)
            lines.append(f"{indent}}}")
        elif isinstance(node, ast.Assign):
            targets = " = ".join(_c_expr(t) for t in node.targets)
            lines.append(f"{indent}{targets} = {_c_expr(node.value)};")
        else:
            op = {ast.Add: "+=", ast.Sub: "-=", ast.Mult: "*=", ast.Div: "/="}[type(node.op)]
            lines.append(f"{indent}{_c_expr(node.target)} {op} {_c_expr(node.value)};")


def _c_twin(python_text: str) -> str:
    """The C twin of a random Python kernel: same parameters, loops and statements."""
    tree = ast.parse(python_text)
    lines = [
        f"#define {n.targets[0].id} {n.value.value}" for n in tree.body if isinstance(n, ast.Assign)
    ]
    lines += [
        "",
        "void kernel_random(double A[64][64], double B[64], double C[64][64], double alpha)",
        "{",
        "  int i, j, k, l;",
        "  double t;",
        "",
        "#pragma scop",
    ]
    function = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    _c_block(function.body, "  ", lines)
    return "\n".join([*lines, "#pragma endscop", "}", ""])


def _random_cases():
    return [
        pytest.param(
            seed, suffix, marks=[pytest.mark.slow] if seed >= 40 else [], id=f"seed{seed}.{suffix}"
        )
        for seed in range(400)
        for suffix in ("py", "c")
    ]


@pytest.mark.parametrize(("seed", "suffix"), _random_cases())
def test_random_kernels_equal_brute_force(seed, suffix, tmp_path, capsys):
    import random

    twin = tmp_path / "random_kernel.py"
    twin.write_text(_RandomKernel(random.Random(seed)).text())
    path = twin
    if suffix == "c":
        path = tmp_path / "random_kernel.c"
        path.write_text(_c_twin(twin.read_text()))
    setting = random.Random(-seed).choice(({}, {"N": 5, "M": 2}, {"N": 2, "M": 6}))
    args = ["workload", "show", "-w", path, *_set_args(setting), "--format", "json"]
    rc, out, err = run_cli(args, capsys)
    expected = brute.run(twin, setting)
    where = f"seed {seed} {setting or 'defaults'}\n{path.read_text()}"
    dead = re.search(
        r": (S\d+) \(line \d+\): the iteration domain is empty for every parameter value",
        err.strip(),
    )
    if rc == 2 and dead:
        # a statement that never runs, whatever the parameters, is refused: it must not run here
        assert expected.instances[dead.group(1)] == 0, where
        return
    assert rc == 0, f"exit {rc}: {err.strip()}\n{where}"
    shown = json.loads(out)
    _check_counts(shown, expected, where)
    _check_points(shown, expected, where)
