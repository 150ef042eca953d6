/**
 * The summary's node rows, derived from a manifest, the preflight's facts bundle and its findings.
 * Pure. The Ray identity is the address of the Ray node matched to the machine (by the same rules
 * the checks use); the vLLM pin is the IP the preflight says vLLM will use there (`get_ip()` by
 * vLLM's own rule, computed in the container).
 */

import { expectationFromManifest } from '../manifest/expectation.js'
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import { nodeRank, nodesByRank } from '../plan/executor-commands.js'
import { buildContext } from '../preflight/checks/check-context.js'
import type { FactsBundle } from '../preflight/facts.js'
import type { Finding } from '../preflight/finding.js'
import type { SummaryNode } from './summary.js'

export interface NodeRowExtras {
  /** Release per node name (a deploy knows it; the preflight does not). */
  readonly releases?: Readonly<Record<string, string>>
  /** Image ID per node name, replacing the one read from the facts (what runs after the rollout). */
  readonly images?: Readonly<Record<string, string>>
  /** State per node name, replacing the one read from the facts (e.g. `rolled back`). */
  readonly states?: Readonly<Record<string, string>>
}

/** `sha256:0123456789ab` from a full image ID. */
export const shortImageId = (id: string): string => {
  const m = /^(sha256:)?([0-9a-f]{12})[0-9a-f]*$/.exec(id)
  return m ? `sha256:${m[2]}` : id
}

/** The native-mode part of a node's row (vllm.executorBackend mp): its rank and the store it joins; `joined` when known. */
export function nativeOf(m: Manifest, node: ManifestNode, joined?: boolean): Pick<SummaryNode, 'native'> {
  if (m.vllm.executorBackend !== 'mp') return {}
  const store = `${nodesByRank(m)[0]!.fabricIp}:${m.vllm.masterPort}`
  return { native: { rank: nodeRank(m, node), store, ...(joined !== undefined && { joined }) } }
}

export function nodeRowsFrom(manifest: Manifest, facts: FactsBundle | undefined, findings: readonly Finding[], extras: NodeRowExtras = {}): SummaryNode[] {
  const ctx = facts ? buildContext(facts, expectationFromManifest(manifest)) : undefined
  const aliveAddresses = new Set((ctx?.aliveRayNodes ?? []).map((r) => r.address).filter((a) => a !== ''))
  return manifest.nodes.map((node) => {
    const port = node.ssh.port ?? manifest.ssh.port
    const cn = ctx?.nodes.find((n) => n.name === node.name)
    const rawFacts = facts?.nodes.find((f) => f.node === node.name)
    const ray = cn ? ctx?.rayNodeOf(cn) : undefined
    const rayIdentity = ray?.alive && ray.address !== '' ? ray.address : undefined
    const vllm = cn ? ctx?.vllmIpOf(cn) : undefined
    const vllmPins = node.role === 'head' ? ctx?.executor.pins : false
    const vllmMatchesRay =
      vllm === undefined
        ? undefined
        : rayIdentity !== undefined
          ? vllm.ip === rayIdentity
          : ctx?.rayAddressesKnown && !aliveAddresses.has(vllm.ip)
            ? false
            : undefined
    const container = cn?.facts?.container
    const given = extras.images?.[node.name]
    const image = given !== undefined ? shortImageId(given) : container?.imageId ? shortImageId(container.imageId) : container?.imageRef
    const codes = findings.filter((f) => f.node === node.name && f.severity !== 'info').map((f) => f.code)
    const base = extras.states?.[node.name] ?? factsState(rawFacts, container, ctx?.ray !== undefined, rayIdentity)
    const state = [base, ...new Set(codes)].filter((s) => s !== '').join(' · ')
    const release = extras.releases?.[node.name]
    return {
      name: node.name,
      role: node.role,
      sshAddress: port !== 22 ? `${node.ssh.host}:${port}` : node.ssh.host,
      fabricIp: node.fabricIp,
      ...(rayIdentity !== undefined ? { rayIdentity, rayMatchesFabric: rayIdentity === node.fabricIp } : ctx?.rayAddressesKnown && { rayMatchesFabric: false }),
      ...(vllm !== undefined && { vllmIp: vllm.ip }),
      ...(vllmPins !== undefined && { vllmPins }),
      ...(vllmMatchesRay !== undefined && { vllmMatchesRay }),
      ...(image !== undefined && { imageId: image }),
      ...(release !== undefined && { release }),
      ...nativeOf(manifest, node),
      state,
    }
  })
}

function factsState(
  facts: FactsBundle['nodes'][number] | undefined,
  container: NonNullable<FactsBundle['nodes'][number]['container']> | undefined,
  rayAsked: boolean,
  rayIdentity: string | undefined,
): string {
  if (!facts) return 'not checked'
  if (!facts.ok) return `unreachable: ${facts.error ?? 'no facts'}`
  const parts = [container === undefined ? 'no container' : container.running ? 'running' : 'container stopped']
  if (rayAsked) parts.push(rayIdentity === undefined ? 'not in Ray' : 'in Ray')
  return parts.join(', ')
}
