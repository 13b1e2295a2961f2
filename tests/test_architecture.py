"""The package's layers (pyproject.toml's import-linter contract), no import cycles, nothing
importing the command line, and a start-up that loads no heavy library."""

from __future__ import annotations

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
