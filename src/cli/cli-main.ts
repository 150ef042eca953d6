/**
 * The CLI: a thin adapter over the command table (src/tasks/command-table.ts). It parses the command's
 * own flags (any other flag is a usage error), reads the files text options name, runs the
 * command, and prints its text (or JSON with --json). Exit codes: 0 ok, 1 the manifest or cluster is
 * wrong, 2 wrong usage, 3 a bug, 130 cancelled.
 */
import { closeSync, mkdirSync, openSync, readSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { parseArgs } from 'node:util'
import { allInWords, inWords } from '../command/option-words.js'
import { inertJson, logSink } from '../report/log-sink.js'
import { COMMANDS, type CommandSpec, type OptionKey, type OptionValues, commandSpec, option, runCommand } from '../tasks/command-table.js'
import { type TaskOutcome, usageError } from '../tasks/outcome.js'

const flagUsage = (k: OptionKey): string => {
  const o = option(k)
  return o.arg ? `--${o.flag} ${o.arg}` : `--${o.flag}`
}

/** One command's usage: name, synopsis, its flags (required ones bare, the rest in brackets), summary. */
export function commandUsage(spec: CommandSpec): string {
  const flags = spec.options.map((k) => (spec.required?.includes(k) ? flagUsage(k) : `[${flagUsage(k)}]`))
  const head = ['  ' + spec.name.padEnd(10), ...(spec.synopsis ? [spec.synopsis] : []), ...flags].join(' ')
  return `${head}\n${' '.repeat(14)}${spec.summary}\n`
}

export const USAGE = `vllm-ray-deploy: roll vLLM out across a Ray cluster over SSH, and prove it is wired right

usage: vllm-ray-deploy <command> [options]    (vllm-ray-deploy <command> --help: that command alone)

commands:
${COMMANDS.map(commandUsage).join('')}
SSH credentials (${COMMANDS.filter((c: CommandSpec) => c.ssh)
  .map((c) => c.name)
  .join(', ')}): --ssh-key F or $VRD_SSH_PRIVATE_KEY (key text), and for a key with a passphrase
--ssh-key-passphrase F (a file holding it) or $VRD_SSH_KEY_PASSPHRASE; host keys are pinned in the
manifest (ssh.hostKeys) or given with --known-hosts F or $VRD_KNOWN_HOSTS (text).
${COMMANDS.filter((c: CommandSpec) => c.cancellable)
  .map((c) => c.name)
  .join('/')}: Ctrl-C or SIGTERM stops the step in flight (an image transfer too), leaves current unchanged, exits 130; a second one quits at once.
`

export interface CliIo {
  readonly out: (s: string) => void
  readonly err: (s: string) => void
  readonly env: NodeJS.ProcessEnv
}

const defaultIo: CliIo = {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  env: process.env,
}

type ParseOptions = Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }>

/** The parseArgs options of one command: its own flags and --help, nothing else. */
function parseOptionsOf(spec: CommandSpec): ParseOptions {
  const out: ParseOptions = { help: { type: 'boolean', short: 'h' } }
  for (const k of spec.options) {
    const o = option(k)
    out[o.flag] = { type: o.type, ...(o.multiple && { multiple: true }) }
  }
  return out
}

/** A secret option's path is not echoed back: a token pasted where its file belongs must not be printed. */
function readText(path: string, flag: string, secret = false): string | TaskOutcome {
  const shown = secret ? 'F (the path given)' : path
  try {
    // Keys and known_hosts are a few KiB: read at most 1 MiB (a path to /dev/zero is an error, not a crash).
    const fd = openSync(path, 'r')
    try {
      const buf = Buffer.alloc(1024 * 1024 + 1)
      const n = readSync(fd, buf, 0, buf.length, null)
      if (n > 1024 * 1024) return usageError(`--${flag} ${shown} is larger than 1 MiB; give the file itself`)
      return buf.subarray(0, n).toString('utf8')
    } finally {
      closeSync(fd)
    }
  } catch (err) {
    return usageError(`cannot read --${flag} ${shown}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`)
  }
}

/** Flag values keyed by option; a text option's file read, the option's environment variable (table: `env`) as fallback. */
function valuesFrom(spec: CommandSpec, parsed: Record<string, unknown>, env: NodeJS.ProcessEnv): OptionValues | TaskOutcome {
  const values: Record<string, unknown> = {}
  for (const k of spec.options) {
    const o = option(k)
    const v = parsed[o.flag]
    if (v === undefined) continue
    if (o.text) {
      const text = readText(v as string, o.flag, o.secret)
      if (typeof text !== 'string') return text
      values[k] = text
    } else values[k] = v
  }
  // Secrets and keys from the environment when their flag is absent (never a command-line value).
  for (const k of spec.options) {
    const name = option(k).env
    if (name !== undefined && values[k] === undefined && env[name] !== undefined && env[name] !== '') values[k] = env[name]
  }
  return values as OptionValues
}

/** A text option's outcome file written where its flag says (fix-out: an empty file when there is no fix); the diagnostics bundle into --bundle-dir. */
function writeOutputFiles(spec: CommandSpec, parsed: Record<string, unknown>, outcome: TaskOutcome): void {
  const bundleDir = parsed[option('bundleDir').flag]
  if (spec.options.includes('bundleDir') && typeof bundleDir === 'string') {
    for (const f of outcome.files.filter((x) => x.output === 'bundle')) {
      const path = join(bundleDir, f.fileName.replace(/^bundle\//, ''))
      mkdirSync(dirname(path), { recursive: true })
      writeFileSync(path, f.content)
    }
  }
  for (const k of spec.options) {
    const o = option(k)
    const path = parsed[o.flag]
    if (!o.writes || typeof path !== 'string') continue
    const file = outcome.files.find((f) => f.output === o.writes)
    // No file (no fix): the fix patch is written empty, so a script that applies it has nothing to do.
    if (file) writeFileSync(path, file.content)
    else if (o.writes === 'fix-file') writeFileSync(path, '')
  }
}

interface CliRun {
  readonly outcome: TaskOutcome | string
  readonly json: boolean
  /** The usage shown after a usage error: the command's own, or the whole list. */
  readonly usage: string
}

async function runCli(args: readonly string[], io: CliIo): Promise<CliRun> {
  const [name, ...rest] = args
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') return { outcome: USAGE, json: false, usage: USAGE }
  const spec = commandSpec(name)
  if (!spec) {
    const hint = name.startsWith('-') ? 'the command comes first' : `unknown command "${name}"`
    return { outcome: usageError(`${hint} (try: vllm-ray-deploy help)`), json: false, usage: USAGE }
  }
  const usage = `usage:\n${commandUsage(spec)}`
  let parsed: ReturnType<typeof parseArgs>
  try {
    parsed = parseArgs({ args: rest, options: parseOptionsOf(spec), allowPositionals: true, strict: true })
  } catch (err) {
    return { outcome: usageError(`${name}: ${(err as Error).message}`), json: false, usage }
  }
  if (parsed.values.help) return { outcome: usage, json: false, usage }
  const values = valuesFrom(spec, parsed.values, io.env)
  if ('exitCode' in values) return { outcome: values, json: false, usage }
  const outcome = await runCommand(
    spec,
    { values, args: parsed.positionals, env: io.env, onProgress: (m) => io.err(`${inWords(m, 'cli')}\n`) },
    {
      howToGiveKey: '--ssh-key FILE or $VRD_SSH_PRIVATE_KEY',
      missing: (k) => `--${option(k).flag} is required${k === 'manifest' ? ' (the cluster manifest, e.g. --manifest cluster.yml)' : ''}`,
      onSecondSignal: () => process.exit(130),
    },
  )
  writeOutputFiles(spec, parsed.values, outcome)
  return { outcome: allInWords(outcome, 'cli'), json: parsed.values.json === true, usage }
}

export async function main(args: readonly string[], given: CliIo = defaultIo): Promise<number> {
  // Every line printed carries node, server or paste text somewhere: all of it through the log sink.
  const io: CliIo = { ...given, out: logSink(given.out), err: logSink(given.err) }
  try {
    const { outcome, json, usage } = await runCli(args, io)
    if (typeof outcome === 'string') {
      io.out(outcome)
      return 0
    }
    if (json) given.out(`${inertJson(JSON.stringify(outcome.json, null, 2))}\n`)
    else if (outcome.exitCode === 2) io.err(`${outcome.text}\n${usage}`)
    else io.out(outcome.text)
    return outcome.exitCode
  } catch (err) {
    io.err(`internal error (a bug in vllm-ray-deploy, please report it): ${(err as Error).message}\n`)
    if (io.env.VRD_DEBUG) io.err(`${(err as Error).stack}\n`)
    return 3
  }
}
