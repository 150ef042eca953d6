"""A minimal PEP 517 build backend for the vLLM stand-in (stdlib only).

Why not setuptools: the workload image is built with ``--network none`` from a
wheelhouse. With ``requires = []`` pip needs nothing but this file to turn the
source directory into a wheel, so the wheelhouse only has to hold Ray and its
dependencies. It reads ``pyproject.toml`` ([project] name, version,
dependencies, scripts; [tool.standin-build] package-root) and never writes
into the source tree.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import tarfile
import tomllib
import zipfile
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent
_SKIP_DIRS = {"__pycache__"}
_SKIP_SUFFIXES = {".pyc", ".pyo"}


def _project() -> dict:
    with open(_ROOT / "pyproject.toml", "rb") as f:
        data = tomllib.load(f)
    project = data["project"]
    package_root = data.get("tool", {}).get("standin-build", {}).get("package-root", ".")
    return {
        "name": project["name"],
        "version": project["version"],
        "summary": project.get("description", ""),
        "requires_python": project.get("requires-python"),
        "dependencies": list(project.get("dependencies", [])),
        "scripts": dict(project.get("scripts", {})),
        "package_root": _ROOT / package_root,
    }


def _dist_info_name(p: dict) -> str:
    return f"{p['name'].replace('-', '_')}-{p['version']}.dist-info"


def _metadata(p: dict) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {p['name']}",
        f"Version: {p['version']}",
        f"Summary: {p['summary']}",
    ]
    if p["requires_python"]:
        lines.append(f"Requires-Python: {p['requires_python']}")
    lines += [f"Requires-Dist: {d}" for d in p["dependencies"]]
    return "\n".join(lines) + "\n"


def _wheel_file() -> str:
    return "Wheel-Version: 1.0\nGenerator: standin_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def _entry_points(p: dict) -> str:
    if not p["scripts"]:
        return ""
    body = "".join(f"{name} = {target}\n" for name, target in sorted(p["scripts"].items()))
    return "[console_scripts]\n" + body


def _package_files(p: dict) -> list[tuple[str, Path]]:
    root: Path = p["package_root"]
    out: list[tuple[str, Path]] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.endswith(".egg-info"))
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if path.suffix in _SKIP_SUFFIXES:
                continue
            out.append((path.relative_to(root).as_posix(), path))
    return out


def _record_line(arcname: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def _dist_info_files(p: dict) -> dict[str, bytes]:
    files = {"METADATA": _metadata(p).encode(), "WHEEL": _wheel_file().encode()}
    entry_points = _entry_points(p)
    if entry_points:
        files["entry_points.txt"] = entry_points.encode()
    return files


# --- PEP 517 hooks -----------------------------------------------------------


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    p = _project()
    dist_info = Path(metadata_directory) / _dist_info_name(p)
    dist_info.mkdir(parents=True, exist_ok=True)
    for name, data in _dist_info_files(p).items():
        (dist_info / name).write_bytes(data)
    return dist_info.name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    p = _project()
    wheel_name = f"{p['name'].replace('-', '_')}-{p['version']}-py3-none-any.whl"
    dist_info = _dist_info_name(p)
    record: list[str] = []
    target = Path(wheel_directory) / wheel_name
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as whl:
        for arcname, path in _package_files(p):
            data = path.read_bytes()
            whl.writestr(arcname, data)
            record.append(_record_line(arcname, data))
        for name, data in _dist_info_files(p).items():
            arcname = f"{dist_info}/{name}"
            whl.writestr(arcname, data)
            record.append(_record_line(arcname, data))
        record.append(f"{dist_info}/RECORD,,")
        whl.writestr(f"{dist_info}/RECORD", "\n".join(record) + "\n")
    return wheel_name


def build_sdist(sdist_directory, config_settings=None):
    p = _project()
    base = f"{p['name']}-{p['version']}"
    target = Path(sdist_directory) / f"{base}.tar.gz"
    with tarfile.open(target, "w:gz") as tar:
        for rel in ("pyproject.toml", "build_backend/standin_build.py"):
            tar.add(_ROOT / rel, arcname=f"{base}/{rel}")
        for arcname, path in _package_files(p):
            tar.add(path, arcname=f"{base}/{p['package_root'].relative_to(_ROOT).as_posix()}/{arcname}")
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        data = _metadata(p).encode()
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return target.name
