"""The few configuration objects the stand-in needs (cf. vllm/config/)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ModelConfig:
    model: str
    served_model_names: list[str]
    max_model_len: int = 4096

    @property
    def served_model_name(self) -> str:
        return self.served_model_names[0]


@dataclass
class ParallelConfig:
    tensor_parallel_size: int = 1
    pipeline_parallel_size: int = 1
    distributed_executor_backend: str | None = None
    # Set by initialize_ray_cluster, as in vLLM.
    placement_group: Any = None
    # Native multi-node (mp) mode, defaults as in vllm/config/parallel.py.
    master_addr: str = "127.0.0.1"
    master_port: int = 29501
    node_rank: int = 0
    nnodes: int = 1
    distributed_timeout_seconds: int | None = None

    @property
    def world_size(self) -> int:
        return self.tensor_parallel_size * self.pipeline_parallel_size


@dataclass
class SchedulerConfig:
    max_num_seqs: int = 256


@dataclass
class ServerConfig:
    host: str | None = None
    port: int = 8000
    api_key: str | None = None
    disable_access_log: bool = False


@dataclass
class VllmConfig:
    model_config: ModelConfig
    parallel_config: ParallelConfig
    scheduler_config: SchedulerConfig
    server_config: ServerConfig
    non_default_args: dict[str, Any] = field(default_factory=dict)
    ignored_args: list[str] = field(default_factory=list)
    headless: bool = False
