/**
 * The launch-script check, loaded when a command reads a script: the check and its bash parser
 * (mvdan-sh, the largest part of the bundle) are a chunk of their own (the build splits a dynamic
 * import), so a command or a deploy that reads no launch script starts without them. Here too is
 * the one reader of the files a script sources: they are read as the launch script is (inside the
 * repository, regular files, bounded), by their path relative to where the command runs.
 */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { dirname, isAbsolute, join, relative, resolve } from 'node:path'
import { LAUNCH_SCRIPT_MAX_BYTES } from '../manifest/launch-path.js'
import type { LaunchScriptCheck, checkLaunchScript as Check } from './index.js'
import type { ReadSourced, SourceRead } from './sourced.js'
import { fail, ok, problem } from '../result/result.js'

export async function checkLaunchScriptWhenNeeded(...[text, opts]: Parameters<typeof Check>): Promise<LaunchScriptCheck> {
  const { checkLaunchScript } = await import('./index.js')
  return checkLaunchScript(text, opts.readSourced ? opts : { ...opts, readSourced: sourcedFileReader(resolve(opts.path)) })
}

/**
 * Reads the files a script at `script` sources: inside its repository (repositoryOf), after links,
 * regular, at most as large as a launch script may be. Paths are relative to where the command runs.
 */
export function sourcedFileReader(script: string, env: NodeJS.ProcessEnv = process.env): ReadSourced {
  const root = repositoryOf(script, env)
  const realRoot = existsSync(root) ? realpathSync(root) : root
  return (path: string): SourceRead => {
    const abs = resolve(path)
    let real: string
    try {
      real = realpathSync(abs)
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      return fail(problem('SOURCE_UNREADABLE', code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? (err as Error).message})`))
    }
    if (!within(realRoot, real))
      return fail(problem('SOURCE_UNREADABLE', `is outside the repository ${realRoot}${real !== abs ? ` (it resolves to ${real})` : ''}`))
    const s = statSync(real)
    if (!s.isFile()) return fail(problem('SOURCE_UNREADABLE', 'is not a regular file'))
    if (s.size > LAUNCH_SCRIPT_MAX_BYTES)
      return fail(problem('SOURCE_UNREADABLE', `is ${s.size} bytes, more than the ${LAUNCH_SCRIPT_MAX_BYTES} a launch script may be`))
    return ok(readFileSync(real, 'utf8'))
  }
}

const within = (root: string, path: string): boolean => {
  const rel = relative(root, path)
  return !rel.startsWith('..') && !isAbsolute(rel)
}

/** The nearest folder above the script holding `.git`, else $GITHUB_WORKSPACE when the script is in it, else the script's folder. */
function repositoryOf(script: string, env: NodeJS.ProcessEnv): string {
  for (let dir = dirname(script); ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir
    if (dirname(dir) === dir) break
  }
  const ws = env.GITHUB_WORKSPACE ? resolve(env.GITHUB_WORKSPACE) : undefined
  return ws && within(ws, script) ? ws : dirname(script)
}
