import { readFile } from 'node:fs/promises'
import { type Expectation, expectationFromManifest } from '../manifest/expectation.js'
import { diagnose } from '../preflight/diagnose.js'
import { checkDocument } from '../manifest/external-document.js'
import { type FactsBundle, FactsBundleSchema } from '../preflight/facts.js'
import { findingsOutcome } from './findings-outcome.js'
import { type TaskOutcome, usageError } from './outcome.js'
import { loadOrFail } from './validate.js'

export interface DiagnoseFiles {
  readonly facts?: string
  readonly rayNodes?: string
  readonly rayStatus?: string
  readonly logs?: readonly string[]
  readonly manifest?: string
}

async function read(path: string, what: string): Promise<string | TaskOutcome> {
  try {
    return await readFile(path, 'utf8')
  } catch (err) {
    return usageError(`cannot read ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`)
  }
}

/** Offline diagnosis from files a person has: same checks and signatures as the live preflight. */
export async function diagnoseTask(files: DiagnoseFiles): Promise<TaskOutcome> {
  if (!files.facts && !files.rayNodes && !files.rayStatus && !(files.logs?.length)) {
    return usageError('diagnose needs at least one of --facts, --ray-nodes, --ray-status, --log')
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
    if (!checked.ok) return usageError(`${files.facts} is not a vllm-ray-deploy facts bundle: ${checked.problems.join('; ')}`)
    facts = checked.value
  }
  const texts: Record<string, string> = {}
  for (const [key, path, what] of [['rayNodes', files.rayNodes, 'Ray node list'], ['rayStatus', files.rayStatus, 'ray status output']] as const) {
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
  if (files.manifest) {
    const loaded = await loadOrFail(files.manifest)
    if (!loaded.ok) return loaded.outcome
    expected = expectationFromManifest(loaded.manifest)
  }
  const findings = diagnose({
    ...(facts && { facts }),
    ...(texts.rayNodes !== undefined && { rayNodesText: texts.rayNodes }),
    ...(texts.rayStatus !== undefined && { rayStatusText: texts.rayStatus }),
    logs,
    ...(expected && { expected }),
  })
  return findingsOutcome('diagnosis', findings)
}
