"""Issue 12: a dataflow binds its statement indices to the workload's loops BY NAME.

`{ S[k,i,j] -> PE[i % 8, j % 8] }` on the GEMM statement `S[i,j,k]` means PE[i % 8, j % 8],
not PE[j % 8, k % 8] (what reading the tuple by position gives). The references are the
brute-force simulator on the same dataflow written in the workload's order, numbers counted
by hand, and the by-position reading built explicitly to show that it really differs.
"""

from __future__ import annotations

import json
import re

import islpy as isl
import pytest

from tenet import analyze, load_arch, load_dataflow, load_workload, simulate
from tenet.analysis.validate import compact_notation, validate
from tenet.errors import InputError
from tenet.formats.tenet_files import load_tenet
from tenet.model.dataflow import Dataflow, align_loops, bind_dataflow

from ..conftest import ARCHS, WORKLOADS
from ..helpers import run_cli, write_yaml

SIZES = {"M": 16, "N": 16, "K": 8}
LOOPS = ["i", "j", "k"]  # the GEMM statement S[i,j,k] (workloads/gemm/workload.yaml)
SPACE = "PE[i % 8, j % 8]"
TIME = "T[floor(i/8), floor(j/8), i % 8 + j % 8 + k]"
NOTATION = "(I%8, J%8 - P | floor(I/8), floor(J/8), K+I%8+J%8 - T)"


def gemm():
    return load_workload(WORKLOADS / "gemm" / "workload.yaml", SIZES)


def systolic():
    return load_arch(ARCHS / "systolic-8x8.yaml")


def flow(space: str, time: str, name: str = "flow") -> Dataflow:
    return Dataflow(name, isl.UnionMap(space), isl.UnionMap(time), "dataflow.yaml")


def written(space_tuple: str, time_tuple: str) -> Dataflow:
    """The output-stationary dataflow with each statement tuple written as given."""
    return flow(f"{{ S[{space_tuple}] -> {SPACE} }}", f"{{ S[{time_tuple}] -> {TIME} }}")


def by_position(space_tuple: str, time_tuple: str) -> Dataflow:
    """What reading `written(...)` by position means: the name at position p is renamed to
    the workload's p-th loop, in the tuple and in the expressions."""

    def rename(tuple_text: str, expr: str) -> str:
        names = [n.strip() for n in tuple_text.split(",")]
        to_loop = dict(zip(names, LOOPS))
        body = re.sub(r"\b[ijk]\b", lambda m: to_loop[m.group(0)], expr)
        return f"{{ S[{', '.join(LOOPS)}] -> {body} }}"

    return flow(rename(space_tuple, SPACE), rename(time_tuple, TIME))


REFERENCE = ("i,j,k", "i,j,k")
PERMUTED = [
    ("k,i,j", "k,i,j"),
    ("k,i,j", "j,k,i"),
    ("j,i,k", "i,j,k"),
    ("i,j,k", "k,j,i"),
    ("i,k,j", "j,i,k"),
]
PERMUTED_IDS = [f"S[{s}]-S[{t}]" for s, t in PERMUTED]


def test_by_position_helper_reads_the_issue_example():
    assert by_position("k,i,j", "i,j,k").space.is_equal(
        isl.UnionMap("{ S[i,j,k] -> PE[j % 8, k % 8] }")
    )


def test_reference_numbers_by_hand():
    result = analyze(gemm(), systolic(), written(*REFERENCE)).to_dict()
    assert result == simulate(gemm(), systolic(), written(*REFERENCE)).to_dict()
    assert result["instances"] == 16 * 16 * 8
    # 2 x 2 tiles of (i, j), each with stamps i%8 + j%8 + k in 0 .. 7+7+7
    assert result["time_steps"] == 2 * 2 * (7 + 7 + 7 + 1)


@pytest.mark.parametrize("space_tuple,time_tuple", PERMUTED, ids=PERMUTED_IDS)
def test_permuted_names_bind_by_name(space_tuple, time_tuple):
    workload, arch = gemm(), systolic()
    reference = simulate(workload, arch, written(*REFERENCE)).to_dict()
    permuted = written(space_tuple, time_tuple)
    assert analyze(workload, arch, permuted).to_dict() == reference
    assert analyze(workload, arch, written(*REFERENCE)).to_dict() == reference
    bound = bind_dataflow(permuted, workload, arch)
    assert bound.space_map.is_equal(bind_dataflow(written(*REFERENCE), workload, arch).space_map)
    assert bound.time_map.is_equal(bind_dataflow(written(*REFERENCE), workload, arch).time_map)


@pytest.mark.parametrize("space_tuple,time_tuple", PERMUTED, ids=PERMUTED_IDS)
def test_reading_by_position_would_differ(space_tuple, time_tuple):
    workload, arch = gemm(), systolic()
    positional = by_position(space_tuple, time_tuple)
    old = analyze(workload, arch, positional).to_dict()  # a valid dataflow of its own
    assert old == simulate(workload, arch, positional).to_dict()
    assert old != analyze(workload, arch, written(space_tuple, time_tuple)).to_dict()


def test_matching_names_change_nothing():
    workload = gemm()
    dataflow = load_dataflow(WORKLOADS / "gemm" / "dataflows" / "os-systolic-8x8.yaml")
    assert align_loops(dataflow.space, workload) is dataflow.space
    assert align_loops(dataflow.time, workload) is dataflow.time


def test_names_apart_from_every_loop_are_refused():
    workload, arch = gemm(), systolic()
    renamed = flow(
        "{ S[x0,x1,x2] -> PE[x0 % 8, x1 % 8] }",
        "{ S[x0,x1,x2] -> T[floor(x0/8), floor(x1/8), x0 % 8 + x1 % 8 + x2] }",
    )
    with pytest.raises(InputError, match=r"'x0', 'x1', 'x2' are not loops of S\[i,j,k\]"):
        analyze(workload, arch, renamed)


def test_several_statements(tmp_path):
    sizes = {"M": 9, "N": 5, "K": 4, "L": 6}
    workload = load_workload(WORKLOADS / "mmc" / "workload.yaml", sizes)
    arch = systolic()
    reference = load_dataflow(WORKLOADS / "mmc" / "dataflows" / "os-8x8.yaml")
    # S1's loops are [i,l,j]; written here as [j,i,l] in space and [l,j,i] in time
    permuted = load_dataflow(
        write_yaml(
            tmp_path,
            "os-8x8",
            {
                "name": "os-8x8",
                "space": "{ S0[k,j,i] -> PE[i % 8, j % 8]; S1[j,i,l] -> PE[i % 8, l % 8] }",
                "time": "{ S0[i,j,k] -> T[0, floor(i/8), floor(j/8), i % 8 + j % 8 + k]; "
                "S1[l,j,i] -> T[1, floor(i/8), floor(l/8), i % 8 + l % 8 + j] }",
            },
        )
    )
    expected = simulate(workload, arch, reference).to_dict()
    assert analyze(workload, arch, permuted).to_dict() == expected
    assert expected["instances"] == 9 * 5 * 4 + 9 * 6 * 5


def test_tenet_mapping_file(tmp_path):
    statement = tmp_path / "gemm.s"
    statement.write_text(
        "2 1\n{S[i,j,k]: 0<=i<16 and 0<=j<16 and 0<=k<8}\n"
        "{S[i,j,k]->A[i,k]}\n{S[i,j,k]->B[k,j]}\n{S[i,j,k]->C[i,j]}\n"
    )
    pe_array = tmp_path / "systolic.p"
    pe_array.write_text(
        "{PE[i,j]:0<=i<8 and 0<=j<8}\n{PE[i,j]->PE[i-1,j] ; PE[i,j]->PE[i,j-1]}\n256 1024 64 16\n"
    )
    mappings = {}
    for name, space_tuple, time_tuple in (("ref", "i,j,k", "i,j,k"), ("perm", "k,i,j", "j,k,i")):
        mappings[name] = tmp_path / f"{name}.m"
        mappings[name].write_text(
            f"{{S[{space_tuple}]->{SPACE}}}\n{{S[{time_tuple}]->{TIME}}}\n".replace(" ", "")
        )
    ref = simulate(*load_tenet(statement, pe_array, mappings["ref"])).to_dict()
    ref.pop("dataflow")
    perm = analyze(*load_tenet(statement, pe_array, mappings["perm"])).to_dict()
    perm.pop("dataflow")
    assert perm == ref


BAD_NAMES = {
    "misspelled-space": (
        "space",
        "S[k,i,q] -> PE[i % 8, q % 8]",
        f"S[i,j,k] -> {TIME}",
        "S[k,i,q]: 'q' is not a loop of S[i,j,k]",
    ),
    "misspelled-time": (
        "time",
        f"S[i,j,k] -> {SPACE}",
        "S[k,ii,jj] -> T[ii, jj, k]",
        "S[k,ii,jj]: 'ii', 'jj' are not loops of S[i,j,k]",
    ),
    "unnamed-index": (
        "space",
        "S[k,0,j] -> PE[k % 8, j % 8]",
        f"S[i,j,k] -> {TIME}",
        (
            "S[k,_,j]: the indices are in another order than S[i,j,k], so each needs the name "
            "of its loop"
        ),
    ),
}


@pytest.mark.parametrize("key,space,time,message", list(BAD_NAMES.values()), ids=list(BAD_NAMES))
@pytest.mark.parametrize("command", ["analyze", "simulate"])
def test_bad_names_exit_2_with_one_line(tmp_path, capsys, command, key, space, time, message):
    dataflow = write_yaml(
        tmp_path, "dataflow", {"name": "typo", "space": f"{{ {space} }}", "time": f"{{ {time} }}"}
    )
    args = [command, "-w", "gemm", "-a", "systolic-8x8", "-d", dataflow]
    rc, out, err = run_cli([*args, "--set", "M=16", "--set", "N=16", "--set", "K=8"], capsys)
    assert (rc, out) == (2, "")
    assert err == f"tenet: error: {dataflow}: {key}: {message}\n"


def test_misspelled_name_of_a_second_statement():
    workload = load_workload(WORKLOADS / "mmc" / "workload.yaml", {"M": 8, "N": 8, "K": 8, "L": 8})
    dataflow = flow(
        "{ S0[i,j,k] -> PE[i % 8, j % 8]; S1[i,l,jj] -> PE[i % 8, l % 8] }",
        "{ S0[i,j,k] -> T[0, i, j, k]; S1[i,l,j] -> T[1, i, l, j] }",
    )
    with pytest.raises(InputError) as caught:
        bind_dataflow(dataflow, workload, systolic())
    assert (
        caught.value.line() == "dataflow.yaml: space: S1[i,l,jj]: 'jj' is not a loop of S1[i,l,j]"
    )


def test_pieces_in_different_orders_are_refused(tmp_path, capsys):
    dataflow = write_yaml(
        tmp_path,
        "pieces",
        {
            "name": "pieces",
            "space": "{ S[i,j,k] -> PE[i % 8, j % 8] : k < 4; "
            "S[k,i,j] -> PE[i % 8, j % 8] : k >= 4 }",
            "time": f"{{ S[i,j,k] -> {TIME} }}",
        },
    )
    rc, out, err = run_cli(
        ["analyze", "-w", "gemm", "-a", "systolic-8x8", "-d", dataflow, "--set", "K=8"], capsys
    )
    assert (rc, out) == (2, "")
    assert err.count("\n") == 1
    assert err.startswith(f"tenet: error: {dataflow}: space: S[i,j,k] and S[k,i,j] order the")


def test_notation_uses_the_workload_names():
    workload, arch = gemm(), systolic()
    for space_tuple, time_tuple in [REFERENCE, *PERMUTED]:
        bound = bind_dataflow(written(space_tuple, time_tuple), workload, arch)
        assert compact_notation(bound.space_map, bound.time_map, workload) == NOTATION


def test_cli_validate_notation_uses_the_workload_names(tmp_path, capsys):
    dataflow = write_yaml(
        tmp_path,
        "renamed",
        {
            "name": "renamed",
            "space": "{ S[k,i,j] -> PE[i % 8, j % 8] }",
            "time": "{ S[j,k,i] -> T[floor(i/8), floor(j/8), i % 8 + j % 8 + k] }",
        },
    )
    args = ["validate", "-w", "gemm", "-a", "systolic-8x8", "-d", dataflow, "--format", "json"]
    rc, out, _ = run_cli([*args, "--set", "M=16", "--set", "N=16", "--set", "K=8"], capsys)
    assert rc == 0 and json.loads(out)["notation"] == NOTATION


def test_cli_validate_binds_by_name(tmp_path, capsys):
    # legal by name (PE[k, j % 8], k < 8); by position PE[i, k % 8] leaves the array (i < 16)
    dataflow = write_yaml(
        tmp_path,
        "permuted",
        {
            "name": "permuted",
            "space": "{ S[k,i,j] -> PE[k, j % 8] }",
            "time": "{ S[k,i,j] -> T[i, floor(j/8)] }",
        },
    )
    args = ["validate", "-w", "gemm", "-a", "systolic-8x8", "-d", dataflow, "--format", "json"]
    rc, out, _ = run_cli([*args, "--set", "M=16", "--set", "N=16", "--set", "K=8"], capsys)
    result = json.loads(out)
    assert rc == 0 and result["legal"], result["violations"]
    assert result["notation"] == "(K, J%8 - P | I, floor(J/8) - T)"


def test_validate_notation_of_a_permuted_dataflow():
    result = validate(gemm(), systolic(), written("k,i,j", "j,k,i"))
    assert result.legal and result.notation == NOTATION


def test_symbolic_binds_by_name():
    from tenet.analysis.symbolic import symbolic_analysis

    workload, arch = gemm(), systolic()
    reference = symbolic_analysis(workload, arch, written(*REFERENCE), SIZES)["formulas"]
    assert symbolic_analysis(workload, arch, written("k,i,j", "j,k,i"), SIZES)["formulas"] == (
        reference
    )
