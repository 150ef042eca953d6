import { describe, expect, it } from 'vitest'
import { runChecks } from '../../src/preflight/checks/index.js'
import type { Finding } from '../../src/preflight/finding.js'
import { escapeMarkdownCell, findingsJson, renderFindingsMarkdown, renderFindingsText } from '../../src/report/findings.js'
import { expectation, seedBugFacts } from './fixtures/facts.js'

const seed = runChecks(seedBugFacts, expectation)

const tricky: Finding = {
  code: 'UNIQUE_IP_ERROR',
  severity: 'warning',
  node: null,
  message: 'a | b & <c>',
  evidence: { 'IPs <seen>': "{'10.0.0.1'} | {'10.0.0.2'}", Multi: 'one\ntwo' },
  fix: 'Set VLLM_HOST_IP=<ip> & retry | done',
}

describe('renderFindingsText', () => {
  it('prints a table of code, severity, node and message, then a fix line and indented evidence per finding', () => {
    const text = renderFindingsText(seed)
    const lines = text.split('\n')
    expect(lines[0]).toMatch(/^CODE\s+SEVERITY\s+NODE\s+MESSAGE$/)
    expect(lines[1]).toMatch(/^RAY_IDENTITY_NOT_FABRIC\s+error\s+spark-a\s+Ray's head spark-a registered as 10\.1\.230\.180/)
    expect(lines[3]).toMatch(/^VLLM_PIN_NOT_IN_RAY\s+error\s+spark-a\s+vLLM on spark-a pins/)
    // columns line up
    expect(lines[1]?.indexOf('error')).toBe(lines[0]?.indexOf('SEVERITY'))
    expect(text).toContain(
      'VLLM_PIN_NOT_IN_RAY (spark-a):\n  fix: On spark-a start Ray with --node-ip-address=192.168.200.12 (the fabric IP), or set VLLM_HOST_IP to the IP Ray registered (10.1.230.180); both must name the same address.\n    Ray head identity (NodeManagerAddress): 10.1.230.180\n    vLLM pins bundle 0 to:                  node:192.168.200.12 (from VLLM_HOST_IP)\n',
    )
    expect(text.endsWith('\n')).toBe(true)
  })

  it('shows a cluster-wide finding with "cluster" as its node and keeps multi-line evidence indented', () => {
    const text = renderFindingsText([tricky])
    expect(text).toContain('UNIQUE_IP_ERROR  warning   cluster  a | b & <c>')
    expect(text).toContain('UNIQUE_IP_ERROR (cluster):\n  fix: Set VLLM_HOST_IP=<ip> & retry | done\n')
    expect(text).toContain('    Multi:      one\n                two')
  })

  it('says so when there is nothing to report', () => {
    expect(renderFindingsText([])).toBe('No findings.\n')
  })
})

describe('renderFindingsMarkdown', () => {
  it('renders a summary table and an evidence table per finding', () => {
    const md = renderFindingsMarkdown(seed)
    expect(md).toContain('| Code | Severity | Node | Message |')
    expect(md).toContain('| `VLLM_PIN_NOT_IN_RAY` | ❌ error | spark-a | vLLM on spark-a pins placement-group bundle 0 to node:192.168.200.12')
    expect(md).toContain('#### `VLLM_HOST_IP_OVERRIDE` on spark-b')
    expect(md).toContain('| Ray identity of spark-b (NodeManagerAddress) | 10.1.230.181 |')
  })

  it('escapes & < > | in every value so a table cannot break or inject HTML', () => {
    const md = renderFindingsMarkdown([tricky])
    expect(md).toContain('| `UNIQUE_IP_ERROR` | ⚠️ warning | cluster | a &#124; b &amp; &lt;c&gt; |')
    expect(md).toContain("| IPs &lt;seen&gt; | {'10.0.0.1'} &#124; {'10.0.0.2'} |")
    expect(md).toContain('| Multi | one<br>two |')
    expect(md).toContain('**Fix:** Set VLLM_HOST_IP=&lt;ip&gt; &amp; retry &#124; done')
    expect(md).not.toMatch(/<c>|<seen>|<ip>/)
  })

  it('escapes the way GitHub expects', () => {
    expect(escapeMarkdownCell('a&b<c>d|e')).toBe('a&amp;b&lt;c&gt;d&#124;e')
  })

  it('says so when there is nothing to report, naming only the checks that ran', () => {
    expect(renderFindingsMarkdown([])).toBe('No findings.\n')
    expect(renderFindingsMarkdown([], ['smoke test'])).toBe('**smoke test:** no findings.\n')
  })
})

describe('findingsJson', () => {
  it('gives {"findings":[...]} with code, severity, node, message, evidence, fix in that order', () => {
    const json = findingsJson(seed)
    expect(json.findings).toHaveLength(4)
    expect(Object.keys(json.findings[0] ?? {})).toEqual(['code', 'severity', 'node', 'message', 'evidence', 'fix'])
    expect(JSON.parse(JSON.stringify(json))).toEqual({ findings: seed.map((f) => ({ ...f })) })
    expect(findingsJson([])).toEqual({ findings: [] })
  })

  it('keeps a null node as null', () => {
    expect(JSON.stringify(findingsJson([tricky]))).toContain('"node":null')
  })
})
