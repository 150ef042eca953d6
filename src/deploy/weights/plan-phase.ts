/**
 * The weights stage as `plan` shows it: the commands the stage runs, with the file a node lacks
 * shown as `<file>` (which files move is only known once every node is listed).
 */
import type { Manifest } from '../../manifest/schema.js'
import { MINUTE, type PlanPhase, type PlannedStep, stepOf } from '../../plan/plan.js'
import { headOf } from '../../plan/node-commands.js'
import { listWeights, receiveWeightsStream, sendWeightsStreamToWorker } from '../../plan/weights-commands.js'
import { hubPlanner } from './hub-seam.js'
import { sourceKind } from './weights-plan.js'
import { streamsOf } from './streams.js'

const SOME_FILES = [{ path: '<file>', size: 0, sha256: '<sha256>', offset: 0 }]

export function weightsPhase(m: Manifest): PlanPhase {
  const model = m.model!
  const kind = sourceKind(model)
  const step = stepOf(m)
  const head = headOf(m)
  const workers = m.nodes.filter((n) => n.role !== 'head')
  const relay = model.distribution === 'relay'
  const steps: PlannedStep[] = []
  if (kind === 'hub') {
    const fetchers = relay ? [head] : m.nodes
    for (const n of fetchers) {
      const planned = hubPlanner?.(m, n, model.path, {}) ?? []
      for (const [i, s] of planned.entries()) {
        const what = s.description ?? `download ${model.source.hub!.repo}@${model.source.hub!.revision}`
        steps.push(step(n, `weights-hub-${i + 1}`, what, s.cmd, s.timeoutSeconds ?? 30 * MINUTE))
      }
    }
  }
  for (const n of m.nodes)
    steps.push(step(n, 'weights-list', `list ${model.path}: every file's size and SHA-256, .partial files, free bytes`, listWeights(model.path), 30 * MINUTE))
  if (kind === 'runner') {
    const targets = relay ? [head] : m.nodes
    for (const n of targets)
      steps.push(
        step(
          n,
          'weights-receive',
          `the files ${n.name} lacks, spread over ${streamsOf(model)} streams by size: the runner streams each from ${model.source.runner!.dir} (from a .partial's length) with its SHA-256 computed as it reads; ${n.name} writes and hashes them as they arrive, renames a file only when the hashes match${relay && workers.length ? `, and passes the stream on to every worker that lacks the same files` : ''}`,
          receiveWeightsStream(m, model.path, SOME_FILES, relay ? workers : []),
          30 * MINUTE,
          {
            kind: 'file',
            path: `${model.source.runner!.dir}/<file>`,
          },
        ),
      )
  }
  if (relay)
    for (const w of workers)
      steps.push(
        step(
          head,
          `weights-to-${w.name}`,
          `the files ${w.name} lacks beyond what was passed on: ${head.name} sends them from its copy over the fabric to ${w.fabricIp}, one stream per group, hashed as they arrive`,
          sendWeightsStreamToWorker(m, model.path, w, SOME_FILES),
          30 * MINUTE,
        ),
      )
  for (const n of m.nodes)
    steps.push(
      step(
        n,
        'weights-verify',
        `list ${model.path} again (the files received carry their in-flight hash in .vrd-verified, so none is read again): every file must match the weights manifest`,
        listWeights(model.path),
        30 * MINUTE,
      ),
    )
  const source =
    kind === 'hub'
      ? `${model.source.hub!.repo}@${model.source.hub!.revision} from the hub`
      : kind === 'runner'
        ? `${model.source.runner!.dir} on the runner`
        : `the head's copy at ${model.path}`
  return {
    name: 'weights',
    description: `the model at ${model.path} on every node (source: ${source}; model.distribution: ${model.distribution}); a file a node already holds with its size and SHA-256 is not moved, a cut one resumes; served from the path with HF_HUB_OFFLINE=1${kind === 'hub' && !hubPlanner ? ' (this build has no hub download planner)' : ''}`,
    parallel: true,
    steps,
  }
}
