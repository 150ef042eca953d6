import { loadManifestFile } from '../manifest/manifest-file.js'
import { verdictLine } from '../report/verdict.js'
import type { ManifestError } from '../manifest/manifest-error.js'
import type { Manifest } from '../manifest/schema.js'
import { readLaunchScript } from '../manifest/launch-path.js'
import { imageRefProblem, releaseIdProblem } from '../manifest/values.js'
import { manifestErrorsJson, manifestIssuesJson, renderManifestErrorsMarkdown, renderManifestErrorsText } from '../report/manifest-errors.js'
import { type Annotation, type TaskOutcome, usageError } from './outcome.js'
import { fail, ok, type Result } from '../result/result.js'

export const manifestAnnotations = (errors: readonly ManifestError[], level: Annotation['level'] = 'error'): Annotation[] =>
  errors.map((e) => ({
    level,
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

/**
 * The manifest's warnings (src/manifest/semantic.ts MANIFEST_WARNING_RULES: keys its launch mode
 * does not read, ...) added to a task's outcome: listed before its text, after the summary's verdict
 * line, as `warning` annotations at their line and column (the Action's ::warning), and in the JSON.
 * The exit code and the result stay the task's own.
 */
export function withManifestWarnings(outcome: TaskOutcome, warnings: readonly ManifestError[]): TaskOutcome {
  if (warnings.length === 0) return outcome
  const markdown = `**Manifest warnings** (valid, but not what they seem):\n\n${renderManifestErrorsMarkdown(warnings, 'warning')}`
  const cut = outcome.summary.indexOf('\n')
  const summary = cut < 0 ? `${outcome.summary}\n\n${markdown}` : `${outcome.summary.slice(0, cut)}\n\n${markdown}${outcome.summary.slice(cut)}`
  const json =
    typeof outcome.json === 'object' && outcome.json !== null && !Array.isArray(outcome.json)
      ? { ...outcome.json, manifestWarnings: manifestIssuesJson(warnings) }
      : outcome.json
  // The count a workflow reads says what the summary shows: the manifest's warnings too.
  const counted = outcome.outputs['warning-count']
  return {
    ...outcome,
    text: `${renderManifestErrorsText(warnings, 'warning')}${outcome.text}`,
    summary,
    json,
    annotations: [...manifestAnnotations(warnings, 'warning'), ...outcome.annotations],
    ...(counted !== undefined && { outputs: { ...outcome.outputs, 'warning-count': String(Number(counted || 0) + warnings.length) } }),
  }
}

/**
 * A valid manifest with its warnings, or the finished outcome of a command that cannot go on (the
 * manifest's errors as messages, exit code 1): at this layer a failure is already what the front doors print.
 */
export type Loaded = Result<{ readonly manifest: Manifest; readonly warnings: readonly ManifestError[] }, TaskOutcome>

export async function loadOrFail(path: string): Promise<Loaded> {
  const { manifest, errors, warnings } = await loadManifestFile(path)
  if (!manifest || errors.length > 0) return fail(withManifestWarnings(invalidManifest(errors), warnings))
  return ok({ manifest, warnings })
}

/**
 * The manifest, and its launch script readable and allowed (src/manifest/launch-path.ts): for the
 * commands that will upload or show it (validate, plan, deploy), so a missing or refused script is
 * a clear error before the lock, never an internal error after it.
 */
export async function loadWithLaunchScript(path: string): Promise<Loaded> {
  const loaded = await loadOrFail(path)
  if (!loaded.ok || loaded.value.manifest.launch.mode !== 'script') return loaded
  const { launch } = loaded.value.manifest
  const read = await readLaunchScript(path, launch.path, { ...(launch.allowOutsideRepository && { allowOutsideRepository: true }) })
  if (read.ok) return loaded
  const message = `${read.problem.message}. Fix: ${read.problem.fix}`
  const outcome: TaskOutcome = {
    ...usageError(message),
    exitCode: 1,
    headline: `launch script refused: ${read.problem.message}`,
    outputs: { result: 'invalid' },
  }
  return fail(withManifestWarnings(outcome, loaded.value.warnings))
}

export async function validateTask(path: string): Promise<TaskOutcome> {
  const loaded = await loadWithLaunchScript(path)
  if (!loaded.ok) return loaded.problem
  const m = loaded.value.manifest
  const head = m.nodes.find((n) => n.role === 'head')!
  const gpus = m.nodes.reduce((s, n) => s + n.gpus, 0)
  const { warnings } = loaded.value
  const noted = warnings.length > 0 ? ` (${warnings.length} warning${warnings.length === 1 ? '' : 's'})` : ''
  const headline = `${path} is valid${noted}: cluster ${m.cluster}, ${m.nodes.length} nodes (head ${head.name}), ${gpus} GPUs, TP=${m.vllm.tensorParallelSize} PP=${m.vllm.pipelineParallelSize}`
  return withManifestWarnings(
    {
      exitCode: 0,
      headline,
      text: `${headline}\n`,
      json: { valid: true, errors: [], cluster: m.cluster, nodes: m.nodes.map((n) => n.name), manifest: m },
      summary: `${verdictLine('passed', headline)}\n`,
      annotations: [],
      // withManifestWarnings adds the manifest's warnings to this count.
      outputs: { result: 'valid', 'error-count': '0', 'warning-count': '0', cluster: m.cluster },
      files: [],
    },
    warnings,
  )
}

/**
 * Values given beside the manifest (a CLI flag, an Action input) pass the same checks as the
 * manifest's own (src/manifest/values.ts): an image override is an image reference, a release is a
 * release id. One place for both front doors; a bad value is a usage error naming it.
 */
export function checkOverrides(o: { readonly image?: string; readonly release?: string; readonly to?: string }): TaskOutcome | undefined {
  const problems = [
    o.image !== undefined && o.image !== '' ? imageRefProblem(o.image) : undefined,
    o.release !== undefined && o.release !== '' ? releaseIdProblem(o.release) : undefined,
    o.to !== undefined ? releaseIdProblem(o.to) : undefined,
  ].filter((p): p is string => p !== undefined)
  return problems.length > 0 ? usageError(problems.join('; ')) : undefined
}
