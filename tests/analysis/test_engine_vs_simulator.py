"""The engine (barvinok counts) against brute-force enumeration on small problems:
every preset dataflow of every benchmark, generated skewed / quasi-affine dataflows,
and every link option (window, tensor and access restrictions)."""

from __future__ import annotations

import itertools

import pytest

from tenet import analyze, load_arch, load_dataflow, load_workload, simulate
from tenet.model.dataflow import loop_names
from tenet.util.isl_util import count

from ..conftest import ARCHS, WORKLOADS
from ..helpers import write_yaml

# Small sizes that straddle tile boundaries of the 8-, 16- and 64-wide mappings.
SMALL = {
    "gemm": {"M": 18, "N": 10, "K": 5},
    "conv2d": {"K": 3, "C": 2, "OX": 5, "OY": 9, "RX": 3, "RY": 2},
    "mttkrp": {"I": 3, "J": 9, "K": 4, "L": 5},
    "jacobi2d": {"N": 19},
    "mmc": {"M": 9, "N": 5, "K": 4, "L": 6},
    "depthwise-conv": {"C": 3, "OX": 9, "OY": 5, "RX": 3, "RY": 3},
    "strided-conv": {"K": 3, "C": 2, "OX": 5, "OY": 9, "RX": 3, "RY": 2},
    "dilated-conv": {"K": 3, "C": 2, "OX": 9, "OY": 5, "RX": 2, "RY": 3},
    "batched-gemm": {"B": 2, "M": 9, "N": 10, "K": 4},
}

# Which arch each preset dataflow runs on (by the suffix of its name), plus variants.
ARCH_OF = {
    "8x8": ["systolic-8x8", "switch-8x8", "systolic-8x8-rev"],
    "64": ["chain-64"],
    "256": ["chain-256"],
    "16x16": ["systolic-16x16", "systolic-16x16-up", "mesh-diag-16x16"],
    "12x14": ["eyeriss-12x14"],
}


def preset_cases():
    for wl_dir in sorted(WORKLOADS.iterdir()):
        for flow in sorted((wl_dir / "dataflows").glob("*.yaml")):
            suffix = flow.stem.rsplit("-", 1)[-1]
            for arch in ARCH_OF[suffix]:
                yield pytest.param(wl_dir.name, flow, arch, id=f"{wl_dir.name}/{flow.stem}@{arch}")


def assert_same(workload, arch, dataflow):
    engine = analyze(workload, arch, dataflow).to_dict()
    reference = simulate(workload, arch, dataflow).to_dict()
    assert engine == reference
    return engine


@pytest.mark.parametrize("workload_name,flow,arch_name", list(preset_cases()))
def test_preset_dataflows(workload_name, flow, arch_name):
    workload = load_workload(WORKLOADS / workload_name / "workload.yaml", SMALL[workload_name])
    assert count(workload.domain) <= 5000  # keep the brute force quick
    result = assert_same(workload, load_arch(ARCHS / f"{arch_name}.yaml"), load_dataflow(flow))
    assert result["instances"] == count(workload.domain)


def loops_of(workload_name: str) -> list[str]:
    """The loop names of the workload's first statement (dataflows bind to them by name)."""
    workload = load_workload(WORKLOADS / workload_name / "workload.yaml", SMALL[workload_name])
    name, _arity = workload.statements[0]
    return loop_names(workload)[name], workload


def generated_dataflows(loops: list[str]) -> dict[str, tuple[str, str]]:
    """Skewed, quasi-affine and non-injective dataflows for any loop list on a 4x3 array."""
    a, b, *rest = loops
    n = f"S[{', '.join(loops)}]"
    last = rest[-1] if rest else "0"
    mid = rest[:-1]
    return {
        "skewed": (
            f"{{ {n} -> PE[{a} % 4, {b} % 3] }}",
            f"{{ {n} -> T[floor({a}/4), floor({b}/3), {', '.join(mid + [''])}{a} % 4 + {b} % 3 + {last}] }}",
        ),
        "reverse-skew": (
            f"{{ {n} -> PE[3 - {a} % 4, {b} % 3] }}",
            f"{{ {n} -> T[floor({b}/3), {', '.join(mid + [''])}floor({a}/4), 2 * ({b} % 3) + {last}] }}",
        ),
        "halves": (
            f"{{ {n} -> PE[floor({last}/2) % 4, {a} % 3] }}",
            f"{{ {n} -> T[{', '.join(mid + [''])}floor({a}/3), {b}, floor({last}/8)] }}",
        ),
        "shared-stamps": (f"{{ {n} -> PE[{a} % 4, 0] }}", f"{{ {n} -> T[floor({a}/4), {b}] }}"),
    }


ARCH_4x3 = {
    "systolic": ["{ PE[i,j] -> PE[i-1,j] }", "{ PE[i,j] -> PE[i,j-1] }"],
    "mesh": [
        "{ PE[i,j] -> PE[i-1,j] }",
        "{ PE[i,j] -> PE[i+1,j] }",
        "{ PE[i,j] -> PE[i,j-1] }",
        "{ PE[i,j] -> PE[i,j+1] }",
    ],
    "diagonal": ["{ PE[i,j] -> PE[i-1,j-1] }", "{ PE[i,j] -> PE[i+1,j-1] }"],
    "none": [],
}


SLOW_SHAPES = {"reverse-skew", "shared-stamps"}


@pytest.mark.parametrize(
    "workload_name,shape,links",
    [
        # two of the four shapes in the default run, the other two with `-m slow`
        pytest.param(*case, marks=[pytest.mark.slow] if case[1] in SLOW_SHAPES else [])
        for case in itertools.product(
            sorted(set(SMALL) - {"mmc"}),
            ["skewed", "reverse-skew", "halves", "shared-stamps"],
            ["systolic", "mesh", "diagonal", "none"],
        )
    ],
)
def test_generated_dataflows(tmp_path, workload_name, shape, links):
    loops, workload = loops_of(workload_name)
    stmt = workload.statements[0][0]
    space, time = generated_dataflows(loops)[shape]
    space, time = space.replace("S[", f"{stmt}["), time.replace("S[", f"{stmt}[")
    arch = load_arch(
        write_yaml(
            tmp_path,
            "arch",
            {
                "name": f"{links}-4x3",
                "pe": {"shape": [4, 3]},
                "interconnect": [{"relation": r} for r in ARCH_4x3[links]],
            },
        )
    )
    dataflow = load_dataflow(
        write_yaml(tmp_path, "flow", {"name": shape, "space": space, "time": time})
    )
    assert_same(workload, arch, dataflow)


LINK_OPTIONS = [
    {"window": [0]},
    {"window": [1]},
    {"window": [0, 1]},
    {"window": [2]},
    {"window": [0, 3]},
    {"tensors": ["A"]},
    {"tensors": ["B", "C"]},
    {"access": "read"},
    {"access": "write"},
    {"tensors": ["C"], "access": "write", "window": [1]},
]


@pytest.mark.parametrize(
    "options", LINK_OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items())
)
@pytest.mark.parametrize(
    "flow",
    ["os-systolic-8x8", "ws-systolic-8x8", pytest.param("ncf-nmk-8x8", marks=pytest.mark.slow)],
)
def test_link_options(tmp_path, options, flow):
    workload = load_workload(WORKLOADS / "gemm" / "workload.yaml", SMALL["gemm"])
    arch = load_arch(
        write_yaml(
            tmp_path,
            "arch",
            {
                "name": "options",
                "pe": {"shape": [8, 8]},
                "interconnect": [
                    {"relation": "{ PE[i,j] -> PE[i,j-1] }", **options},
                    {"relation": "{ PE[i,j] -> PE[i-1,j] }"},
                    {"relation": "{ PE[i,j] -> PE[i+1,j+1] }", **options},
                ],
            },
        )
    )
    assert_same(workload, arch, load_dataflow(WORKLOADS / "gemm" / "dataflows" / f"{flow}.yaml"))


def test_window_zero_only_reuses_same_step(tmp_path):
    # One chain link with window [0]: a broadcast-like wire. In the skewed OS dataflow the
    # left neighbour held A[i,k] one step earlier, so same-step reuse finds nothing.
    workload = load_workload(WORKLOADS / "gemm" / "workload.yaml", {"M": 8, "N": 8, "K": 4})
    flow = load_dataflow(WORKLOADS / "gemm" / "dataflows" / "os-systolic-8x8.yaml")
    results = {}
    for window in ([0], [1]):
        arch = load_arch(
            write_yaml(
                tmp_path,
                f"w{window[0]}",
                {
                    "name": "row",
                    "pe": {"shape": [8, 8]},
                    "interconnect": [{"relation": "{ PE[i,j] -> PE[i,j-1] }", "window": window}],
                },
            )
        )
        results[window[0]] = assert_same(workload, arch, flow)["tensors"]["A"]["read"]
    assert results[0]["unique"] == 8 * 8 * 4  # every use fetched
    assert results[1]["unique"] == 8 * 4  # enters once per row, flows right
