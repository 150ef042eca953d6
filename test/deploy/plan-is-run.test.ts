/**
 * One model of the rollout (issue 35): `plan` is rendered from the stage list that runs
 * (DEPLOY_STAGES, each stage's `plan` beside its `run`), so
 * - every command `plan` shows for a node is a command the deploy then runs on that node (a sim
 *   deploy of the same manifest and release, its commands recorded as the nodes' shells get them),
 *   (the plan names the image by its reference where the run names it by its ID, and the fabric
 *   test's port is picked on the head at run time);
 * - the plan's parts come in the order the stages run them;
 * - a stage changed in the list changes `plan` (planStages over a list with one stage's part altered).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { deployRelease, DEPLOY_STAGES } from '../../src/deploy/rollout.js'
import { planRollout, planStages } from '../../src/deploy/rollout-plan.js'
import type { RolloutStage } from '../../src/deploy/rollout-types.js'
import type { ListedStage } from '../../src/deploy/stages/stage.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { planRelease } from '../../src/plan/plan.js'
import { imageRef } from '../../src/plan/node-commands.js'
import { SimCluster, simManifest, simRolloutOptions } from './support/sim-cluster.js'

let sim: SimCluster | undefined
afterEach(() => sim?.cleanup())

/** Steps whose command carries what only the run knows (the lock holder's run and token; the audit line is stdin). */
const RUNTIME_VALUES = new Set(['lock', 'unlock'])

const manifests: [string, () => Manifest][] = [
  ['Ray, built-in launch', () => simManifest()],
  [
    'Ray, no fabric test, two releases kept',
    () =>
      simManifest((d) => {
        d.preflight = { ...(d.preflight as object), collective: false }
        d.deploy = { ...(d.deploy as object), releasesKept: 2 }
      }),
  ],
]

describe('plan = run', () => {
  it.each(manifests)('%s: every command plan shows for a node is one the deploy runs there', async (_, make) => {
    const m = make()
    sim = new SimCluster(m)
    const stages: RolloutStage[] = []
    const r = await deployRelease(simRolloutOptions(sim, 'r1', { force: true, onStage: (s, e) => e === 'start' && stages.push(s) }))
    expect(r.result, JSON.stringify(r.failure)).toBe('deployed')
    const plan = planRollout(m, { release: 'r1' })
    const parts = [...(plan.around?.before ?? []), ...plan.phases, ...(plan.around?.after ?? [])]
    const ran = (node: string) => new Set(sim!.log.filter((l) => l.node === node).map((l) => l.command))
    const asRun = (command: string) => command.split(m.image.ref).join(sim!.imageId).replace('"port":0,', '"port":40123,')
    const missing = parts.flatMap((p) =>
      p.steps
        .filter((s) => !RUNTIME_VALUES.has(s.action) && !ran(s.node).has(s.command) && !ran(s.node).has(asRun(s.command)))
        .map((s) => `${p.name}/${s.id}: ${s.command.slice(0, 300)}`),
    )
    expect(missing).toEqual([])
    // The parts in the order the stages ran (a stage labels its phases itself: ray-head, ray-workers, …).
    const order = parts.map((p) => p.name).filter((n) => stages.includes(n as RolloutStage))
    expect(order).toEqual(stages.filter((s) => order.includes(s)).filter((s, i, a) => a.indexOf(s) === i))
    expect(order.length).toBeGreaterThan(8)
  })

  it('a stage changed in the list changes the plan', () => {
    const m = simManifest()
    const release = planRelease(m, { release: 'r1', files: 'write' })
    const input = { m, image: imageRef(m), release }
    const before = planStages(DEPLOY_STAGES, input).map((p) => p.name)
    const prune = DEPLOY_STAGES.find((s) => s.name === 'prune')!
    const changed: ListedStage[] = DEPLOY_STAGES.map((s) =>
      s === prune ? { ...s, plan: () => [{ name: 'prune-twice', description: 'x', parallel: false, steps: [] }] } : s,
    )
    const after = planStages(changed, input).map((p) => p.name)
    expect(before).toContain('prune')
    expect(after).not.toContain('prune')
    expect(after).toContain('prune-twice')
    // A stage taken out of the list is gone from the plan too.
    expect(
      planStages(
        DEPLOY_STAGES.filter((s) => s !== prune),
        input,
      ).map((p) => p.name),
    ).not.toContain('prune')
  })
})
