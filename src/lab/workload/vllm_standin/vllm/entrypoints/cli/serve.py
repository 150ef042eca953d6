"""`vllm serve --headless` on the nodes other than the head (cf. vllm/entrypoints/cli/serve.py, run_headless).

vLLM forces --api-server-count 0 and, when node_rank_within_dp > 0, starts a bare
MultiprocExecutor whose workers join the head's process group at
master_addr:master_port, logging:

    Launching vLLM (v<ver>) headless multiproc executor, with head node address <A>:<P> for torch.distributed process group.

The stand-in joins the same rendezvous (vllm/distributed/tcp_store.py) and then
stays up until the head goes away or it is told to stop.
"""

from __future__ import annotations

import signal
import sys
import threading

from vllm.config import VllmConfig
from vllm.distributed.tcp_store import DistNetworkError, DistStoreError, watch_head
from vllm.logger import init_logger, print_exception, set_process_role
from vllm.version import __version__ as VLLM_VERSION

logger = init_logger("vllm.entrypoints.cli.serve")


def run_headless(vllm_config: VllmConfig) -> int:
    from vllm.v1.executor.multiproc_executor import join_process_group

    set_process_role(None)
    pc = vllm_config.parallel_config
    if pc.node_rank == 0:
        logger.error("--headless is for the nodes other than the head: node rank 0 serves the API (drop --headless there).")
        return 2
    pc.distributed_executor_backend = pc.distributed_executor_backend or "mp"
    logger.info(
        "Launching vLLM (v%s) headless multiproc executor, with head node address %s:%d for torch.distributed process group.",
        VLLM_VERSION,
        pc.master_addr,
        pc.master_port,
    )
    try:
        _, conn, ranks = join_process_group(pc)
    except (DistNetworkError, DistStoreError, ValueError) as e:
        print_exception(e, "vllm.entrypoints.cli.serve")
        return 1
    logger.info("Node rank %d joined the process group with ranks %s; serving as workers for the head.", pc.node_rank, ranks)
    stop = threading.Event()
    code = {"value": 0}

    def head_gone() -> None:
        if not stop.is_set():
            logger.error("The head node closed the process group; shutting down this headless node.")
            code["value"] = 1
            stop.set()

    def on_signal(_signum, _frame) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    watch_head(conn, head_gone)
    stop.wait()
    conn.close()
    return code["value"]


if __name__ == "__main__":
    sys.exit(1)
