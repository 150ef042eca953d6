"""The stand-in's native multi-node mode (vllm serve --nnodes/--node-rank/--master-addr/--master-port/--headless).

Stdlib only: the mp path needs no Ray, so these run with the interpreter that
runs them (the test venv, or any python3) and the stand-in source on PYTHONPATH.
Each case waits for the line that proves it, never for a fixed time.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
import unittest
from pathlib import Path

STANDIN = Path(__file__).resolve().parents[3] / "src" / "lab" / "workload" / "vllm_standin"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(*args: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VLLM_", "RAY_"))}
    env.update(PYTHONPATH=str(STANDIN), PYTHONUNBUFFERED="1", VLLM_STANDIN_LOAD_DELAY_S="0", VLLM_STANDIN_TOKEN_DELAY_S="0")
    argv = [sys.executable, "-m", "vllm.entrypoints.cli.main", "serve", "/models/toy", "--served-model-name", "toy", *args]
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)


def read_until(proc: subprocess.Popen, needle: str, seen: list[str]) -> str:
    """Lines until one contains needle (or the process ends: then fail with what it said)."""
    assert proc.stdout is not None
    for line in proc.stdout:
        seen.append(line)
        if needle in line:
            return line
    raise AssertionError(f"process ended without {needle!r}:\n{''.join(seen)}")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
    proc.wait(timeout=30)
    if proc.stdout is not None:
        proc.stdout.close()


class NativeMultiNodeTests(unittest.TestCase):
    def test_head_serves_once_every_rank_joined_and_headless_leaves_with_the_head(self) -> None:
        master, api = free_port(), free_port()
        common = ["--tensor-parallel-size", "2", "--nnodes", "2", "--master-addr", "127.0.0.1", "--master-port", str(master)]
        head = serve(*common, "--node-rank", "0", "--host", "127.0.0.1", "--port", str(api))
        worker = serve(*common, "--node-rank", "1", "--headless")
        head_out: list[str] = []
        worker_out: list[str] = []
        try:
            line = read_until(worker, "headless multiproc executor", worker_out)
            self.assertIn(f"with head node address 127.0.0.1:{master} for torch.distributed process group.", line)
            read_until(head, "Uvicorn running on", head_out)
            read_until(worker, "joined the process group with ranks [1]", worker_out)
            conn = http.client.HTTPConnection("127.0.0.1", api, timeout=30)
            conn.request("POST", "/v1/completions", body=json.dumps({"model": "toy", "prompt": "hi", "max_tokens": 2}), headers={"content-type": "application/json"})
            resp = conn.getresponse()
            self.assertEqual(resp.status, 200, resp.read())
            conn.close()
            stop(head)
            read_until(worker, "The head node closed the process group", worker_out)
            self.assertEqual(worker.wait(timeout=30), 1)
        finally:
            stop(head)
            stop(worker)

    def test_head_alone_times_out_with_torchs_store_wording(self) -> None:
        head = serve("--tensor-parallel-size", "2", "--nnodes", "2", "--node-rank", "0", "--master-port", str(free_port()),
                     "--port", str(free_port()), "--distributed-timeout-seconds", "1")  # fmt: skip
        out: list[str] = []
        try:
            line = read_until(head, "waiting for clients", out)
            self.assertIn("torch.distributed.DistStoreError: Timed out after 2 seconds waiting for clients. 1/2 clients joined.", line)
            self.assertNotEqual(head.wait(timeout=30), 0)
        finally:
            stop(head)

    def test_worker_without_head_times_out_with_c10d_client_wording(self) -> None:
        master = free_port()
        worker = serve("--tensor-parallel-size", "2", "--nnodes", "2", "--node-rank", "1", "--headless",
                       "--master-addr", "127.0.0.1", "--master-port", str(master), "--distributed-timeout-seconds", "1")  # fmt: skip
        out: list[str] = []
        try:
            line = read_until(worker, "[c10d]", out)
            self.assertIn(f"The client socket has timed out after 1s while trying to connect to (127.0.0.1, {master}).", line)
            read_until(worker, "torch.distributed.DistNetworkError", out)
            self.assertEqual(worker.wait(timeout=30), 1)
        finally:
            stop(worker)

    def test_repeated_rank_leaves_a_slot_empty(self) -> None:
        master = free_port()
        common = ["--tensor-parallel-size", "3", "--nnodes", "3", "--master-port", str(master), "--distributed-timeout-seconds", "2"]
        head = serve(*common, "--node-rank", "0", "--port", str(free_port()))
        twins = [serve(*common, "--node-rank", "1", "--headless", "--master-addr", "127.0.0.1") for _ in range(2)]
        out: list[str] = []
        try:
            line = read_until(head, "waiting for clients", out)
            self.assertIn("2/3 clients joined.", line)
        finally:
            for p in [head, *twins]:
                stop(p)

    def test_node_rank_must_be_below_nnodes(self) -> None:
        proc = serve("--nnodes", "2", "--node-rank", "2", "--headless")
        out, _ = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("--node-rank (2) must be less than --nnodes (2)", out)


if __name__ == "__main__":
    unittest.main()
