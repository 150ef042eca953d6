/**
 * The one table of commands, read by both front doors: the CLI's usage text, its per-command flags
 * (a flag the command does not list is a usage error) and dispatch; the Action's `command` values,
 * its input names and which commands each input and output serves (test/action/action-contract
 * holds action.yml's inputs, outputs and their descriptions against this table).
 *
 * Adding a command: one row in COMMANDS (and its options in OPTIONS if new), its task, then
 * `npm run schema`: action.yml (with src/action/action-yml.ts: the command list, each input and
 * output with the commands that use it; a new input or output also needs its text there) and the
 * README's command table (each row's `readme`, else its `summary`) are generated from this table.
 */
import { OPTIONS, type OptionEntry } from '../command/options.js'
import type { LockHolder } from '../deploy/deploy-lock.js'
import type { RolloutStage } from '../deploy/rollout.js'
import type { SshCredentials } from '../transport/targets.js'
import { type OutputName, type TaskOutcome, usageError } from './outcome.js'
import { redactOutcome, redactText, secretsOfRun } from './redact.js'

export { OPTIONS }

/** An option's entry, with `writes` one of the outcome's output names. */
export interface OptionSpec extends OptionEntry {
  readonly writes?: OutputName
  /** The CLI takes the value from this environment variable when the flag is not given. */
  readonly env?: string
  /** A secret: the Action masks it (core.setSecret) before anything can print it. */
  readonly secret?: boolean
}

export type OptionKey = keyof typeof OPTIONS
/** One option's entry, as the general shape (for code that walks the table); its return type holds each `writes` to a real output name. */
export const option = (k: OptionKey): OptionSpec => OPTIONS[k]
type ValueOf<K extends OptionKey> = (typeof OPTIONS)[K] extends { multiple: true }
  ? readonly string[]
  : (typeof OPTIONS)[K]['type'] extends 'boolean'
    ? boolean
    : string
/** The options a command was given, the same shape from both doors (text options hold the text). */
export type OptionValues = { readonly [K in OptionKey]?: ValueOf<K> }

/** What a front door hands a command besides its options. */
export interface CommandContext {
  readonly values: OptionValues
  /** Words after the command (lab up, lock status, lab scenario NAME). */
  readonly args: readonly string[]
  readonly env: NodeJS.ProcessEnv
  readonly onProgress: (m: string) => void
  readonly signal?: AbortSignal
  /** SSH credentials, assembled once from the sshKey / knownHosts options (commands with `ssh`). */
  readonly credentials?: SshCredentials
  /** The Action's hooks: log groups per rollout stage, and the lock saved for its post step. */
  readonly onStage?: (stage: RolloutStage, event: 'start' | 'end') => void
  readonly onLock?: (lock: { readonly holder: LockHolder; readonly cluster: string } | undefined) => void
}

export interface CommandSpec {
  readonly name: string
  /** The CLI usage's argument line after the name (options are listed from `options`). */
  readonly synopsis?: string
  readonly summary: string
  /** The README's cell for it when it says more than `summary` (Markdown, links from the repository root); the README's command table is generated from the table (npm run schema). */
  readonly readme?: string
  readonly options: readonly OptionKey[]
  /** Options that must be given (a usage error names the first missing one). */
  readonly required?: readonly OptionKey[]
  /** Needs SSH credentials (from sshKey / $VRD_SSH_PRIVATE_KEY, knownHosts / $VRD_KNOWN_HOSTS). */
  readonly ssh?: boolean
  /** Ctrl-C / SIGTERM stops the step in flight instead of killing the process. */
  readonly cancellable?: boolean
  /** The Action runs it; these are the outputs it may set (besides the ones every command sets). */
  readonly action?: { readonly outputs: readonly OutputName[] }
  readonly run: (ctx: CommandContext) => Promise<TaskOutcome> | TaskOutcome
}

/** Outputs every Action command sets: the result, the headline, the summary as a file. */
export const COMMON_OUTPUTS: readonly OutputName[] = ['result', 'summary', 'summary-file', 'report-dir']

const FINDINGS_OUTPUTS: readonly OutputName[] = ['findings', 'error-count', 'warning-count']
const SMOKE_FIGURES: readonly OutputName[] = ['verdict', 'model', 'ttft-ms', 'itl-ms', 'tokens-per-second', 'p95-ms']
const ROLLOUT_OUTPUTS: readonly OutputName[] = [
  'release',
  'previous-release',
  'image-id',
  'weights-id',
  'weights-bytes-moved',
  'weights-files-skipped',
  'changed',
  'rolled-back',
  'facts-file',
  'bundle',
  ...FINDINGS_OUTPUTS,
  ...SMOKE_FIGURES,
]
const ssh = ['sshKey', 'sshKeyPassphrase', 'knownHosts'] as const

const manifestOf = (ctx: CommandContext): string => ctx.values.manifest ?? ''

/**
 * The rollout's environment: the runner's, with the hub token from either door (the Action's
 * hf-token input, the CLI's file or $HF_TOKEN) as HF_TOKEN, where a step's stdin reads it.
 */
const rolloutEnv = (ctx: CommandContext): NodeJS.ProcessEnv =>
  ctx.values.hfToken ? { ...ctx.env, [option('hfToken').env!]: ctx.values.hfToken.replace(/\r?\n$/, '') } : ctx.env

const rolloutOptions = (ctx: CommandContext) => ({
  credentials: ctx.credentials!,
  env: rolloutEnv(ctx),
  onProgress: ctx.onProgress,
  ...(ctx.signal && { signal: ctx.signal }),
  ...(ctx.onStage && { onStage: ctx.onStage }),
  ...(ctx.onLock && { onLock: ctx.onLock }),
  ...(ctx.values.waitLock && { waitLock: true }),
  ...(ctx.values.release && { release: ctx.values.release }),
  ...(ctx.values.image && { image: ctx.values.image }),
  ...(ctx.values.force && { force: true }),
  ...(ctx.values.onFailure && { onFailure: ctx.values.onFailure }),
  ...(ctx.values.to && { to: ctx.values.to }),
  ...(ctx.values.bundleDir !== undefined && { bundle: true }),
})

/** `schema`'s outcome: the manifest's JSON Schema as text and as JSON. */
const schemaOutcome = (text: string): TaskOutcome => ({
  exitCode: 0,
  headline: 'schema',
  text,
  json: JSON.parse(text),
  summary: '',
  annotations: [],
  outputs: { result: 'ok' },
  files: [],
})

/**
 * Each command's task is a dynamic import, loaded when that command runs: the build splits each into
 * chunks beside dist/index.js, so a process parses only the code its command needs (the Action's
 * start-up, bench row 6: `preflight` never parses the rollout's stages, the smoke test or the
 * launch-script check).
 */
export const COMMANDS = [
  {
    name: 'validate',
    summary: 'check a cluster manifest; every error with file:line:col',
    readme: 'checks a cluster manifest; every error at once, each with `file:line:col`, a message and a fix',
    options: ['manifest', 'json'],
    required: ['manifest'],
    action: { outputs: ['error-count', 'warning-count', 'cluster'] },
    run: async (ctx) => (await import('./validate.js')).validateTask(manifestOf(ctx)),
  },
  {
    name: 'plan',
    summary: 'the exact commands a deploy runs, node by node',
    readme:
      "the exact commands a deploy runs, phase by phase and node by node, with what each release's `start.sh` and `serve.sh` run and the checks and lock around them (argv as data; `--json`)",
    options: ['manifest', 'json', 'image', 'release'],
    required: ['manifest'],
    action: { outputs: ['plan', 'plan-file'] },
    run: async ({ values: v, env }) =>
      (await import('./plan-task.js')).planTask(v.manifest ?? '', { ...(v.image && { image: v.image }), ...(v.release && { release: v.release }) }, env),
  },
  {
    name: 'preflight',
    summary: 'gather facts from every node and Ray; check Ray/vLLM identity',
    readme:
      "one SSH round trip per node, in parallel: interfaces, routes, GPUs, the container's env and image, Ray/vLLM/Python versions, the IP vLLM will pin (by vLLM's own rule, inside the container), and Ray's own `ray.nodes()` and `ray status` (pending demands) from the head; then the checks ([findings.md](docs/findings.md))",
    options: ['manifest', 'json', ...ssh, 'factsOut'],
    required: ['manifest'],
    ssh: true,
    action: { outputs: [...FINDINGS_OUTPUTS, 'facts-file', 'fix-file'] },
    run: async (ctx) =>
      (await import('./preflight.js')).preflightTask(manifestOf(ctx), { credentials: ctx.credentials!, onProgress: ctx.onProgress, env: ctx.env }),
  },
  {
    name: 'smoke',
    summary: 'wait for vLLM, prove it answers (TTFT, ITL, p95) and spans the cluster',
    readme:
      "waits for vLLM on the head (the start-up watcher: `/health`, the process, the log's failure signatures), then through an SSH tunnel (or `smoke.url`) checks `/v1/models`, `/version`, every prompt, one streamed request (TTFT, ITL), an optional burst (p50/p95, tokens/s), `/metrics` before and after, and from Ray on the head that vLLM's placement group is CREATED with TP\u00d7PP bundles on the manifest's nodes at their fabric IPs ([smoke.md](docs/smoke.md))",
    options: ['manifest', 'json', ...ssh],
    required: ['manifest'],
    ssh: true,
    cancellable: true,
    action: { outputs: [...FINDINGS_OUTPUTS, ...SMOKE_FIGURES] },
    run: async (ctx) =>
      (await import('./smoke.js')).smokeTask(manifestOf(ctx), {
        credentials: ctx.credentials!,
        env: ctx.env,
        onProgress: ctx.onProgress,
        ...(ctx.signal && { signal: ctx.signal }),
      }),
  },
  {
    name: 'diagnose',
    summary: 'the same checks offline, on files you have; a launch script read before it runs, its fixes as one patch (--fix-out)',
    readme:
      "the same checks offline, on a facts bundle, a pasted `ray.nodes()` (JSON, Python repr, or the `10.1.230.180 {'node:__internal_head__': 1.0, ...}` lines people paste), `ray status` text, and logs",
    options: ['facts', 'rayNodes', 'rayStatus', 'logs', 'manifest', 'launchScript', 'fixOut', 'json'],
    action: { outputs: [...FINDINGS_OUTPUTS, 'facts-file', 'fix-file'] },
    run: async ({ values: v }) =>
      (await import('./diagnose-task.js')).diagnoseTask({
        ...(v.facts && { facts: v.facts }),
        ...(v.rayNodes && { rayNodes: v.rayNodes }),
        ...(v.rayStatus && { rayStatus: v.rayStatus }),
        ...(v.logs && { logs: v.logs }),
        ...(v.manifest && { manifest: v.manifest }),
        ...(v.launchScript && { launchScript: v.launchScript }),
      }),
  },
  {
    name: 'deploy',
    summary: 'roll a release out through every gate; unchanged content restarts nothing',
    readme:
      'rolls a release out through every gate, in order ([deploy.md](docs/deploy.md)); unchanged content restarts nothing; on failure `rollback`, `stop` or `keep`',
    options: ['manifest', 'release', 'image', 'force', 'onFailure', 'waitLock', ...ssh, 'hfToken', 'factsOut', 'bundleDir', 'json'],
    required: ['manifest'],
    ssh: true,
    cancellable: true,
    action: { outputs: [...ROLLOUT_OUTPUTS, 'fabric-test'] },
    run: async (ctx) => (await import('./deploy-task.js')).deployTask(manifestOf(ctx), rolloutOptions(ctx)),
  },
  {
    name: 'rollback',
    summary: 'start an earlier release from its files on the nodes, make it current',
    readme:
      'starts an earlier release (the one named, or the one before `current`) from its own files on the nodes, through the same gates, and makes it current; with none named, when `current` is not running on every node (a deploy stopped it and could not bring it back, a node was lost mid-rollout), it starts `current` again',
    options: ['manifest', 'to', 'waitLock', ...ssh, 'factsOut', 'bundleDir', 'json'],
    required: ['manifest'],
    ssh: true,
    cancellable: true,
    action: { outputs: ROLLOUT_OUTPUTS },
    run: async (ctx) => (await import('./deploy-task.js')).rollbackTask(manifestOf(ctx), rolloutOptions(ctx)),
  },
  {
    name: 'lock',
    synopsis: 'status|release',
    summary: 'the deploy lock on the head; release removes an expired lock (any lock when forced)',
    readme:
      "`status`, `release`: the deploy lock on the head (`<state dir>/<cluster>/deploy.lock`, taken with an atomic `mkdir`): who holds it, for which run and release, since when, until when. `release` removes an expired lock; forced, any lock. The Action's post step releases a lock its own main step left behind (by token, never someone else's)",
    options: ['manifest', 'force', ...ssh, 'json'],
    required: ['manifest'],
    ssh: true,
    run: async (ctx) =>
      (await import('./lock-task.js')).lockTask(ctx.args[0], manifestOf(ctx), { credentials: ctx.credentials!, force: ctx.values.force ?? false }),
  },
  {
    name: 'lab',
    synopsis: 'up|down|status|scenario healthy|seed-bug|worker-override|hub up MODEL_DIR [org/name]|hub down|hub status',
    summary:
      'simulated DGX Spark nodes in Docker on this machine (up --nodes, down --purge); scenario starts Ray there with that launch script (--serve: and vLLM); hub serves a model directory as a Hugging Face mirror the nodes reach',
    readme: '`up`, `down`, `status`, `scenario`, `hub`: the local lab ([lab.md](docs/lab.md))',
    options: ['nodes', 'purge', 'serve', 'json'],
    run: runLab,
  },
  {
    name: 'schema',
    summary: "print the manifest's JSON Schema",
    readme: "the manifest's JSON Schema",
    options: ['json'],
    run: async () => schemaOutcome((await import('../manifest/json-schema.js')).renderManifestJsonSchema()),
  },
] as const satisfies readonly CommandSpec[]

export type CommandName = (typeof COMMANDS)[number]['name']
type ActionSpec = Extract<(typeof COMMANDS)[number], { action: object }>
export type ActionCommand = ActionSpec['name']

/** The commands the Action runs, in table order. */
export const ACTION_COMMANDS = COMMANDS.filter((c): c is ActionSpec => 'action' in c).map((c) => c.name)

export function commandSpec(name: string): CommandSpec | undefined {
  return (COMMANDS as readonly CommandSpec[]).find((c) => c.name === name)
}

/** The Action inputs a command reads: `command` and its options' inputs. */
export function actionInputsOf(spec: CommandSpec): string[] {
  return ['command', ...spec.options.flatMap((k) => option(k).input ?? [])]
}

/** Every Action input the table names, each once, in table order. */
export const ACTION_INPUT_NAMES: readonly string[] = [...new Set((COMMANDS as readonly CommandSpec[]).filter((c) => c.action).flatMap(actionInputsOf))]

/** Which Action commands read an input (in table order). */
export function commandsReadingInput(input: string): string[] {
  return (COMMANDS as readonly CommandSpec[]).filter((c) => c.action && actionInputsOf(c).includes(input)).map((c) => c.name)
}

/** Which Action commands may set an output (in table order). */
export function commandsSettingOutput(output: OutputName): string[] {
  return (COMMANDS as readonly CommandSpec[]).filter((c) => actionOutputsOf(c).includes(output)).map((c) => c.name)
}

/** The outputs a command may set in the Action. */
export function actionOutputsOf(spec: CommandSpec): readonly OutputName[] {
  return spec.action ? [...COMMON_OUTPUTS, ...spec.action.outputs] : []
}

/**
 * `lab …`: the lab's code is loaded only here, from its own chunk of the bundle (the build splits a
 * dynamic import into a file of its own), so the Action's dist/index.js carries none of it.
 */
async function runLab(ctx: CommandContext): Promise<TaskOutcome> {
  const [sub, scenario] = ctx.args
  const v = ctx.values
  const lab = () => import('./lab-task.js')
  if (sub === 'up') {
    const n = v.nodes === undefined ? undefined : Number(v.nodes)
    if (n !== undefined && !(Number.isInteger(n) && n >= 1 && n <= 4)) return usageError(`--nodes must be a whole number from 1 to 4, got ${v.nodes}`)
    return (await lab()).labUpTask(n, ctx.onProgress)
  }
  if (sub === 'down') return (await lab()).labDownTask(v.purge ?? false, ctx.onProgress)
  if (sub === 'status') return (await lab()).labStatusTask()
  if (sub === 'scenario') return (await lab()).labScenarioTask(scenario, v.serve ?? false, ctx.onProgress)
  if (sub === 'hub') return (await lab()).labHubTask(ctx.args[1], ctx.args[2], ctx.args[3])
  return usageError(`lab needs up, down, status, scenario or hub${sub ? `, not "${sub}"` : ''}`)
}

/**
 * SSH credentials, assembled once for both doors: the key text (the CLI's --ssh-key file or
 * $VRD_SSH_PRIVATE_KEY; the Action's ssh-private-key input) and optional known_hosts text.
 */
export function sshCredentials(
  command: string,
  given: { readonly key?: string; readonly knownHosts?: string; readonly passphrase?: string },
  howToGiveKey: string,
): SshCredentials | TaskOutcome {
  const { key, knownHosts } = given
  if (key === undefined || key.trim() === '') return usageError(`${command} needs an SSH private key: ${howToGiveKey}`)
  const privateKey = key.endsWith('\n') ? key : `${key}\n`
  // A passphrase file's own line break is not part of the passphrase.
  const passphrase = given.passphrase?.replace(/\r?\n$/, '')
  return { privateKey, ...(passphrase && { passphrase }), ...(knownHosts && { knownHosts }) }
}

/**
 * Runs a command as the table says: required options, credentials, and for a cancellable command
 * SIGINT/SIGTERM turned into a cancel of the step in flight (its remote command gets SIGTERM, no
 * later step starts). `onSecondSignal` is what a second signal does (the CLI quits at once; the
 * Action lets the cancel finish within the runner's grace and leaves the lock to its post step).
 */
export async function runCommand(
  spec: CommandSpec,
  ctx: Omit<CommandContext, 'credentials' | 'signal'>,
  door: { readonly howToGiveKey: string; readonly onSecondSignal?: () => void; readonly missing: (option: OptionKey) => string },
): Promise<TaskOutcome> {
  // One redaction pass over what leaves the tool (src/tasks/redact.ts): each progress line and the outcome.
  const secrets = await secretsOfRun(ctx.values, ctx.env)
  const onProgress = secrets.length > 0 ? (m: string) => ctx.onProgress(redactText(m, secrets)) : ctx.onProgress
  const outcome = await runUnredacted(spec, { ...ctx, onProgress }, door)
  return redactOutcome(outcome, secrets)
}

async function runUnredacted(
  spec: CommandSpec,
  ctx: Omit<CommandContext, 'credentials' | 'signal'>,
  door: { readonly howToGiveKey: string; readonly onSecondSignal?: () => void; readonly missing: (option: OptionKey) => string },
): Promise<TaskOutcome> {
  const missing = spec.required?.find((k) => ctx.values[k] === undefined || ctx.values[k] === '')
  if (missing) return usageError(door.missing(missing))
  let credentials: SshCredentials | undefined
  if (spec.ssh) {
    const c = sshCredentials(
      spec.name,
      {
        ...(ctx.values.sshKey !== undefined && { key: ctx.values.sshKey }),
        ...(ctx.values.knownHosts !== undefined && { knownHosts: ctx.values.knownHosts }),
        ...(ctx.values.sshKeyPassphrase !== undefined && { passphrase: ctx.values.sshKeyPassphrase }),
      },
      door.howToGiveKey,
    )
    if ('exitCode' in c) return c
    credentials = c
  }
  if (!spec.cancellable) return spec.run({ ...ctx, ...(credentials && { credentials }) })
  const cancel = new AbortController()
  const onSignal = (sig: NodeJS.Signals) => {
    if (cancel.signal.aborted) return door.onSecondSignal?.()
    ctx.onProgress(`${sig}: stopping the step in flight and starting no other`)
    cancel.abort()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  try {
    return await spec.run({ ...ctx, ...(credentials && { credentials }), signal: cancel.signal })
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
}
