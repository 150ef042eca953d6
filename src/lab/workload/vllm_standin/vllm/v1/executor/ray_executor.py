"""The classic Ray executor, as in vllm/v1/executor/ray_executor.py.

RayDistributedExecutor._init_workers_ray() keeps vLLM's order of events:
one actor per GPU bundle; every actor reports ``get_ip()`` evaluated on its
own node; workers are sorted driver-IP first; the number of distinct IPs
(workers' plus the driver's) must equal the number of distinct Ray nodes or
vLLM's "Every node should have a unique IP address" RuntimeError is raised;
``distributed_init_method`` is ``tcp://<driver get_ip()>:<free port>``
(127.0.0.1 when all workers share one node).
"""

from __future__ import annotations

import os
from collections import defaultdict

import ray
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

import vllm.envs as envs
from vllm.logger import init_logger
from vllm.standin import act_as
from vllm.standin import toy_model
from vllm.utils.network_utils import get_distributed_init_method, get_ip, get_open_port
from vllm.v1.executor.abstract import Executor, StepOutput
from vllm.v1.executor.ray_utils import DEVICE_KEY, RayWorkerWrapper, initialize_ray_cluster

logger = init_logger(__name__)

# Not copied from the driver to the workers: each node keeps its own.
WORKER_SPECIFIC_ENV_VARS = {"VLLM_HOST_IP", "VLLM_HOST_PORT", "LOCAL_RANK", "CUDA_VISIBLE_DEVICES"}


def driver_env_vars_for_workers() -> dict[str, str]:
    """The driver's VLLM_* variables, minus the worker-specific ones."""
    return {
        k: v for k, v in os.environ.items() if k.startswith("VLLM_") and k not in WORKER_SPECIFIC_ENV_VARS
    }


class RayExecutorCommon(Executor):
    """What both Ray executors share: the decode step and the teardown."""

    uses_ray = True
    workers: list

    def execute_model(self, batch: list[tuple[bytes, int]]) -> StepOutput:
        refs = [worker.execute_model.remote(batch) for worker in self.workers]
        per_worker = ray.get(refs, timeout=envs.VLLM_STANDIN_STEP_TIMEOUT_S)
        return [toy_model.merge_partials([partials[i] for partials in per_worker]) for i in range(len(batch))]

    def _ping_workers(self, timeout: float) -> None:
        ray.get([worker.check_health.remote() for worker in self.workers], timeout=timeout)

    def _log_kv_cache(self) -> None:
        kv_tokens = envs.VLLM_STANDIN_KV_CACHE_TOKENS
        max_len = self.model_config.max_model_len
        for fmt, args in act_as.kv_cache_lines(kv_tokens, max_len):
            logger.info(fmt, *args)

    def shutdown(self) -> None:
        logger.info(
            "Shutting down Ray distributed executor. If you see error log "
            "from logging.cc regarding SIGTERM received, please ignore "
            "because this is the expected termination process in Ray."
        )
        for worker in getattr(self, "workers", []):
            try:
                ray.kill(worker)
            except Exception:
                pass
        pg = self.parallel_config.placement_group
        if pg is not None:
            try:
                ray.util.remove_placement_group(pg)
            except Exception:
                pass


class RayDistributedExecutor(RayExecutorCommon):
    """Ray-based distributed executor (the classic, compiled-graph one)."""

    def _init_executor(self) -> None:
        self.workers = []
        initialize_ray_cluster(self.parallel_config)
        self._init_workers_ray(self.parallel_config.placement_group)
        self._log_kv_cache()

    def check_health(self) -> None:
        # Real vLLM: "Assume that the Ray workers are healthy." (a no-op).
        # The stand-in pings the workers unless told to be that faithful.
        if envs.VLLM_STANDIN_HEALTH_CHECKS_WORKERS:
            self._ping_workers(timeout=5)

    def _init_workers_ray(self, placement_group) -> None:
        num_gpus = envs.VLLM_RAY_PER_WORKER_GPUS
        world_size = self.parallel_config.world_size

        if envs.VLLM_RAY_BUNDLE_INDICES:
            bundle_indices = list(map(int, envs.VLLM_RAY_BUNDLE_INDICES.split(",")))
            assert len(bundle_indices) == world_size, (
                "VLLM_RAY_BUNDLE_INDICES must have the same size"
                f" as the world size, but got {bundle_indices=} "
                f"and {world_size=}"
            )
        else:
            bundle_indices = [i for i, b in enumerate(placement_group.bundle_specs) if b.get(DEVICE_KEY, 0)]
            bundle_indices = bundle_indices[:world_size]

        driver_ip = get_ip()
        created = []
        for rank, bundle_id in enumerate(bundle_indices):
            scheduling_strategy = PlacementGroupSchedulingStrategy(
                placement_group=placement_group,
                placement_group_capture_child_tasks=True,
                placement_group_bundle_index=bundle_id,
            )
            worker = ray.remote(
                num_cpus=0,
                num_gpus=num_gpus,
                scheduling_strategy=scheduling_strategy,
            )(RayWorkerWrapper).remote(rpc_rank=rank)
            created.append(worker)

        # get_ip() evaluated inside each worker, on its own node.
        worker_ips = ray.get([w.get_node_ip.remote() for w in created])
        logger.debug("workers: %s", list(zip(range(len(created)), worker_ips)))

        ip_counts: dict[str, int] = {}
        for ip in worker_ips:
            ip_counts[ip] = ip_counts.get(ip, 0) + 1

        def sort_by_driver_then_worker_ip(item: tuple[int, object, str]):
            _, _, ip = item
            return 0 if ip == driver_ip else 1, ip_counts[ip], ip

        ordered = sorted(
            [(rank, w, ip) for rank, (w, ip) in enumerate(zip(created, worker_ips))],
            key=sort_by_driver_then_worker_ip,
        )
        self.workers = [w for _, w, _ in ordered]
        rerank_mapping = {created_rank: adjusted for adjusted, (created_rank, _, _) in enumerate(ordered)}
        ray.get([w.adjust_rank.remote(rerank_mapping) for w in self.workers])

        worker_node_and_gpu_ids = ray.get([w.get_node_and_gpu_ids.remote() for w in self.workers])
        node_workers: dict[str, list[int]] = defaultdict(list)
        node_gpus: dict[str, list[int]] = defaultdict(list)
        for i, (node_id, gpu_ids) in enumerate(worker_node_and_gpu_ids):
            node_workers[node_id].append(i)
            node_gpus[node_id].extend(gpu_ids)

        all_ips = set(worker_ips + [driver_ip])
        n_ips = len(all_ips)
        n_nodes = len(node_workers)
        if n_nodes != n_ips:
            raise RuntimeError(
                f"Every node should have a unique IP address. Got {n_nodes}"
                f" nodes with node ids {list(node_workers.keys())} and "
                f"{n_ips} unique IP addresses {all_ips}. Please check your"
                " network configuration. If you set `VLLM_HOST_IP`"
                " environment variable, make sure it is unique for"
                " each node."
            )

        env_vars = driver_env_vars_for_workers()
        logger.info("Copying the following environment variables to workers: %s", sorted(env_vars))
        ray.get([w.update_environment_variables.remote(env_vars) for w in self.workers])

        if len(node_gpus) == 1:
            # Single node: the loopback address always works inside the node.
            driver_ip = "127.0.0.1"
        distributed_init_method = get_distributed_init_method(driver_ip, get_open_port())

        init_refs = []
        for rank, (node_id, _) in enumerate(worker_node_and_gpu_ids):
            local_rank = node_workers[node_id].index(rank)
            init_refs.append(
                self.workers[rank].init_worker.remote(
                    rank, local_rank, world_size, distributed_init_method, self.model_config.model
                )
            )
        ray.get(init_refs)
