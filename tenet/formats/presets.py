"""Finding preset files: `-a systolic-8x8`, `-w gemm`, `-d os-systolic-8x8` by name."""

from __future__ import annotations

from pathlib import Path

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
    }
