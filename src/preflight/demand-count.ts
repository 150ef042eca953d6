/**
 * How many GPUs a request asks for, counting Ray's `* N` repeats (`{'GPU': 1.0} * 2` is two
 * bundles of one GPU), and how many the cluster has, so a finding can say "wants 2 GPUs, the
 * cluster has 1".
 */

import type { RayView } from './facts.js'

/** GPUs in a printed request: every `{…}` with its optional `* N`; undefined when none names GPU. */
export function gpusRequested(text: string): number | undefined {
  let total = 0
  let seen = false
  for (const m of text.matchAll(/\{([^{}]*)\}(?:\s*\*\s*(\d+))?/g)) {
    const gpu = /['"]GPU['"]\s*:\s*([\d.]+)/.exec(m[1] ?? '')
    if (!gpu) continue
    seen = true
    total += Number(gpu[1]) * (m[2] !== undefined ? Number(m[2]) : 1)
  }
  return seen ? total : undefined
}

/** GPUs in a list of resource maps (`ray status` demands, already expanded by count). */
export const gpusInMaps = (maps: readonly Readonly<Record<string, number>>[]): number => maps.reduce((s, m) => s + (m['GPU'] ?? 0), 0)

/** The cluster's GPUs as Ray reports them: `ray status` totals, else the alive nodes' resources. */
export function clusterGpus(ray: RayView | undefined): number | undefined {
  if (!ray || ray.error) return undefined
  if (ray.totals?.['GPU'] !== undefined) return ray.totals['GPU']
  const alive = ray.nodes.filter((n) => n.alive)
  if (alive.length === 0) return undefined
  return alive.reduce((s, n) => s + (n.resources['GPU'] ?? 0), 0)
}

const n = (x: number): string => (Number.isInteger(x) ? String(x) : x.toFixed(2).replace(/0+$/, ''))

/** "wants 2 GPUs, the cluster has 1" (or only the first half when the cluster is unknown). */
export function gpuShortfallPhrase(wanted: number | undefined, have: number | undefined): string | undefined {
  if (wanted === undefined) return undefined
  const w = `wants ${n(wanted)} GPU${wanted === 1 ? '' : 's'}`
  return have === undefined ? w : `${w}, the cluster has ${n(have)}`
}
