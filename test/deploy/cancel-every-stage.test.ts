/**
 * A cancel is a cancel in every stage (issue 33): the cancel arrives at the start of each stage the
 * deploy runs (inside it: the stage has begun its work) and at its end (the boundary before the
 * next), for a deploy and for a rollback on demand. Each time: result `cancelled` (the task's exit
 * 130), no activate, no prune, no on-failure rollback, the lock released, and the new release's
 * containers stopped when a stage that starts them had run. `current` still names r1 on every node.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { deployRelease, rollbackRelease } from '../../src/deploy/rollout.js'
import type { RolloutOptions, RolloutReport, RolloutStage } from '../../src/deploy/rollout-types.js'
import { rolloutOutcome } from '../../src/tasks/deploy-task.js'
import type { SmokeGate } from '../../src/deploy/smoke-seam.js'
import { render } from '../../src/command/shell.js'
import { activateRelease, pruneReleases } from '../../src/plan/release-commands.js'
import { PASSING_SMOKE, SimCluster, simManifest, simRolloutOptions } from './support/sim-cluster.js'

let sim: SimCluster
afterEach(() => sim?.cleanup())

const current = async (s: SimCluster, node: string) =>
  (await s.sh(node, `readlink ${s.stateDir(node)}/current || true`)).stdout.trim().replace(/^releases\//, '')
const lockHeld = async (s: SimCluster) => (await s.sh('spark-a', `test -d ${s.stateDir('spark-a')}/deploy.lock && echo held || echo free`)).stdout.trim()

/** A smoke gate that holds until the cancel, like the real one waiting for /health. */
const waitingSmoke: SmokeGate = (i) =>
  new Promise((resolve) => {
    const done = () => resolve({ ok: false, findings: [], text: 'cancelled', outputs: {}, summary: '', cancelled: true })
    if (i.signal?.aborted) return done()
    i.signal?.addEventListener('abort', done, { once: true })
    // Without a signal the gate would pass: a stage that does not pass the signal on shows as a deploy.
    if (!i.signal) resolve({ ok: true, findings: [], text: 'passed', outputs: {}, summary: '' })
  })

let logBefore = 0
async function setUp(): Promise<void> {
  sim = new SimCluster(simManifest())
  const r = await deployRelease(simRolloutOptions(sim, 'r1', { force: true }))
  expect(r.result, JSON.stringify(r.failure)).toBe('deployed')
  // Sanity for the assertions below: the deploy of r1 did activate and prune, and they are found.
  const cmds = sim.log.map((l) => l.command)
  expect(cmds.some((c) => c.includes(render(activateRelease(sim.manifest, 'r1'))))).toBe(true)
  expect(cmds.some((c) => c.includes(render(pruneReleases(sim.manifest))))).toBe(true)
  logBefore = sim.log.length
}

/** The stages a forced deploy of r2 runs, in order, as onStage announces them. */
async function stagesOfADeploy(): Promise<RolloutStage[]> {
  await setUp()
  const seen: RolloutStage[] = []
  const r = await deployRelease(simRolloutOptions(sim, 'r2', { force: true, onStage: (s, e) => e === 'start' && seen.push(s) }))
  expect(r.result).toBe('deployed')
  sim.cleanup()
  return seen
}

async function expectCancelled(r: RolloutReport, release: string): Promise<void> {
  expect(r.result, JSON.stringify(r.failure)).toBe('cancelled')
  expect(rolloutOutcome('cluster.yml', r).exitCode).toBe(130)
  expect(r.rolledBack).toBe(false)
  expect(r.onFailure?.action ?? 'none').not.toBe('rollback')
  expect([await current(sim, 'spark-a'), await current(sim, 'spark-b')]).toEqual(['r1', 'r1'])
  expect(await lockHeld(sim)).toBe('free')
  const after = sim.log.slice(logBefore).map((l) => l.command)
  expect(after.filter((c) => c.includes(render(activateRelease(sim.manifest, release))))).toEqual([])
  expect(after.filter((c) => c.includes(render(pruneReleases(sim.manifest))))).toEqual([])
  if (r.changed) {
    // What the rollout started is stopped: the last container command on every node removes it.
    for (const n of ['spark-a', 'spark-b']) expect(sim.ran(n, /docker rm -f/).length).toBeGreaterThan(0)
    expect(r.onFailure).toMatchObject({ action: 'stop', ok: true })
    expect(r.onFailure?.detail).toMatch(/^cancelled at .*: stopped the containers of r2 it had started; current still names r1$/)
  } else
    expect(r.onFailure?.detail).toMatch(
      /^cancelled at .*: nothing was changed on the nodes; (current still names r1|current was not read \(the lock was not taken\); it was not touched)$/,
    )
}

// The stages come from a real deploy of the sim, so a stage added to the rollout is tried here too.
const stages = await stagesOfADeploy()

describe('a cancel at every stage of a deploy', () => {
  it('the deploy runs the stages this test cancels in', () => {
    expect(stages).toEqual(expect.arrayContaining(['lock', 'image', 'release-files', 'stop-previous', 'preflight', 'smoke', 'activate', 'prune']))
  })
  // Every stage before activate (audit and report run after the rollout ended, whatever happened).
  for (const at of stages.slice(0, stages.indexOf('activate')))
    for (const event of ['start', 'end'] as const)
      it(`cancelled at the ${event} of ${at}: no activate, no prune, no rollback, lock free, exit 130`, async () => {
        await setUp()
        const cancel = new AbortController()
        const opts: RolloutOptions = simRolloutOptions(sim, 'r2', {
          force: true,
          signal: cancel.signal,
          // Inside the smoke: the gate waits until the cancel reaches it.
          smoke: at === 'smoke' && event === 'start' ? waitingSmoke : PASSING_SMOKE,
          onStage: (s, e) => s === at && e === event && cancel.abort(),
        })
        const r = await deployRelease(opts)
        await expectCancelled(r, 'r2')
        expect(r.failure?.stage).toBeDefined()
      })
})

describe('a cancel during a rollback on demand', () => {
  // ray-head: the launch stage announces its phases by name (launchLabels), not as 'launch'.
  for (const at of ['image', 'ray-head', 'smoke'] as const)
    it(`cancelled inside ${at}: current stays, nothing activated`, async () => {
      await setUp()
      const r2 = await deployRelease(simRolloutOptions(sim, 'r2', { force: true }))
      expect(r2.result).toBe('deployed')
      logBefore = sim.log.length
      const cancel = new AbortController()
      const r = await rollbackRelease({
        ...simRolloutOptions(sim, 'x', {
          signal: cancel.signal,
          smoke: at === 'smoke' ? waitingSmoke : PASSING_SMOKE,
          onStage: (s, e) => s === at && e === 'start' && cancel.abort(),
        }),
        to: 'r1',
      })
      expect(r.result, JSON.stringify(r.failure)).toBe('cancelled')
      expect(rolloutOutcome('cluster.yml', r).exitCode).toBe(130)
      expect([await current(sim, 'spark-a'), await current(sim, 'spark-b')]).toEqual(['r2', 'r2'])
      expect(await lockHeld(sim)).toBe('free')
      expect(sim.log.slice(logBefore).filter((l) => l.command.includes(render(activateRelease(sim.manifest, 'r1'))))).toEqual([])
    })
})
