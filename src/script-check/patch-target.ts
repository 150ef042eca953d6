/**
 * Where a launch-script patch applies from. The diff names the script relative to its repository
 * root when it is in one (a directory holding `.git`), else relative to its own directory, so
 * `git apply` and `patch -p1` take it from that directory wherever the command ran; never a path
 * that climbs out with `..`, which neither tool accepts.
 */

import { basename, dirname, relative } from 'node:path'

export interface PatchTarget {
  /** The script as the diff names it (`a/<path>`). */
  readonly path: string
  /** The absolute directory to apply the patch from. */
  readonly applyFrom: string
  readonly root: 'repository root' | 'script directory'
}

/** `isRepoRoot(dir)`: whether dir holds a repository (the shell checks `<dir>/.git`). */
export function patchTarget(absScript: string, isRepoRoot: (dir: string) => boolean): PatchTarget {
  for (let dir = dirname(absScript); ; dir = dirname(dir)) {
    if (isRepoRoot(dir)) return { path: relative(dir, absScript).split('\\').join('/'), applyFrom: dir, root: 'repository root' }
    if (dirname(dir) === dir) break
  }
  return { path: basename(absScript), applyFrom: dirname(absScript), root: 'script directory' }
}

/** The sentence that says how to apply the patch. */
export const applyHint = (t: PatchTarget, file = 'FILE'): string =>
  `apply it from ${t.applyFrom} (the ${t.root}): cd ${t.applyFrom} && patch -p1 < ${file} (or git apply ${file})`
