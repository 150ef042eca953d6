/**
 * The facts probe as a command for one node: `python3 - <args-json>` with the probe program on
 * stdin. Pure data, so the plan can list it and the executor and the live preflight can run it.
 */
import { type Argv, argv } from '../command/shell.js'
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import type { HostFacts, NodeFacts } from './node-facts.js'
import { DOCKER_API_PY } from './docker-api-program.js'
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
  DOCKER_API_PY,
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
  /** Host facts this node's host checks read earlier in the same rollout, taken as given instead of read again (`knownHostOf`). */
  readonly knownHost?: KnownHost
}

/**
 * The host facts a release's start leaves as they were, which a later probe of the same rollout may
 * take from an earlier one: docker's engine (version, data root, runtimes, CDI; its free space is
 * read again), the NVIDIA container tooling and its CDI specs, the OOM guards, the driver's CUDA
 * version. Each costs a process or a directory walk per node: `docker info` (a docker CLI start and
 * a daemon call), a second `nvidia-smi` (an NVML start-up), `systemctl`, the CDI spec files.
 * Everything that a start does change (memory, GPU memory, ports, the container, the kernel log,
 * the fabric's links and peers) is read again.
 */
export type KnownHost = Pick<HostFacts, 'docker' | 'nvidiaContainer' | 'oomGuards' | 'cudaVersion'>

/** What of a node's host-check facts a later probe may take as given: only what was read, and docker only when it worked. */
export function knownHostOf(facts: NodeFacts | undefined): KnownHost | undefined {
  const h = facts?.ok ? facts.host : undefined
  if (!h) return undefined
  const known: KnownHost = {
    ...(h.docker?.ok && h.docker.rootDir && { docker: h.docker }),
    ...(h.nvidiaContainer && { nvidiaContainer: h.nvidiaContainer }),
    ...(h.oomGuards && { oomGuards: h.oomGuards }),
    ...(h.cudaVersion && { cudaVersion: h.cudaVersion }),
  }
  return Object.keys(known).length > 0 ? known : undefined
}

/** The probe program with the known host facts in front (a JSON text decoded in Python: JSON's literals are not all Python's). */
const programWith = (known: KnownHost | undefined): string =>
  known ? `KNOWN_HOST = __import__("json").loads(${JSON.stringify(JSON.stringify(known))})\n${PROBE_PROGRAM}` : PROBE_PROGRAM

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
  // The known host facts travel with the program on stdin, so the command (what `plan` shows) is the same either way.
  return { cmd: argv('python3', '-', JSON.stringify(args)), stdin: programWith(opts.knownHost) }
}
