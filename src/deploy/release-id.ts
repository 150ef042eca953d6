/**
 * Release ids: the name of a release's directory on every node and of its container label. Pure.
 * Ids come from the user (--release, the Action's `release` input) or default to the commit SHA
 * or a UTC timestamp; they become path components, so they are checked before anything is built.
 */
import { option } from '../command/option-words.js'
import { type Result, fail, ok, problem } from '../result/result.js'

import { releaseIdProblem } from '../manifest/values.js'

/** The one check of a release id, wherever it comes from (src/manifest/values.ts). */
export { releaseIdProblem }

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
  return why
    ? fail(problem('RELEASE_ID_INVALID', why, `Name the release with letters, digits, ".", "_" and "-" (${option('release')}).`, { 'release id': id }))
    : ok(id)
}
