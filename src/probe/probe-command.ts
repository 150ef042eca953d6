/**
 * The facts probe as a command for one node: `python3 - <args-json>` with the probe program on
 * stdin. Pure data, so the plan can list it and the executor and the live preflight can run it.
 */
import { type Argv, argv } from '../command/shell.js'
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import { CONTAINER_PY, ENV_OF_INTEREST, NODE_PROBE_PY, RAY_NODES_PY } from './node-probe.js'
import { portsToProbe } from './ports.js'

export interface ProbeCommand {
  readonly cmd: Argv
  /** The probe program, sent on stdin. */
  readonly stdin: string
}

/** The probe's own deadline (each of its sub-commands has a shorter one); `ssh.commandTimeoutSeconds` may lower it. */
export const PROBE_TIMEOUT_SECONDS = 120

/** The probe with its constants in front (JSON string literals are valid Python literals). */
export const PROBE_PROGRAM = [
  `CONTAINER_PY = ${JSON.stringify(CONTAINER_PY)}`,
  `RAY_PY = ${JSON.stringify(RAY_NODES_PY)}`,
  `ENV_NAMES = ${JSON.stringify(ENV_OF_INTEREST)}`,
  NODE_PROBE_PY,
].join('\n')

export interface ProbeOptions {
  /**
   * `full` (the preflight): the running container is probed from inside too, and Ray's view from
   * the head's. `host` (a deploy's host checks, before anything changes): the host and the
   * container's inspect only, no `docker exec`.
   */
  readonly mode?: 'full' | 'host'
  /** Head → worker SSH over the fabric (image.distribution relay), tried on the head: targets and ssh options. */
  readonly relay?: { readonly targets: readonly { user: string; ip: string; port: number }[]; readonly sshOptions: readonly string[] }
  /** The tool's data directories on the node whose free space the host checks need (src/plan/host-check-commands.ts). */
  readonly dataDirs?: readonly { readonly label: string; readonly path: string }[]
  /** How far back the kernel log's out-of-memory lines count when no release container runs (default: an hour). */
  readonly kernelLogWindowSeconds?: number
}

/** The probe for one node: its peers are every other node's fabric IP. */
export function probeCommand(m: Manifest, node: ManifestNode, opts: ProbeOptions = {}): ProbeCommand {
  const full = (opts.mode ?? 'full') === 'full'
  const relay = opts.relay && node.role === 'head' ? opts.relay.targets : []
  const args = {
    container: m.container.name,
    peers: m.nodes.filter((n) => n.name !== node.name).map((n) => ({ name: n.name, ip: n.fabricIp, port: 22 })),
    // Ray's view only where there is a Ray: the native executor (vllm.executorBackend mp) starts none.
    ray: full && node.role === 'head' && m.vllm.executorBackend === 'ray',
    exec: full,
    ports: portsToProbe(m, node),
    ...(relay.length > 0 && { relay, sshOptions: opts.relay?.sshOptions }),
    ...(opts.kernelLogWindowSeconds !== undefined && { kernelLogWindowSeconds: opts.kernelLogWindowSeconds }),
    ...(opts.dataDirs && opts.dataDirs.length > 0 && { dataDirs: opts.dataDirs }),
  }
  return { cmd: argv('python3', '-', JSON.stringify(args)), stdin: PROBE_PROGRAM }
}
