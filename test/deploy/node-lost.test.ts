/**
 * A node lost mid-rollout (issue 33): whichever stage it is lost in, the rollout stops there naming
 * the node as unreachable (NODE_UNREACHABLE), never with what the stage concluded from the missing
 * answer (an image "missing", a step "failed"); an on-failure rollback that cannot reach it says the
 * same; and once the node is back, a plain `rollback` brings back the release `current` names when
 * that release is not running everywhere (a deploy stopped it and could not bring it back), and the
 * one before it when it is.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { deployRelease, rollbackRelease } from '../../src/deploy/rollout.js'
import type { RolloutReport, RolloutStage } from '../../src/deploy/rollout-types.js'
import { SimCluster, simManifest, simRolloutOptions } from './support/sim-cluster.js'

let sim: SimCluster
afterEach(() => sim?.cleanup())

const current = async (node: string) => (await sim.sh(node, `readlink ${sim.stateDir(node)}/current || true`)).stdout.trim().replace(/^releases\//, '')

async function twoReleases(): Promise<void> {
  sim = new SimCluster(simManifest())
  for (const r of ['r0', 'r1']) expect((await deployRelease(simRolloutOptions(sim, r, { force: true }))).result).toBe('deployed')
}

/** Deploy r2 and lose spark-b when `at` starts. */
async function deployLosingWorkerAt(at: RolloutStage): Promise<RolloutReport> {
  return deployRelease(simRolloutOptions(sim, 'r2', { force: true, onStage: (s, e) => e === 'start' && s === at && sim.unreachable.add('spark-b') }))
}

/** Every stage a deploy of r2 runs in which spark-b gets a command (the stages a lost node can stop). */
async function stagesTouchingTheWorker(): Promise<RolloutStage[]> {
  await twoReleases()
  const seen: { stage: RolloutStage; from: number }[] = []
  const r = await deployRelease(
    simRolloutOptions(sim, 'r2', { force: true, onStage: (s, e) => e === 'start' && seen.push({ stage: s, from: sim.log.length }) }),
  )
  expect(r.result).toBe('deployed')
  const touched = seen.filter((s, i) => sim.log.slice(s.from, seen[i + 1]?.from).some((l) => l.node === 'spark-b')).map((s) => s.stage)
  sim.cleanup()
  return [...new Set(touched)]
}

const stages = await stagesTouchingTheWorker()

describe('a worker lost mid-deploy', () => {
  it('is tried in the stages a deploy runs on it (sanity)', () => {
    expect(stages).toEqual(expect.arrayContaining(['state', 'image', 'release-files', 'stop-previous', 'activate']))
  })

  it.each(stages.filter((s) => !['prune', 'audit', 'report'].includes(s)))(
    'lost at %s: the stop names spark-b unreachable, and no finding about spark-b but that',
    async (at) => {
      await twoReleases()
      const r = await deployLosingWorkerAt(at)
      expect(r.result, at).not.toBe('deployed')
      expect(r.failure?.reason).toMatch(/^spark-b could not be reached during [a-z-]+: spark-b: Not connected to server/)
      const aboutB = r.findings.filter((f) => f.node === 'spark-b' && !f.message.startsWith('(rollback'))
      expect(aboutB.map((f) => f.code)).toEqual(['NODE_UNREACHABLE'])
      expect(aboutB[0]!.message).toMatch(/^the connection to spark-b went away during [a-z-]+ \(Not connected to server\); the deploy of r2 stopped there\.$/)
      // An on-failure rollback that could not reach it either says so, not something about images or files.
      if (r.onFailure?.action === 'rollback') expect(r.onFailure.detail).toMatch(/^rollback to r1 failed: [a-z-]+: spark-b could not be reached during /)
    },
  )

  it('lost once stop-previous began: the rollback to r1 cannot reach it; once back, a plain rollback starts r1 again, not r0', async () => {
    await twoReleases()
    const r = await deployLosingWorkerAt('stop-previous')
    expect(r.onFailure).toMatchObject({ action: 'rollback', ok: false, release: 'r1' })
    expect([await current('spark-a'), await current('spark-b')]).toEqual(['r1', 'r1'])
    // spark-a's r1 was stopped (spark-b's was not: it could not be reached).
    expect(sim.node('spark-a').container).toBeUndefined()
    sim.unreachable.delete('spark-b')
    const progress: string[] = []
    const back = await rollbackRelease({ ...simRolloutOptions(sim, 'x'), onProgress: (m) => progress.push(m) })
    expect(back).toMatchObject({ result: 'rolled-back', release: 'r1' })
    expect(progress.join('\n')).toMatch(/current names r1, which is not running on spark-a \(no container\): the rollback starts r1 again/)
    expect([await current('spark-a'), await current('spark-b')]).toEqual(['r1', 'r1'])
  })

  it('lost before anything stopped (image): r1 still runs, so a plain rollback goes to the release before it', async () => {
    await twoReleases()
    const r = await deployLosingWorkerAt('image')
    expect(r).toMatchObject({ result: 'failed', changed: false, failure: { stage: 'image' } })
    sim.unreachable.delete('spark-b')
    expect(await rollbackRelease(simRolloutOptions(sim, 'x'))).toMatchObject({ result: 'rolled-back', release: 'r0' })
  })

  it('lost at activate: the report says r2 runs but current did not move everywhere, and what to do', async () => {
    await twoReleases()
    const r = await deployLosingWorkerAt('activate')
    expect(r.failure?.stage).toBe('activate')
    expect([await current('spark-a'), await current('spark-b')]).toEqual(['r2', 'r1'])
    expect(r.findings.find((f) => f.code === 'NODE_UNREACHABLE')?.fix).toMatch(
      /r2 passed its gates and runs, but current did not move on every node\. Then deploy r2 again .* or roll back to r1\./,
    )
  })
})
