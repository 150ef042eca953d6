#!/bin/bash
# recv.sh N: keep part N of the wheel bundle in /tmp/parts (the warm machine keeps /tmp between calls).
n=$1
mkdir -p /tmp/parts && cp .device-carry/p"$n"/part.* /tmp/parts/ || exit 1
(cd .device-carry && grep " p$n/" h/parts.sha256 | sha256sum -c -) || exit 1
ls -la /tmp/parts
