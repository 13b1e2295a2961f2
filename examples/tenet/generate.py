"""Write the TENET-format inputs in this folder from the project's YAML presets.

Every file is derived through tenet's own loaders (`load_workload`, `load_arch`,
`load_dataflow`) and isl prints each set and relation, so the numbers in a TENET file
are the preset's numbers. The file names are those of TENET's published inputs, so an
experiment here names the same three files as TENET's experiment of the same number.

    python examples/tenet/generate.py           # (re)write the files next to this script
    python examples/tenet/generate.py --check   # exit 1 if a file is missing or differs
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import islpy as isl

from tenet.model.arch import Arch, Energy, load_arch
from tenet.model.dataflow import Dataflow, load_dataflow
from tenet.model.workload import Workload, load_workload
from tenet.util.isl_util import param_names

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
WORKLOADS = ROOT / "workloads"
ARCHS = ROOT / "archs"

RUNTIME = {"OX": 256, "OY": 256}  # TENET's runtime conv2d.s is the 256x256 output
# statement file -> (workload preset, --set values)
STATEMENTS = {
    "statement/matmul.s": ("gemm", {}),
    "statement/conv2d.s": ("conv2d", {}),
    "statement/jacobi2d.s": ("jacobi2d", {}),
    "statement/mttkrp.s": ("mttkrp", {}),
    "runtime/statement/matmul.s": ("gemm", {}),
    "runtime/statement/conv2d.s": ("conv2d", RUNTIME),
    "runtime/statement/jacobi2d.s": ("jacobi2d", {}),
    "runtime/statement/mttkrp.s": ("mttkrp", {}),
}
# PE array file -> arch preset
PE_ARRAYS = {
    "pe_array/systolic.p": "systolic-8x8",
    "pe_array/pe_8_8.p": "systolic-8x8-rev",
    "pe_array/lineral.p": "chain-64",
    "pe_array/switch.p": "switch-8x8",
    "runtime/pe_array/256pes/1d_sys.p": "chain-256",
    "runtime/pe_array/256pes/2d_sys.p": "systolic-16x16-up",
    "runtime/pe_array/256pes/mesh.p": "mesh-diag-16x16",
}
# mapping file -> (workload preset, dataflow preset)
MAPPINGS = {
    "mapping/conv2d_kp.m": ("conv2d", "kp-64"),
    "mapping/conv2d_nlr.m": ("conv2d", "nlr-64"),
    "mapping/conv2d_eyeriss2d.m": ("conv2d", "eyeriss-8x8"),
    "mapping/conv2d_os.m": ("conv2d", "os-8x8"),
    "mapping/conv2d_ws.m": ("conv2d", "ws-8x8"),
    "mapping/jacobi_lineral_os.m": ("jacobi2d", "os-chain-64"),
    "mapping/jacobi_os_yxp.m": ("jacobi2d", "os-8x8"),
    "mapping/mttkrp_systolic1.m": ("mttkrp", "systolic1-8x8"),
    "mapping/mttkrp_systolic2.m": ("mttkrp", "systolic2-8x8"),
    "mapping/mttkrp_systolic3.m": ("mttkrp", "systolic3-8x8"),
    "mapping/matmul_systolic_os.m": ("gemm", "os-systolic-8x8"),
    "mapping/matmul_systolic_ws.m": ("gemm", "ws-systolic-8x8"),
    "mapping/ncf_nmk.m": ("gemm", "ncf-nmk-8x8"),
    "mapping/ncf_rs.m": ("gemm", "ncf-rs-64"),
    "mapping/ncf_yxp_os.m": ("gemm", "ncf-yxp-os-64"),
    "runtime/mapping/1d/conv2d.m": ("conv2d", "chain-256"),
    "runtime/mapping/1d/gemm.m": ("gemm", "chain-256"),
    "runtime/mapping/1d/jacobi.m": ("jacobi2d", "chain-256"),
    "runtime/mapping/1d/mttkrp.m": ("mttkrp", "chain-256"),
    "runtime/mapping/2d/conv2d.m": ("conv2d", "os-16x16"),
    "runtime/mapping/2d/gemm.m": ("gemm", "os-systolic-16x16"),
    "runtime/mapping/2d/jacobi.m": ("jacobi2d", "os-16x16"),
    "runtime/mapping/2d/mttkrp.m": ("mttkrp", "os-16x16"),
}


def _runtime(kernel: str, mapping: str, pe_array: str) -> tuple[str, str, str]:
    statement = {"gemm": "matmul", "jacobi": "jacobi2d"}.get(kernel, kernel)
    return (
        f"runtime/mapping/{mapping}/{kernel}.m",
        f"runtime/pe_array/256pes/{pe_array}.p",
        f"runtime/statement/{statement}.s",
    )


# experiment file -> (mapping, PE array, statement): TENET's order, paths relative to this
# folder. experiment_1..15 are TENET's reuse_factor_experiment 1..15; experiment_16 and 17
# put the two TENET arrays no published experiment uses under the GEMM os mapping;
# runtime/experiment_1..12 are TENET's runtime (modeling-time) experiments 1..12.
EXPERIMENTS = {
    "experiment/experiment_1": ("mapping/conv2d_kp.m", "pe_array/lineral.p", "statement/conv2d.s"),
    "experiment/experiment_2": ("mapping/conv2d_nlr.m", "pe_array/lineral.p", "statement/conv2d.s"),
    "experiment/experiment_3": (
        "mapping/conv2d_eyeriss2d.m",
        "pe_array/systolic.p",
        "statement/conv2d.s",
    ),
    "experiment/experiment_4": ("mapping/conv2d_os.m", "pe_array/systolic.p", "statement/conv2d.s"),
    "experiment/experiment_5": ("mapping/conv2d_ws.m", "pe_array/systolic.p", "statement/conv2d.s"),
    "experiment/experiment_6": (
        "mapping/jacobi_lineral_os.m",
        "pe_array/lineral.p",
        "statement/jacobi2d.s",
    ),
    "experiment/experiment_7": (
        "mapping/jacobi_os_yxp.m",
        "pe_array/systolic.p",
        "statement/jacobi2d.s",
    ),
    "experiment/experiment_8": (
        "mapping/mttkrp_systolic1.m",
        "pe_array/systolic.p",
        "statement/mttkrp.s",
    ),
    "experiment/experiment_9": (
        "mapping/mttkrp_systolic2.m",
        "pe_array/systolic.p",
        "statement/mttkrp.s",
    ),
    "experiment/experiment_10": (
        "mapping/mttkrp_systolic3.m",
        "pe_array/systolic.p",
        "statement/mttkrp.s",
    ),
    "experiment/experiment_11": (
        "mapping/matmul_systolic_os.m",
        "pe_array/systolic.p",
        "statement/matmul.s",
    ),
    "experiment/experiment_12": (
        "mapping/matmul_systolic_ws.m",
        "pe_array/systolic.p",
        "statement/matmul.s",
    ),
    "experiment/experiment_13": ("mapping/ncf_nmk.m", "pe_array/systolic.p", "statement/matmul.s"),
    "experiment/experiment_14": ("mapping/ncf_rs.m", "pe_array/lineral.p", "statement/matmul.s"),
    "experiment/experiment_15": (
        "mapping/ncf_yxp_os.m",
        "pe_array/lineral.p",
        "statement/matmul.s",
    ),
    "experiment/experiment_16": (
        "mapping/matmul_systolic_os.m",
        "pe_array/pe_8_8.p",
        "statement/matmul.s",
    ),
    "experiment/experiment_17": (
        "mapping/matmul_systolic_os.m",
        "pe_array/switch.p",
        "statement/matmul.s",
    ),
    "runtime/experiment/experiment_1": _runtime("conv2d", "1d", "1d_sys"),
    "runtime/experiment/experiment_2": _runtime("conv2d", "2d", "2d_sys"),
    "runtime/experiment/experiment_3": _runtime("conv2d", "2d", "mesh"),
    "runtime/experiment/experiment_4": _runtime("gemm", "1d", "1d_sys"),
    "runtime/experiment/experiment_5": _runtime("gemm", "2d", "2d_sys"),
    "runtime/experiment/experiment_6": _runtime("gemm", "2d", "mesh"),
    "runtime/experiment/experiment_7": _runtime("jacobi", "1d", "1d_sys"),
    "runtime/experiment/experiment_8": _runtime("jacobi", "2d", "2d_sys"),
    "runtime/experiment/experiment_9": _runtime("jacobi", "2d", "mesh"),
    "runtime/experiment/experiment_10": _runtime("mttkrp", "1d", "1d_sys"),
    "runtime/experiment/experiment_11": _runtime("mttkrp", "2d", "2d_sys"),
    "runtime/experiment/experiment_12": _runtime("mttkrp", "2d", "mesh"),
}


class NotExpressible(ValueError):
    """A preset uses something TENET's text formats cannot say."""


def workload_preset(statement: str) -> Workload:
    name, sets = STATEMENTS[statement]
    return load_workload(WORKLOADS / name / "workload.yaml", sets)


def arch_preset(pe_array: str) -> Arch:
    return load_arch(ARCHS / f"{PE_ARRAYS[pe_array]}.yaml")


def dataflow_preset(mapping: str) -> Dataflow:
    workload, flow = MAPPINGS[mapping]
    return load_dataflow(WORKLOADS / workload / "dataflows" / f"{flow}.yaml")


def presets(experiment: str) -> tuple[Workload, Arch, Dataflow]:
    """The YAML presets an experiment file was written from: (workload, arch, dataflow)."""
    mapping, pe_array, statement = EXPERIMENTS[experiment]
    return workload_preset(statement), arch_preset(pe_array), dataflow_preset(mapping)


def _inner(obj) -> str:
    """The text of a parameter-free isl object without its outer braces."""
    text = str(obj).strip()
    assert text.startswith("{") and text.endswith("}"), text
    return text[1:-1].strip()


def statement_text(workload: Workload) -> str:
    """`R W`, the domain, then one line per read tensor and per written tensor."""
    if len(workload.statements) != 1:
        raise NotExpressible(f"{workload.source}: a TENET statement file holds one statement")
    if workload.macs_per_instance != 1:
        raise NotExpressible(f"{workload.source}: TENET counts one MAC per instance")
    lines = [str(workload.domain)]
    for side in ("read", "write"):
        for rel in workload.accesses[side].values():
            # The loader intersects every access with the domain again: print it without.
            lines.append(str(rel.gist_domain(workload.domain)))
    head = f"{len(workload.accesses['read'])} {len(workload.accesses['write'])}"
    return "\n".join([head, *lines]) + "\n"


def pe_array_text(arch: Arch) -> str:
    """The PE domain, every link in one relation, then `l1 l2 bandwidth avg_latency`."""
    for link in arch.links:
        if (link.kind, link.window, link.tensors, link.access) != ("forward", (0, 1), None, "both"):
            raise NotExpressible(
                f"{arch.source}: link {link.label} is not a plain forward link with window "
                "[0, 1] for every tensor and access"
            )
    mem = arch.memory
    if mem.word_bits != 16 or arch.macs_per_pe != 1 or arch.energy != Energy() or arch.levels:
        raise NotExpressible(
            f"{arch.source}: TENET files fix 16-bit words, one MAC per PE, its energy "
            "constants and no memory levels"
        )
    if not arch.links:
        raise NotExpressible(f"{arch.source}: a TENET PE array has an interconnect")
    # The loader restricts the relation to the PE domain on both sides: print it without.
    links = [
        _inner(link.relation.gist_domain(arch.pe_domain).gist_range(arch.pe_domain))
        for link in arch.links
    ]
    numbers = f"{mem.l1_words} {mem.l2_words} {mem.bandwidth_bits} {mem.avg_latency}"
    return f"{arch.pe_domain}\n{{ {'; '.join(links)} }}\n{numbers}\n"


def _as_function(rel: isl.UnionMap) -> str:
    """A space or time map written as expressions (`PE[(i) mod 8, ...]`) where isl can."""
    if param_names(rel):
        raise NotExpressible(f"TENET mappings take no parameters: {rel}")
    try:
        return str(isl.UnionPwMultiAff.from_union_map(rel))
    except isl.Error:
        return str(rel)


def mapping_text(dataflow: Dataflow) -> str:
    """The space map, then the time map."""
    return f"{_as_function(dataflow.space)}\n{_as_function(dataflow.time)}\n"


def render() -> dict[str, str]:
    """Every file of this folder that the presets determine: relative path -> text."""
    files = {}
    for path in STATEMENTS:
        files[path] = statement_text(workload_preset(path))
    for path in PE_ARRAYS:
        files[path] = pe_array_text(arch_preset(path))
    for path in MAPPINGS:
        files[path] = mapping_text(dataflow_preset(path))
    for path, parts in EXPERIMENTS.items():
        missing = [p for p in parts if p not in files]
        if missing:
            raise ValueError(f"{path} names files no table writes: {missing}")
        files[path] = "\n".join(parts) + "\n"
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if a file would change"
    )
    args = parser.parse_args(argv)
    stale = []
    for rel, text in render().items():
        path = HERE / rel
        if path.is_file() and path.read_text() == text:
            continue
        stale.append(rel)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    verb = "differ" if args.check else "written"
    print(f"{len(stale)} file(s) {verb}" + "".join(f"\n  {rel}" for rel in stale))
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
