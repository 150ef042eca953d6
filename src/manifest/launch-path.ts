/**
 * The launch script a manifest names, read in one place: its path is relative to the manifest's
 * folder, must stay inside the repository (after symlinks: `/proc/self/environ` or a link to it
 * would copy the runner's secrets onto every node) unless the manifest says
 * `launch.allowOutsideRepository: true`, must be a regular file, and is read up to a bound.
 * Every reader (validate, plan, the deploy's script check and its upload) goes through here, so a
 * missing or refused script is a clear error before anything on the nodes changes.
 */
import { existsSync } from 'node:fs'
import { readFile, realpath, stat } from 'node:fs/promises'
import { dirname, isAbsolute, join, relative, resolve } from 'node:path'

/** A launch script larger than this is refused (they are shell scripts of a few KiB). */
export const LAUNCH_SCRIPT_MAX_BYTES = 1024 * 1024

export type LaunchScriptRead = { ok: true; text: string; path: string } | { ok: false; message: string; fix: string }

/** The repository a manifest belongs to: $GITHUB_WORKSPACE, else the nearest folder holding `.git`, else the manifest's folder. */
export function repositoryRoot(manifestPath: string, env: NodeJS.ProcessEnv = process.env): string {
  if (env.GITHUB_WORKSPACE) return resolve(env.GITHUB_WORKSPACE)
  const start = dirname(resolve(manifestPath))
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir
    if (dirname(dir) === dir) return start
  }
}

const inside = (root: string, path: string): boolean => {
  const rel = relative(root, path)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

export async function readLaunchScript(
  manifestPath: string,
  scriptPath: string,
  opts: { readonly allowOutsideRepository?: boolean; readonly env?: NodeJS.ProcessEnv } = {},
): Promise<LaunchScriptRead> {
  const given = resolve(dirname(manifestPath), scriptPath)
  const where = `launch.path ${JSON.stringify(scriptPath)} (${given})`
  let real: string
  try {
    real = await realpath(given)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    return code === 'ENOENT'
      ? { ok: false, message: `${where} does not exist`, fix: "check the path; it is relative to the manifest file's folder" }
      : { ok: false, message: `${where} cannot be read: ${code ?? (err as Error).message}`, fix: 'check the file and its permissions' }
  }
  if (!opts.allowOutsideRepository) {
    const root = await realpath(repositoryRoot(manifestPath, opts.env)).catch(() => repositoryRoot(manifestPath, opts.env))
    if (!inside(root, real))
      return {
        ok: false,
        message: `${where} is outside the repository ${root}${real !== given ? ` (it resolves to ${real})` : ''}`,
        fix: 'keep the launch script in the repository, or set launch.allowOutsideRepository: true if it must come from elsewhere',
      }
  }
  const s = await stat(real)
  if (!s.isFile()) return { ok: false, message: `${where} is not a regular file`, fix: 'point launch.path at the script file' }
  if (s.size > LAUNCH_SCRIPT_MAX_BYTES)
    return {
      ok: false,
      message: `${where} is ${s.size} bytes, more than the ${LAUNCH_SCRIPT_MAX_BYTES} a launch script may be`,
      fix: 'point launch.path at the script file',
    }
  return { ok: true, text: await readFile(real, 'utf8'), path: real }
}
