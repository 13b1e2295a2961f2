"""`tenet compare` shows each memory level's traffic (docs/levels.md) when the results have
levels; the expected words are counted by hand below."""

from __future__ import annotations

from ..helpers import run_cli, write_yaml


def arch(name: str, glb_words: int) -> dict:
    return {
        "name": name,
        "pe": {"shape": [8, 8]},
        "interconnect": [
            {"relation": "{ PE[i,j] -> PE[i-1,j] }"},
            {"relation": "{ PE[i,j] -> PE[i,j-1] }"},
        ],
        "memory": {"word_bits": 16, "bandwidth_bits": 64, "avg_latency": 16},
        "levels": [
            {"name": "GLB", "capacity": glb_words, "double_buffered": False},
            {"name": "DRAM", "capacity": "1GiB", "bandwidth_gbps": 10},
        ],
    }


def row(out: str, label: str) -> list[str]:
    line = next(line for line in out.splitlines() if line.strip().startswith(label))
    return line.strip().removeprefix(label).split("  ")


def cells(out: str, label: str) -> list[str]:
    return [c.strip() for c in row(out, label) if c.strip()]


def test_compare_shows_level_rows(tmp_path, capsys):
    big = write_yaml(tmp_path, "big", arch("big", 600))
    small = write_yaml(tmp_path, "small", arch("small", 100))
    args = ["compare", "-w", "gemm", "-d", "os-systolic-8x8", "-a", big, "-a", small]
    args += ["--set", "M=16", "--set", "N=16", "--set", "K=8", "--tile", "GLB=2"]
    rc, out, _ = run_cli(args, capsys)
    assert rc == 0
    # One GLB tile per 8x8 block of C (2x2 blocks, row-major). A's block of 8 rows stays
    # while the block column moves: 16·8 = 128 reads; B's 8 columns enter with each of the
    # 4 tiles: 4·8·8 = 256; C is written first (no reads), each word leaves once: 256.
    # A tile holds 8·8 of A, 8·8 of B and 8·8 of C: 192 words.
    assert cells(out, "GLB reads (words)") == ["384", "384"]
    assert cells(out, "GLB writes (words)") == ["256", "256"]
    assert cells(out, "GLB capacity needed (words)") == ["192", "192 (!)"]
    assert cells(out, "GLB fits") == ["yes", "no"]


def test_no_level_rows_without_levels(capsys):
    args = ["compare", "-w", "gemm", "-d", "os-systolic-8x8", "-a", "systolic-8x8"]
    args += ["-a", "systolic-8x8", "--set", "M=8", "--set", "N=8", "--set", "K=4"]
    rc, out, _ = run_cli(args, capsys)
    assert rc == 0 and "fits" not in out and "capacity needed" not in out
