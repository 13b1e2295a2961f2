"""C loop nests (pycparser): the region between `#pragma scop` and `#pragma endscop`, or the
body of one function.

The file need not compile: comments and preprocessor lines are dropped before parsing,
`#define NAME <int>` gives parameter NAME a default, other `#define`s of the file (with or
without arguments) are expanded in the region as text, `DATA_TYPE` and the file's
`typedef` names are types, and `POLYBENCH_2D(A, N, M, n, m)` or `double A[N][M]` anywhere
in the file gives array A the shape [N][M]. `_PB_X` is parameter X.
"""

from __future__ import annotations

import re
from pathlib import Path

from tenet.errors import InputError, option_ref
from tenet.formats.loopnest import tree as t
from tenet.util.io import read_text

#: Type names the region may use that no header tells the parser about.
KNOWN_TYPES = (
    "DATA_TYPE", "base", "bool", "size_t", "int8_t", "int16_t", "int32_t", "int64_t",
    "uint8_t", "uint16_t", "uint32_t", "uint64_t", "float_t", "double_t",
)  # fmt: skip
_REGION_FUNCTION = "__tenet_region__"
_INT = re.compile(r"^\(?\s*(-?\s*(?:0[xX][0-9a-fA-F]+|\d+))[uUlL]*\s*\)?$")
_SCALAR_TYPES = r"(?:DATA_TYPE|double|float|int|long|short|char|unsigned|signed|base)"


# --- text before parsing ------------------------------------------------------------------


def strip_comments(text: str) -> str:
    """Comments replaced by spaces (newlines kept), so lines and columns stay where they were."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif text[i] in "\"'":
            quote, j = text[i], i + 1
            while j < n and text[j] != quote and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


class Directives:
    """What the preprocessor lines of a file say, and the file without them."""

    def __init__(self, text: str):
        self.defaults: dict[str, int] = {}
        self.object_macros: dict[str, str] = {}
        self.function_macros: dict[str, tuple[list[str], str]] = {}
        self.scop: tuple[int, int] | None = None  # 0-based line numbers of the pragmas
        lines = text.split("\n")
        k, scop_start = 0, None
        while k < len(lines):
            if not lines[k].lstrip().startswith("#"):
                k += 1
                continue
            first = k
            directive = lines[k]
            while directive.endswith("\\") and k + 1 < len(lines):
                k += 1
                directive = directive[:-1] + " " + lines[k]
            for blank in range(first, k + 1):
                lines[blank] = ""
            self._read(directive.strip()[1:].strip(), first)
            if re.match(r"#\s*pragma\s+scop\b", directive.strip()) and scop_start is None:
                scop_start = first
            endscop = re.match(r"#\s*pragma\s+endscop\b", directive.strip())
            if endscop and scop_start is not None and self.scop is None:
                self.scop = (scop_start, first)
            k += 1
        self.text = "\n".join(lines)

    def _read(self, directive: str, line: int) -> None:
        m = re.match(r"define\s+(\w+)\(([^)]*)\)\s*(.*)$", directive)
        if m:
            params = [p.strip() for p in m.group(2).split(",") if p.strip()]
            self.function_macros.setdefault(m.group(1), (params, m.group(3).strip()))
            return
        m = re.match(r"define\s+(\w+)\s*(.*)$", directive)
        if not m:
            return
        name, body = m.group(1), m.group(2).strip()
        number = _INT.match(body)
        if number:
            self.defaults.setdefault(name, int(number.group(1).replace(" ", ""), 0))
        elif body and name not in KNOWN_TYPES:
            self.object_macros.setdefault(name, body)


def expand_macros(text: str, directives: Directives) -> str:
    """The file's own macros expanded in `text` (a few rounds, for macros that use macros);
    an expansion keeps the newlines of the call so that line numbers stay right."""
    for _ in range(8):
        before = text
        for name, body in directives.object_macros.items():
            text = re.sub(rf"\b{re.escape(name)}\b", f"({body})", text)
        for name, (params, body) in directives.function_macros.items():
            text = _expand_calls(text, name, params, body)
        if text == before:
            break
    return text


def _expand_calls(text: str, name: str, params: list[str], body: str) -> str:
    out, pos = [], 0
    pattern = re.compile(rf"\b{re.escape(name)}\s*\(")
    while True:
        m = pattern.search(text, pos)
        if not m:
            out.append(text[pos:])
            return "".join(out)
        args, end = _call_arguments(text, m.end())
        if args is None or len(args) != len(params):
            out.append(text[pos : m.end()])
            pos = m.end()
            continue
        expanded = body
        for param, arg in zip(params, args):
            expanded = re.sub(
                rf"\b{re.escape(param)}\b", lambda _m, a=arg: f"({a.strip()})", expanded
            )
        newlines = text.count("\n", m.start(), end)
        out.append(text[pos : m.start()] + f"({expanded})" + "\n" * newlines)
        pos = end


def _call_arguments(text: str, start: int) -> tuple[list[str] | None, int]:
    """The comma-separated arguments of a call whose '(' ends just before `start`."""
    depth, args, begin = 1, [], start
    for pos in range(start, len(text)):
        char = text[pos]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                args.append(text[begin:pos])
                return [a for a in args if a.strip()] or [], pos + 1
        elif char == "," and depth == 1:
            args.append(text[begin:pos])
            begin = pos + 1
    return None, len(text)


def declared_shapes(text: str) -> dict[str, list[str]]:
    """Array shapes declared anywhere in the file: POLYBENCH_nD(A, N, M, n, m),
    POLYBENCH_nD_ARRAY_DECL(A, type, N, M, n, m) and `double A[N][M]`."""
    shapes: dict[str, list[str]] = {}
    for m in re.finditer(r"\bPOLYBENCH_(\d)D(_ARRAY_DECL)?\s*\(([^()]*)\)", text):
        dims, args = int(m.group(1)), [a.strip() for a in m.group(3).split(",")]
        skip = 2 if m.group(2) else 1
        if len(args) >= skip + dims:
            shapes.setdefault(args[0], [_pb(a) for a in args[skip : skip + dims]])
    pattern = rf"\b{_SCALAR_TYPES}\s+(\w+)((?:\s*\[[^\]\[]+\])+)"
    for m in re.finditer(pattern, text):
        dims = re.findall(r"\[([^\]\[]+)\]", m.group(2))
        shapes.setdefault(m.group(1), [_pb(d.strip()) for d in dims])
    return shapes


def _pb(text: str) -> str:
    return re.sub(r"\b_PB_(\w+)", r"\1", text)


# --- the region ---------------------------------------------------------------------------


def region_bounds(clean: str, directives: Directives, function: str | None, source: str):
    """(start, end) character offsets of the region in the cleaned text."""
    if function is not None:
        for m in re.finditer(rf"\b{re.escape(function)}\s*\(", clean):
            args, end = _call_arguments(clean, m.end())
            rest = clean[end:].lstrip()
            if args is None or not rest.startswith("{"):
                continue
            brace = clean.index("{", end)
            depth = 0
            for pos in range(brace, len(clean)):
                depth += clean[pos] == "{"
                depth -= clean[pos] == "}"
                if depth == 0:
                    return brace + 1, pos
            raise InputError(f"the body of {function} has no closing brace", source)
        raise InputError(f"no definition of function {function!r}", source)
    if directives.scop is None:
        raise InputError(
            f"no '#pragma scop' ... '#pragma endscop' region (or give {option_ref('function')} NAME)",
            source,
        )
    lines = clean.split("\n")
    start = sum(len(line) + 1 for line in lines[: directives.scop[0]])
    end = sum(len(line) + 1 for line in lines[: directives.scop[1]])
    return start, end


class CFrontend:
    def __init__(self, source: str):
        self.source = source
        self.forced_params: set[str] = set()

    def refuse(self, node, what: str) -> InputError:
        return t.not_affine(self.source, self.pos(node), what)

    def pos(self, node) -> t.Pos:
        coord = getattr(node, "coord", None)
        if coord is None:
            return t.Pos(1, 1)
        return t.Pos(coord.line or 1, coord.column or 1)

    def kernel(self, text: str, function: str | None) -> t.Kernel:
        from pycparser import c_parser
        from pycparser.c_parser import ParseError

        clean = strip_comments(text)
        directives = Directives(clean)
        start, end = region_bounds(directives.text, directives, function, self.source)
        body = directives.text[start:end]
        first_line = directives.text.count("\n", 0, start) + 1
        column = start - (directives.text.rfind("\n", 0, start) + 1)
        region = " " * column + expand_macros(body, directives)
        types = set(KNOWN_TYPES) | set(re.findall(r"\btypedef\b[^;{}]*?\b(\w+)\s*;", clean))
        prelude = "".join(f"typedef int {name};\n" for name in sorted(types))
        program = (
            f"{prelude}void {_REGION_FUNCTION}(void) {{\n"
            f'# {first_line} "{self.source}"\n{region}\n}}\n'
        )
        parser = c_parser.CParser()
        try:
            ast = parser.parse(program, filename=self.source)
        except ParseError as exc:
            message = str(exc)
            m = re.match(r"^(.*?):(\d+):(\d+): (.*)$", message)
            if m:
                pos = t.Pos(int(m.group(2)), int(m.group(3)))
                raise t.syntax_error(self.source, pos, f"C syntax error: {m.group(4)}") from None
            what = message.rpartition(": ")[2]
            pos = _failing_token(parser)
            if pos is not None:
                raise t.syntax_error(self.source, pos, f"C syntax error: {what}") from None
            raise InputError(f"C syntax error: {what}", self.source) from None
        func = next(
            e for e in ast.ext if getattr(e, "decl", None) and e.decl.name == _REGION_FUNCTION
        )
        nodes = self.block(func.body.block_items or [])
        name = function or Path(self.source).stem
        return t.Kernel(
            name, nodes, directives.defaults, declared_shapes(clean), self.forced_params
        )

    # --- statements -------------------------------------------------------------------------

    def block(self, items) -> list[t.Node]:
        out: list[t.Node] = []
        for item in items:
            out += self.statement(item)
        return out

    def statement(self, node, label: str | None = None) -> list[t.Node]:
        from pycparser import c_ast as c

        pos = self.pos(node)
        if isinstance(node, c.Compound):
            return self.block(node.block_items or [])
        if isinstance(node, c.For):
            return [self.loop(node)]
        if isinstance(node, c.If):
            then = self.statement(node.iftrue) if node.iftrue is not None else []
            other = self.statement(node.iffalse) if node.iffalse is not None else []
            return [t.If(pos, self.expr(node.cond), then, other)]
        if isinstance(node, c.Label):
            return self.statement(node.stmt, node.name)
        if isinstance(node, c.Decl):
            return [self.declaration(node)]
        if isinstance(node, c.DeclList):
            return [self.declaration(d) for d in node.decls]
        if isinstance(node, (c.EmptyStatement, c.Pragma, c.Typedef)):
            return []
        if isinstance(node, (c.While, c.DoWhile)):
            kind = "while" if isinstance(node, c.While) else "do-while"
            raise self.refuse(node, f"{kind} loop")
        if isinstance(node, c.Goto):
            raise self.refuse(node, f"goto {node.name}")
        if isinstance(node, c.Break):
            raise self.refuse(node, "break inside the region")
        if isinstance(node, c.Continue):
            raise self.refuse(node, "continue inside the region")
        if isinstance(node, c.Return):
            raise self.refuse(node, "return inside the region")
        if isinstance(node, c.Switch):
            raise self.refuse(node, "switch")
        if isinstance(node, c.Node) and not isinstance(node, (c.Case, c.Default)):
            return [t.ExprStmt(pos, self.expr(node), label)]
        raise self.refuse(node, f"{type(node).__name__}")

    def declaration(self, node) -> t.Node:
        from pycparser import c_ast as c

        pos, kind, shape = self.pos(node), node.type, []
        while isinstance(kind, c.ArrayDecl):
            if kind.dim is None:
                raise self.refuse(node, f"array {node.name} without a size")
            shape.append(self.expr(kind.dim))
            kind = kind.type
        if isinstance(kind, c.PtrDecl):
            raise self.refuse(node, f"pointer {node.name}")
        if isinstance(kind, c.FuncDecl):
            raise self.refuse(node, f"function declaration {node.name}")
        init = None
        if node.init is not None:
            if isinstance(node.init, c.InitList):
                raise self.refuse(node.init, f"initializer list of {node.name}")
            init = self.expr(node.init)
        return t.Decl(pos, node.name, shape or None, init)

    def loop(self, node) -> t.For:
        from pycparser import c_ast as c

        pos = self.pos(node)
        init = node.init
        if isinstance(init, c.DeclList) and len(init.decls) == 1 and init.decls[0].init is not None:
            var, start = init.decls[0].name, init.decls[0].init
        elif isinstance(init, c.Assignment) and init.op == "=" and isinstance(init.lvalue, c.ID):
            var, start = init.lvalue.name, init.rvalue
        else:
            raise self.refuse(init or node, "a for loop needs 'v = start' as its initializer")
        if node.cond is None:
            raise self.refuse(node, "a for loop without a condition")
        step = self.step(node.next, var, node)
        body = self.statement(node.stmt) if node.stmt is not None else []
        return t.For(pos, var, self.expr(start), self.expr(node.cond), step, body)

    def step(self, nxt, var: str, loop) -> int:
        from pycparser import c_ast as c

        if nxt is None:
            raise self.refuse(loop, "a for loop without an increment")
        if isinstance(nxt, c.UnaryOp) and isinstance(nxt.expr, c.ID) and nxt.expr.name == var:
            if nxt.op in ("p++", "++"):
                return 1
            if nxt.op in ("p--", "--"):
                return -1
        if (
            isinstance(nxt, c.Assignment)
            and isinstance(nxt.lvalue, c.ID)
            and nxt.lvalue.name == var
        ):
            value = None
            if nxt.op in ("+=", "-="):
                value = _constant_int(nxt.rvalue)
                value = None if value is None else (value if nxt.op == "+=" else -value)
            elif nxt.op == "=" and isinstance(nxt.rvalue, c.BinaryOp) and nxt.rvalue.op in "+-":
                left, right = nxt.rvalue.left, nxt.rvalue.right
                if isinstance(left, c.ID) and left.name == var:
                    value = _constant_int(right)
                    value = None if value is None else (value if nxt.rvalue.op == "+" else -value)
                elif isinstance(right, c.ID) and right.name == var and nxt.rvalue.op == "+":
                    value = _constant_int(left)
            if value == 0:
                raise self.refuse(nxt, "step 0")
            if value is not None:
                return value
            raise self.refuse(nxt, "non-constant step")
        raise self.refuse(nxt, f"the increment of a for loop over {var} is not 'v += constant'")

    # --- expressions ------------------------------------------------------------------------

    def expr(self, node) -> t.Expr:
        from pycparser import c_ast as c

        pos = self.pos(node)
        if isinstance(node, c.Constant):
            return t.Num(pos, self.constant(node))
        if isinstance(node, c.ID):
            name = node.name
            if name.startswith("_PB_") and len(name) > 4:
                name = name[4:]
                self.forced_params.add(name)
            return t.Var(pos, name)
        if isinstance(node, c.ArrayRef):
            subs, base = [], node
            while isinstance(base, c.ArrayRef):
                subs.insert(0, base.subscript)
                base = base.name
            if not isinstance(base, c.ID):
                raise self.refuse(
                    base, "subscript of something that is not an array name (a pointer?)"
                )
            return t.Index(pos, base.name, [self.expr(s) for s in subs])
        if isinstance(node, c.BinaryOp):
            left, right = self.expr(node.left), self.expr(node.right)
            if node.op in ("+", "-", "*", "/", "%"):
                return t.Bin(pos, node.op, left, right)
            if node.op in ("<", "<=", ">", ">=", "==", "!="):
                return t.Cmp(pos, node.op, left, right)
            if node.op in ("&&", "||"):
                return t.BoolOp(pos, "and" if node.op == "&&" else "or", [left, right])
            raise self.refuse(node, f"operator {node.op}")
        if isinstance(node, c.UnaryOp):
            return self.unary(node)
        if isinstance(node, c.TernaryOp):
            return t.Ternary(
                pos, self.expr(node.cond), self.expr(node.iftrue), self.expr(node.iffalse)
            )
        if isinstance(node, c.Cast):
            return self.expr(node.expr)
        if isinstance(node, c.Assignment):
            return t.Assign(pos, self.expr(node.lvalue), node.op, self.expr(node.rvalue))
        if isinstance(node, c.FuncCall):
            if not isinstance(node.name, c.ID):
                raise self.refuse(node, "call through a pointer")
            args = node.args.exprs if node.args is not None else []
            return t.Call(pos, node.name.name, [self.expr(a) for a in args])
        if isinstance(node, c.StructRef):
            raise self.refuse(node, f"member access with '{node.type}' (pointers and structs)")
        if isinstance(node, c.ExprList):
            raise self.refuse(node, "comma expression")
        raise self.refuse(node, f"{type(node).__name__} expression")

    def unary(self, node) -> t.Expr:
        pos, op = self.pos(node), node.op
        if op in ("p++", "++", "p--", "--"):
            compound = "+=" if "++" in op else "-="
            return t.Assign(pos, self.expr(node.expr), compound, t.Num(pos, 1))
        if op == "-":
            return t.Neg(pos, self.expr(node.expr))
        if op == "+":
            return self.expr(node.expr)
        if op == "!":
            return t.Not(pos, self.expr(node.expr))
        if op in ("*", "&"):
            what = "pointer dereference with '*'" if op == "*" else "address-of with '&'"
            at = t.Pos(pos.line, max(1, pos.col - 1))  # pycparser marks the operand
            raise t.not_affine(self.source, at, what)
        raise self.refuse(node, f"operator {op}")

    def constant(self, node) -> int | float:
        value = node.value
        try:
            if node.type in (
                "int",
                "long int",
                "unsigned int",
                "long long int",
            ) or node.type.endswith("int"):
                digits = value.rstrip("uUlL")
                if re.match(r"^0[0-7]+$", digits):
                    return int(digits, 8)
                return int(digits, 0)
            if node.type in ("double", "float", "long double"):
                return float(value.rstrip("fFlL"))
            if node.type == "char":
                return ord(value.strip("'")[-1])
        except ValueError:
            pass
        raise self.refuse(node, f"constant {value}")


def _failing_token(parser) -> t.Pos | None:
    """Where pycparser 3 stopped, for its messages that carry no position (its token
    stream is not public: None when it is not there)."""
    try:
        stream = parser._tokens
        token = stream._buffer[min(stream._index, len(stream._buffer) - 1)]
        return t.Pos(int(token.lineno), int(token.column))
    except (AttributeError, IndexError, TypeError, ValueError):
        return None


def _constant_int(node) -> int | None:
    from pycparser import c_ast as c

    if isinstance(node, c.Constant) and node.type == "int":
        try:
            return int(node.value.rstrip("uUlL"), 0)
        except ValueError:
            return None
    if isinstance(node, c.UnaryOp) and node.op == "-":
        inner = _constant_int(node.expr)
        return None if inner is None else -inner
    return None


def c_kernel(path: str, function: str | None = None) -> t.Kernel:
    """The loop-nest tree of a C file's scop region (or of `function`)."""
    return CFrontend(str(path)).kernel(read_text(path, "C file"), function)
