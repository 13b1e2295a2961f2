"""`tenet dse`: the front against hand closed forms and `tenet simulate`, legality of every
member, no equivalent members, the Pareto property checked by analyzing every candidate
here, sampling determinism, the JSON keys of the contract, and the errors."""

from __future__ import annotations

import itertools
import json

import islpy as isl
import jsonschema
import pytest

from tenet import analyze, load_arch, load_dataflow, load_workload, simulate
from tenet.analysis.validate import validate
from tenet.explore.dse import (
    candidates,
    design_space,
    emit,
    enumerate_dataflows,
    explore,
    write_dataflows,
)
from tenet.model.dataflow import Dataflow
from tenet.util.isl_util import parse_union_map, sets_of

from ..cli.test_cli_outputs import ANALYZE_SCHEMA
from ..conftest import ARCHS, WORKLOADS
from ..helpers import run_cli, write_yaml

GEMM = WORKLOADS / "gemm" / "workload.yaml"
SYSTOLIC_4X4 = ARCHS / "systolic-4x4.yaml"
CUBE_16 = {"M": 16, "N": 16, "K": 16}
TALL = {"M": 8, "N": 8, "K": 32}
CUBE_ARGS = ["-w", "gemm", "-a", "systolic-4x4", "--set", "M=16", "--set", "N=16", "--set", "K=16"]
#: The skewed output-stationary dataflow of TENET's matmul_systolic_os.m, on a 4x4 array.
OS_SKEWED = {
    "name": "os-skewed-4x4",
    "space": "{ S[i,j,k] -> PE[i % 4, j % 4] }",
    "time": "{ S[i,j,k] -> T[floor(i/4), floor(j/4), i % 4 + j % 4 + k] }",
}


def gemm(sets: dict[str, int]):
    return load_workload(GEMM, sets)


def os_latency_closed_form(m: int, n: int, k: int, rows: int, cols: int) -> int:
    """Skewed output stationary on a rows x cols systolic array (TENET's memory constants:
    16-bit words, 64 bit/cycle, latency 16): each A[i,k] enters the array once per column
    tile, each B[k,j] once per row tile, each C[i,j] leaves once; latency is the largest of
    ingress, egress and compute delays."""
    words_in = m * k * (n // cols) + k * n * (m // rows)
    ingress = words_in * 16 // 64 + 16 - 1
    egress = m * n * 16 // 64 + 16 - 1
    compute = m * n * k // (rows * cols)
    return max(ingress, egress, compute)


def relations_on_domain(dataflow: Dataflow, workload):
    return tuple(rel.intersect_domain(workload.domain) for rel in (dataflow.space, dataflow.time))


def equivalent(a: Dataflow, b: Dataflow, workload) -> bool:
    ra, rb = relations_on_domain(a, workload), relations_on_domain(b, workload)
    return ra[0].is_equal(rb[0]) and ra[1].is_equal(rb[1])


def comparable(result: dict) -> dict:
    """The counts of an analyze/simulate result, without names, links and warnings."""
    skip = {"workload", "arch", "dataflow", "links", "warnings", "notation", "name"}
    skip |= {"space", "time", "objectives"}
    return {k: v for k, v in result.items() if k not in skip}


@pytest.fixture(scope="module")
def tall_front():
    """dse on an 8x8x32 GEMM and the 4x4 systolic array: a two-point front."""
    workload, arch = gemm(TALL), load_arch(SYSTOLIC_4X4)
    return explore(workload, arch).to_dict()


@pytest.fixture(scope="module")
def cube_front(tmp_path_factory):
    """dse on the 16^3 GEMM and the 4x4 systolic array, every tie kept, front emitted."""
    directory = tmp_path_factory.mktemp("front")
    report = explore(gemm(CUBE_16), load_arch(SYSTOLIC_4X4), keep_ties=True)
    paths = write_dataflows(report.pareto, directory)
    return report.to_dict(), paths


def test_os_latency_closed_form_agrees_with_simulate(tmp_path):
    dataflow = load_dataflow(write_yaml(tmp_path, "os", OS_SKEWED))
    simulated = simulate(gemm(CUBE_16), load_arch(SYSTOLIC_4X4), dataflow).to_dict()
    assert os_latency_closed_form(16, 16, 16, 4, 4) == 527
    assert simulated["delay"]["latency"] == 527


def test_skewed_os_is_in_the_space():
    workload, arch = gemm(CUBE_16), load_arch(SYSTOLIC_4X4)
    target = Dataflow("os", parse_union_map(OS_SKEWED["space"]), parse_union_map(OS_SKEWED["time"]))
    found = enumerate_dataflows(workload, arch)
    assert sum(equivalent(d, target, workload) for d in found) == 1


def test_front_is_at_least_as_fast_as_skewed_output_stationary(cube_front):
    report, _ = cube_front
    best = min(entry["delay"]["latency"] for entry in report["pareto"])
    assert best <= os_latency_closed_form(16, 16, 16, 4, 4)


def test_front_beats_output_stationary_with_a_stationary_operand(cube_front):
    """A dataflow keeping one input in the PEs (here A, with i, k spatial) reads that input
    once (256 words) and the other once per tile of the stationary one's rows (1024):
    ingress = (256 + 1024) * 16 / 64 + 15 = 335 < 527."""
    report, _ = cube_front
    assert min(entry["delay"]["latency"] for entry in report["pareto"]) == 335


def test_front_members_are_legal_and_reload(cube_front):
    report, paths = cube_front
    workload, arch = gemm(CUBE_16), load_arch(SYSTOLIC_4X4)
    assert [p.name for p in paths] == [f"dse-{n:03d}.yaml" for n in range(1, len(paths) + 1)]
    for entry, path in zip(report["pareto"], paths):
        dataflow = load_dataflow(path)
        assert dataflow.name == entry["name"]
        verdict = validate(workload, arch, dataflow)
        assert verdict.legal and verdict.notation == entry["notation"]
        again = analyze(workload, arch, dataflow).to_dict()
        assert comparable(again) == comparable(entry)
        assert again["dataflow"] == entry["dataflow"]


def test_front_members_match_brute_force(cube_front):
    report, paths = cube_front
    workload, arch = gemm(CUBE_16), load_arch(SYSTOLIC_4X4)
    members = list(zip(report["pareto"], paths))
    for entry, path in members[:: max(1, len(members) // 4)]:
        brute = simulate(workload, arch, load_dataflow(path)).to_dict()
        assert comparable(brute) == comparable(entry)


def test_no_two_emitted_dataflows_are_equivalent(cube_front):
    _, paths = cube_front
    assert len(paths) > 1
    workload = gemm(CUBE_16)
    dataflows = [load_dataflow(p) for p in paths]
    for a, b in itertools.combinations(dataflows, 2):
        assert not equivalent(a, b, workload), (a.name, b.name)


@pytest.mark.slow
def test_front_is_the_pareto_set_of_every_legal_candidate(tall_front):
    """Analyze every candidate here, without dse's Pareto code, and check both ways: no
    front member is dominated, and every legal candidate is dominated by or equal to one.
    On an 8x8x32 GEMM the front has two points (worked out by hand in docs/dse.md)."""
    workload, arch = gemm(TALL), load_arch(SYSTOLIC_4X4)
    report = tall_front
    candidates = enumerate_dataflows(workload, arch)
    points = []
    for dataflow in candidates:
        if validate(workload, arch, dataflow).legal:
            result = analyze(workload, arch, dataflow).to_dict()
            points.append((result["delay"]["latency"], result["energy"]))
    assert report["evaluated"] == len(candidates) and report["legal"] == len(points)
    front = [(e["delay"]["latency"], e["energy"]) for e in report["pareto"]]
    assert front == [(207, 70333.44), (271, 63187.2)]

    def dominated(p, q):  # q dominates p
        return q[0] <= p[0] and q[1] <= p[1] and q != p

    for member in front:
        assert member in points
        assert not any(dominated(member, q) for q in points)
    for p in points:
        assert any(dominated(p, member) or p == member for member in front)


def test_two_point_front_by_hand(tall_front):
    """8x8x32 GEMM, 4x4 array, TENET constants (e_mac 1, e_L1 1.68, e_L2 18.61). Output
    stationary: A and B each 8*32*2 = 512 words in, C 64 out: ingress 1024*16/64 + 15 = 271,
    energy 2048 + 1.68*2*3*2048 + 18.61*2*(512+512+64) = 63187.2. A stationary (i, k
    spatial): A 256, B 512 in, C 512 out: ingress 768/4 + 15 = 207, egress 143,
    energy 2048 + 20643.84 + 18.61*2*1280 = 70333.44."""
    fast, frugal = tall_front["pareto"]
    tenet = ("ingress", "egress", "compute", "latency")  # TENET's delays (not the per-step ones)
    assert {k: fast["delay"][k] for k in tenet} == {
        "ingress": 207,
        "egress": 143,
        "compute": 128,
        "latency": 207,
    }
    assert {k: frugal["delay"][k] for k in tenet} == {
        "ingress": 271,
        "egress": 31,
        "compute": 128,
        "latency": 271,
    }
    assert fast["energy"] == pytest.approx(2048 + 1.68 * 2 * 3 * 2048 + 18.61 * 2 * 1280)
    assert frugal["energy"] == pytest.approx(2048 + 1.68 * 2 * 3 * 2048 + 18.61 * 2 * 1088)


def test_limit_and_seed_sample_deterministically():
    workload, arch = gemm(CUBE_16), load_arch(SYSTOLIC_4X4)
    every = {(str(d.space), str(d.time)) for d in enumerate_dataflows(workload, arch)}
    first = enumerate_dataflows(workload, arch, limit=7, seed=5)
    again = enumerate_dataflows(workload, arch, limit=7, seed=5)
    other = enumerate_dataflows(workload, arch, limit=7, seed=6)
    texts = [(str(d.space), str(d.time)) for d in first]
    assert len(first) == 7 and texts == [(str(d.space), str(d.time)) for d in again]
    assert set(texts) <= every
    assert texts != [(str(d.space), str(d.time)) for d in other]
    assert len(enumerate_dataflows(workload, arch, limit=1000)) == len(every)


def test_cli_limit_seed_repeatable(capsys):
    args = ["dse", *CUBE_ARGS, "--limit", "6", "--seed", "3", "--format", "json"]
    rc, out, _ = run_cli(args, capsys)
    rc2, out2, _ = run_cli(args, capsys)
    assert rc == rc2 == 0 and out == out2
    assert json.loads(out)["evaluated"] == 6


def test_cli_json_has_the_contract_keys(capsys, tmp_path):
    rc, out, err = run_cli(
        ["dse", *CUBE_ARGS, "--limit", "8", "--format", "json", "--emit", tmp_path / "front"],
        capsys,
    )
    assert rc == 0 and err == ""
    report = json.loads(out)
    assert isinstance(report["evaluated"], int) and isinstance(report["legal"], int)
    assert report["evaluated"] == 8 and 0 <= report["legal"] <= 8
    assert report["pareto"]
    for entry in report["pareto"]:
        jsonschema.validate(entry, ANALYZE_SCHEMA)
        assert isinstance(entry["notation"], str) and entry["notation"].startswith("(")
    emitted = sorted(p.name for p in (tmp_path / "front").iterdir())
    assert emitted == [f"{e['name']}.yaml" for e in report["pareto"]]


def test_cli_table_lists_front_and_counts(capsys):
    """16³ GEMM on 4x4 without skews: the front is the one dataflow with i and k on the
    array, j in time. A[i,k] stays in its PE for all 16 j: 256 words fetched; B and C are
    fetched and written every step, 1,024 each. latency = ingress = ⌊(256 + 1,024)·16/64⌋
    + 16 − 1 = 335 (compute 4,096/16 = 256); sbw = (256 + 1,024 + 1,024)/256 = 9."""
    rc, out, _ = run_cli(["dse", *CUBE_ARGS, "--objectives", "latency,sbw", "--no-skew"], capsys)
    assert rc == 0
    rows = [line.split() for line in out.splitlines() if line.strip().startswith("dse-")]
    assert len(rows) == 1
    assert " ".join(rows[0][1:-3]) == "(I%4, K%4 - P | floor(I/4), floor(K/4), J - T)"
    assert rows[0][-3:-1] == ["335", "9.00"]
    note = next(line for line in out.splitlines() if line.startswith("note:"))
    assert note == (
        "note: 12 candidates, 12 distinct evaluated, 12 legal, 1 on the front, "
        "7 ties left out (--ties)"
    )


def test_skew_follows_the_link_direction(tmp_path):
    """Links that carry values towards smaller indices need time to grow towards them."""
    reverse = write_yaml(
        tmp_path,
        "rev",
        {
            "name": "rev-4x4",
            "pe": {"shape": [4, 4]},
            "interconnect": ["{ PE[i,j] -> PE[i+1,j] }", "{ PE[i,j] -> PE[i,j+1] }"],
        },
    )
    workload = gemm(CUBE_16)
    assert design_space(workload, load_arch(reverse)).skew_options == ((0, -1), (0, -1))
    assert design_space(workload, load_arch(SYSTOLIC_4X4)).skew_options == ((0, 1), (0, 1))
    times = {str(d.time) for d in enumerate_dataflows(workload, load_arch(reverse))}
    skewed = parse_union_map("{ S[i,j,k] -> T[floor(i/4), floor(j/4), k - i % 4 - j % 4] }")
    assert any(parse_union_map(t).is_equal(skewed) for t in times)
    unskewed = enumerate_dataflows(workload, load_arch(reverse), skew=False)
    assert len(unskewed) == 12  # 6 loop pairs on the axes x 2 tile orders


@pytest.mark.parametrize("diagonal, distinct", [(True, 1), (False, 2)])
def test_equivalent_candidates_are_dropped(tmp_path, diagonal, distinct):
    """Two raw candidates on a 4-PE chain: PE[i % 4] at T[floor(i/4), j], and PE[j % 4] at
    T[floor(j/4), i]. On the diagonal { S[i,j] : i = j } they are the same relations, so one
    is dropped; on the square 8x8 domain they differ."""
    constraint = "j = i" if diagonal else "0 <= j < 8"
    path = write_yaml(
        tmp_path,
        "w",
        {
            "name": "pairs",
            "statements": [
                {
                    "domain": f"{{ S[i,j] : 0 <= i < 8 and {constraint} }}",
                    "reads": {"A": "{ S[i,j] -> A[i] }"},
                    "writes": {"B": "{ S[i,j] -> B[i,j] }"},
                }
            ],
        },
    )
    chain = write_yaml(tmp_path, "chain", {"name": "chain-4", "pe": {"shape": [4]}})
    found = enumerate_dataflows(load_workload(path), load_arch(chain))
    assert len(found) == distinct


def test_progress_reaches_the_total():
    ticks = []
    explore(
        gemm(CUBE_16), load_arch(SYSTOLIC_4X4), limit=4, progress=lambda d, t: ticks.append((d, t))
    )
    assert ticks[-1] == (4, 4)


def test_parallel_jobs_give_the_same_front():
    workload, arch = gemm(CUBE_16), load_arch(SYSTOLIC_4X4)
    one = explore(workload, arch, limit=6, seed=1).to_dict()
    two = explore(workload, arch, limit=6, seed=1, jobs=2).to_dict()
    assert json.dumps(one, sort_keys=True) == json.dumps(two, sort_keys=True)


@pytest.mark.parametrize(
    "extra, fragment",
    [
        (["--objectives", "latency,speed"], "unknown objective 'speed'"),
        (["--objectives", "latency,latency"], "named twice"),
        (["--limit", "0"], "--limit"),
    ],
)
def test_bad_options_exit_2_with_one_line(extra, fragment, capsys):
    rc, out, err = run_cli(["dse", *CUBE_ARGS, *extra], capsys)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and fragment in err and "Traceback" not in err


def test_multi_statement_workload_is_refused(capsys):
    rc, _, err = run_cli(["dse", "-w", "mmc", "-a", "systolic-4x4"], capsys)
    assert rc == 2 and err.count("\n") == 1 and "one-statement" in err


def test_missing_arch_and_bad_emit_target(capsys, tmp_path):
    rc, _, err = run_cli(["dse", "-w", "gemm"], capsys)
    assert rc == 2 and "-a/--arch" in err
    blocker = tmp_path / "file"
    blocker.write_text("x")
    rc, _, err = run_cli(["dse", *CUBE_ARGS, "--limit", "2", "--emit", blocker], capsys)
    assert rc == 2 and err.count("\n") == 1 and "--emit" in err


def test_python_stamps_agree_with_the_isl_text(tmp_path):
    """The probe stamps used to bucket candidates before isl's is_equal must be the isl
    relations' values, also for loops and PE axes that do not start at 0."""
    path = write_yaml(
        tmp_path,
        "offset",
        {
            "name": "offset",
            "statements": [
                {
                    "domain": "{ S[i,j] : 1 <= i < 11 and 2 <= j < 7 }",
                    "reads": {"A": "{ S[i,j] -> A[i,j] }"},
                    "writes": {"B": "{ S[i,j] -> B[i] }"},
                }
            ],
        },
    )
    arch_path = write_yaml(
        tmp_path,
        "chain",
        {
            "name": "chain",
            "pe": {"domain": "{ PE[p] : 3 <= p < 7 }"},
            "interconnect": ["{ PE[p] -> PE[p-1] }"],
        },
    )
    workload, arch = load_workload(path), load_arch(arch_path)
    space = design_space(workload, arch)
    found = list(candidates(space, interleave=True))
    assert len(found) == 2 * 2 * 2  # loop on the axis x time orders x skew 0/+1
    for candidate in found:
        relations = [
            parse_union_map(space.space_text(candidate)),
            parse_union_map(space.time_text(candidate)),
        ]
        for i, j in ((1, 2), (4, 6), (10, 3), (7, 5)):
            one = parse_union_map(f"{{ S[{i},{j}] -> S[{i},{j}] }}").domain()
            values = []
            for rel in relations:
                point = sets_of(rel.intersect_domain(one).range())[0].sample_point()
                n = point.get_space().dim(isl.dim_type.set)
                values.append(
                    tuple(
                        point.get_coordinate_val(isl.dim_type.set, k).to_python() for k in range(n)
                    )
                )
            pe, time = space.stamps(candidate, {"i": i, "j": j})
            assert values == [(pe[0] + 3,), time], (candidate, i, j)


@pytest.mark.slow
def test_network_front_sums_the_layer_fronts(tmp_path, capsys):
    """Layers: the 8x8x32 GEMM twice (front by hand: (207, 70,333.44) and (271, 63,187.2),
    see test_two_point_front_by_hand) and the 16^3 GEMM run twice (one point: latency 335;
    energy 4096 + 1.68*2*3*4096 + 18.61*2*2304 = 131,138.56). A network point picks one
    front dataflow per layer and adds count * value. (Without skews the fronts are the same:
    on systolic-4x4 a skew only ties.)"""
    network = write_yaml(
        tmp_path,
        "net",
        {
            "name": "two-gemms",
            "layers": [
                {"name": "tall", "workload": "gemm", "params": TALL},
                {"name": "cube", "workload": "gemm", "params": CUBE_16, "count": 2},
                {"name": "tall-again", "workload": "gemm", "params": TALL},
            ],
        },
    )
    rc, out, err = run_cli(
        ["dse", "-n", network, "-a", "systolic-4x4", "--no-skew", "--format", "json"]
        + ["--emit", tmp_path / "f"],
        capsys,
    )
    assert rc == 0, err
    report = json.loads(out)
    fast, frugal = (
        (207, 2048 + 20643.84 + 18.61 * 2 * 1280),
        (271, 2048 + 20643.84 + 18.61 * 2 * 1088),
    )
    cube = (335, 4096 + 1.68 * 2 * 3 * 4096 + 18.61 * 2 * 2304)
    expected = [
        (fast[0] + 2 * cube[0] + fast[0], fast[1] + 2 * cube[1] + fast[1]),
        (fast[0] + 2 * cube[0] + frugal[0], fast[1] + 2 * cube[1] + frugal[1]),
        (frugal[0] + 2 * cube[0] + frugal[0], frugal[1] + 2 * cube[1] + frugal[1]),
    ]
    got = [(p["objectives"]["latency"], p["objectives"]["energy"]) for p in report["network_front"]]
    assert [g[0] for g in got] == [e[0] for e in expected]
    assert [g[1] for g in got] == pytest.approx([e[1] for e in expected])
    assert report["evaluated"] == 24  # two distinct layers of 12 unskewed candidates
    assert [layer["layer"] for layer in report["layers"]] == ["tall", "cube", "tall-again"]
    assert sorted(p.name for p in (tmp_path / "f" / "tall").iterdir()) == [
        "dse-001.yaml",
        "dse-002.yaml",
    ]


def test_network_needs_additive_objectives_and_one_input(tmp_path, capsys):
    rc, _, err = run_cli(
        ["dse", "-n", "alexnet", "-a", "systolic-4x4", "--objectives", "latency,sbw"], capsys
    )
    assert rc == 2 and err.count("\n") == 1 and "does not add up" in err
    rc, _, err = run_cli(["dse", "-n", "alexnet", "-w", "gemm", "-a", "systolic-4x4"], capsys)
    assert rc == 2 and "not both" in err


def test_illegal_candidates_are_counted_and_dropped(tmp_path):
    """A recurrence S[i,j] reads A[i-1,j] and writes A[i,j]. On a 64-PE chain the four
    candidates are j on the chain with T[i] or T[i - j] (legal: row i-1 runs a step
    earlier), and i on the chain with T[j] or T[j - i] (illegal: the whole column runs at
    once, or the source runs after its sink)."""
    path = write_yaml(
        tmp_path,
        "rec",
        {
            "name": "recurrence",
            "statements": [
                {
                    "domain": "{ S[i,j] : 0 <= i < 8 and 0 <= j < 8 }",
                    "reads": {"A": "{ S[i,j] -> A[i-1,j] : i > 0 }"},
                    "writes": {"A": "{ S[i,j] -> A[i,j] }"},
                }
            ],
        },
    )
    workload, arch = load_workload(path), load_arch(ARCHS / "chain-64.yaml")
    report = explore(workload, arch, keep_ties=True).to_dict()
    assert (report["evaluated"], report["legal"]) == (4, 2)
    legal = {
        "{ S[i,j] -> T[i] }": "{ S[i,j] -> PE[j] }",
        "{ S[i,j] -> T[i - j] }": "{ S[i,j] -> PE[j] }",
    }
    for entry in report["pareto"]:
        time = parse_union_map(entry["time"]).intersect_domain(workload.domain)
        matches = [
            t
            for t in legal
            if time.is_equal(parse_union_map(t).intersect_domain(workload.domain))
            and parse_union_map(entry["space"]).is_equal(parse_union_map(legal[t]))
        ]
        assert len(matches) == 1


@pytest.mark.slow
def test_dask_cluster_gives_the_same_front_as_the_local_run(dask_scheduler_address, tmp_path):
    """The issue's Dask test: a real scheduler and two workers on loopback, reached through
    scheduler="tcp://...", give the same evaluated/legal counts and front as the local run;
    a rerun against the journal resumes without evaluating anything again."""
    workload, arch = gemm(CUBE_16), load_arch(SYSTOLIC_4X4)
    local = explore(workload, arch).to_dict()
    journal = tmp_path / "dse.jsonl"
    remote = explore(workload, arch, scheduler=dask_scheduler_address, journal=journal).to_dict()
    counts = ("evaluated", "legal", "pruned", "ties")
    assert [remote[k] for k in counts] == [local[k] for k in counts]
    assert [comparable(p) for p in remote["pareto"]] == [comparable(p) for p in local["pareto"]]
    assert [p["notation"] for p in remote["pareto"]] == [p["notation"] for p in local["pareto"]]
    lines = journal.read_text().splitlines()
    # one line per task run, a chunk of candidates: together every counted candidate, and
    # those pruned while being counted
    members = sum(len(json.loads(line)["result"]) for line in lines)
    assert local["evaluated"] <= members <= local["evaluated"] + local["pruned"]
    again = explore(workload, arch, scheduler=dask_scheduler_address, journal=journal).to_dict()
    assert [p["notation"] for p in again["pareto"]] == [p["notation"] for p in local["pareto"]]
    assert journal.read_text().splitlines() == lines  # nothing re-run, nothing appended


def test_emit_is_the_old_name_of_write_dataflows():
    """`emit` and `emit_network` stay importable for one release, as the same functions."""
    from tenet.explore import dse

    assert emit is write_dataflows
    assert dse.emit_network is dse.write_network_dataflows


def test_journal_resumes_and_serves_only_what_holds(tmp_path):
    """A rerun on its journal counts nothing again; a search of another sample of the space
    on the same journal gives the front it gives without a journal (a candidate pruned in
    the first search, against vectors the second may not have, is not taken as pruned)."""
    workload, arch = gemm({"M": 8, "N": 8, "K": 8}), load_arch(SYSTOLIC_4X4)
    journal = tmp_path / "dse.jsonl"
    first = explore(workload, arch, limit=20, seed=1, journal=journal).to_dict()
    lines = journal.read_text().splitlines()
    assert explore(workload, arch, limit=20, seed=1, journal=journal).to_dict() == first
    assert journal.read_text().splitlines() == lines
    for seed in (2, 3):
        alone = explore(workload, arch, limit=12, seed=seed).to_dict()
        shared = explore(workload, arch, limit=12, seed=seed, journal=journal).to_dict()
        assert [comparable(p) for p in shared["pareto"]] == [comparable(p) for p in alone["pareto"]]
        assert [shared[k] for k in ("evaluated", "pruned", "ties")] == [
            alone[k] for k in ("evaluated", "pruned", "ties")
        ]
