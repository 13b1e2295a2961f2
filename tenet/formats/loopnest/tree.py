"""The small loop-nest tree both front ends (C, Python) translate their syntax into.

Expressions and statements carry their source position; everything a front end cannot
express here (while loops, pointers, gotos, ...) it refuses itself, with `not_affine`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tenet.errors import InputError


@dataclass(frozen=True)
class Pos:
    """A place in the source: 1-based line and column."""

    line: int
    col: int


def not_affine(source: str, pos: Pos, what: str) -> InputError:
    """The one-line error `FILE:LINE:COL: construct not affine: WHAT` (exit code 2)."""
    return InputError(f"construct not affine: {what}", f"{source}:{pos.line}:{pos.col}")


def syntax_error(source: str, pos: Pos, what: str) -> InputError:
    return InputError(what, f"{source}:{pos.line}:{pos.col}")


# --- expressions --------------------------------------------------------------------------


@dataclass
class Expr:
    pos: Pos


@dataclass
class Num(Expr):
    value: int | float


@dataclass
class Var(Expr):
    name: str


@dataclass
class Index(Expr):
    """`A[e1][e2]` or `A[e1, e2]`: an element of array `name`."""

    name: str
    subscripts: list[Expr]


@dataclass
class Bin(Expr):
    """`left op right`, op one of + - * / // % (C's `/` on integers is written `/`)."""

    op: str
    left: Expr
    right: Expr


@dataclass
class Neg(Expr):
    operand: Expr


@dataclass
class Call(Expr):
    """A call of a function the front end names (known pure functions are checked later)."""

    func: str
    args: list[Expr]


@dataclass
class Cmp(Expr):
    """`left op right`, op one of < <= > >= == !=."""

    op: str
    left: Expr
    right: Expr


@dataclass
class BoolOp(Expr):
    op: str  # "and" | "or"
    items: list[Expr]


@dataclass
class Not(Expr):
    operand: Expr


@dataclass
class Ternary(Expr):
    cond: Expr
    then: Expr
    other: Expr


@dataclass
class Assign(Expr):
    """`target op value` with op '=' or a compound '+=', '-=', '*=', '/=' ...; `x++` is
    `x += 1`. An assignment may sit inside another one's value (`a = b = x`)."""

    target: Expr
    op: str
    value: Expr


# --- statements ---------------------------------------------------------------------------


@dataclass
class Node:
    pos: Pos


@dataclass
class For(Node):
    """`for var = start; cond; var += step`: cond is a condition on var (and outer loops)."""

    var: str
    start: Expr
    cond: Expr
    step: int
    body: list[Node] = field(default_factory=list)


@dataclass
class If(Node):
    cond: Expr
    then: list[Node] = field(default_factory=list)
    other: list[Node] = field(default_factory=list)


@dataclass
class ExprStmt(Node):
    """An expression statement (an assignment); `label` names it (a C label)."""

    expr: Expr
    label: str | None = None


@dataclass
class Decl(Node):
    """A declaration inside the region: `double x;`, `double A[N][M];` or `double x = e;`."""

    name: str
    shape: list[Expr] | None = None
    init: Expr | None = None


@dataclass
class Kernel:
    """What a front end found: the region's statements and what lies around them."""

    name: str
    body: list[Node]
    defaults: dict[str, int]  # parameter defaults (#define X 64, X = 64, def f(X=64))
    shapes: dict[str, list[str]]  # declared array shapes outside the region, as C/Python text
    forced_params: set[str] = field(default_factory=set)  # parameters by rule (`_PB_X` is X)
    #: Names given a constant that is not an integer (`N = True`): name -> value and place.
    not_integers: dict[str, str] = field(default_factory=dict)
