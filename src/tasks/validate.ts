import { loadManifestFile } from '../manifest/load.js'
import { verdictLine } from '../report/verdict.js'
import type { ManifestError } from '../manifest/manifest-error.js'
import type { Manifest } from '../manifest/schema.js'
import { manifestErrorsJson, renderManifestErrorsMarkdown, renderManifestErrorsText } from '../report/manifest-errors.js'
import type { Annotation, TaskOutcome } from './outcome.js'

export const manifestAnnotations = (errors: readonly ManifestError[]): Annotation[] =>
  errors.map((e) => ({
    level: 'error',
    title: `manifest ${e.code}`,
    message: e.fix ? `${e.message} Fix: ${e.fix}` : e.message,
    file: e.file,
    line: e.line,
    col: e.col,
  }))

/** The outcome for a manifest that did not validate (shared by every task that reads one). */
export function invalidManifest(errors: readonly ManifestError[]): TaskOutcome {
  const headline = `manifest invalid: ${errors.length} problem${errors.length === 1 ? '' : 's'}`
  return {
    exitCode: 1,
    headline,
    text: renderManifestErrorsText(errors),
    json: { valid: false, ...manifestErrorsJson(errors) },
    summary: `${verdictLine('failed', headline)}\n\n${renderManifestErrorsMarkdown(errors)}`,
    annotations: manifestAnnotations(errors),
    outputs: { result: 'invalid', 'error-count': String(errors.length) },
    files: [],
  }
}

export type Loaded = { ok: true; manifest: Manifest } | { ok: false; outcome: TaskOutcome }

export async function loadOrFail(path: string): Promise<Loaded> {
  const { manifest, errors } = await loadManifestFile(path)
  if (!manifest || errors.length > 0) return { ok: false, outcome: invalidManifest(errors) }
  return { ok: true, manifest }
}

export async function validateTask(path: string): Promise<TaskOutcome> {
  const loaded = await loadOrFail(path)
  if (!loaded.ok) return loaded.outcome
  const m = loaded.manifest
  const head = m.nodes.find((n) => n.role === 'head')!
  const gpus = m.nodes.reduce((s, n) => s + n.gpus, 0)
  const headline = `${path} is valid: cluster ${m.cluster}, ${m.nodes.length} nodes (head ${head.name}), ${gpus} GPUs, TP=${m.vllm.tensorParallelSize} PP=${m.vllm.pipelineParallelSize}`
  return {
    exitCode: 0,
    headline,
    text: `${headline}\n`,
    json: { valid: true, errors: [], cluster: m.cluster, nodes: m.nodes.map((n) => n.name), manifest: m },
    summary: `${verdictLine('passed', headline)}\n`,
    annotations: [],
    outputs: { result: 'valid', 'error-count': '0', cluster: m.cluster },
    files: [],
  }
}
