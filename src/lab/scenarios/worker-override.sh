#!/usr/bin/env bash
# Lab scenario "worker-override", the incident's second bug: Ray is right everywhere, but the
# worker section of the script still sets its own VLLM_HOST_IP (here the management IP), so the
# IP vLLM's worker reports differs from its Ray identity.
. "$(dirname "$0")/common.sh"
if [ "$VRD_ROLE" = head ]; then
  start_ray "$VRD_NODE_IP" --head --port="$VRD_RAY_PORT" --include-dashboard=false --node-ip-address="$VRD_NODE_IP"
else
  start_ray "$(mgmt_ip)" --address="$VRD_HEAD_IP:$VRD_RAY_PORT" --node-ip-address="$VRD_NODE_IP"
fi
