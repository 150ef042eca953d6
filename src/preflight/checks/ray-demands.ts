/**
 * Pending demands in `ray status`: a placement group already waiting, usually vLLM's. A pin to a
 * `node:<ip>` no Ray node has never resolves (the seed incident, seen from Ray's side).
 */

import { clusterGpus, gpuShortfallPhrase, gpusInMaps } from '../demand-count.js'
import type { Finding } from '../finding.js'
import { comparePinWithRay, nodePinsInMaps, pinMismatchFix } from '../placement-pin.js'
import type { CheckContext } from './check-context.js'

const showDemand = (d: Readonly<Record<string, number>>): string =>
  `{${Object.entries(d)
    .map(([k, v]) => `'${k}': ${v}`)
    .join(', ')}}`

/** PLACEMENT_GROUP_PENDING from `ray status` demands. */
export function pendingDemands(ctx: CheckContext): Finding[] {
  const demands = ctx.ray?.pendingDemands ?? []
  if (demands.length === 0) return []
  const pins = nodePinsInMaps(demands)
  const shown = demands.map(showDemand).join(', ')
  const findings: Finding[] = []
  for (const pin of pins) {
    const cmp = comparePinWithRay(pin, ctx.ray)
    if (cmp.found === true) continue
    findings.push({
      code: 'PLACEMENT_GROUP_PENDING',
      severity: cmp.found === false ? 'error' : 'warning',
      node: ctx.head?.name ?? null,
      message:
        cmp.found === false
          ? `Ray holds a pending placement group pinned to node:${pin}, and no alive Ray node has that address, so it will never be placed.`
          : `Ray holds a pending placement group pinned to node:${pin}; ray status does not list node addresses, so compare it with ray.nodes().`,
      evidence: { ...cmp.evidence, 'Pending demands (ray status)': shown },
      fix:
        cmp.found === false
          ? pinMismatchFix(pin, cmp.rayHead)
          : 'Run ray.nodes() (or ray list nodes) on the head and check that one NodeManagerAddress equals the pinned IP; if none does, align --node-ip-address and VLLM_HOST_IP.',
    })
  }
  if (findings.length === 0) {
    const phrase = gpuShortfallPhrase(gpusInMaps(demands) || undefined, clusterGpus(ctx.ray))
    findings.push({
      code: 'PLACEMENT_GROUP_PENDING',
      severity: 'warning',
      node: null,
      message: `Ray has pending resource demands${phrase ? ` (${phrase})` : ''}, so something (often an earlier vLLM) is waiting for resources the cluster does not have free.`,
      evidence: { 'Pending demands (ray status)': shown, ...(ctx.ray?.totals ? { 'Ray total GPU': String(ctx.ray.totals['GPU'] ?? '?') } : {}) },
      fix: 'Stop whatever holds or waits for the resources (an earlier vllm serve, or its leaked placement group: ray stop/start on the head), and check every node joined with its GPUs.',
    })
  }
  return findings
}
