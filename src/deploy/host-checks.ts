/**
 * Host checks: before a deploy changes anything, one SSH exec per node, all at once, of a fixed
 * read-only probe (src/plan/host-check-commands.ts). A pure parser reads its output and a pure
 * evaluator turns it into findings: docker usable, every fabric interface present and up with the
 * node's fabric IP, GPUs visible, disk space for the image under docker's data root, and for
 * `relay` head → worker SSH over the fabric.
 */
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import { hostProbeCmd } from '../plan/host-check-commands.js'
import { fabricSshTarget } from '../plan/relay-commands.js'
import { headOf } from '../plan/node-commands.js'
import { sortFindings } from '../preflight/diagnose.js'
import type { Finding } from '../preflight/finding.js'
import { type Transport, outcome } from '../transport/transport.js'

export interface HostProbe {
  /** The probe printed its last line: nothing was cut off. */
  readonly complete: boolean
  readonly docker?: { readonly ok: true; readonly rootDir: string } | { readonly ok: false; readonly missing: boolean; readonly error: string }
  readonly disk?: { readonly path: string; readonly freeBytes?: number; readonly error?: string }
  readonly links: readonly {
    readonly name: string
    readonly present: boolean
    readonly flags: readonly string[]
    readonly state?: string
    readonly error?: string
  }[]
  readonly addresses: readonly { readonly iface: string; readonly cidr: string }[]
  readonly gpus?: { readonly ok: true; readonly count: number } | { readonly ok: false; readonly missing: boolean; readonly error: string }
  readonly relay: readonly { readonly ip: string; readonly code: number; readonly output: string }[]
}

/** Read the probe's records (see src/plan/host-check-commands.ts). Unknown lines are ignored. */
export function parseHostProbe(stdout: string): HostProbe {
  let complete = false
  let docker: HostProbe['docker']
  let disk: HostProbe['disk']
  let gpus: HostProbe['gpus']
  const links: HostProbe['links'][number][] = []
  const addresses: HostProbe['addresses'][number][] = []
  const relay: HostProbe['relay'][number][] = []
  for (const line of stdout.split('\n')) {
    const f = line.replace(/\r$/, '').split('\t')
    switch (f[0]) {
      case 'docker':
        docker =
          f[1] === 'ok' && f[2]
            ? { ok: true, rootDir: f[2] }
            : { ok: false, missing: f[1] === 'missing', error: f.slice(2).join(' ').trim() || '(no error text)' }
        break
      case 'disk': {
        const kib = Number(f[2])
        disk =
          f[2] !== undefined && /^\d+$/.test(f[2])
            ? { path: f[1] ?? '', freeBytes: kib * 1024 }
            : { path: f[1] ?? '', error: f.slice(3).join(' ').trim() || 'df printed no free space' }
        break
      }
      case 'link':
        if (!f[1]) break
        links.push(
          f[2] === 'present'
            ? { name: f[1], present: true, flags: (f[3] ?? '').split(',').filter(Boolean), ...(f[4] && { state: f[4] }) }
            : { name: f[1], present: false, flags: [], error: f.slice(3).join(' ').trim() },
        )
        break
      case 'addr':
        if (f[1] && f[2]) addresses.push({ iface: f[1].replace(/@.*$/, ''), cidr: f[2] })
        break
      case 'gpu':
        gpus =
          f[1] === 'ok' && /^\d+$/.test(f[2] ?? '')
            ? { ok: true, count: Number(f[2]) }
            : { ok: false, missing: f[1] === 'missing', error: f.slice(2).join(' ').trim() || '(no error text)' }
        break
      case 'relay':
        if (f[1]) relay.push({ ip: f[1], code: Number(f[2] ?? '255'), output: f.slice(3).join(' ').trim() })
        break
      case 'end':
        complete = true
        break
    }
  }
  return { complete, ...(docker && { docker }), ...(disk && { disk }), links, addresses, ...(gpus && { gpus }), relay }
}

/** What one node answered: the parsed probe, or why there is none. */
export type NodeProbeResult = { readonly node: string; readonly probe: HostProbe } | { readonly node: string; readonly error: string }

const bytes = (n: number): string => {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB']
  let v = n
  let u = 0
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024
    u++
  }
  return `${u === 0 ? v : v.toFixed(1)} ${units[u]} (${n} bytes)`
}

const login = (m: Manifest, n: ManifestNode) => `${n.ssh.user ?? m.ssh.user}@${n.ssh.host}`

function dockerFindings(m: Manifest, node: ManifestNode, p: HostProbe): Finding[] {
  if (!p.docker || p.docker.ok) return []
  const user = node.ssh.user ?? m.ssh.user
  const denied = /permission denied/i.test(p.docker.error)
  return [
    {
      code: 'DOCKER_UNUSABLE',
      severity: 'error',
      node: node.name,
      message: p.docker.missing
        ? `docker is not installed on ${node.name}, so no container can run there.`
        : `docker does not work for ${user} on ${node.name}${denied ? ' (permission denied on the docker socket)' : ''}.`,
      evidence: { Command: 'docker info --format {{.DockerRootDir}}', Result: p.docker.error },
      fix: p.docker.missing
        ? `Install Docker Engine and the NVIDIA Container Toolkit on ${node.name}, then check: ssh ${login(m, node)} docker info`
        : denied
          ? `Let ${user} use docker on ${node.name} (usermod -aG docker ${user}, then log in again), or set ssh.user to root; check: ssh ${login(m, node)} docker info`
          : `Start the docker daemon on ${node.name} (systemctl start docker) and check: ssh ${login(m, node)} docker info`,
    },
  ]
}

function fabricFindings(m: Manifest, node: ManifestNode, p: HostProbe): Finding[] {
  const out: Finding[] = []
  const index = m.nodes.indexOf(node)
  const prefix = m.fabric.subnet.split('/')[1]
  const addrsOf = (iface: string) => p.addresses.filter((a) => a.iface === iface).map((a) => a.cidr)
  const allAddrs =
    p.addresses
      .filter((a) => a.iface !== 'lo')
      .map((a) => `${a.iface} ${a.cidr}`)
      .join(', ') || '(none)'
  const present = m.fabric.interfaces.filter((name) => p.links.find((l) => l.name === name)?.present)
  for (const name of m.fabric.interfaces) {
    const link = p.links.find((l) => l.name === name)
    if (!link?.present) {
      out.push({
        code: 'FABRIC_ADDRESS_MISSING',
        severity: 'error',
        node: node.name,
        message: `Fabric interface ${name} does not exist on ${node.name}.`,
        evidence: {
          'fabric.interfaces': m.fabric.interfaces.join(', '),
          [`${node.name} IPv4 addresses`]: allAddrs,
          Result: link?.error ?? 'not reported by the probe',
        },
        fix: `Set fabric.interfaces to the name of the fabric interface on ${node.name} (ip -o -4 addr show there lists them), or bring ${name} up on ${node.name}.`,
      })
      continue
    }
    const adminUp = link.flags.includes('UP')
    const carrier = link.flags.includes('LOWER_UP')
    if (!adminUp || !carrier) {
      out.push({
        code: 'FABRIC_LINK_DOWN',
        severity: 'error',
        node: node.name,
        message: `Fabric interface ${name} on ${node.name} is ${!adminUp ? 'administratively down' : 'up but has no carrier (no link)'}.`,
        evidence: { Interface: name, Flags: link.flags.join(',') || '(none)', State: link.state ?? '(unknown)' },
        fix: !adminUp
          ? `Bring it up on ${node.name}: ip link set ${name} up (and make it persistent in the node's network configuration).`
          : `Check the cable, transceiver and switch port of ${name} on ${node.name} (ip link show ${name} must say LOWER_UP).`,
      })
    }
  }
  if (present.length > 0) {
    const holder = p.addresses.find((a) => a.cidr.split('/')[0] === node.fabricIp)
    const onFabric = holder && m.fabric.interfaces.includes(holder.iface)
    if (!onFabric) {
      out.push({
        code: 'FABRIC_ADDRESS_MISSING',
        severity: 'error',
        node: node.name,
        message: holder
          ? `${node.name}'s fabric IP ${node.fabricIp} is on ${holder.iface}, not on a fabric interface (${m.fabric.interfaces.join(', ')}).`
          : `No interface on ${node.name} holds its fabric IP ${node.fabricIp}.`,
        evidence: {
          [`nodes[${index}].fabricIp`]: node.fabricIp,
          ...Object.fromEntries(present.map((i) => [`${i} addresses`, addrsOf(i).join(', ') || '(none)'])),
          ...(holder && { 'Held by': `${holder.iface} ${holder.cidr}` }),
        },
        fix: `Add it on ${node.name}: ip addr add ${node.fabricIp}/${prefix} dev ${present[0]} (and make it persistent), or set nodes[${index}].fabricIp to the address ${present[0]} really has.`,
      })
    }
  }
  return out
}

function gpuFindings(m: Manifest, node: ManifestNode, p: HostProbe): Finding[] {
  if (node.gpus === 0 || !p.gpus) return []
  const index = m.nodes.indexOf(node)
  if (p.gpus.ok && p.gpus.count >= node.gpus) return []
  const seen = p.gpus.ok ? p.gpus.count : 0
  return [
    {
      code: 'NO_GPU_VISIBLE',
      severity: 'error',
      node: node.name,
      message:
        seen === 0
          ? `No GPU is visible on ${node.name}; the manifest expects ${node.gpus}.`
          : `Only ${seen} of the ${node.gpus} GPUs the manifest expects are visible on ${node.name}.`,
      evidence: { [`nodes[${index}].gpus`]: String(node.gpus), 'nvidia-smi -L': p.gpus.ok ? `${p.gpus.count} GPU(s)` : p.gpus.error },
      fix:
        !p.gpus.ok && p.gpus.missing
          ? `Install the NVIDIA driver on ${node.name} (nvidia-smi must be on PATH for ${node.ssh.user ?? m.ssh.user}).`
          : `Check the driver on ${node.name} (nvidia-smi -L must list ${node.gpus} GPU(s)), or set nodes[${index}].gpus to ${seen}.`,
    },
  ]
}

function diskFindings(node: ManifestNode, p: HostProbe, imageBytes?: number): Finding[] {
  if (imageBytes === undefined || !p.disk || p.disk.freeBytes === undefined || p.disk.freeBytes >= imageBytes) return []
  return [
    {
      code: 'DISK_SPACE_LOW',
      severity: 'error',
      node: node.name,
      message: `${node.name} has less free space under docker's data root than the image needs.`,
      evidence: { 'Docker data root': p.disk.path, Free: bytes(p.disk.freeBytes), 'Image size': bytes(imageBytes) },
      fix: `Free at least ${bytes(imageBytes - p.disk.freeBytes)} under ${p.disk.path} on ${node.name} (docker image prune -a removes unused images), or move docker's data-root to a larger disk.`,
    },
  ]
}

function relayFindings(m: Manifest, head: ManifestNode, p: HostProbe): Finding[] {
  const out: Finding[] = []
  for (const w of m.nodes.filter((n) => n.role !== 'head')) {
    const t = fabricSshTarget(m, w)
    const r = p.relay.find((x) => x.ip === t.ip)
    if (r && r.code === 0) continue
    const text = r?.output ?? 'not reported by the probe'
    const fix = /host key verification failed|no .* host key is known/i.test(text)
      ? `Add ${w.name}'s host key for ${t.ip} to ~/.ssh/known_hosts of ${t.user} on ${head.name} (compare it with ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub on ${w.name}).`
      : /permission denied/i.test(text)
        ? `Give ${head.name} a key ${w.name} accepts: add the public key of ${t.user}@${head.name} to ~${t.user}/.ssh/authorized_keys on ${w.name}.`
        : r?.code === 127
          ? `Install the OpenSSH client on ${head.name} (ssh must be on PATH).`
          : `Make ${w.name}'s sshd reachable from ${head.name} over the fabric at ${t.ip}:${t.port} (routes, firewall, sshd ListenAddress).`
    out.push({
      code: 'RELAY_SSH_FAILED',
      severity: 'error',
      node: head.name,
      message: `${head.name} cannot SSH to ${w.name} over the fabric without a prompt, so image.distribution relay cannot pass the image on.`,
      evidence: {
        Command: `ssh -o BatchMode=yes -p ${t.port} ${t.user}@${t.ip} true (on ${head.name})`,
        'Exit status': r ? String(r.code) : '(none)',
        Output: text || '(none)',
      },
      fix,
    })
  }
  return out
}

/** Findings from every node's probe (pure). */
export function evaluateHostChecks(m: Manifest, results: readonly NodeProbeResult[], opts: { relay?: boolean; imageBytes?: number } = {}): Finding[] {
  const findings: Finding[] = []
  for (const node of m.nodes) {
    const r = results.find((x) => x.node === node.name)
    if (!r || 'error' in r || !r.probe.complete) {
      findings.push({
        code: 'NODE_UNREACHABLE',
        severity: 'error',
        node: node.name,
        message: `The host checks could not run on ${node.name}, so nothing there was checked.`,
        evidence: { 'SSH host': node.ssh.host, Error: !r ? 'no connection to this node' : 'error' in r ? r.error : 'the probe output was cut off' },
        fix: `Make ${node.name} reachable over SSH (host, port, user, key, jump host) and able to run sh, then deploy again.`,
      })
      continue
    }
    const p = r.probe
    findings.push(...dockerFindings(m, node, p), ...fabricFindings(m, node, p), ...gpuFindings(m, node, p), ...diskFindings(node, p, opts.imageBytes))
    if (opts.relay && node.role === 'head') findings.push(...relayFindings(m, node, p))
  }
  return sortFindings(findings)
}

const PROBE_TIMEOUT_MS = 60_000

export async function hostChecks(m: Manifest, transports: ReadonlyMap<string, Transport>, opts: { relay?: boolean; imageBytes?: number }): Promise<Finding[]> {
  const head = headOf(m)
  const workers = m.nodes.length - 1
  const results = await Promise.all(
    m.nodes.map(async (node): Promise<NodeProbeResult> => {
      const t = transports.get(node.name)
      if (!t) return { node: node.name, error: 'no connection to this node' }
      const relay = Boolean(opts.relay) && node.name === head.name
      const r = await t.run(hostProbeCmd(m, node, relay), { timeoutMs: PROBE_TIMEOUT_MS + (relay ? workers * 15_000 : 0) })
      if (r.code !== 0) return { node: node.name, error: `host probe on ${t.label}: ${outcome(r)}: ${(r.stderr || r.stdout).trim().slice(-300)}` }
      return { node: node.name, probe: parseHostProbe(r.stdout) }
    }),
  )
  return evaluateHostChecks(m, results, opts)
}
