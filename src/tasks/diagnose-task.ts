import { existsSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { option } from '../command/option-words.js'
import { checkDocument } from '../manifest/external-document.js'
import { MAX_PASTE_BYTES, readTextBounded } from '../manifest/manifest-file.js'
import { type Expectation, expectationFromManifest } from '../manifest/expectation.js'
import type { Manifest } from '../manifest/schema.js'
import { diagnose, sortFindings } from '../preflight/offline-diagnosis.js'
import { type FactsBundle, FactsBundleSchema } from '../preflight/facts.js'
import type { LaunchScriptCheck } from '../script-check/index.js'
import { checkLaunchScriptWhenNeeded } from '../script-check/load-checker.js'
import { applyHint, patchTarget } from '../script-check/patch-target.js'
import { findingsOutcome } from './findings-outcome.js'
import { type TaskOutcome, usageError } from './outcome.js'
import { loadOrFail } from './validate.js'

export interface DiagnoseFiles {
  readonly facts?: string
  readonly rayNodes?: string
  readonly rayStatus?: string
  readonly logs?: readonly string[]
  readonly manifest?: string
  /** A bash launch script, read statically (src/script-check). */
  readonly launchScript?: string
}

async function read(path: string, what: string): Promise<string | TaskOutcome> {
  const r = await readTextBounded(path, MAX_PASTE_BYTES)
  return r.ok ? r.value : usageError(`cannot read ${what} ${path}: ${r.problem.message}`)
}

/** Offline diagnosis from files a person has: same checks and signatures as the live preflight. */
export async function diagnoseTask(files: DiagnoseFiles): Promise<TaskOutcome> {
  if (!files.facts && !files.rayNodes && !files.rayStatus && !files.logs?.length && !files.launchScript) {
    return usageError(
      `diagnose needs at least one of ${(['facts', 'ray-nodes', 'ray-status', 'log', 'launch-script'] as const).map((o) => option(o)).join(', ')}`,
    )
  }
  let facts: FactsBundle | undefined
  if (files.facts) {
    const text = await read(files.facts, 'facts bundle')
    if (typeof text !== 'string') return text
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (err) {
      return usageError(`facts bundle ${files.facts} is not JSON: ${(err as Error).message}`)
    }
    const checked = checkDocument(FactsBundleSchema, json)
    if (!checked.ok) return usageError(`${files.facts} is not a vllm-ray-deploy facts bundle: ${checked.problem.message}`)
    facts = checked.value
  }
  const texts: Record<string, string> = {}
  for (const [key, path, what] of [
    ['rayNodes', files.rayNodes, 'Ray node list'],
    ['rayStatus', files.rayStatus, 'ray status output'],
  ] as const) {
    if (!path) continue
    const text = await read(path, what)
    if (typeof text !== 'string') return text
    texts[key] = text
  }
  const logs: { source: string; text: string }[] = []
  for (const path of files.logs ?? []) {
    const text = await read(path, 'log')
    if (typeof text !== 'string') return text
    logs.push({ source: path, text })
  }
  let expected: Expectation | undefined
  let manifest: Manifest | undefined
  if (files.manifest) {
    const loaded = await loadOrFail(files.manifest)
    if (!loaded.ok) return loaded.problem
    manifest = loaded.value.manifest
    expected = expectationFromManifest(loaded.value.manifest)
  }
  let script: LaunchScriptCheck | undefined
  if (files.launchScript) {
    const text = await read(files.launchScript, 'launch script')
    if (typeof text !== 'string') return text
    // The diff names the script relative to its repository root (or its own directory): it applies from there wherever this ran.
    const file = resolve(files.launchScript)
    const target = patchTarget(file, (d) => existsSync(join(d, '.git')))
    script = await checkLaunchScriptWhenNeeded(text, { path: relative(process.cwd(), file), target, ...(manifest && { manifest }) })
  }
  const onlyScript = !files.facts && !files.rayNodes && !files.rayStatus && !files.logs?.length
  const fromCluster = onlyScript
    ? []
    : diagnose({
        ...(facts && { facts }),
        ...(texts.rayNodes !== undefined && { rayNodesText: texts.rayNodes }),
        ...(texts.rayStatus !== undefined && { rayStatusText: texts.rayStatus }),
        logs,
        ...(expected && { expected }),
      })
  const findings = sortFindings([...(script?.findings ?? []), ...fromCluster])
  const inputs = [
    ...(files.facts ? ['facts bundle'] : []),
    ...(files.rayNodes ? ['Ray node list'] : []),
    ...(files.rayStatus ? ['ray status'] : []),
    ...(files.logs?.length ? ['logs'] : []),
    ...(files.launchScript ? ['launch script'] : []),
  ]
  const outcome = findingsOutcome('diagnosis', findings, undefined, '', undefined, [`diagnosis of the ${inputs.join(', ')}`])
  if (!script?.patch) return outcome
  return {
    ...outcome,
    text: `${outcome.text}\nAll fixes as one patch (--fix-out FILE writes it; ${script.target ? applyHint(script.target) : 'git apply FILE or patch -p1 < FILE'}):\n${script.patch}`,
    json: {
      ...(outcome.json as object),
      patch: script.patch,
      ...(script.target && { patchAppliesFrom: { directory: script.target.applyFrom, root: script.target.root } }),
    },
    files: [...outcome.files, { output: 'fix-file', fileName: 'vllm-ray-deploy-fix.patch', content: script.patch }],
  }
}
