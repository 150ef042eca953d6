#!/usr/bin/env bash
# Fill a wheelhouse for the workload image (needs PyPI; run before an offline
# `docker build --network none`):
#
#   src/lab/workload/fetch-wheels.sh DEST
#
# Exactly the pinned, hash-checked files of requirements.txt for CPython 3.11
# on manylinux x86_64 (Debian bookworm's python3): 27 wheels, about 80 MB.
# DEST must lie outside src/lab/workload (the lab hashes and copies that folder).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dest="${1:?usage: fetch-wheels.sh DEST (a folder outside src/lab/workload)}"
mkdir -p "$dest"
nice -n 19 "${PYTHON:-python3}" -m pip download --disable-pip-version-check --quiet \
  --only-binary=:all: --implementation cp --python-version 3.11 \
  --platform manylinux2014_x86_64 \
  -r "$here/requirements.txt" -d "$dest"
