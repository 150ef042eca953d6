/**
 * Commands as data.
 *
 * Every command this tool runs on a node is a small tree of these values. Arguments are raw
 * strings (never pre-quoted); `render` is the one and only place that turns a tree into a
 * POSIX shell line, and `quote` is the one and only quoting rule. Nothing else in the code base
 * builds shell strings.
 */

/** One program and its arguments, optionally with environment assignments in front. */
export interface Argv {
  readonly kind: 'argv'
  readonly argv: readonly string[]
  /** `NAME=value` assignments placed before the program (values are quoted like arguments). */
  readonly env?: Readonly<Record<string, string>>
}

/** Run `cmds` one after another: `&&` stops at the first failure, `;` runs them all. */
export interface Sequence {
  readonly kind: 'seq'
  readonly op: '&&' | '||' | ';'
  readonly cmds: readonly Cmd[]
}

/** `a | b | c` (the pipeline fails if any stage fails: rendered under `set -o pipefail`). */
export interface Pipe {
  readonly kind: 'pipe'
  readonly cmds: readonly Cmd[]
}

/** Redirections of one command's streams. */
export interface Redirect {
  readonly kind: 'redirect'
  readonly cmd: Cmd
  /** Write stdout to this path (`>`), or append to it (`>>`) when `append` is true. */
  readonly stdout?: string
  readonly append?: boolean
  /** Send stderr to stdout (`2>&1`) or to a path (`2>`). */
  readonly stderr?: 'stdout' | { readonly path: string }
  /** Read stdin from this path (`<`). */
  readonly stdin?: string
}

/** A sub-shell `( ... )`, to scope a `cd` or group a sequence inside a pipe. */
export interface Group {
  readonly kind: 'group'
  readonly cmd: Cmd
}

export type Cmd = Argv | Sequence | Pipe | Redirect | Group

const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/**
 * Quote one argument for a POSIX shell so that the shell passes it through byte for byte.
 * Safe words stay bare (readable logs); everything else goes in single quotes, with each
 * embedded single quote closed, escaped and reopened.
 */
export function quote(arg: string): string {
  // bug: values are checked where they enter (src/manifest/values.ts, the schema); a NUL here is a caller that skipped the check
  if (arg.includes('\0')) throw new Error('a shell argument cannot contain a NUL byte')
  if (arg !== '' && SAFE.test(arg)) return arg
  return `'${arg.replace(/'/g, `'\\''`)}'`
}

/** Render a command tree to one shell line. The only function that produces shell syntax. */
export function render(cmd: Cmd): string {
  switch (cmd.kind) {
    case 'argv': {
      // bug: command builders never make an empty argv
      if (cmd.argv.length === 0) throw new Error('empty argv')
      const env = Object.entries(cmd.env ?? {}).map(([name, value]) => {
        // bug: environment names come from the schema (envName format) or this program's constants
        if (!ENV_NAME.test(name)) throw new Error(`invalid environment variable name: ${JSON.stringify(name)}`)
        return `${name}=${quote(value)}`
      })
      return [...env, ...cmd.argv.map(quote)].join(' ')
    }
    case 'seq':
      // bug: command builders never make an empty sequence
      if (cmd.cmds.length === 0) throw new Error('empty sequence')
      return cmd.cmds.map(renderOperand).join(cmd.op === ';' ? '; ' : ` ${cmd.op} `)
    case 'pipe':
      // bug: command builders never make an empty pipe
      if (cmd.cmds.length === 0) throw new Error('empty pipe')
      return cmd.cmds.map(renderOperand).join(' | ')
    case 'group':
      return `( ${render(cmd.cmd)} )`
    case 'redirect': {
      const parts = [renderOperand(cmd.cmd)]
      if (cmd.stdin !== undefined) parts.push(`< ${quote(cmd.stdin)}`)
      if (cmd.stdout !== undefined) parts.push(`${cmd.append ? '>>' : '>'} ${quote(cmd.stdout)}`)
      if (cmd.stderr === 'stdout') parts.push('2>&1')
      else if (cmd.stderr) parts.push(`2> ${quote(cmd.stderr.path)}`)
      return parts.join(' ')
    }
  }
}

/** Operands of a sequence, pipe or redirect that are themselves compound get a group. */
function renderOperand(cmd: Cmd): string {
  return cmd.kind === 'argv' || cmd.kind === 'group' ? render(cmd) : `( ${render(cmd)} )`
}

/**
 * Render a whole remote script: strict mode first, so a failing step fails the script and a
 * failing stage fails its pipeline.
 */
export function renderScript(cmd: Cmd): string {
  // dash has no pipefail, and a failing `set` would end the script: probe in a subshell first.
  return `set -eu; if (set -o pipefail) 2>/dev/null; then set -o pipefail; fi; ${render(cmd)}`
}

// Small constructors, so call sites read like the command they build.
export const argv = (...args: string[]): Argv => ({ kind: 'argv', argv: args })
export const withEnv = (env: Record<string, string>, ...args: string[]): Argv => ({ kind: 'argv', argv: args, env })
export const and = (...cmds: Cmd[]): Sequence => ({ kind: 'seq', op: '&&', cmds })
export const or = (...cmds: Cmd[]): Sequence => ({ kind: 'seq', op: '||', cmds })
// Not named `then`: a module exporting `then` is a thenable and `await import()` of it never settles.
export const seq = (...cmds: Cmd[]): Sequence => ({ kind: 'seq', op: ';', cmds })
export const pipe = (...cmds: Cmd[]): Pipe => ({ kind: 'pipe', cmds })
export const group = (cmd: Cmd): Group => ({ kind: 'group', cmd })
export const toFile = (cmd: Cmd, path: string, append = false): Redirect => ({ kind: 'redirect', cmd, stdout: path, append })
export const mergeStderr = (cmd: Cmd): Redirect => ({ kind: 'redirect', cmd, stderr: 'stdout' })

/** A program that runs `script` (a fixed, reviewed script text shipped with the tool) via `sh -c`. */
export const shScript = (script: string, ...args: string[]): Argv => argv('sh', '-c', script, 'sh', ...args)
