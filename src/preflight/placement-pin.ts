/**
 * The `node:<ip>` resource a placement group asks for, set beside Ray's node addresses. Used by the
 * log signatures (vLLM's wait/timeout lines, Ray's autoscaler error) and by the `ray status`
 * pending-demand check, so both say the same thing.
 */

import { type RayView, RAY_HEAD_RESOURCE } from './facts.js'

/** Every `'node:<x>'` key in a text (Python or JSON quoting), without Ray's head marker, in order, once each. */
export function nodePinsIn(text: string): string[] {
  const out: string[] = []
  for (const m of text.matchAll(/['"]node:([^'"]+)['"]\s*:/g)) {
    const pin = m[1]
    if (pin !== undefined && `node:${pin}` !== RAY_HEAD_RESOURCE && !out.includes(pin)) out.push(pin)
  }
  return out
}

/** The same, from resource maps (`ray status` demands). */
export const nodePinsInMaps = (maps: readonly Readonly<Record<string, number>>[]): string[] =>
  [...new Set(maps.flatMap((m) => Object.keys(m)).filter((k) => k.startsWith('node:') && k !== RAY_HEAD_RESOURCE))].map((k) => k.slice('node:'.length))

export interface PinComparison {
  /** true/false when Ray's alive node addresses are known; undefined otherwise. */
  readonly found: boolean | undefined
  readonly evidence: Readonly<Record<string, string>>
  /** Ray's head address, when known (the usual other side of the mismatch). */
  readonly rayHead?: string
}

export function comparePinWithRay(pin: string, ray: RayView | undefined): PinComparison {
  const alive = ray && !ray.error ? ray.nodes.filter((n) => n.alive && n.address !== '') : []
  if (alive.length === 0) {
    return { found: undefined, evidence: { 'Placement group asks for': `node:${pin}` } }
  }
  const match = alive.find((n) => n.address === pin)
  const head = alive.find((n) => n.isHead)?.address
  return {
    found: match !== undefined,
    evidence: {
      'Placement group asks for': `node:${pin}`,
      'Ray node addresses (NodeManagerAddress)': alive.map((n) => `${n.address}${n.isHead ? ' (head)' : ''}`).join(', '),
      'Ray node with that address': match ? `yes: ${match.address}${match.isHead ? ' (head)' : ''}` : 'none',
    },
    ...(head ? { rayHead: head } : {}),
  }
}

/** What to change for a pin no Ray node has. */
export const pinMismatchFix = (pin: string, rayHead: string | undefined): string =>
  `On the node running vllm serve (the Ray head) start Ray with --node-ip-address=${pin}, or set VLLM_HOST_IP to the IP Ray registered${rayHead ? ` (${rayHead})` : ''}; both must name the same address.`
