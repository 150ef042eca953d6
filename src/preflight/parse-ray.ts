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

import { type RayNode, type RayView, RAY_HEAD_RESOURCE } from './facts.js'
import { unitBytes } from './parse-ray-status.js'
import { isPyDict, isPyParseError, numericEntries, parsePythonLiteral, type PyValue } from './python-literal.js'

export { parseRayStatus } from './parse-ray-status.js'

const errorView = (source: string, error: string): RayView => ({ source, nodes: [], error })

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
      isHead: RAY_HEAD_RESOURCE in resources,
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
      isHead: d['is_head_node'] === true || RAY_HEAD_RESOURCE in resources,
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
      isHead: RAY_HEAD_RESOURCE in resources,
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
    view ?? errorView('ray nodes text', 'could not read Ray nodes: expected ray.nodes() JSON or repr, "address {resources}" lines, or a `ray list nodes` table')
  )
}
