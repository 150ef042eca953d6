/**
 * The rollout: one release brought onto every node through an ordered list of stages, each of which
 * may stop it with a Problem (src/deploy/stages/):
 *
 *   script check → lock → node state + host checks → image → image contents → weights → fingerprint → fabric test → fit → release files →
 *   stop previous → launch (Ray head, workers) → cluster wait → preflight gate → vllm serve →
 *   smoke gate → activate `current` → prune; then audit and unlock, whatever happened.
 *
 * A failed deploy does what on-failure says, once, for every stage (stages/runner.ts): `rollback`
 * runs the same start-up stages from the release `current` still names, from its own files on the
 * nodes; `stop` removes the new containers; `keep` leaves them. `current` moves only after every
 * gate of the new release passed. `rollback` runs the same list from an existing release.
 */
import type { StepResult } from '../execute/execute.js'
import type { Manifest } from '../manifest/schema.js'
import { activateStage, pruneStage } from './stages/after.js'
import { inputsStage, lockStage, rollbackTargetStage, scriptCheckStage, stateStage } from './stages/before.js'
import { type ListedStage, RolloutIo, StageList, type StartKey, newContext } from './stages/stage.js'
import { preflightStage, smokeStage } from './stages/gates.js'
import { fingerprintStage, imageStage, imageStageWithoutFacts, snapshotStage } from './stages/image.js'
import { imageContentsStage } from './stages/image-contents-stage.js'
import { rollbackWeightsStage, weightsStage } from './stages/weights.js'
import { withModel } from './weights/weights-plan.js'
import { fabricTestStage } from './stages/fabric-test.js'
import { fitStage } from './stages/fit-stage.js'
import { runList, runRollout } from './stages/runner.js'
import { clusterWaitStage, launchStage, releaseFilesStage, serveStage, stopPreviousStage } from './stages/start.js'
import type { RolloutOptions, RolloutReport, RolloutStage } from './rollout-types.js'

export type { NodeRow, OnFailure, RolloutOptions, RolloutReport, RolloutResult, RolloutStage } from './rollout-types.js'
export { ON_FAILURE } from './rollout-types.js'

/**
 * From the release's files to a release that serves and passed its gates: after a new release's
 * fingerprint (which makes its files) or an existing release's snapshot (whose files are verified).
 */
const START = StageList.startingWith<StartKey | 'releaseFilesFor' | 'previousRelease' | 'hostFacts'>()
  .add(releaseFilesStage)
  .add(stopPreviousStage)
  .add(launchStage)
  .add(clusterWaitStage)
  .add(preflightStage)
  .add(serveStage)
  .add(smokeStage)

/** A new release from this machine's manifest, in order. */
const DEPLOY_LIST = StageList.startingWith<StartKey | 'expectImageId'>()
  .add(inputsStage)
  .add(scriptCheckStage)
  .add(lockStage)
  .add(stateStage)
  .add(imageStage)
  .add(imageContentsStage)
  .add(weightsStage)
  .add(fingerprintStage)
  .add(fabricTestStage)
  .add(fitStage)
  .concat(START)
  .add(activateStage)
  .add(pruneStage)

export const DEPLOY_STAGES: readonly ListedStage[] = DEPLOY_LIST.stages

/**
 * An existing release, from its own files on the nodes (a rollback, or on-failure rollback): its
 * image, then its weights checked against its weights.json (a hub download runs in its image),
 * both before anything stops. It starts from the node states the rollout read.
 */
const EXISTING_LIST = StageList.startingWith<StartKey | 'states' | 'previousRelease' | 'hostFacts'>()
  .add(snapshotStage)
  .add(imageStage)
  .add(rollbackWeightsStage)
  .concat(START)
  .add(activateStage)

export const EXISTING_STAGES: readonly ListedStage[] = EXISTING_LIST.stages

export async function deployRelease(o: RolloutOptions): Promise<RolloutReport> {
  const m: Manifest = withModel(o.image ? { ...o.manifest, image: { ...o.manifest.image, ref: o.image } } : o.manifest)
  const ctx = newContext(new RolloutIo(o), 'deploy', 'new', { m, release: o.release, unchanged: false, expectImageId: undefined })
  return runRollout({ ctx, stages: DEPLOY_STAGES, onFailure: o.onFailure ?? m.deploy.onFailure, existing: EXISTING_STAGES })
}

/**
 * A release started through the deploy's own stages until every node is in Ray, with no lock, no
 * gates and `current` untouched: the lab's scenarios, which then look at what the launch did.
 * Nothing runs before it, so the fingerprint reads no node state and no weights.
 */
const UNTIL_RAY_LIST = StageList.startingWith<
  StartKey | 'expectImageId' | 'states' | 'current' | 'previousRelease' | 'weights' | 'weightsManifest' | 'imageContents'
>()
  .add(imageStageWithoutFacts)
  .add(fingerprintStage)
  .add(releaseFilesStage)
  .add(stopPreviousStage)
  .add(launchStage)
  .add(clusterWaitStage)

/** What startUntilRay did: the plan steps it ran, and the stage (or phase of the launch) it stopped at. */
export interface StartedUntilRay {
  readonly ok: boolean
  readonly results: readonly StepResult[]
  readonly stoppedAt?: { readonly stage: RolloutStage; readonly reason: string }
  readonly durationMs: number
  readonly cancelled?: boolean
}

export async function startUntilRay(o: RolloutOptions): Promise<StartedUntilRay> {
  const started = Date.now()
  const ctx = newContext(new RolloutIo({ ...o, force: true }), 'deploy', 'new', {
    m: o.manifest,
    release: o.release,
    unchanged: false,
    expectImageId: undefined,
    states: new Map(),
    current: undefined,
    previousRelease: undefined,
    weights: undefined,
    weightsManifest: undefined,
    imageContents: undefined,
  })
  const run = await runList(UNTIL_RAY_LIST.stages, ctx)
  const stopped = run.stopped
  return {
    ok: !stopped,
    results: ctx.executed,
    ...(stopped && { stoppedAt: { stage: stopped.stage, reason: stopped.outcome.problem.message } }),
    durationMs: Date.now() - started,
    ...(stopped?.outcome.cancelled && { cancelled: true }),
  }
}

/** `rollback [--to RELEASE]`: start an earlier release from its own files on the nodes and make it current. */
export async function rollbackRelease(o: Omit<RolloutOptions, 'release' | 'force'> & { readonly to?: string }): Promise<RolloutReport> {
  const opts: RolloutOptions = { ...o, release: o.to ?? 'previous' }
  const ctx = newContext(new RolloutIo(opts), 'rollback', 'existing', { m: o.manifest, release: o.to ?? '-', unchanged: false })
  const stages = StageList.startingWith<StartKey>().add(lockStage).add(stateStage).add(rollbackTargetStage(o.to)).concat(EXISTING_LIST)
  return runRollout({ ctx, stages: stages.stages, onFailure: 'none', existing: EXISTING_STAGES })
}
