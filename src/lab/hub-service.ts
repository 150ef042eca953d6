/**
 * `lab hub up|down|status`: the lab's hub mirror (hub_mirror.py, hub-mirror.ts) as a service a
 * person starts by hand, to try `model.source.hub` against the lab: it serves one model directory
 * at a pinned commit on the lab's management gateway, with a token of its own, until `lab hub down`.
 * Its state lives in the lab directory (`hub/`): the token file (0600), the mirror's log, and
 * hub.json (pid, endpoint, repo, commit), so `down` and `status` find the process `up` started.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { hubMirrorScript } from './hub-mirror.js'
import { MGMT_NETWORK } from './layout.js'
import { ok } from '../result/result.js'
import { type LabResult, labFail } from './lab-problem.js'
import { resolveLabDir } from './paths.js'

export interface HubService {
  readonly pid: number
  readonly endpoint: string
  readonly repo: string
  readonly commit: string
  readonly dir: string
  readonly tokenFile: string
  readonly logFile: string
}

const REPO = /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/
/** The mirror's folder in the lab dir, and its state file. */
function hubFiles(labDir?: string): LabResult<{ readonly dir: string; readonly state: string }> {
  const root = resolveLabDir(labDir)
  if (!root.ok) return root
  const dir = join(root.value, 'hub')
  return ok({ dir, state: join(dir, 'hub.json') })
}
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** The mirror `up` started, while its process lives (undefined when none runs). */
export function hubStatus(labDir?: string): LabResult<HubService | undefined> {
  const files = hubFiles(labDir)
  return files.ok ? ok(runningMirror(files.value.state)) : files
}

function runningMirror(file: string): HubService | undefined {
  if (!existsSync(file)) return undefined
  try {
    const s = JSON.parse(readFileSync(file, 'utf8')) as HubService
    return Number.isInteger(s.pid) && alive(s.pid) ? s : undefined
  } catch {
    return undefined
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Starts the mirror for `dir` (served as `repo`), detached from this process. Waits for its
 * `listening` line (or its exit) before it returns. `bind`: default the lab's management gateway
 * (`VRD_LAB_HUB_BIND` overrides, e.g. 127.0.0.1 without a lab).
 */
export async function hubUp(o: {
  readonly dir: string
  readonly repo?: string
  readonly labDir?: string
  readonly bind?: string
}): Promise<LabResult<HubService>> {
  const files = hubFiles(o.labDir)
  if (!files.ok) return files
  const running = runningMirror(files.value.state)
  if (running) return ok(running)
  const model = resolve(o.dir)
  if (!existsSync(model) || !statSync(model).isDirectory())
    return labFail('bad-input', `lab hub up: ${model} is not a directory`, 'give the directory of the model to serve: lab hub up MODEL_DIR [org/name]')
  const repo = o.repo ?? 'vrd-lab/model'
  if (!REPO.test(repo)) return labFail('bad-input', `lab hub up: ${JSON.stringify(repo)} is not a repository id (org/name)`, 'name it org/name')
  const { dir, state } = files.value
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const tokenFile = join(dir, 'token')
  writeFileSync(tokenFile, `hf_lab${randomBytes(16).toString('hex')}\n`, { mode: 0o600 })
  const logFile = join(dir, 'mirror.log')
  const log = openSync(logFile, 'w')
  const bind = o.bind ?? (process.env.VRD_LAB_HUB_BIND || MGMT_NETWORK.gateway)
  const child = spawn(
    'python3',
    [hubMirrorScript(), '--bind', bind, '--port', '0', '--repo', repo, '--dir', model, '--token-file', tokenFile, '--control', dir],
    { detached: true, stdio: ['ignore', log, log] },
  )
  closeSync(log)
  let exited: number | null | undefined
  child.on('exit', (code) => (exited = code))
  child.unref()
  // The mirror's first line says where it listens; a mirror that cannot start exits with its reason.
  const deadline = Date.now() + 60_000
  for (;;) {
    const text = readFileSync(logFile, 'utf8')
    const line = text.split('\n').find((l) => l.includes('"event": "listening"'))
    if (line) {
      const doc = JSON.parse(line) as { port: number; commit: string }
      const s: HubService = { pid: child.pid!, endpoint: `http://${bind}:${doc.port}`, repo, commit: doc.commit, dir: model, tokenFile, logFile }
      writeFileSync(state, `${JSON.stringify(s, null, 2)}\n`)
      return ok(s)
    }
    if (exited !== undefined || Date.now() > deadline)
      return labFail(
        'command-failed',
        `lab hub up: the mirror ${exited !== undefined ? `exited (${exited})` : 'did not start within 60 s'}`,
        bind === MGMT_NETWORK.gateway ? 'bring the lab up first (vllm-ray-deploy lab up): the mirror listens on its management gateway' : `check ${logFile}`,
        text.slice(-2000),
      )
    await sleep(100)
  }
}

/** Stops the mirror `up` started (SIGTERM, then waits for it to go); false when none ran. */
export async function hubDown(labDir?: string): Promise<LabResult<boolean>> {
  const files = hubFiles(labDir)
  if (!files.ok) return files
  const s = runningMirror(files.value.state)
  rmSync(files.value.state, { force: true })
  if (!s) return ok(false)
  process.kill(s.pid, 'SIGTERM')
  for (let i = 0; i < 100 && alive(s.pid); i++) await sleep(100)
  if (alive(s.pid)) process.kill(s.pid, 'SIGKILL')
  return ok(true)
}

/** The manifest lines and the environment that use the mirror. */
export function hubUsage(s: HubService): string[] {
  return [
    `hub mirror: ${s.endpoint} serves ${s.dir} as ${s.repo}@${s.commit} (pid ${s.pid}, log ${s.logFile})`,
    'use it in a lab manifest:',
    '  model:',
    '    path: /var/lib/vrd/models/lab-hub',
    '    source:',
    `      hub: { repo: ${s.repo}, revision: ${s.commit}, endpoint: "${s.endpoint}", allowInsecure: true }`,
    `and give the deploy its token: HF_TOKEN="$(cat ${s.tokenFile})" (or --hf-token-file ${s.tokenFile})`,
    'stop it with: vllm-ray-deploy lab hub down',
  ]
}
