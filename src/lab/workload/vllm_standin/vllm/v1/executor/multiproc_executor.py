"""vLLM's multiprocessing executor across nodes (--nnodes > 1), as in vllm/v1/executor/multiproc_executor.py.

Node i holds the global ranks [local_world_size * i, local_world_size * (i + 1)),
local_world_size = world_size // nnodes (vllm/config/parallel.py). Every rank
joins torch's TCPStore at tcp://<master_addr>:<master_port> (vllm/v1/worker/
gpu_worker.py: ``if parallel_config.nnodes > 1: ip = master_addr; port = master_port``);
the stand-in's TCPStore is vllm/distributed/tcp_store.py. The head (node rank 0)
runs the engine and the API server; the others run headless (cli/main.py).
"""

from __future__ import annotations

from vllm.distributed.tcp_store import StoreServer, connect_to_store
from vllm.logger import init_logger
from vllm.standin.worker import StandinWorker
from vllm.utils.network_utils import get_ip
from vllm.v1.executor.abstract import Executor, StepOutput

logger = init_logger(__name__)

TORCH_DEFAULT_TIMEOUT_S = 600  # torch's default init_process_group timeout for NCCL groups


def node_ranks(world_size: int, nnodes: int, node_rank: int) -> list[int]:
    local = world_size // nnodes
    return list(range(local * node_rank, local * (node_rank + 1)))


def join_process_group(parallel_config):
    """Rendezvous for this node; returns (StoreServer | None, client socket | None, ranks)."""
    pc = parallel_config
    if pc.world_size % pc.nnodes != 0:
        raise ValueError(f"world_size ({pc.world_size}) must be a multiple of nnodes ({pc.nnodes}).")
    ranks = node_ranks(pc.world_size, pc.nnodes, pc.node_rank)
    timeout = pc.distributed_timeout_seconds or TORCH_DEFAULT_TIMEOUT_S
    init_method = f"tcp://{pc.master_addr}:{pc.master_port}"
    for rank in ranks:
        logger.debug(
            "world_size=%d rank=%d local_rank=%d distributed_init_method=%s backend=%s",
            pc.world_size,
            rank,
            rank - ranks[0],
            init_method,
            "nccl",
        )
    if 0 in ranks:
        server = StoreServer(pc.master_port, pc.world_size, ranks, timeout)
        server.wait_for_workers()
        return server, None, ranks
    conn = connect_to_store(pc.master_addr, pc.master_port, pc.node_rank, ranks, get_ip(), timeout)
    return None, conn, ranks


class MultiprocExecutor(Executor):
    def _init_executor(self) -> None:
        pc = self.parallel_config
        self.store, self.conn, ranks = join_process_group(pc)
        self.worker = StandinWorker(rpc_rank=ranks[0])
        self.worker.init_worker(0, 0, 1, "tcp://127.0.0.1:0", self.model_config.model)
        logger.info("All %d ranks on %d nodes joined the process group at %s:%d.", pc.world_size, pc.nnodes, pc.master_addr, pc.master_port)

    def execute_model(self, batch: list[tuple[bytes, int]]) -> StepOutput:
        return self.worker.execute_model(batch)

    def check_health(self) -> None:
        if self.store is not None:
            dead = self.store.dead_peers()
            if dead:
                raise RuntimeError(f"Worker processes on node rank(s) {sorted(dead)} died unexpectedly.")

    def shutdown(self) -> None:
        if self.store is not None:
            self.store.close()
        if self.conn is not None:
            self.conn.close()
