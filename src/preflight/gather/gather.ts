/**
 * Live facts: one SSH round trip per node, all nodes at once, Ray's view from the head's run.
 * The only impure part of the preflight; the checks read what this returns.
 */
import type { Manifest, ManifestNode } from '../../manifest/schema.js'
import { boundedTimeoutSeconds } from '../../manifest/ssh-settings.js'
import { PROBE_TIMEOUT_SECONDS, knownHostOf, probeCommand } from '../../probe/probe-command.js'
import { parseProbeOutput } from '../../probe/probe-output.js'
import type { Result } from '../../result/result.js'
import { type Transport, outcome } from '../../transport/transport.js'
import type { FactsBundle, NodeFacts, RayView } from '../facts.js'
import { parseRayNodes } from '../parse-ray.js'
import { combineRayView, withRayView } from '../ray-view.js'

/**
 * The probe's document as a node's facts (pure; exported for tests). The document already has the
 * facts' fields (one schema, src/probe/node-facts.ts): this adds the node's name and takes the
 * probe's notes and the head's Ray view aside.
 */
export function nodeFactsFromProbe(node: ManifestNode, stdout: string): { facts: NodeFacts; ray?: RayView; rayStatus?: string; notes: readonly string[] } {
  const parsed = parseProbeOutput(stdout)
  if (!parsed.ok) return { facts: failedFacts(node, parsed.problem.message), notes: [] }
  const { errors, container, rayNodes, rayError, rayStatus: status, ...probed } = parsed.value
  const facts: NodeFacts = { node: node.name, sshHost: node.ssh.host, ok: true, ...probed, ...(container && { container }) }
  const source = `ray.nodes() in ${node.name}'s container`
  let ray: RayView | undefined
  if (node.role === 'head') {
    if (rayNodes !== undefined) ray = { ...parseRayNodes(JSON.stringify(rayNodes)), source }
    else if (rayError !== undefined) ray = { source, nodes: [], error: rayError }
    else if (probed.host?.docker?.ok === false) ray = { source, nodes: [], error: `docker does not work on the head: ${probed.host.docker.error ?? ''}` }
    else if (!container?.running) ray = { source, nodes: [], error: `container ${container?.name ?? '(none)'} is not running on the head` }
  }
  const rayStatus = node.role === 'head' ? status : undefined
  return { facts, ...(ray && { ray }), ...(rayStatus && { rayStatus }), notes: errors }
}

/** The facts of a node that could not be probed: why, and nothing else. */
export const failedFacts = (node: ManifestNode, error: string): NodeFacts => ({
  node: node.name,
  sshHost: node.ssh.host,
  // record: a node's facts say whether they were gathered (the facts bundle's schema, read back by diagnose --facts); not a failure value.
  ok: false,
  error,
  interfaces: [],
  peers: [],
  gpus: [],
})

export interface GatherOptions {
  /**
   * The transport to a node (SSH in real use, shared with the executor when the preflight is a
   * deploy's gate). Gathering never closes it: whoever opened it does. A Problem (cannot connect)
   * becomes that node's failed facts.
   */
  readonly transportFor: (node: ManifestNode) => Promise<Result<Transport>>
  readonly onProgress?: (message: string) => void
  /**
   * A deploy's host-check facts, read minutes earlier on the same nodes: what a release's start
   * leaves as it was (docker's engine, the NVIDIA container tooling, the OOM guards, the CUDA
   * version) is taken from them instead of being read again (src/probe/probe-command.ts KnownHost).
   */
  readonly hostFacts?: FactsBundle
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
      const connected = await opts.transportFor(node)
      if (!connected.ok) return failedFacts(node, connected.problem.message)
      const t = connected.value
      {
        const knownHost = knownHostOf(opts.hostFacts?.nodes.find((f) => f.node === node.name))
        const probe = probeCommand(m, node, knownHost ? { knownHost } : {})
        const r = await t.run(probe.cmd, { stdin: probe.stdin, timeoutMs: boundedTimeoutSeconds(m.ssh, PROBE_TIMEOUT_SECONDS) * 1000 })
        if (r.code !== 0) return failedFacts(node, `facts probe on ${t.label}: ${outcome(r)}: ${(r.stderr || r.stdout).trim().slice(-500)}`)
        const parsed = nodeFactsFromProbe(node, r.stdout)
        if (parsed.ray) ray = parsed.ray
        if (parsed.rayStatus) rayStatus = parsed.rayStatus
        for (const x of parsed.notes.map((note) => ({ node: node.name, note }))) notes.push(x)
        opts.onProgress?.(`${node.name}: facts gathered in ${(r.durationMs / 1000).toFixed(1)} s`)
        return parsed.facts
      }
    }),
  )
  const facts: FactsBundle = { schemaVersion: 1, gatheredAt: new Date().toISOString(), cluster: m.cluster, nodes, ...(ray && { ray }) }
  // `ray status` adds totals and pending demands to Ray's view: the same merge `diagnose` does.
  return { facts: ray && !ray.error && rayStatus ? withRayView(facts, combineRayView(ray, undefined, rayStatus)) : facts, notes }
}
