"""Distributed init, as far as the stand-in has one (cf. vllm/distributed/parallel_state.py).

Real vLLM calls torch.distributed.init_process_group(init_method=
"tcp://<driver ip>:<port>") here: rank 0 serves a TCP store on that port and
every other rank must reach it from its own node. The stand-in keeps exactly
that handshake (plain TCP, no NCCL), so an IP that is not routable between
the nodes fails at the same point and with the same kind of error.
"""

from __future__ import annotations

import socket
import time

import vllm.envs as envs
from vllm.logger import init_logger
from vllm.utils.network_utils import parse_tcp_uri

logger = init_logger(__name__)


class DistNetworkError(RuntimeError):
    """Stands for torch.distributed.DistNetworkError."""


def init_distributed_environment(
    world_size: int,
    rank: int,
    distributed_init_method: str,
    local_rank: int,
    backend: str = "nccl",
    listener: socket.socket | None = None,
) -> None:
    logger.debug(
        "world_size=%d rank=%d local_rank=%d distributed_init_method=%s backend=%s",
        world_size,
        rank,
        local_rank,
        distributed_init_method,
        backend,
    )
    if world_size > 1:
        _rendezvous(world_size, rank, distributed_init_method, listener)


def _rendezvous(world_size: int, rank: int, init_method: str, listener: socket.socket | None) -> None:
    host, port = parse_tcp_uri(init_method)
    timeout = envs.VLLM_STANDIN_DIST_INIT_TIMEOUT_S
    deadline = time.monotonic() + timeout
    if rank == 0:
        server = listener or socket.create_server(("", port))
        server.settimeout(1.0)
        peers: list[socket.socket] = []
        try:
            while len(peers) < world_size - 1:
                if time.monotonic() > deadline:
                    raise DistNetworkError(
                        f"Timed out after {timeout:.0f}s: {world_size - 1 - len(peers)} of "
                        f"{world_size - 1} ranks did not connect to {init_method}."
                    )
                try:
                    conn, _ = server.accept()
                except socket.timeout:
                    continue
                conn.settimeout(10)
                conn.recv(64)
                peers.append(conn)
            for conn in peers:
                conn.sendall(b"ok\n")
        finally:
            for conn in peers:
                conn.close()
            server.close()
        return
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=5) as conn:
                conn.sendall(f"{rank}\n".encode())
                conn.settimeout(max(1.0, deadline - time.monotonic()))
                if conn.recv(16).startswith(b"ok"):
                    return
        except OSError as e:
            last_error = e
        time.sleep(0.5)
    raise DistNetworkError(
        f"The client socket has timed out after {int(timeout * 1000)}ms while trying "
        f"to connect to ({host}, {port}). Last error: {last_error}"
    )
