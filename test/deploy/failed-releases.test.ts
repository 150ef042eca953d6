/**
 * Only releases that passed their gates count toward deploy.releasesKept (issue 34): a deploy that
 * wrote its release and then failed marks it; prune keeps releasesKept passed releases and only the
 * newest failed one; a rollback with nowhere to go marks the failed and current ids it lists; a
 * release that passes later (deployed again) loses its mark.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { deployRelease, rollbackRelease } from '../../src/deploy/rollout.js'
import type { SmokeGate } from '../../src/deploy/smoke-seam.js'
import { PASSING_SMOKE, SimCluster, simManifest, simRolloutOptions } from './support/sim-cluster.js'

let sim: SimCluster | undefined
afterEach(() => sim?.cleanup())

const failing: SmokeGate = async () => ({ ok: false, findings: [], text: 'smoke failed', outputs: { verdict: 'failed' }, summary: '' })
const releases = async (s: SimCluster, node = 'spark-a') =>
  (await s.sh(node, `ls ${s.stateDir(node)}/releases`)).stdout.trim().split('\n').filter(Boolean).sort()
const marked = async (s: SimCluster, release: string) =>
  (await s.sh('spark-b', `test -e ${s.stateDir('spark-b')}/releases/${release}/.failed && echo yes || echo no`)).stdout.trim()

describe('failed releases and deploy.releasesKept', () => {
  it('prune keeps releasesKept passed releases and the newest failed one; the failed are marked on every node', async () => {
    const s = new SimCluster(simManifest((doc) => ((doc.deploy as Record<string, unknown>).releasesKept = 2)))
    sim = s
    const deploy = async (release: string, ok: boolean) => {
      const r = await deployRelease(simRolloutOptions(s, release, { force: true, ...(ok ? {} : { smoke: failing }) }))
      expect(r.result, JSON.stringify(r.failure)).toBe(ok ? 'deployed' : 'failed')
    }
    await deploy('r1', true)
    await deploy('r2', false)
    await deploy('r3', false)
    expect([await marked(s, 'r2'), await marked(s, 'r3')]).toEqual(['yes', 'yes'])
    await deploy('r4', true)
    // Passed: r4 (current) and r1 (previous) are the two kept; of the failed, only r3, the newest.
    for (const node of ['spark-a', 'spark-b']) expect(await releases(s, node)).toEqual(['r1', 'r3', 'r4'])
    await deploy('r5', true)
    // r5 current, r4 previous: releasesKept 2 reached; r1 goes, the newest failed r3 stays.
    expect(await releases(s)).toEqual(['r3', 'r4', 'r5'])
    // A failed release deployed again that passes loses its mark.
    await deploy('r3', true)
    expect(await marked(s, 'r3')).toBe('no')
  })

  it('a rollback with nowhere to go lists the releases there with current and failed marked', async () => {
    const s = new SimCluster(simManifest())
    sim = s
    expect((await deployRelease(simRolloutOptions(s, 'r1', { force: true }))).result).toBe('deployed')
    // r2 fails and on-failure starts r1 again: r1 runs, r2 is marked failed, and r1 has no release before it.
    let smokes = 0
    const failingOnce: SmokeGate = async (i) => (smokes++ === 0 ? failing(i) : PASSING_SMOKE(i))
    const d = await deployRelease(simRolloutOptions(s, 'r2', { force: true, smoke: failingOnce, onFailure: 'rollback' }))
    expect(d).toMatchObject({ result: 'failed', rolledBack: true })
    const r = await rollbackRelease({ ...simRolloutOptions(s, 'x') })
    expect(r.result).toBe('failed')
    expect(r.failure?.reason).toMatch(/releases there: (r2 \(failed\), r1 \(current\)|r1 \(current\), r2 \(failed\))/)
  })

  it('after a failed deploy stopped its containers with nothing to roll back to, a plain rollback starts current again', async () => {
    const s = new SimCluster(simManifest())
    sim = s
    expect((await deployRelease(simRolloutOptions(s, 'r1', { force: true }))).result).toBe('deployed')
    // No earlier release to roll back to: on-failure stops the new containers, and nothing runs.
    expect((await deployRelease(simRolloutOptions(s, 'r2', { force: true, smoke: failing, onFailure: 'stop' }))).result).toBe('failed')
    expect(s.node('spark-a').container).toBeUndefined()
    expect(await rollbackRelease({ ...simRolloutOptions(s, 'x') })).toMatchObject({ result: 'rolled-back', release: 'r1' })
    expect(s.node('spark-a').container).toMatchObject({ running: true, release: 'r1' })
  })
})
