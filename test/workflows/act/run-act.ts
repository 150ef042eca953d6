/**
 * Runs this repository's workflows with act (nektos/act, built by `.ci/tools act`) in host mode
 * against the lab, the way GitHub would run them on the self-hosted runner:
 *
 * - a deployment repository is laid out in a temporary git repo from the adoption list (docs/workflows.md)
 *   alone (the files it says to copy, with the changes it says to make: `uses: ./` becomes
 *   `uses: example-org/vllm-ray-deploy@v0`), the lab's manifest as .github/vllm-ray-deploy.yml (and
 *   any launch scripts under .github/launch/). It holds no action.yml, no dist/, no script of ours;
 * - one line differs from the copied workflows: act (v0.2.89, the latest) rejects the workflow for
 *   `concurrency.queue: max` ("Unknown Property queue"), a GitHub server feature act does not
 *   emulate anyway (it has no concurrency), so that line is dropped from the act copy only;
 * - the action itself is the released one: action.yml and dist/ of this checkout, handed to act as
 *   `example-org/vllm-ray-deploy@v0` (--local-repository), as GitHub would fetch the tag;
 * - the lab's SSH key becomes the secret CLUSTER_SSH_KEY and its known_hosts the variable
 *   CLUSTER_KNOWN_HOSTS (act --secret-file / --var-file, YAML for multi-line values);
 * - `-P self-hosted=-self-hosted` maps the runner labels to act's host mode;
 * - actions/checkout and actions/upload-artifact, which cannot be fetched here, are replaced with the
 *   stand-ins beside this file (act --local-repository); the workflows themselves are unchanged;
 * - the event payload is one of the JSON fixtures in events/.
 */
import { execFileSync, spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { stringify } from 'yaml'

const HERE = dirname(fileURLToPath(import.meta.url))
const REPO = resolve(HERE, '..', '..', '..')

export type ActEvent = 'push' | 'workflow_dispatch' | 'schedule'

export interface DeployRepoOptions {
  /** Text of the manifest, written as .github/vllm-ray-deploy.yml. */
  readonly manifest: string
  /** Launch scripts by file name, written under .github/launch/. */
  readonly launchScripts?: Readonly<Record<string, string>>
}

export interface ActCredentials {
  readonly sshKey: string
  readonly knownHosts: string
}

export interface ActRunOptions {
  readonly event: ActEvent
  /** Workflow file name under .github/workflows. */
  readonly workflow: string
  /** Event fixture name under events/ (e.g. `dispatch-smoke.json`). */
  readonly eventFile: string
  readonly credentials: ActCredentials
  readonly timeoutMs?: number
  readonly onLine?: (line: string) => void
}

export interface ActStep {
  readonly job: string
  readonly step: string
  readonly ok: boolean
}

export interface ActResult {
  readonly exitCode: number | null
  readonly log: string
  readonly durationMs: number
  /** `Success`/`Failure` lines act prints per step, in order. */
  readonly steps: readonly ActStep[]
  /** The job summaries act read from GITHUB_STEP_SUMMARY after each step (its `⚙ Summary -` lines). */
  readonly summaries: readonly string[]
  /** Files the upload-artifact stand-in kept, by artifact name, then by file name. */
  readonly artifacts: ReadonlyMap<string, ReadonlyMap<string, string>>
  readonly jobSucceeded: boolean
}

/** The pinned act binary, built from the Go module proxy when missing. */
export const actBinary = (): string =>
  execFileSync('bash', [join(REPO, '.ci', 'tools'), 'act'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim()

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=act test', '-c', 'user.email=act@example.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd, stdio: 'ignore' })

/** How the consumer's workflows name the action (docs/workflows.md: `uses: your-org/vllm-ray-deploy@v0`). */
export const ACTION_REF = 'example-org/vllm-ray-deploy@v0'
const MANIFEST_PATH = '.github/vllm-ray-deploy.yml'

/** The adoption list of docs/workflows.md: each file to copy and where it goes. */
export function adoptionList(doc = readFileSync(join(REPO, 'docs', 'workflows.md'), 'utf8')): { from: string; to: string }[] {
  const block = /<!-- adoption-files:start[^>]*-->\n([\s\S]*?)<!-- adoption-files:end -->/.exec(doc)?.[1]
  if (!block) throw new Error('docs/workflows.md has no adoption-files block')
  return block
    .split('\n')
    .map((l) => /^\| `([^`]+)` \| `([^`]+)` \|/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ from: m[1]!, to: m[2]! }))
}

/** The released action as GitHub fetches it for `uses: ACTION_REF`: action.yml and dist/. */
export function releasedAction(): string {
  if (!existsSync(join(REPO, 'dist', 'index.js'))) throw new Error('dist/index.js is missing: npm run build')
  const dir = mkdtempSync(join(tmpdir(), 'vrd-act-action-'))
  cpSync(join(REPO, 'action.yml'), join(dir, 'action.yml'))
  cpSync(join(REPO, 'dist'), join(dir, 'dist'), { recursive: true })
  return dir
}

/** The workflow without its `queue: max` line (act cannot read it; see the header). */
export function withoutQueue(text: string): string {
  const out = text.replace(/^ +queue: max\n/m, '')
  if (/^\s*queue:/m.test(out)) throw new Error('a workflow has a queue: setting other than one `queue: max`')
  return out
}

/** A deployment repository for the lab, built from the adoption list (docs/workflows.md) alone. */
export function makeDeployRepo(opts: DeployRepoOptions): string {
  const root = mkdtempSync(join(tmpdir(), 'vrd-act-repo-'))
  for (const { from, to } of adoptionList()) {
    mkdirSync(dirname(join(root, to)), { recursive: true })
    // The manifest is the one file the user writes for their own nodes: here, the lab's.
    if (to === MANIFEST_PATH) writeFileSync(join(root, to), opts.manifest)
    else if (to.startsWith('.github/workflows/'))
      writeFileSync(join(root, to), withoutQueue(readFileSync(join(REPO, from), 'utf8')).replaceAll('uses: ./', `uses: ${ACTION_REF}`))
    else cpSync(join(REPO, from), join(root, to))
  }
  for (const [name, text] of Object.entries(opts.launchScripts ?? {})) {
    mkdirSync(join(root, '.github', 'launch'), { recursive: true })
    writeFileSync(join(root, '.github', 'launch', name), text, { mode: 0o755 })
  }
  git(root, 'init', '-q')
  git(root, 'add', '-A')
  git(root, 'commit', '-q', '-m', 'cluster deployment repository (act test)')
  git(root, 'remote', 'add', 'origin', 'https://github.com/example-org/cluster-deploy.git')
  return root
}

/** Record a change in the deployment repository (a new commit, as a push would bring). */
export function commitChange(repo: string, path: string, text: string, message: string): void {
  mkdirSync(dirname(join(repo, path)), { recursive: true })
  writeFileSync(join(repo, path), text)
  git(repo, 'add', '-A')
  git(repo, 'commit', '-q', '-m', message)
}

const STEP_RESULT = /^\[([^\]]+)\]\s+(✅|❌)\s+(Success|Failure) - (.+?)(?: \[[^\]]*\])?$/

function parseSummaries(log: string): string[] {
  const out: string[] = []
  const lines = log.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const m = /^\[[^\]]+\]\s+⚙\s+Summary - (.*)$/.exec(lines[i]!)
    if (!m) continue
    const body = [m[1]!]
    while (i + 1 < lines.length && !/^\[[^\]]+\] /.test(lines[i + 1]!)) body.push(lines[++i]!)
    out.push(body.join('\n'))
  }
  return out
}

function readArtifacts(dir: string): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>()
  if (!existsSync(dir)) return out
  for (const name of readdirSync(dir)) {
    const files = new Map<string, string>()
    const walk = (d: string, prefix: string) => {
      for (const f of readdirSync(d)) {
        const p = join(d, f)
        if (statSync(p).isDirectory()) walk(p, `${prefix}${f}/`)
        else files.set(`${prefix}${f}`, readFileSync(p, 'utf8'))
      }
    }
    walk(join(dir, name), '')
    out.set(name, files)
  }
  return out
}

export async function runAct(repo: string, opts: ActRunOptions): Promise<ActResult> {
  const act = actBinary()
  const work = mkdtempSync(join(tmpdir(), 'vrd-act-run-'))
  const artifacts = join(work, 'artifacts')
  mkdirSync(artifacts)
  // Exactly how GitHub hands them to the workflow: a secret and a repository variable.
  writeFileSync(join(work, 'secrets.yml'), stringify({ CLUSTER_SSH_KEY: opts.credentials.sshKey }), { mode: 0o600 })
  writeFileSync(join(work, 'vars.yml'), stringify({ CLUSTER_KNOWN_HOSTS: opts.credentials.knownHosts }))
  const args = [
    opts.event,
    '-C',
    repo,
    '-W',
    join('.github', 'workflows', opts.workflow),
    '-e',
    join(HERE, 'events', opts.eventFile),
    '-P',
    'self-hosted=-self-hosted',
    '--secret-file',
    join(work, 'secrets.yml'),
    '--var-file',
    join(work, 'vars.yml'),
    '--local-repository',
    `actions/checkout@v6=${join(HERE, 'actions', 'checkout')}`,
    '--local-repository',
    `actions/upload-artifact@v4=${join(HERE, 'actions', 'upload-artifact')}`,
    '--local-repository',
    `${ACTION_REF}=${releasedAction()}`,
    '--no-cache-server',
    '--env',
    `VRD_ACT_ARTIFACTS=${artifacts}`,
  ]
  // A bare environment: the job sees what a runner has, not this test's variables (act's host mode
  // passes its own environment to the job). Its caches and the job's workspace go under `work`.
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', XDG_CACHE_HOME: join(work, 'cache'), LANG: 'C.UTF-8' }
  const started = Date.now()
  const child = spawn(act, args, { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let log = ''
  let pending = ''
  const take = (chunk: Buffer) => {
    const text = chunk.toString('utf8')
    log += text
    pending += text
    const lines = pending.split('\n')
    pending = lines.pop() ?? ''
    for (const l of lines) opts.onLine?.(l)
  }
  child.stdout.on('data', take)
  child.stderr.on('data', take)
  const timeout = setTimeout(() => child.kill('SIGTERM'), opts.timeoutMs ?? 900_000)
  const exitCode = await new Promise<number | null>((res) => child.on('close', (code) => res(code)))
  clearTimeout(timeout)
  const steps: ActStep[] = []
  for (const line of log.split('\n')) {
    const m = STEP_RESULT.exec(line)
    // act pads job names to one width when several jobs print.
    if (m) steps.push({ job: m[1]!.trim(), step: m[4]!, ok: m[3] === 'Success' })
  }
  return {
    exitCode,
    log,
    durationMs: Date.now() - started,
    steps,
    summaries: parseSummaries(log),
    artifacts: readArtifacts(artifacts),
    jobSucceeded: /🏁\s+Job succeeded/.test(log) && !/🏁\s+Job failed/.test(log),
  }
}
