/**
 * The fit stage: does the model fit on every node, before the running release is stopped? The
 * arithmetic is src/preflight/fit/ (the same as `plan` and `preflight`); this stage only gathers
 * its inputs: config.json from the head's `model.path` (the weights stage has just verified it
 * there) with the weights listing's file sizes, else what the runner can read (its own directory or
 * hub cache); each node's memory from the host checks' facts. A node where the model does not fit
 * stops the deploy with `MODEL_DOES_NOT_FIT` and the running release untouched; a footprint that
 * cannot be computed is a progress line naming the missing input, and the deploy goes on. With
 * `vllm.kvCacheMemoryBytes`, an image whose vLLM is not known to have `--kv-cache-memory-bytes`
 * (older than every release whose flags are known here) stops it too (`KV_BYTES_FLAG_UNKNOWN`).
 *
 * What the host uses is measured only while no release runs: a running release's memory is not the
 * host's, so with one running the OS allowance stands.
 */
import { argv } from '../../command/shell.js'
import type { Manifest } from '../../manifest/schema.js'
import { headOf } from '../../plan/node-commands.js'
import { MINUTE, stepOf } from '../../plan/plan.js'
import { readLocalModel, type ModelFiles } from '../../preflight/fit/local-model.js'
import { fitTextLines } from '../../preflight/fit/fit.js'
import { fitFindings, fitOfManifest, kvBytesFlagFinding, nodeMemoryOfFacts } from '../../preflight/fit/manifest-fit.js'
import { succeeded } from '../../transport/transport.js'
import { parseWeightsManifest } from '../weights/weights-manifest.js'
import { type Stage, type StageInput, errorCodes, hasError, proceed, sayFindings, stop } from './stage.js'
import { problemOf } from '../../preflight/finding.js'
import type { PlannedPart, StagePlanInput } from './plan-parts.js'

const readConfigCmd = (m: Manifest) => argv('cat', `${m.model!.path}/config.json`)

export const fitPart = ({ m }: StagePlanInput): PlannedPart[] => [
  {
    name: 'fit',
    description:
      "the model's footprint per node (weights, KV cache for max-model-len × max-num-seqs, reserves) against each node's memory; stops before anything is stopped when it does not fit",
    parallel: false,
    steps: m.model ? [stepOf(m)(headOf(m), 'fit', "read the model's config.json", readConfigCmd(m), MINUTE)] : [],
  },
]

/** config.json from the head's model.path and the sizes the weights stage verified; else the runner's copy. */
async function modelFiles(ctx: StageInput<'m' | 'weightsManifest'>): Promise<ModelFiles> {
  const { m, o } = ctx
  const head = o.transports.get(headOf(m).name)
  if (!m.model || !head) return readLocalModel(m, o.manifestPath, o.env)
  const r = await head.run(readConfigCmd(m), { timeoutMs: MINUTE * 1000 })
  if (!succeeded(r)) return { missing: `config.json at ${m.model.path} on ${headOf(m).name} (cat: ${r.stderr.trim().slice(-200) || 'failed'})` }
  const listing = ctx.weightsManifest ? parseWeightsManifest(ctx.weightsManifest.text, 'weights.json') : undefined
  const files = listing?.ok ? listing.value.files.filter((f) => f.path.endsWith('.safetensors')) : []
  const config = { text: r.stdout, path: `${headOf(m).name}:${m.model.path}/config.json` }
  if (files.length === 0) return { config }
  const fileBytes = files.reduce((n, f) => n + f.size, 0)
  return { config, weights: { fileBytes, source: `the weights listing's ${files.length} safetensors files` } }
}

type FitNeeds = 'm' | 'unchanged' | 'previousRelease' | 'hostFacts' | 'imageContents' | 'imageId' | 'weightsManifest'

export const fitStage: Stage<FitNeeds> = {
  name: 'fit',
  needs: ['m', 'unchanged', 'previousRelease', 'hostFacts', 'imageContents', 'imageId', 'weightsManifest'],
  adds: [],
  plan: fitPart,
  when: (ctx) => !ctx.unchanged,
  untouched: () => 'nothing was changed on the nodes (the fit is checked before the previous release is stopped)',
  async run(ctx) {
    const { m, io } = ctx
    const measured = ctx.previousRelease === undefined
    const nodes = nodeMemoryOfFacts(ctx.hostFacts, m).map(({ hostUsedBytes, ...n }) => (measured && hostUsedBytes !== undefined ? { ...n, hostUsedBytes } : n))
    const report = fitOfManifest(m, await modelFiles(ctx), nodes)
    for (const line of fitTextLines(report)) io.progress(line)
    const version = ctx.imageContents?.vllm.version
    const flag = version ? kvBytesFlagFinding(m, { version, from: `the image's own, ${ctx.imageId}` }, 'error') : undefined
    const findings = [...fitFindings(report, 'deploy'), ...(flag ? [flag] : [])]
    sayFindings(io, findings)
    if (!hasError(findings)) return proceed({}, { findings })
    const first = findings.find((f) => f.severity === 'error')!
    return stop(problemOf(first, `fit: ${errorCodes(findings)}: ${first.message}`), { findings })
  },
}
