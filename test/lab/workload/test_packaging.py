"""The stand-in installs offline, without any build backend from an index."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import subprocess
import sys
import tempfile
import unittest
import zipfile
from pathlib import Path

import harness

WORKLOAD = harness.REPO / "src" / "lab" / "workload"


def load_backend():
    sys.dont_write_bytecode = True  # never write __pycache__ into src/lab/workload
    spec = importlib.util.spec_from_file_location("standin_build", WORKLOAD / "build_backend" / "standin_build.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


class BuildBackendTests(unittest.TestCase):
    def test_wheel_has_the_package_the_command_and_a_valid_record(self) -> None:
        backend = load_backend()
        self.assertEqual(backend.get_requires_for_build_wheel(), [])
        with tempfile.TemporaryDirectory() as out:
            name = backend.build_wheel(out)
            self.assertEqual(name, "vllm-0.17.0+standin-py3-none-any.whl")
            with zipfile.ZipFile(Path(out) / name) as whl:
                names = set(whl.namelist())
                self.assertIn("vllm/__init__.py", names)
                self.assertIn("vllm/entrypoints/openai/api_server.py", names)
                self.assertFalse([n for n in names if "__pycache__" in n or n.endswith(".pyc")])
                dist_info = "vllm-0.17.0+standin.dist-info"
                self.assertIn(
                    "vllm = vllm.entrypoints.cli.main:main",
                    whl.read(f"{dist_info}/entry_points.txt").decode(),
                )
                metadata = whl.read(f"{dist_info}/METADATA").decode()
                self.assertIn("Version: 0.17.0+standin", metadata)
                self.assertIn("Requires-Dist: ray", metadata)
                for line in whl.read(f"{dist_info}/RECORD").decode().splitlines():
                    path, digest, size = line.split(",")
                    if not digest:
                        continue
                    data = whl.read(path)
                    expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                    self.assertEqual(digest, f"sha256={expected}", path)
                    self.assertEqual(int(size), len(data), path)

    def test_sdist_builds(self) -> None:
        backend = load_backend()
        with tempfile.TemporaryDirectory() as out:
            self.assertEqual(backend.build_sdist(out), "vllm-0.17.0+standin.tar.gz")


class InstalledStandinTests(unittest.TestCase):
    def test_import_marker_and_version(self) -> None:
        out = subprocess.run(
            [str(harness.BIN / "python"), "-c", "import vllm; print(vllm.__version__, vllm.STANDIN)"],
            capture_output=True,
            text=True,
            check=True,
        )
        self.assertEqual(out.stdout.split(), ["0.17.0+standin", "True"])

    def test_console_command(self) -> None:
        out = subprocess.run([str(harness.BIN / "vllm"), "--version"], capture_output=True, text=True, check=True)
        self.assertEqual(out.stdout.strip(), "0.17.0+standin")
        bad = subprocess.run([str(harness.BIN / "vllm"), "bench"], capture_output=True, text=True)
        self.assertEqual(bad.returncode, 2)

    def test_serve_requires_a_model(self) -> None:
        out = subprocess.run([str(harness.BIN / "vllm"), "serve"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 2)
        self.assertIn("model is required", out.stderr)


if __name__ == "__main__":
    unittest.main()
