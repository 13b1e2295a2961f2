"""Extracting and running the examples of README.md and docs/*.md (tests/cli/test_docs_examples.py).

Shell examples are fenced blocks (```console, ```text, ```sh, ```bash):

* in any of them, a line `$ COMMAND` is a command; the lines after it, up to the next `$`
  line, are its output as printed (stdout and stderr, as on a terminal). A command goes on
  over lines ending in `\\` and over lines starting with `> ` (a shell's continuation prompt);
* in a ```sh/```bash block without `$` lines, each line running `tenet` is a command with no
  output shown (`pip install . && tenet ...` runs only the `tenet` part).

Every command runs with `bash` in a fresh copy of the repository root under pytest's
`tmp_path` (the top-level folders are symlinks, `docs/` is an empty folder), so output files
(`--plot docs/...png`, `-o FILE`, `--emit DIR`) land in `tmp_path` while the command keeps
the docs' text; `tenet` is `python -m tenet` from this checkout. The files a doc defines
(a ```yaml block starting with `# NAME.yaml`, a yaml block right after a paragraph that
starts with `` `NAME.yaml` ``, or the output of `$ cat NAME`), and the few inputs it only
describes (EXTRA_FILES), are written into that folder first, and so are the files an earlier
command of the doc wrote and this one reads (`--emit front`, then `cat front/dse-001.yaml`).
`$ cd DIR` lines are not run (the folder holds the doc's files); `$ NAME=VALUE` lines are
kept for the commands after them in the block. Pipelines fail when tenet fails (`pipefail`),
and `ls` lists in columns as on a terminal. Output goes to a pipe, not a terminal, so tables
are full width and without colour (COLUMNS is unset and NO_COLOR set as well).

Output is compared exactly, line by line after stripping trailing whitespace, unless it is
an excerpt: a `...` line in the output or `# excerpt` on the command makes the shown lines an
ordered subsequence of the real ones, and a shown line ending in ` ...` matches a real line
that starts with the text before it. Absolute preset paths print as `.../workloads/...`, as
the docs write them. The expected exit code is 0; 2 when the output shows `tenet: error:`;
3 for `tenet validate` showing an illegal dataflow; a command ending in `echo "exit $?"`
shows its own.

Numbers stated in the prose rather than shown as output are checked by claims
(tests/cli/test_docs_examples.py, CLAIMS): a claim quotes the doc's words, `says` finds them
in the doc (line breaks and runs of spaces count as one space, so re-wrapping a paragraph
keeps it), and the claim's own check computes the numbers independently.

Python examples (```python blocks) run as a script in the same kind of folder. A trailing
comment that reads as a Python literal on an expression statement or a `print(x)` line is
the value shown: `print(n)  # 4194304 = M*K*ceil(N/8)` checks that `n == 4194304`, and
`f(x)  # {"instances": 236800, ...}` that the result holds those items. A ```text block right
after a python block is its printed output.
"""

from __future__ import annotations

import ast
import io
import itertools
import os
import re
import shlex
import subprocess
import sys
import textwrap
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL_FENCES = ("console", "text", "sh", "bash", "")  # "": a bare fence with `$` lines
#: Flags whose value is a file or folder the command writes.
OUTPUT_FLAGS = ("-o", "--output", "--plot", "--emit", "--journal")


@dataclass
class Example:
    doc: str  # path relative to the repository root
    line: int  # 1-based line of the command (shell) or of the fence (python)
    kind: str  # "shell" or "python"
    fence: str
    code: str  # the shell command (continuations joined) or the python source
    expected: list[str] | None = None  # output lines shown; None when none is shown
    excerpt: bool = False
    preamble: list[str] = field(default_factory=list)  # shell assignments before it
    block_line: int = 0  # line of the block's opening fence

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"


@dataclass
class Block:
    doc: str
    line: int  # line of the opening fence, 1-based
    fence: str
    lines: list[str]
    before: str  # the paragraph before the block


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of a markdown file (fences may be indented, as in list items)."""
    text = path.read_text().split("\n")
    doc = path.relative_to(ROOT).as_posix()
    found, i, paragraph, ended = [], 0, [], False
    while i < len(text):
        m = re.match(r"^(\s*)```(\w*)\s*$", text[i])
        if not m:
            if not text[i].strip():
                ended = True
            else:
                paragraph = [text[i]] if ended else [*paragraph, text[i]]
                ended = False
            i += 1
            continue
        indent, fence, start = len(m.group(1)), m.group(2), i
        body = []
        i += 1
        while i < len(text) and not re.match(r"^\s*```\s*$", text[i]):
            body.append(text[i][indent:] if text[i][:indent].strip() == "" else text[i])
            i += 1
        found.append(Block(doc, start + 1, fence, body, "\n".join(paragraph)))
        paragraph, ended = [], False
        i += 1
    return found


# --- shell examples ------------------------------------------------------------------------


def _is_excerpt_marker(line: str) -> bool:
    return line.strip() in ("...", "…", '"..."', '"...",', '"...": "..."', '"...": "...",')


def shell_examples(block: Block) -> list[Example]:
    lines = block.lines
    if any(line.startswith("$ ") for line in lines):
        return _prompt_examples(block)
    if block.fence not in ("sh", "bash"):
        return []
    found = []
    for n, line in enumerate(lines):
        for part in line.split("&&"):
            if part.strip().startswith("tenet "):
                found.append(
                    Example(
                        block.doc,
                        block.line + 1 + n,
                        "shell",
                        block.fence,
                        part.strip(),
                        block_line=block.line,
                    )
                )
    return found


def _prompt_examples(block: Block) -> list[Example]:
    found: list[Example] = []
    assignments: list[str] = []
    lines, n = block.lines, 0
    while n < len(lines):
        if not lines[n].startswith("$ "):
            raise ValueError(f"{block.doc}:{block.line + 1 + n}: output before any '$' line")
        first = n
        command = [lines[n][2:]]
        n += 1
        while n < len(lines) and (command[-1].rstrip().endswith("\\") or lines[n].startswith("> ")):
            command.append(lines[n].removeprefix("> "))
            n += 1
        output = []
        while n < len(lines) and not lines[n].startswith("$ "):
            output.append(lines[n])
            n += 1
        code = "\n".join(command)
        if re.fullmatch(r"[A-Za-z_]\w*=.*", code.strip()):
            assignments.append(code)
            continue
        if re.fullmatch(r"cd\s+\S+", code.strip()):
            continue  # the examples run in a copy of the repository root that holds the files
        shown = output if any(line.strip() for line in output) else None
        found.append(
            Example(
                block.doc,
                block.line + 1 + first,
                "shell",
                block.fence,
                code,
                expected=shown,
                excerpt=bool(re.search(r"#\s*excerpt\b", code))
                or any(_is_excerpt_marker(line) for line in output),
                preamble=list(assignments),
                block_line=block.line,
            )
        )
    return found


def expected_exit(example: Example) -> int:
    code = example.code
    if re.search(r'echo "exit \$\?"\s*$', code):
        return 0
    shown = example.expected or []
    if any(line.startswith("tenet: error:") for line in shown):
        return 2
    if re.match(r"\s*tenet validate\b", code) and any(
        "ILLEGAL" in line or '"legal": false' in line for line in shown
    ):
        return 3
    return 0


def normalise(text: str, farm: Path) -> list[str]:
    """Output lines, trailing whitespace stripped, preset paths as `.../`, no trailing blanks."""
    for prefix in sorted({str(ROOT / "tenet" / "presets"), str(ROOT), str(farm)}, key=len)[::-1]:
        text = text.replace(prefix + os.sep, ".../")
    text = re.sub(r"\S*/tenet/presets/(?=(workloads|archs|networks)/)", ".../", text)
    lines = [line.rstrip() for line in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _line_matches(shown: str, real: str) -> bool:
    shown = shown.rstrip()
    if shown.endswith(" ...") and not _is_excerpt_marker(shown):
        return real.startswith(shown[:-4].rstrip())
    return shown == real


def compare(shown: list[str], real: list[str], excerpt: bool) -> str | None:
    """None when `real` output matches the `shown` lines, else a description of the first
    difference."""
    shown = [line.rstrip() for line in shown]
    while shown and not shown[-1]:
        shown.pop()
    if not excerpt:
        if len(shown) == len(real) and all(map(_line_matches, shown, real)):
            return None
        for n, (s, r) in enumerate(zip(shown, real)):
            if not _line_matches(s, r):
                return f"line {n + 1} differs:\n  shown: {s!r}\n  real:  {r!r}"
        return f"shown {len(shown)} lines, real output has {len(real)}"
    at = 0
    for s in shown:
        if _is_excerpt_marker(s) or (not s and excerpt):
            continue
        while at < len(real) and not _line_matches(s, real[at]):
            at += 1
        if at == len(real):
            return f"excerpt line not found (in order) in the real output:\n  {s!r}"
        at += 1
    return None


def output_paths(command: str) -> list[str]:
    """Values of the output flags in a command (for the check that they stay in tmp_path)."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        return []
    return [b for a, b in itertools.pairwise(words) if a in OUTPUT_FLAGS]


def producers(example: Example, shell: list[Example]) -> list[Example]:
    """Earlier commands of the same doc that write a file or folder this command reads
    (`--emit front`, then `cat front/dse-001.yaml`)."""
    found = []
    reads = example.code
    for path in output_paths(example.code):  # what the command itself writes is no input
        reads = reads.replace(path, "")
    for earlier in shell:
        if earlier.doc != example.doc or earlier.line >= example.line:
            continue
        for path in output_paths(earlier.code):
            if re.search(rf"(?<![\w/.-]){re.escape(path.rstrip('/'))}(/|\s|$)", reads):
                found.append(earlier)
                break
    return found


def write_onnx_model(path: Path) -> None:
    """A small ONNX model for `-n model.onnx`: a convolution, a ReLU and a fully connected layer."""
    import onnx
    from onnx import TensorProto, helper

    def value(name, dims):
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)

    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["y1"], name="conv1", pads=[1] * 4),
        helper.make_node("Relu", ["y1"], ["r1"]),
        helper.make_node("Flatten", ["r1"], ["f"]),
        helper.make_node("Gemm", ["f", "wfc"], ["logits"], name="fc", transB=1),
    ]
    inputs = [
        value("x", [1, 3, 16, 16]),
        value("w1", [8, 3, 3, 3]),
        value("wfc", [10, 8 * 16 * 16]),
    ]
    graph = helper.make_graph(nodes, "doc-model", inputs, [value("logits", None)])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))


# --- python examples -----------------------------------------------------------------------


def python_examples(doc_blocks: list[Block]) -> list[Example]:
    found = []
    for n, block in enumerate(doc_blocks):
        if block.fence != "python":
            continue
        follow = doc_blocks[n + 1] if n + 1 < len(doc_blocks) else None
        shown = None
        if follow is not None and follow.fence == "text" and not follow.before.strip():
            # the ```text block right after a python block is its printed output
            fence_end = block.line + len(block.lines) + 1
            if follow.line - fence_end <= 2:
                shown = follow.lines
        found.append(
            Example(
                block.doc,
                block.line,
                "python",
                "python",
                "\n".join(block.lines) + "\n",
                expected=shown,
                block_line=block.line,
            )
        )
    return found


def _comment_literal(comment: str):
    """(value, excerpt) when a comment shows a value (`# 42`, `# {'n': 7}`, `# 4194304 = M*K`,
    `# {"instances": 236800, ...}`), else None."""
    text = comment.lstrip("#").strip()
    candidates = [text, text.split(" = ")[0]]
    for candidate in candidates:
        excerpt = "..." in candidate
        source = re.sub(r",\s*\.\.\.", "", candidate).replace("...", "")
        try:
            return ast.literal_eval(source), excerpt
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            continue
    return None


_CHECK = """
def __doc_check__(value, shown, excerpt, where):
    if excerpt and isinstance(shown, dict):
        ok = isinstance(value, dict) and all(k in value and value[k] == v for k, v in shown.items())
    else:
        ok = value == shown
    if not ok:
        raise AssertionError(f"{where}: shows {shown!r}, the value is {value!r}")
    return value

"""


def instrument(source: str, doc: str, first_line: int) -> str:
    """The python example with its shown values (trailing comments) checked."""
    comments = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = tok.string
    tree = ast.parse(source)

    class Checker(ast.NodeTransformer):
        def visit_Expr(self, node: ast.Expr):
            shown = _comment_literal(comments.get(node.end_lineno, "#"))
            if shown is None:
                return node
            value, excerpt = shown
            where = f"{doc}:{first_line + node.lineno}"
            call = node.value
            is_print = (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name)
                and call.func.id == "print"
                and len(call.args) == 1
            )
            target = call.args[0] if is_print else call
            checked = ast.Call(
                func=ast.Name("__doc_check__", ast.Load()),
                args=[target, ast.Constant(value), ast.Constant(excerpt), ast.Constant(where)],
                keywords=[],
            )
            if is_print:
                call.args[0] = checked
            else:
                node.value = checked
            return node

    tree = ast.fix_missing_locations(Checker().visit(tree))
    return _CHECK + ast.unparse(tree) + "\n"


def has_checks(source: str) -> bool:
    comments = [
        tok.string
        for tok in tokenize.generate_tokens(io.StringIO(source).readline)
        if tok.type == tokenize.COMMENT
    ]
    return any(_comment_literal(c) is not None for c in comments)


# --- collecting ----------------------------------------------------------------------------


def doc_files(doc_blocks: list[Block]) -> dict[str, str]:
    """The input files a doc defines: {name: text}."""
    files: dict[str, str] = {}
    for block in doc_blocks:
        name = None
        if block.fence in ("yaml", "yml") and block.lines:
            m = re.fullmatch(r"#\s*([\w.+-]+\.(?:ya?ml|s|p|m))\s*", block.lines[0])
            if m:
                name = m.group(1)
            else:
                m = re.match(r"`([\w.+-]+\.ya?ml)`(:|\s*$)", block.before.strip())
                if m:
                    name = m.group(1)
        if name:
            files[name] = "\n".join(block.lines) + "\n"
        if any(line.startswith("$ ") for line in block.lines):
            for example in _prompt_examples(block):
                m = re.fullmatch(r"cat ([\w.+-]+)", example.code.strip())
                if m and example.expected:
                    files.setdefault(m.group(1), "\n".join(example.expected) + "\n")
    return files


def collect() -> tuple[list[Example], dict[str, dict[str, str]]]:
    """Every example of README.md and docs/*.md, and the files each doc defines."""
    examples: list[Example] = []
    files: dict[str, dict[str, str]] = {}
    for path in DOCS:
        doc_blocks = blocks(path)
        doc = path.relative_to(ROOT).as_posix()
        files[doc] = doc_files(doc_blocks)
        for block in doc_blocks:
            if block.fence in SHELL_FENCES:
                examples.extend(shell_examples(block))
        examples.extend(python_examples(doc_blocks))
    examples.sort(key=lambda e: (e.doc, e.line))
    return examples, files


# --- claims in the prose ---------------------------------------------------------------------


def says(doc: str, text: str) -> bool:
    """Whether `doc` (a path relative to the repository root) contains `text`, with any run
    of white space (line breaks included) counting as one space."""
    page = " ".join((ROOT / doc).read_text().split())
    return " ".join(text.split()) in page


# --- running -------------------------------------------------------------------------------


def make_farm(tmp: Path, files: dict[str, str]) -> Path:
    """A stand-in for the repository root under `tmp`: symlinks to its top-level entries,
    an empty `docs/` (with its subfolders) for output files, and the doc's input files."""
    farm = tmp / "root"
    farm.mkdir()
    for entry in ROOT.iterdir():
        if entry.name.startswith(".") or entry.name in ("docs", "tests"):
            continue
        (farm / entry.name).symlink_to(entry)
    for sub in (ROOT / "docs").rglob("*"):
        if sub.is_dir() and "__pycache__" not in sub.parts:
            (farm / sub.relative_to(ROOT)).mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (farm / name).parent.mkdir(parents=True, exist_ok=True)
        (farm / name).write_text(text)
    return farm


def environment(tmp: Path) -> dict[str, str]:
    """`tenet` (and `python`, `python3`) as this interpreter running this checkout; no colour;
    no terminal width (output is not a terminal, so tables are full width)."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir(exist_ok=True)
    shim = bin_dir / "tenet"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m tenet "$@"\n')
    shim.chmod(0o755)
    for name in ("python", "python3"):
        if not (bin_dir / name).exists():
            (bin_dir / name).symlink_to(sys.executable)
    env = dict(os.environ)
    for key in (
        "COLUMNS",
        "LINES",
        "FORCE_COLOR",
        "CLICOLOR_FORCE",
        "TENET_DEBUG",
        "PYTHONSTARTUP",
    ):
        env.pop(key, None)
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p),
        NO_COLOR="1",
        TERM="dumb",
        PYTHONUNBUFFERED="1",
        PYTHONIOENCODING="utf-8",
        MPLBACKEND="Agg",
    )
    return env


# A pipeline fails when tenet does (`tenet ... | cut` checks tenet's exit code), and `ls` lists
# in columns, as on the terminal the docs show.
_BASH_PRELUDE = 'set -o pipefail\nls() { command ls -C "$@"; }\n'


def run_shell(script: str, farm: Path, env: dict[str, str], timeout: float) -> tuple[int, str]:
    """(exit code, stdout and stderr interleaved as on a terminal)."""
    proc = subprocess.run(
        ["bash", "-c", _BASH_PRELUDE + "{\n" + script + "\n} 2>&1"],
        check=False,
        cwd=farm,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=timeout,
    )
    return proc.returncode, proc.stdout


def run_python(source: str, farm: Path, env: dict[str, str], timeout: float):
    script = farm / "doc_example.py"
    script.write_text(source)
    return subprocess.run(
        [sys.executable, script.name],
        check=False,
        cwd=farm,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def dedent(source: str) -> str:
    return textwrap.dedent(source)
