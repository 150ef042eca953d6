/**
 * Host checks: docker usable, every fabric interface present and up with the node's fabric IP, the
 * GPUs visible, disk space for the image under docker's data root, and (image.distribution relay)
 * head → worker SSH over the fabric. They read only the host part of the facts, so they run before
 * a deploy changes anything (src/deploy/host-checks.ts) and in the preflight alike.
 */
import { stripPrefixLength } from '../../net/ipv4.js'
import type { Finding } from '../finding.js'
import type { CheckContext, ClusterNode } from './check-context.js'

export const formatBytes = (n: number): string => {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB']
  let v = n
  let u = 0
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024
    u++
  }
  return `${u === 0 ? v : v.toFixed(1)} ${units[u]} (${n} bytes)`
}

const login = (n: ClusterNode): string => `${n.expected?.sshUser ?? '<user>'}@${n.expected?.sshHost ?? n.name}`
const probed = (ctx: CheckContext): ClusterNode[] => ctx.nodes.filter((n) => n.facts?.host)

/** DOCKER_UNUSABLE: docker is missing, its daemon down, or the SSH user may not use it. */
export function dockerUnusable(ctx: CheckContext): Finding[] {
  return probed(ctx).flatMap((node): Finding[] => {
    const d = node.facts?.host?.docker
    if (!d || d.ok) return []
    const user = node.expected?.sshUser ?? 'the SSH user'
    const error = d.error ?? '(no error text)'
    const denied = /permission denied/i.test(error)
    return [
      {
        code: 'DOCKER_UNUSABLE',
        severity: 'error',
        node: node.name,
        message: d.missing
          ? `docker is not installed on ${node.name}, so no container can run there.`
          : `docker does not work for ${user} on ${node.name}${denied ? ' (permission denied on the docker socket)' : ''}.`,
        evidence: { Command: "docker info --format '{{json .}}'", Result: error },
        fix: d.missing
          ? `Install Docker Engine and the NVIDIA Container Toolkit on ${node.name}, then check: ssh ${login(node)} docker info`
          : denied
            ? `Let ${user} use docker on ${node.name} (usermod -aG docker ${user}, then log in again), or set ssh.user to root; check: ssh ${login(node)} docker info`
            : `Start the docker daemon on ${node.name} (systemctl start docker) and check: ssh ${login(node)} docker info`,
      },
    ]
  })
}

/** FABRIC_ADDRESS_MISSING / FABRIC_LINK_DOWN: each fabric interface exists, is up with carrier, and one of them holds the node's fabric IP. */
export function fabricInterfaces(ctx: CheckContext): Finding[] {
  const wanted = ctx.expected?.fabricInterfaces ?? []
  if (wanted.length === 0) return []
  const prefix = ctx.expected?.fabricSubnet.split('/')[1]
  const out: Finding[] = []
  for (const node of probed(ctx)) {
    const ifaces = node.facts?.interfaces ?? []
    // Link flags come from `ip -j addr`; without them (a host without iproute2) nothing here can be judged.
    if (!ifaces.some((i) => i.flags)) continue
    const index = ctx.expected?.nodes.findIndex((n) => n.name === node.name) ?? -1
    const allAddrs =
      ifaces
        .filter((i) => i.name !== 'lo')
        .flatMap((i) => i.addresses.filter((a) => !a.includes(':')).map((a) => `${i.name} ${a}`))
        .join(', ') || '(none)'
    const present = wanted.filter((name) => ifaces.some((i) => i.name === name))
    for (const name of wanted) {
      const link = ifaces.find((i) => i.name === name)
      if (!link) {
        out.push({
          code: 'FABRIC_ADDRESS_MISSING',
          severity: 'error',
          node: node.name,
          message: `Fabric interface ${name} does not exist on ${node.name}.`,
          evidence: { 'fabric.interfaces': wanted.join(', '), [`${node.name} IPv4 addresses`]: allAddrs, Result: `no interface named ${name}` },
          fix: `Set fabric.interfaces to the name of the fabric interface on ${node.name} (ip -o -4 addr show there lists them), or bring ${name} up on ${node.name}.`,
        })
        continue
      }
      const flags = link.flags ?? []
      const adminUp = flags.includes('UP')
      const carrier = flags.includes('LOWER_UP')
      if (adminUp && carrier) continue
      out.push({
        code: 'FABRIC_LINK_DOWN',
        severity: 'error',
        node: node.name,
        message: `Fabric interface ${name} on ${node.name} is ${!adminUp ? 'administratively down' : 'up but has no carrier (no link)'}.`,
        evidence: { Interface: name, Flags: flags.join(',') || '(none)', State: (link.operstate ?? '(unknown)').toUpperCase() },
        fix: !adminUp
          ? `Bring it up on ${node.name}: ip link set ${name} up (and make it persistent in the node's network configuration).`
          : `Check the cable, transceiver and switch port of ${name} on ${node.name} (ip link show ${name} must say LOWER_UP).`,
      })
    }
    const fabricIp = node.expected?.fabricIp
    if (present.length === 0 || !fabricIp) continue
    const holder = ifaces.find((i) => i.addresses.some((a) => stripPrefixLength(a) === fabricIp))
    if (holder && wanted.includes(holder.name)) continue
    const addrsOf = (name: string) =>
      ifaces
        .find((i) => i.name === name)
        ?.addresses.filter((a) => !a.includes(':'))
        .join(', ') || '(none)'
    out.push({
      code: 'FABRIC_ADDRESS_MISSING',
      severity: 'error',
      node: node.name,
      message: holder
        ? `${node.name}'s fabric IP ${fabricIp} is on ${holder.name}, not on a fabric interface (${wanted.join(', ')}).`
        : `No interface on ${node.name} holds its fabric IP ${fabricIp}.`,
      evidence: {
        [`nodes[${index}].fabricIp`]: fabricIp,
        ...Object.fromEntries(present.map((i) => [`${i} addresses`, addrsOf(i)])),
        ...(holder && { 'Held by': `${holder.name} ${holder.addresses.find((a) => stripPrefixLength(a) === fabricIp) ?? fabricIp}` }),
      },
      fix: `Add it on ${node.name}: ip addr add ${fabricIp}/${prefix} dev ${present[0]} (and make it persistent), or set nodes[${index}].fabricIp to the address ${present[0]} really has.`,
    })
  }
  return out
}

/** NO_GPU_VISIBLE: nvidia-smi lists fewer GPUs than the manifest gives the node. */
export function noGpuVisible(ctx: CheckContext): Finding[] {
  return probed(ctx).flatMap((node): Finding[] => {
    const want = node.expected?.gpus ?? 0
    const host = node.facts?.host
    const seen = node.facts?.gpus.length ?? 0
    if (want === 0 || !host || seen >= want) return []
    const index = ctx.expected?.nodes.findIndex((n) => n.name === node.name) ?? -1
    return [
      {
        code: 'NO_GPU_VISIBLE',
        severity: 'error',
        node: node.name,
        message:
          seen === 0
            ? `No GPU is visible on ${node.name}; the manifest expects ${want}.`
            : `Only ${seen} of the ${want} GPUs the manifest expects are visible on ${node.name}.`,
        evidence: { [`nodes[${index}].gpus`]: String(want), 'nvidia-smi': host.gpuError ? host.gpuError.error : `${seen} GPU(s)` },
        fix: host.gpuError?.missing
          ? `Install the NVIDIA driver on ${node.name} (nvidia-smi must be on PATH for ${node.expected?.sshUser ?? 'the SSH user'}).`
          : `Check the driver on ${node.name} (nvidia-smi -L must list ${want} GPU(s)), or set nodes[${index}].gpus to ${seen}.`,
      },
    ]
  })
}

/**
 * The least free space each of the tool's data directories must have (by the label the plan gives
 * it, src/plan/host-check-commands.ts). The release state gets a few KiB per release (start and
 * serve scripts, env, the manifest snapshot, SHA256SUMS), the lock and one audit line per rollout:
 * 64 MiB is thousands of times that, so only a (nearly) full filesystem trips it, and below it a
 * release could be cut off half written, `current` not moved, or the audit line lost.
 */
export const DATA_DIR_MIN_FREE_BYTES: Readonly<Record<string, number>> = { 'release state': 64 * 1024 * 1024 }

/**
 * DISK_SPACE_LOW: less free space under docker's data root than the image needs (when its size is
 * known), or under one of the tool's data directories than DATA_DIR_MIN_FREE_BYTES.
 */
export function diskSpaceLow(ctx: CheckContext): Finding[] {
  const need = ctx.options.imageBytes
  return probed(ctx).flatMap((node): Finding[] => {
    const out: Finding[] = []
    const d = node.facts?.host?.docker
    if (need !== undefined && d?.rootDir && d.rootFreeBytes !== undefined && d.rootFreeBytes < need) {
      out.push({
        code: 'DISK_SPACE_LOW',
        severity: 'error',
        node: node.name,
        message: `${node.name} has less free space under docker's data root than the image needs.`,
        evidence: { 'Docker data root': d.rootDir, Free: formatBytes(d.rootFreeBytes), 'Image size': formatBytes(need) },
        fix: `Free at least ${formatBytes(need - d.rootFreeBytes)} under ${d.rootDir} on ${node.name} (docker image prune -a removes unused images), or move docker's data-root to a larger disk.`,
      })
    }
    for (const dir of node.facts?.host?.dataDirs ?? []) {
      const least = DATA_DIR_MIN_FREE_BYTES[dir.label]
      if (least === undefined || dir.freeBytes >= least) continue
      const where = dir.statPath === dir.path ? dir.path : `${dir.path} (not there yet: ${dir.statPath})`
      out.push({
        code: 'DISK_SPACE_LOW',
        severity: 'error',
        node: node.name,
        message: `${node.name} has ${formatBytes(dir.freeBytes)} free for the ${dir.label} under ${dir.path}, less than the ${formatBytes(least)} a rollout needs there.`,
        evidence: {
          [`${dir.label} directory`]: where,
          Free: formatBytes(dir.freeBytes),
          'Filesystem size': formatBytes(dir.totalBytes),
          'Needs at least': formatBytes(least),
        },
        fix: `Free at least ${formatBytes(least - dir.freeBytes)} on the filesystem holding ${dir.statPath} on ${node.name} (df -h ${dir.statPath} shows it; old releases are under ${dir.path}/releases), or give it a larger disk.`,
      })
    }
    return out
  })
}

/** RELAY_SSH_FAILED: the head cannot SSH to a worker's fabric IP without a prompt (image.distribution relay). */
export function relaySshFailed(ctx: CheckContext): Finding[] {
  const head = ctx.head
  const relay = head?.facts?.host?.relay
  if (!head || !relay) return []
  return ctx.nodes
    .filter((w) => w !== head && w.expected)
    .flatMap((w): Finding[] => {
      const ip = w.expected?.fabricIp ?? ''
      const user = w.expected?.sshUser ?? 'root'
      const port = w.expected?.sshPort ?? 22
      const r = relay.find((x) => x.ip === ip)
      if (r && r.code === 0) return []
      const text = r?.output ?? 'not reported by the probe'
      const fix = /host key verification failed|no .* host key is known/i.test(text)
        ? `Add ${w.name}'s host key for ${ip} to ~/.ssh/known_hosts of ${user} on ${head.name} (compare it with ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub on ${w.name}).`
        : /permission denied/i.test(text)
          ? `Give ${head.name} a key ${w.name} accepts: add the public key of ${user}@${head.name} to ~${user}/.ssh/authorized_keys on ${w.name}.`
          : r?.code === 127
            ? `Install the OpenSSH client on ${head.name} (ssh must be on PATH).`
            : `Make ${w.name}'s sshd reachable from ${head.name} over the fabric at ${ip}:${port} (routes, firewall, sshd ListenAddress).`
      return [
        {
          code: 'RELAY_SSH_FAILED',
          severity: 'error',
          node: head.name,
          message: `${head.name} cannot SSH to ${w.name} over the fabric without a prompt, so image.distribution relay cannot pass the image on.`,
          evidence: {
            Command: `ssh -o BatchMode=yes -p ${port} ${user}@${ip} true (on ${head.name})`,
            'Exit status': r ? String(r.code) : '(none)',
            Output: text || '(none)',
          },
          fix,
        },
      ]
    })
}
