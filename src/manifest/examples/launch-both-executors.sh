#!/usr/bin/env bash
# One launch script for both executors of vllm-ray-deploy (docs/executors.md, "The launch-script contract").
# With launch.mode: script the tool runs it on every node, head first, with VRD_* in its environment;
# its arguments (launch.args) go to every ray start (e.g. --object-store-memory=...).
#   ray: the container with Ray in it (the head starts Ray, a worker joins it); the tool then runs
#        vllm serve in the head's container.
#   mp:  the container only (vLLM's native mode uses no Ray); the tool runs vllm serve --nnodes ...
#        --node-rank "$VRD_NODE_RANK" in it on every node.
set -euo pipefail

# What every node's container gets: NVIDIA's recommended limits (memlock for RDMA), its fabric
# identity for vLLM, NCCL and Gloo on the fabric, the release label the tool reads, the model
# read-only with the hub offline, the release's secrets.
opts=(--detach --name "$VRD_CONTAINER" --network host --gpus all --shm-size 16g
  --ulimit memlock=-1 --ulimit stack=67108864
  --label "$VRD_RELEASE_LABEL"
  -e "VLLM_HOST_IP=$VRD_NODE_IP" -e "NCCL_SOCKET_IFNAME=$VRD_FABRIC_IFNAME" -e "GLOO_SOCKET_IFNAME=$VRD_FABRIC_IFNAME")
if [ -n "${VRD_MODEL_PATH:-}" ]; then
  opts+=(-v "$VRD_MODEL_PATH:$VRD_MODEL_PATH:ro" -e HF_HUB_OFFLINE=1)
fi
secret="$(dirname "$0")/secret.env"
if [ -f "$secret" ]; then
  opts+=(--env-file "$secret")
fi

case "$VRD_EXECUTOR" in
  mp)
    docker run "${opts[@]}" --entrypoint sleep "$VRD_IMAGE" infinity
    ;;
  ray)
    if [ "$VRD_ROLE" = head ]; then
      docker run "${opts[@]}" --entrypoint ray "$VRD_IMAGE" start --block --head --port="$VRD_RAY_PORT" \
        --node-ip-address="$VRD_NODE_IP" --num-gpus="$VRD_GPUS" --disable-usage-stats "$@"
    else
      docker run "${opts[@]}" --entrypoint ray "$VRD_IMAGE" start --block --address="$VRD_HEAD_IP:$VRD_RAY_PORT" \
        --node-ip-address="$VRD_NODE_IP" --num-gpus="$VRD_GPUS" --disable-usage-stats "$@"
    fi
    ;;
  *)
    echo "launch script: unknown VRD_EXECUTOR '$VRD_EXECUTOR' (ray or mp)" >&2
    exit 1
    ;;
esac
