"""The schedule-time numbers (docs/metrics.md, "Schedule time") of `analyze` (barvinok, with
the time stamp as a parameter) against `simulate` (walks the steps): preset dataflows at
narrow scratchpad ports (so the step costs' ceilings matter), seeded random skewed and
quasi-affine dataflows, and per-step counts of higher degree (the pieces sliced by value)."""

from __future__ import annotations

import random

import pytest
import yaml

from tenet import analyze, load_arch, load_dataflow, load_workload, simulate

from ..conftest import ARCHS, WORKLOADS
from ..helpers import write_yaml
from .test_engine_vs_simulator import SMALL, preset_cases

GEMM = WORKLOADS / "gemm" / "workload.yaml"


def schedule_numbers(data: dict) -> dict:
    """The new numbers of analyze's JSON (and steps, for context)."""
    return {
        **{k: data["delay"][k] for k in ("steps", "schedule", "overlapped")},
        "utilization_schedule": data["utilization_schedule"],
        **{
            k: data["bandwidth"][k]
            for k in ("peak_ingress", "peak_egress", "avg_ingress", "avg_egress")
        },
    }


def assert_same_schedule(workload, arch, dataflow):
    engine = analyze(workload, arch, dataflow)
    reference = simulate(workload, arch, dataflow)
    assert schedule_numbers(engine.to_dict()) == schedule_numbers(reference.to_dict())
    assert engine.to_dict() == reference.to_dict()
    delay = engine.to_dict()["delay"]
    assert delay["steps"] <= delay["overlapped"] <= delay["schedule"]  # docs/metrics.md
    return engine


def with_port(tmp_path, arch_path, bandwidth_bits: int):
    """The arch of `arch_path` with a scratchpad port of `bandwidth_bits` bits a cycle."""
    data = yaml.safe_load(arch_path.read_text())
    data["memory"] = {**data.get("memory", {}), "bandwidth_bits": bandwidth_bits}
    return load_arch(write_yaml(tmp_path, f"{arch_path.stem}-{bandwidth_bits}", data))


# Every preset dataflow, on its first arch, at a 1-word and a 3-word port.
PRESETS = [case for case in preset_cases() if case.id.count("@")]
FIRST_ARCH = {}
for case in PRESETS:
    workload_name, flow, arch_name = case.values
    FIRST_ARCH.setdefault((workload_name, flow), arch_name)


@pytest.mark.parametrize("bandwidth_bits", [16, pytest.param(48, marks=pytest.mark.slow)])
@pytest.mark.parametrize(
    "workload_name,flow,arch_name",
    [
        pytest.param(w, f, a, id=f"{w}/{f.stem}@{a}")
        for (w, f), a in sorted(FIRST_ARCH.items(), key=lambda kv: (kv[0][0], kv[0][1].stem))
    ],
)
def test_preset_dataflows_narrow_port(tmp_path, workload_name, flow, arch_name, bandwidth_bits):
    workload = load_workload(WORKLOADS / workload_name / "workload.yaml", SMALL[workload_name])
    arch = with_port(tmp_path, ARCHS / f"{arch_name}.yaml", bandwidth_bits)
    assert_same_schedule(workload, arch, load_dataflow(flow))


def random_dataflow(rng: random.Random, rows: int, cols: int) -> tuple[str, str]:
    """Two GEMM loops over the rows and columns (tiled, maybe reversed), the third streamed
    with a random skew, some quasi-affine (floor / %) time coordinates."""
    x, y, s = rng.sample(["i", "j", "k"], 3)
    row = f"{x} % {rows}" if rng.random() < 0.7 else f"{rows - 1} - {x} % {rows}"
    col = f"{y} % {cols}"
    a, b = rng.randint(0, 2), rng.randint(0, 2)
    stream = rng.choice([s, f"floor({s}/2)", f"2 * {s}"])
    inner = f"{stream} + {a} * ({row}) + {b} * ({col})"
    outer = [f"floor({x}/{rows})", f"floor({y}/{cols})"]
    rng.shuffle(outer)
    if rng.random() < 0.4:
        time = f"T[{outer[0]}, {outer[1]}, {s} % 2, {inner}]"
    else:
        time = f"T[{outer[0]}, {outer[1]}, {inner}]"
    return f"{{ S[i,j,k] -> PE[{row}, {col}] }}", f"{{ S[i,j,k] -> {time} }}"


LINKS = {
    "systolic": ["{ PE[i,j] -> PE[i-1,j] }", "{ PE[i,j] -> PE[i,j-1] }"],
    "multicast": [
        {"relation": "{ PE[i,j] -> PE[i,j'] }", "kind": "multicast"},
        {"relation": "{ PE[i,j] -> PE[i',j] }", "kind": "multicast"},
    ],
    "none": [],
}


@pytest.mark.parametrize("seed", range(12))
def test_random_skewed_and_quasi_affine(tmp_path, seed):
    rng = random.Random(seed)
    rows, cols = rng.choice([(3, 4), (4, 3), (2, 5)])
    links = rng.choice(sorted(LINKS))
    space, time = random_dataflow(rng, rows, cols)
    sizes = {n: rng.randint(3, 11) for n in ("M", "N", "K")}
    workload = load_workload(GEMM, sizes)
    arch = load_arch(
        write_yaml(
            tmp_path,
            "arch",
            {
                "name": f"{links}-{rows}x{cols}",
                "pe": {"shape": [rows, cols]},
                "interconnect": LINKS[links],
                "memory": {"bandwidth_bits": rng.choice([16, 32, 48, 64])},
            },
        )
    )
    dataflow = load_dataflow(
        write_yaml(tmp_path, "flow", {"name": f"random-{seed}", "space": space, "time": time})
    )
    assert_same_schedule(workload, arch, dataflow)


def test_higher_degree_pieces_are_sliced(tmp_path):
    # Without links every active PE fetches its operands: while a skewed array fills, the
    # active PEs form a triangle, so in(t) is quadratic in t. Those pieces are sliced by
    # the values of the time coordinate they involve, and still match the enumeration.
    workload = load_workload(GEMM, {"M": 13, "N": 9, "K": 6})
    arch = load_arch(
        write_yaml(
            tmp_path,
            "none",
            {"name": "none-4x4", "pe": {"shape": [4, 4]}, "memory": {"bandwidth_bits": 48}},
        )
    )
    dataflow = load_dataflow(
        write_yaml(
            tmp_path,
            "os",
            {
                "name": "os",
                "space": "{ S[i,j,k] -> PE[i % 4, j % 4] }",
                "time": "{ S[i,j,k] -> T[floor(i/4), floor(j/4), i % 4 + j % 4 + k] }",
            },
        )
    )
    engine = assert_same_schedule(workload, arch, dataflow)
    assert engine.step_counts.enumerated_pieces > 0
