# Shared by the lab's launch scripts. Sourced, not run. The tool runs a launch script on every node
# with VRD_ROLE, VRD_NODE_IP, VRD_HEAD_IP, VRD_RAY_PORT, VRD_IMAGE, VRD_CONTAINER, VRD_GPUS and
# VRD_FABRIC_IFNAME in its environment (see the manifest reference, launch.mode: script).
set -euo pipefail
: "${VRD_ROLE:?}" "${VRD_NODE_IP:?}" "${VRD_HEAD_IP:?}" "${VRD_RAY_PORT:?}" "${VRD_IMAGE:?}" "${VRD_CONTAINER:?}" "${VRD_GPUS:?}" "${VRD_FABRIC_IFNAME:?}"

# The management address of this node: source of the default route (a lookup; nothing is sent).
mgmt_ip() { ip -4 -o route get 1.1.1.1 | sed -n 's/.* src \([0-9.]*\).*/\1/p'; }

# start_ray <VLLM_HOST_IP or empty> <ray start arguments...>: the node's container, Ray in the foreground.
start_ray() {
  local vllm_host_ip=$1; shift
  local env_args=(-e "NCCL_SOCKET_IFNAME=$VRD_FABRIC_IFNAME" -e "GLOO_SOCKET_IFNAME=$VRD_FABRIC_IFNAME")
  [ -n "$vllm_host_ip" ] && env_args+=(-e "VLLM_HOST_IP=$vllm_host_ip")
  # A stand-in fault for this node's container (NAME=value: vllm/standin/faults.py), set by a scenario.
  [ -n "${VRD_STANDIN_FAULT:-}" ] && env_args+=(-e "$VRD_STANDIN_FAULT")
  docker run --detach --name "$VRD_CONTAINER" --network host --gpus all --shm-size 1g \
    "${env_args[@]}" --entrypoint ray "$VRD_IMAGE" \
    start --block --num-gpus="$VRD_GPUS" --num-cpus=1 --object-store-memory=100000000 --disable-usage-stats "$@"
}
