"""Topology presets and link options against brute-force enumeration on small arrays,
the one-fetch-per-group property of multicast, and the interconnect warnings."""

from __future__ import annotations

from dataclasses import replace

import islpy as isl
import pytest

from tenet import InputError, analyze, load_arch, load_dataflow, load_workload, simulate
from tenet.model.topology import TOPOLOGIES

from ..conftest import ARCHS, WORKLOADS
from ..helpers import write_yaml

GEMM = WORKLOADS / "gemm" / "workload.yaml"
SMALL = {"M": 7, "N": 9, "K": 4}

# 2-D dataflows on a 3x4 array: skewed systolic, unskewed (multicast-friendly), one step per tile.
FLOWS_2D = {
    "skewed": (
        "{ S[i,j,k] -> PE[i % 3, j % 4] }",
        "{ S[i,j,k] -> T[floor(i/3), floor(j/4), i % 3 + j % 4 + k] }",
    ),
    "unskewed": (
        "{ S[i,j,k] -> PE[i % 3, j % 4] }",
        "{ S[i,j,k] -> T[floor(i/3), floor(j/4), k] }",
    ),
    "k-on-rows": (
        "{ S[i,j,k] -> PE[k % 3, j % 4] }",
        "{ S[i,j,k] -> T[floor(k/3), floor(j/4), i] }",
    ),
}
FLOWS_1D = {
    "chain": ("{ S[i,j,k] -> PE[j % 6] }", "{ S[i,j,k] -> T[floor(j/6), i, k] }"),
    "skewed": ("{ S[i,j,k] -> PE[j % 6] }", "{ S[i,j,k] -> T[floor(j/6), i, j % 6 + k] }"),
}
OPTIONS = {
    "systolic-1d": [{}, {"axis": 1, "direction": "-"}],
    "systolic-2d": [{}, {"directions": ["-", "+"]}],
    "k-hop-multicast": [{"hops": 1}, {"hops": 2}],
    "binary-tree": [{"mode": "reduction"}, {"mode": "distribution"}],
}


def arch_with(tmp_path, shape, entries, name="t"):
    return load_arch(
        write_yaml(tmp_path, name, {"name": name, "pe": {"shape": shape}, "interconnect": entries})
    )


def flow(tmp_path, space_time, name="f"):
    space, time = space_time
    return load_dataflow(write_yaml(tmp_path, name, {"name": name, "space": space, "time": time}))


def assert_same(workload, arch, dataflow) -> dict:
    engine = analyze(workload, arch, dataflow).to_dict()
    assert engine == simulate(workload, arch, dataflow).to_dict()
    return engine


def topology_cases():
    for name in TOPOLOGIES:
        for options in OPTIONS.get(name, [{}]):
            for shape, flows in (([3, 4], FLOWS_2D), ([6], FLOWS_1D)):
                needs_2d = name in ("mesh-diagonal", "mtia-grid", "column-multicast")
                if needs_2d and len(shape) == 1 or options.get("axis") == 1 and len(shape) == 1:
                    continue
                if "directions" in options and len(shape) == 1:
                    continue
                for flow_name in flows:
                    yield pytest.param(
                        name,
                        options,
                        shape,
                        flow_name,
                        id=f"{name}{options or ''}-{'x'.join(map(str, shape))}-{flow_name}",
                    )


@pytest.mark.parametrize("name,options,shape,flow_name", list(topology_cases()))
def test_topology_matches_brute_force(tmp_path, name, options, shape, flow_name):
    workload = load_workload(GEMM, SMALL)
    arch = arch_with(tmp_path, shape, [{"topology": name, **options}])
    flows = FLOWS_2D if len(shape) == 2 else FLOWS_1D
    assert_same(workload, arch, flow(tmp_path, flows[flow_name]))


@pytest.mark.parametrize("window", [[0], [1], [0, 1], [2]])
@pytest.mark.parametrize("name", ["mesh", "torus", "row-multicast", "systolic-2d"])
def test_topology_window_override(tmp_path, name, window):
    workload = load_workload(GEMM, SMALL)
    arch = arch_with(tmp_path, [3, 4], [{"topology": name, "window": window}])
    for flow_name, space_time in FLOWS_2D.items():
        assert_same(workload, arch, flow(tmp_path, space_time, flow_name))


@pytest.mark.parametrize(
    "restriction", [{"tensors": ["A"]}, {"access": "write"}, {"tensors": ["B"], "access": "read"}]
)
def test_topology_restrictions(tmp_path, restriction):
    workload = load_workload(GEMM, SMALL)
    arch = arch_with(
        tmp_path, [3, 4], [{"topology": "mesh", **restriction}, {"topology": "row-multicast"}]
    )
    result = assert_same(workload, arch, flow(tmp_path, FLOWS_2D["skewed"]))
    for link in result["links"][:4]:  # the mesh links carry only what they may
        for tensor, sides in link["values"].items():
            for side, value in sides.items():
                allowed = tensor in restriction.get("tensors", [tensor]) and restriction.get(
                    "access", side
                ) in (side, "both")
                if not allowed:
                    assert value == 0


def test_multicast_costs_one_fetch_per_group(tmp_path):
    # Unskewed OS GEMM on 3x4 with row multicast: every row needs A[i,k] at step k, so each
    # (row, step) group fetches A[i,k] once: A unique = M*K*ceil(N/4) (one fetch per column tile).
    m, n, k = 6, 8, 5
    workload = load_workload(GEMM, {"M": m, "N": n, "K": k})
    arch = arch_with(tmp_path, [3, 4], [{"topology": "row-multicast"}])
    result = assert_same(workload, arch, flow(tmp_path, FLOWS_2D["unskewed"]))
    a = result["tensors"]["A"]["read"]
    assert a["unique"] == m * k * (n // 4) > 0
    assert a["spatial_reuse"] == a["total"] - a["unique"]
    assert result["links"][0]["values"]["A"]["read"] == a["total"] - a["unique"]
    # B varies along the row, so the row groups share nothing of it.
    assert result["tensors"]["B"]["read"]["unique"] == m * n * k


def test_symmetric_forward_links_hide_the_fetch_but_multicast_does_not(tmp_path):
    # Two PEs that read the same value in the same step: forward links both ways (window 0)
    # let each supply the other, so TENET's literal rule counts no fetch at all; the default
    # rule charges the pair one fetch per step, as a multicast group pays one.
    workload = load_workload(GEMM, {"M": 1, "N": 2, "K": 3})
    dataflow = flow(tmp_path, ("{ S[i,j,k] -> PE[j] }", "{ S[i,j,k] -> T[k] }"))
    both_ways = arch_with(
        tmp_path,
        [2],
        [
            {"relation": "{ PE[i] -> PE[i+1] }", "window": [0]},
            {"relation": "{ PE[i] -> PE[i-1] }", "window": [0]},
        ],
        "fw",
    )
    group = arch_with(
        tmp_path,
        [2],
        [{"relation": "{ PE[i] -> PE[j] : i != j }", "kind": "multicast", "window": [0]}],
        "mc",
    )
    # the default rule: the pair is one same-step group, one fetch per step, as a multicast
    forward = assert_same(workload, both_ways, dataflow)
    assert forward["tensors"]["A"]["read"]["unique"] == 3
    assert not any("cycle" in w for w in forward["warnings"])
    literal = assert_same(workload, replace(both_ways, same_step="tenet"), dataflow)
    assert literal["tensors"]["A"]["read"]["unique"] == 0  # TENET's rule: nobody fetches
    assert any("cycle" in w for w in literal["warnings"])
    multicast = assert_same(workload, group, dataflow)
    assert multicast["tensors"]["A"]["read"]["unique"] == 3  # one fetch per step
    assert not any("cycle" in w for w in multicast["warnings"])


def test_per_link_traffic_adds_up_to_the_reuse(tmp_path):
    workload = load_workload(GEMM, SMALL)
    arch = arch_with(tmp_path, [3, 4], [{"topology": "mesh-diagonal"}])
    result = assert_same(workload, arch, flow(tmp_path, FLOWS_2D["skewed"]))
    for tensor, sides in result["tensors"].items():
        for side, v in sides.items():
            if v is None:
                continue
            served = sum(link["values"][tensor][side] for link in result["links"])
            assert served + v["temporal_reuse"] == v["reuse"]


def test_reversed_link_is_flagged(tmp_path):
    workload = load_workload(GEMM, {"M": 8, "N": 8, "K": 4})
    dataflow = load_dataflow(WORKLOADS / "gemm" / "dataflows" / "os-systolic-8x8.yaml")
    arch = arch_with(tmp_path, [8, 8], [{"relation": "{ PE[i,j] -> PE[i,j+1] }", "window": [1]}])
    result = analyze(workload, arch, dataflow).to_dict()
    assert any("check its direction" in w for w in result["warnings"])
    assert result["tensors"]["A"]["read"]["unique"] == result["tensors"]["A"]["read"]["total"]


def test_topology_relations_by_hand():
    from tenet.model.topology import generate

    def relation(name, shape, **options):
        return [isl.UnionMap(spec.relation) for spec in generate(name, shape, options)]

    assert relation("systolic-1d", [4])[0].is_equal(isl.UnionMap("{ PE[p0] -> PE[p0 - 1] }"))
    torus = relation("torus", [4])
    pe = isl.UnionSet("{ PE[p] : 0 <= p < 4 }")
    assert (
        torus[0]
        .intersect_domain(pe)
        .is_equal(isl.UnionMap("{ PE[0] -> PE[3]; PE[p] -> PE[p - 1] : 1 <= p < 4 }"))
    )
    seven = isl.UnionSet("{ PE[p] : 0 <= p < 7 }")
    tree = (
        relation("binary-tree", [7], mode="reduction")[0]
        .intersect_domain(seven)
        .intersect_range(seven)
    )
    # heap numbering: parent n takes partial sums from children 2n+1 and 2n+2
    assert tree.is_equal(
        isl.UnionMap(
            "{ PE[0] -> PE[1]; PE[0] -> PE[2]; PE[1] -> PE[3]; PE[1] -> PE[4]; PE[2] -> PE[5]; PE[2] -> PE[6] }"
        )
    )
    down = (
        relation("binary-tree", [7], mode="distribution")[0]
        .intersect_domain(seven)
        .intersect_range(seven)
    )
    assert down.is_equal(tree.reverse())
    hop = relation("k-hop-multicast", [3, 3], hops=1)[0]
    assert (
        hop.intersect_domain(isl.UnionSet("{ PE[1,1] }"))
        .range()
        .intersect(isl.UnionSet("{ PE[a,b] : 0 <= a < 3 and 0 <= b < 3 }"))
        .is_equal(isl.UnionSet("{ PE[1,1]; PE[0,1]; PE[2,1]; PE[1,0]; PE[1,2] }"))
    )


@pytest.mark.parametrize(
    "entry,needle",
    [
        ({"topology": "hypercube"}, "unknown topology"),
        ({"topology": "mesh", "hops": 2}, "no option 'hops'"),
        ({"topology": "k-hop-multicast", "hops": 0}, "hops must be a positive integer"),
        ({"topology": "binary-tree", "mode": "sideways"}, "mode must be"),
        ({"topology": "systolic-1d", "axis": 5}, "axis must be"),
        ({"topology": "mesh", "kind": "multicast"}, "sets its own link kinds"),
        ({"relation": "{ PE[i,j] -> PE[i,j+1] }", "kind": "multicast"}, "must be symmetric"),
    ],
)
def test_bad_topology_entries(tmp_path, entry, needle):
    with pytest.raises(InputError) as info:
        arch_with(tmp_path, [3, 4], [entry])
    assert needle in str(info.value) and "interconnect[0]" in str(info.value)


@pytest.mark.parametrize("arch", sorted(p.stem for p in ARCHS.glob("*.yaml")))
def test_every_arch_preset_loads(arch):
    loaded = load_arch(ARCHS / f"{arch}.yaml")
    assert loaded.pe_count > 0 and (loaded.links or loaded.levels)  # an array, or a hierarchy


def test_cycle_warning_respects_tensor_and_access_restrictions(tmp_path):
    workload = load_workload(GEMM, SMALL)
    dataflow = flow(tmp_path, FLOWS_1D["chain"])
    split = arch_with(
        tmp_path,
        [6],
        [
            {"relation": "{ PE[i] -> PE[i+1] }", "access": "read"},
            {"relation": "{ PE[i] -> PE[i-1] }", "access": "write"},
        ],
        "split",
    )
    split = replace(split, same_step="tenet")  # the rule that warns of cycles
    assert not any("cycle" in w for w in assert_same(workload, split, dataflow)["warnings"])
    shared = arch_with(
        tmp_path,
        [6],
        [
            {"relation": "{ PE[i] -> PE[i+1] }"},
            {"relation": "{ PE[i] -> PE[i-1] }", "tensors": ["A"]},
        ],
        "shared",
    )
    warnings = assert_same(workload, replace(shared, same_step="tenet"), dataflow)["warnings"]
    assert any("cycle for A (read)" in w for w in warnings)


def test_oversubscription_with_several_macs_per_pe(tmp_path):
    # 3 instances per (PE, step) on average is fine for macs_per_pe=3 but not when one step
    # holds 4: k in 0..5 grouped as {0,1,2,3} and {4,5}.
    workload = load_workload(GEMM, {"M": 2, "N": 2, "K": 6})
    dataflow = flow(tmp_path, ("{ S[i,j,k] -> PE[i, j] }", "{ S[i,j,k] -> T[floor(k/4)] }"))
    for macs, crowded in ((3, True), (4, False)):
        arch = load_arch(
            write_yaml(
                tmp_path, f"m{macs}", {"name": "m", "pe": {"shape": [2, 2]}, "macs_per_pe": macs}
            )
        )
        warnings = assert_same(workload, arch, dataflow)["warnings"]
        assert any("pe_conflict" in w for w in warnings) == crowded


def test_one_dimensional_multicast_groups_are_the_whole_array(tmp_path):
    workload = load_workload(GEMM, {"M": 3, "N": 6, "K": 2})
    dataflow = flow(tmp_path, ("{ S[i,j,k] -> PE[j] }", "{ S[i,j,k] -> T[i, k] }"))
    for name in ("row-multicast", "column-multicast", "broadcast"):
        arch = arch_with(tmp_path, [6], [{"topology": name}], name)
        a = assert_same(workload, arch, dataflow)["tensors"]["A"]["read"]
        assert a["unique"] == 3 * 2  # every PE needs A[i,k] in step (i,k): one fetch each


def test_warnings_keep_brackets_in_the_table(tmp_path, capsys):
    from tenet.cli import main

    arch = write_yaml(
        tmp_path,
        "a",
        {
            "name": "a",
            "pe": {"shape": [8, 8]},
            "interconnect": [{"relation": "{ PE[i,j] -> PE[i,j+1] }", "window": [1]}],
        },
    )
    rc = main(
        [
            "analyze",
            "-w",
            "gemm",
            "-a",
            str(arch),
            "-d",
            "os-systolic-8x8",
            "--set",
            "M=8",
            "--set",
            "N=8",
            "--set",
            "K=4",
        ]
    )
    out = capsys.readouterr().out
    assert rc == 0 and "{ PE[i,j] -> PE[i,j+1] }" in out and "check its direction" in out


def test_unknown_link_tensor_warned_once_per_entry(tmp_path):
    workload = load_workload(GEMM, SMALL)
    arch = arch_with(tmp_path, [3, 4], [{"topology": "mesh", "tensors": ["Wt"]}])
    warnings = analyze(workload, arch, flow(tmp_path, FLOWS_2D["skewed"])).to_dict()["warnings"]
    named = [w for w in warnings if "'Wt'" in w]
    assert len(named) == 1 and named[0].startswith("interconnect[0] (mesh)")
