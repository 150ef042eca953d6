"""What a tensor-parallel worker does in the stand-in.

The Ray actor classes (RayWorkerWrapper for the classic executor,
RayWorkerProc for RayExecutorV2) subclass this. Everything here runs in the
worker's own process on its own node, so ``get_ip()`` reads that node's
environment (Ray actors inherit the environment of the raylet, i.e. of the
container where ``ray start`` ran; vLLM does not copy VLLM_HOST_IP from the
driver).
"""

from __future__ import annotations

import logging
import os
import socket
import time

import vllm.envs as envs
from vllm.logger import init_logger
from vllm.standin import act_as
from vllm.standin import faults
from vllm.standin import toy_model
from vllm.distributed.parallel_state import init_distributed_environment
from vllm.utils.network_utils import get_ip, get_tcp_uri

logger = init_logger(__name__)

#: A load brings its weights into memory shard by shard: pieces of this size, a short pause between.
LOAD_PIECE_BYTES = 64 * 1024 * 1024
LOAD_PIECE_PAUSE_S = 0.25


def load_bytes(n: int) -> list[bytearray]:
    """Allocate and write ``n`` bytes (every page touched, so resident), in pieces; the caller holds them."""
    pieces: list[bytearray] = []
    left = n
    while left > 0:
        size = min(LOAD_PIECE_BYTES, left)
        pieces.append(bytearray(b"\x5a") * size)
        left -= size
        if left > 0:
            time.sleep(LOAD_PIECE_PAUSE_S)
    return pieces


class StandinWorker:
    def __init__(self, rpc_rank: int = 0) -> None:
        self.rpc_rank = rpc_rank
        self.rank = rpc_rank
        self.world_size = 1
        self.shard: range = range(0)
        self._listener: socket.socket | None = None
        self._weights: list[bytearray] = []

    # --- identity --------------------------------------------------------

    def get_node_ip(self) -> str:
        return get_ip()

    def get_node_and_gpu_ids(self) -> tuple[str, list[int]]:
        import ray

        node_id = ray.get_runtime_context().get_node_id()
        gpu_ids = ray.get_runtime_context().get_accelerator_ids().get("GPU", [])
        return node_id, [int(x) for x in gpu_ids]

    def ray_node_ip(self) -> str:
        import ray

        return ray.util.get_node_ip_address()

    def adjust_rank(self, rank_mapping: dict[int, int]) -> None:
        if self.rpc_rank in rank_mapping:
            self.rpc_rank = rank_mapping[self.rpc_rank]

    # --- distributed init ------------------------------------------------

    def create_dist_init_method(self) -> str:
        """RayExecutorV2: rank 0 opens the rendezvous on Ray's node IP."""
        host = self.ray_node_ip()
        self._listener = socket.create_server(("", 0))
        return get_tcp_uri(host, self._listener.getsockname()[1])

    def update_environment_variables(self, env_vars: dict[str, str]) -> None:
        """The driver's VLLM_* variables, minus the worker-specific ones."""
        os.environ.update(env_vars)
        logging.getLogger("vllm").setLevel(envs.VLLM_LOGGING_LEVEL)

    def init_worker(self, rank: int, local_rank: int, world_size: int, distributed_init_method: str, model: str) -> None:
        self.rank = rank
        self.world_size = world_size
        listener, self._listener = self._listener, None
        faults.at_phase("distributed-init", rank)
        init_distributed_environment(world_size, rank, distributed_init_method, local_rank, "nccl", listener)
        self.shard = toy_model.shard_ids(rank, world_size)
        if act_as.release().logs_load_start:
            logger.info("Starting to load model %s...", model)
        else:
            logger.info("Loading model from scratch...")
        faults.at_phase("weights-loading", rank)
        self._weights = load_bytes(envs.VLLM_STANDIN_LOAD_BYTES)
        delay = envs.VLLM_STANDIN_LOAD_DELAY_S
        if delay > 0:
            time.sleep(delay)
        logger.info(act_as.release().load_took_format, "0.0", max(delay, 0.0))
        faults.at_phase("kv-cache-profiling", rank)
        logger.info(
            "Stand-in model: vocabulary shard %d of %d, %d tokens",
            rank,
            world_size,
            len(self.shard),
        )

    # --- inference -------------------------------------------------------

    def execute_model(self, batch: list[tuple[bytes, int]]) -> list[list[tuple[int, float]]]:
        """Score this rank's vocabulary shard for every sequence in the batch."""
        delay = envs.VLLM_STANDIN_TOKEN_DELAY_S
        if delay > 0:
            time.sleep(delay)
        return [toy_model.score_shard(self.shard, digest, n) for digest, n in batch]

    def check_health(self) -> bool:
        return True
