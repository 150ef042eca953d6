#!/bin/bash
# prepare.sh REPO_ROOT [WORK_DIR]: build everything the device harness needs, here, at no device time:
# the vLLM wheel (trimmed of what an H100/H200 serving a Llama never loads), the wheels the lent machine
# lacks (and Ray), a tiny random Llama, all in one tar split into 6 parts of about 51 MiB under
# REPO_ROOT/.device-carry/p1..p6, and the harness under REPO_ROOT/.device-carry/h.
# REPO_ROOT is the checkout the device tool sends; .device-carry/ must be ignored there (.git/info/exclude).
set -euo pipefail
repo=$(cd "${1:?repo root}" && pwd); work=${2:-/root/.cache/real37}
here=$(cd "$(dirname "$0")" && pwd)
VLLM=0.24.0 RAY=2.60.0
plat=(--only-binary=:all: --python-version 3.12 --implementation cp)
for p in manylinux_2_28 manylinux_2_27 manylinux_2_24 manylinux_2_17 manylinux2014 manylinux1 manylinux_2_31 manylinux_2_34 manylinux_2_35 linux; do
  plat+=(--platform "${p}_x86_64")
done
mkdir -p "$work" && cd "$work"
[ -x venv/bin/pip ] || { python3 -m venv venv && venv/bin/pip install -q -U pip numpy safetensors tokenizers; }
pip=venv/bin/pip

# 1. vLLM itself, without the FA2 kernels (Hopper runs FA3) and the Rust front end (off unless VLLM_USE_RUST_FRONTEND=1)
$pip download -q --no-deps "${plat[@]}" -d whl "vllm==$VLLM"
w=$(ls whl/vllm-$VLLM-*.whl)
rm -rf trim && mkdir -p trim/x/vllm-$VLLM.dist-info && cp "$w" trim/
t=trim/$(basename "$w")
zip -q -d "$t" 'vllm/vllm_flash_attn/_vllm_fa2_C.abi3.so' 'vllm/vllm-rs'
unzip -p "$t" vllm-$VLLM.dist-info/RECORD | grep -v '^vllm/vllm_flash_attn/_vllm_fa2_C.abi3.so,\|^vllm/vllm-rs,' > trim/x/vllm-$VLLM.dist-info/RECORD
(cd trim/x && zip -q "../$(basename "$w")" vllm-$VLLM.dist-info/RECORD)

# 2. its requirements for cp312 manylinux, less torch and the kernels a tiny Llama on the default backend never imports,
#    plus Ray; then less what the lent machine's image already holds (device-preinstalled.txt, from KINDS.md)
unzip -p "$w" '*/METADATA' | sed -n 's/^Requires-Dist: //p' | grep -v 'extra ==' |
  grep -Ev '^(torch|torchaudio|torchvision|flashinfer|tilelang|nvidia-|fastsafetensors|quack-kernels|tokenspeed-mla|humming-kernels|numba)' > reqs.txt
echo "ray==$RAY" >> reqs.txt
$pip install -q --dry-run --ignore-installed --report report.json "${plat[@]}" --target "$work/never" -r reqs.txt
python3 - "$here/device-preinstalled.txt" > carry-reqs.txt <<'PY'
import json, re, sys
have = {l.strip() for l in open(sys.argv[1]) if l.strip()}
norm = lambda n: re.sub(r"[-_.]+", "-", n).lower()
for i in json.load(open("report.json"))["install"]:
    n, v = i["metadata"]["name"], i["metadata"]["version"]
    if norm(n) in have or re.match(r"(torch|nvidia-|triton|cuda-)", norm(n)):
        continue
    print(f"{n}=={v}")
PY
rm -rf deps && $pip download -q --no-deps "${plat[@]}" -d deps -r carry-reqs.txt

# 3. the tiny model, the tar, the parts
rm -rf bundle && mkdir -p bundle/wheels && cp trim/*.whl deps/*.whl bundle/wheels/
venv/bin/python "$here/../make_tiny_model.py" bundle/tiny-llama "$here/../../../README.md"
(cd bundle && tar cf ../wheels.tar wheels tiny-llama) && sha256sum wheels.tar > wheels.tar.sha256
c=$repo/.device-carry
rm -rf "$c" && mkdir -p "$c/h"
split -n 6 -d -a 1 wheels.tar part.
for i in 0 1 2 3 4 5; do mkdir -p "$c/p$((i + 1))" && mv part.$i "$c/p$((i + 1))/"; done
(cd "$c" && sha256sum p*/part.* > h/parts.sha256)
cp wheels.tar.sha256 "$here"/{run.py,rawhttp.py,recv.sh,install.sh,batch.sh,info.sh} "$c/h/"
rm -f wheels.tar
echo "$(find bundle/wheels -name "*.whl" | wc -l) wheels; parts:"; ls -la "$c"/p*/
