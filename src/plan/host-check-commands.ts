/**
 * The host checks' probe: one fixed POSIX sh script per node, run before a deploy changes
 * anything. It only reads: docker's state and data root, the free space there, the fabric
 * interfaces' links, every IPv4 address, `nvidia-smi -L`, and (on the head, for `relay`) whether
 * SSH to each worker's fabric IP works without a prompt. Values arrive as positional arguments:
 *
 *   $1 = N, then N fabric interface names, then M, then M triples "user ip port" of relay
 *   targets, then the ssh option words (RELAY_SSH_OPTIONS, the relay's own).
 *
 * Output: one record per line, fields separated by tabs (free text flattened to one line):
 *   probe  1
 *   docker ok <data root> | docker missing <why> | docker failed <docker's error>
 *   disk   <path> <free KiB> | disk <path> ? <error>
 *   link   <ifname> present <flags> <state> | link <ifname> missing <error>
 *   addr   <ifname> <address/prefix>                 (every IPv4 address on the node)
 *   gpu    ok <count> | gpu missing <why> | gpu failed <error>
 *   relay  <ip> <exit code of ssh> <its output>
 *   end
 */
import { type Argv, shScript } from '../command/shell.js'
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import { RELAY_SSH_OPTIONS, fabricSshTarget } from './relay-commands.js'

export const HOST_PROBE_SCRIPT = `set -u
n=$1; shift
ifaces=
i=0
while [ "$i" -lt "$n" ]; do ifaces="$ifaces $1"; shift; i=$((i + 1)); done
flat() { tr '\\t\\n\\r' '   ' | cut -c1-400; }
printf 'probe\\t1\\n'
root=
if ! command -v docker >/dev/null 2>&1; then
  printf 'docker\\tmissing\\t%s\\n' "docker is not installed (not on PATH: $PATH)"
else
  # docker version names the daemon problem (docker info --format only prints a template error).
  out=$(docker version --format '{{.Server.Version}}' 2>&1 </dev/null); rc=$?
  [ "$rc" -ne 0 ] || { out=$(docker info --format '{{.DockerRootDir}}' 2>&1 </dev/null); rc=$?; }
  if [ "$rc" -eq 0 ] && [ -n "$out" ] && [ "\${out#/}" != "$out" ]; then
    root=$out
    printf 'docker\\tok\\t%s\\n' "$root"
  else
    printf 'docker\\tfailed\\t%s\\n' "$(printf 'exit %s: %s' "$rc" "$out" | flat)"
  fi
fi
if [ -n "$root" ]; then
  free=$(df -P -k -- "$root" 2>&1 | awk 'NR == 2 { print $4 }')
  case $free in
    ''|*[!0-9]*) printf 'disk\\t%s\\t?\\t%s\\n' "$root" "$(df -P -k -- "$root" 2>&1 | flat)" ;;
    *) printf 'disk\\t%s\\t%s\\n' "$root" "$free" ;;
  esac
fi
for ifname in $ifaces; do
  l=$(ip -o link show dev "$ifname" 2>&1); rc=$?
  if [ "$rc" -ne 0 ]; then
    printf 'link\\t%s\\tmissing\\t%s\\n' "$ifname" "$(printf '%s' "$l" | flat)"
  else
    flags=$(printf '%s' "$l" | sed -n 's/^[0-9]*: [^ ]*: <\\([^>]*\\)>.*/\\1/p')
    state=$(printf '%s' "$l" | sed -n 's/.* state \\([A-Za-z_]*\\).*/\\1/p')
    printf 'link\\t%s\\tpresent\\t%s\\t%s\\n' "$ifname" "$flags" "$state"
  fi
done
ip -o -4 addr show 2>/dev/null | awk '{ print "addr\\t" $2 "\\t" $4 }'
if ! command -v nvidia-smi >/dev/null 2>&1; then
  printf 'gpu\\tmissing\\t%s\\n' "nvidia-smi is not installed (not on PATH)"
else
  g=$(nvidia-smi -L 2>&1 </dev/null); rc=$?
  if [ "$rc" -eq 0 ]; then
    printf 'gpu\\tok\\t%s\\n' "$(printf '%s\\n' "$g" | grep -c '^GPU [0-9]')"
  else
    printf 'gpu\\tfailed\\t%s\\n' "$(printf 'exit %s: %s' "$rc" "$g" | flat)"
  fi
fi
m=$1; shift
i=0
while [ "$i" -lt "$m" ]; do
  i=$((i + 1))
  user=$1; ip=$2; port=$3
  # After the remaining triples come the ssh option words.
  r=$(shift $((3 * (m - i + 1))); ssh "$@" -p "$port" -l "$user" "$ip" true 2>&1 </dev/null); rc=$?
  printf 'relay\\t%s\\t%s\\t%s\\n' "$ip" "$rc" "$(printf '%s' "$r" | flat)"
  shift 3
done
printf 'end\\n'
`

/** The probe of one node; `relay` adds the head → worker SSH checks on the head. */
export function hostProbeCmd(m: Manifest, node: ManifestNode, relay: boolean): Argv {
  const ifaces = m.fabric.interfaces
  const targets =
    relay && node.role === 'head'
      ? m.nodes
          .filter((n) => n.role !== 'head')
          .flatMap((w) => {
            const t = fabricSshTarget(m, w)
            return [t.user, t.ip, String(t.port)]
          })
      : []
  return shScript(HOST_PROBE_SCRIPT, String(ifaces.length), ...ifaces, String(targets.length / 3), ...targets, ...(targets.length > 0 ? RELAY_SSH_OPTIONS : []))
}
