/**
 * One check per kind of value that becomes argv or a path on a node, whatever its source: the
 * manifest, an Action input, a CLI flag, or the state a node reports. Each returns why the value
 * cannot be used (a sentence naming the value), or undefined. Pure.
 */
import { type DockerOption, readDockerArgs } from '../command/docker-args.js'
import { parseImageReference } from './image-reference.js'

/** An image reference (`docker pull` grammar): never an option (`-v/:/host`), never shell text. */
export function imageRefProblem(text: string): string | undefined {
  const parsed = parseImageReference(text)
  return parsed.ok ? undefined : `image reference ${JSON.stringify(text)} is not valid: ${parsed.problem.message}`
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
 * Environment variables a `docker run` argument list sets, read by the one docker argv reader
 * (src/command/docker-args.ts: every pflag spelling of -e/--env, bundles such as `-te=N=v`), and
 * `--env-file F` (whose names cannot be known here: `*`). Returns [index of the argument, name] pairs.
 */
export function dockerEnvNames(args: readonly string[]): { readonly index: number; readonly name: string }[] {
  const indexed = args.map((text, index) => ({ text, index }))
  // extraArgs come before the image: a word that is no option (the value of a flag this reader does
  // not know) does not end them, so reading goes on after it.
  const options: DockerOption<{ text: string; index: number }>[] = []
  for (let from = 0; from < indexed.length; ) {
    const read = readDockerArgs(indexed.slice(from), (a) => a.text)
    options.push(...read.options)
    from += read.target + 1
  }
  return options.flatMap((o) =>
    o.name === '--env' && o.value !== undefined
      ? [{ index: o.flag.index, name: o.value.split('=')[0] ?? o.value }]
      : o.name === '--env-file'
        ? [{ index: o.flag.index, name: '*' }]
        : [],
  )
}
