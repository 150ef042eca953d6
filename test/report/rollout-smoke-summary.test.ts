/** The operator's summary inside deploy's and smoke's job summaries. */
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import type { RolloutReport } from '../../src/deploy/rollout.js'
import { expectationFromManifest } from '../../src/manifest/expectation.js'
import { loadManifestFile } from '../../src/manifest/load-manifest.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { runChecks } from '../../src/preflight/checks/index.js'
import { renderRolloutMarkdown } from '../../src/report/rollout-report.js'
import { latencyRowsFrom, smokeNodeRows } from '../../src/report/smoke-summary.js'
import { renderSummary } from '../../src/report/summary.js'
import type { InferenceResult } from '../../src/smoke/inference.js'
import { smokeOutputs } from '../../src/smoke/smoke-report.js'
import { healthyFacts, seedBugFacts } from '../preflight/fixtures/facts.js'

const EXAMPLE = fileURLToPath(new URL('../../src/manifest/examples/dgx-spark-pair.yml', import.meta.url))
let manifest: Manifest
beforeAll(async () => {
  manifest = (await loadManifestFile(EXAMPLE)).manifest!
})

describe('deploy summary', () => {
  it('a seed-bug deploy stopped at the preflight gate and rolled back: what runs now and what the failed release showed are separate tables', () => {
    const findings = runChecks(seedBugFacts, expectationFromManifest(manifest))
    const report: RolloutReport = {
      command: 'deploy',
      result: 'failed',
      release: 'bug1',
      previousRelease: 'r1',
      changed: true,
      rolledBack: true,
      failure: { stage: 'preflight', reason: 'identity preflight: VLLM_PIN_NOT_IN_RAY' },
      onFailure: { action: 'rollback', ok: true, detail: 'rolled back: release r1 started again', release: 'r1' },
      findings,
      facts: seedBugFacts,
      afterRollback: { release: 'r1', facts: healthyFacts, findings: [] },
      nodes: [
        { node: 'spark-a', role: 'head', release: 'r1', imageId: 'abababababab', rayIdentity: '192.168.200.12 (head)', state: 'running r1' },
        { node: 'spark-b', role: 'worker', release: 'r1', imageId: 'abababababab', rayIdentity: '192.168.200.13', state: 'running r1' },
      ],
      durationMs: 42_000,
    }
    const md = renderRolloutMarkdown('spark-pair', report, manifest)
    expect(md.split('\n')[0]).toBe('### ❌ failed: deploy spark-pair: release bug1 failed at preflight; on-failure rollback: done')
    expect(md).toContain('on-failure rollback: rolled back: release r1 started again')
    const [now, failed] = md.split('#### What the failed release bug1 showed')
    // What runs now: r1, with the identities its own gate saw (all matching) and none of bug1's codes.
    expect(now).toContain(
      '| spark-a | head | 10.1.230.180 | 192.168.200.12 | ✅ 192.168.200.12 | ✅ node:192.168.200.12 | sha256:abababababab | r1 | running r1 |',
    )
    expect(now).not.toMatch(/❌ 10\.1\.230\.180|RAY_IDENTITY_NOT_FABRIC \||\| r1 \| [^|]*VLLM_PIN_NOT_IN_RAY/)
    // What the failed release showed: its mismatch, under its own release id, never beside r1.
    expect(failed).toContain(
      '| spark-a | head | 10.1.230.180 | 192.168.200.12 | ❌ 10.1.230.180 (not the fabric IP) | ❌ node:192.168.200.12 (Ray knows spark-a as 10.1.230.180) | sha256:7d3c0a9e5b1f | bug1 | running, in Ray · RAY_IDENTITY_NOT_FABRIC · VLLM_PIN_NOT_IN_RAY |',
    )
    expect(failed).toContain('n0_vllm -.-|"✗ Ray knows spark-a as 10.1.230.180"| n0_ray')
    expect(failed).not.toMatch(/\| r1 \|/)
    // Without the manifest the rollout's own table is kept.
    expect(renderRolloutMarkdown('spark-pair', report)).toContain('| NODE | ROLE | RELEASE | IMAGE ID | RAY IDENTITY | STATE |')
  })
})

describe('smoke summary', () => {
  it('latency rows from the requests, the streamed request and the burst', () => {
    const rows = latencyRowsFrom({
      findings: [],
      models: ['qwen3.5-122b'],
      requests: [
        { label: 'Write a haiku about a GPU', ms: 1630, completionTokens: 32, ok: true },
        { label: 'second', ms: 90_000, ok: false },
      ],
      stream: { ttftMs: 412, itlMs: 38.2, tpotMs: 38.2, tokensPerSecond: 26.2, completionTokens: 32, text: 'x' },
      burst: { requests: 8, p50Ms: 2000, p95Ms: 3100, tokensPerSecond: 120.5 },
    } as Parameters<typeof latencyRowsFrom>[0])
    const md = renderSummary({ verdict: 'passed', headline: 'smoke', nodes: [], findings: [], latency: rows })
    expect(md).toContain('| Write a haiku about a GPU | ✅ | — | — | 1630 ms | — | 32 | — |')
    expect(md).toContain('| second | ❌ | — | — | 90000 ms | — | — | — |')
    expect(md).toContain('| streamed request | ✅ | 412 ms | 38 ms | — | — | 32 | 26.2 |')
    expect(md).toContain('| burst of 8 | ✅ | — | — | — | 3100 ms | — | 120.5 |')
  })

  it('node rows from the cluster proof: where the bundles sit, on the fabric IP or not', () => {
    const rows = smokeNodeRows(
      manifest,
      {
        placementGroup: { id: 'pg1', state: 'CREATED', bundles: 2 },
        serving: [{ ip: '192.168.200.12', node: 'spark-a', bundles: 1, alive: true }],
        findings: [],
      },
      [{ code: 'SMOKE_SERVING_NODE_MISSING', severity: 'error', node: 'spark-b', message: 'm', evidence: {}, fix: 'f' }],
    )
    expect(rows.map((r) => [r.name, r.rayIdentity, r.rayMatchesFabric, r.state])).toEqual([
      ['spark-a', '192.168.200.12', true, 'serving 1 bundle'],
      ['spark-b', undefined, undefined, 'serving no bundle · SMOKE_SERVING_NODE_MISSING'],
    ])
  })
})

describe('the latency table carries every figure the outputs carry', () => {
  const base = {
    findings: [],
    models: ['m'],
    requests: [
      { label: 'first prompt', ms: 140, completionTokens: 8, ok: true },
      { label: 'second prompt', ms: 161, completionTokens: 8, ok: true },
    ],
  }
  const shapes: [string, InferenceResult][] = [
    [
      'stream and burst',
      {
        ...base,
        stream: { ttftMs: 41, itlMs: 7.5, tpotMs: 7.5, tokensPerSecond: 130, completionTokens: 8, text: 'x' },
        burst: { requests: 4, p50Ms: 150, p95Ms: 210, tokensPerSecond: 300 },
        p95Ms: 210,
        p50Ms: 150,
        tokensPerSecond: 300,
      },
    ],
    // The case seen from a consumer repository: no burst, p95-ms is over the prompts (161), the table said —.
    [
      'stream, no burst',
      {
        ...base,
        stream: { ttftMs: 41, itlMs: 7.5, tpotMs: 7.5, tokensPerSecond: 130, completionTokens: 8, text: 'x' },
        p95Ms: 161,
        p50Ms: 140,
        tokensPerSecond: 130,
      },
    ],
    ['no stream, no burst', { ...base, p95Ms: 161, p50Ms: 140 }],
  ]
  const COLUMN = { 'ttft-ms': 2, 'itl-ms': 3, 'p95-ms': 5 } as const
  it.each(shapes)('%s', (_name, inference) => {
    const outputs = smokeOutputs({ cluster: 'c', model: 'm', via: 'v', inference, findings: [] })
    const md = renderSummary({ verdict: 'passed', headline: 'smoke', nodes: [], findings: [], latency: latencyRowsFrom(inference) })
    const rows = md
      .split('\n')
      .filter((l) => l.startsWith('| ') && !l.startsWith('| Request') && !l.startsWith('| ---'))
      .map((l) => l.slice(2, -2).split(' | '))
    for (const [output, col] of Object.entries(COLUMN)) {
      if (outputs[output] === '') continue
      expect(
        rows.map((r) => r[col]),
        `${output} = ${outputs[output]}`,
      ).toContain(`${Math.round(Number(outputs[output]))} ms`)
    }
    if (outputs['tokens-per-second'] !== '') expect(rows.map((r) => r[7])).toContain(Number(outputs['tokens-per-second']).toFixed(1))
  })
})
