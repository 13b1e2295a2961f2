"""The package's layers (pyproject.toml's import-linter contract), no import cycles, nothing
importing the command line, a start-up that loads no heavy library, no private name crossing
a subpackage, and no command-line flag outside tenet/cli."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_import_linter_contract_is_kept():
    code = (
        "import sys\nfrom importlinter.cli import lint_imports\n"
        f"sys.exit(lint_imports(config_filename={str(ROOT / 'pyproject.toml')!r}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 kept, 0 broken" in result.stdout


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph("tenet")


def test_no_import_cycles(graph):
    cycles = []
    for module in sorted(graph.modules):
        for imported in graph.find_modules_directly_imported_by(module):
            if graph.chain_exists(imported, module):
                cycles.append(f"{module} <-> {imported}")
    assert not cycles, cycles


def test_nothing_imports_the_command_line(graph):
    cli = {m for m in graph.modules if m == "tenet.cli" or m.startswith("tenet.cli.")}
    outside = {m for m in graph.modules if m not in cli and m != "tenet.__main__"}
    importers = {m for c in cli for m in graph.find_modules_that_directly_import(c)} & outside
    assert not importers, importers


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["analyze", "--help"]])
def test_start_up_loads_no_heavy_library(argv):
    code = (
        "import sys\nfrom tenet.cli import main\n"
        f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('islpy', 'numpy', 'matplotlib', 'rich', 'sympy') if m in sys.modules]\n"
        "print('heavy:' + ','.join(heavy), file=sys.stderr)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert result.stderr.strip().splitlines()[-1] == "heavy:", result.stderr


def _subpackage(module: str) -> str:
    """`tenet.model.workload` -> `tenet.model`; a top-level module (`tenet.errors`) is its own."""
    return ".".join(module.split(".")[:2])


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_crossings(root: Path) -> list[str]:
    """Every `from tenet.x.y import _name`, and every `y._name` on a module `y` bound by an
    import, where the importing module sits in another subpackage than `tenet.x.y`."""
    found = []
    for path in sorted((root / "tenet").rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        bound: dict[str, str] = {}  # local name -> the tenet module or object it names
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                if not node.module.startswith("tenet"):
                    continue
                for alias in node.names:
                    crosses = _subpackage(node.module) != _subpackage(module)
                    if _is_private(alias.name) and crosses:
                        found.append(f"{path.name}:{node.lineno}: {node.module}.{alias.name}")
                    bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("tenet"):
                        bound[alias.asname or alias.name] = alias.name
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in bound
                and _is_private(node.attr)
                and _subpackage(bound[node.value.id]) != _subpackage(module)
            ):
                found.append(f"{path.name}:{node.lineno}: {bound[node.value.id]}.{node.attr}")
    return found


def test_no_private_name_crosses_a_subpackage():
    assert private_crossings(ROOT) == []


def test_private_crossings_are_found(tmp_path):
    """The check itself: a private import and a private attribute across subpackages are
    found; the same inside one subpackage, and a dunder, are not."""
    (tmp_path / "tenet" / "model").mkdir(parents=True)
    (tmp_path / "tenet" / "bounds").mkdir()
    (tmp_path / "tenet" / "model" / "a.py").write_text(
        "from tenet.model.b import _inside\nfrom tenet.model import b\nb._fine()\n"
    )
    (tmp_path / "tenet" / "bounds" / "c.py").write_text(
        "from tenet.model.workload import _secret, __version__\n"
        "from tenet.model import workload as w\nimport tenet.util.io\nw._hidden\n"
    )
    assert private_crossings(tmp_path) == [
        "c.py:1: tenet.model.workload._secret",
        "c.py:4: tenet.model.workload._hidden",
    ]


#: A long flag (`--tile`, `--max-isl-ops`) inside a string.
FLAG = re.compile(r"--[a-z][a-z-]+")


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the module's, classes' and functions' docstring nodes."""
    found = set()
    for node in ast.walk(tree):
        kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
        if isinstance(node, kinds) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def flag_strings(root: Path) -> list[str]:
    """Every string literal (f-string parts included) naming a `--flag` in a module outside
    tenet/cli. Docstrings and comments may name the flags of the command a function serves
    (they are read in the source, never printed); every other string may reach a user, who
    may have called the library, so it names options (`option_ref`), never flags."""
    found = []
    for path in sorted((root / "tenet").rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        if relative.startswith("tenet/cli/"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        skip = _docstrings(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in skip
                and FLAG.search(node.value)
            ):
                found.append(f"{relative}:{node.lineno}: {FLAG.search(node.value).group()}")
    return found


def test_no_flag_outside_the_command_line():
    assert flag_strings(ROOT) == []


def test_flag_strings_are_found(tmp_path):
    """The check itself: a flag in a message and in an f-string is found; one in a docstring,
    a comment, tenet/cli, or a bare `--` or `-w` is not."""
    (tmp_path / "tenet" / "cli").mkdir(parents=True)
    (tmp_path / "tenet" / "model").mkdir()
    (tmp_path / "tenet" / "cli" / "a.py").write_text('X = "--tile"\n')
    (tmp_path / "tenet" / "model" / "b.py").write_text(
        '"""`analyze --tile`."""\n'
        "def f(n):\n"
        '    """Uses --set."""\n'
        '    x = "give -w FILE -- or not"  # --set\n'
        '    raise ValueError("raise --max-instances")\n'
        '    return f"{n} with --set N"\n'
    )
    assert flag_strings(tmp_path) == [
        "tenet/model/b.py:5: --max-instances",
        "tenet/model/b.py:6: --set",
    ]


def test_modules_and_functions_stay_small():
    """No module of the package is over 900 lines and no function over 100
    (docs/architecture.md): a module holds one idea, a function one step."""
    long_modules, long_functions = [], []
    for path in sorted((ROOT / "tenet").rglob("*.py")):
        text = path.read_text()
        if text.count("\n") > 900:
            long_modules.append(str(path.relative_to(ROOT)))
        for node in ast.walk(ast.parse(text)):
            function = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            if function and node.end_lineno - node.lineno + 1 > 100:
                long_functions.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert long_modules == [] and long_functions == []
