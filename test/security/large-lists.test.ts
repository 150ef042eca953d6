/**
 * Issue 24 item 13: a list as long as its input never reaches a call as spread arguments
 * (`Math.max(...rows)` throws "Maximum call stack size exceeded" past ~100k elements). Tried through
 * three renderers a large input reaches: the findings table (a 200k-line ray-nodes paste or a head
 * reporting 300k nodes becomes one finding per node), the deploy's node table, and the class held
 * by a scan of src/ for spreads into Math.max/Math.min.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Finding } from '../../src/preflight/finding.js'
import { renderNodeTable } from '../../src/report/rollout-report.js'
import { renderFindingsText } from '../../src/report/findings.js'

const N = 300_000
const findings: Finding[] = Array.from({ length: N }, (_, i) => ({
  code: 'RAY_NODE_UNEXPECTED' as Finding['code'],
  severity: 'warning',
  node: `n${i}`,
  message: `Ray lists node 10.0.${(i >> 8) & 255}.${i & 255}, which is not in the manifest.`,
  evidence: { 'Ray node': `10.0.${(i >> 8) & 255}.${i & 255}` },
  fix: 'remove it from the cluster',
}))

describe('renderers take lists of any length', () => {
  it(`the findings text table, ${N} findings`, () => {
    const text = renderFindingsText(findings)
    expect(text.split('\n').length).toBeGreaterThan(N)
    expect(text).toContain('n299999')
  })

  it(`the node table, ${N} nodes`, () => {
    const rows = Array.from({ length: N }, (_, i) => ({
      node: `n${i}`,
      role: 'worker',
      release: 'r1',
      imageId: 'sha256:0',
      rayIdentity: '-',
      state: 'running',
    }))
    expect(renderNodeTable(rows as Parameters<typeof renderNodeTable>[0]).split('\n').length).toBe(N + 2)
  })

  it('no Math.max/Math.min in src/ takes a spread (the class, wherever a list might be long)', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((f) => {
        const p = join(dir, f)
        return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : []
      })
    const hits = files('src').flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .flatMap((line, i) => (/Math\.(max|min)\([^)]*\.\.\./.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
    )
    expect(hits).toEqual([])
  })
})
