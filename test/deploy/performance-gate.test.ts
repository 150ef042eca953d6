/**
 * Performance as a gate with history (issue 39): the smoke's figures are kept per release on the
 * head, and the next deploy compares its own with the running release's under the same load. Pure
 * parts with records; the gate through real deploys of the simulated cluster, whose release state
 * (the figures' file included) lives in a real directory per node.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { deployRelease } from '../../src/deploy/rollout.js'
import type { SmokeGate, SmokeGateInput } from '../../src/deploy/smoke-seam.js'
import { type Manifest, SmokeSchema } from '../../src/manifest/schema.js'
import type { InferenceResult } from '../../src/smoke/inference.js'
import { streamFigures } from '../../src/smoke/latency.js'
import { comparePerformance, parsePerformanceRecord, performanceRecord, type PerformanceRecord } from '../../src/smoke/performance.js'
import { rolloutOutcome } from '../../src/tasks/deploy-task.js'
import { SimCluster, simManifest, simRolloutOptions } from './support/sim-cluster.js'

/** The sim's manifest with these smoke keys set (the rest as the lab writes them; the gate failing a deploy unless `keys` say otherwise). */
const withSmoke = (keys: Record<string, unknown>): Manifest =>
  simManifest((d) => {
    const doc = d as { smoke?: Record<string, unknown> }
    doc.smoke = { ...doc.smoke, regression: { action: 'fail' }, ...keys }
  })
const failing = () => withSmoke({})

/** What the smoke measured, as its inference result: `slow` multiplies every time (and divides every rate). */
const inference = (slow: number, burst = true): InferenceResult => ({
  findings: [],
  models: ['m'],
  requests: [],
  version: '0.24.0',
  stream: { ttftMs: 40 * slow, itlMs: 8 * slow, tpotMs: 6 * slow, tokensPerSecond: 160 / slow, completionTokens: 16, text: 'x' },
  ...(burst && { burst: { requests: 8, p50Ms: 120 * slow, p95Ms: 150 * slow, tokensPerSecond: 900 / slow } }),
})

const recordOf = (m: Manifest, release: string, slow: number): PerformanceRecord => performanceRecord(m, release, inference(slow))!

describe('the figures', () => {
  it('TPOT and ITL are kept apart: an event that carries several tokens makes ITL larger than TPOT', () => {
    // 9 tokens in 4 events after the first (speculative decoding: 2 tokens per event), 20 ms apart.
    const f = streamFigures({ sentAt: 0, tokenTimes: [50, 70, 90, 110, 130], endedAt: 131, completionTokens: 9 })
    expect(f.ttftMs).toBe(50)
    expect(f.itlMs).toBe(20)
    expect(f.tpotMs).toBe(10)
    expect(f.tokensPerSecond).toBe(100)
  })

  it('a record holds the figures, the load and the vLLM version; a smoke that measured nothing gives none', () => {
    const m = failing()
    const r = recordOf(m, 'r1', 1)
    expect(r).toMatchObject({ release: 'r1', vllmVersion: '0.24.0', load: { burstRequests: m.smoke.burst.requests } })
    expect(r.figures).toEqual({ ttftMs: 40, tpotMs: 6, itlMs: 8, decodeTokensPerSecond: 160, burstP50Ms: 120, burstP95Ms: 150, burstTokensPerSecond: 900 })
    expect(performanceRecord(m, 'r1', { findings: [], models: [], requests: [] })).toBeUndefined()
  })

  it('a stored record is validated as a document from outside', () => {
    const m = failing()
    const good = JSON.stringify(recordOf(m, 'r1', 1))
    expect(parsePerformanceRecord(good, 'x')).toMatchObject({ ok: true, value: { release: 'r1' } })
    for (const [text, says] of [
      ['not json', /not JSON/],
      ['{"schemaVersion":2}', /schema version 1/],
      ['{"schemaVersion":1,"release":"r1","measuredAt":"t"}', /load/],
      ['null', /schema version 1/],
    ] as const) {
      const r = parsePerformanceRecord(text, 'spark-a:/x/performance.json')
      expect(r.ok).toBe(false)
      if (!r.ok) expect(r.problem.message).toMatch(says)
    }
    // A figure that is not a number is dropped, not compared.
    const odd = parsePerformanceRecord(JSON.stringify({ ...recordOf(m, 'r1', 1), figures: { ttftMs: 'fast', tpotMs: 5 } }), 'x')
    expect(odd.ok && odd.value.figures).toEqual({ tpotMs: 5 })
  })

  it('twice as slow regresses every figure, rates included; the same figures and small noise do not', () => {
    const m = failing()
    const slow = comparePerformance(m, recordOf(m, 'r1', 1), recordOf(m, 'r2', 2))
    expect(slow.rows.every((r) => r.regressed)).toBe(true)
    expect(slow.rows.find((r) => r.name === 'burstTokensPerSecond')?.worseBy).toBeCloseTo(2)
    expect(slow.findings).toHaveLength(1)
    expect(slow.findings[0]).toMatchObject({ code: 'PERFORMANCE_REGRESSION', severity: 'error' })
    expect(slow.findings[0]!.evidence['time to first token']).toMatch(/40\.0 ms \(r1\) → 80\.0 ms \(r2\), 2\.00× worse/)
    expect(comparePerformance(m, recordOf(m, 'r1', 1), recordOf(m, 'r2', 1.2)).findings).toEqual([])
    // Faster is never a regression.
    expect(comparePerformance(m, recordOf(m, 'r1', 1), recordOf(m, 'r2', 0.5)).findings).toEqual([])
  })

  it('smoke.regression: warn (the default) gives a warning, off nothing; a lower maxSlowdown catches less', () => {
    expect(SmokeSchema.parse({}).regression).toEqual({ action: 'warn', maxSlowdown: 1.5 })
    const warn = withSmoke({ regression: { action: 'warn' } })
    expect(comparePerformance(warn, recordOf(warn, 'r1', 1), recordOf(warn, 'r2', 2)).findings[0]?.severity).toBe('warning')
    const off = withSmoke({ regression: { action: 'off' } })
    expect(comparePerformance(off, recordOf(off, 'r1', 1), recordOf(off, 'r2', 2)).findings).toEqual([])
    const tight = withSmoke({ regression: { action: 'fail', maxSlowdown: 1.1 } })
    expect(comparePerformance(tight, recordOf(tight, 'r1', 1), recordOf(tight, 'r2', 1.2)).findings).toHaveLength(1)
  })

  it('only the same load is compared: another first prompt or burst is said, not judged', () => {
    const m = failing()
    const other = withSmoke({ prompts: [{ prompt: 'Something else.' }] })
    const c = comparePerformance(m, recordOf(m, 'r1', 1), recordOf(other, 'r2', 3))
    expect(c.notCompared).toMatch(/first smoke prompt/)
    expect(c.findings).toEqual([])
    const burst = withSmoke({ burst: { requests: 4 } })
    expect(comparePerformance(m, recordOf(m, 'r1', 1), recordOf(burst, 'r2', 3)).notCompared).toMatch(/burst differs/)
  })

  it('times of a millisecond or two are not judged (jitter), rates are', () => {
    const m = failing()
    const tiny = (release: string, ms: number): PerformanceRecord => ({ ...recordOf(m, release, 1), figures: { tpotMs: ms } })
    expect(comparePerformance(m, tiny('r1', 0.4), tiny('r2', 1.5)).findings).toEqual([])
    expect(comparePerformance(m, tiny('r1', 3), tiny('r2', 9)).findings).toHaveLength(1)
  })
})

let sim: SimCluster
afterEach(() => sim?.cleanup())

/** A smoke gate that passes with the figures of a server `slow` times slower than the first, for the release it is given. */
const measuring =
  (slow: number, burst = true): SmokeGate =>
  async (input: SmokeGateInput) => ({
    ok: true,
    findings: [],
    text: 'smoke passed',
    outputs: { verdict: 'passed' },
    summary: '#### Smoke test',
    ...(input.release && { performance: performanceRecord(input.manifest, input.release, inference(slow, burst))! }),
  })

describe('the gate in a deploy (simulated cluster)', () => {
  it('a release twice as slow fails the smoke gate with both figures in the summary and is rolled back; an unchanged speed passes', async () => {
    sim = new SimCluster(failing())
    const first = await deployRelease(simRolloutOptions(sim, 'r1', { smoke: measuring(1) }))
    expect(first.result).toBe('deployed')
    expect(first.performance).toBeUndefined()
    const kept = await sim.sh('spark-a', `cat ${sim.stateDir('spark-a')}/releases/r1/performance.json`)
    expect(JSON.parse(kept.stdout)).toMatchObject({ release: 'r1', figures: { ttftMs: 40 } })

    const slower = await deployRelease(simRolloutOptions(sim, 'r2', { force: true, smoke: measuring(2) }))
    expect(slower.result).toBe('failed')
    expect(slower.failure?.stage).toBe('smoke')
    expect(slower.onFailure?.action).toBe('rollback')
    expect(slower.findings.map((f) => f.code)).toContain('PERFORMANCE_REGRESSION')
    const out = rolloutOutcome(sim.manifest.cluster, slower, sim.manifest)
    expect(out.exitCode).toBe(1)
    expect(out.summary).toMatch(/\| time to first token \| 40\.0 ms \| 80\.0 ms \| 2\.00× \| \*\*regressed\*\* \|/)
    expect(out.summary).toMatch(/\| figure \| r1 \| r2 \|/)

    // The same speed as the running release (r1 again current after the rollback) passes, and its table says ok.
    const same = await deployRelease(simRolloutOptions(sim, 'r3', { force: true, smoke: measuring(1) }))
    expect(same.result).toBe('deployed')
    expect(same.performance?.rows.length).toBeGreaterThan(4)
    expect(same.performance?.rows.every((r) => !r.regressed)).toBe(true)
    expect(rolloutOutcome(sim.manifest.cluster, same, sim.manifest).summary).toMatch(/\| time to first token \| 40\.0 ms \| 40\.0 ms \| 1\.00× \| ok \|/)
  })

  it('a running release that keeps no figures is not compared, and the deploy says so', async () => {
    sim = new SimCluster(failing())
    await deployRelease(simRolloutOptions(sim, 'r1'))
    const lines: string[] = []
    const r = await deployRelease(simRolloutOptions(sim, 'r2', { force: true, smoke: measuring(5), onProgress: (l) => lines.push(l) }))
    expect(r.result).toBe('deployed')
    expect(lines.join('\n')).toMatch(/release r1 keeps no figures/)
  })
})
