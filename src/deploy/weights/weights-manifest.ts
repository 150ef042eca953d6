/**
 * The weights manifest: every file of the model (its path relative to model.path, size and
 * SHA-256), sorted by path. Its hash is the weights' identity: the same files are the same
 * weights, whatever directory or source they came from. Kept in the release directory as
 * `weights.json`; read back through `parseWeightsManifest`, which validates every field.
 */
import { createHash } from 'node:crypto'
import { type Problem, type Result, fail, ok } from '../../result/result.js'

export interface WeightsFile {
  /** Relative to model.path, `/`-separated. */
  readonly path: string
  readonly size: number
  /** 64 lower-case hex digits. */
  readonly sha256: string
}

export interface WeightsManifest {
  readonly version: 1
  readonly files: readonly WeightsFile[]
}

const SHA256 = /^[0-9a-f]{64}$/
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to refuse them
const CONTROL = /[\u0000-\u001f\u007f\\]/

/** Why a relative file path cannot be part of a weights manifest, or undefined when it can. */
export function badFilePath(path: string): string | undefined {
  if (path === '') return 'an empty path'
  if (path.startsWith('/')) return 'an absolute path'
  if (CONTROL.test(path)) return 'a control character or a backslash in the name'
  if (path.split('/').some((p) => p === '' || p === '.' || p === '..')) return 'an empty, . or .. part'
  if (path.endsWith('.partial')) return 'the name of a file being received (.partial)'
  if (path.split('/').some((p) => p.startsWith('.'))) return 'a hidden name (starting with .), which the listings leave out'
  return undefined
}

/** A manifest of these files, sorted (the order never changes the identity). */
export function weightsManifest(files: readonly WeightsFile[]): WeightsManifest {
  return { version: 1, files: [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) }
}

/** The canonical text: what the release keeps and what the identity hashes. */
export const weightsManifestText = (w: WeightsManifest): string =>
  `${JSON.stringify({ version: 1, files: w.files.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256 })) }, null, 1)}\n`

/** `sha256:<hex>` of the canonical text. */
export const weightsIdentity = (w: WeightsManifest): string =>
  `sha256:${createHash('sha256')
    .update(weightsManifestText(weightsManifest(w.files)))
    .digest('hex')}`

export const totalBytes = (files: readonly WeightsFile[]): number => files.reduce((n, f) => n + f.size, 0)

const invalid = (where: string, why: string): Problem => ({
  code: 'WEIGHTS_MANIFEST_INVALID',
  message: `${where}: ${why}`,
  evidence: { File: where },
  fix: `Deploy again: the weights stage writes ${where} from the files it verified.`,
})

/** A weights manifest read back from text (a release's weights.json), every field checked. */
export function parseWeightsManifest(text: string, where: string): Result<WeightsManifest> {
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch (err) {
    return fail(invalid(where, `not JSON (${(err as Error).message})`))
  }
  if (typeof doc !== 'object' || doc === null || (doc as { version?: unknown }).version !== 1) return fail(invalid(where, 'expected an object with version 1'))
  const files = (doc as { files?: unknown }).files
  if (!Array.isArray(files)) return fail(invalid(where, 'expected a files list'))
  const seen = new Set<string>()
  const out: WeightsFile[] = []
  for (const [i, f] of files.entries()) {
    const at = `files[${i}]`
    if (typeof f !== 'object' || f === null) return fail(invalid(where, `${at} is not an object`))
    const { path, size, sha256 } = f as Record<string, unknown>
    if (typeof path !== 'string') return fail(invalid(where, `${at}.path is not text`))
    const bad = badFilePath(path)
    if (bad) return fail(invalid(where, `${at}.path ${JSON.stringify(path)} is ${bad}`))
    if (seen.has(path)) return fail(invalid(where, `${at}.path ${JSON.stringify(path)} is listed twice`))
    seen.add(path)
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) return fail(invalid(where, `${at}.size is not a byte count`))
    if (typeof sha256 !== 'string' || !SHA256.test(sha256)) return fail(invalid(where, `${at}.sha256 is not 64 lower-case hex digits`))
    out.push({ path, size, sha256 })
  }
  return ok(weightsManifest(out))
}
