"""Typed results until output (issue 12): each derived metric is one function that gives the
same value on ints, Fractions and sympy expressions; network totals add typed per-layer
analyses; DSE objectives read attributes of an Analysis; results become JSON only at output
and read back (`from_dict`) to the same JSON."""

from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction

import pytest
import sympy

from tenet import InputError, analyze, load_arch, load_dataflow, load_workload
from tenet.analysis.symbolic import symbolic_analysis
from tenet.bounds.snowcat import bound_at_capacity
from tenet.explore.dse import explore, write_dataflows
from tenet.explore.network import analyze_network, load_network
from tenet.explore.objectives import OBJECTIVES, parse_objectives
from tenet.model.components import technology_components
from tenet.model.metrics import (
    Accesses,
    Analysis,
    Totals,
    avg_active_pes,
    compute_delay,
    energy,
    fold,
    latency,
    per_cycle,
    reuse_factor,
    transfer_delay,
    utilization,
)

from ..conftest import ARCHS, WORKLOADS
from ..helpers import run_cli, write_yaml

GEMM = WORKLOADS / "gemm" / "workload.yaml"
GEMM_FLOWS = WORKLOADS / "gemm" / "dataflows"
SYSTOLIC_8X8 = ARCHS / "systolic-8x8.yaml"


# --- one formula for ints, Fractions and sympy -------------------------------------------------

#: (name, formula, arguments): every argument a count (an int).
FORMULAS = [
    ("compute_delay", compute_delay, (1000, 64)),
    ("compute_delay exact", compute_delay, (1024, 64)),
    ("transfer_delay", transfer_delay, (1283, 16, 64, 16)),
    ("latency", latency, (335, 143, 256)),
    ("latency compute-bound", latency, (20, 31, 4096)),
    ("utilization", utilization, (4096, 16, 335)),
    ("avg_active_pes", avg_active_pes, (1000, 37)),
    ("reuse_factor", reuse_factor, (16, 8)),
    ("reuse_factor 12/7", reuse_factor, (12, 7)),
    ("per_cycle", per_cycle, (1000, 3)),
]


def as_fraction(value: sympy.Basic) -> Fraction:
    """An evaluated sympy number as an exact Fraction."""
    assert value.is_Rational, value
    return Fraction(int(value.p), int(value.q))


@pytest.mark.parametrize("name, formula, args", FORMULAS, ids=[f[0] for f in FORMULAS])
def test_formula_gives_one_value_on_ints_fractions_and_sympy(name, formula, args):
    on_ints = formula(*args)
    on_fractions = formula(*map(Fraction, args))
    symbols = sympy.symbols(f"x0:{len(args)}", integer=True, positive=True)
    expression = formula(*symbols)
    assert isinstance(expression, sympy.Basic)
    on_sympy = as_fraction(expression.subs(dict(zip(symbols, args))))
    assert on_fractions == on_sympy
    if isinstance(on_ints, int):  # counts stay exact integers
        assert on_ints == on_sympy and on_sympy.denominator == 1
    else:  # ratios: the float of the exact value
        assert isinstance(on_ints, float) and on_ints == float(on_sympy)


def test_formulas_by_hand():
    """The worked example of docs/metrics.md (2x2x4 GEMM on a 2x2 array)."""
    assert compute_delay(16, 4) == 4
    assert transfer_delay(8 + 8, 16, 64, 16) == 19
    assert transfer_delay(4, 16, 64, 16) == 16
    assert latency(19, 16, 4) == 19
    assert utilization(16, 4, 19) == 16 / (4 * 19)
    assert avg_active_pes(16, 6) == 16 / 6
    assert reuse_factor(16, 0) is None
    assert reuse_factor(sympy.Integer(16), sympy.Integer(0)) is sympy.nan
    accesses = [Accesses.of([_Side(16, 8)]), Accesses.of([_Side(16, 8)])]
    accesses.append(Accesses.of([_Side(16, 4)]))
    constants = (Fraction(1), Fraction("1.68"), Fraction("18.61"))
    assert energy(16, accesses, constants) == Fraction("921.68")


class _Side:
    def __init__(self, total, unique):
        self.total, self.unique = total, unique


def test_energy_on_ints_fractions_and_sympy():
    constants = (Fraction(1), Fraction("1.68"), Fraction("18.61"))
    counts = (4096, 3 * 4096, 2304)  # macs, Σ total, Σ unique of one tensor

    def of(macs, total, unique):
        return energy(macs, [Accesses.of([_Side(total, unique)])], constants)

    symbols = sympy.symbols("m t u", integer=True, positive=True)
    on_sympy = as_fraction(of(*symbols).subs(dict(zip(symbols, counts))))
    by_hand = 4096 + Fraction("1.68") * 2 * 3 * 4096 + Fraction("18.61") * 2 * 2304
    assert of(*counts) == of(*map(Fraction, counts)) == on_sympy == by_hand


def test_symbolic_formulas_are_the_metric_functions_of_the_counts():
    """The delays and ratios of `analyze --symbolic` are the same functions applied to the
    closed-form counts: at one size, they give analyze's numbers exactly."""
    workload = load_workload(GEMM, {"M": 12, "N": 20, "K": 7})
    arch = load_arch(SYSTOLIC_8X8)
    dataflow = load_dataflow(GEMM_FLOWS / "os-systolic-8x8.yaml")
    result = symbolic_analysis(workload, arch, dataflow, fixed={"K": 7})
    m = result["metrics"]
    assert m["delay.compute"] == fold(compute_delay(m["macs"], m["active_pes"]))
    direct = analyze(workload, arch, dataflow)
    memory = arch.memory
    M, N = sympy.Symbol("M", integer=True), sympy.Symbol("N", integer=True)
    for size in ({M: 12, N: 20}, {M: 3, N: 40}, {M: 100, N: 7}):
        reads = sum(m[k].subs(size) for k in m if k.endswith("read.unique"))
        ingress = transfer_delay(reads, memory.word_bits, memory.bandwidth_bits, memory.avg_latency)
        assert m["delay.ingress"].subs(size) == ingress
    env = {M: 12, N: 20}
    assert m["delay.latency"].subs(env) == direct.latency
    assert as_fraction(m["utilization"].subs(env)) == Fraction(direct.macs, 64 * direct.latency)


# --- Analysis: attributes, to_dict and from_dict ---------------------------------------------


@pytest.fixture(scope="module")
def gemm_analysis():
    """(analysis, arch) of an 8x8x32 GEMM, output stationary on the 8x8 systolic array."""
    arch = load_arch(SYSTOLIC_8X8)
    workload = load_workload(GEMM, {"M": 8, "N": 8, "K": 32})
    dataflow = load_dataflow(GEMM_FLOWS / "os-systolic-8x8.yaml")
    return analyze(workload, arch, dataflow), arch


def test_from_dict_reads_the_json_back(gemm_analysis):
    analysis, arch = gemm_analysis
    data = analysis.to_dict()
    again = Analysis.from_dict(json.loads(json.dumps(data)), arch, analysis.stamps)
    assert again.to_dict() == data and again.stamps == analysis.stamps
    assert again.energy_exact == analysis.energy_exact
    guessed = Analysis.from_dict(data, arch)  # |ST| from avg_active_pes x time_steps
    assert guessed.stamps == analysis.stamps and guessed.to_dict() == data


def test_from_dict_refuses_numbers_of_another_arch(gemm_analysis, tmp_path):
    analysis, _ = gemm_analysis
    slow = write_yaml(
        tmp_path,
        "slow",
        {"name": "systolic-8x8", "pe": {"shape": [8, 8]}, "memory": {"bandwidth_bits": 16}},
    )
    with pytest.raises(ValueError, match="do not follow"):
        Analysis.from_dict(analysis.to_dict(), load_arch(slow), analysis.stamps)


def test_json_numbers_are_the_attributes(gemm_analysis):
    """The JSON numbers are the attributes, and both are the hand counts of the 8x8x32 GEMM,
    output stationary on the 8x8 array (T[0, 0, i + j + k], word 16 bits, port 64 bits, so
    4 words a cycle, avg_latency 16; energy weights mac 1.0, l1 1.68, l2 18.61):

    * instances 8*8*32 = 2,048 on 64 PEs: compute = 2,048 / 64 = 32; steps: i + j + k runs
      over 0..45, so 46.
    * A[i,k] (256 values) enters PE[i, 0] and moves right: unique 256, spatial 7*256 =
      1,792; B likewise; C[i,j] (64 values) stays in its PE: unique 64, temporal 2,048 - 64.
    * ingress = floor((256 + 256)*16/64) + 16 - 1 = 143; egress = floor(64*16/64) + 15 = 31;
      latency = max(143, 31, 32) = 143 = overlapped (max(46, 143, 31)).
    * per step s: in(s) = 2n, n = #{(i, k): i + k = s} (A enters PE[i, 0] at step i + k,
      B PE[0, j] at j + k), out(s) = #{(i, j): i + j = s} (C counts at its first write,
      k = 0). A step costs max(1, ceil(in/4), ceil(out/4)) = ceil(n/2) for n = 1..8 at
      s = 0..7 (20), 4 at s = 8..31 (24*4 = 96), ceil(n/2) for n = 7..1 at s = 32..38 (16),
      1 at s = 39..45 (7): schedule = 20 + 96 + 16 + 7 + 15 = 154. Peaks: in 2*8 = 16, out
      8 (s = 7); averages 512/46 and 64/46 words a step.
    * IBW = (1,792 + 1,792 + 0) / 32 = 112; SBW = (256 + 256 + 64) / 32 = 18.
    * energy = 2,048*1.0 + 1.68*(l1 reads + writes = 2*3*2,048) + 18.61*(l2 reads + writes
      = 2*(256 + 256 + 64)) = 2,048 + 20,643.84 + 21,438.72 = 44,130.56.
    """
    analysis, _ = gemm_analysis
    data = analysis.to_dict()
    assert data["delay"] == {
        "ingress": analysis.ingress_delay,
        "egress": analysis.egress_delay,
        "compute": analysis.compute_delay,
        "latency": analysis.latency,
        "steps": analysis.steps,
        "schedule": analysis.schedule_delay,
        "overlapped": analysis.overlapped_delay,
    }
    assert data["delay"] == {
        "ingress": 143,
        "egress": 31,
        "compute": 32,
        "latency": 143,
        "steps": 46,
        "schedule": 154,
        "overlapped": 143,
    }
    assert all(type(v) is int for v in data["delay"].values())
    assert data["utilization"] == analysis.utilization and data["energy"] == analysis.energy
    assert data["utilization"] == 2048 / (64 * 143)
    l1_words, l2_words = 2 * 3 * 2048, 2 * (256 + 256 + 64)
    by_hand = 2048 + Fraction("1.68") * l1_words + Fraction("18.61") * l2_words
    assert analysis.energy_exact == by_hand == Fraction("44130.56")
    assert data["energy"] == float(Fraction("44130.56"))
    assert data["utilization_schedule"] == analysis.utilization_schedule
    assert data["utilization_schedule"] == 2048 / (64 * 154)
    assert data["bandwidth"] == {
        "ibw": analysis.ibw,
        "sbw": analysis.sbw,
        "peak_ingress": analysis.peak_ingress,
        "peak_egress": analysis.peak_egress,
        "avg_ingress": analysis.avg_ingress,
        "avg_egress": analysis.avg_egress,
    }
    assert data["bandwidth"] == {
        "ibw": 112.0,
        "sbw": 18.0,
        "peak_ingress": 16,
        "peak_egress": 8,
        "avg_ingress": 512 / 46,
        "avg_egress": 64 / 46,
    }
    # The bandwidth sums add the per-side floats in JSON order, as before.
    ibw = 0.0
    for sides in data["tensors"].values():
        for side in sides.values():
            if side is not None:
                ibw += side["ibw"]
    assert analysis.ibw == ibw


# --- objectives -------------------------------------------------------------------------------

#: objective -> where its number is in the analyze JSON
JSON_OF = {
    "latency": lambda r: r["delay"]["latency"],
    "energy": lambda r: r["energy"],
    "sbw": lambda r: r["bandwidth"]["sbw"],
    "ibw": lambda r: r["bandwidth"]["ibw"],
    "traffic": lambda r: sum(
        s["unique"] for sides in r["tensors"].values() for s in sides.values() if s is not None
    ),
    "ingress": lambda r: r["delay"]["ingress"],
    "egress": lambda r: r["delay"]["egress"],
    "compute": lambda r: r["delay"]["compute"],
    "time_steps": lambda r: r["time_steps"],
    "steps": lambda r: r["delay"]["steps"],
    "schedule": lambda r: r["delay"]["schedule"],
    # no memory level has a tile depth here: nothing above the scratchpad is timed
    "hierarchy": lambda r: r["delay"].get("hierarchy", r["delay"]["schedule"]),
    "peak_ingress": lambda r: r["bandwidth"]["peak_ingress"],
    "utilization": lambda r: r["utilization"],
    "active_pes": lambda r: r["active_pes"],
    "energy_pj": lambda r: r["cost"]["energy_pj"]["total"],
    "edp": lambda r: r["cost"]["energy_pj"]["total"] * r["delay"]["latency"],
    "area": lambda r: r["cost"]["area_um2"]["total"],
    # no memory level has a tile depth here: the outermost memory is the scratchpad
    "dram": lambda r: sum(
        s["unique"] for sides in r["tensors"].values() for s in sides.values() if s is not None
    ),
}


def test_every_objective_getter_equals_its_json_value(gemm_analysis):
    analysis, arch = gemm_analysis
    workload = load_workload(GEMM, {"M": 8, "N": 8, "K": 32})
    dataflow = load_dataflow(GEMM_FLOWS / "os-systolic-8x8.yaml")
    priced = replace(arch, components=technology_components(45, 16, 2048))
    analysis = analyze(workload, priced, dataflow)
    data = analysis.to_dict()
    assert set(JSON_OF) == set(OBJECTIVES)
    for name, objective in OBJECTIVES.items():
        value, expected = objective.value(analysis), JSON_OF[name](data)
        assert type(value) is type(expected), name
        if name == "edp":  # the product of the exact energy, rounded once; JSON rounds twice
            assert value == pytest.approx(expected, rel=1e-15), name
        else:
            assert value == expected, name


def test_dse_json_objectives_are_the_getters(capsys):
    args = ["dse", "-w", "gemm", "-a", "systolic-4x4", "--set", "M=8", "--set", "N=8"]
    args += ["--set", "K=32", "--objectives", "latency,traffic,sbw,utilization", "--ties"]
    rc, out, err = run_cli([*args, "--format", "json"], capsys)
    assert rc == 0, err
    report = json.loads(out)
    arch = load_arch(ARCHS / "systolic-4x4.yaml")
    assert report["pareto"]
    for entry in report["pareto"]:
        record = {k: v for k, v in entry.items() if k not in ("notation", "name", "space", "time")}
        del record["objectives"]
        analysis = Analysis.from_dict(record, arch)
        for name, value in entry["objectives"].items():
            assert value == OBJECTIVES[name].value(analysis) == JSON_OF[name](entry), name


def test_explore_keeps_the_front_typed():
    workload = load_workload(GEMM, {"M": 8, "N": 8, "K": 32})
    result = explore(workload, load_arch(ARCHS / "systolic-4x4.yaml"), ("latency", "energy"))
    assert [entry.name for entry in result.pareto] == ["dse-001", "dse-002"]
    assert [(e.analysis.latency, e.analysis.energy) for e in result.pareto] == [
        (207, 70333.44),
        (271, 63187.2),
    ]
    data = result.to_dict()
    assert [e["objectives"] for e in data["pareto"]] == [
        {"latency": 207, "energy": 70333.44},
        {"latency": 271, "energy": 63187.2},
    ]
    assert [e["dataflow"] for e in data["pareto"]] == ["dse-001", "dse-002"]


# --- network totals ---------------------------------------------------------------------------

NETWORK = {
    "name": "three",
    "layers": [
        {"name": "a", "workload": "gemm", "params": {"M": 8, "N": 12, "K": 5}, "count": 3},
        {"name": "b", "workload": "gemm", "params": {"M": 16, "N": 4, "K": 9}, "count": 1},
        {"name": "c", "workload": "gemm", "params": {"M": 3, "N": 3, "K": 40}, "count": 2},
    ],
}


def test_network_totals_are_the_sums_of_independent_layer_analyses(tmp_path):
    arch = load_arch(SYSTOLIC_8X8)
    dataflow = load_dataflow(GEMM_FLOWS / "os-systolic-8x8.yaml")
    runs = [
        (layer["count"], analyze(load_workload(GEMM, layer["params"]), arch, dataflow))
        for layer in NETWORK["layers"]
    ]
    result = analyze_network(
        load_network(write_yaml(tmp_path, "three", NETWORK)), arch, "os-systolic-8x8"
    )
    total = result.total.to_dict()
    rows = [(n, a.to_dict(), a.stamps, a.energy_exact) for n, a in runs]

    def added(get):
        return sum(n * get(row) for n, row, _, _ in rows)

    assert total["layers"] == 3 + 1 + 2
    for key in ("instances", "macs", "time_steps"):
        assert total[key] == added(lambda r, key=key: r[key]), key
    assert total["stamps"] == sum(n * stamps for n, _, stamps, _ in rows)
    for key in ("ingress", "egress", "compute", "latency"):
        assert total["delay"][key] == added(lambda r, key=key: r["delay"][key]), key
    for side in ("read", "write"):
        for key in ("total", "unique", "reuse", "temporal_reuse", "spatial_reuse"):
            expected = added(
                lambda r, side=side, key=key: sum(
                    s[side][key] for s in r["tensors"].values() if s[side] is not None
                )
            )
            assert total["volumes"][side][key] == expected, (side, key)
    for key in ("l1_reads", "l1_writes", "l2_reads", "l2_writes"):
        assert total["accesses"][key] == added(
            lambda r, key=key: sum(a[key] for a in r["accesses"].values())
        )
    assert total["pe_count"] == 64
    assert total["active_pes"] == max(row["active_pes"] for _, row, _, _ in rows)
    assert total["avg_active_pes"] == total["stamps"] / total["time_steps"]
    assert total["utilization"] == total["macs"] / (64 * total["delay"]["latency"])
    assert total["energy"] == float(sum(n * e for n, _, _, e in rows))
    read, write, compute = (
        total["volumes"]["read"],
        total["volumes"]["write"],
        added(lambda r: r["delay"]["compute"]),
    )
    assert {k: total["bandwidth"][k] for k in ("ibw", "sbw")} == {
        "ibw": (read["spatial_reuse"] + write["spatial_reuse"]) / compute,
        "sbw": (read["unique"] + write["unique"]) / compute,
    }
    # Schedule time: delays add, the busiest step is the busiest layer's.
    for key in ("steps", "schedule", "overlapped"):
        assert total["delay"][key] == added(lambda r, key=key: r["delay"][key]), key
    for key in ("peak_ingress", "peak_egress"):
        assert total["bandwidth"][key] == max(row["bandwidth"][key] for _, row, _, _ in rows)
    # The typed totals: `+` and `n *` of one run's totals.
    assert result.total == sum((n * Totals.of(a) for n, a in runs), Totals(64))
    assert [layer.analysis.to_dict() for layer in result.layers] == [a.to_dict() for _, a in runs]


def test_totals_add_like_numbers():
    arch = load_arch(SYSTOLIC_8X8)
    dataflow = load_dataflow(GEMM_FLOWS / "os-systolic-8x8.yaml")
    a = Totals.of(analyze(load_workload(GEMM, {"M": 8, "N": 12, "K": 5}), arch, dataflow))
    b = Totals.of(analyze(load_workload(GEMM, {"M": 3, "N": 3, "K": 40}), arch, dataflow))
    assert a + b == b + a and 2 * a == a + a and 3 * (a + b) == 3 * a + 3 * b
    assert Totals(64) + a == a
    with pytest.raises(ValueError, match="PEs"):
        a + Totals(16)


# --- bound_at_capacity takes the Analysis ------------------------------------------------------


def test_bound_at_capacity_reads_the_analysis(gemm_analysis):
    analysis, arch = gemm_analysis
    workload = load_workload(GEMM, {"M": 8, "N": 8, "K": 32})
    bound = bound_at_capacity(workload, arch, analysis)
    data = analysis.to_dict()["tensors"]
    by_hand = data["A"]["read"]["unique"] + data["B"]["read"]["unique"]
    by_hand += 2 * data["C"]["write"]["unique"] - 8 * 8
    assert bound["dataflow_traffic"] == by_hand


# --- errors name parameters; the command line names flags --------------------------------------


def test_library_errors_name_parameters_and_the_cli_flags(capsys):
    with pytest.raises(InputError) as info:
        parse_objectives("latency,speed")
    assert info.value.source == "objectives"
    workload = load_workload(GEMM, {"M": 8, "N": 8, "K": 8})
    with pytest.raises(InputError) as info:
        explore(workload, load_arch(ARCHS / "systolic-4x4.yaml"), limit=0)
    assert info.value.source == "limit"
    dataflow = load_dataflow(GEMM_FLOWS / "os-systolic-8x8.yaml")
    with pytest.raises(InputError) as info:
        symbolic_analysis(workload, load_arch(SYSTOLIC_8X8), dataflow, fixed={"Q": 1})
    assert info.value.source == "fixed"
    with pytest.raises(InputError) as info:
        write_dataflows([], __file__)
    assert info.value.key == "directory"
    rc, _, err = run_cli(["dse", "-w", "gemm", "-a", "systolic-4x4", "--limit", "0"], capsys)
    assert rc == 2 and err.strip() == "tenet: error: --limit: must be positive, got 0"
    rc, _, err = run_cli(
        ["analyze", "--symbolic", "-w", "gemm", "-a", "systolic-8x8", "-d", "os-systolic-8x8"]
        + ["--set", "Q=3"],
        capsys,
    )
    assert rc == 2 and err.startswith("tenet: error: --set: unknown parameter 'Q'")
    rc, _, err = run_cli(["dse", "-n", "alexnet", "-a", "systolic-4x4", "--limit", "0"], capsys)
    assert rc == 2 and err.strip() == "tenet: error: --limit: must be positive, got 0"


def test_a_journal_record_is_read_back_as_an_analysis(tmp_path):
    """Journalled layers come back as Analyses with the same JSON; a record whose numbers do
    not follow from its counts (another arch's constants) is refused, naming the journal."""
    network = load_network(write_yaml(tmp_path, "three", NETWORK))
    arch = load_arch(SYSTOLIC_8X8)
    journal = tmp_path / "layers.jsonl"
    first = analyze_network(network, arch, "os-systolic-8x8", journal=journal)
    again = analyze_network(network, arch, "os-systolic-8x8", journal=journal)
    assert again == first and again.to_dict() == first.to_dict()
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    records[0]["result"]["analysis"]["delay"]["ingress"] += 1
    journal.write_text("".join(json.dumps(r) + "\n" for r in records))
    with pytest.raises(InputError, match="delete the journal") as info:
        analyze_network(network, arch, "os-systolic-8x8", journal=journal)
    assert info.value.source == str(journal)
