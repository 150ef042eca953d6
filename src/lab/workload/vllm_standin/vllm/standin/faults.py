"""Faults in a chosen phase of the start, on a chosen node (stand-in only).

A lab scenario sets VLLM_STANDIN_STALL_IN or VLLM_STANDIN_DIE_IN to a phase name and
VLLM_STANDIN_FAULT_NODE to the node (its IP or host name) in every node's container: Ray workers
inherit the container's environment, so the worker on that node, and only it, stalls or dies when
it enters the phase. A stall prints nothing more, as a hung NFS read or a deadlocked autotune would;
a death logs an ERROR line first, as vLLM's worker does before re-raising (worker_base.py,
"Error executing method ... This might cause deadlock in distributed execution." up to 0.28).
"""

from __future__ import annotations

import socket
import time

import vllm.envs as envs
from vllm.logger import init_logger
from vllm.utils.network_utils import get_ip

logger = init_logger(__name__)

PHASES = ("distributed-init", "weights-loading", "kv-cache-profiling")


def _here() -> bool:
    node = envs.VLLM_STANDIN_FAULT_NODE
    return node == "" or node in (get_ip(), socket.gethostname(), socket.getfqdn())


def at_phase(phase: str, rank: int) -> None:
    """Stall or die here when the environment asks it for this phase on this node."""
    if not _here():
        return
    if envs.VLLM_STANDIN_DIE_IN == phase:
        logger.error(
            "Error executing method 'init_worker' in %s on rank %d. This might cause deadlock in distributed execution.",
            phase,
            rank,
        )
        raise RuntimeError(f"stand-in fault: rank {rank} died in {phase} (VLLM_STANDIN_DIE_IN)")
    if envs.VLLM_STANDIN_STALL_IN == phase:
        while True:
            time.sleep(3600)
