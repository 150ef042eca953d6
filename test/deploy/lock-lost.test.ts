/**
 * The lock holds or the rollout stops (issue 33): a deploy whose lock is taken over while it runs
 * (another rollout forced it) stops at the next stage boundary with DEPLOY_LOCK_LOST, before
 * activate, and runs no on-failure action on nodes that may be the other rollout's now.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { deployRelease } from '../../src/deploy/rollout.js'
import type { SmokeGate } from '../../src/deploy/smoke-seam.js'
import { render } from '../../src/command/shell.js'
import { acquireDeployLock, releaseDeployLock } from '../../src/deploy/deploy-lock.js'
import { activateRelease } from '../../src/plan/release-commands.js'
import { PASSING_SMOKE, SimCluster, simManifest, simRolloutOptions } from './support/sim-cluster.js'

let sim: SimCluster | undefined
afterEach(() => sim?.cleanup())

describe('a deploy whose lock is taken over while it runs', () => {
  it('stops before the next stage with DEPLOY_LOCK_LOST: no activate, no on-failure, the other holder keeps the lock', async () => {
    const s = new SimCluster(simManifest())
    sim = s
    const r1 = await deployRelease(simRolloutOptions(s, 'r1', { force: true }))
    expect(r1.result).toBe('deployed')
    const logBefore = s.log.length
    let sawLost: () => void = () => {}
    const lost = new Promise<void>((resolve) => (sawLost = resolve))
    const progress: string[] = []
    // Inside the smoke gate another rollout forces the lock and takes it; the gate passes once this one's heartbeat has seen that.
    const smoke: SmokeGate = async (i) => {
      const head = s.transports().get('spark-a')!
      expect(await releaseDeployLock(head, s.manifest)).toMatchObject({ released: true })
      expect(await acquireDeployLock(head, s.manifest, { who: 'intruder', release: 'x' })).toMatchObject({ ok: true })
      await lost
      return PASSING_SMOKE(i)
    }
    const r = await deployRelease(
      simRolloutOptions(s, 'r2', {
        force: true,
        smoke,
        lockRenewEveryMs: 20,
        onProgress: (m) => {
          progress.push(m)
          if (/deploy lock .* was lost/.test(m)) sawLost()
        },
      }),
    )
    expect(r.result).toBe('failed')
    expect(r.failure?.stage).toBe('activate')
    // The beat may look between the other rollout's removal and its taking: either is a loss.
    expect(r.failure?.reason, r.failure?.reason).toMatch(/was lost: (now held by intruder \(release x\) since .*|no longer held) \(stopped before activate\)$/)
    expect(r.findings.find((f) => f.code === 'DEPLOY_LOCK_LOST')).toMatchObject({ severity: 'error', node: 'spark-a' })
    expect(r.rolledBack).toBe(false)
    expect(r.onFailure).toMatchObject({ action: 'none', ok: false })
    expect(r.onFailure?.detail).toMatch(/no on-failure action ran .*; the containers of r2 it had started were left as they are; current still names r1$/)
    const after = s.log.slice(logBefore).map((l) => l.command)
    expect(after.filter((c) => c.includes(render(activateRelease(s.manifest, 'r2'))))).toEqual([])
    // The intruder's lock is still there: a release by token removes only its own.
    expect((await s.sh('spark-a', `cat ${s.stateDir('spark-a')}/deploy.lock/holder.json`)).stdout).toContain('intruder')
  })
})
