/**
 * Ray's view of a cluster from text people paste or commands print:
 * - `parseRayNodes`: `ray.nodes()` as JSON or as Python repr, the one-line-per-node form
 *   `10.1.230.180 {'node:__internal_head__': 1.0, 'GPU': 1.0, ...}`, and the `ray list nodes`
 *   table (and its JSON form).
 * - `parseRayStatus`: `ray status` text, old (`Healthy:`, `Usage:`, `Demands:`) and new
 *   (`Active:`/`Idle:`, `Total Usage:`, `Total Demands:`) layouts.
 * Neither throws: text they cannot read gives a view with `error` set.
 *
 * Conventions for what a text does not say: a node whose address is unknown (ray status lists
 * `node_<id>` only) has `address: ''`; a node whose resource map is partial or unknown has
 * `resourcesTruncated: true`; the line form does not say whether a node is alive, so it is
 * taken as alive (ray.nodes() callers usually print live nodes) and `source` says so.
 */

import type { RayNode, RayView } from './facts.js'
import { isIpv4 } from './ip.js'
import { isPyDict, isPyParseError, numericEntries, parsePythonLiteral, type PyValue } from './python-literal.js'

const HEAD_RESOURCE = 'node:__internal_head__'

const errorView = (source: string, error: string): RayView => ({ source, nodes: [], error })

// ---------------------------------------------------------------------------------------------
// ray.nodes() / ray list nodes

/** One node from a `ray.nodes()` dict or a state-API `NodeState` dict; undefined if neither. */
function nodeFromDict(d: { [key: string]: PyValue }, truncated: boolean): RayNode | undefined {
  if (typeof d['NodeManagerAddress'] === 'string') {
    const resources = numericEntries(d['Resources'])
    const alive = d['Alive'] ?? d['alive']
    return {
      nodeId: typeof d['NodeID'] === 'string' ? d['NodeID'] : '',
      alive: alive === true,
      address: d['NodeManagerAddress'],
      ...(typeof d['NodeManagerHostname'] === 'string' ? { hostname: d['NodeManagerHostname'] } : {}),
      isHead: HEAD_RESOURCE in resources,
      resources,
      ...(truncated || !isPyDict(d['Resources']) ? { resourcesTruncated: true } : {}),
    }
  }
  if (typeof d['node_ip'] === 'string') {
    const resources = numericEntries(d['resources_total'])
    return {
      nodeId: typeof d['node_id'] === 'string' ? d['node_id'] : '',
      alive: d['state'] === 'ALIVE',
      address: d['node_ip'],
      ...(typeof d['node_name'] === 'string' && d['node_name'] !== d['node_ip'] ? { hostname: d['node_name'] } : {}),
      isHead: d['is_head_node'] === true || HEAD_RESOURCE in resources,
      resources,
      ...(truncated || !isPyDict(d['resources_total']) ? { resourcesTruncated: true } : {}),
    }
  }
  return undefined
}

/** The first list of node dicts anywhere inside a parsed value (dashboard responses nest it). */
function findNodeList(v: PyValue, truncated: boolean): RayNode[] | undefined {
  if (Array.isArray(v)) {
    const nodes = v.flatMap((item) => (isPyDict(item) ? [nodeFromDict(item, truncated)] : [])).filter((n) => n !== undefined)
    if (nodes.length > 0) return nodes
    for (const item of v) {
      const inner = findNodeList(item, truncated)
      if (inner) return inner
    }
    return undefined
  }
  if (isPyDict(v)) {
    for (const item of Object.values(v)) {
      const inner = findNodeList(item, truncated)
      if (inner) return inner
    }
  }
  return undefined
}

function parseNodeLiteral(text: string): RayView | undefined {
  const start = text.search(/[[{]/)
  if (start < 0) return undefined
  const parsed = parsePythonLiteral(text, start)
  if (isPyParseError(parsed)) return undefined
  const nodes = findNodeList(parsed.value, parsed.truncated)
  if (!nodes) return undefined
  const json = /^\s*[[{]\s*[[{]?\s*"/.test(text.slice(start))
  return {
    source: `${json ? 'ray.nodes() JSON' : 'ray.nodes() Python repr'}${parsed.truncated ? ' (truncated)' : ''}`,
    nodes,
  }
}

/** `10.1.230.180 {'node:__internal_head__': 1.0, 'GPU': 1.0, ...}`, optionally with True/False after the address. */
function parseNodeLines(text: string): RayView | undefined {
  const nodes: RayNode[] = []
  let assumedAlive = false
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*([\w.:-]+)\s+(?:(True|False|true|false)\s+)?(\{.*)$/.exec(line)
    if (!m || m[1] === undefined || m[3] === undefined) continue
    const parsed = parsePythonLiteral(m[3])
    if (isPyParseError(parsed) || !isPyDict(parsed.value)) continue
    const resources = numericEntries(parsed.value)
    const address = m[1]
    if (m[2] === undefined) assumedAlive = true
    nodes.push({
      nodeId: '',
      alive: m[2] === undefined ? true : m[2].toLowerCase() === 'true',
      address,
      isHead: HEAD_RESOURCE in resources,
      resources,
      ...(parsed.truncated ? { resourcesTruncated: true } : {}),
    })
  }
  if (nodes.length === 0) return undefined
  const truncated = nodes.some((n) => n.resourcesTruncated)
  return {
    source: `ray nodes as "address {resources}" lines${assumedAlive ? ' (Alive assumed)' : ''}${truncated ? ' (resources truncated)' : ''}`,
    nodes,
  }
}

const ROW = /^\s*\d+\s+([0-9a-f]{16,})\s+(\S+)\s+(True|False)\s+(ALIVE|DEAD)\b/
const RESOURCE_PAIR = /(?:^|\s)([A-Za-z_][\w:.-]*):\s+(\d+(?:\.\d+)?)(?:\s*([KMGTP]i?B|B))?(?=\s|$)/g

/** `ray list nodes` table: a row per node, RESOURCES_TOTAL spread over the following lines. */
function parseListNodesTable(text: string): RayView | undefined {
  if (!/NODE_ID\s+NODE_IP/.test(text)) return undefined
  const nodes: { row: RegExpExecArray; lines: string[] }[] = []
  for (const line of text.split(/\r?\n/)) {
    const row = ROW.exec(line)
    if (row) nodes.push({ row, lines: [line.slice(row[0].length)] })
    else if (nodes.length > 0 && /^\s{20,}\S/.test(line)) nodes[nodes.length - 1]?.lines.push(line)
  }
  if (nodes.length === 0) return undefined
  return {
    source: 'ray list nodes table',
    nodes: nodes.map(({ row, lines }) => {
      const resources: Record<string, number> = {}
      for (const line of lines) {
        for (const m of line.matchAll(RESOURCE_PAIR)) {
          const [, key, value, unit] = m
          if (key === undefined || value === undefined || key.includes('/')) continue
          resources[key] = Number(value) * unitBytes(unit)
        }
      }
      return {
        nodeId: row[1] ?? '',
        alive: row[4] === 'ALIVE',
        address: row[2] ?? '',
        isHead: row[3] === 'True',
        resources,
      }
    }),
  }
}

/** Ray's node list from pasted or captured text. */
export function parseRayNodes(text: string): RayView {
  if (text.trim() === '') return errorView('ray nodes text', 'the Ray nodes text is empty')
  const view = parseListNodesTable(text) ?? parseNodeLiteral(text) ?? parseNodeLines(text)
  return (
    view ??
    errorView(
      'ray nodes text',
      'could not read Ray nodes: expected ray.nodes() JSON or repr, "address {resources}" lines, or a `ray list nodes` table',
    )
  )
}

// ---------------------------------------------------------------------------------------------
// ray status

const UNITS: Record<string, number> = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4, PiB: 1024 ** 5 }
const unitBytes = (unit: string | undefined): number => (unit === undefined ? 1 : (UNITS[unit] ?? UNITS[unit.replace('B', 'iB')] ?? 1))

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
    out.push(numericEntries(parsed.value))
    const rest = line.slice(parsed.end)
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
    if (/^(Total )?Demands:$/.test(head)) {
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
      const address = Object.keys(resources).find((k) => k.startsWith('node:') && k !== HEAD_RESOURCE)?.slice(5) ?? ''
      for (let i = 0; i < Number(withResources[1]); i++) {
        listedWithAddress.push({ nodeId: '', alive: true, address, isHead: HEAD_RESOURCE in resources, resources })
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
    return errorView('ray status text', 'could not read `ray status` output: no "Node status" or "Resources" section found')
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
