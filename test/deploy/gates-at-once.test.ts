/**
 * Issue 40, row 2: an unchanged release runs its two gates, preflight and smoke, at once (the
 * runner's gatesAtOnce: the vllm stage between them is skipped); a release that starts vLLM runs
 * them in order, vllm between. Both are reported; the first in the list that stopped names the stop.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { deployRelease } from '../../src/deploy/rollout.js'
import type { RolloutOptions } from '../../src/deploy/rollout-types.js'
import type { SmokeGate } from '../../src/deploy/smoke-seam.js'
import type { Finding } from '../../src/preflight/finding.js'
import { SimCluster, healthyProbe, simManifest } from './support/sim-cluster.js'

const smokeFinding: Finding = {
  code: 'SMOKE_HTTP_ERROR',
  severity: 'error',
  node: 'spark-a',
  message: 'The completion request failed.',
  evidence: { status: '500' },
  fix: 'Read the vLLM log.',
}

let sim: SimCluster
afterEach(() => sim?.cleanup())

/** A smoke gate that records which stages were open (started, not ended) when it began. */
function watched(ok: boolean): { options: (s: SimCluster, extra?: Partial<RolloutOptions>) => RolloutOptions; openAtSmoke: () => string[] | undefined } {
  const open = new Set<string>()
  let seen: string[] | undefined
  const smoke: SmokeGate = async () => {
    seen = [...open].sort()
    return { ok, findings: ok ? [] : [smokeFinding], text: ok ? 'smoke passed' : 'smoke failed', outputs: { verdict: ok ? 'passed' : 'failed' }, summary: '' }
  }
  return {
    openAtSmoke: () => seen,
    options: (s, extra = {}) => ({
      manifest: s.manifest,
      manifestPath: '/nonexistent/manifest.yml',
      transports: s.transports(),
      env: {},
      release: 'r1',
      who: 'test',
      smoke,
      onStage: (stage, event) => (event === 'start' ? open.add(stage) : open.delete(stage)),
      ...extra,
    }),
  }
}

describe('the gates of an unchanged release run at once', () => {
  it('unchanged: the smoke starts while the preflight is still open; both pass and are reported', async () => {
    sim = new SimCluster(simManifest())
    const first = watched(true)
    expect((await deployRelease(first.options(sim))).result).toBe('deployed')
    // A new release: vllm runs between the gates, so the smoke starts after the preflight ended.
    expect(first.openAtSmoke()).toEqual(['smoke'])
    const again = watched(true)
    const r = await deployRelease(again.options(sim, { release: 'r2' }))
    expect(r).toMatchObject({ result: 'unchanged', release: 'r1', changed: false })
    expect(again.openAtSmoke()).toEqual(['preflight', 'smoke'])
    expect(r.facts?.nodes.map((n) => n.node)).toEqual(['spark-a', 'spark-b'])
    expect(r.smoke?.text).toBe('smoke passed')
  })

  it('a forced deploy of the same content runs them in order, vllm between', async () => {
    sim = new SimCluster(simManifest())
    expect((await deployRelease(watched(true).options(sim))).result).toBe('deployed')
    const forced = watched(true)
    const r = await deployRelease(forced.options(sim, { release: 'r2', force: true }))
    expect(r.result).toBe('deployed')
    expect(forced.openAtSmoke()).toEqual(['smoke'])
  })

  it('both fail: the stop names the preflight (first in the list) and the findings of both are reported, nothing changed', async () => {
    sim = new SimCluster(simManifest())
    expect((await deployRelease(watched(true).options(sim))).result).toBe('deployed')
    // vLLM pinned outside Ray on the head: the preflight's VLLM_PIN_NOT_IN_RAY.
    sim.probe = (node) => healthyProbe(node, sim.imageId, node === 'spark-a' ? '10.9.9.9' : undefined)
    const failing = watched(false)
    const r = await deployRelease(failing.options(sim, { release: 'r2' }))
    expect(failing.openAtSmoke()).toEqual(['preflight', 'smoke'])
    expect(r).toMatchObject({ result: 'failed', changed: false, failure: { stage: 'preflight' }, onFailure: { action: 'none', ok: true } })
    const codes = r.findings.filter((f) => f.severity === 'error').map((f) => f.code)
    expect(codes).toContain('SMOKE_HTTP_ERROR')
    expect(codes.some((c) => c !== 'SMOKE_HTTP_ERROR')).toBe(true)
    expect(codes.indexOf('SMOKE_HTTP_ERROR')).toBe(codes.length - 1)
  })

  it('only the smoke fails: the stop names the smoke', async () => {
    sim = new SimCluster(simManifest())
    expect((await deployRelease(watched(true).options(sim))).result).toBe('deployed')
    const r = await deployRelease(watched(false).options(sim, { release: 'r2' }))
    expect(r).toMatchObject({ result: 'failed', changed: false, failure: { stage: 'smoke' } })
  })
})
