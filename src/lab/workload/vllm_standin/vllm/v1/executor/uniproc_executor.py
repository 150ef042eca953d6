"""Single-worker executor without Ray (world_size 1), for quick local runs."""

from __future__ import annotations

from vllm.standin.worker import StandinWorker
from vllm.v1.executor.abstract import Executor, StepOutput


class UniProcExecutor(Executor):
    def _init_executor(self) -> None:
        self.worker = StandinWorker(rpc_rank=0)
        self.worker.init_worker(0, 0, 1, "tcp://127.0.0.1:0", self.model_config.model)

    def execute_model(self, batch: list[tuple[bytes, int]]) -> StepOutput:
        return self.worker.execute_model(batch)
