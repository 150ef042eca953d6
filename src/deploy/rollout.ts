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
import type { ExecuteResult } from '../execute/execute.js'
import type { Manifest } from '../manifest/schema.js'
import { PHASE_NAMES, type PhaseName } from '../plan/plan.js'
import { activateStage, pruneStage } from './stages/after.js'
import { inputsStage, lockStage, rollbackTargetStage, scriptCheckStage, stateStage } from './stages/before.js'
import { RolloutIo, type Stage, newContext } from './stages/context.js'
import { preflightStage, smokeStage } from './stages/gates.js'
import { fingerprintStage, imageStage, snapshotStage } from './stages/image.js'
import { imageContentsStage } from './stages/image-contents.js'
import { rollbackWeightsStage, weightsStage } from './stages/weights.js'
import { withModel } from './weights/plan.js'
import { fabricTestStage } from './stages/fabric-test.js'
import { fitStage } from './stages/fit.js'
import { runList, runRollout } from './stages/runner.js'
import { clusterWaitStage, launchStage, releaseFilesStage, serveStage, stopPreviousStage } from './stages/start.js'
import type { RolloutOptions, RolloutReport } from './rollout-types.js'

export type { NodeRow, OnFailure, RolloutOptions, RolloutReport, RolloutResult, RolloutStage } from './rollout-types.js'
export { ON_FAILURE } from './rollout-types.js'

/** From the release's files to a release that serves and passed its gates. */
const START: readonly Stage[] = [releaseFilesStage, stopPreviousStage, launchStage, clusterWaitStage, preflightStage, serveStage, smokeStage]

/** A new release from this machine's manifest, in order. */
export const DEPLOY_STAGES: readonly Stage[] = [
  inputsStage,
  scriptCheckStage,
  lockStage,
  stateStage,
  imageStage,
  imageContentsStage,
  weightsStage,
  fingerprintStage,
  fabricTestStage,
  fitStage,
  ...START,
  activateStage,
  pruneStage,
]

/**
 * An existing release, from its own files on the nodes (a rollback, or on-failure rollback): its
 * image, then its weights checked against its weights.json (a hub download runs in its image),
 * both before anything stops.
 */
export const EXISTING_STAGES: readonly Stage[] = [snapshotStage, imageStage, rollbackWeightsStage, ...START, activateStage]

export async function deployRelease(o: RolloutOptions): Promise<RolloutReport> {
  const m: Manifest = withModel(o.image ? { ...o.manifest, image: { ...o.manifest.image, ref: o.image } } : o.manifest)
  const ctx = newContext(new RolloutIo(o), 'deploy', 'new', m, o.release)
  return runRollout({ ctx, stages: DEPLOY_STAGES, onFailure: o.onFailure ?? m.deploy.onFailure, existing: EXISTING_STAGES })
}

/**
 * A release started through the deploy's own stages until every node is in Ray, with no lock, no
 * gates and `current` untouched: the lab's scenarios, which then look at what the launch did.
 */
export const UNTIL_RAY_STAGES: readonly Stage[] = [imageStage, fingerprintStage, releaseFilesStage, stopPreviousStage, launchStage, clusterWaitStage]

export async function startUntilRay(o: RolloutOptions): Promise<ExecuteResult> {
  const started = Date.now()
  const ctx = newContext(new RolloutIo({ ...o, force: true }), 'deploy', 'new', o.manifest, o.release)
  const run = await runList(UNTIL_RAY_STAGES, ctx)
  const stopped = run.stopped
  const phase = (PHASE_NAMES as readonly string[]).includes(stopped?.stage ?? '') ? (stopped!.stage as PhaseName) : 'image'
  return {
    ok: !stopped,
    results: ctx.executed,
    ...(stopped && { stoppedAt: { phase, reason: stopped.outcome.problem.message } }),
    durationMs: Date.now() - started,
    ...(stopped?.outcome.cancelled && { cancelled: true }),
  }
}

/** `rollback [--to RELEASE]`: start an earlier release from its own files on the nodes and make it current. */
export async function rollbackRelease(o: Omit<RolloutOptions, 'release' | 'force'> & { readonly to?: string }): Promise<RolloutReport> {
  const opts: RolloutOptions = { ...o, release: o.to ?? 'previous' }
  const ctx = newContext(new RolloutIo(opts), 'rollback', 'existing', o.manifest, o.to ?? '-')
  const stages = [lockStage, stateStage, rollbackTargetStage(o.to), ...EXISTING_STAGES]
  return runRollout({ ctx, stages, onFailure: 'none', existing: EXISTING_STAGES })
}
