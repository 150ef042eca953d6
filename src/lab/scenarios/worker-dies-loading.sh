#!/usr/bin/env bash
# Lab scenario "worker-dies-loading": wired right, but the worker's vLLM dies in weights loading
# (the stand-in's VLLM_STANDIN_DIE_IN) and the head's engine fails after it: the worker's line is
# the first failure, the head's under it.
. "$(dirname "$0")/common.sh"
if [ "$VRD_ROLE" = head ]; then
  start_ray "$VRD_NODE_IP" --head --port="$VRD_RAY_PORT" --include-dashboard=false --node-ip-address="$VRD_NODE_IP"
else
  VRD_STANDIN_FAULT=VLLM_STANDIN_DIE_IN=weights-loading start_ray "$VRD_NODE_IP" --address="$VRD_HEAD_IP:$VRD_RAY_PORT" --node-ip-address="$VRD_NODE_IP"
fi
