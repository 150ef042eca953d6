/**
 * The host checks' probe: the node probe (src/probe/node-probe.ts) in its `host` mode, one SSH
 * exec per node before a deploy changes anything. It only reads: the host's kernel, driver, memory,
 * docker (state, data root, free space, runtimes, CDI), the NVIDIA container tooling (hooks, the
 * runtime's mode, the CDI specs and the driver files they name), the OOM guard (earlyoom,
 * systemd-oomd, nohang), free space for the release state, the fabric links (flags, MTU, speed), RDMA
 * devices, GPUs, the TCP ports Ray and NCCL need on the other nodes, and (on the head, for `relay`)
 * whether SSH to each worker's fabric IP works without a prompt. No `docker exec`: the running
 * release is left alone. Its output is the node facts document the checks read.
 */
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import { type ProbeCommand, probeCommand } from '../probe/probe-command.js'
import { RELAY_SSH_OPTIONS, fabricSshTarget } from './relay-commands.js'
import { clusterStateDir } from './release-commands.js'

/** What the host checks measure free space for on each node: the release state (releases, the lock, the audit log). */
export const dataDirsOf = (m: Manifest) => [{ label: 'release state', path: clusterStateDir(m) }] as const

/** The probe of one node; `relay` adds the head → worker SSH checks on the head. */
export function hostProbeCmd(m: Manifest, node: ManifestNode, relay: boolean): ProbeCommand {
  const targets = relay && node.role === 'head' ? m.nodes.filter((n) => n.role !== 'head').map((w) => fabricSshTarget(m, w)) : []
  return probeCommand(m, node, { mode: 'host', dataDirs: dataDirsOf(m), ...(targets.length > 0 && { relay: { targets, sshOptions: RELAY_SSH_OPTIONS } }) })
}
