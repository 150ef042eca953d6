/** A problem with a manifest file: stable code, where it is (file, 1-based line:col, key path), and what to change. */

export type ManifestPath = readonly (string | number)[]

export interface ManifestError {
  readonly code: string
  /** One sentence a person can act on. */
  readonly message: string
  readonly file: string
  /** 1-based. */
  readonly line: number
  /** 1-based. */
  readonly col: number
  /** Keys and list indexes from the document root to the offending value, e.g. `['nodes', 1, 'fabricIp']`. */
  readonly path: (string | number)[]
  /** What to change, when there is a concrete suggestion. */
  readonly fix?: string
}

/** A problem that knows its key path but not yet its position; the parser places it in the file. */
export interface PathIssue {
  readonly code: string
  readonly message: string
  readonly path: ManifestPath
  readonly fix?: string
  /**
   * What in the file to point at: the value at `path` (default), the key at `path` (unknown keys,
   * bad map keys), or the mapping that should hold `path` (missing keys).
   */
  readonly anchor?: 'value' | 'key' | 'parent'
  /** Where to point instead when `path` is not written in the file (its value is a default). */
  readonly related?: ManifestPath
}

/** File order: line, then column, then code for a stable result. */
export function compareManifestErrors(a: ManifestError, b: ManifestError): number {
  return a.line - b.line || a.col - b.col || a.code.localeCompare(b.code)
}

/** `nodes[1].fabricIp`; the root is `(top level)`. */
export function pathLabel(path: ManifestPath): string {
  if (path.length === 0) return '(top level)'
  return path.reduce<string>(
    (label, key) => (typeof key === 'number' ? `${label}[${key}]` : label === '' ? key : `${label}.${key}`),
    '',
  )
}

/** `file:line:col: message`, followed by `  fix: ...` on its own line when there is one. */
export function formatManifestError(error: ManifestError): string {
  const head = `${error.file}:${error.line}:${error.col}: ${error.message} [${error.code}]`
  return error.fix ? `${head}\n  fix: ${error.fix}` : head
}
