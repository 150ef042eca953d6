/**
 * The lab's Hugging Face hub mirror (src/lab/hub-mirror/hub_mirror.py), started on this machine
 * and bound to the lab's management gateway (172.30.230.1): the nodes reach it directly (INPUT on
 * this machine, never forwarded, so the egress guard leaves it alone), and so does a container
 * with `--network host` on a node. It serves one model directory at one pinned commit and
 * requires one bearer token; its JSON request log (never the token) is read as events here.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { MGMT_NETWORK } from './layout.js'
import { labProblem, labProblemText } from './lab-problem.js'
import { repoRoot } from './paths.js'

export interface HubMirrorRequest {
  readonly event: 'request'
  readonly method: string
  readonly path: string
  readonly status: number
  readonly auth: 'ok' | 'bad' | 'none'
  readonly bytes: number
}
export interface HubMirrorStalled {
  readonly event: 'stalled' | 'corrupted' | 'endless'
  readonly path: string
  readonly bytes: number
}
export type HubMirrorEvent = HubMirrorRequest | HubMirrorStalled

export interface HubMirrorFile {
  readonly path: string
  readonly size: number
  readonly oid: string
  readonly lfs?: { readonly oid: string; readonly size: number }
}

export interface HubMirror {
  /** `HF_ENDPOINT` for a node (and for this machine). */
  readonly endpoint: string
  readonly repo: string
  /** The pinned commit the mirror serves (also under `main`). */
  readonly commit: string
  readonly files: readonly HubMirrorFile[]
  /** Every event so far, in order. */
  readonly events: readonly HubMirrorEvent[]
  /** Resolves with the first event (from `from` on) that `pred` accepts. */
  waitFor(pred: (e: HubMirrorEvent) => boolean, from?: number): Promise<HubMirrorEvent>
  /** Files whose GET sends half and then holds the connection (none: back to normal). */
  stall(paths: readonly string[]): Promise<void>
  /** Files whose GET sends the right number of wrong bytes, while the listing keeps the true digests (none: back to normal). */
  corrupt(paths: readonly string[]): Promise<void>
  /** Files whose GET has no length and never ends (none: back to normal). */
  endless(paths: readonly string[]): Promise<void>
  /** LFS files answered 302 to the same path under `base` (another mirror: the hub's CDN); undefined: served here again. */
  redirect(base: string | undefined): Promise<void>
  stop(): Promise<void>
}

export interface HubMirrorOptions {
  readonly repo: string
  /** The model directory to serve. */
  readonly dir: string
  readonly token: string
  /** Serve without asking for the token (a CDN the hub redirects to); requests still log whether one came. */
  readonly open?: boolean
  /** Default: the lab's management gateway, so the nodes reach it. */
  readonly bind?: string
  readonly python?: string
}

export const hubMirrorScript = (): string => join(repoRoot() ?? process.cwd(), 'src', 'lab', 'hub-mirror', 'hub_mirror.py')

/**
 * The tests' mirror (the CLI's is hub-service.ts): a mirror that exits rejects `listening` and every
 * `waitFor` with an Error whose message is the lab's Problem text, and the test fails on it.
 */
export async function startHubMirror(o: HubMirrorOptions): Promise<HubMirror> {
  const work = await mkdtemp(join(tmpdir(), 'vrd-hub-mirror-'))
  const tokenFile = join(work, 'token')
  await writeFile(tokenFile, o.token, { mode: 0o600 })
  const bind = o.bind ?? MGMT_NETWORK.gateway
  const child: ChildProcess = spawn(
    o.python ?? 'python3',
    [
      hubMirrorScript(),
      '--bind',
      bind,
      '--port',
      '0',
      '--repo',
      o.repo,
      '--dir',
      o.dir,
      '--token-file',
      tokenFile,
      '--control',
      work,
      ...(o.open ? ['--open'] : []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let stderr = ''
  child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)))
  const events: HubMirrorEvent[] = []
  const waiters: { pred: (e: HubMirrorEvent) => boolean; from: number; resolve: (e: HubMirrorEvent) => void; reject: (e: Error) => void }[] = []
  let exited: Error | undefined
  const listening = new Promise<{ port: number; commit: string; files: HubMirrorFile[] }>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let doc: Record<string, unknown>
      try {
        doc = JSON.parse(line) as Record<string, unknown>
      } catch {
        return
      }
      if (doc.event === 'listening') return resolve(doc as unknown as { port: number; commit: string; files: HubMirrorFile[] })
      const e = doc as unknown as HubMirrorEvent
      events.push(e)
      for (const w of [...waiters])
        if (events.length - 1 >= w.from && w.pred(e)) {
          waiters.splice(waiters.indexOf(w), 1)
          w.resolve(e)
        }
    })
    child.on('exit', (code, signal) => {
      exited = new Error(
        labProblemText(
          labProblem('command-failed', `the hub mirror exited (${signal ?? `exit ${code}`})`, `check ${hubMirrorScript()} runs with python3 here`, stderr),
        ),
      )
      reject(exited)
      for (const w of waiters.splice(0)) w.reject(exited)
    })
    child.on('error', reject)
  })
  const info = await listening
  const control = async (name: string, paths: readonly string[]) => {
    if (paths.length === 0) await rm(join(work, name), { force: true })
    else await writeFile(join(work, name), `${paths.join('\n')}\n`)
  }
  return {
    endpoint: `http://${bind}:${info.port}`,
    repo: o.repo,
    commit: info.commit,
    files: info.files,
    events,
    waitFor(pred, from = 0) {
      const seen = events.slice(from).find(pred)
      if (seen) return Promise.resolve(seen)
      if (exited) return Promise.reject(exited)
      return new Promise((resolve, reject) => waiters.push({ pred, from, resolve, reject }))
    },
    stall: (paths) => control('stall', paths),
    corrupt: (paths) => control('corrupt', paths),
    endless: (paths) => control('endless', paths),
    redirect: (base) => control('redirect', base ? [base] : []),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const gone = new Promise((r) => child.once('exit', r))
        child.kill('SIGTERM')
        await gone
      }
      await rm(work, { recursive: true, force: true })
    },
  }
}

/** The GETs of file contents (`/{repo}/resolve/...`) among `events`: one per file downloaded. */
export const fileDownloads = (events: readonly HubMirrorEvent[], repo: string): HubMirrorRequest[] =>
  events.filter((e): e is HubMirrorRequest => e.event === 'request' && e.method === 'GET' && e.path.startsWith(`/${repo}/resolve/`))
