/**
 * `ray status` text → Ray's view: node ids (or types, or addresses with -v), resource totals and
 * pending demands, in the old (`Healthy:`, `Usage:`, `Demands:`) and new (`Active:`/`Idle:`,
 * `Total Usage:`, `Total Demands:`) layouts. Re-exported by `parse-ray.ts`.
 */

import { type RayNode, type RayView, RAY_HEAD_RESOURCE } from './facts.js'
import { isIpv4 } from '../net/ipv4.js'
import { isPyParseError, numericEntries, parsePythonLiteral } from './python-literal.js'

const UNITS: Record<string, number> = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4, PiB: 1024 ** 5 }
/** Bytes in a Ray-printed unit (`GiB`, `MiB`...; `GB` read as `GiB`); 1 for none. */
export const unitBytes = (unit: string | undefined): number => (unit === undefined ? 1 : (UNITS[unit] ?? UNITS[unit.replace('B', 'iB')] ?? 1))

/** ` 0.0/2.0 GPU`, ` 0B/3.88TiB memory`, ` 2.00/8.000 GiB memory` → [name, total]. */
function usageTotal(line: string): [string, number] | undefined {
  const m = /^\s*[\d.]+\s*(?:[KMGTP]?i?B)?\/([\d.]+)\s*([KMGTP]?i?B)?\s+(\S+)/.exec(line)
  if (!m || m[1] === undefined || m[3] === undefined) return undefined
  return [m[3], Number(m[1]) * unitBytes(m[2])]
}

/** `{'GPU': 1.0, 'node:1.2.3.4': 0.001} * 1, {'GPU': 1.0} * 1 (PACK): 1+ pending placement groups` → bundles. */
function demandBundles(line: string): Record<string, number>[] {
  const out: Record<string, number>[] = []
  let pos = line.indexOf('{')
  while (pos >= 0) {
    const parsed = parsePythonLiteral(line, pos)
    if (isPyParseError(parsed)) break
    const rest = line.slice(parsed.end)
    // `{...} * 2`: the same bundle twice (two GPUs wanted, not one).
    const times = Number(/^\s*\*\s*(\d+)/.exec(rest)?.[1] ?? 1)
    for (let i = 0; i < Math.min(times, 1024); i++) out.push(numericEntries(parsed.value))
    const more = /^\s*(?:\*\s*\d+\s*)?,\s*\{/.exec(rest)
    pos = more ? parsed.end + more[0].length - 1 : -1
  }
  return out
}

type Section = 'none' | 'alive' | 'other-nodes' | 'usage' | 'demands' | 'skip' | 'node-usage'

interface StatusNode {
  id: string
  type?: string
  resources: Record<string, number>
  fromNodeSection: boolean
}

/** Ray's cluster summary from `ray status` (or `ray status -v`) text. */
export function parseRayStatus(text: string): RayView {
  let section: Section = 'none'
  let recognised = false
  let usageSeen = false
  let demandsSeen = false
  const listed: StatusNode[] = []
  const detailed: StatusNode[] = []
  const listedWithAddress: RayNode[] = []
  const totals: Record<string, number> = {}
  const demands: Record<string, number>[] = []

  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/^\s*>\s?/, '')
    const head = line.trim()
    if (head === '' || /^-{5,}$/.test(head) || /^={5,}/.test(head)) {
      if (/^=+ (Autoscaler|Cluster) status/.test(head)) recognised = true
      continue
    }
    if (/^Node status$/.test(head) || /^Resources$/.test(head)) {
      recognised = true
      section = 'none'
      continue
    }
    if (/^(Active|Healthy|Idle):$/.test(head)) {
      recognised = true
      section = 'alive'
      continue
    }
    if (/^(Pending|Recent failures):$/.test(head)) {
      section = 'other-nodes'
      continue
    }
    const nodeHeader = /^Node: (\S+)(?: \((.*)\))?$/.exec(head)
    if (nodeHeader?.[1] !== undefined) {
      detailed.push({ id: nodeHeader[1], ...(nodeHeader[2] ? { type: nodeHeader[2] } : {}), resources: {}, fromNodeSection: true })
      section = 'skip'
      continue
    }
    if (/^(Total )?Usage:$/.test(head)) {
      recognised = true
      section = detailed.length > 0 ? 'node-usage' : 'usage'
      usageSeen ||= section === 'usage'
      continue
    }
    // Ray 2.5x prints `Pending Demands:` (after `From request_resources:`); older releases `Demands:` / `Total Demands:`.
    if (/^(Total |Pending )?Demands:$/.test(head)) {
      recognised = true
      demandsSeen = true
      section = 'demands'
      continue
    }
    if (/^(Total )?Constraints:$/.test(head) || /^[A-Z][\w ]*:$/.test(head)) {
      section = 'skip'
      continue
    }
    if (head.startsWith('(')) continue // (no pending nodes), (no resource demands) ...

    // Ray 1.x "Cluster status": ` 1 node(s) with resources: {'node:192.168.86.195': 1.0, ...}`
    const withResources = /^(\d+) node\(s\) with resources: (\{.*)$/.exec(head)
    if (withResources) {
      recognised = true
      const parsed = parsePythonLiteral(withResources[2] ?? '')
      const resources = isPyParseError(parsed) ? {} : numericEntries(parsed.value)
      const address =
        Object.keys(resources)
          .find((k) => k.startsWith('node:') && k !== RAY_HEAD_RESOURCE)
          ?.slice(5) ?? ''
      for (let i = 0; i < Number(withResources[1]); i++) {
        listedWithAddress.push({ nodeId: '', alive: true, address, isHead: RAY_HEAD_RESOURCE in resources, resources })
      }
      continue
    }

    switch (section) {
      case 'alive': {
        const m = /^(\d+) (\S+)$/.exec(head)
        if (!m?.[2]) break
        const count = Number(m[1])
        for (let i = 0; i < count; i++) {
          listed.push(
            m[2].startsWith('node_')
              ? { id: m[2].slice('node_'.length), resources: {}, fromNodeSection: false }
              : { id: '', type: m[2], resources: {}, fromNodeSection: false },
          )
        }
        break
      }
      case 'usage':
      case 'node-usage': {
        const total = usageTotal(line)
        if (!total) break
        if (section === 'usage') totals[total[0]] = total[1]
        else {
          const last = detailed[detailed.length - 1]
          if (last) last.resources[total[0]] = total[1]
        }
        break
      }
      case 'demands':
        if (head.startsWith('{')) demands.push(...demandBundles(head))
        break
      default:
        break
    }
  }

  if (!recognised) {
    return {
      source: 'ray status text',
      nodes: [],
      error: 'could not read `ray status` output: no "Node status" or "Resources" section found',
    }
  }
  if (usageSeen && !('GPU' in totals)) totals['GPU'] = 0 // ray status omits resources whose total is 0

  let nodes: RayNode[]
  if (listedWithAddress.length > 0) {
    nodes = listedWithAddress
  } else if (detailed.length > 0) {
    nodes = detailed.map((d) => ({
      nodeId: isIpv4(d.id) ? '' : d.id,
      alive: true,
      address: isIpv4(d.id) ? d.id : '',
      isHead: d.type?.includes('head') ?? false,
      resources: d.resources,
    }))
  } else {
    nodes = listed.map((l) => ({
      nodeId: l.id,
      alive: true,
      address: '',
      isHead: l.type?.includes('head') ?? false,
      resources: {},
      resourcesTruncated: true,
    }))
  }
  const addressesKnown = nodes.length > 0 && nodes.every((n) => n.address !== '')
  return {
    source: `ray status${addressesKnown || nodes.length === 0 ? '' : ' (no node addresses: ray status lists node ids or types only)'}`,
    nodes,
    ...(usageSeen ? { totals } : {}),
    ...(demandsSeen ? { pendingDemands: demands } : {}),
  }
}
