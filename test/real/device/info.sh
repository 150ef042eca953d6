#!/bin/bash
# info.sh: what the lent machine is (into $OUT/machine.txt).
{
  echo "== pwd / tree"; pwd; ls -a; git log -1 --oneline
  echo "== date"; date -u
  echo "== nvidia-smi"; nvidia-smi -L; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
  echo "== python"; which python3; python3 -V
  echo "== packages"; python3 -m pip list 2>/dev/null | grep -iE '^(torch|transformers|tokenizers|huggingface|safetensors|numpy|protobuf|httpx|anyio|click|pydantic|opencv|setuptools|aiohttp|prometheus|psutil|pyyaml|triton|uvloop|typer|rich|requests|pillow|tiktoken|sentencepiece|grpcio|filelock|jinja2|cloudpickle|msgpack) '
  echo "== addresses"; grep -B1 '/32 host LOCAL' /proc/net/fib_trie 2>/dev/null | grep -v '^--' | awk '{print $2}' | sort -u | tr '\n' ' '; echo
  echo "== routes"; cat /proc/net/route
  echo "== hostname"; hostname; getent hosts "$(hostname)"
  echo "== get_ip (vLLM's way)"; python3 -c "
import socket
try:
    s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.connect(('8.8.8.8',80)); print(s.getsockname()[0])
except Exception as e: print('no route:', e)"
  echo "== cpus/mem"; nproc; grep MemTotal /proc/meminfo; df -h /tmp | tail -1
} > "$OUT/machine.txt" 2>&1
head -60 "$OUT/machine.txt"
