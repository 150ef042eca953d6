/**
 * The stages of a manifest's parse that need no zod: the YAML (syntax, duplicate keys, `x-` keys
 * set aside) and the finish (each problem placed at its line:col, the warnings). parse.ts runs the
 * zod schema between them, the fast path (manifest-file.ts) its generated plan; both finish the
 * same way, so a manifest the fast path accepts gives what parseManifest gives. Pure.
 */
import { type Document, LineCounter, parseDocument } from 'yaml'
import { positionFor } from './locate.js'
import { compareManifestErrors, type ManifestError, type PathIssue } from './manifest-error.js'
import { EXTENSION_KEY_PREFIX } from './manifest-constants.js'
import type { Manifest } from './schema.js'
import { checkManifestWarnings } from './semantic.js'
import { manifestErrorsFromYaml } from './yaml-errors.js'

export interface ManifestResult {
  /** Present exactly when `errors` is empty. */
  readonly manifest?: Manifest
  /** Sorted by position. */
  readonly errors: ManifestError[]
  /**
   * Valid but ineffective settings (a key the launch mode does not read), sorted by position. They
   * never make the manifest invalid; `validate`, `plan` and `deploy` show them.
   */
  readonly warnings: ManifestError[]
}

/** The YAML read: the data to validate, or the result already (a syntax error stops there). */
export type YamlStage =
  | { readonly done: ManifestResult }
  | { readonly doc: Document; readonly lineCounter: LineCounter; readonly yamlErrors: ManifestError[]; readonly data: unknown }

/** The data without top-level `x-` keys, which are for YAML anchors and notes. */
function withoutExtensionKeys(data: unknown): unknown {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return data
  return Object.fromEntries(Object.entries(data).filter(([key]) => !key.startsWith(EXTENSION_KEY_PREFIX)))
}

export function readManifestYaml(text: string, file: string): YamlStage {
  // A byte-order mark is invisible in editors; without it the columns on line 1 match what people see.
  const source = text.startsWith('\ufeff') ? text.slice(1) : text
  const lineCounter = new LineCounter()
  const doc = parseDocument(source, { lineCounter, uniqueKeys: true, prettyErrors: false, merge: true })
  const yamlErrors = manifestErrorsFromYaml(doc, lineCounter, source, file)
  if (doc.errors.some((error) => error.code !== 'DUPLICATE_KEY')) return { done: { errors: yamlErrors.sort(compareManifestErrors), warnings: [] } }
  try {
    return { doc, lineCounter, yamlErrors, data: withoutExtensionKeys(doc.toJS({ maxAliasCount: 1000 })) }
  } catch (cause) {
    // toJS refuses documents with alias bombs (too many alias expansions).
    const message = cause instanceof Error ? cause.message : String(cause)
    return { done: { errors: [{ code: 'YAML_UNREADABLE', message: `YAML: ${message}`, file, line: 1, col: 1, path: [] }], warnings: [] } }
  }
}

/** The result from the schema's and the rules' issues: `manifest` is the validated one, when the schema accepted it. */
export function finishManifest(
  stage: Exclude<YamlStage, { done: ManifestResult }>,
  file: string,
  issues: readonly PathIssue[],
  manifest: Manifest | undefined,
): ManifestResult {
  const { doc, lineCounter, yamlErrors, data } = stage
  const locate = (issue: PathIssue): ManifestError => {
    const { line, col } = positionFor(doc, lineCounter, issue)
    return {
      code: issue.code,
      message: issue.message,
      file,
      line,
      col,
      path: [...issue.path],
      ...(issue.fix !== undefined && { fix: issue.fix }),
    }
  }
  const errors = [...yamlErrors, ...issues.map(locate)].sort(compareManifestErrors)
  const warnings = checkManifestWarnings(data).map(locate).sort(compareManifestErrors)
  return errors.length === 0 && manifest !== undefined ? { manifest, errors, warnings } : { errors, warnings }
}
