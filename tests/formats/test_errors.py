"""Bad input: one readable InputError; at the command line, exit code 2 and exactly one line.

The rule (docs/reference.md, exit codes): a bad input makes `tenet` exit with code 2 and
print ONE line on stderr -- no Python traceback, nothing on stdout -- naming the file at
fault and the key (or the isl text) at fault. That line is `tenet: error: ` followed by
the text of the InputError the library raised, `SOURCE: KEY: MESSAGE`.

Every test starts from a copy of a preset (gemm, jacobi2d, mmc, systolic-8x8,
os-systolic-8x8) or of a small set of TENET text files, written into tmp_path, and breaks
one thing. The tests are grouped by input kind; each calls the library function that reads
(or binds) that input -- load_workload, load_arch, load_dataflow, bind_dataflow,
load_tenet, ... -- inside `raises_input_error`, which checks the error's text. The last
part runs a representative few cases through the CLI in-process (`tenet.cli.main`), the
errors of flags that exist only there, and a few `python -m tenet` subprocesses that prove
no traceback escapes end-to-end.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tenet import InputError, load_arch, load_dataflow, load_tenet, load_workload, simulate
from tenet.cli import main
from tenet.formats.presets import find_arch, find_dataflow, find_workload
from tenet.model.dataflow import bind_dataflow

from ..helpers import GEMM_OS_ARGS, SMALL_GEMM_ARGS, run_cli, write_yaml

ROOT = Path(__file__).resolve().parents[2]
WORKLOADS = ROOT / "workloads"
ARCHS = ROOT / "archs"
MMC_WORKLOAD = WORKLOADS / "mmc" / "workload.yaml"

GEMM = (WORKLOADS / "gemm" / "workload.yaml").read_text()
JACOBI = (WORKLOADS / "jacobi2d" / "workload.yaml").read_text()
ARCH = (ARCHS / "systolic-8x8.yaml").read_text()
DATAFLOW = (WORKLOADS / "gemm" / "dataflows" / "os-systolic-8x8.yaml").read_text()

# TENET's own text formats (examples/tenet/README.md), a small GEMM.
STATEMENT_S = (
    "2 1\n"
    "{S[i,j,k]: 0<=i<16 and 0<=j<16 and 0<=k<8}\n"
    "{S[i,j,k]->A[i,k]}\n"
    "{S[i,j,k]->B[k,j]}\n"
    "{S[i,j,k]->C[i,j]}\n"
)
PE_ARRAY_P = (
    "{PE[i,j]:0<=i<8 and 0<=j<8}\n{PE[i,j]->PE[i-1,j] ; PE[i,j]->PE[i,j-1]}\n256 1024 64 16\n"
)
MAPPING_M = "{S[i,j,k]->PE[i%8,j%8]}\n{S[i,j,k]->T[floor(i/8),floor(j/8),i%8+j%8+k]}\n"
TENET_TEXT = {"s": STATEMENT_S, "p": PE_ARRAY_P, "m": MAPPING_M}


def edit(text: str, old: str, new: str) -> str:
    """`text` with `old` replaced; fails loudly if the preset no longer contains `old`."""
    assert old in text, f"preset changed: {old!r} not found"
    return text.replace(old, new)


# A small GEMM (M=16, N=16, K=8), so that positive runs stay fast without --set.
SMALL_GEMM = edit(GEMM, "{M: 256, N: 256, K: 256}", "{M: 16, N: 16, K: 8}")
# jacobi2d's iteration domain (parameter N).
DOMAIN_2D = "[N] -> { S[i,j] : 0 <= i < N and 0 <= j < N }"

PRESET_TEXT = {"workload": SMALL_GEMM, "arch": ARCH, "dataflow": DATAFLOW}
YAML_KINDS = ["workload", "arch", "dataflow"]
LOADERS = {"workload": load_workload, "arch": load_arch, "dataflow": load_dataflow}
WHAT = {
    "workload": "workload file",
    "arch": "arch file",
    "dataflow": "dataflow file",
    "s": "statement file",
    "p": "PE array file",
    "m": "mapping file",
}


def isl_workload(domain: str, reads: str = "{ S[i] -> A[i] }", params: str = "") -> str:
    """A one-statement workload in the isl form of the contract."""
    head = f"name: probe\n{params}"
    return head + f'statements:\n  - domain: "{domain}"\n    reads:\n      A: "{reads}"\n'


# --------------------------------------------------------------------------- checks


def check_line(line: str, prefix: str, source, key, needles) -> str:
    """`line` is one line `PREFIX SOURCE: KEY: MESSAGE` (SOURCE and KEY when given) whose
    MESSAGE contains every needle; returns it."""
    assert "\n" not in line, f"expected one line, got {line!r}"
    if source is not None:
        prefix += f"{source}: "
    if key is not None:
        prefix += f"{key}: "
    assert line.startswith(prefix), f"expected {prefix!r}..., got {line!r}"
    rest = line[len(prefix) :]  # needles must not match inside the (tmp_path) file name
    for needle in needles:
        assert str(needle) in rest, f"{needle!r} not in {rest!r} (line {line!r})"
    return line


@contextlib.contextmanager
def raises_input_error(source=None, key=None, *needles) -> Iterator[pytest.ExceptionInfo]:
    """The body raises an InputError (exit code 2) whose text is `SOURCE: KEY: MESSAGE` on
    one line, MESSAGE containing every needle: what the CLI prints after `tenet: error: `."""
    with pytest.raises(InputError) as info:
        yield info
    exc = info.value
    assert exc.exit_code == 2
    if source is not None:
        assert exc.source == str(source), f"source {exc.source!r}, expected {str(source)!r}"
    if key is not None:
        assert exc.key == key, f"key {exc.key!r}, expected {key!r}"
    check_line(str(exc), "", source, key, needles)


def assert_input_error(rc: int, out: str, err: str, source=None, key=None, *needles) -> str:
    """Exit 2, nothing on stdout, exactly one stderr line `tenet: error: SOURCE: KEY: MESSAGE`
    whose MESSAGE contains every needle; returns that line."""
    assert "Traceback" not in err, err
    assert rc == 2, f"rc={rc}, stderr={err!r}"
    assert out == "", f"stdout should be empty, got {out!r}"
    assert err.endswith("\n") and err.count("\n") == 1, f"expected one stderr line, got {err!r}"
    return check_line(err.rstrip("\n"), "tenet: error: ", source, key, needles)


# --------------------------------------------------------------------------- inputs


class Inputs:
    """Copies of the gemm presets in tmp_path; `load()` reads them, `args()` is an analyze
    command line."""

    def __init__(self, tmp_path: Path):
        self.tmp = tmp_path
        self.workload = self.write("workload.yaml", SMALL_GEMM)
        self.arch = self.write("arch.yaml", ARCH)
        self.dataflow = self.write("dataflow.yaml", DATAFLOW)

    def write(self, name: str, content: str | bytes) -> Path:
        path = self.tmp / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
        return path

    def replace(self, kind: str, content: str | bytes) -> Path:
        """Overwrite the workload, arch or dataflow file; returns its path."""
        return self.write(getattr(self, kind).name, content)

    def load(self, workload=None, sets: dict | None = None):
        """(workload, arch, dataflow), read in the order of the CLI."""
        return (
            load_workload(workload or self.workload, sets),
            load_arch(self.arch),
            load_dataflow(self.dataflow),
        )

    def bind(self, workload=None):
        """The dataflow bound to the workload and arch (where a dataflow that does not fit
        them is refused)."""
        w, a, d = self.load(workload)
        return bind_dataflow(d, w, a)

    def args(
        self, *extra, command: str = "analyze", workload=None, arch=None, dataflow=None
    ) -> list:
        return [
            command,
            "-w",
            workload or self.workload,
            "-a",
            arch or self.arch,
            "-d",
            dataflow or self.dataflow,
            *extra,
        ]


class TenetFiles:
    """TENET's three text files in tmp_path."""

    def __init__(self, tmp_path: Path):
        self.tmp = tmp_path
        self.paths = {"s": tmp_path / "stmt.s", "p": tmp_path / "pe.p", "m": tmp_path / "map.m"}
        for kind, text in TENET_TEXT.items():
            self.paths[kind].write_text(text)

    def replace(self, kind: str, content: str | bytes) -> Path:
        path = self.paths[kind]
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
        return path

    def load(self, **paths):
        """(workload, arch, dataflow) from the three files (or the ones given by kind)."""
        return load_tenet(*[paths.get(k, self.paths[k]) for k in ("s", "p", "m")])

    def bind(self):
        w, a, d = self.load()
        return bind_dataflow(d, w, a)

    def args(self, *extra, **paths) -> list:
        files = [paths.get(k, self.paths[k]) for k in ("s", "p", "m")]
        return ["analyze", "--tenet", *files, *extra]


@pytest.fixture
def inputs(tmp_path) -> Inputs:
    return Inputs(tmp_path)


@pytest.fixture
def tenet_files(tmp_path) -> TenetFiles:
    return TenetFiles(tmp_path)


# --------------------------------------------------------------------------- positive


def test_copies_load_and_bind(inputs, tenet_files):
    """The untouched copies are valid: every error below comes from the one thing broken."""
    inputs.bind()
    tenet_files.bind()


def test_simulate_yaml_files(inputs):
    assert simulate(*inputs.load()).to_dict()["instances"] == 16 * 16 * 8


# =========================================================================== YAML inputs
# (workload, arch and dataflow files alike)

# --------------------------------------------------------------------------- files


@pytest.mark.parametrize("kind", YAML_KINDS)
def test_missing_yaml_file(inputs, kind):
    missing = inputs.tmp / f"no-such-{kind}.yaml"
    with raises_input_error(missing, None, "not found", WHAT[kind]):
        LOADERS[kind](missing)


@pytest.mark.parametrize("kind", YAML_KINDS)
def test_directory_as_yaml_file(inputs, kind):
    folder = inputs.tmp / "a-folder"
    folder.mkdir()
    with raises_input_error(folder, None, "is a directory", WHAT[kind]):
        LOADERS[kind](folder)


@pytest.mark.parametrize(
    "find, name, what",
    [
        (find_workload, "gemmm", "workload file"),
        (find_arch, "systolic-8x9", "arch file"),
        (
            lambda name: find_dataflow(name, find_workload("gemm")),
            "os-systolic-9x9",
            "dataflow file",
        ),
    ],
    ids=["-w", "-a", "-d"],
)
def test_unknown_preset_name(find, name, what):
    with raises_input_error(name, None, what, "not found"):
        find(name)


# --------------------------------------------------------------------------- YAML level


@pytest.mark.parametrize("kind", YAML_KINDS)
def test_yaml_syntax_error_has_line_number(inputs, kind):
    text = PRESET_TEXT[kind]
    bad_line = text.count("\n") + 1  # the appended line
    path = inputs.replace(kind, text + "oops: a: b\n")
    with raises_input_error(path, None, "YAML syntax error", f"line {bad_line}"):
        LOADERS[kind](path)


def test_yaml_syntax_error_unclosed_flow(inputs):
    path = inputs.replace("arch", edit(ARCH, "pe: {shape: [8, 8]}", "pe: {shape: [8, 8}"))
    bad_line = ARCH.splitlines().index("pe: {shape: [8, 8]}") + 1
    with raises_input_error(path, None, "YAML syntax error", f"line {bad_line}"):
        load_arch(path)


GARBAGE = {
    "random-with-nul": random.Random(1234).randbytes(512) + b"\x00garbage",
    "only-nul": b"\x00" * 16,
    "invalid-utf8": b"name: caf\xe9\n",
    "latin1-yaml": 'name: gemm\neinsum: "C[i,j] += A[i,k] * B[k,j]"  # \xe9t\xe9\n'.encode(
        "latin-1"
    ),
}


@pytest.mark.parametrize("kind", YAML_KINDS)
@pytest.mark.parametrize("garbage", GARBAGE, ids=list(GARBAGE))
def test_binary_garbage_yaml(inputs, kind, garbage):
    path = inputs.replace(kind, GARBAGE[garbage])
    with raises_input_error(path, None, WHAT[kind]) as info:
        LOADERS[kind](path)
    assert "binary" in info.value.message or "not UTF-8" in info.value.message


def test_invalid_utf8_reports_offset(inputs):
    path = inputs.replace("workload", b"name: caf\xe9\n")
    with raises_input_error(path, None, "not UTF-8", "offset 9"):
        load_workload(path)


@pytest.mark.parametrize("kind", YAML_KINDS)
@pytest.mark.parametrize(
    "text, type_name", [("- a\n- b\n", "list"), ("just a sentence\n", "str"), ("42\n", "int")]
)
def test_top_level_not_a_mapping(inputs, kind, text, type_name):
    path = inputs.replace(kind, text)
    with raises_input_error(path, None, "expected a YAML mapping", type_name):
        LOADERS[kind](path)


@pytest.mark.parametrize("kind", YAML_KINDS)
@pytest.mark.parametrize(
    "text",
    ["", "\n\n", "# only a comment\n", "---\n"],
    ids=["empty", "blank-lines", "comment", "doc-marker"],
)
def test_empty_yaml_file(inputs, kind, text):
    path = inputs.replace(kind, text)
    with raises_input_error(path, None, "empty"):
        LOADERS[kind](path)


def test_deeply_nested_yaml(inputs):
    path = inputs.replace("workload", "name: " + "[" * 3000 + "]" * 3000 + "\n")
    with raises_input_error(path):
        load_workload(path)


# --------------------------------------------------------------------------- keys

UNKNOWN_KEYS = [
    # (kind, preset text, old, new, key at fault)
    ("workload", SMALL_GEMM, 'name: "gemm"', 'name: "gemm"\nbogus: 1', "bogus"),
    ("workload", JACOBI, "    writes:", "    bogus: 1\n    writes:", "statements[0].bogus"),
    ("arch", ARCH, "l1_words: 256", "l3_words: 256", "memory.l3_words"),
    ("arch", ARCH, "pe: {shape: [8, 8]}", "pe: {size: [8, 8]}", "pe.size"),
    (
        "arch",
        ARCH,
        '"{ PE[i,j] -> PE[i-1,j] }"',
        '"{ PE[i,j] -> PE[i-1,j] }"\n    foo: 1',
        "interconnect[0].foo",
    ),
    ("arch", ARCH, "mac: 1.0", "mac: 1.0, l3: 2.0", "energy.l3"),
    ("arch", ARCH, "macs_per_pe: 1", "mac_per_pe: 1", "mac_per_pe"),
    (
        "dataflow",
        DATAFLOW,
        'name: "os-systolic-8x8"',
        'name: "os-systolic-8x8"\nmapping: x',
        "mapping",
    ),
]


@pytest.mark.parametrize(
    "kind, text, old, new, key", UNKNOWN_KEYS, ids=[case[-1] for case in UNKNOWN_KEYS]
)
def test_unknown_key(inputs, kind, text, old, new, key):
    path = inputs.replace(kind, edit(text, old, new))
    with raises_input_error(path, key, "unknown key"):
        LOADERS[kind](path)


MISSING_KEYS = [
    ("arch", ARCH, "pe: {shape: [8, 8]}\n", "", "pe"),
    (
        "arch",
        ARCH,
        '  - relation: "{ PE[i,j] -> PE[i-1,j] }"',
        "  - window: [0, 1]",
        "interconnect[0].relation",
    ),
    (
        "dataflow",
        DATAFLOW,
        'time:  "{ S[i,j,k] -> T[floor(i/8), floor(j/8), i % 8 + j % 8 + k] }"\n',
        "",
        "time",
    ),
    ("dataflow", DATAFLOW, 'space: "{ S[i,j,k] -> PE[i % 8, j % 8] }"\n', "", "space"),
    ("workload", SMALL_GEMM, "bounds: {i: M, j: N, k: K}\n", "", "bounds"),
    (
        "workload",
        JACOBI,
        '  - domain: "[N] -> { S[i,j] : 0 <= i < N and 0 <= j < N }"\n    reads:',
        "  - reads:",
        "statements[0].domain",
    ),
]


@pytest.mark.parametrize(
    "kind, text, old, new, key",
    MISSING_KEYS,
    ids=[f"{case[0]}-{case[-1]}" for case in MISSING_KEYS],
)
def test_missing_required_key(inputs, kind, text, old, new, key):
    path = inputs.replace(kind, edit(text, old, new))
    with raises_input_error(path, key, "missing required key"):
        LOADERS[kind](path)


# --------------------------------------------------------------------------- sizes and values

SIZE_ERRORS = [
    # (kind, old, new, key at fault)
    ("workload", "{M: 16, N: 16, K: 8}", "{M: 0, N: 16, K: 8}", "bounds.i"),
    ("workload", "{M: 16, N: 16, K: 8}", "{M: -4, N: 16, K: 8}", "bounds.i"),
    ("workload", "bounds: {i: M,", "bounds: {i: 0,", "bounds.i"),
    ("workload", "bounds: {i: M,", "bounds: {i: -1,", "bounds.i"),
    ("workload", "{M: 16, N: 16, K: 8}", "{M: 16.5, N: 16, K: 8}", "params.M"),
    ("arch", "pe: {shape: [8, 8]}", "pe: {shape: [0, 8]}", "pe.shape[0]"),
    ("arch", "pe: {shape: [8, 8]}", "pe: {shape: [8, -2]}", "pe.shape[1]"),
    ("arch", "pe: {shape: [8, 8]}", "pe: {shape: []}", "pe.shape"),
    ("arch", "bandwidth_bits: 64", "bandwidth_bits: 0", "memory.bandwidth_bits"),
    ("arch", "word_bits: 16", "word_bits: -16", "memory.word_bits"),
    ("arch", "l1_words: 256", "l1_words: -1", "memory.l1_words"),
    ("arch", "macs_per_pe: 1", "macs_per_pe: 0", "macs_per_pe"),
    ("arch", "mac: 1.0", "mac: -1.0", "energy.mac"),
]


@pytest.mark.parametrize(
    "kind, old, new, key", SIZE_ERRORS, ids=[f"{c[-1]}={c[2]}" for c in SIZE_ERRORS]
)
def test_bad_sizes(inputs, kind, old, new, key):
    path = inputs.replace(kind, edit(PRESET_TEXT[kind], old, new))
    with raises_input_error(path, key):
        LOADERS[kind](path)


# =========================================================================== workload

# --------------------------------------------------------------------------- keys


def test_misspelled_einsum_key_is_named(inputs):
    path = inputs.replace("workload", edit(SMALL_GEMM, "einsum:", "einsums:"))
    with raises_input_error(path, "einsums", "unknown key"):
        load_workload(path)


def test_workload_without_einsum_or_statements(inputs):
    path = inputs.replace("workload", edit(SMALL_GEMM, 'einsum: "C[i,j] += A[i,k] * B[k,j]"\n', ""))
    with raises_input_error(path, None, "missing required key", "einsum", "statements"):
        load_workload(path)


# --------------------------------------------------------------------------- einsum

EINSUM_ERRORS = [
    # (einsum text, something the message must quote)
    ("C[i,j] + A[i,k]", "C[i,j] + A[i,k]"),
    ("C[i,j] += ", "nothing on the right-hand side"),
    ("C[i,j += A[i]", "C[i,j"),
    ("C[i,j] += A[i,q] * B[q,j]", "'q'"),
    ("C[i,j] += A[i,,k] * B[k,j]", "A[i,,k]"),
    ("C[i,j] += A[i,k] + B[k,j]", "A[i,k] + B[k,j]"),
    ("C[i,j] += C[i,k] * B[k,j]", "'C'"),
]


@pytest.mark.parametrize("einsum, needle", EINSUM_ERRORS, ids=[e for e, _ in EINSUM_ERRORS])
def test_einsum_parse_error(inputs, einsum, needle):
    path = inputs.replace("workload", edit(SMALL_GEMM, "C[i,j] += A[i,k] * B[k,j]", einsum))
    with raises_input_error(path, "einsum", needle):
        load_workload(path)


def test_einsum_not_a_string(inputs):
    path = inputs.replace("workload", edit(SMALL_GEMM, '"C[i,j] += A[i,k] * B[k,j]"', "[1, 2]"))
    with raises_input_error(path, "einsum", "list"):
        load_workload(path)


def test_non_affine_einsum_access(inputs):
    path = inputs.replace("workload", edit(SMALL_GEMM, "A[i,k]", "A[i*k]"))
    with raises_input_error(path, "einsum", "A[i*k]", "not affine"):
        load_workload(path)


# --------------------------------------------------------------------------- isl text

BAD_DOMAIN = "{ S[i] : 0 <= i < 4 and }"
BAD_ACCESS = "{ S[i] -> A[i }"


def test_isl_parse_error_in_domain(inputs):
    path = inputs.replace("workload", isl_workload(BAD_DOMAIN))
    with raises_input_error(path, "statements[0].domain", "isl cannot parse", BAD_DOMAIN):
        load_workload(path)


def test_isl_parse_error_in_access(inputs):
    path = inputs.replace("workload", isl_workload("{ S[i] : 0 <= i < 4 }", BAD_ACCESS))
    with raises_input_error(
        path, "statements[0].reads.A", "isl cannot parse", BAD_ACCESS, "unbalanced brackets"
    ):
        load_workload(path)


def test_isl_parse_error_in_listed_access(inputs):
    bad = "{ S[i,j] -> A[i+1,j }"
    path = inputs.replace("workload", edit(JACOBI, "{ S[i,j] -> A[i+1,j] }", bad))
    with raises_input_error(path, "statements[0].reads.A[1]", bad):
        load_workload(path)


@pytest.mark.parametrize(
    "bad",
    ["{ S[i] -> A[i] } }", "{ S[i] -> A[i] } garbage", "{ S[i] -> A[i] } ; { S[i] -> A[i + 1] }"],
)
def test_isl_trailing_garbage_is_rejected(inputs, bad):
    path = inputs.replace("workload", isl_workload("{ S[i] : 0 <= i < 4 }", bad))
    with raises_input_error(path, "statements[0].reads.A", bad):
        load_workload(path)


# --------------------------------------------------------------------------- domains and accesses


def test_unbounded_domain(inputs):
    path = inputs.replace("workload", isl_workload("{ S[i] : i >= 0 }"))
    with raises_input_error(path, "statements[0].domain", "unbounded"):
        load_workload(path)


def test_non_affine_isl_access(inputs):
    access = "{ S[i,j] -> A[i*j] }"
    path = inputs.replace(
        "workload", isl_workload("{ S[i,j] : 0 <= i < 4 and 0 <= j < 4 }", access)
    )
    with raises_input_error(path, "statements[0].reads.A", access, "not affine"):
        load_workload(path)


def test_access_not_a_function_of_indices(inputs):
    access = "{ S[i] -> A[k] }"
    path = inputs.replace("workload", isl_workload("{ S[i] : 0 <= i < 4 }", access))
    with raises_input_error(path, "statements[0].reads.A", access, "unboundedly many"):
        load_workload(path)


@pytest.mark.parametrize(
    "access, needle", [("{ T[i] -> A[i] }", "T[1 dims]"), ("{ S[i] -> Z[i] }", "'Z'")]
)
def test_access_with_wrong_tuples(inputs, access, needle):
    path = inputs.replace("workload", isl_workload("{ S[i] : 0 <= i < 4 }", access))
    with raises_input_error(path, "statements[0].reads.A", access, needle):
        load_workload(path)


def test_empty_domain(inputs):
    path = inputs.replace("workload", isl_workload("{ S[i] : 0 <= i < 0 }"))
    with raises_input_error(path, "statements[0].domain"):
        load_workload(path)


@pytest.mark.parametrize(
    "domain, sets",
    [
        ("{ S[i] : 0 <= i < 0 }", {}),
        (DOMAIN_2D, {"N": 0}),  # --set N=0
    ],
)
def test_empty_domain_message_says_empty(inputs, domain, sets):
    params = "params: {N: 4}\n" if "[N]" in domain else ""
    reads = "{ S[i,j] -> A[i,j] }" if "[N]" in domain else "{ S[i] -> A[i] }"
    path = inputs.replace("workload", isl_workload(domain, reads, params))
    with raises_input_error(path, "statements[0].domain", "empty"):
        load_workload(path, sets)


# --------------------------------------------------------------------------- parameters


def test_workload_parameter_without_value(inputs):
    path = inputs.replace("workload", isl_workload("[N] -> { S[i] : 0 <= i < N }"))
    with raises_input_error(path, "statements[0].domain", "'N'", "no value"):
        load_workload(path)


def test_access_parameter_without_value(inputs):
    text = edit(JACOBI, '"{ S[i,j] -> A[i+1,j] }"', '"[P] -> { S[i,j] -> A[i+P,j] }"')
    path = inputs.replace("workload", text)
    with raises_input_error(path, "statements[0].reads.A[1]", "'P'", "no value"):
        load_workload(path)


@pytest.mark.parametrize("value", [-4, 0])
def test_set_negative_or_zero_size(inputs, value):
    # --set M=VALUE: the bound i < M is the key at fault; the message names the parameter
    with raises_input_error(inputs.workload, "bounds.i", f"M = {value}"):
        load_workload(inputs.workload, {"M": value})


def test_set_zero_size_isl_workload(inputs):
    path = inputs.write("jacobi.yaml", JACOBI)
    with raises_input_error(path, "statements[0].domain"):  # --set N=0
        load_workload(path, {"N": 0})


# =========================================================================== arch

BAD_LINK = "{ PE[i,j] -> PE[i-1,,j] }"
BAD_PE_DOMAIN = "{ PE[i,j] : 0 <= i < 8 and 0 <= j < }"


def test_isl_parse_error_in_link(inputs):
    path = inputs.replace("arch", edit(ARCH, "{ PE[i,j] -> PE[i-1,j] }", BAD_LINK))
    with raises_input_error(path, "interconnect[0].relation", "isl cannot parse", BAD_LINK):
        load_arch(path)


def test_isl_parse_error_in_pe_domain(inputs):
    path = inputs.replace(
        "arch", edit(ARCH, "pe: {shape: [8, 8]}", f'pe: {{domain: "{BAD_PE_DOMAIN}"}}')
    )
    with raises_input_error(path, "pe.domain", "isl cannot parse", BAD_PE_DOMAIN):
        load_arch(path)


def test_unbounded_pe_domain(inputs):
    path = inputs.replace(
        "arch",
        edit(ARCH, "pe: {shape: [8, 8]}", 'pe: {domain: "{ PE[i,j] : 0 <= i < 8 and j >= 0 }"}'),
    )
    with raises_input_error(path, "pe", "unbounded"):
        load_arch(path)


def test_link_parameter_without_value(inputs):
    path = inputs.replace(
        "arch", edit(ARCH, '"{ PE[i,j] -> PE[i-1,j] }"', '"[D] -> { PE[i,j] -> PE[i-D,j] }"')
    )
    with raises_input_error(path, "interconnect[0].relation", "'D'", "no value"):
        load_arch(path)


@pytest.mark.parametrize(
    "link, needle",
    [
        ("{ PE[i,j] -> Q[i,j] }", "Q[2 dims]"),
        ("{ X[i] -> PE[i,0] }", "X[1 dims]"),
        ("{ PE[i] -> PE[i-1] }", "PE[1 dims]"),
        ("{ PE[i,j] -> PE[i,j,0] }", "PE[3 dims]"),
    ],
)
def test_link_between_non_pe_tuples(inputs, link, needle):
    path = inputs.replace("arch", edit(ARCH, "{ PE[i,j] -> PE[i-1,j] }", link))
    with raises_input_error(path, "interconnect[0].relation", link, needle, "PE[2 dims]"):
        load_arch(path)


def test_second_link_is_named(inputs):
    link = "{ PE[i,j] -> Q[i,j-1] }"
    path = inputs.replace("arch", edit(ARCH, "{ PE[i,j] -> PE[i,j-1] }", link))
    with raises_input_error(path, "interconnect[1].relation", link):
        load_arch(path)


@pytest.mark.parametrize("value", [".nan", ".inf"])
def test_energy_not_finite(inputs, value):
    path = inputs.replace("arch", edit(ARCH, "mac: 1.0", f"mac: {value}"))
    with raises_input_error(path, "energy.mac"):
        load_arch(path)


# =========================================================================== dataflow

BAD_SPACE = "{ S[i,j,k] -> PE[i % 8, j % 8 }"
BAD_TIME = "{ S[i,j,k] -> T[floor(i/8), floor(j/8) + }"
# a YAML block scalar with a newline inside the isl text
SPREAD_SPACE = edit(
    DATAFLOW,
    'space: "{ S[i,j,k] -> PE[i % 8, j % 8] }"',
    "space: |\n  { S[i,j,k] ->\n    PE[i % 8, j % 8 }",
)


@pytest.mark.parametrize(
    "key, old, bad",
    [
        ("space", "{ S[i,j,k] -> PE[i % 8, j % 8] }", BAD_SPACE),
        ("time", "{ S[i,j,k] -> T[floor(i/8), floor(j/8), i % 8 + j % 8 + k] }", BAD_TIME),
    ],
)
def test_isl_parse_error_in_dataflow(inputs, key, old, bad):
    path = inputs.replace("dataflow", edit(DATAFLOW, old, bad))
    with raises_input_error(path, key, "isl cannot parse", bad):
        load_dataflow(path)


def test_isl_text_spread_over_lines_is_quoted_on_one_line(inputs):
    """A YAML block scalar with a newline inside the isl text: still one line."""
    path = inputs.replace("dataflow", SPREAD_SPACE)
    with raises_input_error(path, "space", "{ S[i,j,k] -> PE[i % 8, j % 8 }"):
        load_dataflow(path)


# --------------------------------------------------------------------------- bound to workload and arch


def test_dataflow_statement_name_mismatch(inputs):
    path = inputs.replace("dataflow", edit(DATAFLOW, "S[i,j,k]", "Q[i,j,k]"))
    with raises_input_error(path, "space", "'Q'", "gemm"):
        inputs.bind()


def test_dataflow_statement_arity_mismatch(inputs):
    path = inputs.replace("dataflow", edit(DATAFLOW, "S[i,j,k]", "S[i,j,k,l]"))
    with raises_input_error(path, "space", "3 loop indices", "4 here"):
        inputs.bind()


def test_dataflow_arity_mismatch_in_time_only(inputs):
    path = inputs.replace("dataflow", edit(DATAFLOW, "{ S[i,j,k] -> T[", "{ S[i,j,k,l] -> T["))
    with raises_input_error(path, "time", "4 here"):
        inputs.bind()


def test_dataflow_missing_statement_of_mmc(inputs):
    path = inputs.replace(
        "dataflow",
        (
            'name: "s0-only"\n'
            'space: "{ S0[i,j,k] -> PE[i % 8, j % 8] }"\n'
            'time:  "{ S0[i,j,k] -> T[0, floor(i/8), floor(j/8), i % 8 + j % 8 + k] }"\n'
        ),
    )
    with raises_input_error(path, "space", "no entry for statement S1"):
        inputs.bind(MMC_WORKLOAD)


def test_gemm_dataflow_on_mmc_workload(inputs):
    with raises_input_error(inputs.dataflow, "space", "'S'", "S0, S1"):
        inputs.bind(MMC_WORKLOAD)


@pytest.mark.parametrize(
    "old, new, needle",
    [
        ("PE[i % 8, j % 8]", "PE[i % 8]", "PE[1 dims]"),
        ("PE[i % 8, j % 8]", "PE[i % 8, j % 8, 0]", "PE[3 dims]"),
        ("PE[i % 8, j % 8]", "Q[i % 8, j % 8]", "Q[2 dims]"),
    ],
)
def test_pe_tuple_mismatch_with_arch(inputs, old, new, needle):
    path = inputs.replace("dataflow", edit(DATAFLOW, old, new))
    with raises_input_error(path, "space", needle, "systolic-8x8", "PE[2 dims]"):
        inputs.bind()


def test_dataflow_parameter_without_value(inputs):
    path = inputs.replace(
        "dataflow",
        edit(
            DATAFLOW,
            '"{ S[i,j,k] -> PE[i % 8, j % 8] }"',
            '"[P] -> { S[i,j,k] -> PE[(i + P) % 8, j % 8] }"',
        ),
    )
    with raises_input_error(path, "space", "'P'", "no value"):
        inputs.bind()


# --------------------------------------------------------------------------- not a function

NOT_A_FUNCTION = [
    (
        "space",
        "{ S[i,j,k] -> PE[i % 8, j % 8] }",
        "{ S[i,j,k] -> PE[i % 8, j % 8]; S[i,j,k] -> PE[0,0] }",
    ),
    ("space", "{ S[i,j,k] -> PE[i % 8, j % 8] }", "{ S[i,j,k] -> PE[i % 8, j % 8] : i < 4 }"),
    (
        "time",
        "T[floor(i/8), floor(j/8), i % 8 + j % 8 + k] }",
        "T[floor(i/8), floor(j/8), i % 8 + j % 8 + k] : k < 4 }",
    ),
    (
        "time",
        "{ S[i,j,k] -> T[floor(i/8), floor(j/8), i % 8 + j % 8 + k] }",
        "{ S[i,j,k] -> T[floor(i/8), floor(j/8), i % 8 + j % 8 + k]; S[i,j,k] -> T[0, 0, k] }",
    ),
]


@pytest.mark.parametrize(
    "key, old, new",
    NOT_A_FUNCTION,
    ids=["space-two-stamps", "space-no-stamp", "time-no-stamp", "time-two-stamps"],
)
def test_dataflow_not_a_function(inputs, key, old, new):
    path = inputs.replace("dataflow", edit(DATAFLOW, old, new))
    with raises_input_error(path, key, "not a function", "tenet validate"):
        inputs.bind()


def test_dataflow_not_a_function_simulate(inputs):
    path = inputs.replace("dataflow", edit(DATAFLOW, *NOT_A_FUNCTION[1][1:]))
    with raises_input_error(path, "space", "tenet validate"):
        simulate(*inputs.load())


# =========================================================================== TENET text files


@pytest.mark.parametrize("kind", ["s", "p", "m"])
def test_missing_tenet_file(tenet_files, kind):
    missing = tenet_files.tmp / f"missing.{kind}"
    with raises_input_error(missing, None, "not found", WHAT[kind]):
        tenet_files.load(**{kind: missing})


@pytest.mark.parametrize("kind", ["s", "p", "m"])
def test_directory_as_tenet_file(tenet_files, kind):
    folder = tenet_files.tmp / "a-folder"
    folder.mkdir()
    with raises_input_error(folder, None, "is a directory", WHAT[kind]):
        tenet_files.load(**{kind: folder})


@pytest.mark.parametrize("kind", ["s", "p", "m"])
@pytest.mark.parametrize("garbage", ["random-with-nul", "invalid-utf8"])
def test_binary_garbage_tenet(tenet_files, kind, garbage):
    path = tenet_files.replace(kind, GARBAGE[garbage])
    with raises_input_error(path, None, WHAT[kind]) as info:
        tenet_files.load()
    assert "binary" in info.value.message or "not UTF-8" in info.value.message


@pytest.mark.parametrize(
    "kind, needle", [("s", "empty"), ("p", "expected 3 lines"), ("m", "found 0")]
)
def test_empty_tenet_file(tenet_files, kind, needle):
    path = tenet_files.replace(kind, "")
    with raises_input_error(path, None, needle):
        tenet_files.load()


TENET_ISL_ERRORS = [
    # (kind, line number, old, bad)
    ("s", 2, "{S[i,j,k]: 0<=i<16 and 0<=j<16 and 0<=k<8}", "{S[i,j,k]: 0<=i<16 and }"),
    ("s", 4, "{S[i,j,k]->B[k,j]}", "{S[i,j,k]->B[k,j]"),
    ("p", 1, "{PE[i,j]:0<=i<8 and 0<=j<8}", "{PE[i,j]:0<=i<8 and 0<=j<}"),
    ("p", 2, "{PE[i,j]->PE[i-1,j] ; PE[i,j]->PE[i,j-1]}", "{PE[i,j]->PE[i-1,j] ; PE[i,j]->}"),
    ("m", 1, "{S[i,j,k]->PE[i%8,j%8]}", "{S[i,j,k]->PE[i%8,j%8}"),
    ("m", 2, "{S[i,j,k]->T[floor(i/8),floor(j/8),i%8+j%8+k]}", "{S[i,j,k]->T[floor(i/8),,k]}"),
]


@pytest.mark.parametrize("kind, lineno, old, bad", TENET_ISL_ERRORS)
def test_isl_parse_error_in_tenet_file(tenet_files, kind, lineno, old, bad):
    path = tenet_files.replace(kind, edit(TENET_TEXT[kind], old, bad))
    with raises_input_error(path, f"line {lineno}", "isl cannot parse", bad):
        tenet_files.load()


def test_unbounded_domain_tenet(tenet_files):
    path = tenet_files.replace("s", edit(STATEMENT_S, "0<=i<16", "0<=i"))
    with raises_input_error(path, "line 2", "unbounded"):
        tenet_files.load()


def test_non_affine_tenet_access(tenet_files):
    path = tenet_files.replace("s", edit(STATEMENT_S, "A[i,k]", "A[i*k]"))
    with raises_input_error(path, "line 3", "{S[i,j,k]->A[i*k]}", "not affine"):
        tenet_files.load()


TENET_STRUCTURE = [
    # (kind, old, new, key, needle)
    ("s", "2 1\n", "2\n", "line 1", "'2'"),
    ("s", "2 1\n", "a b\n", "line 1", "'a b'"),
    ("s", "2 1\n", "2 1 0\n", "line 1", "'2 1 0'"),
    ("s", "2 1\n", "3 1\n", None, "expected 6 non-empty lines"),
    ("s", "{S[i,j,k]->C[i,j]}\n", "", None, "found 4"),
    ("p", "256 1024 64 16", "256 x1024 64 16", "line 3", "'256 x1024 64 16'"),
    ("p", "256 1024 64 16", "256 1024 64.5 16", "line 3", "64.5"),
    ("p", "256 1024 64 16", "256 1024 64", "line 3", "four integers"),
    ("p", "256 1024 64 16", "256 1024 -64 16", "line 3", "-64"),
    ("m", "{S[i,j,k]->T[floor(i/8),floor(j/8),i%8+j%8+k]}\n", "", None, "found 1"),
    ("m", "\n", "\n{S[i,j,k]->T[0]}\n", None, "found 3"),
]


@pytest.mark.parametrize(
    "kind, old, new, key, needle", TENET_STRUCTURE, ids=[f"{c[0]}-{c[-1]}" for c in TENET_STRUCTURE]
)
def test_malformed_tenet_file(tenet_files, kind, old, new, key, needle):
    text = TENET_TEXT[kind]
    new_text = text.replace(old, new, 1) if kind == "m" and old == "\n" else edit(text, old, new)
    path = tenet_files.replace(kind, new_text)
    with raises_input_error(path, key, needle):
        tenet_files.load()


def test_tenet_pe_array_with_one_line(tenet_files):
    path = tenet_files.replace("p", "{PE[i,j]:0<=i<8 and 0<=j<8}\n")
    with raises_input_error(path, None, "expected 3 lines"):
        tenet_files.load()


def test_tenet_bandwidth_zero(tenet_files):
    path = tenet_files.replace("p", edit(PE_ARRAY_P, "256 1024 64 16", "256 1024 0 16"))
    with raises_input_error(path, "line 3", "bandwidth"):
        tenet_files.load()


def test_link_between_non_pe_tuples_tenet(tenet_files):
    link = "{PE[i,j]->PE[i-1,j] ; PE[i,j]->Q[i,j-1]}"
    path = tenet_files.replace(
        "p", edit(PE_ARRAY_P, "{PE[i,j]->PE[i-1,j] ; PE[i,j]->PE[i,j-1]}", link)
    )
    with raises_input_error(path, "line 2", link, "Q[2 dims]"):
        tenet_files.load()


def test_pe_tuple_mismatch_tenet(tenet_files):
    path = tenet_files.replace("m", edit(MAPPING_M, "PE[i%8,j%8]", "PE[i%8]"))
    with raises_input_error(path, "space", "PE[1 dims]"):
        tenet_files.bind()


# =========================================================================== command line
# A representative case of each input kind and error family, the errors of flags that only
# the CLI has, and the limits: exit code 2, nothing on stdout, one line on stderr.

# --------------------------------------------------------------------------- positive


def test_presets_by_name_json(capsys):
    rc, out, err = run_cli(
        ["analyze", *SMALL_GEMM_ARGS, "--format", "json"],
        capsys,
    )
    assert rc == 0, err
    assert err == ""
    result = json.loads(out)
    assert result["workload"] == "gemm" and result["arch"] == "systolic-8x8"
    assert result["instances"] == 16 * 16 * 8


def test_yaml_files_by_path_json(inputs, capsys):
    rc, out, err = run_cli(inputs.args("--format", "json"), capsys)
    assert rc == 0, err
    assert err == ""
    assert json.loads(out)["macs"] == 16 * 16 * 8


def test_tenet_files_json(tenet_files, capsys):
    rc, out, err = run_cli(tenet_files.args("--format", "json"), capsys)
    assert rc == 0, err
    assert err == ""
    result = json.loads(out)
    assert result["instances"] == 16 * 16 * 8 and result["pe_count"] == 64


def test_simulate_yaml_files_json(inputs, capsys):
    rc, out, err = run_cli(inputs.args("--format", "json", command="simulate"), capsys)
    assert rc == 0, err
    assert json.loads(out)["instances"] == 16 * 16 * 8


# --------------------------------------------------------------------------- one per input kind


def test_cli_unknown_preset_name(capsys):
    rc, out, err = run_cli(
        ["analyze", "-w", "gemmm", "-a", "systolic-8x8", "-d", "os-systolic-8x8"], capsys
    )
    assert_input_error(rc, out, err, "gemmm", None, "workload file", "not found")


def test_cli_yaml_syntax_error(inputs, capsys):
    path = inputs.replace("arch", edit(ARCH, "pe: {shape: [8, 8]}", "pe: {shape: [8, 8}"))
    rc, out, err = run_cli(inputs.args(), capsys)
    bad_line = ARCH.splitlines().index("pe: {shape: [8, 8]}") + 1
    assert_input_error(rc, out, err, path, None, "YAML syntax error", f"line {bad_line}")


def test_cli_einsum_parse_error(inputs, capsys):
    einsum, needle = EINSUM_ERRORS[3]
    path = inputs.replace("workload", edit(SMALL_GEMM, "C[i,j] += A[i,k] * B[k,j]", einsum))
    rc, out, err = run_cli(inputs.args(), capsys)
    assert_input_error(rc, out, err, path, "einsum", needle)


def test_cli_isl_text_spread_over_lines_is_one_line(inputs, capsys):
    path = inputs.replace("dataflow", SPREAD_SPACE)
    rc, out, err = run_cli(inputs.args(), capsys)
    assert_input_error(rc, out, err, path, "space", "{ S[i,j,k] -> PE[i % 8, j % 8 }")


def test_cli_gemm_dataflow_on_mmc_preset(inputs, capsys):
    rc, out, err = run_cli(
        ["analyze", "-w", "mmc", "-a", inputs.arch, "-d", inputs.dataflow], capsys
    )
    assert_input_error(rc, out, err, inputs.dataflow, "space", "'S'", "S0, S1")


def test_cli_isl_parse_error_in_tenet_file(tenet_files, capsys):
    kind, lineno, old, bad = TENET_ISL_ERRORS[4]
    path = tenet_files.replace(kind, edit(TENET_TEXT[kind], old, bad))
    rc, out, err = run_cli(tenet_files.args(), capsys)
    assert_input_error(rc, out, err, path, f"line {lineno}", "isl cannot parse", bad)


def test_cli_set_zero_size(inputs, capsys):
    rc, out, err = run_cli(inputs.args("--set", "M=0"), capsys)
    assert_input_error(rc, out, err, inputs.workload, "bounds.i", "M = 0")


def test_cli_simulate_not_a_function(inputs, capsys):
    path = inputs.replace("dataflow", edit(DATAFLOW, *NOT_A_FUNCTION[1][1:]))
    rc, out, err = run_cli(inputs.args(command="simulate"), capsys)
    assert_input_error(rc, out, err, path, "space", "tenet validate")


# --------------------------------------------------------------------------- flags


def test_unknown_set_name(inputs, capsys):
    rc, out, err = run_cli(inputs.args("--set", "X=3"), capsys)
    assert_input_error(rc, out, err, "--set", None, "'X'", "M, N, K")


@pytest.mark.parametrize(
    "item, needle",
    [("M", "'M'"), ("M=abc", "'abc'"), ("=4", "'=4'"), ("M=1.5", "'1.5'"), ("M=", "''")],
)
def test_malformed_set(inputs, item, needle, capsys):
    rc, out, err = run_cli(inputs.args("--set", item), capsys)
    assert_input_error(rc, out, err, "--set", None, needle)


def test_set_on_tenet_files(tenet_files, capsys):
    rc, out, err = run_cli(tenet_files.args("--set", "M=4"), capsys)
    assert_input_error(rc, out, err, "--set", None, "no parameters")


def test_tenet_and_yaml_together(inputs, tenet_files, capsys):
    rc, out, err = run_cli(inputs.args() + ["--tenet", *tenet_files.paths.values()], capsys)
    assert_input_error(rc, out, err, "--tenet", None, "not both")


@pytest.mark.parametrize("drop", ["-a", "-d"])
def test_missing_input_flag(inputs, drop, capsys):
    args = inputs.args()
    pos = args.index(drop)
    del args[pos : pos + 2]
    rc, out, err = run_cli(args, capsys)
    assert_input_error(rc, out, err, None, None, f"missing {drop}/")


def test_bad_format_is_one_argparse_line(inputs, capsys):
    with pytest.raises(SystemExit) as info:
        main([str(a) for a in inputs.args("--format", "xml")])
    assert info.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    assert err.endswith("\n") and err.count("\n") == 1, f"expected one stderr line, got {err!r}"
    assert err.startswith("tenet analyze: error: argument --format: invalid choice: 'xml'")


# --------------------------------------------------------------------------- limits


def test_isl_operations_limit(capsys):
    rc, out, err = run_cli(
        [
            "analyze",
            *GEMM_OS_ARGS,
            "--max-isl-ops",
            "1000",
        ],
        capsys,
    )
    assert_input_error(rc, out, err, None, None, "1,000 operations", "--max-isl-ops")


def test_after_operations_limit_the_next_run_works(capsys):
    run_cli(
        [
            "analyze",
            *GEMM_OS_ARGS,
            "--max-isl-ops",
            "1000",
        ],
        capsys,
    )
    rc, out, err = run_cli(
        ["analyze", *SMALL_GEMM_ARGS, "--format", "json"],
        capsys,
    )
    assert rc == 0, err
    assert json.loads(out)["macs"] == 16 * 16 * 8


def test_negative_max_isl_ops(inputs, capsys):
    rc, out, err = run_cli(inputs.args("--max-isl-ops", "-1"), capsys)
    assert_input_error(rc, out, err, None, None, "--max-isl-ops")


def test_simulate_too_many_instances(inputs, capsys):
    rc, out, err = run_cli(inputs.args("--max-instances", "10", command="simulate"), capsys)
    assert_input_error(rc, out, err, inputs.workload, None, "more than --max-instances 10")


# --------------------------------------------------------------------------- end to end


def run_tenet(*args) -> subprocess.CompletedProcess:
    """`python -m tenet ARGS` in a fresh process (TENET_DEBUG unset: no traceback allowed)."""
    env = {k: v for k, v in os.environ.items() if k != "TENET_DEBUG"}
    return subprocess.run(
        [sys.executable, "-m", "tenet", *map(str, args)],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def assert_process_input_error(proc: subprocess.CompletedProcess, *needles) -> str:
    """The same rule at the process level (fd 2 catches anything isl writes in C too)."""
    return assert_input_error(proc.returncode, proc.stdout, proc.stderr, None, None, *needles)


def test_subprocess_missing_file(inputs):
    missing = inputs.tmp / "nope.yaml"
    proc = run_tenet(*inputs.args(workload=missing))
    assert_process_input_error(proc, str(missing), "not found")


def test_subprocess_isl_parse_error(inputs):
    path = inputs.replace("dataflow", edit(DATAFLOW, "{ S[i,j,k] -> PE[i % 8, j % 8] }", BAD_SPACE))
    proc = run_tenet(*inputs.args())
    assert_process_input_error(proc, str(path), "space", BAD_SPACE)


def test_subprocess_binary_garbage(inputs):
    path = inputs.replace("arch", GARBAGE["random-with-nul"])
    proc = run_tenet(*inputs.args())
    assert_process_input_error(proc, str(path), "binary")


def test_subprocess_not_a_function_and_bad_set(inputs):
    path = inputs.replace("dataflow", edit(DATAFLOW, *NOT_A_FUNCTION[0][1:]))
    proc = run_tenet(*inputs.args())
    assert_process_input_error(proc, str(path), "space", "tenet validate")
    proc = run_tenet(*inputs.args("--set", "M=abc"))
    assert_process_input_error(proc, "--set", "'abc'")


# ------------------------------------- YAML keys given twice, maps of no instance, unset parameters


@pytest.mark.parametrize(
    "flag, text, key",
    [
        (
            "-w",
            'name: g\nparams: {M: 4}\neinsum: "C[i] += A[i]"\nbounds: {i: M}\nparams: {M: 8}\n',
            "params: key given twice (line 2 and line 5)",
        ),
        (
            "-a",
            "name: a\npe: {shape: [8, 8]}\nmemory:\n  word_bits: 16\n  word_bits: 8\n",
            "word_bits: key given twice (line 4 and line 5)",
        ),
    ],
)
def test_a_yaml_key_given_twice_is_an_error_naming_it(flag, text, key, capsys, tmp_path):
    path = tmp_path / "input.yaml"
    path.write_text(text)
    args = {"-w": ["-w", path, "-a", "systolic-8x8"], "-a": ["-w", "gemm", "-a", path]}[flag]
    rc, out, err = run_cli(["analyze", *args, "-d", "gemm/os-systolic-8x8"], capsys)
    assert rc == 2 and out == ""
    assert err == f"tenet: error: {path}: {key}; YAML would keep only the last one\n"


def test_yaml_anchors_merges_and_repeated_values_still_load(tmp_path):
    from tenet.util.io import load_yaml

    path = tmp_path / "ok.yaml"
    path.write_text("a: {x: 1, y: 2}\nb: [1, 1]\nc: &m {p: 1}\nd:\n  <<: *m\n  q: 2\n")
    assert load_yaml(path) == {
        "a": {"x": 1, "y": 2},
        "b": [1, 1],
        "c": {"p": 1},
        "d": {"p": 1, "q": 2},
    }


def test_dataflow_maps_that_hold_no_instance_say_so(tmp_path, capsys):
    """A dataflow whose maps hold no instance of the domain (a condition nothing meets):
    one line saying so, naming the map (`time`), exit 2 (not a message ending in 'got ')."""
    flow = write_yaml(
        tmp_path,
        "d",
        {
            "name": "empty",
            "space": "{ S[i,j,k] -> PE[i % 8, j % 8] : i < 0 }",
            "time": "{ S[i,j,k] -> T[k] : i < 0 }",
        },
    )
    rc, out, err = run_cli(
        ["analyze", "-w", "gemm", "-a", "systolic-8x8", "-d", flow, "--set", "M=8"], capsys
    )
    assert rc == 2 and not out
    assert len(err.strip().splitlines()) == 1 and "maps no instance" in err and "time" in err


def test_einsum_bound_with_an_undeclared_parameter_says_it_has_no_value(tmp_path, capsys):
    """`bounds: {i: M}` with no `params`: one line naming `bounds.i` and saying M has no
    value (not an isl syntax error)."""
    path = write_yaml(tmp_path, "w", {"name": "w", "einsum": "C[i] += A[i]", "bounds": {"i": "M"}})
    rc, out, err = run_cli(["workload", "show", "-w", path], capsys)
    assert rc == 2 and not out
    assert len(err.strip().splitlines()) == 1
    assert "bounds.i" in err and "parameter 'M' has no value" in err
