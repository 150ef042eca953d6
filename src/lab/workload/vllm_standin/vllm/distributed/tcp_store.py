"""torch's TCPStore rendezvous for vLLM's native multi-node mode, with the stdlib only.

Real vLLM (``--nnodes N --node-rank i --master-addr A --master-port P``) passes
``init_method="tcp://A:P"`` to torch.distributed.init_process_group: global rank 0
(on the head) serves a TCPStore on port P and every other rank connects to A:P
as a client. Ranks are not negotiated: each node computes its own from
--node-rank, so a repeated or skipped rank leaves a slot empty and the store
waits. Both ends fail with torch's wordings (torch/csrc/distributed/c10d):

- a client that cannot reach A:P within the timeout:
  ``The client socket has timed out after <t>s while trying to connect to (A, P).``
  (DistNetworkError; logged first as ``[E socket.cpp:957] [c10d] ...``);
- the server when ranks are missing:
  ``Timed out after <t+1> seconds waiting for clients. <k>/<n> clients joined.``
  (DistStoreError).

Wire format (the stand-in's own, newline-delimited JSON): a client sends
``{"node_rank": i, "ranks": [...], "host": ip}``; the server answers ``{"ok": true}``
once every rank 0..n-1 joined. The connection then stays open: it is how the
head knows each node's worker process is alive and how a headless node learns
that the head has gone.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import time

from vllm.logger import init_logger

logger = init_logger(__name__)


class DistNetworkError(RuntimeError):
    """Stands for torch.distributed.DistNetworkError."""


class DistStoreError(RuntimeError):
    """Stands for torch.distributed.DistStoreError."""


# Tracebacks name them as torch does ("torch.distributed.DistNetworkError: ...").
DistNetworkError.__module__ = "torch.distributed"
DistStoreError.__module__ = "torch.distributed"


def _c10d_error(message: str) -> None:
    sys.stderr.write(f"[E socket.cpp:957] [c10d] {message}\n")
    sys.stderr.flush()


class StoreServer:
    """The head's side: listen on the master port (all interfaces, as TCPStore does) and wait for every rank."""

    def __init__(self, port: int, world_size: int, own_ranks: list[int], timeout_s: float) -> None:
        self.port = port
        self.world_size = world_size
        self.timeout_s = timeout_s
        self.joined: set[int] = set(own_ranks)
        self.peers: dict[int, socket.socket] = {}  # node rank -> its open connection
        self._sock = socket.create_server(("", port), reuse_port=False)
        self._sock.settimeout(0.2)

    def wait_for_workers(self) -> None:
        deadline = time.monotonic() + self.timeout_s
        while len(self.joined) < self.world_size:
            if time.monotonic() > deadline:
                self.close()
                raise DistStoreError(
                    f"Timed out after {int(self.timeout_s) + 1} seconds waiting for clients. "
                    f"{len(self.joined)}/{self.world_size} clients joined."
                )
            try:
                conn, _ = self._sock.accept()
            except (socket.timeout, TimeoutError):
                continue
            try:
                conn.settimeout(5)
                hello = json.loads(conn.makefile("r").readline() or "{}")
            except (OSError, ValueError):
                conn.close()
                continue
            ranks = [r for r in hello.get("ranks", []) if isinstance(r, int) and 0 <= r < self.world_size]
            self.joined.update(ranks)
            self.peers[int(hello.get("node_rank", -1))] = conn
        for conn in self.peers.values():
            conn.sendall(b'{"ok": true}\n')
            conn.settimeout(None)
        self._sock.close()

    def dead_peers(self) -> list[int]:
        """Node ranks whose connection closed (their worker process is gone)."""
        dead = []
        for node_rank, conn in self.peers.items():
            try:
                conn.setblocking(False)
                if conn.recv(1, socket.MSG_PEEK) == b"":
                    dead.append(node_rank)
            except BlockingIOError:
                pass
            except OSError:
                dead.append(node_rank)
            finally:
                try:
                    conn.setblocking(True)
                except OSError:
                    pass
        return dead

    def close(self) -> None:
        for conn in self.peers.values():
            try:
                conn.close()
            except OSError:
                pass
        try:
            self._sock.close()
        except OSError:
            pass


def connect_to_store(host: str, port: int, node_rank: int, ranks: list[int], own_ip: str, timeout_s: float) -> socket.socket:
    """A non-head node: reach A:P, say which ranks it holds, wait until every rank joined."""
    deadline = time.monotonic() + timeout_s
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            message = f"The client socket has timed out after {int(timeout_s)}s while trying to connect to ({host}, {port})."
            _c10d_error(message)
            raise DistNetworkError(message)
        try:
            conn = socket.create_connection((host, port), timeout=min(5.0, remaining))
        except OSError:
            time.sleep(min(0.5, max(0.0, deadline - time.monotonic())))
            continue
        try:
            conn.sendall((json.dumps({"node_rank": node_rank, "ranks": ranks, "host": own_ip}) + "\n").encode())
            conn.settimeout(max(0.1, deadline - time.monotonic()))
            reply = conn.makefile("r").readline()
        except OSError:
            conn.close()
            continue
        if reply.strip():
            conn.settimeout(None)
            return conn
        conn.close()


def watch_head(conn: socket.socket, on_gone) -> threading.Thread:
    """A headless node: call on_gone() when the head closes the store connection."""

    def run() -> None:
        try:
            while conn.recv(4096):
                pass
        except OSError:
            pass
        on_gone()

    thread = threading.Thread(target=run, name="store-watch", daemon=True)
    thread.start()
    return thread
