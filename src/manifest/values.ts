/**
 * One check per kind of value that becomes argv or a path on a node, whatever its source: the
 * manifest, an Action input, a CLI flag, or the state a node reports. Each returns why the value
 * cannot be used (a sentence naming the value), or undefined. Pure.
 */
import { parseImageReference } from './image-reference.js'

/** An image reference (`docker pull` grammar): never an option (`-v/:/host`), never shell text. */
export function imageRefProblem(text: string): string | undefined {
  const parsed = parseImageReference(text)
  return parsed.ok ? undefined : `image reference ${JSON.stringify(text)} is not valid: ${parsed.reason}`
}

/** Letters, digits, `.`, `_` and `-`; starts with a letter or digit; at most 128 characters. */
const RELEASE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/

/**
 * A release id: the name of a release's directory on every node and of its container label. From
 * --release, the Action's `release`/`rollback-to`, $GITHUB_SHA, or a node's `current`/`previous` link.
 */
export function releaseIdProblem(id: string): string | undefined {
  if (id === '') return 'a release id cannot be empty'
  if (id.startsWith('-')) return `release id "${id}" starts with "-" (it would read as an option)`
  if (id.includes('/')) return `release id "${id}" contains "/" (it names one directory on the nodes)`
  if (!RELEASE_ID.test(id))
    return `release id ${JSON.stringify(id)} may only hold letters, digits, ".", "_" and "-", start with a letter or digit, and be at most 128 characters long`
  return undefined
}

/** An environment variable name (POSIX portable): letters, digits, `_`, not starting with a digit. */
export function envNameProblem(name: string): string | undefined {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)
    ? undefined
    : `${JSON.stringify(name)} is not an environment variable name (letters, digits and _, not starting with a digit)`
}

/**
 * Environment variables a `docker run` argument list sets: `-e N=v`, `-e N`, `-eN=v`, `--env N=v`,
 * `--env=N=v`, bundles after value-less flags (`-dieN=v`), and `--env-file F` / `--env-file=F`
 * (whose names cannot be known here: `*`). Docker's parser (pflag) takes no abbreviations.
 * Returns [index of the argument, name] pairs.
 */
export function dockerEnvNames(args: readonly string[]): { readonly index: number; readonly name: string }[] {
  const out: { index: number; name: string }[] = []
  const nameOf = (assignment: string) => assignment.split('=')[0] ?? assignment
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (a === '-e' || a === '--env') {
      if (i + 1 < args.length) out.push({ index: i, name: nameOf(args[i + 1]!) })
      i++
    } else if (a.startsWith('--env=')) out.push({ index: i, name: nameOf(a.slice('--env='.length)) })
    else if (a === '--env-file') {
      out.push({ index: i, name: '*' })
      i++
    } else if (a.startsWith('--env-file=')) out.push({ index: i, name: '*' })
    else if (/^-[ditP]*e./.test(a)) {
      // A short-option bundle (`-eX=v`, `-deX=v`): after the value-less flags, -e's value follows it directly.
      out.push({ index: i, name: nameOf(a.slice(a.indexOf('e') + 1)) })
    } else if (/^-[ditP]+e$/.test(a) && i + 1 < args.length) {
      out.push({ index: i, name: nameOf(args[i + 1]!) })
      i++
    }
  }
  return out
}
