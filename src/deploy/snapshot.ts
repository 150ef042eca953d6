/**
 * The manifest snapshot a release keeps (`manifest.json`), written with its schema version and read
 * back by a rollback, possibly long after: older snapshots go through the migrations in order, and
 * keys this version no longer knows are dropped with a note (a rollback must not break because a
 * later version renamed or removed a key). A snapshot that still does not validate is a Problem.
 *
 * Versions: 1 is the bare manifest (snapshots before they carried a version); 2 is
 * `{ snapshotVersion: 2, manifest }`.
 */
import { option } from '../command/option-words.js'
import { type Manifest, ManifestSchema } from '../manifest/schema.js'
import { type Problem, type Result, fail, ok } from '../result/result.js'

export const SNAPSHOT_VERSION = 2

/** One step from `from` to `from + 1`, on the whole document. */
export interface SnapshotMigration {
  readonly from: number
  readonly why: string
  readonly up: (doc: Record<string, unknown>) => Record<string, unknown>
}

type Doc = Record<string, unknown>
const isDoc = (x: unknown): x is Doc => typeof x === 'object' && x !== null && !Array.isArray(x)

/** Move the value at `from` (a key path in the manifest) to `to`, when `to` is not set already. */
export function renameKey(manifest: Doc, from: readonly string[], to: readonly string[]): Doc {
  const out: Doc = structuredClone(manifest)
  const parentOf = (path: readonly string[], create: boolean): Doc | undefined => {
    let at: Doc = out
    for (const k of path.slice(0, -1)) {
      if (!isDoc(at[k])) {
        if (!create) return undefined
        at[k] = {}
      }
      at = at[k] as Doc
    }
    return at
  }
  const src = parentOf(from, false)
  const key = from[from.length - 1]!
  if (!src || !(key in src)) return out
  const value = src[key]
  delete src[key]
  const dst = parentOf(to, true)!
  const toKey = to[to.length - 1]!
  if (!(toKey in dst)) dst[toKey] = value
  return out
}

/** Every migration, oldest first. Add one when a manifest key is renamed or reshaped. */
export const MIGRATIONS: readonly SnapshotMigration[] = [
  { from: 1, why: 'v1 snapshots are the bare manifest, written before snapshots carried a version', up: (doc) => ({ snapshotVersion: 2, manifest: doc }) },
]

export const snapshotText = (m: Manifest): string => `${JSON.stringify({ snapshotVersion: SNAPSHOT_VERSION, manifest: m }, null, 2)}\n`

const snapshotProblem = (release: string, message: string, evidence: Record<string, string> = {}): Problem => ({
  code: 'RELEASE_SNAPSHOT_UNREADABLE',
  message: `release ${release}'s manifest snapshot ${message}`,
  evidence,
  fix: `Deploy the release again from its manifest (a deploy with ${option('release', release)}), or roll back to another release.`,
})

/** Drop the keys the schema does not know (strict objects), until only other issues remain. */
function dropUnknownKeys(manifest: unknown, notes: string[]): ReturnType<typeof ManifestSchema.safeParse> {
  let parsed = ManifestSchema.safeParse(manifest)
  for (let round = 0; round < 20 && !parsed.success; round++) {
    const unknown = parsed.error.issues.filter((i) => i.code === 'unrecognized_keys')
    if (unknown.length === 0) break
    for (const issue of unknown) {
      let at: unknown = manifest
      for (const k of issue.path) at = isDoc(at) || Array.isArray(at) ? (at as Record<PropertyKey, unknown>)[k as PropertyKey] : undefined
      if (!isDoc(at)) continue
      for (const k of issue.keys) {
        delete at[k]
        notes.push(`dropped ${[...issue.path, k].join('.')}, a key this version does not know`)
      }
    }
    parsed = ManifestSchema.safeParse(manifest)
  }
  return parsed
}

/** Read a release's snapshot (any version up to this one) as today's manifest. */
export function readSnapshot(
  release: string,
  text: string,
  migrations: readonly SnapshotMigration[] = MIGRATIONS,
  current = SNAPSHOT_VERSION,
): Result<{ manifest: Manifest; version: number; notes: string[] }> {
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch {
    return fail(snapshotProblem(release, 'is not JSON'))
  }
  if (!isDoc(doc)) return fail(snapshotProblem(release, 'is not a JSON object'))
  const version = typeof doc.snapshotVersion === 'number' ? doc.snapshotVersion : 1
  if (version > current)
    return fail(snapshotProblem(release, `has version ${version}, newer than this tool reads (${current})`, { 'snapshot version': String(version) }))
  const notes: string[] = []
  let at: Doc = doc
  for (let v = version; v < current; v++) {
    const step = migrations.find((m) => m.from === v)
    if (!step) return fail(snapshotProblem(release, `has version ${v}, and no migration goes from it`, { 'snapshot version': String(v) }))
    at = step.up(at)
    notes.push(`migrated from version ${v}: ${step.why}`)
  }
  const parsed = dropUnknownKeys(structuredClone(at.manifest), notes)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    return fail(snapshotProblem(release, `does not validate: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`, { 'snapshot version': String(version) }))
  }
  return ok({ manifest: parsed.data, version, notes })
}
