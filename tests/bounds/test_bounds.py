"""Orojenesis bounds: mapping counts, the published reference points, closed forms, the
pebble-game lower bound, and every sampled mapping's cost recomputed with isl as a
one-PE TENET dataflow whose time stamps are the outer tile indices."""

from __future__ import annotations

import itertools
import json
import random
from math import prod

import pytest

from tenet import analyze, load_arch, load_dataflow, load_workload
from tenet.bounds.slope import bounds_report
from tenet.bounds.snowcat import (
    evaluate,
    front_of,
    problem_from_einsum,
    problem_from_workload,
)

from ..helpers import GEMM_OS_ARGS, run_cli, write_yaml

GEMM = "O[m,n] += A[m,k] * W[k,n]"
BIG = {"m": 4096, "k": 4096, "n": 4096}


@pytest.fixture(scope="module")
def gemm_4k():
    problem = problem_from_einsum(GEMM, BIG)
    return problem, bounds_report(evaluate(problem, bypass=False))


def test_mapping_counts():
    problem = problem_from_einsum(GEMM, BIG)
    # 13 divisors per rank: sum over u non-unit outer loops of C(3,u) * 12^u * u!
    assert evaluate(problem).mappings == 1 + 3 * 12 + 3 * 144 * 2 + 1728 * 6 == 11_269
    assert evaluate(problem, bypass=True).mappings == 8 * 11_269 == 90_152


@pytest.fixture(scope="module")
def gemm_4k_front():
    return front_of(evaluate(problem_from_einsum(GEMM, BIG), bypass=False))


def test_published_reference_points(gemm_4k_front):
    assert gemm_4k_front.at(4_224).accesses == 2_164_260_864
    assert gemm_4k_front.at(1_050_624).accesses == 150_994_944
    assert gemm_4k_front.at(16_785_408).accesses == 50_331_648


@pytest.mark.parametrize("a", [1, 2, 16, 64, 256, 1024, 4096])
def test_square_tiles_closed_form(gemm_4k_front, a):
    # Tiles (a, 1, a), order m, n, k: buffer a^2 + 2a, accesses 2*M*N*K/a + M*N; the front
    # can only do as well or better at that buffer size.
    m = n = k = 4096
    assert gemm_4k_front.at(a * a + 2 * a).accesses <= 2 * m * n * k // a + m * n


def test_last_point_is_the_algorithmic_minimum(gemm_4k):
    _problem, report = gemm_4k
    assert report["pareto"][-1]["accesses"] == report["algorithmic_minimum"] == 3 * 4096 * 4096
    assert (
        report["max_effectual_buffer"] == report["pareto"][-1]["buffer"] == 4096 * 4096 + 2 * 4096
    )
    accesses = [p["accesses"] for p in report["pareto"]]
    assert all(a > b for a, b in itertools.pairwise(accesses))  # strictly falling


@pytest.mark.parametrize(
    "shape",
    [
        BIG,
        {"m": 16384, "k": 1024, "n": 1024},
        {"m": 96, "k": 60, "n": 200},
        {"m": 1024, "k": 64, "n": 4096},
    ],
)
@pytest.mark.parametrize("bypass", [False, True])
def test_front_above_pebble_bound(shape, bypass):
    problem = problem_from_einsum(GEMM, shape)
    assert problem.is_matrix_product()
    report = bounds_report(evaluate(problem, bypass))
    macs = prod(shape.values())
    for point in report["pareto"]:
        if point["buffer"]:
            floor = max(report["algorithmic_minimum"], 2 * macs / point["buffer"] ** 0.5)
            assert point["accesses"] >= floor - 1e-6


def test_bypassing_everything_costs_one_access_per_mac():
    problem = problem_from_einsum(GEMM, {"m": 8, "k": 4, "n": 6})
    report = bounds_report(evaluate(problem, bypass=True))
    first = report["pareto"][0]
    assert first["buffer"] == 0 and first["accesses"] == 2 * 192 + (2 * 192 - 48)


def test_workload_yaml_gives_the_same_problem(tmp_path):
    path = write_yaml(
        tmp_path,
        "conv",
        {
            "name": "strided",
            "params": {"K": 4, "C": 3, "P": 5, "Q": 5, "R": 3, "S": 3},
            "statements": [
                {
                    "domain": "[K,C,P,Q,R,S] -> { X[k,c,p,q,r,s] : 0 <= k < K and 0 <= c < C and "
                    "0 <= p < P and 0 <= q < Q and 0 <= r < R and 0 <= s < S }",
                    "reads": {
                        "I": "{ X[k,c,p,q,r,s] -> I[c, 2*p + r, 2*q + s] }",
                        "W": "{ X[k,c,p,q,r,s] -> W[k,c,r,s] }",
                    },
                    "writes": {"O": "{ X[k,c,p,q,r,s] -> O[k,p,q] }"},
                }
            ],
        },
    )
    from_yaml = problem_from_workload(load_workload(path))
    from_text = problem_from_einsum(
        "O[k,p,q] += I[c, 2*p + r, 2*q + s] * W[k,c,r,s]",
        {"k": 4, "c": 3, "p": 5, "q": 5, "r": 3, "s": 3},
    )
    assert from_yaml.ranks == from_text.ranks and from_yaml.sizes == from_text.sizes
    assert [t.dims for t in from_yaml.tensors] == [t.dims for t in from_text.tensors]
    assert from_yaml.size(from_yaml.tensors[0]) == 3 * (2 * 4 + 2 + 1) ** 2  # C * H * W input words


# --- isl cross-check -------------------------------------------------------------------

CASES = {
    "gemm": ("O[m,n] += A[m,k] * W[k,n]", {"m": 12, "k": 6, "n": 8}),
    "strided": (
        "O[k,p,q] += I[c, 2*p + r, 2*q + s] * W[k,c,r,s]",
        {"k": 2, "c": 2, "p": 4, "q": 2, "r": 3, "s": 2},
    ),
    "dilated": (
        "O[k,p,q] += I[c, p + 2*r, q + 2*s] * W[k,c,r,s]",
        {"k": 2, "c": 2, "p": 4, "q": 2, "r": 3, "s": 2},
    ),
    "bmm": ("C[h,m,n] += A[h,m,k] * B[h,k,n]", {"h": 2, "m": 6, "k": 4, "n": 4}),
    "grouped-bmm": (
        "O[g,x,m,n] += Q[g,x,m,k] * K[g,k,n]",
        {"g": 2, "x": 2, "m": 4, "k": 3, "n": 4},
    ),
}


def hole_free(problem, inner) -> bool:
    """The box extent rule counts a tile exactly only when each index covers an interval."""
    for tensor in problem.tensors:
        for dim in tensor.dims:
            values = {0}
            for a, f in zip(dim, inner):
                values = {v + a * x for v in values for x in range(f)}
            if max(values) - min(values) + 1 != len(values):
                return False
    return True


def isl_cost(tmp_path, problem, text, inner, order) -> tuple[int, int]:
    """(buffer, accesses) of one mapping, counted by the TENET engine on one PE."""
    ranks = problem.ranks
    statement = f"S[{', '.join(ranks)}]"
    einsum_workload = {"name": "w", "einsum": text, "bounds": dict(zip(ranks, problem.sizes))}
    workload = load_workload(write_yaml(tmp_path, "w", einsum_workload))
    stamps = ", ".join(f"floor({r}/{inner[ranks.index(r)]})" for r in order) or "0"
    dataflow = load_dataflow(
        write_yaml(
            tmp_path,
            "d",
            {
                "name": "tiles",
                "space": f"{{ {statement} -> PE[0] }}",
                "time": f"{{ {statement} -> T[{stamps}] }}",
            },
        )
    )
    arch = load_arch(write_yaml(tmp_path, "a", {"name": "snowcat", "pe": {"shape": [1]}}))
    result = analyze(workload, arch, dataflow).to_dict()
    accesses = 0
    for tensor in problem.tensors:
        sides = result["tensors"][tensor.name]
        v = sides["write"] if tensor.output else sides["read"]
        moved = v["total"] - v["temporal_reuse"]  # |A_D \ (prev ; A_D)|
        accesses += 2 * moved - problem.size(tensor) if tensor.output else moved
    # footprint: the elements of every tensor touched by the first tile
    import islpy as isl

    from tenet.util.isl_util import count

    first = isl.UnionSet(
        f"{{ {statement} : " + " and ".join(f"0 <= {r} < {f}" for r, f in zip(ranks, inner)) + " }"
    )
    buffer = sum(
        count(
            workload.access(t.name, "write" if t.output else "read").intersect_domain(first).range()
        )
        for t in problem.tensors
    )
    return buffer, accesses


@pytest.mark.parametrize("case", sorted(CASES))
def test_costs_equal_isl_on_sampled_mappings(tmp_path, case):
    text, shape = CASES[case]
    problem = problem_from_einsum(text, shape)
    result = evaluate(problem)
    rng = random.Random(7)
    candidates = [
        i for i in range(result.mappings) if hole_free(problem, result.space.inner[i].tolist())
    ]
    for index in rng.sample(candidates, min(12, len(candidates))):
        inner = result.space.inner[index].tolist()
        order = [problem.ranks[r] for r in result.space.order[index].tolist() if r >= 0]
        assert isl_cost(tmp_path, problem, text, inner, order) == (
            int(result.buffer[index]),
            int(result.accesses[index]),
        ), (inner, order)


def test_sliding_window_fetches_only_the_new_part():
    # 1-D convolution O[p] += I[p + r] * W[r], P = 8, R = 3, tiles p0 = 2, r0 = 3, loop p1
    # innermost: each step fetches 2 new inputs after the first 4-word tile.
    problem = problem_from_einsum("O[p] += I[p + r] * W[r]", {"p": 8, "r": 3})
    result = evaluate(problem)
    row = next(i for i in range(result.mappings) if result.space.inner[i].tolist() == [2, 3])
    from tenet.bounds.snowcat import transfers

    _, moved = transfers(problem.tensors[0], result.space)
    assert int(moved[row]) == 4 + 3 * 2 == problem.size(problem.tensors[0])


# --- CLI -------------------------------------------------------------------------------


def test_cli_json_and_lookups(capsys, tmp_path):
    rc, out, _ = run_cli(
        [
            "bounds",
            "--einsum",
            GEMM,
            "--shape",
            "m=4096,k=4096,n=4096",
            "--bypass",
            "--at",
            "1MiB",
            "--at",
            "4224",
            "--word-bits",
            "16",
            "--format",
            "json",
            "--plot",
            str(tmp_path / "slope.png"),
            "--macs-per-cycle",
            "256",
            "--bandwidth-gbps",
            "100",
        ],
        capsys,
    )
    assert rc == 0
    report = json.loads(out)
    assert report["mappings_evaluated"] == 90_152 and report["macs"] == 4096**3
    assert list(report["shape"]) == ["m", "k", "n"]
    assert report["at"][0]["words"] == 2**20 * 8 // 16
    assert report["at"][1]["accesses"] == 2_164_260_864
    point = report["pareto"][5]
    assert set(point) >= {"buffer", "accesses", "oi", "mapping", "tiles", "order"}
    assert point["oi"] == pytest.approx((2 * 4096**3 - 4096**2) / (point["accesses"] * 2))
    assert all(p["gops"] <= 2 * 256 for p in report["performance"]["mesa"])
    for name in ("slope.png", "slope-oi.png", "slope-perf.png"):
        assert (tmp_path / name).read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--einsum", GEMM], "--shape"),
        (["--einsum", GEMM, "--shape", "m=4,k=4"], "rank 'n' has no size"),
        (["--einsum", GEMM, "--shape", "m=4,k=4,n=4,z=2"], "does not appear"),
        (["--einsum", "O[m] += A[m*k]", "--shape", "m=4,k=4"], "not affine"),
        (["--einsum", GEMM, "--shape", "m=4,k=4,n=4", "--at", "12parsecs"], "cannot read size"),
        (["-w", "jacobi2d"], "one access per tensor"),
        (["-w", "mmc"], "single statement"),
    ],
)
def test_cli_errors(capsys, args, needle):
    rc, _out, err = run_cli(["bounds", *args], capsys)
    assert rc == 2 and needle in err and err.count("\n") == 1


def test_analyze_with_bound(capsys):
    rc, out, _ = run_cli(
        [
            "analyze",
            *GEMM_OS_ARGS,
            "--bound",
            "--format",
            "json",
        ],
        capsys,
    )
    assert rc == 0
    bound = json.loads(out)["bound"]
    assert bound["capacity_words"] == 64 * 256 + 1024
    # square 128 tiles fit (128^2 + 2*128 <= 17,408): 2*256^3/128 + 256^2
    assert bound["accesses"] == 2 * 256**3 // 128 + 256**2
    assert bound["ratio"] == pytest.approx(bound["dataflow_traffic"] / bound["accesses"])


def test_tensor_sizes_skip_holes():
    # A stride larger than the filter leaves input words nobody reads: O[p] += I[2p + r] * W[r]
    # with P = 4, R = 1 reads I[0], I[2], I[4], I[6] only. The algorithmic minimum counts the
    # 4 + 1 + 4 words actually touched, and one-element tiles attain it.
    problem = problem_from_einsum("O[p] += I[2*p + r] * W[r]", {"p": 4, "r": 1})
    assert [problem.size(t) for t in problem.tensors] == [4, 1, 4]
    report = bounds_report(evaluate(problem))
    assert report["algorithmic_minimum"] == 9 == report["pareto"][-1]["accesses"]


def test_analyze_bound_charges_partial_sums_like_the_bound(capsys):
    # Weight-stationary 256^3 GEMM on 8x8: C's partial sums leave the array once per k tile
    # (W = M*N*K/8 writes) and come back W - M*N times; A is fetched M*K*N/8 times, B once.
    rc, out, _ = run_cli(
        [
            "analyze",
            "-w",
            "gemm",
            "-a",
            "systolic-8x8",
            "-d",
            "ws-systolic-8x8",
            "--bound",
            "--format",
            "json",
        ],
        capsys,
    )
    assert rc == 0
    bound = json.loads(out)["bound"]
    writes = 256 * 256 * 256 // 8
    assert bound["dataflow_traffic"] == 256 * 256 * 256 // 8 + 256 * 256 + 2 * writes - 256 * 256
    assert bound["ratio"] == pytest.approx(bound["dataflow_traffic"] / (2 * 256**3 // 128 + 256**2))
