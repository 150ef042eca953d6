#!/bin/bash
# batch.sh LIMIT_S BATCH...: run the scenario batches under a time limit, then pack the captures into $OUT.
lim=$1; shift
export PYTHONPATH=/tmp/site PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1 TINY_MODEL=/tmp/tiny-llama
export VLLM_USE_FLASHINFER_SAMPLER=0 VLLM_NO_USAGE_STATS=1 DO_NOT_TRACK=1 HF_HUB_DISABLE_TELEMETRY=1 RAY_USAGE_STATS_ENABLED=0
mkdir -p /tmp/cap
timeout -k 5 "$lim" python3 .device-carry/h/run.py /tmp/cap "$@"
echo "run.py exit $?"
n=$(echo "$@" | tr -d ' ')
(cd /tmp/cap && tar czf "$OUT/capture-$n.tar.gz" --exclude='capture-*' . ) && rm -rf /tmp/cap/* && ls -la "$OUT"
