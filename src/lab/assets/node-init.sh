#!/bin/bash
# Main process of a lab node (a simulated DGX Spark), started by docker-init (`--init`).
#
# 1. name the interfaces like a Spark (mgmt enP7s7 with the default route, fabric
#    enp1s0f0np0), keeping docker's names as altnames so `docker stats` still works
# 2. make /sys and the cgroup hierarchies writable (needed without --privileged); stand-in
#    /dev/infiniband device nodes for --device=/dev/infiniband
# 3. install the SSH host key and the cluster's keys
# 4. write the nested dockerd's daemon.json and start dockerd (overlay2, else vfs)
# 5. start sshd: it comes last, so "sshd answers" implies "nested docker is ready"
# 6. on SIGTERM, stop sshd and dockerd cleanly
#
# Environment (set by the lab): VRD_LAB_MGMT_IP, VRD_LAB_MGMT_GATEWAY, VRD_LAB_FABRIC_IP,
# VRD_LAB_MGMT_IFNAME, VRD_LAB_FABRIC_IFNAME, VRD_LAB_REGISTRY, optional VRD_LAB_FABRIC_MTU.
set -euo pipefail

log() { printf '%s vrd-lab-init: %s\n' "$(date +%H:%M:%S.%3N)" "$*"; }
die() { log "FATAL: $*"; exit 1; }

: "${VRD_LAB_MGMT_IP:?}" "${VRD_LAB_MGMT_GATEWAY:?}" "${VRD_LAB_FABRIC_IP:?}" "${VRD_LAB_REGISTRY:?}"
mgmt_if=${VRD_LAB_MGMT_IFNAME:-enP7s7}
fabric_if=${VRD_LAB_FABRIC_IFNAME:-enp1s0f0np0}
files=/etc/vrd-lab
node=$(hostname)

rm -f /run/vrd-lab-ready
# Each node its own machine id (the image has an empty one).
if [ ! -s /etc/machine-id ]; then tr -d - < /proc/sys/kernel/random/uuid > /etc/machine-id; fi

# ---- 1. interfaces -------------------------------------------------------------------------
# Docker attaches the networks in an order of its own, so find each interface by its address.
iface_with() {
  ip -o -4 addr show | awk -v want="$1" '{ split($4, a, "/"); if (a[1] == want) print $2 }'
}

rename_iface() { # <ip> <wanted name>
  local cur
  cur=$(iface_with "$1")
  [ -n "$cur" ] || die "no interface holds $1: $(ip -o -4 addr show | tr '\n' ';')"
  cur=${cur%%@*}
  if [ "$cur" = "$2" ]; then return 0; fi
  ip link set dev "$cur" down
  ip link set dev "$cur" name "$2"
  # Keep docker's name as an altname: dockerd reads network stats by that name.
  ip link property add dev "$2" altname "$cur" 2>/dev/null || log "warning: could not add altname $cur to $2"
  ip link set dev "$2" up
  log "interface $cur ($1) is now $2"
}

rename_iface "$VRD_LAB_MGMT_IP" "$mgmt_if"
rename_iface "$VRD_LAB_FABRIC_IP" "$fabric_if"
if [ -n "${VRD_LAB_FABRIC_MTU:-}" ]; then ip link set dev "$fabric_if" mtu "$VRD_LAB_FABRIC_MTU"; fi
# Taking the link down dropped the default route; the mgmt network holds it, as on a Spark.
ip route replace default via "$VRD_LAB_MGMT_GATEWAY" dev "$mgmt_if"
# Cloud metadata (Ray probes it at start-up to detect TPUs/clouds): fail locally at once instead of
# sending packets at the egress guard.
ip route replace blackhole 169.254.169.254/32

# ---- 2. /sys and cgroups ----------------------------------------------------------------------
# Without --privileged docker mounts /sys and the cgroup hierarchies read-only.
if ! touch /sys/fs/cgroup/.vrd-lab-rw 2>/dev/null; then
  mount -o remount,rw /sys 2>/dev/null || log "warning: cannot remount /sys read-write"
  mount -o remount,rw /sys/fs/cgroup 2>/dev/null || true
fi
rm -f /sys/fs/cgroup/.vrd-lab-rw 2>/dev/null || true
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
  # cgroup v2: move ourselves into a leaf so the nested dockerd can enable controllers
  # (the same step docker's own dind image takes).
  mkdir -p /sys/fs/cgroup/init
  xargs -rn1 < /sys/fs/cgroup/cgroup.procs > /sys/fs/cgroup/init/cgroup.procs 2>/dev/null || true
  sed -e 's/ / +/g' -e 's/^/+/' < /sys/fs/cgroup/cgroup.controllers > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || true
else
  # mountinfo: the filesystem type is the field after the "-" separator.
  awk '{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup") print $5; break } }' /proc/self/mountinfo |
  while read -r mp; do
    mount -o remount,bind,rw "$mp" 2>/dev/null || log "warning: cannot remount $mp read-write"
  done
fi

# RDMA device nodes. A Spark's ConnectX-7 gives /dev/infiniband (rdma_cm, uverbs*), and the Spark
# launch scripts map it into their containers (--device=/dev/infiniband), which docker refuses when
# the path is missing. Nothing in the lab does RDMA: the nodes carry the null device's numbers, so
# the option is honoured and a container sees the names, as on a Spark.
if [ ! -e /dev/infiniband ]; then
  mkdir -p /dev/infiniband
  for d in rdma_cm uverbs0 uverbs1; do mknod -m 666 "/dev/infiniband/$d" c 1 3 || log "warning: could not make /dev/infiniband/$d"; done
fi

# ---- 3. keys ----------------------------------------------------------------------------------
[ -f "$files/$node/ssh_host_ed25519_key" ] || die "no host key at $files/$node/ssh_host_ed25519_key"
install -m 0600 "$files/$node/ssh_host_ed25519_key" /etc/ssh/ssh_host_ed25519_key
install -m 0644 "$files/$node/ssh_host_ed25519_key.pub" /etc/ssh/ssh_host_ed25519_key.pub
for home in /root /home/spark; do
  user=$(stat -c %U "$home")
  install -d -m 0700 -o "$user" -g "$user" "$home/.ssh"
  install -m 0600 -o "$user" -g "$user" "$files/cluster/authorized_keys" "$home/.ssh/authorized_keys"
  install -m 0600 -o "$user" -g "$user" "$files/cluster/id_ed25519" "$home/.ssh/id_ed25519"
  # A link, so nodes added later are known here without a restart.
  ln -sfn "$files/cluster/known_hosts" "$home/.ssh/known_hosts"
done

# ---- 4. nested dockerd ------------------------------------------------------------------------
write_daemon_json() { # <storage driver>
  mkdir -p /etc/docker
  cat > /etc/docker/daemon.json <<JSON
{
  "storage-driver": "$1",
  "insecure-registries": ["$VRD_LAB_REGISTRY"],
  "dns": ["$VRD_LAB_MGMT_IP"],
  "default-runtime": "runc-lab",
  "runtimes": { "runc-lab": { "path": "/usr/local/sbin/runc-lab" } },
  "log-driver": "json-file",
  "log-opts": { "max-size": "10m", "max-file": "2" }
}
JSON
}

dockerd_pid=
start_dockerd() { # <storage driver>; returns non-zero when dockerd does not come up
  write_daemon_json "$1"
  dockerd >> /var/log/dockerd.log 2>&1 &
  dockerd_pid=$!
  for _ in $(seq 1 300); do
    if docker info >/dev/null 2>&1; then return 0; fi
    if ! kill -0 "$dockerd_pid" 2>/dev/null; then return 1; fi
    sleep 0.1
  done
  return 1
}

if start_dockerd overlay2; then
  log "dockerd ready (overlay2)"
else
  log "overlay2 failed (see /var/log/dockerd.log); falling back to vfs: slow, give /var/lib/docker a volume"
  kill "$dockerd_pid" 2>/dev/null || true
  wait "$dockerd_pid" 2>/dev/null || true
  start_dockerd vfs || die "dockerd did not start: $(tail -n 5 /var/log/dockerd.log)"
  log "dockerd ready (vfs)"
fi

# ---- 5. sshd (and the stand-in OOM guard a healthy Spark runs) --------------------------------
/usr/local/sbin/earlyoom &
mkdir -p /run/sshd
/usr/sbin/sshd -D -e &
sshd_pid=$!

stop() {
  log "stopping"
  kill -TERM "$sshd_pid" 2>/dev/null || true
  kill -TERM "$dockerd_pid" 2>/dev/null || true
  wait "$dockerd_pid" 2>/dev/null || true
  exit 0
}
trap stop TERM INT

touch /run/vrd-lab-ready
log "ready: sshd and dockerd up"

while :; do
  sleep infinity &
  wait $! || true
done
