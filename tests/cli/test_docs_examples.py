"""Every shell and Python example of README.md and docs/*.md runs, and prints what the docs show
(issue 12). How examples are found, run and compared: tests/doc_examples.py. A failure names
the doc and the line of the command (or of the python block's fence)."""

from __future__ import annotations

import itertools
import json
import os
import shutil
from fractions import Fraction
from pathlib import Path

import pytest

from ..helpers import run_cli
from . import doc_examples as dx

# Inputs a doc uses but only describes; written beside the files the doc spells out.
EXTRA_FILES: dict[str, dict[str, str]] = {
    "docs/formats.md": {
        # "Errors": one mistake each
        "typo-arch.yaml": (
            "name: typo-arch\n"
            "pe: {shape: [8, 8]}\n"
            "interconnect:\n"
            '  - relation: "{ PE[i,j] -> PE[i,j-1] }"\n'
            "    windw: [0, 1]\n"
        ),
        "missing-bound.yaml": (
            'name: missing-bound\nparams: {N: 8}\neinsum: "O[i] += A[i+r]"\nbounds: {i: N}\n'
        ),
        "partial.yaml": (
            "name: partial\n"
            'space: "{ S[i,j,k] -> PE[i % 8, j % 8] : k < 4 }"\n'
            'time: "{ S[i,j,k] -> T[floor(i/8), floor(j/8), k] }"\n'
        ),
        "trail.yaml": (
            'name: trail\npe: {shape: [8, 8]}\ninterconnect:\n  - "{ PE[i,j] -> PE[i,j-1] } junk"\n'
        ),
        # "Worked example": chain-4 with only `window:` changed, and the two-link arch of Links
        **{
            f"chain-4-{suffix}.yaml": (
                f"name: chain-4-{suffix}\n"
                "pe: {shape: [4]}\n"
                "interconnect:\n"
                f'  - {{relation: "{{ PE[i] -> PE[i+1] }}", window: {window}}}\n'
            )
            for suffix, window in (("w0", "[0]"), ("w1", "[1]"), ("w01", "[0, 1]"))
        },
        "chain-4-split.yaml": (
            "name: chain-4-split\n"
            "pe: {shape: [4]}\n"
            "interconnect:\n"
            "  - name: input shift\n"
            '    relation: "{ PE[i] -> PE[i+1] }"\n'
            "    window: [1]\n"
            "    tensors: [I]\n"
            "    access: read\n"
            "  - name: weight bus\n"
            '    relation: "{ PE[i] -> PE[i+1] }"\n'
            "    window: [0]\n"
            "    tensors: [W]\n"
        ),
    },
}

# Examples that do not run here, by (doc, text the command or snippet starts with).
NOT_RUN = {
    ("docs/bounds.md", "python docs/bounds/figures.py"): (
        "regenerates the committed figures in docs/bounds/ (not a tenet command)"
    ),
    ("docs/execution.md", "run_tasks(function, tasks"): "a signature, not code",
}

# Examples that take more than ~10 s: they run with `-m slow`.
SLOW = {
    # all 4,032 conv2d candidates on a local Dask cluster: minutes
    ("docs/execution.md", "tenet dse -w conv2d -a systolic-8x8 --limit 5000"),
    # 200 conv2d candidates on two spawned processes: ~14 s of CPU
    ("docs/execution.md", "tenet dse -w conv2d -a systolic-8x8 --set OX=16 --set OY=16"),
    # Dask tries a refused connection for 10 s before tenet reports it
    (
        "docs/execution.md",
        "tenet dse -w gemm -a systolic-8x8 --limit 4 --scheduler tcp://127.0.0.1:1",
    ),
    # fusion bounds of a whole GPT-3 block at three memory levels: ~13 s
    ("docs/fusion.md", "tenet fuse -w gpt3-6.7b-block -a sn40l-like"),
    # the GF100-like area study over a whole GPT-3 block: ~20 s of CPU
    ("docs/bounds.md", "tenet fuse -w gpt3-6.7b-block --technology 40"),
    # The rest of the examples' time (issue 21: the default run stays under 150 s): every
    # example that took more than 2 s with a busy 2-core machine (load 11) runs with
    # `-m slow`. Of the others, tests/conftest.py keeps every third in the default run
    # (THIN_DOCS); the rest run with `-m slow` too.
    (
        "docs/bounds.md",
        'tenet bounds --einsum "Z[m,n] += A[m,k] * B[k,n]" --shape m=4096,k=4096,n=4096',
    ),
    ("docs/bounds.md", "tenet bounds -w conv-3x3 --at 8KiB --at 64KiB --at 1MiB --word-bits 16"),
    (
        "docs/bounds.md",
        "tenet bounds -w gemm-4k --macs-per-cycle 1024 --bandwidth-gbps 200 --clock-ghz 1",
    ),
    (
        "docs/bounds.md",
        "tenet bounds -w gemm-1k-1k-16k --plot docs/bounds/gemm-1k-1k-16k.png --at 64KiB ",
    ),
    ("docs/bounds.md", 'tenet bounds --einsum "Z[m,n] += A[m,k] * B[k,n]" --shape m=37,k=37,n=37'),
    (
        "docs/bounds.md",
        "tenet bounds -w gemm-16k-1k-1k --plot docs/bounds/gemm-16k-1k-1k.png --at 64KiB ",
    ),
    (
        "docs/bounds.md",
        "tenet bounds -w gemm-4k --plot docs/bounds/gemm-4k.png --at 64KiB --at 1MiB",
    ),
    (
        "docs/bounds.md",
        'tenet bounds --einsum "O[m,n] += A[m,k] * W[k,n]" --shape m=65536,k=65536,n=6553',
    ),
    ("docs/bounds.md", "tenet bounds -w gemm-4k -a mtia-like --macs-per-cycle 4096"),
    ("docs/bounds.md", "tenet analyze -w gemm -a systolic-8x8 -d os-systolic-8x8 --bound"),
    (
        "docs/chimera.md",
        "tenet fuse -w bert-attention --chimera --capacity 64KiB --chimera-model strict -",
    ),
    ("docs/chimera.md", "tenet fuse -w bert-attention --chimera --capacity 64KiB"),
    ("docs/dse.md", "tenet dse -n two-gemms.yaml -a systolic-4x4"),
    (
        "docs/dse.md",
        "tenet dse -w conv2d -a systolic-8x8 --set OX=16 --set OY=16 --set K=16 --set C=1",
    ),
    (
        "docs/dse.md",
        "tenet dse -w gemm -a systolic-4x4 --set M=16 --set N=16 --set K=16 --objectives ",
    ),
    ("docs/dse.md", "from tenet import load_arch, load_workload"),
    (
        "docs/dse.md",
        "tenet simulate -w gemm -a systolic-4x4 -d front/dse-001.yaml --set M=8 --set N=8",
    ),
    (
        "docs/dse.md",
        "tenet analyze -w gemm -a systolic-4x4 -d front/dse-001.yaml --set M=8 --set N=8 ",
    ),
    (
        "docs/dse.md",
        "tenet simulate -w gemm -a systolic-4x4 -d front/dse-002.yaml --set M=8 --set N=8",
    ),
    ("docs/execution.md", "tenet dse -w gemm -a systolic-8x8 --limit 4 --scheduler 10.0.0.5"),
    ("docs/formats.md", "for a in chain-4 chain-4-w0 chain-4-w1 chain-4-w01 chain-4-split; do"),
    ("docs/formats.md", "tenet simulate -w gemm -a systolic-8x8 -d os-systolic-8x8"),
    ("docs/formats.md", "tenet analyze -w gemm -a trail.yaml -d os-systolic-8x8"),
    ("docs/formats.md", "tenet analyze -w gemm -a chain-64 -d os-systolic-8x8"),
    ("docs/formats.md", "tenet analyze -w gemm -a systolic-8x8 -d partial.yaml"),
    ("docs/formats.md", "tenet analyze -w missing-bound.yaml -a chain-64 -d x.yaml"),
    (
        "docs/fusion.md",
        "tenet fuse -w gpt3-attention --space uneven --no-segmentation --plot att-uneven.",
    ),
    (
        "docs/fusion.md",
        "tenet fuse -w gpt3-attention --templates flat,flash,ffmt --no-segmentation --plo",
    ),
    ("docs/fusion.md", "tenet fuse -w gpt3-ffn --space uneven --at 10MiB"),
    ("docs/fusion.md", "tenet fuse -w gpt3-ffn --space uneven --at 4MiB --at 48MiB --format json"),
    ("docs/fusion.md", "tenet fuse -w gpt3-ffn --buffer-rule paper"),
    ("docs/fusion.md", "tenet fuse -w gpt3-ffn --at 10MiB --at 257MiB --format json"),
    ("docs/fusion.md", "tenet fuse -w gpt3-ffn"),
    (
        "docs/index.md",
        "tenet compare -w gemm -d os-multicast-8x8 -a systolic-8x8 --topologies systolic-",
    ),
    (
        "docs/index.md",
        "tenet compare -w gemm -d os-multicast-8x8 -a systolic-8x8 -a multicast-8x8 -a mt",
    ),
    (
        "docs/index.md",
        "tenet analyze -w gemm -a systolic-8x8 -d os-systolic-8x8 --format csv | cut -d, ",
    ),
    (
        "docs/loopnests.md",
        "tenet dse -w examples/loopnests/matmul.py -a systolic-4x4 --set M=16 --set N=16 ",
    ),
    (
        "docs/loopnests.md",
        "tenet simulate -w examples/loopnests/gemm.c -a systolic-8x8 -d os-8x8 --set NI=1",
    ),
    ("docs/loopnests.md", "tenet analyze -w examples/loopnests/gemm.c -a systolic-8x8 -d os-8x8"),
    ("docs/loopnests.md", "tenet validate -w examples/loopnests/gemm.c -a systolic-8x8 -d os-8x8"),
    (
        "docs/loopnests.md",
        "tenet analyze -w examples/loopnests/gemm.c -a systolic-8x8 -d os-8x8 --set NI=16",
    ),
    (
        "docs/loopnests.md",
        "tenet validate -w examples/loopnests/gemm.c -a systolic-8x8 -d scale-last; echo ",
    ),
    (
        "docs/loopnests.md",
        "tenet workload show -w examples/loopnests/gemm.c --set NI=4 --set NJ=4 --set NK=",
    ),
    (
        "docs/loopnests.md",
        'tenet bounds -w examples/loopnests/matmul.py --format json | python -c "import j',
    ),
    (
        "docs/metrics.md",
        "tenet simulate -w gemm-2x2x4.yaml -a systolic-2x2.yaml -d os-skewed.yaml --forma",
    ),
    (
        "docs/metrics.md",
        "tenet analyze -w gemm -a systolic-4x4 -d ws-4x4.yaml --set M=64 --set N=64 --set",
    ),
    (
        "docs/networks.md",
        "tenet analyze -n resnet50 -a systolic-8x8 -d os-8x8,os-systolic-8x8 --format jso",
    ),
    ("docs/networks.md", "from tenet import load_arch"),
    (
        "docs/networks.md",
        "tenet analyze -n model.onnx -a systolic-8x8 -d os-8x8,os-systolic-8x8 --jobs 2",
    ),
    ("docs/networks.md", "tenet analyze -n alexnet -a systolic-8x8 -d os-8x8,os-systolic-8x8"),
    ("docs/networks.md", "tenet analyze -n alexnet -a systolic-8x8 -d os-8x8,os-systolic-8x8"),
    (
        "docs/symbolic.md",
        "tenet analyze -n resnet50 -a systolic-8x8 -d ws-8x8,os-systolic-8x8 --symbolic -",
    ),
    ("docs/symbolic.md", 'path = "workloads/conv2d/workload.yaml"'),
    ("docs/symbolic.md", "from tenet import load_workload, load_arch, load_dataflow"),
    ("docs/symbolic.md", 'names = {n: sympy.Symbol(n, integer=True) for n in data["symbols"]}'),
    (
        "docs/symbolic.md",
        "tenet analyze --symbolic -w gemm -a systolic-8x8 -d os-systolic-8x8 --set K=256 ",
    ),
    (
        "docs/topologies.md",
        "tenet compare -w gemm -d os-multicast-8x8 -a systolic-8x8 --topologies systolic-",
    ),
    ("docs/topologies.md", "tenet analyze -w bcast.yaml -a pair.yaml -d d-pair.yaml | tail -3"),
    (
        "docs/topologies.md",
        "tenet analyze -w gemm -a systolic-8x8 -d os-systolic-8x8 --set M=64 --set N=64 -",
    ),
    (
        "docs/validation.md",
        "for d in os-systolic-8x8 ws-systolic-8x8 gemm-notile.yaml gemm-kback.yaml; do",
    ),
    (
        "docs/validation.md",
        "tenet trace -w gemm -a systolic-8x8 -d os-systolic-8x8 --set M=16 --set N=16 --s",
    ),
    (
        "docs/validation.md",
        "diff <(tenet analyze -w gemm -a systolic-8x8 -d os-systolic-8x8 $S2 --format csv",
    ),
    (
        "docs/validation.md",
        "tenet trace -w gemm -a systolic-8x8 -d gemm-notile.yaml --set M=16 --set N=16 --",
    ),
    ("docs/validation.md", "tenet validate -w gemm -a systolic-8x8 -d ws-systolic-8x8 --set K=8"),
    (
        "docs/validation.md",
        "tenet simulate -w gemm -a systolic-8x8 -d os-systolic-8x8 --set M=16 --set N=16 ",
    ),
}

# Python examples that continue an earlier one: (doc, start) -> (doc, start of the earlier one)
# or python source run first.
PYTHON_PRELUDE = {
    ("docs/symbolic.md", 'path = "workloads/conv2d/workload.yaml"'): (
        "docs/symbolic.md",
        "from tenet import load_workload",
    ),
    ("docs/symbolic.md", "names = {n: sympy.Symbol"): (
        "import json\n"
        "import sympy\n"
        "from tenet import load_arch, load_dataflow, load_workload\n"
        "from tenet.analysis.symbolic import symbolic_analysis\n"
        "from tenet.report.symbolic import symbolic_json\n"
        "\n"
        "# data: the JSON of `tenet analyze --symbolic ... --set K=256 --format json` above\n"
        "data = json.loads(json.dumps(symbolic_json(symbolic_analysis(\n"
        '    load_workload("workloads/gemm/workload.yaml"), load_arch("archs/systolic-8x8.yaml"),\n'
        '    load_dataflow("workloads/gemm/dataflows/os-systolic-8x8.yaml"), fixed={"K": 256}))))\n'
    ),
}

# Exit codes the docs state in the prose rather than with `echo "exit $?"`: (doc, start) -> code.
EXIT_CODES = {
    # an illegal dataflow piped into python: validate's exit code 3 (pipefail)
    (
        "docs/validation.md",
        (
            "tenet validate -w mmc -a systolic-8x8 -d mmc-swapped.yaml --set M=16 --set N=16 "
            "--set K=8 --set L=16 --format json | python3"
        ),
    ): 3,
}

# The Dask cluster of the docs (`tcp://10.0.0.5:8786`) is a local one in the tests.
DOCS_SCHEDULER = "tcp://10.0.0.5:8786"

TIMEOUT = 900

EXAMPLES, DOC_FILES = dx.collect()


def _lookup(table, example: dx.Example):
    for (doc, start), value in table.items():
        if doc == example.doc and example.code.lstrip().startswith(start):
            return value
    return None


def _param(example: dx.Example):
    marks = []
    if any(doc == example.doc and example.code.lstrip().startswith(s) for doc, s in SLOW):
        marks.append(pytest.mark.slow)
    return pytest.param(example, id=example.id, marks=marks)


# Examples listed in NOT_RUN (with the reason) are not collected at all.
SHELL = [e for e in EXAMPLES if e.kind == "shell" and not _lookup(NOT_RUN, e)]
PYTHON = [e for e in EXAMPLES if e.kind == "python" and not _lookup(NOT_RUN, e)]


def _setup(example: dx.Example, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    files = {**DOC_FILES.get(example.doc, {}), **EXTRA_FILES.get(example.doc, {})}
    root = dx.make_farm(tmp_path, files)
    return root, dx.environment(tmp_path)


def _needs(example: dx.Example, root: Path, request) -> str:
    """The command, with what it needs prepared: Dask (for `--scheduler`; the docs' cluster
    becomes a local one) and an ONNX model (for `-n model.onnx`)."""
    code = example.code
    if "--scheduler" in code:
        pytest.importorskip("distributed")
    if DOCS_SCHEDULER in code:
        code = code.replace(DOCS_SCHEDULER, request.getfixturevalue("dask_scheduler_address"))
    if "model.onnx" in code:
        pytest.importorskip("onnx")
        dx.write_onnx_model(root / "model.onnx")
    return code


# What commands wrote (`--emit front`), kept for the later commands that read it: id -> folder.
_WRITTEN: dict[str, Path] = {}


def _keep_outputs(example: dx.Example, root: Path, store: Path) -> None:
    store.mkdir(parents=True, exist_ok=True)
    for path in dx.output_paths(example.code):
        source = root / path
        if source.is_dir():
            shutil.copytree(source, store / path, dirs_exist_ok=True)
        elif source.is_file():
            (store / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, store / path)
    _WRITTEN[example.id] = store


def _run_producers(example, root, env, tmp_path_factory) -> None:
    """Give `root` the files earlier commands of the doc write and this one reads."""
    for producer in dx.producers(example, SHELL):
        if producer.id not in _WRITTEN:
            script = "\n".join([*producer.preamble, producer.code])
            rc, out = dx.run_shell(script, root, env, TIMEOUT)
            assert rc == 0, f"{producer.id} (run first, for {example.id}) failed:\n{out}"
            _keep_outputs(producer, root, tmp_path_factory.mktemp("written"))
        else:
            shutil.copytree(_WRITTEN[producer.id], root, dirs_exist_ok=True)


@pytest.mark.parametrize("example", [_param(e) for e in SHELL])
def test_shell_example(example: dx.Example, tmp_path, tmp_path_factory, request):
    root, env = _setup(example, tmp_path)
    code = _needs(example, root, request)
    _run_producers(example, root, env, tmp_path_factory)
    for path in dx.output_paths(code):
        target = os.path.realpath(root / path)
        assert target.startswith(str(tmp_path)), f"{example.id} would write {path} outside tmp"
    rc, out = dx.run_shell("\n".join([*example.preamble, code]), root, env, TIMEOUT)
    expected_rc = _lookup(EXIT_CODES, example)
    if expected_rc is None:
        expected_rc = dx.expected_exit(example)
    assert rc == expected_rc, (
        f"{example.id}: exit code {rc}, the docs imply {expected_rc}\n$ {example.code}\n{out}"
    )
    if rc == 0 and dx.output_paths(code):
        _keep_outputs(example, root, tmp_path_factory.mktemp("written"))
    if example.expected is not None:
        real = dx.normalise(out, root)
        problem = dx.compare(example.expected, real, example.excerpt)
        assert problem is None, (
            f"{example.id}: the output differs from the docs ({problem})\n"
            f"$ {example.code}\n--- real output ---\n" + "\n".join(real)
        )


@pytest.mark.parametrize("example", [_param(e) for e in PYTHON])
def test_python_example(example: dx.Example, tmp_path):
    root, env = _setup(example, tmp_path)
    source = dx.dedent(example.code)
    prelude = _lookup(PYTHON_PRELUDE, example)
    if isinstance(prelude, tuple):
        doc, start = prelude
        (earlier,) = [e for e in PYTHON if e.doc == doc and e.code.lstrip().startswith(start)]
        prelude = dx.dedent(earlier.code)
    script = dx.instrument(source, example.doc, example.line)
    if prelude:
        script = prelude + "\n" + script
    proc = dx.run_python(script, root, env, TIMEOUT)
    assert proc.returncode == 0, f"{example.id} failed:\n{proc.stdout}\n{proc.stderr}"
    if example.expected is not None:
        real = dx.normalise(proc.stdout, root)
        problem = dx.compare(example.expected, real, False)
        assert problem is None, (
            f"{example.id}: the printed output differs from the docs ({problem})\n"
            + "\n".join(real)
        )


# --- the harness itself --------------------------------------------------------------------


def test_examples_are_found():
    """Every doc with examples is seen, with each kind of fence they use."""
    docs = {e.doc for e in EXAMPLES}
    assert {"README.md", "docs/validation.md", "docs/formats.md", "docs/symbolic.md"} <= docs
    assert {e.fence for e in EXAMPLES} >= {"console", "text", "sh", "python"}
    assert len(SHELL) >= 90 and len(PYTHON) >= 8
    shown = [e for e in SHELL if e.expected is not None]
    assert len(shown) >= 60  # most commands show their output
    # the README's `pip install . && tenet analyze ...` runs its tenet part
    assert any(e.doc == "README.md" and e.code.startswith("tenet analyze") for e in SHELL)


def test_every_table_entry_names_an_example():
    """A renamed or edited command must not silently drop out of the tables above."""
    for table in (NOT_RUN, PYTHON_PRELUDE, EXIT_CODES, dict.fromkeys(SLOW)):
        for doc, start in table:
            assert any(e.doc == doc and e.code.lstrip().startswith(start) for e in EXAMPLES), (
                f"no example in {doc} starts with {start!r}"
            )


def test_compare_exact_and_excerpts():
    real = ["title", "", "  a   1", "  b   2", "  c   3"]
    assert dx.compare(["title", "", "  a   1", "  b   2", "  c   3  "], real, False) is None
    assert "line 4" in dx.compare(["title", "", "  a   1", "  b   9", "  c   3"], real, False)
    assert dx.compare(["title", "  a   1"], real, False) is not None  # exact: no gaps
    assert dx.compare(["title", "...", "  c   3"], real, True) is None
    assert dx.compare(["  c   3", "  a   1"], real, True) is not None  # in order
    assert dx.compare(["  b ..."], real, True) is None  # a line cut short
    assert dx.compare(["  b   2  ..."], ["  b   2   more"], True) is None


def test_normalise_preset_paths():
    text = f"tenet: error: {dx.ROOT}/workloads/gemm/workload.yaml: x  \n\n"
    assert dx.normalise(text, dx.ROOT) == ["tenet: error: .../workloads/gemm/workload.yaml: x"]


def test_python_values_shown_in_comments_are_checked(capsys):
    def run(source):
        code = compile(dx.instrument(source, "doc.md", 1), "doc.md", "exec")
        exec(code, {})  # noqa: S102 - a doc snippet, as the examples run it

    run("print(6 * 7)  # 42 = six times seven\n")
    assert capsys.readouterr().out == "42\n"
    run("{'n': 7, 'm': 8}  # {'n': 7, ...}\nx = 1  # 2\nlen('ab')  # two, in words\n")
    with pytest.raises(AssertionError, match=r"doc.md:2: shows 41"):
        run("print(6 * 7)  # 41\n")
    with pytest.raises(AssertionError):
        run("dict(n=6)  # {'n': 7, ...}\n")


def test_expected_exit_codes():
    def example(code, shown):
        return dx.Example("d.md", 1, "shell", "console", code, expected=shown)

    assert dx.expected_exit(example("tenet analyze -w x", ["tenet: error: x: bad"])) == 2
    assert dx.expected_exit(example("tenet validate -w x", ["x: ILLEGAL, 1 violation(s)"])) == 3
    assert dx.expected_exit(example('tenet validate -w x; echo "exit $?"', ["exit 3"])) == 0
    assert dx.expected_exit(example("tenet analyze -w x", None)) == 0


# --- numbers stated in the prose (issue 21) ---------------------------------------------------
#
# Each claim quotes a doc's words and checks them with numbers computed here: by running the
# command the text names, by brute force, or by the arithmetic the text shows.


def _group_members(name: str, shape: list[int]) -> dict[tuple, set[tuple]]:
    """PE -> the PEs of its multicast group, from the preset's isl relation, pair by pair."""
    import islpy as isl

    from tenet.model.topology import generate

    (link,) = generate(name, shape, {})
    relation = isl.Map(link.relation)
    pes = list(itertools.product(*(range(n) for n in shape)))

    def linked(p: tuple, q: tuple) -> bool:
        pair = isl.Map(f"{{ PE[{', '.join(map(str, p))}] -> PE[{', '.join(map(str, q))}] }}")
        return pair.is_subset(relation)

    return {p: {q for q in pes if linked(p, q)} for p in pes}


def _check_multicast(name: str, fixed: list[int], relation_text: str, per_group: int):
    """On [2, 3, 4]: a PE's group is every PE agreeing with it on the `fixed` axes; on [4],
    every PE (the whole array)."""
    from tenet.model.topology import generate

    shape = [2, 3, 4]
    assert relation_text in generate(name, shape, {})[0].relation
    for pe, group in _group_members(name, shape).items():
        expected = {
            q
            for q in itertools.product(*(range(n) for n in shape))
            if all(q[a] == pe[a] for a in fixed)
        }
        assert group == expected and len(group) == per_group
    for pe, group in _group_members(name, [4]).items():
        assert group == {(0,), (1,), (2,), (3,)}


def _check_outside_array(capsys):
    rc, out, err = run_cli(
        ["analyze", "-w", "gemm", "-a", "systolic-8x8", "-d", "os-systolic-16x16"], capsys
    )
    assert rc == 0
    # 16x16 tiles on an 8x8 array: 256 - 64 PEs outside, and PE[0, 8] is the first of them
    assert 16 * 16 - 8 * 8 == 192
    text = "192 used PEs lie outside the array, e.g. PE[0, 8]: an outside_array violation"
    assert text in out + err


def _check_ws_bound(capsys):
    rc, out, err = run_cli(
        ["analyze", "-w", "gemm", "-a", "systolic-8x8", "-d", "ws-systolic-8x8", "--bound"]
        + ["--format", "json"],
        capsys,
    )
    assert rc == 0, err
    report = json.loads(out)
    writes = report["tensors"]["C"]["write"]["unique"]
    reads = report["tensors"]["A"]["read"]["unique"] + report["tensors"]["B"]["read"]["unique"]
    # 256^3 GEMM, 8-wide blocks: C's partial sums written 256 / 8 = 32 times per element
    assert writes == 32 * 256 * 256 == 2_097_152
    assert writes - 256 * 256 == 2_031_616  # read back to be accumulated
    assert 2 * writes - 256 * 256 == 4_128_768
    assert report["bound"]["dataflow_traffic"] == reads + 4_128_768 == 6_291_456
    # the front at 17,408 words: 128x128 output tiles, 2 * 256^3 / 128 + 256^2
    assert report["bound"]["accesses"] == 2 * 256**3 // 128 + 256**2 == 327_680
    assert report["bound"]["ratio"] == 19.2 == 6_291_456 / 327_680


# (dataflow, its arch) of docs/presets.md's gemm table
GEMM_PRESETS = [
    ("os-systolic-8x8", "systolic-8x8"),
    ("ws-systolic-8x8", "systolic-8x8"),
    ("ncf-nmk-8x8", "systolic-8x8"),
    ("ncf-rs-64", "chain-64"),
    ("ncf-yxp-os-64", "chain-64"),
    ("chain-256", "chain-256"),
    ("os-systolic-16x16", "systolic-16x16"),
    ("os-multicast-8x8", "multicast-8x8"),
]


def _check_no_slicing(presets: list[tuple[str, str]], capsys):
    for dataflow, arch in presets:
        rc, _, err = run_cli(
            ["analyze", "-w", "gemm", "-a", arch, "-d", dataflow, "--verbose"], capsys
        )
        assert rc == 0, err
        assert "0 not quasi-affine, sliced at 0 enumerated value(s)" in err, (dataflow, err)


def _check_uneven_gains(capsys):
    rc, out, err = run_cli(
        ["fuse", "-w", "gpt3-ffn", "--space", "uneven", "--format", "json"], capsys
    )
    assert rc == 0, err
    report = json.loads(out)
    mib = 2**20 // 2  # words of 16 bits in a MiB

    def at(front, words):
        below = [p["accesses"] for p in front if p["buffer"] <= words]
        return below[-1] if below else None

    sizes = sorted({p["buffer"] for key in ("uneven", "best_segmentation") for p in report[key]})
    gains = {}
    for words in sizes:
        uneven, best = at(report["uneven"], words), at(report["best_segmentation"], words)
        if uneven and best:
            gains[words] = Fraction(best, uneven)
    top = max(gains.values())
    assert top == 2
    where = [w for w, g in gains.items() if g == top]
    # the stretch [256.016, 256.04) MiB: uneven's minimum to best_segmentation's
    assert round(min(where) / mib, 3) == 256.016
    assert all(w / mib < 256.04 for w in where)
    assert at(report["best_segmentation"], 256.04 * mib) == at(report["uneven"], 256.04 * mib)
    small = {w: g for w, g in gains.items() if w < mib // 2}
    worst = max(small.values())
    assert worst <= Fraction(5, 4) and round(float(worst), 4) == 1.2498
    assert [w for w, g in small.items() if g == worst] == [7]


def _check_untiled_line(capsys):
    rc, out, err = run_cli(
        ["fuse", "-w", "gpt3-ffn", "--no-segmentation", "--format", "json"], capsys
    )
    assert rc == 0, err
    report = json.loads(out)
    untiled = report["untiled"]
    h = 32768 * 16384  # the intermediate H[m, f], whole
    assert h * 2 == 1024 * 2**20  # bytes: 1,024 MiB
    assert len(untiled) == 15
    first, last = untiled[0]["buffer"], untiled[-1]["buffer"]
    assert (first, last) == (536_870_914, 536_887_297) and h < first < last
    assert round(first * 2 / 2**20, 6) == 1024.000004 and round(last * 2 / 2**20, 2) == 1024.03
    # the fused minimum: X, Y, W1 and W2 once
    minimum = 2 * 32768 * 4096 + 2 * 4096 * 16384
    assert untiled[-1]["accesses"] == minimum == 402_653_184


def _check_raw_floor_rises(capsys):
    from tenet.bounds.chain import load_chain
    from tenet.bounds.fusion_uneven import chain_lower_bound, monotone_floors
    from tenet.formats.presets import resolve_workload

    chain = load_chain(resolve_workload("gpt3-ffn"))
    assert chain_lower_bound(chain, 4_195_329) == 864_188_416
    assert chain_lower_bound(chain, 4_196_353) == 864_350_208
    assert monotone_floors(chain, [4_195_329, 4_196_353])[4_195_329] == 864_350_208


FFN_TABLE_SIZES = ["1MiB", "4MiB", "10MiB", "32MiB", "48MiB", "128MiB", "257MiB"]


def _check_ffn_uneven_table(capsys):
    """fusion.md's `uneven` table of gpt3-ffn: each row as `--at` gives it."""
    rc, out, err = run_cli(
        ["fuse", "-w", "gpt3-ffn", "--space", "uneven", "--at", ",".join(FFN_TABLE_SIZES)]
        + ["--format", "json"],
        capsys,
    )
    assert rc == 0, err
    page = (dx.ROOT / "docs/fusion.md").read_text()
    keys = ("unfused", "tiled", "best_segmentation", "uneven", "lower_bound")
    for row in json.loads(out)["at"]:
        size = row["size"].replace("MiB", " MiB")
        line = f"| {size} | " + " | ".join(f"{row[k]:,}" for k in keys) + " |"
        assert line in page, line


CLAIMS = [
    pytest.param(
        "docs/topologies.md",
        "[2, 3, 4]: `q0 = p0 and q1 = p1`, 4 PEs per group",
        lambda capsys: _check_multicast("row-multicast", [0, 1], "q0 = p0 and q1 = p1", 4),
        id="topologies-row-multicast",
    ),
    pytest.param(
        "docs/topologies.md",
        "[2, 3, 4]: `q1 = p1 and q2 = p2`, 2 PEs per group). On a 1-D array no axis is fixed, "
        "so the one group is the whole array",
        lambda capsys: _check_multicast("column-multicast", [1, 2], "q1 = p1 and q2 = p2", 2),
        id="topologies-column-multicast",
    ),
    pytest.param(
        "docs/topologies.md",
        "prints `192 used PEs lie outside the array, e.g. PE[0, 8]: ...`",
        _check_outside_array,
        id="topologies-outside-array",
    ),
    pytest.param(
        "docs/bounds.md",
        "(2 · 2,097,152 − 65,536 = 4,128,768) as Snowcat's read-modify-write charges it: "
        "6,291,456 / 327,680 = 19.20.",
        _check_ws_bound,
        id="bounds-ws-ratio",
    ),
    pytest.param(
        "docs/metrics.md",
        "0 for the GEMM presets on their arrays",
        lambda capsys: _check_no_slicing(GEMM_PRESETS[:1], capsys),
        id="metrics-no-slicing-os",
    ),
    pytest.param(
        "docs/metrics.md",
        "the GEMM presets on their arrays have none",
        lambda capsys: _check_no_slicing(GEMM_PRESETS, capsys),
        id="metrics-no-slicing-all",
        marks=pytest.mark.slow,
    ),
    pytest.param(
        "docs/fusion.md",
        "it keeps the whole intermediate H (32,768 × 16,384 words = 1,024 MiB) on chip, so its "
        "15 points lie between 1,024.000004 MiB (536,870,914 words) and 1,024.03 MiB "
        "(536,887,297 words), where it falls to the fused minimum, 402,653,184 accesses.",
        _check_untiled_line,
        id="fusion-untiled-line",
    ),
    pytest.param(
        "docs/fusion.md",
        "(on `gpt3-ffn`, 864,188,416 at 4,195,329 words but 864,350,208 at 4,196,353)",
        _check_raw_floor_rises,
        id="fusion-floor-running-maximum",
    ),
    pytest.param(
        "docs/fusion.md",
        "| buffer | unfused | tiled | best segmentation | uneven | floor (any schedule) |",
        _check_ffn_uneven_table,
        id="fusion-ffn-uneven-table",
        marks=pytest.mark.slow,
    ),
    pytest.param(
        "docs/fusion.md",
        "[256.016, 256.04) MiB, holds the largest gain over `best_segmentation`, 2.00x; below "
        "0.5 MiB the gain is at most 1.25x (1.2498x, at 7 words)",
        _check_uneven_gains,
        id="fusion-uneven-gains",
        marks=pytest.mark.slow,
    ),
]


@pytest.mark.parametrize(("doc", "text", "check"), CLAIMS)
def test_prose_claim(doc, text, check, capsys):
    assert dx.says(doc, text), f"{doc} no longer says {text!r}: update the claim with the text"
    check(capsys)


def test_unshipped_numbers_are_gone():
    """fusion.md quoted 2.53x, 12.9x and 5.84x from a re-implementation of the artifact that
    the repository does not have (issue 21); no page may cite it."""
    for path in dx.DOCS:
        assert "re-implementation" not in path.read_text(), path
