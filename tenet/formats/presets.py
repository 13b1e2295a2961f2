"""Finding preset files: `-a systolic-8x8`, `-w gemm`, `-d os-systolic-8x8` by name."""

from __future__ import annotations

import difflib
from pathlib import Path

from tenet.errors import InputError

_PACKAGE = Path(__file__).resolve().parent.parent  # the tenet package


def preset_roots(kind: str) -> list[Path]:
    """Where presets of `kind` (archs, workloads, networks) live: the wheel, then a checkout."""
    roots = [_PACKAGE / "presets" / kind, _PACKAGE.parent / kind]
    return [r for r in roots if r.is_dir()]


def _is_name(text: str) -> bool:
    return "/" not in text and "\\" not in text and not text.endswith((".yaml", ".yml"))


def resolve_arch(text: str) -> Path:
    if Path(text).is_file() or not _is_name(text):
        return Path(text)
    for root in preset_roots("archs"):
        if (root / f"{text}.yaml").is_file():
            return root / f"{text}.yaml"
    return Path(text)


def resolve_workload(text: str) -> Path:
    if Path(text).is_dir() and (Path(text) / "workload.yaml").is_file():
        return Path(text) / "workload.yaml"
    if Path(text).is_file() or not _is_name(text):
        return Path(text)
    for root in preset_roots("workloads"):
        if (root / text / "workload.yaml").is_file():
            return root / text / "workload.yaml"
    return Path(text)


def resolve_network(text: str) -> Path:
    """A network file, or a preset name (`alexnet` -> networks/alexnet.yaml)."""
    if Path(text).is_file() or not _is_name(text):
        return Path(text)
    for root in preset_roots("networks"):
        if (root / f"{text}.yaml").is_file():
            return root / f"{text}.yaml"
    return Path(text)


def preset_names(kind: str) -> list[str]:
    """Names of the presets of `kind`: `archs/*.yaml`, `workloads/*/`, `networks/*.yaml`."""
    pattern = "*/workload.yaml" if kind == "workloads" else "*.yaml"
    names: dict[str, None] = {}
    for root in preset_roots(kind):
        for p in sorted(root.glob(pattern)):
            names.setdefault(p.parent.name if kind == "workloads" else p.stem, None)
    return list(names)


def resolve_dataflow(text: str, workload_path: Path | None) -> Path:
    """A path; a dataflow NAME beside the workload (`dataflows/NAME.yaml`); or WORKLOAD/NAME."""
    path = Path(text)
    if path.is_file() or text.endswith((".yaml", ".yml")):
        return path
    if workload_path is not None and "/" not in text:
        candidate = workload_path.parent / "dataflows" / f"{text}.yaml"
        if candidate.is_file():
            return candidate
    parts = text.split("/")
    if len(parts) == 2:
        for root in preset_roots("workloads"):
            candidate = root / parts[0] / "dataflows" / f"{parts[1]}.yaml"
            if candidate.is_file():
                return candidate
    return path


#: The arch each preset dataflow is written for (the first of docs/presets.md's "arch").
DATAFLOW_ARCHS = {
    "gemm/os-systolic-8x8": "systolic-8x8",
    "gemm/ws-systolic-8x8": "systolic-8x8",
    "gemm/ncf-nmk-8x8": "systolic-8x8",
    "gemm/ncf-rs-64": "chain-64",
    "gemm/ncf-yxp-os-64": "chain-64",
    "gemm/chain-256": "chain-256",
    "gemm/os-systolic-16x16": "systolic-16x16-up",
    "gemm/os-multicast-8x8": "multicast-8x8",
    "conv2d/os-8x8": "systolic-8x8",
    "conv2d/ws-8x8": "systolic-8x8",
    "conv2d/eyeriss-8x8": "systolic-8x8",
    "conv2d/kp-64": "chain-64",
    "conv2d/nlr-64": "chain-64",
    "conv2d/chain-256": "chain-256",
    "conv2d/os-16x16": "systolic-16x16-up",
    "conv2d/row-stationary-12x14": "eyeriss-12x14",
    "jacobi2d/os-8x8": "systolic-8x8",
    "jacobi2d/os-chain-64": "chain-64",
    "jacobi2d/chain-256": "chain-256",
    "jacobi2d/os-16x16": "systolic-16x16-up",
    "mttkrp/systolic1-8x8": "systolic-8x8",
    "mttkrp/systolic2-8x8": "systolic-8x8",
    "mttkrp/systolic3-8x8": "systolic-8x8",
    "mttkrp/chain-256": "chain-256",
    "mttkrp/os-16x16": "systolic-16x16-up",
    "batched-gemm/os-systolic-8x8": "systolic-8x8",
    "batched-gemm/ws-systolic-8x8": "systolic-8x8",
    "depthwise-conv/channel-64": "chain-64",
    "depthwise-conv/os-8x8": "systolic-8x8",
    "dilated-conv/os-8x8": "systolic-8x8",
    "dilated-conv/ws-8x8": "systolic-8x8",
    "strided-conv/os-8x8": "systolic-8x8",
    "strided-conv/ws-8x8": "systolic-8x8",
    "mmc/os-8x8": "systolic-8x8",
}

#: Preset dataflows that `tenet validate` calls illegal on the arch they are written for:
#: TENET's own mappings that run several instances on one PE in one time step (a
#: pe_conflict on its one-MAC arrays). Name -> (instances per PE and step at most, a
#: preset arch with that many MACs per PE where it is legal, or None).
SEVERAL_PER_STEP = {
    "gemm/ncf-rs-64": (4, "chain-64-mac9"),
    "conv2d/os-8x8": (9, "systolic-8x8-mac9"),
    "conv2d/ws-8x8": (9, "systolic-8x8-mac9"),
    "conv2d/eyeriss-8x8": (3, "systolic-8x8-mac9"),
    "conv2d/kp-64": (9, "chain-64-mac9"),
    "conv2d/nlr-64": (9, "chain-64-mac9"),
    "conv2d/chain-256": (9, None),
    "conv2d/os-16x16": (9, None),
}


def dataflow_notes() -> list[str]:
    """One line per preset dataflow that is illegal on its arch (`SEVERAL_PER_STEP`)."""
    lines = []
    for name, (per_step, legal_on) in SEVERAL_PER_STEP.items():
        where = f"; legal on {legal_on}" if legal_on else ""
        lines.append(
            f"{name} on {DATAFLOW_ARCHS[name]}: illegal (pe_conflict: up to {per_step} "
            f"instances per PE and step, as in TENET's mapping){where}"
        )
    return lines


def list_presets() -> dict[str, list[str]]:
    """Names of the preset archs, workloads and their dataflows."""
    archs: dict[str, None] = {}
    workloads: dict[str, None] = {}
    for root in preset_roots("archs"):
        for p in sorted(root.glob("*.yaml")):
            archs.setdefault(p.stem, None)
    for root in preset_roots("workloads"):
        for p in sorted(root.glob("*/workload.yaml")):
            flows = ", ".join(sorted(f.stem for f in (p.parent / "dataflows").glob("*.yaml")))
            workloads.setdefault(f"{p.parent.name}: {flows}", None)
    return {
        "archs": list(archs),
        "workloads": list(workloads),
        "networks": preset_names("networks"),
        "notes": dataflow_notes(),
    }


# --- names typed on the command line: a file or a preset, else close names ----------------------


def find_arch(text: str) -> Path:
    """`resolve_arch`, refusing a bare name that is neither a file nor a preset."""
    return _found(resolve_arch(text), text, "arch", preset_names("archs"), preset_roots("archs"))


def find_workload(text: str) -> Path:
    """`resolve_workload`, refusing a bare name that is neither a file nor a preset."""
    path = resolve_workload(text)
    return _found(path, text, "workload", preset_names("workloads"), preset_roots("workloads"))


def find_network(text: str) -> Path:
    """`resolve_network` (an ONNX model as given), refusing a bare name that is neither a
    file nor a preset."""
    if text.lower().endswith(".onnx"):
        return Path(text)
    path = resolve_network(text)
    return _found(path, text, "network", preset_names("networks"), preset_roots("networks"))


def find_dataflow(text: str, workload_path: Path | None) -> Path:
    """`resolve_dataflow`, refusing a NAME (or WORKLOAD/NAME) found beside no workload."""
    path = resolve_dataflow(text, workload_path)
    if path.is_file() or text.endswith((".yaml", ".yml")) or text.count("/") > 1:
        return path
    workload, _, name = text.rpartition("/")
    if workload:
        workload_path = _found(
            resolve_workload(workload),
            workload,
            "workload",
            preset_names("workloads"),
            preset_roots("workloads"),
        )
    if workload_path is None or not workload_path.is_file():
        return path
    folder = workload_path.parent / "dataflows"
    names = sorted(p.stem for p in folder.glob("*.yaml"))
    return _found(path, name, "dataflow", names, [folder], "no dataflow of that name", text)


def _found(
    path: Path,
    name: str,
    kind: str,
    names: list[str],
    places: list[Path],
    missing: str = "no preset of that name",
    source: str | None = None,
) -> Path:
    """`path` if it is a file (or `name` is not a bare name); else an InputError that says
    where presets were looked for and suggests the closest names."""
    if path.is_file() or not _is_name(name):
        return path
    if Path(name).is_dir():
        inside = " (a workload folder needs a workload.yaml)" if kind == "workload" else ""
        raise InputError(f"{kind} file is a directory, expected a file{inside}", source or name)
    where = " or ".join(str(p) for p in places) or f"the {kind} preset folders (none found)"
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
    if close:
        hint = f"did you mean {', '.join(close)}?"
    else:
        hint = f"known: {', '.join(names)}" if names else "none there"
    raise InputError(f"{kind} file not found, and {missing} in {where} ({hint})", source or name)
