/**
 * Release ids: the name of a release's directory on every node and of its container label. Pure.
 * Ids come from the user (--release, the Action's `release` input) or default to the commit SHA
 * or a UTC timestamp; they become path components, so they are checked before anything is built.
 */
import { type Result, fail, ok, problem } from '../result/result.js'

/** Letters, digits, `.`, `_` and `-`; starts with a letter or digit; at most 128 characters. */
const RELEASE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/

/** Why `id` cannot be a release id, or undefined when it can. */
export function releaseIdProblem(id: string): string | undefined {
  if (id === '') return 'a release id cannot be empty'
  if (id.startsWith('-')) return `release id "${id}" starts with "-" (it would read as an option)`
  if (id.includes('/')) return `release id "${id}" contains "/" (it names one directory on the nodes)`
  if (!RELEASE_ID.test(id))
    return `release id "${id}" may only hold letters, digits, ".", "_" and "-", start with a letter or digit, and be at most 128 characters long`
  return undefined
}

/** A UTC timestamp id: `20261203T140501Z`. */
export const timestampReleaseId = (now: Date): string =>
  now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')

/** The release id of a rollout: the one asked for, else $GITHUB_SHA, else a UTC timestamp. */
export function resolveReleaseId(requested: string | undefined, env: NodeJS.ProcessEnv, now: Date): Result<string> {
  const id = requested || env.GITHUB_SHA || timestampReleaseId(now)
  const why = releaseIdProblem(id)
  return why ? fail(problem('RELEASE_ID_INVALID', why, 'Name the release with letters, digits, ".", "_" and "-" (--release).', { 'release id': id })) : ok(id)
}
