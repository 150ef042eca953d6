/**
 * Manifest text in, a validated manifest and/or every problem out, each at its line:col. Never
 * throws for bad input. Pure.
 *
 * Stages: YAML (syntax, duplicate keys) → schema (types, formats, unknown and missing keys) →
 * rules (cross-field). Schema problems and rule violations are reported together: when the schema
 * rejects part of the file, the rules still run on the parts that validate. A YAML syntax error
 * (anything but a duplicate key) stops there, because the tree the parser recovered is a guess and
 * checking it would report mistakes the person did not make. YAML warnings (an unknown tag, say)
 * are reported as errors but do not stop the later stages.
 *
 * This is the zod path: manifest-file.ts tries the generated fast path first and comes here for
 * whatever it does not accept (every invalid manifest), so every message is zod's.
 */
import type { PathIssue } from './manifest-error.js'
import { finishManifest, type ManifestResult, readManifestYaml, type YamlStage } from './parse-stages.js'
import { partsOfData, partsOfManifest } from './parts.js'
import { ManifestSchema } from './schema.js'
import { checkManifestRules } from './semantic.js'
import { genericIssueMessage, pathIssuesFromZodIssues } from './zod-issues.js'

export type { ManifestResult } from './parse-stages.js'

export function parseManifest(text: string, file: string): ManifestResult {
  const stage = readManifestYaml(text, file)
  return 'done' in stage ? stage.done : manifestFromYaml(stage, file)
}

/** The schema and the rules on data the YAML stage read. */
export function manifestFromYaml(stage: Exclude<YamlStage, { done: ManifestResult }>, file: string): ManifestResult {
  const { data } = stage
  // jitless: a process parses one manifest, and zod's generated (new Function) fast path for each
  // object schema costs more to build and compile than it saves on one parse (the Action's start-up).
  const result = ManifestSchema.safeParse(data, { reportInput: true, jitless: true, error: genericIssueMessage })
  const issues: PathIssue[] = result.success
    ? checkManifestRules(partsOfManifest(result.data))
    : [...pathIssuesFromZodIssues(result.error.issues, ManifestSchema, data), ...checkManifestRules(partsOfData(data))]
  return finishManifest(stage, file, issues, result.success ? result.data : undefined)
}
