/**
 * The CLI: a thin adapter. It parses arguments, calls a task, and prints the task's text (or JSON
 * with --json). Exit codes: 0 ok, 1 the manifest or cluster is wrong, 2 wrong usage, 3 a bug.
 */
import { closeSync, openSync, readSync, writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { inertJson, logSink } from '../report/log-sink.js'
import { renderManifestJsonSchema } from '../manifest/json-schema.js'
import { deployTask, rollbackTask } from '../tasks/deploy.js'
import { diagnoseTask } from '../tasks/diagnose.js'
import { labDownTask, labScenarioTask, labStatusTask, labUpTask } from '../tasks/lab.js'
import { lockTask } from '../tasks/lock.js'
import { type TaskOutcome, usageError } from '../tasks/outcome.js'
import { planTask } from '../tasks/plan.js'
import { preflightTask } from '../tasks/preflight.js'
import type { SshCredentials } from '../transport/targets.js'
import { smokeTask } from '../tasks/smoke.js'
import { validateTask } from '../tasks/validate.js'

export const USAGE = `vllm-ray-deploy: roll vLLM out across a Ray cluster over SSH, and prove it is wired right

usage: vllm-ray-deploy <command> [options]

commands:
  validate  --manifest F [--json]              check a cluster manifest; every error with file:line:col
  plan      --manifest F [--json] [--image REF] [--release ID]
                                               the exact commands a deploy runs, node by node
  preflight --manifest F [--json] [--ssh-key F] [--known-hosts F] [--facts-out F]
                                               gather facts from every node and Ray; check Ray/vLLM identity
  smoke     --manifest F [--json] [--ssh-key F] [--known-hosts F]
                                               wait for vLLM, prove it answers (TTFT, ITL, p95) and spans the cluster
  diagnose  [--facts F] [--ray-nodes F] [--ray-status F] [--log F ...] [--manifest F] [--json]
            [--launch-script F] [--fix-out F]  the same checks offline, on files you have; a launch script
                                               read before it runs, its fixes as one patch (--fix-out)
  lab up [--nodes N] | lab down [--purge] | lab status [--json]
                                               simulated DGX Spark nodes in Docker on this machine
  lab scenario healthy|seed-bug|worker-override [--serve]
                                               start Ray on the lab with that launch script (and vLLM)
  deploy    --manifest F [--release ID] [--image REF] [--force] [--on-failure rollback|stop|keep] [--wait-lock] [--json]
                                               roll a release out through every gate; unchanged content restarts nothing
  rollback  --manifest F [--to RELEASE] [--wait-lock] [--json]
                                               start an earlier release from its files on the nodes, make it current
  lock status|release --manifest F [--force] [--ssh-key F] [--known-hosts F]
                                               the deploy lock on the head; release removes an expired lock, --force any
  schema                                       print the manifest's JSON Schema

SSH credentials (preflight, smoke, deploy, rollback): --ssh-key F or $VRD_SSH_PRIVATE_KEY (key text), and for a key with a passphrase
--ssh-key-passphrase F (a file holding it) or $VRD_SSH_KEY_PASSPHRASE; host keys are pinned in the
manifest (ssh.hostKeys) or given with --known-hosts F or $VRD_KNOWN_HOSTS (text).
deploy/rollback: Ctrl-C or SIGTERM stops the step in flight (an image transfer too), leaves current unchanged, exits 130.
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

const OPTIONS = {
  manifest: { type: 'string' },
  json: { type: 'boolean' },
  image: { type: 'string' },
  release: { type: 'string' },
  'ssh-key': { type: 'string' },
  'ssh-key-passphrase': { type: 'string' },
  'known-hosts': { type: 'string' },
  'facts-out': { type: 'string' },
  facts: { type: 'string' },
  'ray-nodes': { type: 'string' },
  'ray-status': { type: 'string' },
  'launch-script': { type: 'string' },
  'fix-out': { type: 'string' },
  log: { type: 'string', multiple: true },
  nodes: { type: 'string' },
  purge: { type: 'boolean' },
  serve: { type: 'boolean' },
  force: { type: 'boolean' },
  'on-failure': { type: 'string' },
  to: { type: 'string' },
  'wait-lock': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const

type Parsed = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>
type Values = Parsed['values']

function need(values: Values, name: 'manifest'): string | TaskOutcome {
  return values[name] ?? usageError(`--${name} is required (the cluster manifest, e.g. --manifest cluster.yml)`)
}

/** SSH credentials from --ssh-key / $VRD_SSH_PRIVATE_KEY and --known-hosts / $VRD_KNOWN_HOSTS. */
function sshCredentialsFrom(values: Values, io: CliIo, command: string): SshCredentials | TaskOutcome {
  const key = values['ssh-key'] ? readText(values['ssh-key'], 'SSH key') : io.env.VRD_SSH_PRIVATE_KEY
  if (key === undefined || key === '') return usageError(`${command} needs an SSH private key: --ssh-key FILE or $VRD_SSH_PRIVATE_KEY`)
  if (typeof key !== 'string') return key
  const known = values['known-hosts'] ? readText(values['known-hosts'], 'known_hosts') : io.env.VRD_KNOWN_HOSTS
  if (known !== undefined && typeof known !== 'string') return known
  // The passphrase from a file (never a command-line value, which `ps` shows), or the environment.
  const file = values['ssh-key-passphrase']
  const passphrase = file ? readText(file, 'SSH key passphrase') : io.env.VRD_SSH_KEY_PASSPHRASE
  if (passphrase !== undefined && typeof passphrase !== 'string') return passphrase
  const phrase = passphrase?.replace(/\r?\n$/, '')
  return { privateKey: key, ...(phrase && { passphrase: phrase }), ...(known && { knownHosts: known }) }
}

function readText(path: string, what: string): string | TaskOutcome {
  try {
    // Keys and known_hosts are a few KiB: read at most 1 MiB (a path to /dev/zero is an error, not a crash).
    const fd = openSync(path, 'r')
    try {
      const buf = Buffer.alloc(1024 * 1024 + 1)
      const n = readSync(fd, buf, 0, buf.length, null)
      if (n > 1024 * 1024) return usageError(`${what} ${path} is larger than 1 MiB; give the file itself`)
      return buf.subarray(0, n).toString('utf8')
    } finally {
      closeSync(fd)
    }
  } catch (err) {
    return usageError(`cannot read ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`)
  }
}

async function dispatch(positionals: string[], values: Values, io: CliIo): Promise<TaskOutcome | 'help'> {
  const [command, sub] = positionals
  const progress = (m: string) => io.err(`${m}\n`)
  switch (command) {
    case undefined:
    case 'help':
      return 'help'
    case 'validate': {
      const m = need(values, 'manifest')
      return typeof m === 'string' ? validateTask(m) : m
    }
    case 'plan': {
      const m = need(values, 'manifest')
      return typeof m === 'string' ? planTask(m, { ...(values.image && { image: values.image }), ...(values.release && { release: values.release }) }) : m
    }
    case 'smoke':
    case 'preflight': {
      const m = need(values, 'manifest')
      if (typeof m !== 'string') return m
      const creds = sshCredentialsFrom(values, io, command)
      if ('exitCode' in creds) return creds
      const { privateKey: key, knownHosts: known } = creds
      const credentials = { privateKey: key, ...(known && { knownHosts: known }) }
      if (command === 'smoke') return smokeTask(m, { credentials, env: io.env, onProgress: progress })
      const outcome = await preflightTask(m, { credentials, onProgress: progress })
      if (values['facts-out']) {
        const facts = outcome.files.find((f) => f.output === 'facts-file')
        if (facts) writeFileSync(values['facts-out'], facts.content)
      }
      return outcome
    }
    case 'diagnose': {
      const outcome = await diagnoseTask({
        ...(values.facts && { facts: values.facts }),
        ...(values['ray-nodes'] && { rayNodes: values['ray-nodes'] }),
        ...(values['ray-status'] && { rayStatus: values['ray-status'] }),
        ...(values.log && { logs: values.log }),
        ...(values.manifest && { manifest: values.manifest }),
        ...(values['launch-script'] && { launchScript: values['launch-script'] }),
      })
      if (values['fix-out']) {
        const fix = outcome.files.find((f) => f.output === 'fix-file')
        // No mechanical fix: an empty file, so a script that applies it has nothing to do.
        writeFileSync(values['fix-out'], fix?.content ?? '')
      }
      return outcome
    }
    case 'lab': {
      if (sub === 'up') {
        const n = values.nodes === undefined ? undefined : Number(values.nodes)
        if (n !== undefined && !(Number.isInteger(n) && n >= 1 && n <= 4)) return usageError(`--nodes must be a whole number from 1 to 4, got ${values.nodes}`)
        return labUpTask(n, progress)
      }
      if (sub === 'down') return labDownTask(values.purge ?? false, progress)
      if (sub === 'status') return labStatusTask()
      if (sub === 'scenario') return labScenarioTask(positionals[2], values.serve ?? false, progress)
      return usageError(`lab needs up, down, status or scenario${sub ? `, not "${sub}"` : ''}`)
    }
    case 'lock': {
      const m = need(values, 'manifest')
      if (typeof m !== 'string') return m
      const credentials = sshCredentialsFrom(values, io, 'lock')
      if ('exitCode' in credentials) return credentials
      return lockTask(sub, m, { credentials, force: values.force ?? false })
    }
    case 'schema':
      return {
        exitCode: 0,
        headline: 'schema',
        text: renderManifestJsonSchema(),
        json: JSON.parse(renderManifestJsonSchema()),
        summary: '',
        annotations: [],
        outputs: { result: 'ok' },
        files: [],
      }
    case 'deploy':
    case 'rollback': {
      const m = need(values, 'manifest')
      if (typeof m !== 'string') return m
      const creds = sshCredentialsFrom(values, io, command)
      if ('exitCode' in creds) return creds
      // SIGINT / SIGTERM (a cancelled workflow): stop the step in flight (its remote command gets SIGTERM) and start no other; a second one ends the process.
      const cancel = new AbortController()
      const onSignal = (sig: NodeJS.Signals) => {
        if (cancel.signal.aborted) process.exit(130)
        io.err(`${sig}: stopping the step in flight and starting no other (again to quit at once)\n`)
        cancel.abort()
      }
      process.on('SIGINT', onSignal)
      process.on('SIGTERM', onSignal)
      try {
        const opts = {
          credentials: creds,
          ...(values['wait-lock'] && { waitLock: true }),
          env: io.env,
          signal: cancel.signal,
          onProgress: progress,
          ...(values.release && { release: values.release }),
          ...(values.image && { image: values.image }),
          ...(values.force && { force: true }),
          ...(values['on-failure'] && { onFailure: values['on-failure'] }),
          ...(values.to && { to: values.to }),
        }
        const outcome = command === 'deploy' ? await deployTask(m, opts) : await rollbackTask(m, opts)
        if (values['facts-out']) {
          const facts = outcome.files.find((f) => f.output === 'facts-file')
          if (facts) writeFileSync(values['facts-out'], facts.content)
        }
        return outcome
      } finally {
        process.off('SIGINT', onSignal)
        process.off('SIGTERM', onSignal)
      }
    }
    default:
      return usageError(`unknown command "${command}" (try: vllm-ray-deploy help)`)
  }
}

export async function main(args: readonly string[], given: CliIo = defaultIo): Promise<number> {
  // Every line printed carries node, server or paste text somewhere: all of it through the log sink.
  const io: CliIo = { ...given, out: logSink(given.out), err: logSink(given.err) }
  let parsed: Parsed
  try {
    parsed = parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true, strict: true })
  } catch (err) {
    io.err(`error: ${(err as Error).message}\n\n${USAGE}`)
    return 2
  }
  if (parsed.values.help) {
    io.out(USAGE)
    return 0
  }
  try {
    const outcome = await dispatch(parsed.positionals, parsed.values, io)
    if (outcome === 'help') {
      io.out(USAGE)
      return 0
    }
    if (parsed.values.json) given.out(`${inertJson(JSON.stringify(outcome.json, null, 2))}\n`)
    else (outcome.exitCode === 2 ? io.err : io.out)(outcome.text)
    return outcome.exitCode
  } catch (err) {
    io.err(`internal error (a bug in vllm-ray-deploy, please report it): ${(err as Error).message}\n`)
    if (io.env.VRD_DEBUG) io.err(`${(err as Error).stack}\n`)
    return 3
  }
}
