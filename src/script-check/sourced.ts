/**
 * `source FILE` / `. FILE`: which file a script reads into itself. The word is read as the shell
 * would expand it; the idioms scripts use to name their own folder (`$(dirname "$0")`,
 * `$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)`, `${BASH_SOURCE%/*}`, with `/..` after it) are
 * that folder; any other part the script cannot know makes the file unknown, said in a note. The
 * file itself is read by the caller's reader (the shell decides what may be read: inside the
 * repository, a regular file, bounded).
 */

import { posix } from 'node:path'
import type { Val } from './model.js'

/** A sourced file's text, or why it cannot be read (its Problem's message reads after the path: "does not exist"). */
import type { Result } from '../result/result.js'

export type SourceRead = Result<string>

/** Reads a sourced file by its path as findings name it (relative to where the command ran, like the script's own path). */
export type ReadSourced = (path: string) => SourceRead

/** A `source` the check did not follow, and why: what that file sets is not known to the check. */
export interface SourceNote {
  /** The line of the `source` command (in the one index space of source-map.ts). */
  readonly line: number
  readonly written: string
  readonly why: string
  /** vLLM's own `run_cluster.sh` run by its name (`bash run_cluster.sh IMAGE HEAD_IP --head|--worker HF_HOME [docker args]`), not read. */
  readonly runCluster?: RunClusterCall
}

/** A call of vLLM's examples/…/run_cluster.sh as written: its role, the head's address and the `-e VLLM_HOST_IP=` it passes on. */
export interface RunClusterCall {
  readonly role?: 'head' | 'worker'
  readonly headAddress?: string
  readonly vllmHostIp?: string
}

const SELF = /^(?:\$0|\$\{0\}|\$\{BASH_SOURCE(?:\[0\])?\}|\$BASH_SOURCE)$/

/** The end of the `$(…)` that opens at `at` (the index of `$`), or -1. */
function closing(text: string, at: number): number {
  let depth = 0
  for (let i = at + 1; i < text.length; i++) {
    if (text[i] === '(') depth++
    else if (text[i] === ')' && --depth === 0) return i
  }
  return -1
}

/**
 * The folder a leading construct names, as `$0` or `BASH_SOURCE` (the file being read) plus any
 * path after it, and where the rest of the word starts; undefined when the word does not start so.
 */
function ownFolder(text: string, script: string, current: string): { dir: string; rest: number } | undefined {
  const param = /^\$\{(0|BASH_SOURCE(?:\[0\])?)%\/\*\}/.exec(text)
  if (param) return { dir: posix.dirname(param[1] === '0' ? script : current), rest: param[0].length }
  if (!text.startsWith('$(')) return undefined
  const end = closing(text, 0)
  if (end < 0) return undefined
  // `$(dirname "$0")` itself, or a substitution around one (`$(cd "$(dirname …)/.." && pwd)`).
  const body = /^\s*dirname\s/.test(text.slice(2, end)) ? text.slice(0, end + 1) : text.slice(2, end)
  const d = body.indexOf('$(dirname')
  if (d < 0) return undefined
  const dEnd = closing(body, d)
  if (dEnd < 0) return undefined
  // The argument of dirname: the file itself, or readlink -f / realpath of it.
  const arg = body
    .slice(d + '$(dirname'.length, dEnd)
    .trim()
    .replace(/^"|"$/g, '')
    .replace(/^\$\((?:readlink\s+-[fe]|realpath)\s+"?([^")]+)"?\)$/, '$1')
  if (!SELF.test(arg)) return undefined
  // Text after dirname's `)` inside the same substitution: `/../..` in `$(cd "$(dirname …)/../.." && pwd)`.
  const after = /^"?((?:\/[^"\s&;|)]*)*)"?\s*(?:(?:&&|;)\s*pwd(?:\s+-[PL])?\s*)?$/.exec(body.slice(dEnd + 1))
  if (!after) return undefined
  const folder = posix.dirname(arg.includes('BASH_SOURCE') ? current : script)
  return { dir: posix.join(folder, after[1] ?? ''), rest: end + 1 }
}

/**
 * The path of the file a `source` word names, as findings name files (relative to where the command
 * ran, like `script`), or why it is not known. `current`: the file the `source` is written in (what
 * BASH_SOURCE names there). A relative name is taken from the script's folder, where such scripts
 * are run from.
 */
export function sourcedPath(word: Val, script: string, current: string): { path: string } | { why: string } {
  const text = word.text
  if (text === '') return { why: 'it names no file' }
  const own = ownFolder(text, script, current)
  const rest = own ? text.slice(own.rest) : text
  const unknown = /\$\{?[A-Za-z_@*#?0-9][^}/]*\}?|\$\([^)]*\)?|`[^`]*`?/.exec(rest)
  if (unknown) return { why: `its path depends on ${unknown[0]}, which is not known before the script runs` }
  if (rest.startsWith('~')) return { why: "its path is under a user's home folder (~), which is not in the repository" }
  if (own) return { path: posix.normalize(posix.join(own.dir, rest)) }
  if (rest.startsWith('/')) return { path: rest }
  return { path: posix.normalize(posix.join(posix.dirname(script), rest)) }
}
