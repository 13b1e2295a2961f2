"""Whole networks: the presets' layer shapes against the papers, totals against independent
per-layer analyses, the CLI's -n/--network, errors, and ONNX import."""

from __future__ import annotations

import json

import pytest

from tenet import analyze, load_arch, load_dataflow, load_workload
from tenet.errors import InputError
from tenet.explore.network import analyze_network, layer_workload, load_network
from tenet.util.isl_util import count

from ..conftest import ARCHS, WORKLOADS
from ..helpers import run_cli, write_yaml


def conv_output(size: int, kernel: int, stride: int = 1, pad: int = 0, dilation: int = 1) -> int:
    """The convolution output size: floor((in + 2 pad - dilation (k - 1) - 1) / stride) + 1."""
    return (size + 2 * pad - dilation * (kernel - 1) - 1) // stride + 1


# --- presets against the papers ---------------------------------------------------------------

# Krizhevsky et al. 2012, section 3.5 and figure 2: (kernels, kernel depth, kernel size, stride,
# padding, input size, groups). conv1's input is 227 (the paper's 224 cannot give its 55x55
# output with an 11x11 kernel at stride 4); conv2/4/5 are split over two GPUs (groups = 2).
ALEXNET_CONVS = {
    "conv1": (96, 3, 11, 4, 0, 227, 1),
    "conv2": (256, 48, 5, 1, 2, 27, 2),
    "conv3": (384, 256, 3, 1, 1, 13, 1),
    "conv4": (384, 192, 3, 1, 1, 13, 2),
    "conv5": (256, 192, 3, 1, 1, 13, 2),
}
ALEXNET_OUTPUTS = {"conv1": 55, "conv2": 27, "conv3": 13, "conv4": 13, "conv5": 13}


@pytest.mark.parametrize("name", list(ALEXNET_CONVS))
def test_alexnet_conv_layers_have_the_papers_shapes(name):
    kernels, depth, size, stride, pad, inputs, groups = ALEXNET_CONVS[name]
    layer = {layer.name: layer for layer in load_network("alexnet").layers}[name]
    out = conv_output(inputs, size, stride, pad)
    assert out == ALEXNET_OUTPUTS[name]
    assert layer.workload_ref == "conv2d"
    assert layer.count == groups
    assert layer.params == {
        "K": kernels // groups,
        "C": depth,
        "OX": out,
        "OY": out,
        "RX": size,
        "RY": size,
    }
    assert layer.stride == (stride, stride)
    # The input the windows read is exactly the padded input of the paper's layer.
    workload = layer_workload(layer)
    touched = count(workload.access("I", "read").range())
    assert touched == depth * (inputs + 2 * pad) ** 2


def network_macs(name: str) -> int:
    """Σ runs x |D| of the layers' iteration domains, counted by barvinok."""
    return sum(
        layer.count * count(layer_workload(layer).domain) for layer in load_network(name).layers
    )


def test_mobilenet_macs_match_the_paper():
    # Howard et al. 2017, Table 2: MobileNet-224 1.0 has 569 million mult-adds.
    assert round(network_macs("mobilenet") / 1e6) == 569


def test_resnet50_macs_match_the_paper():
    # He et al. 2016, Table 1: ResNet-50 has 3.8 x 10^9 FLOPs (multiply-adds).
    assert abs(network_macs("resnet50") / 1e9 - 3.8) < 0.1


def test_vgg16_macs_match_the_published_figure():
    # He et al. 2016, section 3.3: VGG-16 has 15.3 billion FLOPs (multiply-adds).
    assert abs(network_macs("vgg16") / 15.3e9 - 1) < 0.02


def test_bert_base_layer_macs_closed_form():
    # Devlin et al. 2019: H = 768, A = 12 heads, FFN 4H; one sequence of S = 512 tokens.
    s, h, heads = 512, 768, 12
    projections = 4 * s * h * h  # Q, K, V, output
    attention = 2 * heads * s * s * (h // heads)  # Q K^T and P V
    ffn = 2 * s * h * 4 * h
    assert network_macs("bert-base") == projections + attention + ffn


@pytest.mark.parametrize("name", ["alexnet", "vgg16", "resnet50", "mobilenet", "bert-base"])
def test_every_preset_loads(name):
    network = load_network(name)
    assert network.name == name
    assert network.layers


# --- totals against independent analyses -------------------------------------------------------

SMALL_NETWORK = {
    "name": "small",
    "layers": [
        {
            "name": "c1",
            "workload": "conv2d",
            "params": {"K": 8, "C": 3, "OX": 6, "OY": 5, "RX": 3, "RY": 3},
            "stride": 2,
            "count": 2,
        },
        {
            "name": "dw",
            "workload": "depthwise-conv",
            "params": {"C": 8, "OX": 6, "OY": 6, "RX": 3, "RY": 3},
            "stride": [1, 2],
            "dilation": [2, 1],
        },
        {"name": "fc", "workload": "gemm", "params": {"M": 4, "N": 10, "K": 12}},
        {
            "name": "attn",
            "workload": "batched-gemm",
            "params": {"B": 2, "M": 8, "N": 8, "K": 4},
            "count": 3,
        },
    ],
}

# The same layers written out by hand as workloads, with the dataflow each one gets.
INDEPENDENT = [
    (
        "c1",
        2,
        {
            "name": "c1",
            "params": {"K": 8, "C": 3, "OX": 6, "OY": 5, "RX": 3, "RY": 3},
            "einsum": "O[k,ox,oy] += I[c, 2*ox + rx, 2*oy + ry] * W[k,c,rx,ry]",
            "bounds": {"k": "K", "c": "C", "ox": "OX", "oy": "OY", "rx": "RX", "ry": "RY"},
        },
        WORKLOADS / "conv2d" / "dataflows" / "os-8x8.yaml",
    ),
    (
        "dw",
        1,
        {
            "name": "dw",
            "params": {"C": 8, "OX": 6, "OY": 6, "RX": 3, "RY": 3},
            "einsum": "O[c,ox,oy] += I[c, ox + 2*rx, 2*oy + ry] * W[c,rx,ry]",
            "bounds": {"c": "C", "ox": "OX", "oy": "OY", "rx": "RX", "ry": "RY"},
        },
        WORKLOADS / "depthwise-conv" / "dataflows" / "os-8x8.yaml",
    ),
    (
        "fc",
        1,
        {
            "name": "fc",
            "params": {"M": 4, "N": 10, "K": 12},
            "einsum": "C[i,j] += A[i,k] * B[k,j]",
            "bounds": {"i": "M", "j": "N", "k": "K"},
        },
        WORKLOADS / "gemm" / "dataflows" / "os-systolic-8x8.yaml",
    ),
    (
        "attn",
        3,
        {
            "name": "attn",
            "params": {"B": 2, "M": 8, "N": 8, "K": 4},
            "einsum": "C[b,i,j] += A[b,i,k] * B[b,k,j]",
            "bounds": {"b": "B", "i": "M", "j": "N", "k": "K"},
        },
        WORKLOADS / "batched-gemm" / "dataflows" / "os-systolic-8x8.yaml",
    ),
]
DATAFLOWS = "os-8x8,os-systolic-8x8"


@pytest.fixture
def small_network(tmp_path):
    return write_yaml(tmp_path, "small", SMALL_NETWORK)


@pytest.fixture
def independent(tmp_path):
    """(name, count, analyze dict) of every layer, from hand-written workload files."""
    arch = load_arch(ARCHS / "systolic-8x8.yaml")
    out = []
    for name, runs, data, dataflow in INDEPENDENT:
        workload = load_workload(write_yaml(tmp_path, f"w-{name}", data))
        out.append((name, runs, analyze(workload, arch, load_dataflow(dataflow)).to_dict()))
    return out


def test_each_layer_equals_its_own_analysis(small_network, independent):
    result = analyze_network(
        load_network(small_network), load_arch(ARCHS / "systolic-8x8.yaml"), DATAFLOWS
    ).to_dict()
    assert [row["layer"] for row in result["layers"]] == [name for name, _, _ in independent]
    for row, (_, runs, expected) in zip(result["layers"], independent):
        assert row["count"] == runs
        for key in ("instances", "macs", "time_steps", "delay", "tensors", "accesses", "energy"):
            assert row[key] == expected[key], key


def test_totals_are_sums_of_independent_analyses(small_network, independent):
    total = analyze_network(
        load_network(small_network), load_arch(ARCHS / "systolic-8x8.yaml"), DATAFLOWS
    ).to_dict()["total"]
    runs = [(n, r) for _, n, r in independent]
    for key in ("instances", "macs", "time_steps"):
        assert total[key] == sum(n * r[key] for n, r in runs), key
    for key in ("ingress", "egress", "compute", "latency"):
        assert total["delay"][key] == sum(n * r["delay"][key] for n, r in runs), key
    for side in ("read", "write"):
        for key in ("total", "unique", "reuse", "temporal_reuse", "spatial_reuse"):
            expected = sum(
                n * sides[side][key]
                for n, r in runs
                for sides in r["tensors"].values()
                if sides[side] is not None
            )
            assert total["volumes"][side][key] == expected, (side, key)
    assert total["energy"] == pytest.approx(sum(n * r["energy"] for n, r in runs), rel=1e-12)
    assert total["layers"] == 2 + 1 + 1 + 3
    latency = sum(n * r["delay"]["latency"] for n, r in runs)
    assert total["utilization"] == pytest.approx(total["macs"] / (64 * latency))
    # The hand count of the MACs: conv 8*3*6*5*9 twice, depthwise 8*6*6*9, gemm, 3 batched.
    assert total["macs"] == 2 * 8 * 3 * 6 * 5 * 9 + 8 * 6 * 6 * 9 + 4 * 10 * 12 + 3 * 2 * 8 * 8 * 4


def test_schedule_time_totals_of_independent_analyses(small_network, independent):
    """Layers run one after another: schedule and overlapped delays and steps add up (each
    layer `count` times), the busiest step is the busiest of any layer."""
    total = analyze_network(
        load_network(small_network), load_arch(ARCHS / "systolic-8x8.yaml"), DATAFLOWS
    ).to_dict()["total"]
    runs = [(n, r) for _, n, r in independent]
    for key in ("steps", "schedule", "overlapped"):
        assert total["delay"][key] == sum(n * r["delay"][key] for n, r in runs), key
    for key in ("peak_ingress", "peak_egress"):
        assert total["bandwidth"][key] == max(r["bandwidth"][key] for _, r in runs), key
    schedule = total["delay"]["schedule"]
    assert total["utilization_schedule"] == pytest.approx(total["macs"] / (64 * schedule))


def test_identical_layers_are_analyzed_once(tmp_path, monkeypatch):
    data = {"layers": [dict(SMALL_NETWORK["layers"][2], name=f"fc{n}") for n in range(3)]}
    network = load_network(write_yaml(tmp_path, "same", data))
    calls = []
    import tenet.explore.network as module

    real = module.analyze_layer

    def counting(*args, **kwargs):
        calls.append(args[0].name)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "analyze_layer", counting)
    result = analyze_network(network, load_arch(ARCHS / "systolic-8x8.yaml"), DATAFLOWS).to_dict()
    assert calls == ["fc0"]
    assert [row["layer"] for row in result["layers"]] == ["fc0", "fc1", "fc2"]
    assert result["total"]["macs"] == 3 * 4 * 10 * 12


def test_local_processes_give_the_same_result(small_network):
    network = load_network(small_network)
    arch = load_arch(ARCHS / "systolic-8x8.yaml")
    inline = analyze_network(network, arch, DATAFLOWS)
    parallel = analyze_network(network, arch, DATAFLOWS, jobs=2)
    assert parallel == inline and parallel.to_dict() == inline.to_dict()


def test_a_journal_skips_finished_layers(small_network, tmp_path, monkeypatch):
    network = load_network(small_network)
    arch = load_arch(ARCHS / "systolic-8x8.yaml")
    journal = tmp_path / "layers.jsonl"
    first = analyze_network(network, arch, DATAFLOWS, journal=journal).to_dict()
    assert len(journal.read_text().splitlines()) == 4

    def fail(*args, **kwargs):
        raise AssertionError("a journalled layer was analyzed again")

    import tenet.explore.network as module

    monkeypatch.setattr(module, "analyze_layer", fail)
    assert analyze_network(network, arch, DATAFLOWS, journal=journal).to_dict() == first


def test_layer_dataflow_overrides_the_command_line(tmp_path):
    layers = [dict(SMALL_NETWORK["layers"][2], dataflow="ws-systolic-8x8")]
    network = load_network(write_yaml(tmp_path, "own", {"layers": layers}))
    result = analyze_network(network, load_arch(ARCHS / "systolic-8x8.yaml"), "os-systolic-8x8")
    assert result.to_dict()["layers"][0]["dataflow"] == "ws-systolic-8x8"


# --- the command line --------------------------------------------------------------------------


def test_cli_json_table_and_csv(small_network, independent, capsys):
    args = ["analyze", "-n", small_network, "-a", "systolic-8x8", "-d", DATAFLOWS]
    rc, out, err = run_cli([*args, "--format", "json"], capsys)
    assert rc == 0, err
    result = json.loads(out)
    assert set(result) >= {"network", "layers", "total"}
    assert result["network"] == "small"
    assert result["total"]["macs"] == sum(n * r["macs"] for _, n, r in independent)
    rc, out, err = run_cli(args, capsys)
    assert rc == 0, err
    assert "total" in out and "c1" in out and "attn" in out
    rc, out, err = run_cli([*args, "--format", "csv"], capsys)
    assert rc == 0, err
    lines = out.strip().splitlines()
    assert len(lines) == 1 + 4 + 1
    assert lines[-1].startswith("total,")


def test_cli_preset_by_name(capsys):
    rc, out, err = run_cli(
        ["analyze", "-n", "bert-base", "-a", "systolic-8x8", "-d", "os-systolic-8x8"]
        + ["--format", "json"],
        capsys,
    )
    assert rc == 0, err
    assert [row["layer"] for row in json.loads(out)["layers"]][:3] == ["q_proj", "k_proj", "v_proj"]


def test_presets_lists_networks(capsys):
    rc, out, _ = run_cli(["presets"], capsys)
    assert rc == 0
    listed = out.split("networks:")[1].split()
    assert {"alexnet", "vgg16", "resnet50", "mobilenet", "bert-base"} <= set(listed)


@pytest.mark.parametrize(
    "extra, message",
    [
        (["-w", "gemm"], "not both"),
        (["--set", "M=4"], "--set"),
        (["--bound"], "--bound"),
    ],
)
def test_cli_rejects_flags_that_do_not_apply(small_network, extra, message, capsys):
    args = ["analyze", "-n", small_network, "-a", "systolic-8x8", "-d", DATAFLOWS, *extra]
    rc, out, err = run_cli(args, capsys)
    assert rc == 2 and out == ""
    assert message in err and "Traceback" not in err


# --- errors ------------------------------------------------------------------------------------


def layer_with(**changes) -> dict:
    layer = {"name": "l", "workload": "gemm", "params": {"M": 4, "N": 4, "K": 4}}
    layer.update(changes)
    return {k: v for k, v in layer.items() if v is not None}


@pytest.mark.parametrize(
    "layers, key, words",
    [
        ([layer_with(colour="red")], "layers[0].colour", "unknown key"),
        ([layer_with(params={"Z": 3})], "layers[0].params.Z", "no parameter 'Z'"),
        ([layer_with(params={"M": 0})], "layers[0].params.M", "positive"),
        ([layer_with(count=0)], "layers[0].count", "positive"),
        ([layer_with(stride=[1, 2, 3])], "layers[0].stride", "[x, y]"),
        ([layer_with(stride=2)], "layers[0] (l)", "convolution"),
        ([layer_with(workload="no-such")], "layers[0].workload", "no workload preset"),
        ([layer_with(name=None)], "layers[0].name", "missing"),
        ([layer_with(), layer_with()], "layers[1].name", "already used"),
        ([layer_with(dataflow="nope")], "layers[0] (l)", "no dataflow 'nope'"),
        ([], "layers", "non-empty"),
    ],
)
def test_bad_network_files_name_file_and_key(tmp_path, layers, key, words):
    path = write_yaml(tmp_path, "bad", {"name": "bad", "layers": layers})
    with pytest.raises(InputError) as info:
        load_network(path)
    assert info.value.source == str(path)
    assert info.value.key == key
    assert words in info.value.message


def test_dataflow_outside_the_array_names_the_layer(capsys):
    # eyeriss-8x8 puts filter row ry on PE row ry: AlexNet's 11x11 conv1 needs rows 8..10.
    rc, out, err = run_cli(
        ["analyze", "-n", "alexnet", "-a", "systolic-8x8", "-d", "eyeriss-8x8,os-systolic-8x8"],
        capsys,
    )
    assert rc == 2 and out == ""
    assert "alexnet.yaml: layers[0] (conv1)" in err
    assert "outside the array" in err and "PE[8, 0]" in err


def test_workload_without_the_dataflow_names_the_layer(capsys):
    rc, _, err = run_cli(["analyze", "-n", "alexnet", "-a", "systolic-8x8", "-d", "os-8x8"], capsys)
    assert rc == 2
    assert "layers[5] (fc6)" in err and "no dataflow 'os-8x8'" in err


def test_unknown_network_lists_presets(capsys):
    rc, _, err = run_cli(["analyze", "-n", "lenet", "-a", "systolic-8x8", "-d", "x"], capsys)
    assert rc == 2 and "alexnet" in err and "lenet" in err


def test_missing_dataflow_is_an_input_error(small_network):
    with pytest.raises(InputError, match="no dataflow"):
        analyze_network(load_network(small_network), load_arch(ARCHS / "systolic-8x8.yaml"))


# --- ONNX import -------------------------------------------------------------------------------


def tiny_model(tmp_path, batch_dim=1):
    """Conv (stride 2, pad 1) -> Relu -> depthwise Conv -> grouped dilated Conv -> Flatten ->
    Gemm (transB); a batched MatMul and a MatMul with a shared weight matrix beside it."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    def value(name, dims):
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)

    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["y1"], name="stem", strides=[2, 2], pads=[1] * 4),
        helper.make_node("Relu", ["y1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2"], ["y2"], name="dw", group=8, pads=[1] * 4),
        helper.make_node(
            "Conv", ["y2", "w3"], ["y3"], name="grouped", group=2, dilations=[2, 2], pads=[2] * 4
        ),
        helper.make_node("Flatten", ["y3"], ["f"]),
        helper.make_node("Gemm", ["f", "wfc"], ["logits"], name="fc", transB=1),
        helper.make_node("MatMul", ["qa", "qb"], ["scores"], name="bmm"),
        helper.make_node("MatMul", ["p", "wp"], ["proj"], name="proj"),
    ]
    inputs = [
        value("x", [batch_dim, 3, 32, 32]),
        value("w1", [8, 3, 3, 3]),
        value("w2", [8, 1, 3, 3]),
        value("w3", [16, 4, 3, 3]),
        value("wfc", [10, 16 * 16 * 16]),
        value("qa", [2, 4, 5]),
        value("qb", [2, 5, 6]),
        value("p", [3, 4, 5]),
        value("wp", [5, 7]),
    ]
    outputs = [value("logits", None), value("scores", None), value("proj", None)]
    graph = helper.make_graph(nodes, "tiny", inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    path = tmp_path / "tiny.onnx"
    onnx.save(model, str(path))
    return path


def test_onnx_layers_have_the_models_shapes(tmp_path):
    network = load_network(tiny_model(tmp_path))
    layers = {layer.name: layer for layer in network.layers}
    assert list(layers) == ["stem", "dw", "grouped", "fc", "bmm", "proj"]
    stem_out = conv_output(32, 3, stride=2, pad=1)
    assert stem_out == 16
    assert (layers["stem"].workload_ref, layers["stem"].count) == ("conv2d", 1)
    assert layers["stem"].params == {"K": 8, "C": 3, "OX": 16, "OY": 16, "RX": 3, "RY": 3}
    assert layers["stem"].stride == (2, 2)
    dw_out = conv_output(stem_out, 3, pad=1)
    assert (layers["dw"].workload_ref, layers["dw"].count) == ("depthwise-conv", 1)
    assert layers["dw"].params == {"C": 8, "OX": dw_out, "OY": dw_out, "RX": 3, "RY": 3}
    grouped_out = conv_output(dw_out, 3, pad=2, dilation=2)
    assert (layers["grouped"].workload_ref, layers["grouped"].count) == ("conv2d", 2)
    assert layers["grouped"].params == {
        "K": 16 // 2,
        "C": 8 // 2,
        "OX": grouped_out,
        "OY": grouped_out,
        "RX": 3,
        "RY": 3,
    }
    assert layers["grouped"].dilation == (2, 2)
    assert (layers["fc"].workload_ref, layers["fc"].params) == (
        "gemm",
        {"M": 1, "N": 10, "K": 16 * grouped_out * grouped_out},
    )
    assert (layers["bmm"].workload_ref, layers["bmm"].params) == (
        "batched-gemm",
        {"B": 2, "M": 4, "N": 6, "K": 5},
    )
    assert (layers["proj"].workload_ref, layers["proj"].params) == (
        "gemm",
        {"M": 3 * 4, "N": 7, "K": 5},
    )
    assert "Flatten x1" in network.notes[0] and "Relu x1" in network.notes[0]


def test_onnx_batch_becomes_runs(tmp_path):
    network = load_network(tiny_model(tmp_path, batch_dim=4))
    runs = {layer.name: layer.count for layer in network.layers}
    assert runs["stem"] == 4 and runs["dw"] == 4 and runs["grouped"] == 4 * 2


def test_onnx_network_analyzes_end_to_end(tmp_path, capsys):
    path = tiny_model(tmp_path)
    rc, out, err = run_cli(
        ["analyze", "-n", path, "-a", "systolic-8x8", "-d", DATAFLOWS, "--format", "json"], capsys
    )
    assert rc == 0, err
    macs = (
        8 * 3 * 16 * 16 * 9  # stem
        + 8 * 16 * 16 * 9  # depthwise
        + 2 * (8 * 4 * 16 * 16 * 9)  # two groups
        + 10 * 4096  # fc
        + 2 * 4 * 6 * 5  # bmm
        + 12 * 7 * 5  # proj
    )
    assert json.loads(out)["total"]["macs"] == macs


def test_onnx_symbolic_dimension_is_an_input_error(tmp_path):
    path = tiny_model(tmp_path, batch_dim="N")
    with pytest.raises(InputError) as info:
        load_network(path)
    assert info.value.key == "stem" and "'N'" in info.value.message


def test_onnx_garbage_file_is_an_input_error(tmp_path, capsys):
    pytest.importorskip("onnx")
    path = tmp_path / "broken.onnx"
    path.write_bytes(b"\x08\x07garbage that is not a protobuf model\xff\xff")
    rc, out, err = run_cli(["analyze", "-n", path, "-a", "systolic-8x8", "-d", "x"], capsys)
    assert rc == 2 and out == "" and str(path) in err


def test_onnx_missing_package_says_how_to_install(tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "onnx", None)
    path = tmp_path / "model.onnx"
    path.write_bytes(b"")
    with pytest.raises(InputError, match=r"tenet-dataflow\[onnx\]"):
        load_network(path)


def test_a_journal_never_answers_for_an_edited_file(tmp_path):
    """After the layer's dataflow file is edited (all of GEMM 8³ on one PE, one instance per
    step: 512 steps) or the arch loses its links, a rerun on the same journal gives what a
    run without the journal gives, not the old numbers."""
    flow = write_yaml(
        tmp_path,
        "flow",
        {
            "name": "os",
            "space": "{ S[i,j,k] -> PE[i % 8, j % 8] }",
            "time": "{ S[i,j,k] -> T[floor(i/8), floor(j/8), i % 8 + j % 8 + k] }",
        },
    )
    layers = [{"name": "a", "workload": "gemm", "params": {"M": 8, "N": 8, "K": 8}}]
    network = load_network(
        write_yaml(tmp_path, "net", {"layers": [{**layers[0], "dataflow": str(flow)}]})
    )
    arch = load_arch(ARCHS / "systolic-8x8.yaml")
    journal = tmp_path / "layers.jsonl"
    before = analyze_network(network, arch, journal=journal).to_dict()
    write_yaml(
        tmp_path,
        "flow",
        {"name": "os", "space": "{ S[i,j,k] -> PE[0, 0] }", "time": "{ S[i,j,k] -> T[i, j, k] }"},
    )
    after = analyze_network(network, arch, journal=journal).to_dict()
    assert after == analyze_network(network, arch).to_dict()
    assert after["layers"][0]["time_steps"] == 512 != before["layers"][0]["time_steps"]
    import dataclasses

    bare = dataclasses.replace(arch, links=[])
    assert (
        analyze_network(network, bare, journal=journal).to_dict()
        == analyze_network(network, bare).to_dict()
    )


def test_a_loop_nest_as_layer_workload_is_refused(tmp_path, capsys, monkeypatch):
    """A layer whose workload is a Python loop nest: one line naming the network file and
    layers[0].workload, exit 2."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.py").write_text("def k(A, B):\n    for i in range(4):\n        B[i] = A[i]\n")
    net = write_yaml(tmp_path, "n", {"layers": [{"name": "a", "workload": "k.py"}]})
    rc, out, err = run_cli(
        ["analyze", "-n", net, "-a", "systolic-8x8", "-d", "os-systolic-8x8"], capsys
    )
    assert rc == 2 and not out
    assert len(err.strip().splitlines()) == 1
    assert "layers[0].workload" in err and "loop nest" in err and str(net) in err
