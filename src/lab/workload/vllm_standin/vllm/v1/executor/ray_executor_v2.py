"""RayExecutorV2, as in vllm/v1/executor/ray_executor_v2.py.

Selected with VLLM_USE_RAY_V2_EXECUTOR_BACKEND=1. It calls
initialize_ray_cluster(require_gpu_on_driver=False): no ``node:<ip>`` pin and
no driver-GPU check. Bundles are ordered driver node first from Ray's own
node table, and rank 0 opens the rendezvous on
``ray.util.get_node_ip_address()`` (Ray's identity of its node), not on
get_ip(). There is no unique-IP check.
"""

from __future__ import annotations

import os
import uuid

import ray
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

import vllm.envs as envs
from vllm.logger import init_logger
from vllm.standin.worker import StandinWorker
from vllm.v1.executor.ray_executor import RayExecutorCommon, WORKER_SPECIFIC_ENV_VARS
from vllm.v1.executor.ray_utils import get_bundles_sorted_by_node, initialize_ray_cluster

logger = init_logger(__name__)


class RayWorkerProc(StandinWorker):
    """RayExecutorV2's worker actor (same class name as vLLM's)."""

    def update_environment_variables(self, env_vars: dict[str, str]) -> None:
        # V2 applies the driver's variables without overwriting node-local ones.
        super().update_environment_variables({k: v for k, v in env_vars.items() if k not in os.environ})


def build_actor_name(instance_id: str, rank: int, tp_size: int, pp_size: int) -> str:
    name = f"vllm_Worker_{instance_id}"
    if tp_size > 1:
        name += f"_TP{rank % tp_size}"
    if pp_size > 1:
        name += f"_PP{(rank // tp_size) % pp_size}"
    return name


class RayExecutorV2(RayExecutorCommon):
    """Ray-based distributed executor using Ray's own node identity."""

    def _init_executor(self) -> None:
        self.workers = []
        initialize_ray_cluster(self.parallel_config, require_gpu_on_driver=False)
        placement_group = self.parallel_config.placement_group
        tp_size = self.parallel_config.tensor_parallel_size
        pp_size = self.parallel_config.pipeline_parallel_size
        world_size = self.parallel_config.world_size

        if envs.VLLM_RAY_BUNDLE_INDICES:
            from ray.util.placement_group import placement_group_table

            indices = list(map(int, envs.VLLM_RAY_BUNDLE_INDICES.split(",")))
            bundle_to_node = placement_group_table(placement_group)["bundles_to_node_id"]
            node_ip = {n["NodeID"]: n["NodeManagerAddress"] for n in ray.nodes() if n["Alive"]}
            assignments = [(b, bundle_to_node[b], node_ip[bundle_to_node[b]]) for b in indices]
        else:
            assignments = get_bundles_sorted_by_node(placement_group)
        assignments = assignments[:world_size]

        instance_id = uuid.uuid4().hex[:8]
        for rank, (bundle_idx, _node_id, _node_ip) in enumerate(assignments):
            actor = (
                ray.remote(RayWorkerProc)
                .options(
                    name=build_actor_name(instance_id, rank, tp_size, pp_size),
                    num_cpus=0,
                    num_gpus=envs.VLLM_RAY_PER_WORKER_GPUS,
                    scheduling_strategy=PlacementGroupSchedulingStrategy(
                        placement_group=placement_group,
                        placement_group_bundle_index=bundle_idx,
                    ),
                )
                .remote(rpc_rank=rank)
            )
            self.workers.append(actor)

        env_vars = {k: v for k, v in os.environ.items() if k.startswith("VLLM_") and k not in WORKER_SPECIFIC_ENV_VARS}
        ray.get([w.update_environment_variables.remote(env_vars) for w in self.workers])

        distributed_init_method = ray.get(self.workers[0].create_dist_init_method.remote())
        node_ids = [node_id for _, node_id, _ in assignments]
        init_refs = []
        for rank, worker in enumerate(self.workers):
            local_rank = node_ids[:rank].count(node_ids[rank])
            init_refs.append(
                worker.init_worker.remote(rank, local_rank, world_size, distributed_init_method, self.model_config.model)
            )
        ray.get(init_refs)
        self._log_kv_cache()

    def check_health(self) -> None:
        # V2 inherits MultiprocExecutor.check_health: collective_rpc, timeout 10 s.
        self._ping_workers(timeout=10)
