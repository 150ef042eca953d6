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
 */
import { LineCounter, parseDocument } from 'yaml'
import { positionFor } from './locate.js'
import { compareManifestErrors, type ManifestError, type PathIssue } from './manifest-error.js'
import { partsOfData, partsOfManifest } from './parts.js'
import { EXTENSION_KEY_PREFIX, type Manifest, ManifestSchema } from './schema.js'
import { checkManifestRules, checkManifestWarnings } from './semantic.js'
import { manifestErrorsFromYaml } from './yaml-errors.js'
import { genericIssueMessage, pathIssuesFromZodIssues } from './zod-issues.js'

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

/** The data without top-level `x-` keys, which are for YAML anchors and notes. */
function withoutExtensionKeys(data: unknown): unknown {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return data
  return Object.fromEntries(Object.entries(data).filter(([key]) => !key.startsWith(EXTENSION_KEY_PREFIX)))
}

export function parseManifest(text: string, file: string): ManifestResult {
  // A byte-order mark is invisible in editors; without it the columns on line 1 match what people see.
  const source = text.startsWith('\ufeff') ? text.slice(1) : text
  const lineCounter = new LineCounter()
  const doc = parseDocument(source, { lineCounter, uniqueKeys: true, prettyErrors: false, merge: true })
  const yamlErrors = manifestErrorsFromYaml(doc, lineCounter, source, file)
  if (doc.errors.some((error) => error.code !== 'DUPLICATE_KEY')) return { errors: yamlErrors.sort(compareManifestErrors), warnings: [] }

  let data: unknown
  try {
    data = withoutExtensionKeys(doc.toJS({ maxAliasCount: 1000 }))
  } catch (cause) {
    // toJS refuses documents with alias bombs (too many alias expansions).
    const message = cause instanceof Error ? cause.message : String(cause)
    return { errors: [{ code: 'YAML_UNREADABLE', message: `YAML: ${message}`, file, line: 1, col: 1, path: [] }], warnings: [] }
  }

  // jitless: a process parses one manifest, and zod's generated (new Function) fast path for each
  // object schema costs more to build and compile than it saves on one parse (the Action's start-up).
  const result = ManifestSchema.safeParse(data, { reportInput: true, jitless: true, error: genericIssueMessage })
  const issues: PathIssue[] = result.success
    ? checkManifestRules(partsOfManifest(result.data))
    : [...pathIssuesFromZodIssues(result.error.issues, ManifestSchema, data), ...checkManifestRules(partsOfData(data))]

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
  return errors.length === 0 && result.success ? { manifest: result.data, errors, warnings } : { errors, warnings }
}
