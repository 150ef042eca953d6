/**
 * The summary is derived, never written (issue 34): every stage of a real deploy of the sim fails in
 * turn (each command it runs fails), and a rollback's stages too; each time every claim the text
 * report, the job summary and the outputs make about what happened is held to the run's record, the
 * commands the nodes ran: containers said to be stopped were removed after the failure, a rollback
 * said to have happened activated the earlier release, `changed` is true exactly when a command that
 * stops or starts containers ran, and the counts are those of the findings shown.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { render } from '../../src/command/shell.js'
import { deployRelease, rollbackRelease } from '../../src/deploy/rollout.js'
import type { RolloutReport, RolloutStage } from '../../src/deploy/rollout-types.js'
import { removeContainer } from '../../src/plan/node-commands.js'
import { activateRelease } from '../../src/plan/release-commands.js'
import { rolloutOutcome } from '../../src/tasks/deploy-task.js'
import type { TaskOutcome } from '../../src/tasks/outcome.js'
import { SimCluster, simManifest, simRolloutOptions } from './support/sim-cluster.js'

let sim: SimCluster | undefined
afterEach(() => sim?.cleanup())

/** A deploy of r1, then the stages a forced deploy of r2 runs. */
async function stagesOfADeploy(): Promise<RolloutStage[]> {
  const s = new SimCluster(simManifest())
  expect((await deployRelease(simRolloutOptions(s, 'r1', { force: true }))).result).toBe('deployed')
  const seen: RolloutStage[] = []
  const r = await deployRelease(simRolloutOptions(s, 'r2', { force: true, onStage: (st, e) => e === 'start' && seen.push(st) }))
  expect(r.result).toBe('deployed')
  s.cleanup()
  return seen
}
const stages = await stagesOfADeploy()

/** Every command of `stage` fails, from its start until the next stage starts. */
function failStage(s: SimCluster, stage: RolloutStage) {
  const fault = { when: /./, times: Number.MAX_SAFE_INTEGER }
  let failedUntil: number | undefined
  let on = false
  return {
    onStage: (st: RolloutStage, e: 'start' | 'end') => {
      if (e !== 'start') return
      if (st === stage && !on && failedUntil === undefined) {
        on = true
        s.fail(fault)
      } else if (on && st !== stage) {
        on = false
        fault.times = 0
        failedUntil = s.log.length
      }
    },
    /** Where the log was when the failing stage ended (what on-failure and the report did comes after). */
    after: () => failedUntil ?? s.log.length,
  }
}

const STOP = render(removeContainer('vllm-ray'))
const claims = (o: TaskOutcome) => [o.text, o.summary, o.headline].join('\n')

function holdToRecord(s: SimCluster, r: RolloutReport, o: TaskOutcome, failedAt: number, before: number): void {
  const ranAfter = s.log.slice(failedAt).map((l) => l.command)
  const ranDuring = s.log.slice(before, failedAt).map((l) => l.command)
  const said = claims(o)
  // "stopped the (new) containers" only where the containers were removed after the failure, on every node.
  if (/stopped the (new )?containers|stopped the containers of/.test(said))
    for (const n of ['spark-a', 'spark-b'])
      expect(
        s.log.slice(failedAt).some((l) => l.node === n && l.command.includes(STOP)),
        `${n}: ${said}`,
      ).toBe(true)
  // A rollback claimed: r1 was activated again after the failure; and the outputs say the same.
  if (r.rolledBack) expect(ranAfter.some((c) => c.includes(render(activateRelease(s.manifest, 'r1'))))).toBe(true)
  expect(o.outputs['rolled-back']).toBe(String(r.rolledBack))
  if (!r.rolledBack) expect(said).not.toMatch(/\brolled back: release/)
  // changed: exactly when the rollout (its on-failure included) ran a command that stops or starts containers and did not fail.
  const touched = s.log.slice(before).some((l) => (l.command.includes(STOP) || /start\.sh/.test(l.command)) && !l.faulted)
  expect(r.changed, `changed vs the record: ${ranDuring.filter((c) => c.includes(STOP) || /start\.sh/.test(c)).join(' | ')}`).toBe(touched)
  expect(o.outputs.changed).toBe(String(r.changed))
  // The counts are the findings shown (a failure that is no finding counts as one error).
  const errors = r.findings.filter((f) => f.severity === 'error').length
  expect(o.outputs['error-count']).toBe(String(r.result === 'failed' && errors === 0 ? 1 : errors))
  expect(o.outputs['warning-count']).toBe(String(r.findings.filter((f) => f.severity === 'warning').length))
}

describe('every stage of a deploy fails in turn: each summary sentence and output holds to the record', () => {
  for (const stage of stages.slice(0, stages.indexOf('activate')))
    it(`${stage} fails`, async () => {
      const s = new SimCluster(simManifest())
      sim = s
      expect((await deployRelease(simRolloutOptions(s, 'r1', { force: true }))).result).toBe('deployed')
      const before = s.log.length
      const f = failStage(s, stage)
      const r = await deployRelease(simRolloutOptions(s, 'r2', { force: true, onStage: f.onStage }))
      const o = rolloutOutcome('lab', r, s.manifest)
      if (r.result !== 'failed') return // a stage that tolerates a failed command (nothing to hold)
      holdToRecord(s, r, o, f.after(), before)
    })
})

describe("a rollback's stages fail in turn", () => {
  for (const stage of ['image', 'ray-head', 'vllm'] as const)
    it(`${stage} fails during a rollback`, async () => {
      const s = new SimCluster(simManifest())
      sim = s
      for (const rel of ['r1', 'r2']) expect((await deployRelease(simRolloutOptions(s, rel, { force: true }))).result).toBe('deployed')
      const before = s.log.length
      const f = failStage(s, stage)
      const r = await rollbackRelease({ ...simRolloutOptions(s, 'x', { onStage: f.onStage }), to: 'r1' })
      const o = rolloutOutcome('lab', r, s.manifest)
      expect(r.result).toBe('failed')
      expect(r.rolledBack).toBe(false)
      holdToRecord(s, r, o, f.after(), before)
    })
})
