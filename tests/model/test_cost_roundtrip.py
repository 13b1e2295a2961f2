"""A cost read back from a journal is the cost counted afresh, exactly: `Cost.to_exact()`
keeps the action counts (lengths as fractions), `rebuild_cost` prices them again, and
`Analysis.from_dict` and `analyze -n --journal` use them."""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction

import pytest

from tenet import analyze, load_arch, load_dataflow, load_workload
from tenet.errors import InputError
from tenet.explore.network import analyze_network, load_network
from tenet.model.cost import rebuild_cost
from tenet.model.metrics import Analysis

from ..conftest import WORKLOADS
from ..helpers import write_yaml
from .test_cost import hand_components

#: An 8x8 array whose only link is diagonal: a word forwarded on it travels √2 pitches, a
#: length the JSON can only give as a float.
DIAGONAL_ARCH = {
    "name": "diag",
    "pe": {"shape": [8, 8]},
    "interconnect": [{"relation": "{ PE[i,j] -> PE[i-1,j-1] }"}],
    "memory": {"word_bits": 16, "bandwidth_bits": 64, "avg_latency": 16},
    "technology": {"node_nm": 45},
    "levels": [
        {"name": "GLB", "capacity": 100, "bandwidth_gbps": 100},
        {"name": "DRAM", "capacity": "1GiB", "bandwidth_gbps": 10},
    ],
}

#: B[k,j] is used by PE(i, i+j) at step i+k for every i: PE(i+1, i+1+j) takes it from
#: PE(i, i+j) one step later, over the diagonal link.
SKEW = {
    "name": "skew",
    "space": "{ S[i,j,k] -> PE[i, i + j] }",
    "time": "{ S[i,j,k] -> T[i + k] }",
    "tiles": {"GLB": 1},
}


@pytest.fixture
def diagonal(tmp_path):
    arch = load_arch(write_yaml(tmp_path, "diag", DIAGONAL_ARCH))
    dataflow = load_dataflow(write_yaml(tmp_path, "skew", SKEW))
    workload = load_workload(WORKLOADS / "gemm" / "workload.yaml", {"M": 4, "N": 4, "K": 3})
    return workload, arch, dataflow


def test_exact_counts_rebuild_the_cost(diagonal):
    workload, arch, dataflow = diagonal
    result = analyze(workload, arch, dataflow)
    # By hand: the 4·3 = 12 elements of B each go down the diagonal from PE row 0 to row 3,
    # 3 hops each: 36 hops of √2 pitches, √2 rounded to 12 decimals.
    assert result.cost.actions["B"].link_register_writes == 36
    assert result.cost.actions["B"].forward_pitches == 36 * Fraction("1.414213562373")
    exact = json.loads(json.dumps(result.cost.to_exact()))  # through JSON, as a journal
    assert exact["actions"]["B"]["forward_pitches"] == [
        (36 * Fraction("1.414213562373")).numerator,
        (36 * Fraction("1.414213562373")).denominator,
    ]
    # The JSON float of that length is not the length: the exact form is needed.
    float_length = result.to_dict()["cost"]["actions"]["B"]["forward_pitches"]
    assert Fraction(float_length) != 36 * Fraction("1.414213562373")
    rebuilt = rebuild_cost(exact, result.macs, arch)
    assert rebuilt == result.cost
    # DRAM words: the GLB level's reads + writes (12 + 12 of A and B in, 16 of C out).
    assert exact["dram_words"] == result.dram_words() == 12 + 12 + 16


def test_from_dict_reads_the_cost_back(diagonal):
    workload, arch, dataflow = diagonal
    fresh = analyze(workload, arch, dataflow)
    data = json.loads(json.dumps(fresh.to_dict()))
    exact = json.loads(json.dumps(fresh.cost.to_exact()))
    back = Analysis.from_dict(data, arch, fresh.stamps, exact_cost=exact)
    assert back.cost == fresh.cost
    assert back.levels == fresh.levels
    assert back.to_dict() == fresh.to_dict()
    # Without the exact counts there is no cost (the floats cannot give it exactly).
    assert Analysis.from_dict(data, arch, fresh.stamps).cost is None


def test_from_dict_rejects_other_components(diagonal):
    workload, arch, dataflow = diagonal
    fresh = analyze(workload, arch, dataflow)
    other = dataclasses.replace(arch, components=hand_components())
    with pytest.raises(ValueError, match="does not follow from its action counts"):
        Analysis.from_dict(fresh.to_dict(), other, fresh.stamps, exact_cost=fresh.cost.to_exact())


def network_file(tmp_path):
    write_yaml(tmp_path, "skew", SKEW)
    layers = [
        {
            "name": "a",
            "workload": "gemm",
            "params": {"M": 4, "N": 4, "K": 3},
            "dataflow": "skew.yaml",
        },
        {
            "name": "b",
            "workload": "gemm",
            "params": {"M": 3, "N": 5, "K": 2},
            "dataflow": "skew.yaml",
            "count": 2,
        },
    ]
    return load_network(write_yaml(tmp_path, "net", {"name": "net", "layers": layers}))


def test_a_resumed_layer_keeps_its_cost_and_levels(tmp_path, monkeypatch):
    network = network_file(tmp_path)
    arch = load_arch(write_yaml(tmp_path, "diag", DIAGONAL_ARCH))
    fresh = analyze_network(network, arch)
    journal = tmp_path / "layers.jsonl"
    analyze_network(network, arch, journal=journal)

    def fail(*args, **kwargs):
        raise AssertionError("a journalled layer was analyzed again")

    import tenet.explore.network as module

    monkeypatch.setattr(module, "analyze_layer", fail)
    resumed = analyze_network(network, arch, journal=journal)
    for again, first in zip(resumed.layers, fresh.layers):
        assert again.analysis.cost is not None and again.analysis.cost == first.analysis.cost
        assert again.analysis.levels and again.analysis.levels == first.analysis.levels
    assert resumed.total == fresh.total and resumed.total.cost is not None
    assert resumed.to_dict() == fresh.to_dict()


def test_a_journal_without_exact_costs_is_rejected(tmp_path):
    network = network_file(tmp_path)
    arch = load_arch(write_yaml(tmp_path, "diag", DIAGONAL_ARCH))
    journal = tmp_path / "layers.jsonl"
    analyze_network(network, arch, journal=journal)
    lines = []
    for line in journal.read_text().splitlines():  # as a journal of an older tenet
        entry = json.loads(line)
        lines.append(json.dumps(_drop_key(entry, "cost", "stamps")))
    journal.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match="no exact cost.*delete the journal"):
        analyze_network(network, arch, journal=journal)


def _drop_key(entry, key: str, beside: str):
    """The journal entry with `key` removed from the dict that holds `beside`."""
    if isinstance(entry, dict):
        if beside in entry:
            return {k: v for k, v in entry.items() if k != key}
        return {k: _drop_key(v, key, beside) for k, v in entry.items()}
    if isinstance(entry, list):
        return [_drop_key(v, key, beside) for v in entry]
    return entry


def test_a_journal_of_an_arch_without_components_is_not_used(tmp_path):
    """The same arch file, given components after the journal was written: the layer keys
    hold a hash of the loaded arch, so the layers are counted again, with their cost, as a
    run without the journal counts them."""
    network = network_file(tmp_path)
    plain = {k: v for k, v in DIAGONAL_ARCH.items() if k != "technology"}
    journal = tmp_path / "layers.jsonl"
    analyze_network(network, load_arch(write_yaml(tmp_path, "diag", plain)), journal=journal)
    arch = load_arch(write_yaml(tmp_path, "diag", DIAGONAL_ARCH))
    again = analyze_network(network, arch, journal=journal).to_dict()
    assert again == analyze_network(network, arch).to_dict()
    assert "cost" in again["layers"][0]
