/**
 * The job summary an operator reads at a glance: the verdict, one row per node (where it is, who
 * Ray and vLLM think it is, what it runs), a mermaid diagram of the cluster with every identity
 * mismatch marked, the findings with their fixes, and the smoke test's latency figures.
 *
 * Pure: takes its own input (built by `nodeRowsFrom` in node-rows.ts, or by any task), returns
 * Markdown. Every user-derived value goes through `escapeMarkdown` or `escapeMermaid`.
 */

import type { Finding } from '../preflight/finding.js'
import { escapeMarkdown as md, escapeMermaid as mm } from './escape.js'
import { renderFindingsMarkdown } from './findings.js'
import { type Verdict, verdictLine } from './verdict.js'

export type SummaryVerdict = Verdict

export interface SummaryNode {
  readonly name: string
  readonly role: 'head' | 'worker'
  /** Management address the runner reaches over SSH. */
  readonly sshAddress: string
  /** The manifest's fabric IP: what Ray and vLLM should both call this node. */
  readonly fabricIp: string
  /** The address Ray's node for this machine is registered under (`NodeManagerAddress`); unset when Ray has none. */
  readonly rayIdentity?: string
  /** The IP vLLM uses for this node (`get_ip()`): on the head, what the classic executor pins bundle 0 to. */
  readonly vllmIp?: string
  /** True when vLLM pins a placement-group bundle to `node:<vllmIp>` on this node (the head, classic executor). */
  readonly vllmPins?: boolean
  readonly imageId?: string
  readonly release?: string
  /** Short state: `running`, `unreachable: ...`, plus the codes of findings about the node. */
  readonly state: string
  /** Ray registered this node under its fabric IP; false also when Ray was asked and has no node for it; unset when unknown. */
  readonly rayMatchesFabric?: boolean
  /** vLLM's IP for this node is an address Ray knows this node by; unset when unknown. */
  readonly vllmMatchesRay?: boolean
  /** vLLM's native mode (no Ray): the node's rank, the store every node joins, and whether it is in the group (unset: not read). */
  readonly native?: { readonly rank: number; readonly store: string; readonly joined?: boolean }
}

export interface SummaryLatency {
  /** The request: a prompt (shortened), `streaming`, `burst of 8`. */
  readonly name: string
  readonly passed: boolean
  readonly ttftMs?: number
  readonly itlMs?: number
  readonly totalMs?: number
  readonly p95Ms?: number
  readonly completionTokens?: number
  readonly tokensPerSecond?: number
  readonly detail?: string
}

export interface SummaryInput {
  readonly verdict: SummaryVerdict
  /** One line: what happened (`preflight of spark-pair: 1 error, 0 warnings`). */
  readonly headline: string
  readonly fabricSubnet?: string
  readonly nodes: readonly SummaryNode[]
  readonly findings: readonly Finding[]
  /** The checks that ran and produced `findings` (`Ray identity preflight`, `smoke test`); none: no check is claimed. */
  readonly checks?: readonly string[]
  readonly latency?: readonly SummaryLatency[]
  /** Extra lines shown under the headline (facts gathered, release, ...), plain text. */
  readonly notes?: readonly string[]
}

const OK = '✅'
const BAD = '❌'
const UNKNOWN = '—'

/** `✅ x`, `❌ x (why)`, or the value alone when nothing was compared. */
function marked(value: string | undefined, match: boolean | undefined, why: string): string {
  if (value === undefined) return UNKNOWN
  if (match === true) return `${OK} ${md(value)}`
  if (match === false) return `${BAD} ${md(value)} (${md(why)})`
  return md(value)
}

const pinText = (n: SummaryNode): string | undefined => (n.vllmIp === undefined ? undefined : n.vllmPins ? `node:${n.vllmIp}` : n.vllmIp)

function vllmMismatchWhy(n: SummaryNode): string {
  return n.rayIdentity === undefined ? 'no Ray node has this address' : `Ray knows ${n.name} as ${n.rayIdentity}`
}

/** A Markdown table: the header cells, then one row of cells per entry. */
const markdownTable = (header: readonly string[], rows: readonly (readonly string[])[]): string[] => [
  `| ${header.join(' | ')} |`,
  `| ${header.map(() => '---').join(' | ')} |`,
  ...rows.map((cells) => `| ${cells.join(' | ')} |`),
]

/** The columns every node table starts and ends with, around the executor's identity columns. */
const nodeCells = (n: SummaryNode, identity: readonly string[]): string[] => [
  md(n.name),
  n.role,
  md(n.sshAddress),
  md(n.fabricIp),
  ...identity,
  n.imageId === undefined ? UNKNOWN : md(n.imageId),
  n.release === undefined ? UNKNOWN : md(n.release),
  md(n.state),
]

const joinedMark = (n: SummaryNode): string => (n.native?.joined === undefined ? '' : n.native.joined ? ` ${OK} in the group` : ` ${BAD} not in the group`)

function nodeTable(nodes: readonly SummaryNode[]): string[] {
  // vLLM's native executor: no Ray, no placement group to pin; the identity is the node's rank in the process group.
  if (nodes.some((n) => n.native))
    return markdownTable(
      ['Node', 'Role', 'SSH', 'Fabric IP', 'Native rank', 'Rendezvous store', 'Image', 'Release', 'State'],
      nodes.map((n) => nodeCells(n, [n.native ? `${n.native.rank}${joinedMark(n)}` : UNKNOWN, n.native ? md(n.native.store) : UNKNOWN])),
    )
  return markdownTable(
    ['Node', 'Role', 'SSH', 'Fabric IP', 'Ray identity', 'vLLM pins', 'Image', 'Release', 'State'],
    nodes.map((n) =>
      nodeCells(n, [
        n.rayIdentity === undefined
          ? n.rayMatchesFabric === false
            ? `${BAD} not in Ray`
            : UNKNOWN
          : marked(n.rayIdentity, n.rayMatchesFabric, 'not the fabric IP'),
        marked(pinText(n), n.vllmMatchesRay, vllmMismatchWhy(n)),
      ]),
    ),
  )
}

/** One sentence per mismatch, so the table's ❌ marks are spelled out. */
function mismatchLines(nodes: readonly SummaryNode[]): string[] {
  const out: string[] = []
  for (const n of nodes) {
    if (n.vllmMatchesRay === false && n.vllmIp !== undefined) {
      const what = n.vllmPins ? `vLLM pins bundle 0 to node:${n.vllmIp}` : `vLLM uses ${n.vllmIp}`
      const ray = n.rayIdentity === undefined ? 'no Ray node has that address' : `Ray knows it as ${n.rayIdentity}`
      out.push(`- ${BAD} **${md(n.name)}**: ${md(what)}, but ${md(ray)}.`)
    }
    if (n.rayMatchesFabric === false && n.rayIdentity !== undefined) {
      out.push(`- ${BAD} **${md(n.name)}**: Ray registered it as ${md(n.rayIdentity)}, not its fabric IP ${md(n.fabricIp)}.`)
    }
  }
  return out
}

/** A quoted mermaid label from already-escaped parts joined by line breaks. */
const label = (...lines: string[]): string => `"${lines.join('<br/>')}"`

/**
 * The cluster as a mermaid flowchart: the runner's SSH (management) link to each node, the fabric
 * link between the head and each worker, inside each node its Ray identity and vLLM's IP, each
 * worker's Ray joining the head's, and between Ray and vLLM on a node a "same" link or a marked
 * mismatch. Node ids are generated (`n0`, `n0_ray`), never taken from the input.
 */
export function renderClusterDiagram(nodes: readonly SummaryNode[], fabricSubnet?: string): string {
  if (nodes.some((n) => n.native)) return renderNativeDiagram(nodes, fabricSubnet)
  const lines = ['flowchart LR', '  runner(["runner"])']
  const bad: string[] = []
  const good: string[] = []
  const id = (i: number) => `n${i}`
  nodes.forEach((n, i) => {
    const rayLine =
      n.rayIdentity === undefined
        ? n.rayMatchesFabric === false
          ? '✗ not in Ray'
          : 'unknown'
        : n.rayMatchesFabric === false
          ? `✗ ${mm(n.rayIdentity)}, not the fabric IP`
          : mm(n.rayIdentity)
    const vllm = pinText(n)
    lines.push(`  subgraph ${id(i)} [${label(`${mm(n.name)}: ${n.role}`)}]`)
    lines.push(`    ${id(i)}_ray[${label(n.role === 'head' ? 'Ray head' : 'Ray worker', rayLine)}]`)
    lines.push(`    ${id(i)}_vllm[${label(n.vllmPins ? 'vLLM pins' : 'vLLM IP', vllm === undefined ? 'unknown' : mm(vllm))}]`)
    lines.push('  end')
    if (n.rayMatchesFabric === false) bad.push(`${id(i)}_ray`)
    else if (n.rayMatchesFabric === true) good.push(`${id(i)}_ray`)
    if (n.vllmMatchesRay === false) bad.push(`${id(i)}_vllm`)
    else if (n.vllmMatchesRay === true) good.push(`${id(i)}_vllm`)
  })
  lines.push(...linkLines(nodes, fabricSubnet, (_n, i, headIndex) => `  ${id(i)}_ray -->|"joins"| ${id(headIndex)}_ray`))
  nodes.forEach((n, i) => {
    if (n.vllmMatchesRay === true) lines.push(`  ${id(i)}_vllm ---|"✓ same address"| ${id(i)}_ray`)
    else if (n.vllmMatchesRay === false) lines.push(`  ${id(i)}_vllm -.-|${label(`✗ ${mm(vllmMismatchWhy(n))}`)}| ${id(i)}_ray`)
  })
  lines.push(...classLines(bad, good))
  return lines.join('\n')
}

/**
 * The links both diagrams draw: the runner's SSH to each node, and the fabric from the head to each
 * worker followed by `joins(worker, its index, the head's index)`, what crosses it in that executor.
 */
function linkLines(
  nodes: readonly SummaryNode[],
  fabricSubnet: string | undefined,
  joins: (n: SummaryNode, i: number, headIndex: number, head: SummaryNode) => string,
): string[] {
  const id = (i: number) => `n${i}`
  const lines = nodes.map((n, i) => `  runner -->|${label(`SSH ${mm(n.sshAddress)} (management)`)}| ${id(i)}`)
  const headIndex = nodes.findIndex((n) => n.role === 'head')
  const head = nodes[headIndex]
  if (!head) return lines
  const subnet = fabricSubnet === undefined ? '' : ` (${mm(fabricSubnet)})`
  nodes.forEach((n, i) => {
    if (i === headIndex) return
    lines.push(`  ${id(headIndex)} ===|${label(`fabric ${mm(head.fabricIp)} - ${mm(n.fabricIp)}${subnet}`)}| ${id(i)}`)
    lines.push(joins(n, i, headIndex, head))
  })
  return lines
}

/** The diagrams' colours: nodes found wrong in red, found right in green. */
function classLines(bad: readonly string[], good: readonly string[]): string[] {
  return [
    '  classDef bad fill:#ffe3e3,stroke:#c92a2a,color:#5c0000,stroke-width:2px',
    '  classDef good fill:#e6fcf5,stroke:#2b8a3e,color:#0b3d1a',
    ...(bad.length > 0 ? [`  class ${bad.join(',')} bad`] : []),
    ...(good.length > 0 ? [`  class ${good.join(',')} good`] : []),
  ]
}

/**
 * vLLM's native mode as a mermaid flowchart: no Ray; inside each node its `vllm serve` (rank 0 with
 * the API server, the others headless), each other node joining the head's rendezvous store over the
 * fabric, marked when the node is (or is not) in the process group.
 */
function renderNativeDiagram(nodes: readonly SummaryNode[], fabricSubnet?: string): string {
  const lines = ['flowchart LR', '  runner(["runner"])']
  const bad: string[] = []
  const good: string[] = []
  const id = (i: number) => `n${i}`
  nodes.forEach((n, i) => {
    const rank = n.native === undefined ? 'rank unknown' : `rank ${n.native.rank}`
    const what = n.role === 'head' ? `vllm serve ${rank}<br/>API server + store ${mm(n.native?.store ?? '')}` : `vllm serve ${rank}<br/>--headless`
    const state = n.native?.joined === undefined ? '' : n.native.joined ? '<br/>✓ in the group' : '<br/>✗ not in the group'
    lines.push(`  subgraph ${id(i)} [${label(`${mm(n.name)}: ${n.role}`)}]`)
    lines.push(`    ${id(i)}_vllm["${what}${state}"]`)
    lines.push('  end')
    if (n.native?.joined === false) bad.push(`${id(i)}_vllm`)
    else if (n.native?.joined === true) good.push(`${id(i)}_vllm`)
  })
  lines.push(
    ...linkLines(
      nodes,
      fabricSubnet,
      (n, i, headIndex, head) => `  ${id(i)}_vllm -->|${label(`joins ${mm(n.native?.store ?? head.fabricIp)} from ${mm(n.fabricIp)}`)}| ${id(headIndex)}_vllm`,
    ),
  )
  lines.push(...classLines(bad, good))
  return lines.join('\n')
}

const ms = (v: number | undefined): string => (v === undefined ? UNKNOWN : `${Math.round(v)} ms`)
const num = (v: number | undefined, digits = 0): string => (v === undefined ? UNKNOWN : v.toFixed(digits))

function latencyTable(rows: readonly SummaryLatency[]): string[] {
  return [
    '| Request | Result | Time to first token | Inter-token | Total | p95 | Tokens | Tokens/s |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${md(r.name)} | ${r.passed ? OK : BAD}${r.detail ? ` ${md(r.detail)}` : ''} | ${ms(r.ttftMs)} | ${ms(r.itlMs)} | ${ms(r.totalMs)} | ${ms(r.p95Ms)} | ${num(r.completionTokens)} | ${num(r.tokensPerSecond, 1)} |`,
    ),
  ]
}

export function renderSummary(input: SummaryInput): string {
  const out = [verdictLine(input.verdict, input.headline), '']
  if (input.notes && input.notes.length > 0)
    out.push(
      ...input.notes
        .map((n) => md(n))
        .join('<br>\n')
        .split('\n'),
      '',
    )
  if (input.nodes.length > 0) {
    out.push(...nodeTable(input.nodes), '')
    const mismatches = mismatchLines(input.nodes)
    if (mismatches.length > 0) out.push(...mismatches, '')
    out.push('```mermaid', renderClusterDiagram(input.nodes, input.fabricSubnet), '```', '')
  }
  if (input.latency && input.latency.length > 0) out.push('#### Smoke test latency', '', ...latencyTable(input.latency), '')
  out.push('#### Findings', '', renderFindingsMarkdown(input.findings, input.checks).trimEnd(), '')
  return out.join('\n')
}
