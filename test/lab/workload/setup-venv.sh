#!/usr/bin/env bash
# Prepare the host-side test environment for the vLLM stand-in.
#
#   test/lab/workload/setup-venv.sh
#
# It builds, under .lab/ (gitignored):
#   .lab/workload-wheels/  the wheelhouse: exactly the pinned files of
#                          src/lab/workload/requirements.txt (fetched once from PyPI)
#   .lab/venv-test/        a venv installed from that wheelhouse with --no-index,
#                          i.e. the same offline commands the workload image runs
#
# Idempotent: the wheelhouse and Ray are only fetched and installed again when
# requirements.txt changes; the stand-in itself is reinstalled on every run
# (it is small and the source may have changed).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
workload="$repo/src/lab/workload"
lab="${VLLM_STANDIN_LAB_DIR:-$repo/.lab}"
venv="${VLLM_STANDIN_VENV:-$lab/venv-test}"
wheels="$lab/workload-wheels"
python="${PYTHON:-python3}"
requirements="$workload/requirements.txt"

log() { printf 'setup-venv: %s\n' "$*" >&2; }

"$python" - <<'EOF' || { log "need CPython 3.11 (the image's python3 on Debian bookworm)"; exit 1; }
import sys
sys.exit(0 if sys.version_info[:2] == (3, 11) else 1)
EOF

mkdir -p "$lab" "$wheels"
stamp="$lab/.venv-test.requirements.sha256"
want="$(sha256sum "$requirements" | cut -d' ' -f1)"

if [[ ! -x "$venv/bin/python" ]] || [[ "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
  log "fetching the wheelhouse into $wheels (PyPI, once per requirements.txt)"
  PYTHON="$python" "$workload/fetch-wheels.sh" "$wheels"
  rm -rf "$venv"
  log "creating $venv"
  "$python" -m venv "$venv"
  log "installing Ray offline from the wheelhouse"
  nice -n 19 "$venv/bin/pip" install --disable-pip-version-check --quiet \
    --no-index --find-links "$wheels" -r "$requirements"
  echo "$want" > "$stamp"
else
  log "Ray venv up to date ($venv)"
fi

log "installing the stand-in offline (no build backend needed from any index)"
# A throwaway copy: pip must never write into the source tree.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cp -r "$workload/." "$tmp/workload"
"$venv/bin/pip" install --disable-pip-version-check --quiet --no-index \
  --find-links "$wheels" --force-reinstall --no-deps "$tmp/workload"
"$venv/bin/python" -c 'import vllm, ray; assert vllm.STANDIN; print("setup-venv: vllm", vllm.__version__, "ray", ray.__version__)' >&2
