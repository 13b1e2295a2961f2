"""examples/tenet: our own TENET-format inputs, written from the YAML presets by
examples/tenet/generate.py. Each file says what its preset says, every experiment analyzes
exactly like its presets, and `tenet analyze --tenet` reads them from the repo root. None of
this needs TENET's published files (tests/formats/test_tenet_data.py compares with those)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest

from tenet import analyze, load_experiment
from tenet.cli import main
from tenet.formats.tenet_files import load_mapping, load_pe_array, load_statement
from tenet.util.isl_util import fix_params

from ..conftest import ROOT

EXAMPLES = ROOT / "examples" / "tenet"
NOT_GENERATED = {"generate.py", "README.md"}


def _load_generator():
    spec = importlib.util.spec_from_file_location(
        "tenet_examples_generate", EXAMPLES / "generate.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


generate = _load_generator()
EXPERIMENTS = sorted(generate.EXPERIMENTS)

# A TENET .p file has one interconnect relation (a union); the YAML presets list each
# direction as its own link, so per-link traffic and link warnings legitimately differ.
NAMES = ("workload", "arch", "dataflow", "links", "warnings", "warning_kinds")


def without_names(result: dict) -> dict:
    return {k: v for k, v in result.items() if k not in NAMES}


def link_total(result: dict) -> int:
    return sum(link["total"] for link in result["links"])


def pe_conflicts(result: dict) -> list[str]:
    return [w for w in result["warnings"] if "pe_conflict" in w]


def analyze_example(experiment: str, base=EXAMPLES) -> dict:
    return analyze(*load_experiment(base / experiment, base)).to_dict()


def analyze_presets(experiment: str) -> dict:
    return analyze(*generate.presets(experiment)).to_dict()


def assert_same_analysis(from_tenet: dict, from_yaml: dict) -> None:
    assert without_names(from_tenet) == without_names(from_yaml)
    assert link_total(from_tenet) == link_total(from_yaml)
    assert pe_conflicts(from_tenet) == pe_conflicts(from_yaml)


@pytest.fixture(scope="module", params=["committed", "regenerated"])
def tenet_dir(request, tmp_path_factory):
    """The committed folder, and a fresh generate.py output (the files must say the same)."""
    if request.param == "committed":
        return EXAMPLES
    out = tmp_path_factory.mktemp("tenet-examples")
    for rel, text in generate.render().items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(text)
    return out


def test_every_generated_file_is_committed():
    on_disk = {
        str(p.relative_to(EXAMPLES))
        for p in EXAMPLES.rglob("*")
        if p.is_file() and p.name not in NOT_GENERATED and "__pycache__" not in p.parts
    }
    assert on_disk == set(generate.render())


def test_experiment_files_name_existing_files():
    for experiment, parts in generate.EXPERIMENTS.items():
        assert (EXAMPLES / experiment).read_text().split() == list(parts)
        for part in parts:
            assert (EXAMPLES / part).is_file(), f"{experiment}: {part}"


@pytest.mark.parametrize("path", sorted(generate.STATEMENTS))
def test_statement_equals_workload_preset(tenet_dir, path):
    ours, preset = load_statement(tenet_dir / path), generate.workload_preset(path)
    assert ours.statements == preset.statements
    assert ours.domain.is_equal(preset.domain)
    for side in ("read", "write"):
        assert list(ours.accesses[side]) == list(preset.accesses[side])
        for tensor, rel in preset.accesses[side].items():
            assert ours.accesses[side][tensor].is_equal(rel), (side, tensor)
    assert ours.macs_per_instance == preset.macs_per_instance


@pytest.mark.parametrize("path", sorted(generate.PE_ARRAYS))
def test_pe_array_equals_arch_preset(tenet_dir, path):
    ours, preset = load_pe_array(tenet_dir / path), generate.arch_preset(path)
    assert (ours.pe_tuple, ours.pe_arity, ours.pe_count) == (
        preset.pe_tuple,
        preset.pe_arity,
        preset.pe_count,
    )
    assert ours.pe_domain.is_equal(preset.pe_domain)
    (link,) = ours.links
    union = preset.links[0].relation
    for other in preset.links[1:]:
        union = union.union(other.relation)
    assert link.relation.is_equal(union)
    assert (link.kind, link.window, link.tensors, link.access) == ("forward", (0, 1), None, "both")
    assert all(
        (p.kind, p.window, p.tensors, p.access) == ("forward", (0, 1), None, "both")
        for p in preset.links
    )
    assert ours.memory == preset.memory
    assert ours.energy == preset.energy
    assert ours.macs_per_pe == preset.macs_per_pe
    assert ours.levels == preset.levels == []


@pytest.mark.parametrize("path", sorted(generate.MAPPINGS))
def test_mapping_equals_dataflow_preset(tenet_dir, path):
    ours, preset = load_mapping(tenet_dir / path), generate.dataflow_preset(path)
    for key in ("space", "time"):
        expected = fix_params(getattr(preset, key), {})  # our presets' maps take no parameters
        assert getattr(ours, key).is_equal(expected), key


@pytest.mark.parametrize("experiment", EXPERIMENTS)
def test_experiment_equals_yaml_presets(experiment):
    assert_same_analysis(analyze_example(experiment), analyze_presets(experiment))


def test_cli_from_repo_root():
    files = [
        "examples/tenet/statement/matmul.s",
        "examples/tenet/pe_array/systolic.p",
        "examples/tenet/mapping/matmul_systolic_os.m",
    ]
    run = subprocess.run(
        [sys.executable, "-m", "tenet", "analyze", "--tenet", *files, "--format", "json"],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    expected = json.loads(json.dumps(analyze_presets("experiment/experiment_11")))
    assert_same_analysis(result, expected)
    assert (result["workload"], result["arch"], result["dataflow"]) == (
        "matmul",
        "systolic",
        "matmul_systolic_os",
    )


@pytest.mark.parametrize(
    "experiment", ["experiment/experiment_7", "runtime/experiment/experiment_2"]
)
def test_cli_each_kind_of_file(experiment, capsys):
    mapping, pe_array, statement = (EXAMPLES / p for p in generate.EXPERIMENTS[experiment])
    assert main(["analyze", "--tenet", str(statement), str(pe_array), str(mapping)]) == 0
    table = capsys.readouterr().out
    assert statement.stem in table and mapping.stem in table


def test_cli_closed_forms(capsys):
    files = (
        EXAMPLES / "statement/matmul.s",
        EXAMPLES / "pe_array/systolic.p",
        EXAMPLES / "mapping/matmul_systolic_os.m",
    )
    assert main(["analyze", "--tenet", *map(str, files), "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    # Closed forms for the 256^3 output-stationary GEMM on 8x8: A, B enter once per tile.
    assert result["tensors"]["A"]["read"]["unique"] == 256 * 256 * 256 // 8
    assert result["tensors"]["C"]["write"]["unique"] == 256 * 256
    assert result["delay"]["compute"] == 256**3 // 64


def test_upward_link_finds_no_reuse_of_a():
    # 2d_sys.p links PE[i,j] -> PE[i+1,j], against the skewed GEMM wavefront, so A is never
    # reused: every access is a fetch (TENET's semantics, as in its published runtime set).
    a = analyze_example("runtime/experiment/experiment_5")["tensors"]["A"]["read"]
    assert a["unique"] == a["total"] == 256**3
