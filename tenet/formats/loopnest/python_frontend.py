"""Python loop nests (the `ast` module): `for v in range(a, b, step)`, `if`, assignments.

The kernel is the body of the file's only top-level function (or of `function`); a file
without functions is its own kernel (its top-level statements, parameter assignments
aside). Module-level `NAME = <int>` and integer defaults of the function's arguments are
parameter defaults.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tenet.errors import InputError, option_ref
from tenet.formats.loopnest import tree as t
from tenet.formats.loopnest.common import AFFINE_FUNCTIONS, IDENTITY_FUNCTIONS, PURE_FUNCTIONS
from tenet.util.io import read_text

_BIN = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/.",  # true division: a value, never an affine expression
    ast.FloorDiv: "//",
    ast.Mod: "%",
}
_CMP = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
_MODULES = ("math", "np", "numpy")
#: The functions a kernel may call (any other call is refused before its arguments are read).
KNOWN_FUNCTIONS = PURE_FUNCTIONS | IDENTITY_FUNCTIONS | set(AFFINE_FUNCTIONS)


def _pos(node: ast.AST) -> t.Pos:
    return t.Pos(getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1)


def _int_constant(node: ast.AST) -> int | None:
    """The value of `5` or `-5`, else None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int_constant(node.operand)
        return None if inner is None else -inner
    return None


class PythonFrontend:
    def __init__(self, source: str):
        self.source = source

    def refuse(self, node: ast.AST, what: str) -> InputError:
        return t.not_affine(self.source, _pos(node), what)

    # --- the file ---------------------------------------------------------------------------

    def kernel(self, text: str, function: str | None) -> t.Kernel:
        try:
            module = ast.parse(text, filename=self.source)
        except SyntaxError as exc:
            pos = t.Pos(exc.lineno or 1, exc.offset or 1)
            raise t.syntax_error(self.source, pos, f"Python syntax error: {exc.msg}") from None
        defaults: dict[str, int] = {}
        not_integers: dict[str, str] = {}
        functions: list[ast.FunctionDef] = []
        top: list[ast.stmt] = []
        for node in module.body:
            value = self._parameter_assignment(node)
            if value is not None:
                defaults[value[0]] = value[1]
                not_integers.pop(value[0], None)
            elif (constant := _other_constant(node)) is not None:
                not_integers[constant[0]] = f"{constant[1]} (line {node.lineno})"
            elif isinstance(node, ast.FunctionDef):
                functions.append(node)
            elif isinstance(node, (ast.Import, ast.ImportFrom)) or _is_docstring(node):
                continue
            else:
                top.append(node)
        name = function or Path(self.source).stem
        if function is not None:
            chosen = [f for f in functions if f.name == function]
            if not chosen:
                known = ", ".join(f.name for f in functions) or "none"
                raise InputError(f"no function {function!r} (functions: {known})", self.source)
            body = self._function(chosen[0], defaults, not_integers)
        elif len(functions) == 1:
            body = self._function(functions[0], defaults, not_integers)
        elif functions:
            known = ", ".join(f.name for f in functions)
            raise InputError(
                f"several functions ({known}): choose the kernel with {option_ref('function')} NAME",
                self.source,
            )
        else:
            body = top
        self._check_ascii(body)
        not_integers = {k: v for k, v in not_integers.items() if k not in defaults}
        return t.Kernel(name, self.block(body), defaults, {}, not_integers=not_integers)

    def _check_ascii(self, body: list[ast.stmt]) -> None:
        """isl reads only ASCII names: refuse a kernel name that is not (as C does)."""
        for stmt in body:
            for node in ast.walk(stmt):
                name = node.id if isinstance(node, ast.Name) else None
                if name is not None and not name.isascii():
                    raise t.syntax_error(
                        self.source,
                        _pos(node),
                        f"name {name!r} is not ASCII (isl reads ASCII names only); rename it",
                    )

    def _parameter_assignment(self, node: ast.stmt) -> tuple[str, int] | None:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            return None
        number = _int_constant(value)
        if isinstance(target, ast.Name) and number is not None:
            return target.id, number
        return None

    def _function(
        self, node: ast.FunctionDef, defaults: dict[str, int], not_integers: dict[str, str]
    ) -> list[ast.stmt]:
        args = node.args.posonlyargs + node.args.args
        pairs = [
            *zip(args[len(args) - len(node.args.defaults) :], node.args.defaults),
            *zip(node.args.kwonlyargs, node.args.kw_defaults),
        ]
        for arg, default in pairs:
            number = None if default is None else _int_constant(default)
            if number is not None:
                defaults[arg.arg] = number
                not_integers.pop(arg.arg, None)
            elif isinstance(default, ast.Constant):
                where = f"default of argument {arg.arg}, line {default.lineno}"
                not_integers[arg.arg] = f"{default.value!r} ({where})"
        return node.body

    # --- statements -------------------------------------------------------------------------

    def block(self, nodes: list[ast.stmt]) -> list[t.Node]:
        out: list[t.Node] = []
        for node in nodes:
            out += self.statement(node)
        return out

    def statement(self, node: ast.stmt) -> list[t.Node]:
        pos = _pos(node)
        if isinstance(node, ast.For):
            return [self.loop(node)]
        if isinstance(node, ast.If):
            return [t.If(pos, self.expr(node.test), self.block(node.body), self.block(node.orelse))]
        if isinstance(node, ast.Assign):
            value = self.expr(node.value)
            for target in reversed(node.targets):
                value = t.Assign(_pos(target), self.target(target), "=", value)
            return [t.ExprStmt(pos, value)]
        if isinstance(node, ast.AugAssign):
            op = _BIN.get(type(node.op))
            if op is None:
                raise self.refuse(node, f"compound assignment {type(node.op).__name__}")
            value = t.Assign(
                pos, self.target(node.target), op.rstrip(".") + "=", self.expr(node.value)
            )
            return [t.ExprStmt(pos, value)]
        if isinstance(node, ast.AnnAssign):
            if node.value is None:
                return [t.Decl(pos, self.target(node.target).name)]  # type: ignore[union-attr]
            value = t.Assign(pos, self.target(node.target), "=", self.expr(node.value))
            return [t.ExprStmt(pos, value)]
        if isinstance(node, ast.Expr):
            if _is_docstring(node):
                return []
            return [t.ExprStmt(pos, self.expr(node.value))]
        if isinstance(node, (ast.Pass, ast.Import, ast.ImportFrom)):
            return []
        if isinstance(node, ast.While):
            raise self.refuse(node, "while loop")
        if isinstance(node, ast.Break):
            raise self.refuse(node, "break inside the kernel")
        if isinstance(node, ast.Continue):
            raise self.refuse(node, "continue inside the kernel")
        if isinstance(node, ast.Return):
            raise self.refuse(node, "return inside the kernel")
        raise self.refuse(node, f"{type(node).__name__} statement")

    def loop(self, node: ast.For) -> t.For:
        pos = _pos(node)
        if not isinstance(node.target, ast.Name):
            raise self.refuse(node.target, "a for loop needs one variable")
        if node.orelse:
            raise self.refuse(node.orelse[0], "for ... else")
        it = node.iter
        if not (
            isinstance(it, ast.Call)
            and isinstance(it.func, ast.Name)
            and it.func.id == "range"
            and 1 <= len(it.args) <= 3
            and not it.keywords
        ):
            raise self.refuse(it, "a for loop must run over range(a, b[, step])")
        args = it.args
        start = self.expr(args[0]) if len(args) > 1 else t.Num(pos, 0)
        stop = self.expr(args[1] if len(args) > 1 else args[0])
        step = 1
        if len(args) == 3:
            step = _int_constant(args[2])
            if step is None:
                raise self.refuse(args[2], f"non-constant step {ast.unparse(args[2])}")
            if step == 0:
                raise self.refuse(args[2], "step 0")
        var = node.target.id
        cond = t.Cmp(_pos(it), "<" if step > 0 else ">", t.Var(pos, var), stop)
        return t.For(pos, var, start, cond, step, self.block(node.body))

    def target(self, node: ast.expr) -> t.Expr:
        if isinstance(node, (ast.Name, ast.Subscript)):
            return self.expr(node)
        if isinstance(node, (ast.Tuple, ast.List)):
            raise self.refuse(node, "tuple assignment (write one assignment per target)")
        raise self.refuse(node, f"assignment to {ast.unparse(node)}")

    # --- expressions ------------------------------------------------------------------------

    def expr(self, node: ast.expr) -> t.Expr:
        pos = _pos(node)
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool):
                return t.Num(pos, int(node.value))
            if isinstance(node.value, (int, float)):
                return t.Num(pos, node.value)
            raise self.refuse(node, f"constant {node.value!r}")
        if isinstance(node, ast.Name):
            return t.Var(pos, node.id)
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Pow):
                return t.Bin(pos, "**", self.expr(node.left), self.expr(node.right))
            op = _BIN.get(type(node.op))
            if op is None:
                raise self.refuse(node, f"operator {type(node.op).__name__}")
            return t.Bin(pos, op, self.expr(node.left), self.expr(node.right))
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub):
                return t.Neg(pos, self.expr(node.operand))
            if isinstance(node.op, ast.UAdd):
                return self.expr(node.operand)
            if isinstance(node.op, ast.Not):
                return t.Not(pos, self.expr(node.operand))
            raise self.refuse(node, f"operator {type(node.op).__name__}")
        if isinstance(node, ast.BoolOp):
            op = "and" if isinstance(node.op, ast.And) else "or"
            return t.BoolOp(pos, op, [self.expr(v) for v in node.values])
        if isinstance(node, ast.Compare):
            items, left = [], node.left
            for op, right in zip(node.ops, node.comparators):
                if type(op) not in _CMP:
                    raise self.refuse(node, f"comparison {type(op).__name__}")
                items.append(t.Cmp(pos, _CMP[type(op)], self.expr(left), self.expr(right)))
                left = right
            return items[0] if len(items) == 1 else t.BoolOp(pos, "and", items)
        if isinstance(node, ast.IfExp):
            return t.Ternary(
                pos, self.expr(node.test), self.expr(node.body), self.expr(node.orelse)
            )
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Attribute):
            raise self.refuse(
                node, f"attribute access {ast.unparse(node)} (objects and references)"
            )
        if isinstance(node, ast.NamedExpr):
            return t.Assign(pos, self.target(node.target), "=", self.expr(node.value))
        raise self.refuse(node, f"{type(node).__name__} expression {ast.unparse(node)}")

    def subscript(self, node: ast.Subscript) -> t.Expr:
        subs: list[ast.expr] = []
        base: ast.expr = node
        while isinstance(base, ast.Subscript):
            index = base.slice
            parts = list(index.elts) if isinstance(index, ast.Tuple) else [index]
            subs = parts + subs
            base = base.value
        if not isinstance(base, ast.Name):
            raise self.refuse(base, f"subscript of {ast.unparse(base)} (only arrays by name)")
        for part in subs:
            if isinstance(part, ast.Slice):
                raise self.refuse(part, f"slice {ast.unparse(part)}")
        return t.Index(_pos(node), base.id, [self.expr(s) for s in subs])

    def call(self, node: ast.Call) -> t.Expr:
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            if func.value.id not in _MODULES:
                raise self.refuse(node, f"call to {ast.unparse(func)}, not a known pure function")
            name = func.attr
        elif isinstance(func, ast.Name):
            name = func.id
        else:
            raise self.refuse(node, f"call to {ast.unparse(func)}")
        if name not in KNOWN_FUNCTIONS:
            raise self.refuse(node, f"call to {name}, not a known pure function")
        if node.keywords:
            raise self.refuse(node, f"keyword arguments in {ast.unparse(node)}")
        return t.Call(_pos(node), name, [self.expr(a) for a in node.args])


def _other_constant(node: ast.stmt) -> tuple[str, str] | None:
    """(name, value) of a module-level `NAME = <constant>` that is not an integer
    (`N = True`, `N = '8'`, `N = 8.0`): no parameter default, and a message says why."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target, value = node.targets[0], node.value
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        target, value = node.target, node.value
    else:
        return None
    if isinstance(target, ast.Name) and isinstance(value, ast.Constant):
        return target.id, repr(value.value)
    return None


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def python_kernel(path: str, function: str | None = None) -> t.Kernel:
    """The loop-nest tree of a Python file."""
    return PythonFrontend(str(path)).kernel(read_text(path, "Python file"), function)
