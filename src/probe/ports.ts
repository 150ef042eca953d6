/**
 * The TCP ports a node must reach on the other nodes' fabric IPs, as the probe tries them.
 *
 * - Ray's GCS (`ray.port`) on the head, from every worker: without it no worker joins. With the native
 *   executor (`vllm.executorBackend: mp`), vLLM's rendezvous store (`vllm.masterPort`) instead.
 * - The ports `ray.extraArgs` pins (`--node-manager-port`, `--object-manager-port`, the first
 *   `--min-worker-port`), on every node from every other: Ray picks them at random otherwise, and a
 *   random port cannot be checked ahead; pinning them is how a firewalled fabric is made to work.
 * - One port of Linux's ephemeral range (32768–60999), on every node from every other: NCCL's
 *   bootstrap and socket transport and Ray's unpinned ports listen there. Nothing listens on it, so
 *   the healthy answer is a refusal; silence means a firewall drops new connections to the range.
 *
 * A refusal is a pass (the host answered; only a listener is missing, which Ray starts later);
 * silence (a timeout) is the finding.
 */
import type { Manifest, ManifestNode } from '../manifest/schema.js'

export interface PortToProbe {
  readonly peer: string
  readonly ip: string
  readonly port: number
  readonly purpose: string
}

/** A port inside Linux's default ephemeral range (net.ipv4.ip_local_port_range 32768 60999) that nothing of ours listens on. */
export const EPHEMERAL_PROBE_PORT = 47_613

const PINNED_RAY_FLAGS = {
  '--node-manager-port': 'Ray node manager (pinned)',
  '--object-manager-port': 'Ray object manager (pinned)',
  '--min-worker-port': 'Ray worker ports (first of the pinned range)',
} as const

/** Ports `ray start` arguments pin, as `--flag=N` or `--flag N`. */
export function pinnedRayPorts(extraArgs: readonly string[]): { port: number; purpose: string }[] {
  const out: { port: number; purpose: string }[] = []
  extraArgs.forEach((arg, i) => {
    for (const [flag, purpose] of Object.entries(PINNED_RAY_FLAGS)) {
      const value = arg === flag ? extraArgs[i + 1] : arg.startsWith(`${flag}=`) ? arg.slice(flag.length + 1) : undefined
      const port = value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined
      if (port !== undefined && port > 0 && port < 65536) out.push({ port, purpose })
    }
  })
  return out
}

export function portsToProbe(m: Manifest, node: ManifestNode): PortToProbe[] {
  const native = m.vllm.executorBackend === 'mp'
  const pinned = native ? [] : pinnedRayPorts(m.ray.extraArgs)
  const headPort = native
    ? { port: m.vllm.masterPort, purpose: "vLLM's rendezvous store (vllm.masterPort, --master-port)" }
    : { port: m.ray.port, purpose: 'Ray GCS (ray.port)' }
  return m.nodes
    .filter((peer) => peer.name !== node.name)
    .flatMap((peer) =>
      [...(peer.role === 'head' ? [headPort] : []), ...pinned, { port: EPHEMERAL_PROBE_PORT, purpose: 'ephemeral range (NCCL, Ray workers)' }].map((p) => ({
        peer: peer.name,
        ip: peer.fabricIp,
        ...p,
      })),
    )
}
