"""Ray cluster set-up, as in vllm/v1/executor/ray_utils.py.

initialize_ray_cluster() follows vLLM's code path and messages: warn when
the tensor-parallel size exceeds the local GPUs, connect to the existing
cluster, build ``[{"GPU": 1.0}] * world_size`` bundles, pin bundle 0 to
``node:<get_ip()>`` (classic executor only), create the placement group with
strategy PACK, wait for it with doubling intervals and the same log line,
give up with the same ValueError, then verify the bundles.
"""

from __future__ import annotations

import os
import time
from collections import defaultdict

import ray
from ray.util.placement_group import PlacementGroup, placement_group_table

import vllm.envs as envs
from vllm.config import ParallelConfig
from vllm.logger import init_logger
from vllm.standin.worker import StandinWorker
from vllm.utils.network_utils import get_ip

logger = init_logger(__name__)

DEVICE_KEY = "GPU"  # current_platform.ray_device_key on CUDA


class RayWorkerWrapper(StandinWorker):
    """The classic executor's worker actor (same class name as vLLM's)."""


def available_resources_per_node() -> dict[str, dict[str, float]]:
    try:
        from ray._private.state import available_resources_per_node as per_node

        return per_node()
    except Exception:  # older/newer Ray without the private helper
        return {n["NodeID"]: dict(n.get("Resources", {})) for n in ray.nodes() if n["Alive"]}


def ray_address() -> str:
    """RAY_ADDRESS if set, else "auto" (the cluster this node belongs to)."""
    return os.environ.get("RAY_ADDRESS") or "auto"


def _wait_until_pg_ready(current_placement_group: PlacementGroup) -> None:
    """Wait until a placement group is ready, logging with doubling intervals."""
    placement_group_specs = current_placement_group.bundle_specs
    pg_wait_timeout = envs.VLLM_STANDIN_PG_TIMEOUT_S
    pg_wait_timeout_text = f"{pg_wait_timeout:g}"

    s = time.time()
    pg_ready_ref = current_placement_group.ready()
    wait_interval = envs.VLLM_STANDIN_PG_FIRST_WAIT_S
    while time.time() - s < pg_wait_timeout:
        ready, _ = ray.wait([pg_ready_ref], timeout=wait_interval)
        if len(ready) > 0:
            break

        # Exponential backoff for warning print.
        wait_interval *= 2
        logger.info(
            "Waiting for creating a placement group of specs for "
            "%d seconds. specs=%s. Check `ray status` and "
            "`ray list nodes` to see if you have enough resources,"
            " and make sure the IP addresses used by ray cluster"
            " are the same as VLLM_HOST_IP environment variable"
            " specified in each node if you are running on a multi-node.",
            int(time.time() - s),
            placement_group_specs,
        )

    try:
        ray.get(pg_ready_ref, timeout=0)
    except ray.exceptions.GetTimeoutError:
        total_gpu_required = sum(spec.get("GPU", 0) for spec in placement_group_specs)
        if total_gpu_required > 1:
            raise ValueError(
                f"Cannot provide a placement group requiring "
                f"{total_gpu_required} GPUs "
                f"(placement_group_specs={placement_group_specs}) within "
                f"{pg_wait_timeout_text} seconds.\n"
                f"Tensor parallel size may exceed available GPUs in your "
                f"cluster. Check resources with `ray status` and "
                f"`ray list nodes`.\n"
                f"If running on K8s with limited GPUs, consider reducing "
                f"--tensor-parallel-size to match available GPU resources."
            ) from None
        raise ValueError(
            "Cannot provide a placement group of "
            f"{placement_group_specs=} within "
            f"{pg_wait_timeout_text} seconds. See "
            "`ray status` and `ray list nodes` to make sure the cluster "
            "has enough resources."
        ) from None


def _verify_bundles(
    current_placement_group: PlacementGroup,
    parallel_config: ParallelConfig,
    device_str: str,
    require_gpu_on_driver: bool = True,
) -> None:
    pg_data = placement_group_table(current_placement_group)
    bundle_to_node_ids = pg_data["bundles_to_node_id"]
    bundles = pg_data["bundles"]
    node_id_to_bundle: dict[str, list[dict[str, float]]] = defaultdict(list)
    for bundle_idx, node_id in bundle_to_node_ids.items():
        node_id_to_bundle[node_id].append(bundles[bundle_idx])
    driver_node_id = ray.get_runtime_context().get_node_id()

    if require_gpu_on_driver and driver_node_id not in node_id_to_bundle:
        raise RuntimeError(
            f"driver node id {driver_node_id} is not included in a placement "
            f"group {current_placement_group.id}. Node id -> bundles "
            f"{dict(node_id_to_bundle)}. "
            "You don't have enough GPUs available in a current node. Check "
            "`ray status` and `ray list nodes` to see if you have available "
            "GPUs in a node `{driver_node_id}` before starting an vLLM engine."
        )

    for node_id, node_bundles in node_id_to_bundle.items():
        if len(node_bundles) < parallel_config.tensor_parallel_size:
            logger.warning(
                "tensor_parallel_size=%d "
                "is bigger than a reserved number of %ss (%d "
                "%ss) in a node %s. Tensor parallel workers can be "
                "spread out to 2+ nodes which can degrade the performance "
                "unless you have fast interconnect across nodes, like "
                "Infiniband. To resolve this issue, make sure you have more "
                "than %d GPUs available at each node.",
                parallel_config.tensor_parallel_size,
                device_str,
                len(node_bundles),
                device_str,
                node_id,
                parallel_config.tensor_parallel_size,
            )


def initialize_ray_cluster(parallel_config: ParallelConfig, require_gpu_on_driver: bool = True) -> None:
    """Connect to Ray and reserve one GPU bundle per worker.

    require_gpu_on_driver=True is the classic RayDistributedExecutor: the
    driver's node must have a free GPU and bundle 0 is pinned to
    ``node:<get_ip()>``. RayExecutorV2 passes False: no pin.
    """
    # Disable Ray usage stats collection
    if os.environ.get("RAY_USAGE_STATS_ENABLED", "0") != "1":
        os.environ["RAY_USAGE_STATS_ENABLED"] = "0"

    # Prevalidate GPU requirements before Ray processing
    available_gpus = envs.VLLM_STANDIN_LOCAL_GPUS
    if parallel_config.world_size > 1 and parallel_config.world_size > available_gpus:
        logger.warning(
            "Tensor parallel size (%d) exceeds available GPUs (%d). "
            "This may result in Ray placement group allocation failures. "
            "Consider reducing tensor_parallel_size to %d or less, "
            "or ensure your Ray cluster has %d GPUs available.",
            parallel_config.world_size,
            available_gpus,
            available_gpus,
            parallel_config.world_size,
        )

    if ray.is_initialized():
        logger.info("Ray is already initialized. Skipping Ray initialization.")
    else:
        # Ray itself logs "Connecting to existing Ray cluster at address: ...".
        ray.init(address=ray_address())

    device_str = DEVICE_KEY
    current_placement_group = parallel_config.placement_group or ray.util.get_current_placement_group()
    if current_placement_group:
        logger.info("Using the existing placement group")
        device_bundles = 0
        for bundle in current_placement_group.bundle_specs:
            bundle_devices = bundle.get(device_str, 0)
            if bundle_devices > 1:
                raise ValueError(f"Placement group bundle cannot have more than 1 {device_str}.")
            if bundle_devices:
                device_bundles += 1
        if parallel_config.world_size > device_bundles:
            raise ValueError(
                f"The number of required {device_str}s exceeds the total "
                f"number of available {device_str}s in the placement group. "
                f"Required number of devices: {parallel_config.world_size}. "
                f"Total number of devices: {device_bundles}."
            )
    else:
        logger.info("No current placement group found. Creating a new placement group.")
        num_devices_in_cluster = ray.cluster_resources().get(device_str, 0)
        if parallel_config.world_size > num_devices_in_cluster:
            logger.warning(
                "The number of required %ss exceeds the total "
                "number of available %ss in the placement group.",
                device_str,
                device_str,
            )
        placement_group_specs: list[dict[str, float]] = [
            {device_str: 1.0} for _ in range(parallel_config.world_size)
        ]

        current_ip = get_ip()
        current_node_id = ray.get_runtime_context().get_node_id()
        current_node_resource = available_resources_per_node().get(current_node_id, {})
        if require_gpu_on_driver:
            if current_node_resource.get(device_str, 0) < 1:
                raise ValueError(
                    f"Current node has no {device_str} available. "
                    f"{current_node_resource=}. vLLM engine cannot start "
                    f"without {device_str}. Make sure you have at least 1 "
                    f"{device_str} available in a node "
                    f"{current_node_id=} {current_ip=}."
                )
            # At least bundle 0 has to be created on the current node.
            placement_group_specs[0][f"node:{current_ip}"] = 0.001

        current_placement_group = ray.util.placement_group(placement_group_specs, strategy="PACK")
        _wait_until_pg_ready(current_placement_group)

    assert current_placement_group is not None
    _verify_bundles(current_placement_group, parallel_config, device_str, require_gpu_on_driver)
    parallel_config.placement_group = current_placement_group


def get_bundles_sorted_by_node(current_placement_group: PlacementGroup) -> list[tuple[int, str, str]]:
    """(bundle index, node id, Ray node IP), bundles on the driver's node first."""
    pg_data = placement_group_table(current_placement_group)
    bundle_to_node = pg_data["bundles_to_node_id"]
    node_id_to_ip = {n["NodeID"]: n["NodeManagerAddress"] for n in ray.nodes() if n["Alive"]}
    out: list[tuple[int, str, str]] = []
    for bundle_idx, bundle in enumerate(current_placement_group.bundle_specs):
        if bundle.get(DEVICE_KEY):
            node_id = bundle_to_node.get(bundle_idx)
            out.append((bundle_idx, node_id, node_id_to_ip[node_id]))
    driver_node = ray.get_runtime_context().get_node_id()
    out.sort(key=lambda item: (0 if item[1] == driver_node else 1, item[1]))
    return out
