#!/usr/bin/env bash
# Lab scenario "healthy": Ray's identity and VLLM_HOST_IP are the fabric IP on every node.
. "$(dirname "$0")/common.sh"
if [ "$VRD_ROLE" = head ]; then
  start_ray "$VRD_NODE_IP" --head --port="$VRD_RAY_PORT" --include-dashboard=false --node-ip-address="$VRD_NODE_IP"
else
  start_ray "$VRD_NODE_IP" --address="$VRD_HEAD_IP:$VRD_RAY_PORT" --node-ip-address="$VRD_NODE_IP"
fi
