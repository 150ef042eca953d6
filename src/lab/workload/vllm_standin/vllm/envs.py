"""Environment variables honoured by the stand-in, read lazily like vllm/envs.py.

``import vllm.envs as envs; envs.VLLM_HOST_IP`` evaluates the variable at the
moment of access, so a value set after import (tests, Ray workers) counts.
Names starting with ``VLLM_STANDIN_`` exist only in the stand-in.
"""

from __future__ import annotations

import os
from typing import Any, Callable


def _bool(name: str, default: str) -> Callable[[], bool]:
    return lambda: bool(int(os.getenv(name, default) or default))


def _float(name: str, default: float) -> Callable[[], float]:
    def read() -> float:
        raw = os.getenv(name, "")
        return float(raw) if raw.strip() else default

    return read


def _act_as():
    from vllm.standin import act_as

    return act_as


def _local_gpus() -> int:
    raw = os.getenv("VLLM_STANDIN_LOCAL_GPUS", "").strip()
    if raw:
        return int(raw)
    visible = os.getenv("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return len([d for d in visible.split(",") if d.strip()])
    # One GB10 per DGX Spark.
    return 1


environment_variables: dict[str, Callable[[], Any]] = {
    # --- real vLLM variables -------------------------------------------------
    # IP of this node for vLLM's distributed setup (vllm/utils/network_utils.py
    # get_ip). Not copied from the driver to the workers.
    "VLLM_HOST_IP": lambda: os.getenv("VLLM_HOST_IP", ""),
    # Use RayExecutorV2 (no node pin, Ray's own node IP) instead of the
    # classic RayDistributedExecutor. Default 0 = the classic executor.
    # Its default (or absence) is the acted release's: vllm/standin/act_as.py.
    "VLLM_USE_RAY_V2_EXECUTOR_BACKEND": lambda: _act_as().use_ray_v2(),
    "VLLM_RAY_PER_WORKER_GPUS": _float("VLLM_RAY_PER_WORKER_GPUS", 1.0),
    "VLLM_RAY_BUNDLE_INDICES": lambda: os.getenv("VLLM_RAY_BUNDLE_INDICES", ""),
    "VLLM_LOGGING_LEVEL": lambda: os.getenv("VLLM_LOGGING_LEVEL", "INFO").upper(),
    "VLLM_LOGGING_PREFIX": lambda: os.getenv("VLLM_LOGGING_PREFIX", ""),
    "VLLM_CONFIGURE_LOGGING": _bool("VLLM_CONFIGURE_LOGGING", "1"),
    "VLLM_KEEP_ALIVE_ON_ENGINE_DEATH": _bool("VLLM_KEEP_ALIVE_ON_ENGINE_DEATH", "0"),
    "VLLM_LOG_STATS_INTERVAL": _float("VLLM_LOG_STATS_INTERVAL", 10.0),
    # --- stand-in only -------------------------------------------------------
    # First ray.wait interval of _wait_until_pg_ready (vLLM: 10, doubling).
    "VLLM_STANDIN_PG_FIRST_WAIT_S": _float("VLLM_STANDIN_PG_FIRST_WAIT_S", 10.0),
    # PG_WAIT_TIMEOUT (vLLM: 1800).
    "VLLM_STANDIN_PG_TIMEOUT_S": _float("VLLM_STANDIN_PG_TIMEOUT_S", 1800.0),
    # What current_platform.device_count() would say on the driver's node.
    "VLLM_STANDIN_LOCAL_GPUS": _local_gpus,
    # Simulated model load time per worker, before the port opens.
    "VLLM_STANDIN_LOAD_DELAY_S": _float("VLLM_STANDIN_LOAD_DELAY_S", 1.0),
    # Bytes each worker allocates and touches while it loads its weights, and holds until it exits:
    # the memory a load takes (on a GB10 the host's, as the lab's memory budget sees it:
    # src/lab/assets/vrd-lab-memory). 0: none.
    "VLLM_STANDIN_LOAD_BYTES": lambda: max(0, int(os.getenv("VLLM_STANDIN_LOAD_BYTES", "0") or 0)),
    # Simulated compute per decode step, in every worker.
    "VLLM_STANDIN_TOKEN_DELAY_S": _float("VLLM_STANDIN_TOKEN_DELAY_S", 0.005),
    # A decode step that gets no answer from all workers in this time kills
    # the engine (a hung or unreachable worker).
    "VLLM_STANDIN_STEP_TIMEOUT_S": _float("VLLM_STANDIN_STEP_TIMEOUT_S", 60.0),
    # How long ranks > 0 try to reach rank 0's rendezvous port
    # (distributed_init_method) before failing, like torch.distributed.
    "VLLM_STANDIN_DIST_INIT_TIMEOUT_S": _float("VLLM_STANDIN_DIST_INIT_TIMEOUT_S", 120.0),
    # KV cache capacity in tokens (for vllm:kv_cache_usage_perc).
    "VLLM_STANDIN_KV_CACHE_TOKENS": lambda: int(os.getenv("VLLM_STANDIN_KV_CACHE_TOKENS", "65536")),
    # 1: GET /health also pings every worker actor (503 when one is gone).
    # 0: like real vLLM's classic executor, whose check_health is a no-op:
    #    /health stays 200 until a request hits the dead worker.
    "VLLM_STANDIN_HEALTH_CHECKS_WORKERS": _bool("VLLM_STANDIN_HEALTH_CHECKS_WORKERS", "1"),
    # Faults in a chosen phase of the start, on a chosen node (vllm/standin/faults.py): a worker
    # stalls (hangs with no further line) or dies (logs an ERROR line and raises) on entering the
    # phase: "distributed-init", "weights-loading" or "kv-cache-profiling" (the names of
    # src/preflight/startup-phases.ts). Empty: no fault.
    "VLLM_STANDIN_STALL_IN": lambda: os.getenv("VLLM_STANDIN_STALL_IN", "").strip(),
    "VLLM_STANDIN_DIE_IN": lambda: os.getenv("VLLM_STANDIN_DIE_IN", "").strip(),
    # The node the fault happens on: its IP (VLLM_HOST_IP, or the address vLLM would use) or its host
    # name; empty: every node.
    "VLLM_STANDIN_FAULT_NODE": lambda: os.getenv("VLLM_STANDIN_FAULT_NODE", "").strip(),
}


def __getattr__(name: str) -> Any:
    if name in environment_variables:
        return environment_variables[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return list(environment_variables)
