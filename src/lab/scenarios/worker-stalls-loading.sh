#!/usr/bin/env bash
# Lab scenario "worker-stalls-loading": wired right, but the worker's vLLM hangs in weights loading
# (the stand-in's VLLM_STANDIN_STALL_IN, as a hung network filesystem would): the start-up watcher
# reports "spark-b stalled in weights loading" at smoke.phaseBudgetSeconds.weightsLoading.
. "$(dirname "$0")/common.sh"
if [ "$VRD_ROLE" = head ]; then
  start_ray "$VRD_NODE_IP" --head --port="$VRD_RAY_PORT" --include-dashboard=false --node-ip-address="$VRD_NODE_IP"
else
  VRD_STANDIN_FAULT=VLLM_STANDIN_STALL_IN=weights-loading start_ray "$VRD_NODE_IP" --address="$VRD_HEAD_IP:$VRD_RAY_PORT" --node-ip-address="$VRD_NODE_IP"
fi
