"""What the Snowcat front says at one capacity or area: the least traffic at the array's
on-chip capacity next to a dataflow's (`capacity_bound`, `analyze --bound`), the front
probed level by level (`hierarchy_report`), the best split of a fixed area between buffer
and MACs (`area_split`, `fused_area_split`, `area_constants`), and sizes given as text
(`word_count`)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tenet.bounds.front import Front
from tenet.bounds.problem import problem_from_workload
from tenet.bounds.snowcat_fast import snowcat_at
from tenet.errors import InputError
from tenet.model.workload import Workload
from tenet.util.io import size_in_words

if TYPE_CHECKING:
    from tenet.model.arch import Arch
    from tenet.model.metrics import Analysis


def word_count(text: str, word_bits: int, option: str = "at") -> int:
    """'1MiB', '512KB', '4096' (words) -> words; errors name the option `option`."""
    try:
        return size_in_words(text, word_bits, None, "")
    except InputError as exc:
        raise InputError(exc.message, option=option) from None


def area_split(
    front: list[dict[str, Any]],
    word_bytes: float,
    area_mm2: float,
    mac_area_um2: float,
    byte_area_um2: float,
    bandwidth_gbps: float,
    clock_ghz: float,
) -> dict[str, Any]:
    """Best split of a fixed area between buffer and MACs: throughput = min(compute, OI·BW)."""
    total = area_mm2 * 1e6
    options = []
    for p in front:
        buffer_area = p["buffer"] * word_bytes * byte_area_um2
        if buffer_area >= total:
            break
        macs = int((total - buffer_area) // mac_area_um2)
        gops = min(2 * macs * clock_ghz, p["oi"] * bandwidth_gbps)
        options.append(
            {
                "buffer": p["buffer"],
                "buffer_bytes": p["buffer"] * word_bytes,
                "macs": macs,
                "buffer_share": buffer_area / total,
                "gops": gops,
            }
        )
    if not options:
        raise InputError(
            "the area cannot hold even the smallest buffer on the front", option="area_mm2"
        )
    best = max(options, key=lambda o: o["gops"])
    return {"best": best, "curve": options}


def area_constants(
    components: Any,
    node_nm: int | None,
    word_bits: int,
    mac_area_um2: float | None = None,
    byte_area_um2: float | None = None,
    given: tuple[str, str] = ("mac_area_um2", "byte_area_um2"),
) -> dict[str, dict[str, Any]] | None:
    """The MAC area and the buffer area per byte of the area split, each `{value, unit,
    source}`: a flag's value when given, else the arch's components (the MAC's area; the
    scratchpad's area over its size in bytes), else the built-in library at `node_nm`
    (a word_bits MAC; the SRAM fit's area per byte). None when one of them is unknown. A
    given value's source is the matching name of `given` (the command line passes its flags)."""
    from tenet.model.components import mac_values, sram_byte_area_um2

    def entry(value: Any, source: str) -> dict[str, Any]:
        return {"value": float(value), "unit": "um2", "source": source}

    mac = byte = None
    if components is not None:
        mac = entry(components.mac_area_um2.value, components.mac_area_um2.source)
        size = components.scratchpad_size_bytes.value
        byte = entry(
            components.scratchpad_area_um2.value / size,
            f"scratchpad area / {int(size)} B: {components.scratchpad_area_um2.source}",
        )
    elif node_nm is not None:
        quantity = mac_values(node_nm, word_bits)["mac_area_um2"]
        mac = entry(quantity.value, quantity.source)
        byte = entry(
            sram_byte_area_um2(node_nm),
            f"SRAM fit area per byte at {node_nm} nm (docs/components.md)",
        )
    if mac_area_um2:
        mac = entry(mac_area_um2, given[0])
    if byte_area_um2:
        byte = entry(byte_area_um2, given[1])
    if mac is None or byte is None:
        return None
    return {"mac_area_um2": mac, "byte_area_um2": byte}


def fused_area_split(
    report: dict[str, Any],
    area_mm2: float,
    constants: dict[str, dict[str, Any]],
    bandwidth_gbps: float,
    clock_ghz: float,
) -> dict[str, Any]:
    """The best area split of the unfused front and of the fused one (the best
    segmentation, else tiled fusion) of a `tenet fuse` report, and their ratios."""
    word_bytes = report["word_bits"] / 8
    mac = constants["mac_area_um2"]["value"]
    byte = constants["byte_area_um2"]["value"]
    fused_key = "best_segmentation" if report.get("best_segmentation") else "tiled"
    out: dict[str, Any] = {
        "area_mm2": area_mm2,
        "word_bits": report["word_bits"],
        "fused_front": fused_key,
        **constants,
    }
    for name, key in (("unfused", "unfused"), ("fused", fused_key)):
        front = [p for p in report[key] if p.get("oi")]
        out[name] = area_split(front, word_bytes, area_mm2, mac, byte, bandwidth_gbps, clock_ghz)
    unfused, fused = out["unfused"]["best"], out["fused"]["best"]
    out["buffer_area_ratio"] = (
        fused["buffer_share"] / unfused["buffer_share"] if unfused["buffer_share"] else None
    )
    out["throughput_ratio"] = fused["gops"] / unfused["gops"] if unfused["gops"] else None
    return out


@dataclass(frozen=True)
class CapacityBound:
    """`analyze --bound`'s comparison at the array's on-chip capacity: the least Snowcat
    traffic there (None when no mapping fits) and the dataflow's traffic counted the same
    way; ratio = dataflow_traffic / accesses (a comparison, not an optimality gap)."""

    capacity_words: int
    accesses: int | None
    mapping: str | None
    dataflow_traffic: int

    @property
    def ratio(self) -> float | None:
        """dataflow_traffic / accesses (None without a fitting mapping or with 0 accesses)."""
        return self.dataflow_traffic / self.accesses if self.accesses else None

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of the `bound` block (without its `dram` block)."""
        return {
            "capacity_words": self.capacity_words,
            "accesses": self.accesses,
            "mapping": self.mapping,
            "dataflow_traffic": self.dataflow_traffic,
            "ratio": self.ratio,
        }


def capacity_bound(workload: Workload, arch: Arch, analysis: Analysis) -> CapacityBound:
    """The least traffic over Snowcat mappings at the array's on-chip capacity next to the
    dataflow's scratchpad traffic counted the same way (unique fetches of inputs; 2W - |O|
    for the output, whose partial sums are written W times and read back W - |O| times)."""
    capacity = arch.pe_count * arch.memory.l1_words + arch.memory.l2_words
    problem = problem_from_workload(workload)
    point = snowcat_at(problem, capacity)
    # Charged like the front: inputs once per fetch, outputs read-modify-write (2W - |O|).
    traffic = 0
    for tensor in problem.tensors:
        sides = analysis.volumes[tensor.name]
        if tensor.output:
            traffic += 2 * sides["write"].unique - problem.size(tensor)
        else:
            traffic += sides["read"].unique
    return CapacityBound(
        capacity, point.accesses if point else None, point.mapping if point else None, traffic
    )


def bound_at_capacity(workload: Workload, arch: Arch, analysis: Analysis) -> dict[str, Any]:
    """`capacity_bound(...).to_dict()`: the `bound` block as JSON, for callers that still
    take a dictionary."""
    return capacity_bound(workload, arch, analysis).to_dict()


def hierarchy_report(
    front: Front,
    levels,
    word_bits: int,
    macs: int,
    macs_per_cycle: float | None = None,
    clock_ghz: float = 1.0,
) -> dict[str, Any]:
    """For each pair of adjacent levels (innermost first): the Snowcat front probed at the
    inner level's capacity, the time that traffic takes at the outer level's bandwidth, and the
    bottleneck (compute counts too when `macs_per_cycle` is given)."""
    word_bytes = word_bits / 8
    pairs = []
    for inner, outer in itertools.pairwise(levels):
        point = front.at(inner.capacity_words)
        accesses = point.accesses if point else None
        seconds = accesses * word_bytes / (outer.bandwidth_gbps * 1e9) if point else None
        pairs.append(
            {
                "inner": inner.name,
                "outer": outer.name,
                "capacity_words": inner.capacity_words,
                "accesses": accesses,
                "bytes": accesses * word_bytes if point else None,
                "bandwidth_gbps": outer.bandwidth_gbps,
                "seconds": seconds,
                "mapping": point.mapping if point else None,
            }
        )
    report: dict[str, Any] = {"levels": pairs}
    times = {
        f"{p['inner']} <-> {p['outer']}": p["seconds"] for p in pairs if p["seconds"] is not None
    }
    if macs_per_cycle:
        report["compute_seconds"] = macs / (macs_per_cycle * clock_ghz * 1e9)
        times["compute"] = report["compute_seconds"]
    report["bottleneck"] = max(times, key=times.get) if times else None
    return report
