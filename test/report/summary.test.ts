/**
 * The job summary: node table, cluster diagram (parsed by the real mermaid), findings, latency;
 * hostile names escaped in Markdown and in mermaid; node rows derived from the incident's facts.
 */
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { loadManifestFile } from '../../src/manifest/load-manifest.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { runChecks } from '../../src/preflight/checks/index.js'
import { expectationFromManifest } from '../../src/manifest/expectation.js'
import { nodeRowsFrom } from '../../src/report/node-rows.js'
import { renderClusterDiagram, renderSummary, type SummaryInput, type SummaryNode } from '../../src/report/summary.js'
import { escapeMarkdown, escapeMermaid } from '../../src/report/escape.js'
import { healthyFacts, seedBugFacts, withNode } from '../preflight/fixtures/facts.js'
import { parseFlowchart } from './mermaid-parser.js'

const EXAMPLE = fileURLToPath(new URL('../../src/manifest/examples/dgx-spark-pair.yml', import.meta.url))
let manifest: Manifest

beforeAll(async () => {
  manifest = (await loadManifestFile(EXAMPLE)).manifest!
})

/** The fenced mermaid block of a summary. */
const diagramOf = (summary: string): string => /```mermaid\n([\s\S]*?)\n```/.exec(summary)?.[1] ?? ''

/** Cells of a Markdown table row, split only on unescaped pipes (what GFM does). */
const cells = (row: string): string[] =>
  row
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((c) => c.trim())

const rowOf = (summary: string, node: string): string[] => {
  const line = summary.split('\n').find((l) => l.startsWith(`| ${node} |`))
  if (!line) throw new Error(`no table row for ${node} in\n${summary}`)
  return cells(line)
}

describe('node rows from manifest + facts + findings', () => {
  it('the incident: both nodes are in Ray under their management IPs, vLLM pins/uses the fabric IPs', () => {
    const findings = runChecks(seedBugFacts, expectationFromManifest(manifest))
    const [head, worker] = nodeRowsFrom(manifest, seedBugFacts, findings)
    expect(head).toMatchObject({
      name: 'spark-a',
      role: 'head',
      sshAddress: '10.1.230.180',
      fabricIp: '192.168.200.12',
      rayIdentity: '10.1.230.180',
      rayMatchesFabric: false,
      vllmIp: '192.168.200.12',
      vllmPins: true,
      vllmMatchesRay: false,
      imageId: 'sha256:7d3c0a9e5b1f',
    })
    expect(head!.state).toContain('running')
    expect(head!.state).toContain('VLLM_PIN_NOT_IN_RAY')
    expect(head!.state).toContain('RAY_IDENTITY_NOT_FABRIC')
    expect(worker).toMatchObject({
      name: 'spark-b',
      rayIdentity: '10.1.230.181',
      rayMatchesFabric: false,
      vllmIp: '192.168.200.13',
      vllmPins: false,
      vllmMatchesRay: false,
    })
    expect(worker!.state).not.toContain('VLLM_PIN_NOT_IN_RAY')
    expect(worker!.state).toContain('RAY_IDENTITY_NOT_FABRIC')
  })

  it('a healthy cluster matches everywhere; releases and states can be supplied by the task', () => {
    const rows = nodeRowsFrom(manifest, healthyFacts, [], { releases: { 'spark-a': 'r2', 'spark-b': 'r2' } })
    expect(rows.map((r) => [r.rayMatchesFabric, r.vllmMatchesRay, r.release])).toEqual([
      [true, true, 'r2'],
      [true, true, 'r2'],
    ])
    expect(rows[0]!.state).toBe('running, in Ray')
  })

  it('an unreachable node says why; without facts nothing is claimed', () => {
    const down = withNode(healthyFacts, 'spark-b', (n) => ({
      node: n.node,
      ok: false,
      error: 'connect ETIMEDOUT 10.1.230.181:22',
      interfaces: [],
      peers: [],
      gpus: [],
    }))
    const rows = nodeRowsFrom(manifest, down, [])
    expect(rows[1]!.state).toBe('unreachable: connect ETIMEDOUT 10.1.230.181:22')
    const bare = nodeRowsFrom(manifest, undefined, [])
    expect(bare.map((r) => [r.state, r.rayIdentity, r.rayMatchesFabric, r.vllmMatchesRay])).toEqual([
      ['not checked', undefined, undefined, undefined],
      ['not checked', undefined, undefined, undefined],
    ])
  })
})

describe('renderSummary', () => {
  const seedSummary = (): string => {
    const findings = runChecks(seedBugFacts, expectationFromManifest(manifest))
    return renderSummary({
      verdict: 'failed',
      headline: 'preflight of spark-pair: 2 errors, 0 warnings',
      fabricSubnet: manifest.fabric.subnet,
      nodes: nodeRowsFrom(manifest, seedBugFacts, findings),
      findings,
    })
  }

  it('the incident: verdict first, the mismatch marked in the node table and spelled out', () => {
    const s = seedSummary()
    expect(s.split('\n')[0]).toBe('### ❌ failed: preflight of spark-pair: 2 errors, 0 warnings')
    const head = rowOf(s, 'spark-a')
    expect(head).toHaveLength(9)
    expect(head.slice(0, 4)).toEqual(['spark-a', 'head', '10.1.230.180', '192.168.200.12'])
    expect(head[4]).toBe('❌ 10.1.230.180 (not the fabric IP)')
    expect(head[5]).toBe('❌ node:192.168.200.12 (Ray knows spark-a as 10.1.230.180)')
    expect(head[6]).toBe('sha256:7d3c0a9e5b1f')
    expect(head[7]).toBe('—')
    const worker = rowOf(s, 'spark-b')
    expect(worker[4]).toBe('❌ 10.1.230.181 (not the fabric IP)')
    expect(worker[5]).toBe('❌ 192.168.200.13 (Ray knows spark-b as 10.1.230.181)')
    expect(s).toContain('- ❌ **spark-a**: vLLM pins bundle 0 to node:192.168.200.12, but Ray knows it as 10.1.230.180.')
    expect(s).toContain('#### `VLLM_PIN_NOT_IN_RAY` on spark-a')
    expect(s).toMatch(/\*\*Fix:\*\* On spark-a start Ray with --node-ip-address=192\.168\.200\.12/)
  })

  it("the incident: the diagram (parsed by mermaid) marks the head's Ray and vLLM and links them as a mismatch", async () => {
    const d = await parseFlowchart(diagramOf(seedSummary()))
    expect([...d.vertices.keys()].sort()).toEqual(['n0', 'n0_ray', 'n0_vllm', 'n1', 'n1_ray', 'n1_vllm', 'runner'].sort())
    expect(d.vertices.get('n0_ray')!.text).toBe('Ray head<br/>✗ 10.1.230.180, not the fabric IP')
    expect(d.vertices.get('n0_vllm')!.text).toBe('vLLM pins<br/>node:192.168.200.12')
    expect(d.vertices.get('n0_ray')!.classes).toContain('bad')
    expect(d.vertices.get('n0_vllm')!.classes).toContain('bad')
    expect(d.vertices.get('n1_vllm')!.classes).toContain('bad')
    const edge = (a: string, b: string) => d.edges.find((e) => e.start === a && e.end === b)
    expect(edge('n0_vllm', 'n0_ray')?.text).toBe('✗ Ray knows spark-a as 10.1.230.180')
    expect(edge('n1_vllm', 'n1_ray')?.text).toBe('✗ Ray knows spark-b as 10.1.230.181')
    expect(edge('runner', 'n0')?.text).toBe('SSH 10.1.230.180 (management)')
    expect(edge('n0', 'n1')?.text).toBe('fabric 192.168.200.12 - 192.168.200.13 (192.168.200.0/24)')
    expect(edge('n1_ray', 'n0_ray')?.text).toBe('joins')
    expect(d.subgraphs.map((g) => [g.id, g.title])).toEqual([
      ['n0', 'spark-a: head'],
      ['n1', 'spark-b: worker'],
    ])
  })

  it('a healthy cluster: everything ✅, no mismatch lines, no bad class in the diagram', async () => {
    const s = renderSummary({
      verdict: 'passed',
      headline: 'preflight of spark-pair: no findings',
      nodes: nodeRowsFrom(manifest, healthyFacts, []),
      findings: [],
    })
    expect(s.split('\n')[0]).toBe('### ✅ passed: preflight of spark-pair: no findings')
    expect(s).not.toContain('❌')
    const d = await parseFlowchart(diagramOf(s))
    expect([...d.vertices.values()].some((v) => v.classes.includes('bad'))).toBe(false)
  })

  it('smoke latency rows become a table', () => {
    const s = renderSummary({
      verdict: 'passed',
      headline: 'smoke of spark-pair: passed',
      nodes: [],
      findings: [],
      latency: [
        { name: 'Write a haiku', passed: true, ttftMs: 412.4, itlMs: 38.2, totalMs: 1630, completionTokens: 32, tokensPerSecond: 26.26 },
        { name: 'burst of 8', passed: false, p95Ms: 9100, detail: 'p95 above 5000 ms' },
      ],
    })
    expect(s).toContain('#### Smoke test latency')
    expect(s).toContain('| Write a haiku | ✅ | 412 ms | 38 ms | 1630 ms | — | 32 | 26.3 |')
    expect(s).toContain('| burst of 8 | ❌ p95 above 5000 ms | — | — | — | 9100 ms | — | — |')
    expect(s).not.toContain('```mermaid')
  })
})

describe('hostile names', () => {
  const HOSTILE = [
    'a|b',
    'tick`code`tick',
    '[click](javascript:alert(1))',
    'say "hi" \'there\'',
    'line\nbreak\r\nagain',
    '<script>alert(1)</script>',
    'x"] --> evil["pwned',
    'end',
    '%%{init: {"theme":"dark"}}%%',
    'a;b\nclick n0 "https://evil.example"',
    '#35; #quot; &amp;',
    '</br><img src=x onerror=alert(1)>',
    'n0_ray:::good',
  ]

  const hostileNode = (name: string, i: number): SummaryNode => ({
    name,
    role: i === 0 ? 'head' : 'worker',
    sshAddress: `ssh|${name}`,
    fabricIp: `fab${name}`,
    rayIdentity: `ray${name}`,
    vllmIp: `vllm${name}`,
    vllmPins: i === 0,
    rayMatchesFabric: false,
    vllmMatchesRay: false,
    imageId: `img${name}`,
    release: `rel${name}`,
    state: `st${name}`,
  })

  const input = (): SummaryInput => ({
    verdict: 'failed',
    headline: `preflight of ${HOSTILE.join(' ')}`,
    fabricSubnet: '<sub>|net',
    nodes: HOSTILE.map(hostileNode),
    findings: [
      {
        code: 'VLLM_PIN_NOT_IN_RAY',
        severity: 'error',
        node: HOSTILE[6]!,
        message: HOSTILE.join(' '),
        evidence: { [HOSTILE[0]!]: HOSTILE[5]!, [HOSTILE[2]!]: HOSTILE[4]! },
        fix: HOSTILE.join(' / '),
      },
    ],
    latency: [{ name: HOSTILE.join(' '), passed: false, detail: HOSTILE[1]! }],
  })

  it('every table row keeps its columns; no raw HTML, backtick, link or line break from the input survives', () => {
    const s = renderSummary(input())
    const markdown = s.replace(/```mermaid[\s\S]*?```/, '')
    for (const line of markdown.split('\n').filter((l) => l.startsWith('|'))) {
      const n = cells(line).length
      expect([2, 4, 8, 9], line).toContain(n)
    }
    const nodeRows = markdown.split('\n').filter((l) => l.startsWith('|') && cells(l).length === 9 && !l.startsWith('| Node') && !l.startsWith('| ---'))
    expect(nodeRows).toHaveLength(HOSTILE.length)
    expect(markdown).not.toMatch(/<script|<img|<\/br>|<sub>/i)
    expect(markdown).not.toMatch(/\]\(javascript/)
    // Backticks only where the renderer puts them itself: around finding codes.
    expect(markdown.replace(/`[A-Z_]+`/g, '').replace(/```/g, '')).not.toContain('`')
    // No input line break became a Markdown line of its own.
    expect(markdown).not.toMatch(/^(break|again|click n0)/m)
  })

  it('mermaid reads exactly the diagram the renderer meant: generated ids only, labels round-trip to the input', async () => {
    const nodes = HOSTILE.map(hostileNode)
    const d = await parseFlowchart(renderClusterDiagram(nodes, '<sub>|net'))
    const expectedIds = ['runner', ...nodes.flatMap((_, i) => [`n${i}`, `n${i}_ray`, `n${i}_vllm`])]
    expect([...d.vertices.keys()].sort()).toEqual(expectedIds.sort())
    const flat = (s: string) => s.replace(/\r\n?|\n/g, ' ')
    nodes.forEach((n, i) => {
      expect(d.subgraphs.find((g) => g.id === `n${i}`)?.title).toBe(`${flat(n.name)}: ${n.role}`)
      expect(d.vertices.get(`n${i}_ray`)!.text).toBe(`${n.role === 'head' ? 'Ray head' : 'Ray worker'}<br/>✗ ${flat(n.rayIdentity!)}, not the fabric IP`)
      expect(d.vertices.get(`n${i}_vllm`)!.text).toBe(`${i === 0 ? 'vLLM pins<br/>node:' : 'vLLM IP<br/>'}${flat(n.vllmIp!)}`)
      expect(d.edges.find((e) => e.start === 'runner' && e.end === `n${i}`)?.text).toBe(`SSH ${flat(n.sshAddress)} (management)`)
      expect(d.vertices.get(`n${i}_ray`)!.classes).toEqual(['bad'])
    })
    // Every edge is one the renderer drew: runner→node, head↔worker fabric, Ray join, vLLM↔Ray.
    expect(d.edges).toHaveLength(nodes.length + 2 * (nodes.length - 1) + nodes.length)
  })

  it('the escapers use an allow-list', () => {
    expect(escapeMarkdown('a|b`c[d]e<f>&\n')).toBe('a&#124;b&#96;c&#91;d&#93;e&lt;f&gt;&amp;<br>')
    expect(escapeMermaid('a"b]c|d;e#f%g\nh<i>')).toBe('a#34;b#93;c#124;d#59;e#35;f#37;g h#60;i#62;')
    expect(escapeMermaid('spark-a 192.168.200.12 node:x/24 (head)')).toBe('spark-a 192.168.200.12 node:x/24 (head)')
  })
})
