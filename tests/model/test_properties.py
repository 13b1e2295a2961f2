"""Property test: on random small workloads, PE arrays, links and quasi-affine dataflows,
`analyze` (barvinok counts) equals `simulate` (enumeration) on every number.

Runs derandomized (the same examples every time): 30 in the default run, 220 with `-m slow`. A failing example is printed as
YAML; save it under tests/regressions/ and `test_regressions` replays it forever.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tenet import analyze, load_arch, load_dataflow, load_workload, simulate
from tenet.errors import IslLimitError

REGRESSIONS = Path(__file__).resolve().parents[1] / "regressions"
LOOPS = ["i", "j", "k", "l"]
MAX_OPERATIONS = 5_000_000  # per example; the few cases isl cannot do quickly are discarded


@st.composite
def affine(draw, loops: list[str], allow_constant: bool = True) -> str:
    terms = []
    for loop in loops:
        c = draw(st.sampled_from([0, 0, 1, 1, -1, 2]))
        if c:
            terms.append(f"{c}*{loop}" if c != 1 else loop)
    if not terms:
        terms.append(draw(st.sampled_from(loops)))
    constant = draw(st.sampled_from([0, 0, 0, 1, -1])) if allow_constant else 0
    text = " + ".join(terms).replace("+ -", "- ")
    return f"{text} + {constant}" if constant else text


@st.composite
def dataflow_maps(draw, loops: list[str], shape: list[int]) -> tuple[str, str]:
    """Dataflows shaped like real ones: loops (or sums of loops) tiled onto PE axes with
    `%`, their tile indices `floor(x/n)` outermost in time, the other loops in a random
    order, optionally a systolic skew, optionally some loop dropped from time (several
    instances per stamp)."""
    spatial = (
        draw(
            st.lists(st.sampled_from(loops), min_size=len(shape), max_size=len(shape), unique=True)
        )
        if len(loops) >= len(shape)
        else [loops[0]] * len(shape)
    )
    pe_exprs, tiles = [], []
    for loop, n in zip(spatial, shape):
        form = draw(st.sampled_from(["mod", "mod", "sum", "half"]))
        if form == "sum":
            other = draw(st.sampled_from(loops))
            pe_exprs.append(f"({loop} + {other}) % {n}")
        elif form == "half":
            pe_exprs.append(f"floor({loop}/2) % {n}")
        else:
            pe_exprs.append(f"{loop} % {n}")
        tiles.append(f"floor({loop}/{n})")
    rest = [x for x in draw(st.permutations(loops)) if x not in spatial]
    if rest and draw(st.integers(0, 3)) == 0:
        rest = rest[:-1]  # drop a loop: its instances share stamps
    time = tiles + rest
    if draw(st.booleans()) and rest:
        skew = " + ".join(f"{loop} % {n}" for loop, n in zip(spatial, shape))
        time = tiles + rest[:-1] + [f"{skew} + {rest[-1]}"]
    if draw(st.integers(0, 4)) == 0:
        time = [f"floor({time[0]}/2)" if not time[0].startswith("floor") else time[0]] + time[1:]
    return ", ".join(pe_exprs), ", ".join(time or ["0"])


@st.composite
def cases(draw) -> dict:
    n_loops = draw(st.integers(2, 4))
    loops = LOOPS[:n_loops]
    extents = [draw(st.integers(1, 4 if n_loops > 2 else 6)) for _ in loops]
    statement = f"S[{', '.join(loops)}]"
    domain = (
        "{ "
        + statement
        + " : "
        + " and ".join(f"0 <= {x} < {n}" for x, n in zip(loops, extents))
        + " }"
    )
    reads, writes = {}, {}
    for t in range(draw(st.integers(1, 3))):
        arity = draw(st.integers(1, 3))
        accesses = []
        for _ in range(draw(st.integers(1, 2))):
            index = ", ".join(draw(affine(loops)) for _ in range(arity))
            accesses.append(f"{{ {statement} -> T{t}[{index}] }}")
        side = writes if t == 0 and draw(st.booleans()) else reads
        side[f"T{t}"] = accesses
    shape = draw(st.sampled_from([[3], [4], [2, 2], [2, 3], [3, 3]]))
    axes = ["p", "q"][: len(shape)]
    links = []
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["forward", "forward", "multicast"]))
        if kind == "multicast":
            same = axes[0] if len(shape) == 1 or draw(st.booleans()) else axes[1]
            others = [f"{a}2" for a in axes]
            cond = f"{same}2 = {same}" if len(shape) == 2 else f"{axes[0]}2 >= 0"
            relation = f"{{ PE[{', '.join(axes)}] -> PE[{', '.join(others)}] : {cond} }}"
        else:
            shift = [draw(st.sampled_from([-1, 0, 1])) for _ in axes]
            relation = f"{{ PE[{', '.join(axes)}] -> PE[{', '.join(f'{a} - ({s})' for a, s in zip(axes, shift))}] }}"
        link = {"relation": relation, "kind": kind}
        link["window"] = draw(st.sampled_from([[0, 1], [0], [1], [0, 2], [1, 2]]))
        if draw(st.integers(0, 4)) == 0:
            link["tensors"] = [draw(st.sampled_from(sorted({**reads, **writes})))]
        if draw(st.integers(0, 4)) == 0:
            link["access"] = draw(st.sampled_from(["read", "write"]))
        links.append(link)
    pe_text, time_text = draw(dataflow_maps(loops, shape))
    space = "{ " + statement + " -> PE[" + pe_text + "] }"
    time = "{ " + statement + " -> T[" + time_text + "] }"
    return {
        "workload": {
            "name": "random",
            "statements": [{"domain": domain, "reads": reads, "writes": writes}],
        },
        "arch": {"name": "random", "pe": {"shape": shape}, "interconnect": links},
        "dataflow": {"name": "random", "space": space, "time": time},
    }


def check(case: dict, tmp: Path) -> None:
    paths = {}
    for key in ("workload", "arch", "dataflow"):
        paths[key] = tmp / f"{key}.yaml"
        paths[key].write_text(yaml.safe_dump(case[key], sort_keys=False))
    workload = load_workload(paths["workload"])
    arch = load_arch(paths["arch"])
    dataflow = load_dataflow(paths["dataflow"])
    try:
        engine = analyze(workload, arch, dataflow, max_operations=MAX_OPERATIONS).to_dict()
    except IslLimitError:
        assume(False)  # isl refused (an honest error, never a wrong number): not a comparison
    reference = simulate(workload, arch, dataflow).to_dict()
    assert engine == reference, "failing case:\n" + yaml.safe_dump(case, sort_keys=False)


def _analyze_equals_simulate(max_examples: int):
    @settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(case=cases())
    def test(tmp_path, case):
        check(case, tmp_path)

    return test


# the default run tries 30 examples; `-m slow` the full 220 (about a minute)
test_analyze_equals_simulate_quick = _analyze_equals_simulate(30)
test_analyze_equals_simulate = pytest.mark.slow(_analyze_equals_simulate(220))


@pytest.mark.parametrize("path", sorted(REGRESSIONS.glob("*.yaml")), ids=lambda p: p.stem)
def test_regressions(tmp_path, path):
    check(yaml.safe_load(path.read_text()), tmp_path)
