"""Executor interface and selection, as in vllm/v1/executor/abstract.py."""

from __future__ import annotations

import vllm.envs as envs
from vllm.config import VllmConfig
from vllm.logger import init_logger
from vllm.standin import act_as

logger = init_logger(__name__)

# (token id, logit) candidates, best first, per sequence in the batch.
StepOutput = list[list[tuple[int, float]]]


class Executor:
    uses_ray: bool = False

    def __init__(self, vllm_config: VllmConfig) -> None:
        self.vllm_config = vllm_config
        self.parallel_config = vllm_config.parallel_config
        self.model_config = vllm_config.model_config
        self._init_executor()

    @staticmethod
    def get_class(vllm_config: VllmConfig) -> type["Executor"]:
        parallel_config = vllm_config.parallel_config
        backend = resolve_backend(
            parallel_config.world_size, parallel_config.distributed_executor_backend, parallel_config.nnodes
        )
        parallel_config.distributed_executor_backend = backend
        if backend == "ray":
            # The release acted as decides (vllm/standin/act_as.py): the flag, its default, or V2 only.
            if act_as.use_ray_v2():
                from vllm.v1.executor.ray_executor_v2 import RayExecutorV2

                return RayExecutorV2
            from vllm.v1.executor.ray_executor import RayDistributedExecutor

            return RayDistributedExecutor
        if backend == "mp" and parallel_config.nnodes > 1:
            from vllm.v1.executor.multiproc_executor import MultiprocExecutor

            return MultiprocExecutor
        if parallel_config.world_size == 1:
            from vllm.v1.executor.uniproc_executor import UniProcExecutor

            return UniProcExecutor
        raise ValueError(
            f"The vLLM stand-in runs world_size={parallel_config.world_size} only with "
            "--distributed-executor-backend ray (it has no multiprocessing executor)."
        )

    def _init_executor(self) -> None:
        raise NotImplementedError

    def execute_model(self, batch: list[tuple[bytes, int]]) -> StepOutput:
        """One decode step for every (state digest, tokens generated) in the batch."""
        raise NotImplementedError

    def check_health(self) -> None:
        """Raise if the executor cannot serve any more."""

    def shutdown(self) -> None:
        pass


def resolve_backend(world_size: int, backend: str | None, nnodes: int = 1) -> str:
    """vLLM's default: mp across nodes when --nnodes > 1; else Ray when the local GPUs cannot hold the world size."""
    if backend is not None:
        return backend
    if world_size == 1:
        return "uni"
    if nnodes > 1:
        return "mp"
    if envs.VLLM_STANDIN_LOCAL_GPUS < world_size:
        chosen = "ray"
    else:
        chosen = "mp"
    logger.debug("Defaulting to use %s for distributed inference", chosen)
    return chosen
