"""Brute-force reference for imported loop nests: execute a Python kernel and record its accesses.

Independent of tenet and isl. The kernel file (tests/data/loopnests/*.py) holds module-level
integer parameter defaults (`N = 8`) and one function `kernel_<name>(...)` whose body is the loop
nest. We parse it with `ast`, number its assignments S0, S1, ... in textual order, rewrite every
array element access and every scalar-tensor access into a call to a recorder, and run it with
plain Python loops at the given parameter values.

Conventions recorded (the same as the importer's):
* every assignment / compound assignment is one statement (a chained `a = b = x` too);
  a compound assignment reads and writes its target;
* a subscripted name is an array; a plain name that is assigned in the body, or read in a value
  (not as a loop variable, parameter or function name), is a 0-d tensor whose one element is `()`;
* a ternary whose condition reads a tensor is data-dependent: all operands of its condition and
  both branches are read; a ternary with an affine condition reads only the taken branch.

Values never steer the control flow (bounds and guards are affine), so every value is one inert
`VALUE` object: arithmetic on it gives it back, so no division by zero or domain error can arise.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

#: Names callable inside values as pure functions.
PURE_FUNCTIONS = ("sqrt", "exp", "pow", "fabs", "abs", "log", "sin", "cos", "tanh", "floor", "ceil")


class _Value:
    """An inert number: every arithmetic operation on it returns it, every comparison too."""

    __slots__ = ()

    def _same(self, *_args):
        return self

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _same
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _same
    __pow__ = __rpow__ = __neg__ = __pos__ = __abs__ = _same
    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _same
    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        return True

    def __repr__(self) -> str:
        return "VALUE"


VALUE = _Value()


class UnsupportedKernel(Exception):
    """The kernel uses a construct this reference does not execute."""


def _pure(*_args):
    return VALUE


@dataclass
class BruteForce:
    """What one execution did: instances per statement, elements read/written per tensor."""

    statements: list[str]
    instances: dict[str, int]
    reads: dict[str, set] = field(default_factory=dict)
    writes: dict[str, set] = field(default_factory=dict)
    #: (statement, tensor, "read"|"write") triples that occurred at least once.
    accesses: set = field(default_factory=set)
    #: Per statement, the set of its instances: values of its enclosing loop variables,
    #: outermost first (`()` for a statement outside every loop).
    points: dict[str, set] = field(default_factory=dict)
    #: Per (statement, tensor, kind), the (instance, element) pairs: the access relation.
    pairs: dict[tuple, set] = field(default_factory=dict)
    #: Every instance as (statement, instance) in execution order.
    order: list[tuple[str, tuple]] = field(default_factory=list)

    @property
    def tensors(self) -> set[str]:
        return set(self.reads) | set(self.writes)

    def read_footprint(self, tensor: str) -> int:
        return len(self.reads.get(tensor, ()))

    def write_footprint(self, tensor: str) -> int:
        return len(self.writes.get(tensor, ()))

    def extent(self, tensor: str) -> tuple[tuple[int, int], ...]:
        """Per dimension, (smallest, largest) index accessed."""
        elements = self.reads.get(tensor, set()) | self.writes.get(tensor, set())
        dims = len(next(iter(elements))) if elements else 0
        return tuple(
            (min(e[d] for e in elements), max(e[d] for e in elements)) for d in range(dims)
        )


class _Recorder:
    def __init__(self, names: list[str]):
        self.names = names
        self.instances = [0] * len(names)
        self.current = -1
        self.reads: dict[str, set] = defaultdict(set)
        self.writes: dict[str, set] = defaultdict(set)
        self.accesses: set = set()
        self.points: dict[str, set] = defaultdict(set)
        self.pairs: dict[tuple, set] = defaultdict(set)
        self.order: list[tuple[str, tuple]] = []
        self.point: tuple = ()

    def enter(self, k: int, point: tuple) -> None:
        self.instances[k] += 1
        self.current = k
        self.point = point
        self.points[self.names[k]].add(point)
        self.order.append((self.names[k], point))

    def _element(self, tensor: str, index: tuple) -> tuple:
        for i in index:
            if type(i) is not int:
                raise TypeError(f"{tensor}{list(index)}: subscript {i!r} is not an integer")
        return index

    def read(self, tensor: str, index: tuple):
        self.reads[tensor].add(self._element(tensor, index))
        self.accesses.add((self.names[self.current], tensor, "read"))
        self.pairs[(self.names[self.current], tensor, "read")].add((self.point, index))
        return VALUE

    def write(self, tensor: str, index: tuple, value) -> None:
        self.writes[tensor].add(self._element(tensor, index))
        self.accesses.add((self.names[self.current], tensor, "write"))
        self.pairs[(self.names[self.current], tensor, "write")].add((self.point, index))


def _kernel_function(tree: ast.Module, path: Path) -> ast.FunctionDef:
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    if len(functions) != 1:
        raise ValueError(f"{path}: expected one top-level function, found {len(functions)}")
    return functions[0]


def _param_defaults(tree: ast.Module) -> dict[str, int]:
    """Module-level `NAME = <int>` assignments."""
    defaults = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Constant)
            and type(node.value.value) is int
        ):
            defaults[node.targets[0].id] = node.value.value
    return defaults


def _subscript_chain(node: ast.Subscript) -> tuple[str, list[ast.expr]]:
    """`A[i][j]`, `A[i, j]` or `A[i][j, k]` -> ("A", [i, j, ...])."""
    indices: list[ast.expr] = []
    while isinstance(node, ast.Subscript):
        index = node.slice
        parts = list(index.elts) if isinstance(index, ast.Tuple) else [index]
        indices = parts + indices
        node = node.value
    if not isinstance(node, ast.Name):
        raise UnsupportedKernel(f"line {node.lineno}: subscripted object is not a name")
    for index in indices:
        if any(isinstance(n, ast.Subscript) for n in ast.walk(index)):
            raise UnsupportedKernel(f"line {node.lineno}: indirect subscript")
    return node.id, indices


class _Names:
    """Classification of the names in a kernel body."""

    def __init__(self, function: ast.FunctionDef, params: set[str]):
        self.params = set(params)
        self.loop_vars: set[str] = set()
        self.arrays: set[str] = set()
        self.scalars: set[str] = set()
        for node in ast.walk(function):
            if isinstance(node, ast.For):
                self.loop_vars.add(node.target.id)
            elif isinstance(node, ast.Subscript):
                self.arrays.add(_subscript_chain(node)[0])
        for node in ast.walk(function):
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        self.scalars.add(target.id)
                for name in self._value_names(node.value):
                    self.scalars.add(name)
        self.scalars -= self.loop_vars | self.params | self.arrays | set(PURE_FUNCTIONS)
        self.scalars -= {"min", "max"}
        self._affine_names = self.loop_vars | self.params | set(PURE_FUNCTIONS) | {"min", "max"}

    def _value_names(self, node: ast.expr) -> list[str]:
        """Plain names in a value, outside subscripts and callees (the caller removes loop
        variables and parameters)."""
        if isinstance(node, ast.Name):
            return [node.id]
        if isinstance(node, ast.Subscript):
            return []
        if isinstance(node, ast.Call):
            return [n for a in node.args for n in self._value_names(a)]
        names = []
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                names += self._value_names(child)
        return names

    def is_data_dependent(self, condition: ast.expr) -> bool:
        """Whether a ternary's condition reads a tensor (array element or scalar tensor)."""
        for n in ast.walk(condition):
            if isinstance(n, ast.Subscript):
                return True
            if isinstance(n, ast.Name) and n.id not in self._affine_names:
                return True
        return False


def _call(name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=list(args), keywords=[])


def _const(value) -> ast.Constant:
    return ast.Constant(value=value)


class _Rewriter:
    """Rewrites the kernel body so that every tensor access goes through the recorder."""

    def __init__(self, names: _Names):
        self.names = names
        self.statements: list[str] = []
        self.loops: list[str] = []  # enclosing loop variables, outermost first

    # -- values -------------------------------------------------------------------------
    def value(self, node: ast.expr) -> ast.expr:
        if isinstance(node, ast.Subscript):
            tensor, indices = _subscript_chain(node)
            return _call("_read", _const(tensor), ast.Tuple(elts=indices, ctx=ast.Load()))
        if isinstance(node, ast.Name) and node.id in self.names.scalars:
            return _call("_read", _const(node.id), ast.Tuple(elts=[], ctx=ast.Load()))
        if isinstance(node, ast.IfExp):
            if self.names.is_data_dependent(node.test):
                # every operand is evaluated: condition and both branches
                return _call(
                    "_select", self.value(node.test), self.value(node.body), self.value(node.orelse)
                )
            return ast.IfExp(
                test=node.test, body=self.value(node.body), orelse=self.value(node.orelse)
            )
        if isinstance(node, ast.Call):
            return ast.Call(
                func=node.func, args=[self.value(a) for a in node.args], keywords=node.keywords
            )
        if isinstance(node, ast.BoolOp):
            raise UnsupportedKernel(f"line {node.lineno}: and/or inside a value is not supported")
        for name, child in ast.iter_fields(node):
            if isinstance(child, ast.expr):
                setattr(node, name, self.value(child))
            elif isinstance(child, list):
                setattr(
                    node, name, [self.value(c) if isinstance(c, ast.expr) else c for c in child]
                )
        return node

    def _write(self, target: ast.expr, value: ast.expr) -> ast.stmt:
        if isinstance(target, ast.Subscript):
            tensor, indices = _subscript_chain(target)
            index = ast.Tuple(elts=indices, ctx=ast.Load())
        elif isinstance(target, ast.Name):
            tensor, index = target.id, ast.Tuple(elts=[], ctx=ast.Load())
        else:
            raise UnsupportedKernel(f"line {target.lineno}: unsupported assignment target")
        return ast.Expr(_call("_write", _const(tensor), index, value))

    # -- statements ---------------------------------------------------------------------
    def block(self, body: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for node in body:
            if isinstance(node, ast.For):
                self.loops.append(node.target.id)
                out.append(
                    ast.For(
                        target=node.target,
                        iter=node.iter,
                        body=self.block(node.body),
                        orelse=[],
                    )
                )
                self.loops.pop()
            elif isinstance(node, ast.If):
                out.append(
                    ast.If(
                        test=node.test, body=self.block(node.body), orelse=self.block(node.orelse)
                    )
                )
            elif isinstance(node, (ast.Assign, ast.AugAssign)):
                out += self._statement(node)
            elif isinstance(node, ast.Pass):
                continue
            else:
                raise UnsupportedKernel(f"line {node.lineno}: unsupported {type(node).__name__}")
        return out

    def _statement(self, node: ast.Assign | ast.AugAssign) -> list[ast.stmt]:
        k = len(self.statements)
        self.statements.append(f"S{k}")
        point = ast.Tuple(elts=[ast.Name(id=v, ctx=ast.Load()) for v in self.loops], ctx=ast.Load())
        out: list[ast.stmt] = [ast.Expr(_call("_enter", _const(k), point))]
        if isinstance(node, ast.Assign):
            value = self.value(node.value)
            out.append(ast.Assign(targets=[ast.Name(id="_v", ctx=ast.Store())], value=value))
            for target in node.targets:
                out.append(self._write(target, ast.Name(id="_v", ctx=ast.Load())))
        else:
            current = self.value(_as_load(node.target))
            combined = ast.BinOp(left=current, op=node.op, right=self.value(node.value))
            out.append(self._write(node.target, combined))
        return out


def _as_load(target: ast.expr) -> ast.expr:
    """The same expression as `target`, read instead of written (a fresh tree)."""
    return ast.parse(ast.unparse(target), mode="eval").body


def defaults(path: str | Path) -> dict[str, int]:
    """The kernel file's parameter defaults (module-level `NAME = <int>`)."""
    return _param_defaults(ast.parse(Path(path).read_text(), filename=str(path)))


def run(path: str | Path, values: dict[str, int] | None = None) -> BruteForce:
    """Execute the Python kernel at `path` with parameters `values` (others: the file's
    defaults) and return instance counts and footprints."""
    path = Path(path)
    tree = ast.parse(path.read_text(), filename=str(path))
    params = _param_defaults(tree)
    unknown = set(values or {}) - set(params)
    if unknown:
        raise ValueError(f"{path}: unknown parameters {sorted(unknown)}")
    params.update(values or {})
    function = _kernel_function(tree, path)
    names = _Names(function, set(params))
    rewriter = _Rewriter(names)
    body = rewriter.block(function.body)
    runner = ast.FunctionDef(
        name="_kernel",
        args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=body or [ast.Pass()],
        decorator_list=[],
        returns=None,
    )
    module = ast.fix_missing_locations(ast.Module(body=[runner], type_ignores=[]))
    recorder = _Recorder(rewriter.statements)
    scope: dict = {name: _pure for name in PURE_FUNCTIONS}
    scope.update(params)
    scope.update(
        _enter=recorder.enter,
        _read=recorder.read,
        _write=recorder.write,
        _select=lambda _c, _a, _b: VALUE,
        min=_min,
        max=_max,
    )
    exec(compile(module, str(path), "exec"), scope)  # noqa: S102 (our own rewritten kernel)
    scope["_kernel"]()
    return BruteForce(
        statements=rewriter.statements,
        instances=dict(zip(rewriter.statements, recorder.instances)),
        reads=dict(recorder.reads),
        writes=dict(recorder.writes),
        accesses=recorder.accesses,
        points=dict(recorder.points),
        pairs=dict(recorder.pairs),
        order=recorder.order,
    )


def _max(*args):
    """max over integers (bounds) or over values (a pure function reading all its operands)."""
    return max(args) if all(type(a) is int for a in args) else VALUE


def _min(*args):
    """min over integers (bounds) or over values (a pure function reading all its operands)."""
    return min(args) if all(type(a) is int for a in args) else VALUE
