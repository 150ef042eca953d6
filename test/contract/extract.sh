#!/usr/bin/env bash
# The vLLM contract, from the published wheels (test/contract/README.md).
#
#   test/contract/extract.sh contract [VERSION...]   # write src/command/vllm-contract/vllm-<V>.json
#                                                    # (default: every version already there)
#   test/contract/extract.sh facts VERSION...        # print each release's executor facts (JSON lines);
#                                                    # the wheel is deleted after reading unless it is a
#                                                    # contract version (KEEP=1 keeps every wheel)
#   test/contract/extract.sh fetch [VERSION...]      # only download the contract versions' wheels
#
# Wheels come from PyPI with `pip download --no-deps vllm==V` into $VRD_WHEELS
# (default /root/.cache/vrd-wheels, outside the repository); a wheel already there is not fetched again.
# `fetch` keeps only what the extraction reads (vllm/**/*.py and METADATA) as vllm-V-sources.zip
# (5-10 MB instead of about 300 MB), which extract.py reads like the wheel: small enough to cache in CI.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
data="$repo/src/command/vllm-contract"
wheels="${VRD_WHEELS:-/root/.cache/vrd-wheels}"
python="${PYTHON:-python3}"
mkdir -p "$wheels"

contract_versions() { ls "$data" | sed -n 's/^vllm-\(.*\)\.json$/\1/p' | sort -V; }

# wheel V: the path of vLLM V's wheel (or its sources zip) in the cache, downloaded if missing.
wheel() {
  local v=$1 w
  w=$(ls "$wheels"/vllm-"$v"-*.whl "$wheels"/vllm-"$v"-sources.zip 2>/dev/null | head -1 || true)
  if [ -z "$w" ]; then
    pip download --no-deps --quiet --disable-pip-version-check "vllm==$v" -d "$wheels" >&2 \
      || pip download --no-deps --quiet --disable-pip-version-check --only-binary :all: --python-version 3.12 \
        --platform manylinux_2_28_x86_64 "vllm==$v" -d "$wheels" >&2
    w=$(ls "$wheels"/vllm-"$v"-*.whl | head -1)
  fi
  echo "$w"
}

cmd=${1:-contract}
shift || true
case "$cmd" in
  contract)
    versions=("$@")
    [ ${#versions[@]} -gt 0 ] || mapfile -t versions < <(contract_versions)
    for v in "${versions[@]}"; do
      w=$(wheel "$v")
      "$python" "$here/extract.py" contract "$w" >"$data/vllm-$v.json.tmp"
      mv "$data/vllm-$v.json.tmp" "$data/vllm-$v.json"
      echo "extract: $data/vllm-$v.json from $(basename "$w")" >&2
    done
    "$python" "$here/extract.py" standin-flags "$data" "$repo/src/lab/workload/vllm_standin/vllm/standin/release_flags.py"
    ;;
  facts)
    keep=" $(contract_versions | tr '\n' ' ') "
    for v in "$@"; do
      w=$(wheel "$v")
      "$python" "$here/extract.py" facts "$w" | "$python" -c 'import json,sys; print(json.dumps(json.load(sys.stdin)))'
      case "$keep" in *" $v "*) ;; *) [ "${KEEP:-}" = 1 ] || rm -f "$w" ;; esac
    done
    ;;
  fetch)
    versions=("$@")
    [ ${#versions[@]} -gt 0 ] || mapfile -t versions < <(contract_versions)
    for v in "${versions[@]}"; do
      w=$(wheel "$v")
      case "$w" in *-sources.zip) continue ;; esac
      "$python" - "$w" "$wheels/vllm-$v-sources.zip" <<'PY'
import sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(src) as z, zipfile.ZipFile(dst + ".tmp", "w", zipfile.ZIP_DEFLATED) as out:
    for n in z.namelist():
        if (n.startswith("vllm/") and n.endswith(".py")) or n.endswith(".dist-info/METADATA"):
            out.writestr(n, z.read(n))
PY
      mv "$wheels/vllm-$v-sources.zip.tmp" "$wheels/vllm-$v-sources.zip"
      rm -f "$w"
      echo "extract: $wheels/vllm-$v-sources.zip" >&2
    done
    ;;
  *)
    sed -n '2,12p' "$0" >&2
    exit 2
    ;;
esac
