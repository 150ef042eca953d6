/**
 * Live facts: one SSH round trip per node, all nodes at once, Ray's view from the head's run.
 * The only impure part of the preflight; the checks read what this returns.
 */
import type { Manifest, ManifestNode } from '../../manifest/schema.js'
import { boundedTimeoutSeconds, sshEndpointOf } from '../../manifest/ssh-settings.js'
import { PROBE_TIMEOUT_SECONDS, probeCommand } from '../../probe/probe-command.js'
import { type ProbeOutput, parseProbeOutput } from '../../probe/probe-output.js'
import { type Transport, outcome } from '../../transport/transport.js'
import { type ContainerFacts, type FactsBundle, type NodeFacts, type RayView, VLLM_IP_SOURCES } from '../facts.js'
import { parseRayNodes } from '../parse-ray.js'
import { combineRayView, withRayView } from '../ray-view.js'

const isVllmIpSource = (s: string | undefined): s is (typeof VLLM_IP_SOURCES)[number] => (VLLM_IP_SOURCES as readonly (string | undefined)[]).includes(s)

function containerFacts(c: NonNullable<ProbeOutput['container']>): ContainerFacts {
  const inside = c.inside ?? {}
  const source = isVllmIpSource(inside.vllm_ip_source) ? inside.vllm_ip_source : undefined
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
export function nodeFactsFromProbe(
  node: ManifestNode,
  stdout: string,
  sshUser = 'the SSH user',
): { facts: NodeFacts; ray?: RayView; rayStatus?: string; notes: readonly string[] } {
  const parsed = parseProbeOutput(stdout)
  if (!parsed.ok) return { facts: failed(node, parsed.error), notes: [] }
  const p = parsed.output
  if (p.docker_error) {
    return {
      facts: failed(node, `${p.docker_error} (the container's env, image and vLLM IP cannot be checked; does ${sshUser} have access to docker?)`),
      notes: p.errors,
    }
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
    else if (!p.container?.running)
      ray = { source: `ray.nodes() in ${node.name}'s container`, nodes: [], error: `container ${p.container?.name ?? '(none)'} is not running on the head` }
  }
  return { facts, ...(ray && { ray }), ...(rayStatus && { rayStatus }), notes: p.errors }
}

const failed = (node: ManifestNode, error: string): NodeFacts => ({
  node: node.name,
  sshHost: node.ssh.host,
  ok: false,
  error,
  interfaces: [],
  peers: [],
  gpus: [],
})

export interface GatherOptions {
  /**
   * The transport to a node (SSH in real use, shared with the executor when the preflight is a
   * deploy's gate). Gathering never closes it: whoever opened it does. A throw (cannot connect)
   * becomes that node's failed facts.
   */
  readonly transportFor: (node: ManifestNode) => Promise<Transport>
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
        const r = await t.run(probe.cmd, { stdin: probe.stdin, timeoutMs: boundedTimeoutSeconds(m.ssh, PROBE_TIMEOUT_SECONDS) * 1000 })
        if (r.code !== 0) return failed(node, `facts probe on ${t.label}: ${outcome(r)}: ${(r.stderr || r.stdout).trim().slice(-500)}`)
        const parsed = nodeFactsFromProbe(node, r.stdout, sshEndpointOf(m.ssh, node).user)
        if (parsed.ray) ray = parsed.ray
        if (parsed.rayStatus) rayStatus = parsed.rayStatus
        for (const x of parsed.notes.map((note) => ({ node: node.name, note }))) notes.push(x)
        opts.onProgress?.(`${node.name}: facts gathered in ${(r.durationMs / 1000).toFixed(1)} s`)
        return parsed.facts
      } catch (err) {
        return failed(node, (err as Error).message)
      }
    }),
  )
  const facts: FactsBundle = { schemaVersion: 1, gatheredAt: new Date().toISOString(), cluster: m.cluster, nodes, ...(ray && { ray }) }
  // `ray status` adds totals and pending demands to Ray's view: the same merge `diagnose` does.
  return { facts: ray && !ray.error && rayStatus ? withRayView(facts, combineRayView(ray, undefined, rayStatus)) : facts, notes }
}
