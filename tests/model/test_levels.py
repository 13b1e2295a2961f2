"""The traffic of the memory levels (docs/levels.md) against an independent enumeration.

Each case lists its instances with plain Python loops over its loop nest, computes each
instance's time stamp and the elements it reads and writes with Python arithmetic (no isl),
and applies the rule of docs/levels.md literally: tiles are the distinct prefixes of the
used stamps in lexicographic order; an element enters when it is in F(t) and not in F(prev);
an entry is a read unless it is the element's first entry and its first access is a write;
an exit (not in F(next), or the last tile) writes back when some tile of the stay, from its
entry to that exit, wrote the element; capacity is max_t Σ_X |F_X(t)|.
"""

from __future__ import annotations

import itertools
from collections import defaultdict

import pytest

from tenet import analyze, simulate
from tests.helpers import load_all, run_cli, write_yaml

# --- the independent reference ---------------------------------------------------------------


def rule(events, depth: int) -> dict:
    """events: (stamp tuple, [(X, element) read], [(X, element) written]) per instance.
    Returns {"tiles", "capacity", "tensors": {X: (reads, writes)}} by the rule, literally."""
    tiles = sorted({stamp[:depth] for stamp, _, _ in events})
    footprint = defaultdict(set)  # (tile, X) -> elements
    written = defaultdict(set)  # (tile, X) -> elements written in the tile
    accesses = defaultdict(list)  # (X, element) -> [(stamp, order)], order 0 read, 1 write
    tensors = []
    for stamp, reads, writes in events:
        tile = stamp[:depth]
        for x, e in reads:
            footprint[tile, x].add(e)
            accesses[x, e].append((stamp, 0))
        for x, e in writes:
            footprint[tile, x].add(e)
            written[tile, x].add(e)
            accesses[x, e].append((stamp, 1))
        for x, _ in reads + writes:
            if x not in tensors:
                tensors.append(x)
    # the first access of an element: the earliest stamp; at that stamp a read comes first
    write_first = {key for key, seen in accesses.items() if min(seen)[1] == 1}
    out = {}
    for x in tensors:
        reads = writes = 0
        for n, tile in enumerate(tiles):
            here = footprint[tile, x]
            prev = footprint[tiles[n - 1], x] if n else set()
            nxt = footprint[tiles[n + 1], x] if n + 1 < len(tiles) else set()
            for e in here - prev:
                first_tile = min(s for s, _ in accesses[x, e])[:depth]
                if not ((x, e) in write_first and first_tile == tile):
                    reads += 1
            for e in here - nxt:
                start = n  # the stay's entry: walk back while the element stays
                while start > 0 and e in footprint[tiles[start - 1], x]:
                    start -= 1
                if any(e in written[tiles[m], x] for m in range(start, n + 1)):
                    writes += 1
        out[x] = (reads, writes)
    capacity = max(sum(len(footprint[t, x]) for x in tensors) for t in tiles)
    return {"tiles": len(tiles), "capacity": capacity, "tensors": out}


# --- inputs -----------------------------------------------------------------------------------

BIG = 10**6


def arch_yaml(shape, levels) -> dict:
    """levels: [(name, capacity words)], innermost first; DRAM is added outside."""
    return {
        "name": "arr",
        "pe": {"shape": list(shape)},
        "memory": {"word_bits": 16},
        # single-buffered: these cases count the traffic rule's own capacity (one tile)
        "levels": [{"name": n, "capacity": c, "double_buffered": False} for n, c in levels[:1]]
        + [
            {"name": n, "capacity": c, "bandwidth_gbps": 10, "double_buffered": False}
            for n, c in levels[1:]
        ]
        + [{"name": "DRAM", "capacity": "1GiB", "bandwidth_gbps": 8}],
    }


def load_case(tmp_path, workload: dict, shape, levels, space: str, time: str, tiles: dict):
    w = write_yaml(tmp_path, "w", workload)
    a = write_yaml(tmp_path, "a", arch_yaml(shape, levels))
    d = write_yaml(tmp_path, "d", {"name": "df", "space": space, "time": time, "tiles": tiles})
    return load_all(w, a, d)


def check(inputs, expected: dict[str, dict], with_simulate: bool = True) -> None:
    """analyze (and simulate) give the reference's numbers at every level."""
    results = [analyze(*inputs)]
    if with_simulate:
        results.append(simulate(*inputs))
    for result in results:
        got = {level.name: level for level in result.levels}
        assert set(got) == set(expected)
        for name, ref in expected.items():
            level = got[name]
            assert level.tiles == ref["tiles"], name
            assert level.capacity_needed == ref["capacity"], name
            assert level.capacity_exact
            assert level.tensors == ref["tensors"], name


def gemm_workload(m, n, k) -> dict:
    return {
        "name": "gemm",
        "params": {"M": m, "N": n, "K": k},
        "einsum": "C[i,j] += A[i,k] * B[k,j]",
        "bounds": {"i": "M", "j": "N", "k": "K"},
    }


def gemm_events(m, n, k, stamp):
    return [
        (stamp(i, j, kk), [("A", (i, kk)), ("B", (kk, j))], [("C", (i, j))])
        for i in range(m)
        for j in range(n)
        for kk in range(k)
    ]


# --- the spec's example, by hand ----------------------------------------------------------------


def test_spec_example_16_cubed(tmp_path):
    """16³ GEMM, PE[i%4, j%4], T[i/4, j/4, i%4 + j%4 + k], GLB depth 2. By hand: 16 tiles
    (I, J) in 0..3 x 0..3. A tile holds A[4 rows x 16] = 64, B[16 x 4 cols] = 64, C[4x4] = 16
    words: capacity 144. A changes only when I does (J = 0): 4 x 64 = 256 reads; B changes
    every tile: 16 x 64 = 1,024 reads; each C word lives in one tile, first written there
    (no read) and written back once: 256 writes. transfer = (1280 + 256) x 2 bytes / 8 GB/s
    = 384 ns."""
    inputs = load_case(
        tmp_path,
        gemm_workload(16, 16, 16),
        [4, 4],
        [("GLB", BIG)],
        "{ S[i,j,k] -> PE[i % 4, j % 4] }",
        "{ S[i,j,k] -> T[floor(i/4), floor(j/4), i % 4 + j % 4 + k] }",
        {"GLB": 2},
    )
    level = analyze(*inputs).levels[0]
    assert (level.tiles, level.capacity_needed) == (16, 144)
    assert level.tensors == {"A": (256, 0), "B": (1024, 0), "C": (0, 256)}
    assert (level.reads, level.writes) == (1280, 256)
    assert level.transfer_ns == 384.0
    assert analyze(*inputs).dram_words() == 1536


# --- against the reference ----------------------------------------------------------------------


def test_skewed_gemm_with_remainder_tiles(tmp_path):
    m, n, k = 10, 6, 5  # 10 and 6 are not multiples of 4: the last tiles are partial
    for depth in (1, 2):
        inputs = load_case(
            tmp_path,
            gemm_workload(m, n, k),
            [4, 4],
            [("GLB", BIG)],
            "{ S[i,j,k] -> PE[i % 4, j % 4] }",
            "{ S[i,j,k] -> T[floor(i/4), floor(j/4), i % 4 + j % 4 + k] }",
            {"GLB": depth},
        )
        events = gemm_events(m, n, k, lambda i, j, kk: (i // 4, j // 4, i % 4 + j % 4 + kk))
        check(inputs, {"GLB": rule(events, depth)})


def test_k_outer_weight_stationary_gemm(tmp_path):
    """k blocks outermost, then i blocks: at depth 2 each C row block leaves after its tile
    and comes back in the next k block (partial sums read back, written twice). By hand
    (5x4 C, 2 k blocks): C reads 20 (second k block), writes 40; at depth 1 the tiles are
    the k blocks, both hold all of C, so C stays: 0 reads, 20 writes."""
    m, n, k = 5, 4, 8
    events = gemm_events(m, n, k, lambda i, j, kk: (kk // 4, i // 3, i % 3 + kk % 4 + j))
    for depth, c_traffic in ((1, (0, 20)), (2, (20, 40))):
        inputs = load_case(
            tmp_path,
            gemm_workload(m, n, k),
            [4, 4],
            [("GLB", BIG)],
            "{ S[i,j,k] -> PE[k % 4, j] }",
            "{ S[i,j,k] -> T[floor(k/4), floor(i/3), i % 3 + k % 4 + j] }",
            {"GLB": depth},
        )
        ref = rule(events, depth)
        assert ref["tensors"]["C"] == c_traffic
        check(inputs, {"GLB": ref})


def test_conv1d_overlapping_tiles(tmp_path):
    """O[x] += I[x + r] * W[r]: consecutive x blocks share a halo of I."""
    workload = {
        "name": "conv1d",
        "params": {"X": 11, "R": 3},
        "einsum": "O[x] += I[x + r] * W[r]",
        "bounds": {"x": "X", "r": "R"},
    }
    inputs = load_case(
        tmp_path,
        workload,
        [4],
        [("GLB", BIG)],
        "{ S[x,r] -> PE[x % 4] }",
        "{ S[x,r] -> T[floor(x/4), r] }",
        {"GLB": 1},
    )
    events = [
        ((x // 4, r), [("I", (x + r,)), ("W", (r,))], [("O", (x,))])
        for x in range(11)
        for r in range(3)
    ]
    ref = rule(events, 1)
    assert ref["tensors"]["I"] == (13, 0)  # 6 + 4 + 3: the halo stays, only new words enter
    check(inputs, {"GLB": ref})


def test_conv2d(tmp_path):
    workload = {
        "name": "conv2d",
        "params": {"K": 2, "C": 2, "P": 4, "Q": 3, "R": 3, "S": 2},
        "einsum": "O[k,p,q] += I[c,p+r,q+s] * W[k,c,r,s]",
        "bounds": {"k": "K", "c": "C", "p": "P", "q": "Q", "r": "R", "s": "S"},
    }
    time = "{ S[k,c,p,q,r,s] -> T[floor(p/2), k, c, r, s, p % 2 + q] }"
    events = [
        (
            (p // 2, k, c, r, s, p % 2 + q),
            [("I", (c, p + r, q + s)), ("W", (k, c, r, s))],
            [("O", (k, p, q))],
        )
        for k, c, p, q, r, s in itertools.product(
            range(2), range(2), range(4), range(3), range(3), range(2)
        )
    ]
    for depth in (1, 2, 3):
        inputs = load_case(
            tmp_path,
            workload,
            [2, 3],
            [("GLB", BIG)],
            "{ S[k,c,p,q,r,s] -> PE[p % 2, q] }",
            time,
            {"GLB": depth},
        )
        check(inputs, {"GLB": rule(events, depth)}, with_simulate=depth == 2)


def test_stencil_2d(tmp_path):
    n = 7
    workload = {
        "name": "stencil",
        "params": {"N": n},
        "statements": [
            {
                "domain": "[N] -> { S[i,j] : 1 <= i < N - 1 and 1 <= j < N - 1 }",
                "reads": {
                    "A": [
                        "{ S[i,j] -> A[i,j] }",
                        "{ S[i,j] -> A[i+1,j] }",
                        "{ S[i,j] -> A[i-1,j] }",
                        "{ S[i,j] -> A[i,j-1] }",
                        "{ S[i,j] -> A[i,j+1] }",
                    ]
                },
                "writes": {"B": "{ S[i,j] -> B[i,j] }"},
            }
        ],
    }
    inputs = load_case(
        tmp_path,
        workload,
        [2],
        [("GLB", BIG)],
        "{ S[i,j] -> PE[i % 2] }",
        "{ S[i,j] -> T[floor(i/2), j, i % 2] }",
        {"GLB": 1},
    )
    events = [
        (
            (i // 2, j, i % 2),
            [
                ("A", (i, j)),
                ("A", (i + 1, j)),
                ("A", (i - 1, j)),
                ("A", (i, j - 1)),
                ("A", (i, j + 1)),
            ],
            [("B", (i, j))],
        )
        for i in range(1, n - 1)
        for j in range(1, n - 1)
    ]
    check(inputs, {"GLB": rule(events, 1)})


def test_two_statement_chain(tmp_path):
    """T1 = A·B then D = T1·E, row by row: T1 is produced (first access a write) and consumed."""
    workload = {
        "name": "chain",
        "params": {"M": 3, "K": 2, "N": 3, "L": 2},
        "statements": [
            {
                "domain": "[M,N,K] -> { S1[i,j,k] : 0 <= i < M and 0 <= j < N and 0 <= k < K }",
                "reads": {"A": "{ S1[i,j,k] -> A[i,k] }", "B": "{ S1[i,j,k] -> B[k,j] }"},
                "writes": {"T1": "{ S1[i,j,k] -> T1[i,j] }"},
            },
            {
                "domain": "[M,N,L] -> { S2[i,j,l] : 0 <= i < M and 0 <= j < N and 0 <= l < L }",
                "reads": {"T1": "{ S2[i,j,l] -> T1[i,j] }", "E": "{ S2[i,j,l] -> E[j,l] }"},
                "writes": {"D": "{ S2[i,j,l] -> D[i,l] }"},
            },
        ],
    }
    space = "{ S1[i,j,k] -> PE[j]; S2[i,j,l] -> PE[j] }"
    time = "{ S1[i,j,k] -> T[i, 0, k, j]; S2[i,j,l] -> T[i, 1, l, j] }"
    events = [
        ((i, 0, k, j), [("A", (i, k)), ("B", (k, j))], [("T1", (i, j))])
        for i in range(3)
        for j in range(3)
        for k in range(2)
    ] + [
        ((i, 1, l, j), [("T1", (i, j)), ("E", (j, l))], [("D", (i, l))])
        for i in range(3)
        for j in range(3)
        for l in range(2)
    ]
    for depth in (1, 2, 3):
        inputs = load_case(tmp_path, workload, [3], [("GLB", BIG)], space, time, {"GLB": depth})
        check(inputs, {"GLB": rule(events, depth)}, with_simulate=depth == 2)


def test_triangular_output_also_read(tmp_path):
    """y[i] = y[i] + L[i,j]·x[j] over j <= i: y is read before it is written (its first
    entry is a read), and each y word is revisited by later j blocks."""
    n = 6
    workload = {
        "name": "trmv",
        "params": {"N": n},
        "statements": [
            {
                "domain": "[N] -> { S[i,j] : 0 <= j <= i < N }",
                "reads": {
                    "L": "{ S[i,j] -> L[i,j] }",
                    "x": "{ S[i,j] -> x[j] }",
                    "y": "{ S[i,j] -> y[i] }",
                },
                "writes": {"y": "{ S[i,j] -> y[i] }"},
            }
        ],
    }
    inputs = load_case(
        tmp_path,
        workload,
        [2],
        [("GLB", BIG)],
        "{ S[i,j] -> PE[i % 2] }",
        "{ S[i,j] -> T[floor(j/2), floor(i/2), j % 2, i % 2] }",
        {"GLB": 1},
    )
    events = [
        ((j // 2, i // 2, j % 2, i % 2), [("L", (i, j)), ("x", (j,)), ("y", (i,))], [("y", (i,))])
        for i in range(n)
        for j in range(i + 1)
    ]
    ref = rule(events, 1)
    assert ref["tensors"]["y"][0] >= n  # every y word's first entry is a read
    check(inputs, {"GLB": ref})
    inputs = load_case(
        tmp_path,
        workload,
        [2],
        [("GLB", BIG)],
        "{ S[i,j] -> PE[i % 2] }",
        "{ S[i,j] -> T[floor(j/2), floor(i/2), j % 2, i % 2] }",
        {"GLB": 2},
    )
    check(inputs, {"GLB": rule(events, 2)})


def test_nested_levels_depth_3(tmp_path):
    """Three levels below DRAM with depths 3 >= 2 >= 1: each level's traffic to the one above."""
    m, n, k = 8, 6, 8
    inputs = load_case(
        tmp_path,
        gemm_workload(m, n, k),
        [4, 4],
        [("L0", BIG), ("L1", BIG), ("L2", BIG)],
        "{ S[i,j,k] -> PE[i % 4, j % 4] }",
        "{ S[i,j,k] -> T[floor(k/4), floor(i/4), floor(j/4), i % 4 + j % 4 + k % 4] }",
        {"L0": 3, "L1": 2, "L2": 1},
    )
    events = gemm_events(
        m, n, k, lambda i, j, kk: (kk // 4, i // 4, j // 4, i % 4 + j % 4 + kk % 4)
    )
    check(inputs, {"L0": rule(events, 3), "L1": rule(events, 2), "L2": rule(events, 1)})
    result = analyze(*inputs)
    assert [lv.above for lv in result.levels] == ["L1", "L2", "DRAM"]
    assert result.dram_words() == result.levels[2].reads + result.levels[2].writes


def test_over_capacity_is_reported(tmp_path):
    inputs = load_case(
        tmp_path,
        gemm_workload(16, 16, 16),
        [4, 4],
        [("GLB", 100)],
        "{ S[i,j,k] -> PE[i % 4, j % 4] }",
        "{ S[i,j,k] -> T[floor(i/4), floor(j/4), i % 4 + j % 4 + k] }",
        {"GLB": 2},
    )
    result = analyze(*inputs)
    data = result.to_dict()["levels"][0]
    assert (data["capacity_needed"], data["capacity"], data["fits"]) == (144, 100, False)
    assert any("GLB" in w and "144" in w for w in result.warnings)


# --- bad input ----------------------------------------------------------------------------------


@pytest.fixture
def cli_files(tmp_path):
    w = write_yaml(tmp_path, "w", gemm_workload(8, 8, 8))
    a = write_yaml(tmp_path, "a", arch_yaml([4, 4], [("L0", BIG), ("L1", BIG)]))
    d = write_yaml(
        tmp_path,
        "d",
        {
            "name": "df",
            "space": "{ S[i,j,k] -> PE[i % 4, j % 4] }",
            "time": "{ S[i,j,k] -> T[floor(i/4), floor(j/4), i % 4 + j % 4 + k] }",
        },
    )
    return ["analyze", "-w", w, "-a", a, "-d", d, "--format", "json"]


@pytest.mark.parametrize(
    "flags, words",
    [
        (["--tile", "L0=4"], ["L0", "1 to 3"]),
        (["--tile", "L0=0"], ["L0", "1 to 3"]),
        (["--tile", "DRAM=1"], ["outermost"]),
        (["--tile", "GLB=1"], ["GLB", "not a memory level"]),
        (["--tile", "L0=1,L1=2"], ["L0", "at least as deep"]),
        (["--tile", "L0"], ["LEVEL=DEPTH"]),
        (["--tile", "L0=x"], ["LEVEL=DEPTH"]),
    ],
)
def test_bad_tile_flags(cli_files, capsys, flags, words):
    rc, out, err = run_cli([*cli_files, *flags], capsys)
    assert rc == 2 and not out
    assert len(err.strip().splitlines()) == 1 and "--tile" in err
    assert all(w in err for w in words)


def test_bad_tiles_key(tmp_path, capsys):
    w = write_yaml(tmp_path, "w", gemm_workload(8, 8, 8))
    a = write_yaml(tmp_path, "a", arch_yaml([4, 4], [("L0", BIG)]))
    for tiles, words in (({"L0": 9}, "1 to 3"), ({"L0": "two"}, "integer"), ([2], "mapping")):
        d = write_yaml(
            tmp_path,
            "d",
            {
                "name": "df",
                "space": "{ S[i,j,k] -> PE[i % 4, j % 4] }",
                "time": "{ S[i,j,k] -> T[floor(i/4), floor(j/4), i % 4 + j % 4 + k] }",
                "tiles": tiles,
            },
        )
        rc, out, err = run_cli(["analyze", "-w", w, "-a", a, "-d", d], capsys)
        assert rc == 2 and not out
        assert len(err.strip().splitlines()) == 1 and "tiles" in err and words in err


def test_cli_tile_overrides_and_json(cli_files, capsys):
    rc, out, _ = run_cli([*cli_files, "--tile", "L0=2", "--tile", "L1=1"], capsys)
    assert rc == 0
    import json

    levels = json.loads(out)["levels"]
    assert [(lv["name"], lv["tile_depth"]) for lv in levels] == [("L0", 2), ("L1", 1)]
    keys = {"name", "tile_depth", "tiles", "capacity_needed", "capacity", "fits", "tensors"}
    assert keys <= set(levels[0]) and {"reads", "writes", "transfer_ns"} <= set(levels[0])


@pytest.mark.parametrize("sliced", [100_000, 0])
def test_quadratic_capacity_sliced_or_bounded(tmp_path, monkeypatch, sliced):
    """k <= j <= i < 12, one tile per i: B's footprint is a triangle, (i+1)(i+2)/2 words, a
    quadratic in the tile: sliced per tile value, or (limit 0) isl's bound, tight here.
    By hand at i = 11: B 78 + A 12 + C 12 = 102 words."""
    from tenet.model import levels

    monkeypatch.setattr(levels, "MAX_SLICED_TILES", sliced)
    n = 12
    workload = {
        "name": "tri",
        "params": {"N": n},
        "statements": [
            {
                "domain": "[N] -> { S[i,j,k] : 0 <= k <= j <= i < N }",
                "reads": {"B": "{ S[i,j,k] -> B[j,k] }", "A": "{ S[i,j,k] -> A[i,k] }"},
                "writes": {"C": "{ S[i,j,k] -> C[i,j] }"},
            }
        ],
    }
    inputs = load_case(
        tmp_path,
        workload,
        [1],
        [("GLB", BIG)],
        "{ S[i,j,k] -> PE[0] }",
        "{ S[i,j,k] -> T[i, j, k] }",
        {"GLB": 1},
    )
    events = [
        ((i, j, k), [("B", (j, k)), ("A", (i, k))], [("C", (i, j))])
        for i in range(n)
        for j in range(i + 1)
        for k in range(j + 1)
    ]
    ref = rule(events, 1)
    assert ref["capacity"] == 102
    check(inputs, {"GLB": ref}, with_simulate=False)


def test_levels_read_back_from_json(tmp_path):
    """A journalled result (Analysis.from_dict) keeps its levels block."""
    import json

    from tenet.model.metrics import Analysis

    inputs = load_case(
        tmp_path,
        gemm_workload(16, 16, 16),
        [4, 4],
        [("L0", BIG), ("L1", BIG)],
        "{ S[i,j,k] -> PE[i % 4, j % 4] }",
        "{ S[i,j,k] -> T[floor(i/4), floor(j/4), i % 4 + j % 4 + k] }",
        {"L0": 2, "L1": 1},
    )
    analysis = analyze(*inputs)
    data = json.loads(json.dumps(analysis.to_dict()))
    again = Analysis.from_dict(data, inputs[1], analysis.stamps)
    assert again.to_dict() == data
    assert again.dram_words() == analysis.dram_words() == 256 + 256 + 256  # L1 <-> DRAM


def test_compare_tile_flag(tmp_path, capsys):
    """compare --tile counts the level on each arch; a small GLB gets fits: false."""
    import json

    w = write_yaml(tmp_path, "w", gemm_workload(16, 16, 16))
    big = write_yaml(tmp_path, "big", arch_yaml([4, 4], [("GLB", 1024)]))
    small = write_yaml(tmp_path, "small", {**arch_yaml([4, 4], [("GLB", 100)]), "name": "small"})
    d = write_yaml(
        tmp_path,
        "d",
        {
            "name": "df",
            "space": "{ S[i,j,k] -> PE[i % 4, j % 4] }",
            "time": "{ S[i,j,k] -> T[floor(i/4), floor(j/4), i % 4 + j % 4 + k] }",
        },
    )
    args = ["compare", "-w", w, "-d", d, "-a", big, "-a", small, "--tile", "GLB=2"]
    rc, out, _ = run_cli([*args, "--format", "json"], capsys)
    assert rc == 0
    levels = [r["levels"][0] for r in json.loads(out)["results"]]
    assert [(lv["capacity_needed"], lv["fits"]) for lv in levels] == [(144, True), (144, False)]


@pytest.mark.parametrize(
    "levels, key, words",
    [
        ([("L0", float("nan"))], "levels[0].capacity", "cannot read size"),
        ([("L0", float("inf"))], "levels[0].capacity", "cannot read size"),
        ([("L0", 1024.7)], "levels[0].capacity", "whole number"),
        ([("L0", 64), ("L0", 4096)], "levels[1].name", "a second level named 'L0'"),
    ],
)
def test_bad_level_capacities_and_names(tmp_path, capsys, levels, key, words):
    """A capacity that is not a finite whole number of words (or a size with a unit) and a
    level name used twice give one line naming the key, exit 2."""
    a = write_yaml(tmp_path, "a", arch_yaml([4, 4], levels))
    rc, out, err = run_cli(["analyze", "-w", "gemm", "-a", a, "-d", "os-systolic-8x8"], capsys)
    assert rc == 2 and not out
    assert len(err.strip().splitlines()) == 1 and key in err and words in err
