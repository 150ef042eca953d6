/**
 * The weights stage (with `model:`): after the image stages and before the fingerprint and
 * anything that stops the running release, the model's files onto every node at model.path,
 * verified by SHA-256, only what a node lacks moved (src/deploy/weights/transfer.ts). Its
 * manifest's identity goes into the fingerprint and the manifest into the release's weights.json.
 */
import { dirname } from 'node:path'
import { headOf } from '../../plan/node-commands.js'
import { RELEASE_FILE, releaseDir } from '../../plan/release-commands.js'
import { NO_RELEASE_WEIGHTS, readReleaseWeights } from '../../plan/weights-commands.js'
import { problem } from '../../result/result.js'
import { outcome, succeeded } from '../../transport/transport.js'
import type { WeightsRun } from '../weights/delivery.js'
import { hubPlanner } from '../weights/hub-seam.js'
import { parseWeightsManifest, weightsManifestText, weightsIdentity } from '../weights/weights-manifest.js'
import { restoreWeights } from '../weights/restore.js'
import { deliverWeights } from '../weights/transfer.js'
import { type Stage, type StageInput, proceed, sayFindings, stop } from './stage.js'
import type { PlannedPart, StagePlanInput } from './plan-parts.js'
import { weightsPhase } from '../weights/plan-phase.js'

/** The stage's part of `plan`, beside its run. */
const weightsPart = ({ m }: StagePlanInput): PlannedPart[] => (m.model ? [weightsPhase(m)] : [])

export const weightsStage: Stage<'m', 'weights' | 'weightsManifest'> = {
  name: 'weights',
  needs: ['m'],
  adds: ['weights', 'weightsManifest'],
  plan: weightsPart,
  when: (ctx) => ctx.source === 'new' && ctx.m.model !== undefined,
  untouched: () => 'the running release was not touched (the weights stage runs before the previous release is stopped)',
  async run(ctx) {
    const { io } = ctx
    if (io.cancelled) return stop(problem('CANCELLED', 'cancelled before the weights stage', 'Deploy again.'), { cancelled: true })
    const out = await deliverWeights(weightsInput(ctx))
    sayFindings(
      io,
      out.findings.filter((f) => f.severity !== 'error'),
    )
    const adds = {
      weights: out.report,
      weightsManifest: out.ok ? { identity: weightsIdentity(out.value), text: weightsManifestText(out.value) } : undefined,
    }
    const findings = out.findings
    if (!out.ok) return stop(out.problem, { adds, findings, ...(out.problem.code === 'CANCELLED' && { cancelled: true }) })
    return proceed(adds, { findings })
  },
}

/**
 * A rollback's weights (an existing release with `model:`), after its image and before anything stops: every node's
 * files at model.path checked against the target release's own weights.json; what differs is
 * delivered again when the release's source can (src/deploy/weights/restore.ts), else the rollback
 * stops here with ROLLBACK_WEIGHTS_CHANGED. A release that keeps no weights.json is not checked.
 */
export const rollbackWeightsStage: Stage<'m' | 'release', 'weights'> = {
  name: 'weights',
  needs: ['m', 'release'],
  adds: ['weights'],
  when: (ctx) => ctx.source === 'existing',
  untouched: (ctx) => `nothing was stopped: release ${ctx.release}'s weights were checked before anything else changed`,
  async run(ctx) {
    const { m, o, io, release } = ctx
    if (!m.model) {
      io.progress(`release ${release} has no model: section: its weights are not checked (vLLM fetches the model itself)`)
      return proceed({ weights: undefined })
    }
    const head = headOf(m).name
    const r = await o.transports.get(head)!.run(readReleaseWeights(m, release), { timeoutMs: 30_000 })
    if (r.code === NO_RELEASE_WEIGHTS) {
      io.progress(`release ${release} keeps no weights.json (written before the weights stage): the files at ${m.model.path} are not checked`)
      return proceed({ weights: undefined })
    }
    if (!succeeded(r))
      return stop(problem('RELEASE_SNAPSHOT_UNREADABLE', `release ${release}'s weights.json on ${head} cannot be read (${outcome(r)})`, 'Roll back again.'))
    const expected = parseWeightsManifest(r.stdout, `${head}:${releaseDir(m, release)}/${RELEASE_FILE.weights}`)
    if (!expected.ok) return stop(expected.problem)
    const out = await restoreWeights(weightsInput(ctx), { release, expected: expected.value })
    const adds = { weights: { ...out.report, restore: { release, action: out.action, detail: out.detail } } }
    const findings = out.findings
    io.progress(`weights of release ${release}: ${out.detail}`)
    if (!out.ok) return stop(out.problem, { adds, findings, ...(out.problem.code === 'CANCELLED' && { cancelled: true }) })
    return proceed(adds, { findings })
  },
}

/** What a weights delivery needs from the rollout, for a deploy's stage and a rollback's alike. */
function weightsInput({ m, o, io }: StageInput<'m'>): WeightsRun {
  return {
    m,
    transports: o.transports,
    env: o.env,
    cwd: dirname(o.manifestPath),
    onProgress: io.progress,
    ...(o.signal && { signal: o.signal }),
    ...(hubPlanner && { hub: hubPlanner }),
  }
}
