/**
 * Ray's view of the cluster from what is at hand: `ray.nodes()` (live or pasted) and `ray status`
 * text. One merge rule, used by the live gathering and by offline `diagnose` alike.
 */
import type { FactsBundle, RayView } from './facts.js'
import { parseRayNodes, parseRayStatus } from './parse-ray.js'

/**
 * A pasted node list wins over the bundle's own view (it is what the person is asking about);
 * `ray status` adds totals and pending demands, or stands alone. A paste that cannot be read is
 * reported (as the view's error) unless `ray status` still gives a view.
 */
export function combineRayView(base: RayView | undefined, nodesText?: string, statusText?: string): RayView | undefined {
  const nodes = nodesText !== undefined ? parseRayNodes(nodesText) : base
  const status = statusText !== undefined ? parseRayStatus(statusText) : undefined
  if (!status) return nodes
  if (status.error) return nodes ?? status
  if (!nodes) return status
  if (nodes.error) return { ...status, source: `${status.source}; nodes text unreadable: ${nodes.error}` }
  return {
    ...nodes,
    source: `${nodes.source} + ${status.source}`,
    ...(status.totals ? { totals: status.totals } : {}),
    ...(status.pendingDemands ? { pendingDemands: status.pendingDemands } : {}),
  }
}

/** The bundle with its Ray view replaced by `ray`, or without one. */
export function withRayView(facts: FactsBundle, ray: RayView | undefined): FactsBundle {
  const { ray: _dropped, ...rest } = facts
  return { ...rest, ...(ray ? { ray } : {}) }
}
