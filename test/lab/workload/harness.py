"""Helpers for the stand-in tests: a real Ray cluster on this host, the
stand-in as a subprocess, and a tiny HTTP client. Stdlib only.

Every process is started in its own session and stopped by its process
group id (never `ray stop`, which would kill every Ray on the machine).
Logs live under <repo>/.lab/workload-tests/ (gitignored); Ray's own temp dir
is a fresh /tmp/vllm-standin-ray-* per cluster, removed when it stops.

A "two-node" cluster is two raylets on this host: a head and one more node,
each with one GPU (Ray's --num-gpus is only a resource count). Each raylet
gets its own environment, like a container per DGX Spark: that is where the
workers' VLLM_HOST_IP comes from.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
LAB = Path(os.environ.get("VLLM_STANDIN_LAB_DIR", REPO / ".lab"))
VENV = Path(os.environ.get("VLLM_STANDIN_VENV", LAB / "venv-test"))
RUNS = LAB / "workload-tests"  # Ray temp dirs and process logs of the test runs
BIN = VENV / "bin"

# Made-up addresses: used only as Ray resource names / reported IPs, never contacted.
FAKE_DRIVER_IP = "10.99.99.99"
FAKE_WORKER_IP = "10.99.99.98"


def free_port() -> int:
    """A free TCP port from the ephemeral range (outside Ray's worker ports 10002-19999)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def base_env(**extra: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VLLM_", "RAY_"))}
    env["PATH"] = f"{BIN}:{env.get('PATH', '')}"
    env["PYTHONUNBUFFERED"] = "1"
    for key, value in extra.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


class Proc:
    """A subprocess in its own session whose merged output is kept and logged."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], log_dir: Path) -> None:
        self.name = name
        self.lines: list[str] = []
        self._cond = threading.Condition()
        log_dir.mkdir(parents=True, exist_ok=True)
        self.log_path = log_dir / f"{name}.log"
        self._log = open(self.log_path, "w", buffering=1)
        self.popen = subprocess.Popen(
            ["nice", "-n", "10", *argv],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
            cwd=log_dir,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.popen.stdout is not None
        for line in self.popen.stdout:
            self._log.write(line)
            with self._cond:
                self.lines.append(line.rstrip("\n"))
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    @property
    def output(self) -> str:
        with self._cond:
            return "\n".join(self.lines)

    def wait_for(self, pattern: str, timeout: float) -> re.Match:
        """First match of a regex in the output; fail if the process ends first."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        seen = 0
        with self._cond:
            while True:
                for line in self.lines[seen:]:
                    m = regex.search(line)
                    if m:
                        return m
                seen = len(self.lines)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"{self.name}: no line matching {pattern!r} within {timeout}s; see {self.log_path}")
                if self.popen.poll() is not None and not self._reader.is_alive():
                    raise AssertionError(
                        f"{self.name}: exited with {self.popen.returncode} before {pattern!r}; see {self.log_path}\n"
                        + "\n".join(self.lines[-30:])
                    )
                self._cond.wait(timeout=min(remaining, 0.5))

    def wait_exit(self, timeout: float) -> int:
        rc = self.popen.wait(timeout=timeout)
        self._reader.join(timeout=5)
        return rc

    def stop(self, grace: float = 15.0) -> None:
        if self.popen.poll() is None:
            self._signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
        # Children (raylet, gcs_server, Ray workers) share the process group.
        self._signal(signal.SIGKILL)
        try:
            self.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self._reader.join(timeout=5)
        self._log.close()

    def _signal(self, sig: int) -> None:
        try:
            os.killpg(self.popen.pid, sig)
        except ProcessLookupError:
            pass


class RayCluster:
    """A head raylet plus optional extra nodes on this host, one GPU each."""

    def __init__(self, name: str) -> None:
        RUNS.mkdir(parents=True, exist_ok=True)
        self.dir = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=RUNS))
        # Ray's own temp dir (sessions, unix sockets) goes under /tmp: socket paths must
        # stay under 108 bytes, which a repository path plus a Ray session name can exceed.
        self.ray_tmp = Path(tempfile.mkdtemp(prefix="vllm-standin-ray-", dir="/tmp"))
        self.procs: list[Proc] = []
        self.port = free_port()
        self.address = ""
        self.node_ip = ""

    def _common(self) -> list[str]:
        return [
            "--block",
            "--num-gpus", "1",
            "--num-cpus", "2",
            "--object-store-memory", "100000000",
            "--disable-usage-stats",
            "--dashboard-agent-listen-port", str(free_port()),
            "--dashboard-agent-grpc-port", str(free_port()),
            "--metrics-export-port", str(free_port()),
            "--runtime-env-agent-port", str(free_port()),
        ]  # fmt: skip

    def start_head(self, vllm_host_ip: str | None) -> None:
        argv = [
            str(BIN / "ray"), "start", "--head",
            "--node-ip-address", "127.0.0.1",
            "--port", str(self.port),
            "--include-dashboard=false",
            "--dashboard-port", str(free_port()),
            "--temp-dir", str(self.ray_tmp),
            *self._common(),
        ]  # fmt: skip
        proc = Proc("ray-head", argv, base_env(VLLM_HOST_IP=vllm_host_ip), self.dir)
        self.procs.append(proc)
        # Ray rewrites --node-ip-address 127.0.0.1 to the host's default-route IP.
        self.node_ip = proc.wait_for(r"Local node IP: (\S+)", timeout=90).group(1)
        self.address = f"{self.node_ip}:{self.port}"
        self.wait_nodes(1)

    def add_node(self, vllm_host_ip: str | None) -> None:
        argv = [
            str(BIN / "ray"), "start",
            "--address", self.address,
            "--node-ip-address", self.node_ip,
            *self._common(),
        ]  # fmt: skip
        n = len(self.procs)
        # Ray's own start gives up when its raylet does not register in time ("The current node timed out during
        # startup … the GCS has become overloaded"): on a loaded CI machine that is Ray's wait, not the test's
        # subject, so such a node is started once more; any other failure is raised as it is.
        for attempt in range(2):
            proc = Proc(f"ray-node{n}" + ("-again" if attempt else ""), argv, base_env(VLLM_HOST_IP=vllm_host_ip), self.dir)
            self.procs.append(proc)
            try:
                self.wait_nodes(n + 1)
                return
            except AssertionError:
                if attempt == 1 or "timed out during startup" not in proc.output:
                    raise
                proc.stop(grace=5)
                self.procs.remove(proc)

    def nodes(self) -> list[dict]:
        code = (
            "import json, ray; ray.init(address=%r, logging_level='error', log_to_driver=False);"
            "print('NODES=' + json.dumps([n for n in ray.nodes() if n['Alive']]))" % self.address
        )
        out = subprocess.run(
            [str(BIN / "python"), "-c", code], env=base_env(), capture_output=True, text=True, timeout=120
        )
        for line in out.stdout.splitlines():
            if line.startswith("NODES="):
                return json.loads(line[len("NODES="):])
        raise AssertionError(f"ray.nodes() failed: {out.stderr[-2000:]}")

    def wait_nodes(self, count: int, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while True:
            alive = self.nodes()
            if len(alive) >= count:
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"only {len(alive)} of {count} Ray nodes alive; see {self.dir}")
            time.sleep(1)

    def stop(self) -> None:
        for proc in reversed(self.procs):
            proc.stop(grace=5)
        # Ray's session files (sockets, its own logs) go; our *.log files stay.
        shutil.rmtree(self.ray_tmp, ignore_errors=True)


class Client:
    """A tiny HTTP client for one server port."""

    def __init__(self, port: int) -> None:
        self.port = port

    def request(self, method: str, path: str, body: object | None = None, timeout: float = 60) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
            headers = {"content-type": "application/json"} if data is not None else {}
            conn.request(method, path, body=data, headers=headers)
            resp = conn.getresponse()
            return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
        finally:
            conn.close()

    def get_json(self, path: str) -> tuple[int, dict]:
        status, _, raw = self.request("GET", path)
        return status, json.loads(raw)

    def post_json(self, path: str, body: object) -> tuple[int, dict]:
        status, _, raw = self.request("POST", path, body)
        return status, json.loads(raw)

    def health(self) -> int | str:
        """HTTP status of GET /health, or "refused"."""
        try:
            return self.request("GET", "/health", timeout=10)[0]
        except ConnectionRefusedError:
            return "refused"

    def stream(self, path: str, body: dict) -> list[str]:
        """The SSE `data:` payloads of a streamed response."""
        status, headers, raw = self.request("POST", path, body)
        assert status == 200, raw
        assert headers["content-type"].startswith("text/event-stream"), headers
        return [line[len("data: "):] for line in raw.decode().split("\n") if line.startswith("data: ")]


class Standin(Client):
    """`vllm serve` of the stand-in, against a cluster."""

    def __init__(self, name: str, cluster: RayCluster | None, args: list[str], **env: str | None) -> None:
        super().__init__(free_port())
        argv = [str(BIN / "vllm"), "serve", "standin-toy", "--port", str(self.port), "--host", "127.0.0.1", *args]
        extra = {"VLLM_STANDIN_LOAD_DELAY_S": "0.2", "VLLM_STANDIN_TOKEN_DELAY_S": "0.001"}
        if cluster is not None:
            extra["RAY_ADDRESS"] = cluster.address
        extra.update(env)
        log_dir = cluster.dir if cluster is not None else RUNS / "standin-logs"
        self.proc = Proc(f"vllm-{name}", argv, base_env(**extra), log_dir)

    def wait_ready(self, timeout: float = 120) -> None:
        self.proc.wait_for(r"Uvicorn running on http://", timeout)

    def stop(self) -> None:
        self.proc.stop()
