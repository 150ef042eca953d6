#!/usr/bin/env bash
# Lab scenario "seed-bug", the incident: the head starts Ray WITHOUT --node-ip-address, so Ray
# registers it under the default-route (management) IP, while VLLM_HOST_IP names the fabric IP.
# vLLM's classic Ray executor then pins placement-group bundle 0 to node:<fabric IP>, which no Ray
# node has, and waits (up to 1800 s) on "Waiting for creating a placement group".
. "$(dirname "$0")/common.sh"
if [ "$VRD_ROLE" = head ]; then
  start_ray "$VRD_NODE_IP" --head --port="$VRD_RAY_PORT" --include-dashboard=false
else
  start_ray "$VRD_NODE_IP" --address="$VRD_HEAD_IP:$VRD_RAY_PORT"
fi
