/**
 * The weights stage as `plan` shows it: the commands the stage runs, with the file a node lacks
 * shown as `<file>` (which files move is only known once every node is listed).
 */
import type { Manifest } from '../../manifest/schema.js'
import { MINUTE, type PlanPhase, type PlannedStep, stepOf } from '../../plan/plan.js'
import { headOf } from '../../plan/node-commands.js'
import { listWeights, receiveWeightsFile, sendWeightsFileToWorker } from '../../plan/weights-commands.js'
import { hubPlanner } from './hub-seam.js'
import { sourceKind } from './weights-plan.js'

const SOME_FILE = { path: '<file>', size: 0, sha256: '<sha256>' }

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
          `for each file ${n.name} lacks: the runner streams it from ${model.source.runner!.dir} (from a .partial's length), verified, renamed`,
          receiveWeightsFile(model.path, SOME_FILE, 0),
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
          `for each file ${w.name} lacks: ${head.name} sends it over the fabric to ${w.fabricIp}, verified there`,
          sendWeightsFileToWorker(m, model.path, w, SOME_FILE, 0),
          30 * MINUTE,
        ),
      )
  for (const n of m.nodes)
    steps.push(step(n, 'weights-verify', `list ${model.path} again: every file must match the weights manifest`, listWeights(model.path), 30 * MINUTE))
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
