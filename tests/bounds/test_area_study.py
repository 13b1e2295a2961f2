"""The buffer/MAC area split with component areas from the library (bounds and fuse), and
the Orojenesis GF100-like design study (docs/bounds.md)."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest

from tenet.bounds.snowcat import area_constants, area_split

from ..helpers import run_cli, write_yaml

# The library at 40 nm for 16-bit words, by hand (tenet/model/data/technology.yaml):
# MAC = Aladdin 32-bit multiplier 6350 um2 x (16/32)^2 + 32-bit adder 278 um2 x 16/32, at its
# own node (40 nm): 1587.5 + 139 = 1726.5 um2.
MAC_40NM_UM2 = 1726.5
# SRAM byte = 3.1558 um2 at 45 nm x Stillmaker-Baas area factor 45 -> 40 nm, 40 nm being
# 8/13 of the way from 32 nm (0.46) to 45 nm (1): 0.46 + 8/13 x 0.54.
BYTE_40NM_UM2 = float(Fraction("3.1558") * (Fraction("0.46") + Fraction(8, 13) * Fraction("0.54")))


def best_split_by_hand(front, word_bytes, area_mm2, mac, byte, bandwidth, clock):
    """The split maximizing min(2 * MACs * clock, OI * bandwidth), written out again."""
    best = None
    for p in front:
        buffer_um2 = p["buffer"] * word_bytes * byte
        if buffer_um2 >= area_mm2 * 1e6:
            break
        macs = math.floor((area_mm2 * 1e6 - buffer_um2) / mac)
        gops = min(2 * macs * clock, p["oi"] * bandwidth)
        if best is None or gops > best[2]:
            best = (p["buffer"], macs, gops)
    return best


def test_library_area_constants_by_hand():
    constants = area_constants(None, 40, 16)
    assert constants["mac_area_um2"]["value"] == pytest.approx(MAC_40NM_UM2, rel=1e-12)
    assert constants["byte_area_um2"]["value"] == pytest.approx(BYTE_40NM_UM2, rel=1e-12)
    # Given values override the library; their source is the option's name (the command
    # line passes its flags).
    given = area_constants(None, 40, 16, mac_area_um2=500.0, byte_area_um2=0.5)
    assert given["mac_area_um2"] == {"value": 500.0, "unit": "um2", "source": "mac_area_um2"}
    flagged = area_constants(None, 40, 16, 500.0, 0.5, given=("--mac-area-um2", "--byte-area-um2"))
    assert flagged["mac_area_um2"] == {"value": 500.0, "unit": "um2", "source": "--mac-area-um2"}
    assert area_constants(None, None, 16) is None


def test_area_split_with_library_constants_by_hand():
    # 1 mm2; a 4,096-word (8 KiB) buffer costs 8192 x 2.50036 = 20,483 um2, leaving
    # 979,517 um2 = 567 MACs (x 1726.5 = 978,925.5); compute 2 x 567 x 1 GHz = 1134 GOPS,
    # memory 40 OPS/B x 10 GB/s = 400 GOPS: 400. The 64-word point: 999,680 um2 left,
    # 579 MACs, min(1158, 2 x 10) = 20.
    front = [{"buffer": 64, "oi": 2.0}, {"buffer": 4096, "oi": 40.0}]
    split = area_split(front, 2, 1.0, MAC_40NM_UM2, BYTE_40NM_UM2, 10.0, 1.0)
    assert split["best"]["buffer"] == 4096
    assert split["best"]["macs"] == 567
    assert split["best"]["gops"] == pytest.approx(400.0)
    assert split["curve"][0]["macs"] == 579


def test_bounds_takes_areas_from_technology(capsys):
    args = ["bounds", "--einsum", "O[m,n] += A[m,k] * W[k,n]", "--shape", "m=64,k=64,n=64"]
    args += ["--technology", "40", "--area-mm2", "2", "--bandwidth-gbps", "20", "--format", "json"]
    rc, out, _ = run_cli(args, capsys)
    assert rc == 0
    report = json.loads(out)
    split = report["area_split"]
    assert split["mac_area_um2"]["value"] == pytest.approx(MAC_40NM_UM2)
    assert split["byte_area_um2"]["value"] == pytest.approx(BYTE_40NM_UM2)
    buffer, macs, gops = best_split_by_hand(
        report["pareto"], 2, 2, MAC_40NM_UM2, BYTE_40NM_UM2, 20, 1.0
    )
    assert (split["best"]["buffer"], split["best"]["macs"]) == (buffer, macs)
    assert split["best"]["gops"] == pytest.approx(gops)


def test_bounds_area_flags_override_technology(capsys):
    args = ["bounds", "--einsum", "O[m,n] += A[m,k] * W[k,n]", "--shape", "m=16,k=16,n=16"]
    args += ["--technology", "40", "--mac-area-um2", "100", "--area-mm2", "1"]
    args += ["--bandwidth-gbps", "20", "--format", "json"]
    rc, out, _ = run_cli(args, capsys)
    split = json.loads(out)["area_split"]
    assert rc == 0 and split["mac_area_um2"]["value"] == 100
    assert split["byte_area_um2"]["value"] == pytest.approx(BYTE_40NM_UM2)


def test_bounds_takes_areas_from_an_arch_with_technology(tmp_path, capsys):
    """An -a arch with technology: and no levels gives the areas (no hierarchy report)."""
    arch = write_yaml(tmp_path, "chip", {"pe": {"shape": [2, 2]}, "technology": {"node_nm": 40}})
    args = ["bounds", "--einsum", "O[m,n] += A[m,k] * W[k,n]", "--shape", "m=16,k=16,n=16"]
    args += ["-a", arch, "--area-mm2", "1", "--bandwidth-gbps", "20", "--format", "json"]
    rc, out, _ = run_cli(args, capsys)
    report = json.loads(out)
    assert rc == 0 and "hierarchy" not in report
    # scratchpad area / size = the fit's area per byte, whatever the size (area ∝ size).
    assert report["area_split"]["byte_area_um2"]["value"] == pytest.approx(BYTE_40NM_UM2)
    assert report["area_split"]["mac_area_um2"]["value"] == pytest.approx(MAC_40NM_UM2)


def test_technology_flag_wins_over_the_arch(tmp_path, capsys):
    arch = write_yaml(tmp_path, "chip", {"pe": {"shape": [2, 2]}, "technology": {"node_nm": 16}})
    args = ["bounds", "--einsum", "O[m,n] += A[m,k] * W[k,n]", "--shape", "m=16,k=16,n=16"]
    args += ["-a", arch, "--technology", "40", "--area-mm2", "1", "--bandwidth-gbps", "20"]
    rc, out, _ = run_cli([*args, "--format", "json"], capsys)
    assert rc == 0
    assert json.loads(out)["area_split"]["mac_area_um2"]["value"] == pytest.approx(MAC_40NM_UM2)


def fuse_split(capsys, workload_args):
    args = ["fuse", *workload_args, "--technology", "40", "--area-mm2", "529"]
    args += ["--clock-ghz", "0.7", "--bandwidth-gbps", "149", "--format", "json"]
    rc, out, err = run_cli(args, capsys)
    assert rc == 0, err
    return json.loads(out)


def check_fuse_split(report):
    split = report["area_split"]
    word_bytes = report["word_bits"] / 8
    for name, key in (("unfused", "unfused"), ("fused", split["fused_front"])):
        buffer, macs, gops = best_split_by_hand(
            report[key], word_bytes, 529, MAC_40NM_UM2, BYTE_40NM_UM2, 149, 0.7
        )
        best = split[name]["best"]
        assert (best["buffer"], best["macs"]) == (buffer, macs)
        assert best["gops"] == pytest.approx(gops)
    unfused, fused = split["unfused"]["best"], split["fused"]["best"]
    assert split["buffer_area_ratio"] == pytest.approx(
        fused["buffer_share"] / unfused["buffer_share"]
    )
    assert split["throughput_ratio"] == pytest.approx(fused["gops"] / unfused["gops"])
    return split


def test_fuse_area_split_small_chain(capsys):
    """A small FFN (fast): each design's best split recomputed from its front."""
    check_fuse_split(
        fuse_split(
            capsys, ["-w", "gpt3-ffn", "--set", "TOKENS=64", "--set", "D=256", "--set", "F=1024"]
        )
    )


def test_fuse_area_flags_need_area(capsys):
    rc, _, err = run_cli(["fuse", "-w", "gpt3-ffn", "--technology", "40"], capsys)
    assert rc == 2 and "--area-mm2" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_gf100_gpt3_block_study(capsys):
    """Orojenesis (ISCA 2024) design study: GF100-like chip (40 nm, 529 mm2, 700 MHz,
    149 GB/s), GPT-3 6.7B block. The paper: fused design 60% less buffer area, 2.4x the
    throughput. Ours (docs/bounds.md): same direction, within a loose band of the paper."""
    split = check_fuse_split(fuse_split(capsys, ["-w", "gpt3-6.7b-block"]))
    assert split["fused_front"] == "best_segmentation"
    assert 0.2 <= split["buffer_area_ratio"] <= 0.7  # paper 0.4
    assert 1.5 <= split["throughput_ratio"] <= 3.5  # paper 2.4
