/**
 * Live facts: one SSH round trip per node, all nodes at once, Ray's view from the head's run.
 * The only impure part of the preflight; the checks read what this returns.
 */
import { type Argv, argv } from '../../command/shell.js'
import type { Manifest, ManifestNode } from '../../manifest/schema.js'
import { type Transport, outcome } from '../../transport/transport.js'
import type { ContainerFacts, FactsBundle, NodeFacts, RayView } from '../facts.js'
import { assembleOfflineFacts } from '../diagnose.js'
import { parseRayNodes } from '../parse-ray.js'
import { CONTAINER_PY, ENV_OF_INTEREST, NODE_PROBE_PY, RAY_NODES_PY } from './node-probe.js'

export interface ProbeCommand {
  readonly cmd: Argv
  /** The probe program, sent on stdin. */
  readonly stdin: string
}

/** The probe for one node: its peers are every other node's fabric IP. */
export function probeCommand(m: Manifest, node: ManifestNode): ProbeCommand {
  const args = {
    container: m.container.name,
    peers: m.nodes.filter((n) => n.name !== node.name).map((n) => ({ name: n.name, ip: n.fabricIp, port: 22 })),
    ray: node.role === 'head',
  }
  return { cmd: argv('python3', '-', JSON.stringify(args)), stdin: PROBE_PROGRAM }
}

/** The probe with its constants in front (JSON string literals are valid Python literals). */
export const PROBE_PROGRAM = [
  `CONTAINER_PY = ${JSON.stringify(CONTAINER_PY)}`,
  `RAY_PY = ${JSON.stringify(RAY_NODES_PY)}`,
  `ENV_NAMES = ${JSON.stringify(ENV_OF_INTEREST)}`,
  NODE_PROBE_PY,
].join('\n')

interface ProbeOutput {
  errors: string[]
  hostname?: string
  interfaces?: { name: string; up: boolean; addresses: string[] }[]
  default_route?: { to: string; dev?: string; src?: string; via?: string; error?: string }
  peers?: { peer: string; ip: string; route: { to: string; dev?: string; src?: string; via?: string; error?: string }; reachable: boolean | null; detail?: string }[]
  gpus?: { index: number; name: string; uuid?: string | null }[]
  container?: {
    name: string
    running: boolean
    image_ref?: string
    image_id?: string
    env: Record<string, string>
    inside?: { python?: string; ray?: string; vllm?: string; vllm_ip?: string; vllm_ip_source?: string; ray_node_ip?: string }
  } | null
  ray_nodes?: unknown
  ray_error?: string
  /** Text of `ray status` in the head's container. */
  ray_status?: string
  /** docker itself failed (not installed, no permission, daemon down): the container cannot be checked. */
  docker_error?: string
}

const VLLM_IP_SOURCES = new Set(['VLLM_HOST_IP', 'default-route', 'unknown'])

function containerFacts(c: NonNullable<ProbeOutput['container']>): ContainerFacts {
  const inside = c.inside ?? {}
  const source = inside.vllm_ip_source && VLLM_IP_SOURCES.has(inside.vllm_ip_source) ? (inside.vllm_ip_source as ContainerFacts['vllmIpSource']) : undefined
  return {
    name: c.name,
    running: c.running,
    ...(c.image_ref && { imageRef: c.image_ref }),
    ...(c.image_id && { imageId: c.image_id }),
    env: c.env,
    versions: {
      ...(inside.python && { python: inside.python }),
      ...(inside.ray && { ray: inside.ray }),
      ...(inside.vllm && { vllm: inside.vllm }),
    },
    ...(inside.vllm_ip && { vllmIp: inside.vllm_ip }),
    ...(source && { vllmIpSource: source }),
    ...(inside.ray_node_ip && { rayNodeIp: inside.ray_node_ip }),
  }
}

/** Turn the probe's JSON into NodeFacts (pure; exported for tests). */
export function nodeFactsFromProbe(node: ManifestNode, stdout: string): { facts: NodeFacts; ray?: RayView; rayStatus?: string; notes: string[] } {
  let p: ProbeOutput
  try {
    p = JSON.parse(stdout.trim().split('\n').pop() ?? '') as ProbeOutput
  } catch {
    return { facts: failed(node, `the facts probe printed no JSON: ${stdout.slice(-300)}`), notes: [] }
  }
  if (p.docker_error) {
    return { facts: failed(node, `${p.docker_error} (the container's env, image and vLLM IP cannot be checked; does ${node.ssh.user ?? 'the SSH user'} have access to docker?)`), notes: p.errors }
  }
  const facts: NodeFacts = {
    node: node.name,
    sshHost: node.ssh.host,
    ok: true,
    ...(p.hostname && { hostname: p.hostname }),
    interfaces: (p.interfaces ?? []).map((i) => ({ name: i.name, addresses: i.addresses, up: i.up })),
    ...(p.default_route && { defaultRoute: p.default_route }),
    peers: (p.peers ?? []).map((x) => ({
      peer: x.peer,
      ip: x.ip,
      route: x.route,
      ...(x.reachable !== null && { reachable: x.reachable }),
      ...(x.detail && { detail: x.detail }),
    })),
    gpus: (p.gpus ?? []).map((g) => ({ index: g.index, name: g.name, ...(g.uuid && { uuid: g.uuid }) })),
    ...(p.container && { container: containerFacts(p.container) }),
  }
  let ray: RayView | undefined
  const rayStatus = node.role === 'head' ? p.ray_status : undefined
  if (node.role === 'head') {
    if (p.ray_nodes !== undefined) ray = { ...parseRayNodes(JSON.stringify(p.ray_nodes)), source: `ray.nodes() in ${node.name}'s container` }
    else if (p.ray_error !== undefined) ray = { source: `ray.nodes() in ${node.name}'s container`, nodes: [], error: p.ray_error }
    else if (!p.container?.running) ray = { source: `ray.nodes() in ${node.name}'s container`, nodes: [], error: `container ${p.container?.name ?? '(none)'} is not running on the head` }
  }
  return { facts, ...(ray && { ray }), ...(rayStatus && { rayStatus }), notes: p.errors }
}

const failed = (node: ManifestNode, error: string): NodeFacts => ({ node: node.name, sshHost: node.ssh.host, ok: false, error, interfaces: [], peers: [], gpus: [] })

export interface GatherOptions {
  /**
   * The transport to a node (SSH in real use, shared with the executor when the preflight is a
   * deploy's gate). Gathering never closes it: whoever opened it does. A throw (cannot connect)
   * becomes that node's failed facts.
   */
  readonly transportFor: (node: ManifestNode) => Promise<Transport>
  readonly timeoutMs?: number
  readonly onProgress?: (message: string) => void
}

export interface GatherResult {
  readonly facts: FactsBundle
  /** Non-fatal problems the probe met (a missing nvidia-smi, say), per node. */
  readonly notes: readonly { readonly node: string; readonly note: string }[]
}

export async function gatherFacts(m: Manifest, opts: GatherOptions): Promise<GatherResult> {
  const notes: { node: string; note: string }[] = []
  let ray: RayView | undefined
  let rayStatus: string | undefined
  const nodes = await Promise.all(
    m.nodes.map(async (node): Promise<NodeFacts> => {
      try {
        const t = await opts.transportFor(node)
        const probe = probeCommand(m, node)
        const r = await t.run(probe.cmd, { stdin: probe.stdin, timeoutMs: opts.timeoutMs ?? 120_000 })
        if (r.code !== 0) return failed(node, `facts probe on ${t.label}: ${outcome(r)}: ${(r.stderr || r.stdout).trim().slice(-500)}`)
        const parsed = nodeFactsFromProbe(node, r.stdout)
        if (parsed.ray) ray = parsed.ray
        if (parsed.rayStatus) rayStatus = parsed.rayStatus
        notes.push(...parsed.notes.map((note) => ({ node: node.name, note })))
        opts.onProgress?.(`${node.name}: facts gathered in ${(r.durationMs / 1000).toFixed(1)} s`)
        return parsed.facts
      } catch (err) {
        return failed(node, (err as Error).message)
      }
    }),
  )
  const facts: FactsBundle = { schemaVersion: 1, gatheredAt: new Date().toISOString(), cluster: m.cluster, nodes, ...(ray && { ray }) }
  // `ray status` adds totals and pending demands to Ray's view: the same merge `diagnose` does.
  return { facts: ray && !ray.error && rayStatus ? assembleOfflineFacts({ facts, rayStatusText: rayStatus }) : facts, notes }
}
