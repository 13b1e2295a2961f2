"""From a loop-nest tree (tree.py) to a workload: statements, domains, accesses and the
2d+1 program order as isl text, parameters kept symbolic until `build_workload` fixes them.

Names are classified once for the whole region:

* loop variables are the `for` variables;
* a parameter is a name the rules say is one (`_PB_X`, a default such as `#define X 64`),
  or a name used in a bound, a guard or a subscript that the region neither assigns nor
  declares;
* every other name read or assigned in a statement is a scalar: a 0-d tensor `x[]`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from tenet.errors import InputError, option_ref
from tenet.formats.loopnest.tree import (
    Assign,
    Bin,
    BoolOp,
    Call,
    Cmp,
    Decl,
    Expr,
    ExprStmt,
    For,
    If,
    Index,
    Kernel,
    Neg,
    Node,
    Not,
    Num,
    Pos,
    Ternary,
    Var,
    not_affine,
    syntax_error,
)
from tenet.model.workload import RawStatement, Workload, build_workload, evaluate_extent

#: Functions without side effects that may appear in values (their arguments are reads).
PURE_FUNCTIONS = frozenset(
    {
        "sqrt", "exp", "pow", "log", "fabs", "abs", "floor", "ceil", "min", "max", "fmin",
        "fmax", "sin", "cos", "tan", "tanh", "float", "int", "SQRT_FUN", "EXP_FUN", "POW_FUN",
    }
)  # fmt: skip
#: Functions that are their argument (`SCALAR_VAL(x)` is `x`).
IDENTITY_FUNCTIONS = frozenset({"SCALAR_VAL"})
#: Functions allowed in bounds, guards and subscripts (isl's min and max).
AFFINE_FUNCTIONS = {"min": "min", "max": "max", "fmin": "min", "fmax": "max"}
ISL_COMPARISON = {"<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "=", "!=": "!="}
#: Words of isl's syntax that cannot name a loop variable or a parameter in isl text.
ISL_WORDS = frozenset(
    {"min", "max", "floor", "ceil", "mod", "exists", "and", "or", "not", "implies", "infty",
     "rat", "true", "false"}
)  # fmt: skip


def show(e: Expr) -> str:
    """Source-like text of an expression, for messages."""
    if isinstance(e, Num):
        return repr(e.value)
    if isinstance(e, Var):
        return e.name
    if isinstance(e, Index):
        return e.name + "".join(f"[{show(s)}]" for s in e.subscripts)
    if isinstance(e, Bin):
        return f"{_wrap(e.left)}{e.op.rstrip('.')}{_wrap(e.right)}"
    if isinstance(e, Neg):
        return f"-{_wrap(e.operand)}"
    if isinstance(e, Call):
        return f"{e.func}({', '.join(show(a) for a in e.args)})"
    if isinstance(e, Cmp):
        return f"{show(e.left)} {e.op} {show(e.right)}"
    if isinstance(e, BoolOp):
        return f" {e.op} ".join(_wrap(i) for i in e.items)
    if isinstance(e, Not):
        return f"not {_wrap(e.operand)}"
    if isinstance(e, Ternary):
        return f"{_wrap(e.cond)} ? {_wrap(e.then)} : {_wrap(e.other)}"
    if isinstance(e, Assign):
        return f"{show(e.target)} {e.op} {show(e.value)}"
    return "?"


def _wrap(e: Expr) -> str:
    simple = isinstance(e, (Num, Var, Index, Call))
    return show(e) if simple else f"({show(e)})"


# --- classifying names --------------------------------------------------------------------


@dataclass
class Names:
    """Which names of the region are loop variables, parameters and scalars."""

    loop_vars: set[str] = field(default_factory=set)
    affine_uses: dict[str, None] = field(default_factory=dict)  # in bounds/guards/subscripts
    value_uses: dict[str, None] = field(default_factory=dict)
    assigned: set[str] = field(default_factory=set)
    declared: set[str] = field(default_factory=set)
    params: list[str] = field(default_factory=list)
    _param_set: set[str] = field(default_factory=set)

    def is_param(self, name: str) -> bool:
        return name in self._param_set

    def finish(self, kernel: Kernel) -> None:
        data = self.assigned | self.declared | self.loop_vars
        order = [*self.affine_uses, *self.value_uses]
        params = {}
        for name in order:
            by_rule = name in kernel.forced_params or name in kernel.defaults
            if by_rule or (name in self.affine_uses and name not in data):
                params[name] = None
        self.params = list(params)
        self._param_set = set(params)


def classify(kernel: Kernel) -> Names:
    names = Names()
    _walk_nodes(kernel.body, names)
    names.finish(kernel)
    return names


def _walk_nodes(nodes: list[Node], names: Names) -> None:
    for node in nodes:
        if isinstance(node, For):
            names.loop_vars.add(node.var)
            _affine_names(node.start, names)
            _affine_names(node.cond, names)
            _walk_nodes(node.body, names)
        elif isinstance(node, If):
            _affine_names(node.cond, names)
            _walk_nodes(node.then, names)
            _walk_nodes(node.other, names)
        elif isinstance(node, ExprStmt):
            _value_names(node.expr, names)
        elif isinstance(node, Decl):
            names.declared.add(node.name)
            for dim in node.shape or []:
                _affine_names(dim, names)
            if node.init is not None:
                _value_names(node.init, names)


def _children(e: Expr) -> list[Expr]:
    if isinstance(e, (Bin, Cmp)):
        return [e.left, e.right]
    if isinstance(e, (Neg, Not)):
        return [e.operand]
    if isinstance(e, Call):
        return list(e.args)
    if isinstance(e, BoolOp):
        return list(e.items)
    if isinstance(e, Ternary):
        return [e.cond, e.then, e.other]
    if isinstance(e, Assign):
        return [e.target, e.value]
    return []


def _var_names(e: Expr) -> set[str]:
    """Every plain name an expression reads."""
    if isinstance(e, Var):
        return {e.name}
    found: set[str] = set()
    for child in _children(e):
        found |= _var_names(child)
    return found


def _affine_names(e: Expr, names: Names) -> None:
    if isinstance(e, Var):
        names.affine_uses.setdefault(e.name, None)
    elif isinstance(e, Index):
        for s in e.subscripts:
            _affine_names(s, names)
    else:
        for child in _children(e):
            _affine_names(child, names)


def _value_names(e: Expr, names: Names) -> None:
    if isinstance(e, Var):
        names.value_uses.setdefault(e.name, None)
    elif isinstance(e, Index):
        for s in e.subscripts:
            _affine_names(s, names)
    elif isinstance(e, Assign):
        if isinstance(e.target, Var):
            names.assigned.add(e.target.name)
        else:
            _value_names(e.target, names)
        _value_names(e.value, names)
    else:
        for child in _children(e):
            _value_names(child, names)


# --- affine expressions and conditions as isl text ----------------------------------------


@dataclass
class Aff:
    """An affine expression as isl text; `const` is its value when it is an integer constant."""

    text: str
    const: int | None = None


class Scope:
    """The loop variables around a place, and the classification of every name."""

    def __init__(self, names: Names, source: str, loops: tuple[str, ...] = ()):
        self.names, self.source, self.loops = names, source, loops

    def inside(self, var: str) -> Scope:
        return Scope(self.names, self.source, (*self.loops, var))

    def error(self, pos: Pos, what: str) -> InputError:
        return not_affine(self.source, pos, what)


def affine(e: Expr, scope: Scope, where: str) -> Aff:
    """isl text of an affine (or quasi-affine: floor division and mod by constants) expression;
    `where` says what it is ("bound", "guard", "subscript") for the message."""
    if isinstance(e, Num):
        if isinstance(e.value, bool) or not isinstance(e.value, int):
            raise scope.error(e.pos, f"non-integer value {show(e)} in a {where}")
        return Aff(str(e.value), e.value)
    if isinstance(e, Var):
        if e.name in scope.loops or scope.names.is_param(e.name):
            return Aff(e.name)
        if e.name in scope.names.loop_vars:
            raise scope.error(e.pos, f"loop variable {e.name} used outside its loop")
        kind = "indirect" if where == "subscript" else "data-dependent"
        raise scope.error(
            e.pos, f"{kind} {where}: {e.name} is a variable of the program, not a parameter"
        )
    if isinstance(e, Index):
        if where == "subscript":
            raise scope.error(e.pos, f"indirect subscript {show(e)}")
        raise scope.error(e.pos, f"data-dependent {where}: reads {show(e)}")
    if isinstance(e, Neg):
        inner = affine(e.operand, scope, where)
        return _const(-inner.const) if inner.const is not None else Aff(f"-({inner.text})")
    if isinstance(e, Bin):
        return _affine_binary(e, scope, where)
    if isinstance(e, Call):
        if e.func in IDENTITY_FUNCTIONS and len(e.args) == 1:
            return affine(e.args[0], scope, where)
        if e.func in ("pow", "POW_FUN") and len(e.args) == 2:  # C's pow(10, 3): a number
            base, exponent = (affine(a, scope, where) for a in e.args)
            if base.const is not None and exponent.const is not None and exponent.const >= 0:
                return _const(base.const**exponent.const)
            raise scope.error(e.pos, f"non-affine {where} {show(e)} (a power of a variable)")
        if e.func in AFFINE_FUNCTIONS and len(e.args) >= 2:
            args = [affine(a, scope, where) for a in e.args]
            text = args[0].text
            for arg in args[1:]:
                text = f"{AFFINE_FUNCTIONS[e.func]}({text}, {arg.text})"
            return Aff(text)
        raise scope.error(e.pos, f"call {show(e)} in a {where}")
    if isinstance(e, Ternary) and (kind := _min_or_max(e)) is not None:
        left, right = affine(e.cond.left, scope, where), affine(e.cond.right, scope, where)
        return Aff(f"{kind}({left.text}, {right.text})")
    raise scope.error(e.pos, f"{show(e)} in a {where} is not an affine expression")


def _min_or_max(e: Ternary) -> str | None:
    """'min' or 'max' when `e` is `a < b ? a : b`-like (what MIN/MAX macros expand to):
    a comparison of two expressions that picks one of them."""
    cond = e.cond
    if not isinstance(cond, Cmp) or cond.op not in ("<", "<=", ">", ">="):
        return None
    a, b, then, other = show(cond.left), show(cond.right), show(e.then), show(e.other)
    if (then, other) == (a, b):
        return "min" if cond.op in ("<", "<=") else "max"
    if (then, other) == (b, a):
        return "max" if cond.op in ("<", "<=") else "min"
    return None


def _const(value: int) -> Aff:
    return Aff(str(value) if value >= 0 else f"({value})", value)


def _affine_binary(e: Bin, scope: Scope, where: str) -> Aff:
    left, right = affine(e.left, scope, where), affine(e.right, scope, where)
    both = left.const is not None and right.const is not None
    if e.op in ("+", "-"):
        if both:
            return _const(left.const + right.const if e.op == "+" else left.const - right.const)
        return Aff(f"({left.text}) {e.op} ({right.text})")
    if e.op == "*":
        if both:
            return _const(left.const * right.const)
        if left.const is None and right.const is None:
            raise scope.error(e.pos, f"non-affine {where} {show(e)} (a product of variables)")
        factor, other = (left.const, right) if left.const is not None else (right.const, left)
        return Aff(f"{factor}*({other.text})")  # isl reads `2*(e)` and `-2*(e)`, not `(2)*(e)`
    if e.op == "/.":
        raise scope.error(e.pos, f"true division {show(e)} in a {where} (use //)")
    if e.op == "**":
        if both and right.const >= 0:
            return _const(left.const**right.const)
        raise scope.error(e.pos, f"non-affine {where} {show(e)} (a power of a variable)")
    if e.op in ("/", "//", "%"):
        if right.const is None or right.const <= 0:
            raise scope.error(e.pos, f"non-affine {where} {show(e)} (divides by a non-constant)")
        if both:
            if e.op == "%":
                return _const(left.const % right.const)
            return _const(left.const // right.const)
        if e.op == "%":
            return Aff(f"({left.text}) mod {right.const}")
        return Aff(f"floor(({left.text})/{right.const})")
    raise scope.error(e.pos, f"operator {e.op} in a {where}")


def condition(e: Expr, scope: Scope, where: str) -> str:
    """isl text of an affine condition (comparisons joined by and/or/not)."""
    if isinstance(e, Cmp):
        left, right = affine(e.left, scope, where), affine(e.right, scope, where)
        return f"({left.text}) {ISL_COMPARISON[e.op]} ({right.text})"
    if isinstance(e, BoolOp):
        return "(" + f" {e.op} ".join(condition(i, scope, where) for i in e.items) + ")"
    if isinstance(e, Not):
        return f"not ({condition(e.operand, scope, where)})"
    if isinstance(e, Num) and not isinstance(e.value, bool) and isinstance(e.value, int):
        return "0 = 0" if e.value else "1 = 0"
    return f"({affine(e, scope, where).text}) != 0"  # C: a number is true when non-zero


def is_affine_condition(e: Expr, scope: Scope) -> bool:
    try:
        condition(e, scope, "guard")
    except InputError:
        return False
    return True


# --- statements -----------------------------------------------------------------------------


@dataclass
class Access:
    side: str
    tensor: str
    subscripts: list[str]
    guard: str | None


@dataclass
class Found:
    """One statement: where it sits (loops, guards, program order) and what it touches."""

    name: str
    pos: Pos
    loops: tuple[str, ...]
    constraints: list[str]
    order: list[str]  # the 2d+1 program order: positions and (signed) loop variables
    accesses: list[Access]
    accumulates: list[str]


class Collector:
    """Walks the region in textual order and records every statement."""

    def __init__(self, kernel: Kernel, names: Names, source: str):
        self.kernel, self.names, self.source = kernel, names, source
        self.found: list[Found] = []
        self.labels: set[str] = set()
        self.declared_shapes: dict[str, list[Expr]] = {}

    def block(
        self,
        nodes: list[Node],
        scope: Scope,
        constraints: list[str],
        order: list[str],
        counter: list[int],
    ) -> None:
        for node in nodes:
            if isinstance(node, For):
                self.loop(node, scope, constraints, order, counter)
            elif isinstance(node, If):
                guard = condition(node.cond, scope, "guard")
                self.block(node.then, scope, [*constraints, guard], order, counter)
                if node.other:
                    self.block(node.other, scope, [*constraints, _negate(guard)], order, counter)
            elif isinstance(node, Decl):
                if node.shape:
                    self.declared_shapes[node.name] = node.shape
                if node.init is not None:
                    target = Var(node.pos, node.name)
                    stmt = ExprStmt(node.pos, Assign(node.pos, target, "=", node.init))
                    self.statement(stmt, scope, constraints, order, counter)
            elif isinstance(node, ExprStmt):
                self.statement(node, scope, constraints, order, counter)

    def loop(
        self, node: For, scope: Scope, constraints: list[str], order: list[str], counter: list[int]
    ) -> None:
        if node.var in scope.loops:
            raise syntax_error(
                self.source, node.pos, f"loop variable {node.var} is reused inside its own loop"
            )
        if node.var in ISL_WORDS:
            raise syntax_error(
                self.source, node.pos, f"loop variable {node.var!r} is a word of isl; rename it"
            )
        if node.var in self.names.params or node.var in self.kernel.defaults:
            raise syntax_error(
                self.source, node.pos, f"loop variable {node.var} is also a parameter"
            )
        if node.var not in _var_names(node.cond):
            raise syntax_error(
                self.source,
                node.cond.pos,
                f"the condition {show(node.cond)} of loop {node.var} does not test {node.var}",
            )
        start = affine(node.start, scope, "bound")
        inner = scope.inside(node.var)
        cond = condition(node.cond, inner, "bound")
        v = node.var
        bounds = [f"{v} >= {start.text}" if node.step > 0 else f"{v} <= {start.text}", cond]
        if abs(node.step) != 1:
            bounds.append(f"({v} - ({start.text})) mod {abs(node.step)} = 0")
        position = str(counter[0])
        counter[0] += 1
        loop_order = [*order, position, v if node.step > 0 else f"-{v}"]
        self.block(node.body, inner, [*constraints, *bounds], loop_order, [0])

    def statement(
        self,
        node: ExprStmt,
        scope: Scope,
        constraints: list[str],
        order: list[str],
        counter: list[int],
    ) -> None:
        if not isinstance(node.expr, Assign):
            self.value(node.expr, scope, None, [], [])  # an unknown call is refused as such
            raise not_affine(
                self.source, node.pos, f"expression statement {show(node.expr)} assigns nothing"
            )
        name = node.label or f"S{len(self.found)}"
        if name in self.labels:
            raise syntax_error(self.source, node.pos, f"statement name {name} is used twice")
        self.labels.add(name)
        accesses: list[Access] = []
        accumulates: list[str] = []
        self.value(node.expr, scope, None, accesses, accumulates)
        position = str(counter[0])
        counter[0] += 1
        self.found.append(
            Found(
                name,
                node.pos,
                scope.loops,
                constraints,
                [*order, position],
                accesses,
                accumulates,
            )
        )

    def value(
        self,
        e: Expr,
        scope: Scope,
        guard: str | None,
        out: list[Access],
        accumulates: list[str],
    ) -> None:
        """Record the reads (and, for assignments, the writes) of a value expression."""
        if isinstance(e, Num):
            return
        if isinstance(e, Var):
            if e.name in scope.loops or self.names.is_param(e.name):
                return
            if e.name in self.names.loop_vars:
                raise scope.error(e.pos, f"loop variable {e.name} used outside its loop")
            out.append(Access("read", e.name, [], guard))
            return
        if isinstance(e, Index):
            subs = [affine(s, scope, "subscript").text for s in e.subscripts]
            out.append(Access("read", e.name, subs, guard))
            return
        if isinstance(e, Call) and e.func not in PURE_FUNCTIONS | IDENTITY_FUNCTIONS:
            raise scope.error(e.pos, f"call to {e.func}, not a known pure function")
        if isinstance(e, Ternary):
            if is_affine_condition(e.cond, scope):
                cond = condition(e.cond, scope, "guard")
                self.value(e.then, scope, _and(guard, cond), out, accumulates)
                self.value(e.other, scope, _and(guard, _negate(cond)), out, accumulates)
                return
            for child in (e.cond, e.then, e.other):  # data-dependent: all may be read
                self.value(child, scope, guard, out, accumulates)
            return
        if isinstance(e, Assign):
            self.value(e.value, scope, guard, out, accumulates)
            tensor, subs = self.target(e.target, scope)
            if e.op != "=":
                out.append(Access("read", tensor, subs, guard))
                accumulates.append(tensor)
            out.append(Access("write", tensor, subs, guard))
            return
        for child in _children(e):
            self.value(child, scope, guard, out, accumulates)

    def target(self, e: Expr, scope: Scope) -> tuple[str, list[str]]:
        if isinstance(e, Var):
            if e.name in self.names.loop_vars:
                raise scope.error(e.pos, f"assignment to loop variable {e.name}")
            if self.names.is_param(e.name):
                raise scope.error(e.pos, f"assignment to parameter {e.name}")
            return e.name, []
        if isinstance(e, Index):
            return e.name, [affine(s, scope, "subscript").text for s in e.subscripts]
        raise scope.error(e.pos, f"assignment to {show(e)}")


def _negate(cond: str) -> str:
    """isl text of `not cond`; the parentheses let isl read `not (not (...))`."""
    return f"not ({cond})"


def _and(guard: str | None, cond: str) -> str:
    return cond if guard is None else f"({guard}) and ({cond})"


# --- the workload ---------------------------------------------------------------------------


@dataclass
class Imported:
    """A loop nest as statements in isl text, before its parameters get values."""

    name: str
    params: list[str]
    statements: list[RawStatement]
    shapes: dict[str, list[Expr] | str | list[str]]
    defaults: dict[str, int]
    not_integers: dict[str, str] = field(default_factory=dict)  # see Kernel.not_integers


def import_kernel(kernel: Kernel, source: str) -> Imported:
    """Every statement of the region with its domain, accesses and program order as text."""
    names = classify(kernel)
    for name in names.params:
        if name in ISL_WORDS:
            raise InputError(f"parameter {name!r} is a word of isl; rename it", source)
    collector = Collector(kernel, names, source)
    collector.block(kernel.body, Scope(names, source), [], [], [0])
    if not collector.found:
        raise InputError("the region holds no statement (no assignment inside it)", source)
    prefix = f"[{', '.join(names.params)}] -> " if names.params else ""
    width = max(len(f.order) for f in collector.found)
    statements = []
    for f in collector.found:
        tup = f"{f.name}[{', '.join(f.loops)}]"
        where = f" : {' and '.join(f.constraints)}" if f.constraints else ""
        key = f"{f.name} (line {f.pos.line})"
        order = f.order + ["0"] * (width - len(f.order))
        accesses, seen = [], set()
        for a in f.accesses:
            guard = f" : {a.guard}" if a.guard else ""
            text = f"{prefix}{{ {tup} -> {a.tensor}[{', '.join(a.subscripts)}]{guard} }}"
            if (a.side, a.tensor, text) not in seen:
                seen.add((a.side, a.tensor, text))
                accesses.append((a.side, a.tensor, text, key))
        statements.append(
            RawStatement(
                f"{prefix}{{ {tup}{where} }}",
                key,
                accesses,
                f"{prefix}{{ {tup} -> [{', '.join(order)}] }}",
                key,
                tuple(dict.fromkeys(f.accumulates)),
                f"{source}:{f.pos.line}",
            )
        )
    shapes: dict = dict(kernel.shapes)
    shapes.update(collector.declared_shapes)
    return Imported(
        kernel.name, names.params, statements, shapes, kernel.defaults, kernel.not_integers
    )


def parameter_values(
    imported: Imported, overrides: Mapping[str, int] | None, source: str
) -> tuple[dict[str, int], dict[str, int]]:
    """(values of the workload's parameters, values of every known name) after `--set`."""
    known = dict(imported.defaults)
    for name, value in (overrides or {}).items():
        if name not in imported.params and name not in imported.defaults:
            have = ", ".join(imported.params) or "none"
            raise InputError(f"unknown parameter {name!r} (the workload has: {have})", option="set")
        known[name] = value
    values = {}
    for name in imported.params:
        if name not in known and name in imported.not_integers:
            raise InputError(
                f"parameter {name!r} is set to {imported.not_integers[name]}, not an "
                f"integer: give it an integer value (or {option_ref('set')} {name}=VALUE)",
                source,
            )
        if name not in known:
            raise InputError(
                f"parameter {name!r} has no value: give {option_ref('set')} {name}=VALUE "
                "(or a default in the file)",
                source,
            )
        values[name] = known[name]
    return values, known


def shape_texts(dims, params: list[str], known: Mapping[str, int]) -> tuple[str, ...] | None:
    """A declared shape as extents in the workload's parameters: a dimension that names
    only parameters stays symbolic, one that names other known constants (a `#define` the
    region does not use) becomes its value; None when a dimension is neither."""
    out = []
    for dim in dims:
        text = dim if isinstance(dim, str) else show(dim)
        text = text.replace("/", "//").replace("////", "//")
        words = set(re.findall(r"[A-Za-z_]\w*", text))
        if words <= set(params) and evaluate_extent(text, known) is not None:
            out.append(text)
            continue
        value = evaluate_extent(text, known)
        if value is None or value < 0:
            return None
        out.append(str(value))
    return tuple(out)


def workload_from_kernel(
    kernel: Kernel, source: str, overrides: Mapping[str, int] | None = None
) -> Workload:
    """The workload of a loop nest at the parameter values (defaults, then `overrides`)."""
    imported = import_kernel(kernel, source)
    values, known = parameter_values(imported, overrides, source)
    accessed = {t for s in imported.statements for _, t, _, _ in s.accesses}
    shapes = {}
    for tensor, dims in imported.shapes.items():
        if tensor in accessed:
            texts = shape_texts(dims, imported.params, known)
            if texts is not None:
                shapes[tensor] = texts
    # The 2d+1 order is a function by construction (each time coordinate is a constant or
    # a loop variable) and injective: a statement's loop variables order its own instances,
    # and two statements first differ at their positions in a common block.
    return build_workload(
        imported.name, imported.statements, values, source, 1, shapes, order_is_injective=True
    )
