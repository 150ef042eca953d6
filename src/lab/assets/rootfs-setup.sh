#!/bin/sh
# Runs INSIDE a chroot of a fresh debootstrap (bookworm, minbase) tree, as root, with network.
# Installs one image's packages and leaves the tree ready for `tar | docker import`.
#
#   rootfs-setup.sh <profile> <mirror> <package>...
#
# profile: node      - a simulated DGX Spark (sshd, docker.io, ...), adds user `spark`
#          workload  - the base of the vLLM stand-in image (python3, venv, ...)
#          registry  - installs docker-registry, then copies the binary and its libraries
#                      into /vrd-lab-export (the registry image is only that directory)
set -eu

profile=$1
mirror=$2
shift 2

export DEBIAN_FRONTEND=noninteractive LC_ALL=C

# Small images: no docs, man pages or translations; no recommends.
cat > /etc/dpkg/dpkg.cfg.d/90vrd-lab-slim <<'CFG'
path-exclude=/usr/share/doc/*
path-include=/usr/share/doc/*/copyright
path-exclude=/usr/share/man/*
path-exclude=/usr/share/info/*
path-exclude=/usr/share/locale/*
path-include=/usr/share/locale/locale.alias
path-exclude=/usr/share/lintian/*
CFG
cat > /etc/apt/apt.conf.d/90vrd-lab <<'CFG'
APT::Install-Recommends "false";
APT::Install-Suggests "false";
Acquire::Retries "3";
CFG

# Services must not start inside the chroot.
printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
chmod 0755 /usr/sbin/policy-rc.d

security=$(printf '%s' "$mirror" | sed 's#/debian/*$#/debian-security#')
cat > /etc/apt/sources.list <<LIST
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
LIST

apt-get update -qq
apt-get install -y -qq "$@" >/dev/null

case $profile in
  node)
    useradd --create-home --shell /bin/bash --groups docker,sudo spark
    printf 'spark ALL=(ALL) NOPASSWD:ALL\n' > /etc/sudoers.d/90-spark
    chmod 0440 /etc/sudoers.d/90-spark
    # docker.io's default runc lives in /usr/sbin; the lab's wrapper finds it there.
    command -v runc >/dev/null
    ;;
  workload)
    ;;
  registry)
    out=/vrd-lab-export
    rm -rf "$out"
    mkdir -p "$out/usr/bin" "$out/etc/docker/registry" "$out/var/lib/registry" "$out/tmp"
    cp /usr/bin/docker-registry "$out/usr/bin/"
    # Libraries the binary links (none when it is static).
    if libs=$(ldd /usr/bin/docker-registry 2>/dev/null); then
      printf '%s\n' "$libs" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }' | sort -u |
        while read -r lib; do cp --parents -L "$lib" "$out/"; done
    fi
    chmod 1777 "$out/tmp"
    ;;
  *)
    echo "rootfs-setup.sh: unknown profile: $profile" >&2
    exit 2
    ;;
esac

# Every node gets its own identity at run time: no baked host keys or machine id.
rm -f /etc/ssh/ssh_host_* /var/lib/dbus/machine-id
: > /etc/machine-id
apt-get clean
rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/apt/* /var/log/dpkg.log /usr/sbin/policy-rc.d
rm -f /etc/resolv.conf "$0"
