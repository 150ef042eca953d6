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

/** What has been read so far, line by line. */
interface StatusRead {
  section: Section
  recognised: boolean
  usageSeen: boolean
  demandsSeen: boolean
  readonly listed: StatusNode[]
  readonly detailed: StatusNode[]
  readonly listedWithAddress: RayNode[]
  readonly totals: Record<string, number>
  readonly demands: Record<string, number>[]
}

/** Ray's cluster summary from `ray status` (or `ray status -v`) text. */
export function parseRayStatus(text: string): RayView {
  const st: StatusRead = {
    section: 'none',
    recognised: false,
    usageSeen: false,
    demandsSeen: false,
    listed: [],
    detailed: [],
    listedWithAddress: [],
    totals: {},
    demands: [],
  }
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/^\s*>\s?/, '')
    const head = line.trim()
    if (readSeparator(head, st) || readHeading(head, st) || head.startsWith('(') || readRay1Nodes(head, st)) continue // (no pending nodes), (no resource demands) ...
    readSectionLine(line, head, st)
  }
  return viewOf(st)
}

/** A blank line or a rule (`-----`, `===== Autoscaler status ...`); the latter marks the text as Ray's. */
function readSeparator(head: string, st: StatusRead): boolean {
  if (!(head === '' || /^-{5,}$/.test(head) || /^={5,}/.test(head))) return false
  if (/^=+ (Autoscaler|Cluster) status/.test(head)) st.recognised = true
  return true
}

/** A section heading (`Active:`, `Node: <id> (<type>)`, `Total Usage:`, `Demands:`...): the section it opens. */
function readHeading(head: string, st: StatusRead): boolean {
  if (/^Node status$/.test(head) || /^Resources$/.test(head)) {
    st.recognised = true
    st.section = 'none'
    return true
  }
  if (/^(Active|Healthy|Idle):$/.test(head)) {
    st.recognised = true
    st.section = 'alive'
    return true
  }
  if (/^(Pending|Recent failures):$/.test(head)) {
    st.section = 'other-nodes'
    return true
  }
  const nodeHeader = /^Node: (\S+)(?: \((.*)\))?$/.exec(head)
  if (nodeHeader?.[1] !== undefined) {
    st.detailed.push({ id: nodeHeader[1], ...(nodeHeader[2] ? { type: nodeHeader[2] } : {}), resources: {}, fromNodeSection: true })
    st.section = 'skip'
    return true
  }
  if (/^(Total )?Usage:$/.test(head)) {
    st.recognised = true
    st.section = st.detailed.length > 0 ? 'node-usage' : 'usage'
    st.usageSeen ||= st.section === 'usage'
    return true
  }
  // Ray 2.5x prints `Pending Demands:` (after `From request_resources:`); older releases `Demands:` / `Total Demands:`.
  if (/^(Total |Pending )?Demands:$/.test(head)) {
    st.recognised = true
    st.demandsSeen = true
    st.section = 'demands'
    return true
  }
  if (/^(Total )?Constraints:$/.test(head) || /^[A-Z][\w ]*:$/.test(head)) {
    st.section = 'skip'
    return true
  }
  return false
}

/** Ray 1.x "Cluster status": ` 1 node(s) with resources: {'node:192.168.86.195': 1.0, ...}`. */
function readRay1Nodes(head: string, st: StatusRead): boolean {
  const withResources = /^(\d+) node\(s\) with resources: (\{.*)$/.exec(head)
  if (!withResources) return false
  st.recognised = true
  const parsed = parsePythonLiteral(withResources[2] ?? '')
  const resources = isPyParseError(parsed) ? {} : numericEntries(parsed.value)
  const address =
    Object.keys(resources)
      .find((k) => k.startsWith('node:') && k !== RAY_HEAD_RESOURCE)
      ?.slice(5) ?? ''
  for (let i = 0; i < Number(withResources[1]); i++) {
    st.listedWithAddress.push({ nodeId: '', alive: true, address, isHead: RAY_HEAD_RESOURCE in resources, resources })
  }
  return true
}

/** A line inside the current section: a live node, a usage total (cluster or per node), demand bundles. */
function readSectionLine(line: string, head: string, st: StatusRead): void {
  switch (st.section) {
    case 'alive': {
      const m = /^(\d+) (\S+)$/.exec(head)
      if (!m?.[2]) break
      const count = Number(m[1])
      for (let i = 0; i < count; i++) {
        st.listed.push(
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
      if (st.section === 'usage') st.totals[total[0]] = total[1]
      else {
        const last = st.detailed[st.detailed.length - 1]
        if (last) last.resources[total[0]] = total[1]
      }
      break
    }
    case 'demands':
      if (head.startsWith('{')) st.demands.push(...demandBundles(head))
      break
    default:
      break
  }
}

/** Ray's view from what was read: nodes with addresses (Ray 1.x), else per-node sections (-v), else the listed ids/types. */
function viewOf(st: StatusRead): RayView {
  if (!st.recognised) {
    return {
      source: 'ray status text',
      nodes: [],
      error: 'could not read `ray status` output: no "Node status" or "Resources" section found',
    }
  }
  const { totals } = st
  if (st.usageSeen && !('GPU' in totals)) totals['GPU'] = 0 // ray status omits resources whose total is 0
  const nodes = nodesOf(st)
  const addressesKnown = nodes.length > 0 && nodes.every((n) => n.address !== '')
  return {
    source: `ray status${addressesKnown || nodes.length === 0 ? '' : ' (no node addresses: ray status lists node ids or types only)'}`,
    nodes,
    ...(st.usageSeen ? { totals } : {}),
    ...(st.demandsSeen ? { pendingDemands: st.demands } : {}),
  }
}

function nodesOf(st: StatusRead): RayNode[] {
  if (st.listedWithAddress.length > 0) return st.listedWithAddress
  if (st.detailed.length > 0) {
    return st.detailed.map((d) => ({
      nodeId: isIpv4(d.id) ? '' : d.id,
      alive: true,
      address: isIpv4(d.id) ? d.id : '',
      isHead: d.type?.includes('head') ?? false,
      resources: d.resources,
    }))
  }
  return st.listed.map((l) => ({
    nodeId: l.id,
    alive: true,
    address: '',
    isHead: l.type?.includes('head') ?? false,
    resources: {},
    resourcesTruncated: true,
  }))
}
