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
import { fail, ok, problem, type Result } from '../result/result.js'

/** A launch script larger than this is refused (they are shell scripts of a few KiB). */
export const LAUNCH_SCRIPT_MAX_BYTES = 1024 * 1024

/** The script's text and its real path, or a SCRIPT_UNREADABLE Problem saying why it cannot be used and what to change. */
export type LaunchScriptRead = Result<{ readonly text: string; readonly path: string }>

const refused = (message: string, fix: string) => fail(problem('SCRIPT_UNREADABLE', message, fix))

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
    return code === 'ENOENT' ? refused(`${where} does not exist`, "check the path; it is relative to the manifest file's folder") : unreadable(where, err)
  }
  if (!opts.allowOutsideRepository) {
    const root = await realpath(repositoryRoot(manifestPath, opts.env)).catch(() => repositoryRoot(manifestPath, opts.env))
    if (!inside(root, real))
      return refused(
        `${where} is outside the repository ${root}${real !== given ? ` (it resolves to ${real})` : ''}`,
        'keep the launch script in the repository, or set launch.allowOutsideRepository: true if it must come from elsewhere',
      )
  }
  try {
    const s = await stat(real)
    if (!s.isFile()) return refused(`${where} is not a regular file`, 'point launch.path at the script file')
    if (s.size > LAUNCH_SCRIPT_MAX_BYTES)
      return refused(`${where} is ${s.size} bytes, more than the ${LAUNCH_SCRIPT_MAX_BYTES} a launch script may be`, 'point launch.path at the script file')
    return ok({ text: await readFile(real, 'utf8'), path: real })
  } catch (err) {
    // Gone or unreadable after realpath found it (removed meanwhile, no read permission).
    return unreadable(where, err)
  }
}

const unreadable = (where: string, err: unknown) =>
  refused(`${where} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'check the file and its permissions')
