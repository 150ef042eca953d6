/**
 * The weights stage's work on the nodes: the reference manifest (a runner directory hashed here,
 * or the head's verified copy after a hub download or for files already on the nodes), every
 * node's listing compared with it, the free space checked, only the files a node lacks moved
 * (runner → node over its SSH transport, or head → worker over the fabric), each received into a
 * .partial and renamed only once its SHA-256 matches, then every node listed again: each must match.
 */
import { createReadStream } from 'node:fs'
import { mkdir, readFile, readdir, rename, stat, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { createHash } from 'node:crypto'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { Transform } from 'node:stream'
import type { Cmd } from '../../command/shell.js'
import type { Manifest, ManifestNode, ModelSettings } from '../../manifest/schema.js'
import { headOf } from '../../plan/node-commands.js'
import { listWeights, receiveWeightsFile, sendWeightsFileToWorker } from '../../plan/weights-commands.js'
import type { Finding } from '../../preflight/finding.js'
import { type Problem, type Result, fail, ok } from '../../result/result.js'
import { type RunResult, type Transport, outcome, succeeded } from '../../transport/transport.js'
import { type NodeListing, type NodeWeights, compareNode, describeNode, manifestOfListing, parseListing } from './compare.js'
import { type WeightsFile, type WeightsManifest, badFilePath, totalBytes, weightsIdentity, weightsManifest, weightsManifestText } from './manifest.js'
import { type Send, type WeightsSourceKind, pinnedRevision, planSends, sourceKind } from './plan.js'

/** One step of a hub download on one node (src/deploy/weights/hub.ts plans them). */
export interface HubStep {
  readonly cmd: Cmd
  /** Bytes for stdin (the token, never in argv). */
  readonly stdin?: string
  readonly timeoutSeconds?: number
  readonly description?: string
}
/** Plans the download of model.source.hub into `dir` on `node`. */
export type HubPlanner = (m: Manifest, node: ManifestNode, dir: string, env: NodeJS.ProcessEnv) => readonly HubStep[]

export interface NodeWeightsReport {
  readonly node: string
  /** Before anything moved: `2 ok, 1 missing (...)`. */
  readonly before: string
  readonly bytesMoved: number
  readonly filesSent: number
  readonly filesSkipped: number
}

export interface WeightsReport {
  readonly source: WeightsSourceKind
  readonly distribution: ModelSettings['distribution']
  readonly path: string
  readonly identity?: string
  readonly files: number
  readonly totalBytes: number
  /** Bytes sent from the runner (its link), and from the head to workers (the fabric). */
  readonly bytesMoved: { readonly runner: number; readonly fabric: number }
  readonly filesSent: number
  readonly filesSkipped: number
  readonly nodes: readonly NodeWeightsReport[]
  readonly durationMs: number
}

export interface WeightsOutcome {
  readonly ok: boolean
  readonly manifest?: WeightsManifest
  readonly report: WeightsReport
  readonly findings: Finding[]
  readonly problem?: Problem
}

const mb = (n: number) => (n >= 1e9 ? `${(n / 1e9).toFixed(2)} GB` : n >= 1e5 ? `${(n / 1e6).toFixed(1)} MB` : `${n} bytes`)
const rate = (n: number, ms: number) => (ms > 0 ? `${((n * 8) / (ms / 1000) / 1e6).toFixed(0)} Mbit/s` : '')
const tail = (r: RunResult) => (r.stderr || r.stdout).trim().slice(-300) || '(no output)'

/**
 * Where the runner keeps what it hashed: a file whose size, mtime, ctime and inode are unchanged is
 * not read again (the same rule as the nodes' .vrd-verified). $XDG_CACHE_HOME or ~/.cache.
 */
export const runnerHashCacheFile = (dir: string, env: NodeJS.ProcessEnv = process.env): string =>
  join(
    env.XDG_CACHE_HOME || join(homedir(), '.cache'),
    'vllm-ray-deploy',
    `weights-${createHash('sha256').update(resolve(dir)).digest('hex').slice(0, 16)}.json`,
  )

type HashCache = Record<string, { key: string; sha256: string }>

/** The cache read back; anything that is not its shape is no cache (it only saves reading files). */
async function readHashCache(file: string): Promise<HashCache> {
  try {
    const doc = JSON.parse(await readFile(file, 'utf8')) as unknown
    if (typeof doc !== 'object' || doc === null) return {}
    const out: HashCache = {}
    for (const [k, v] of Object.entries(doc as Record<string, unknown>)) {
      const e = v as { key?: unknown; sha256?: unknown }
      if (typeof e?.key === 'string' && typeof e.sha256 === 'string' && /^[0-9a-f]{64}$/.test(e.sha256)) out[k] = { key: e.key, sha256: e.sha256 }
    }
    return out
  } catch {
    return {}
  }
}

/** Hash every file of a runner directory (streamed; symlinks followed as files; names starting with . left out). */
export async function hashRunnerDir(dir: string, cacheFile?: string): Promise<Result<WeightsManifest>> {
  const root = resolve(dir)
  const files: WeightsFile[] = []
  const cache = cacheFile ? await readHashCache(cacheFile) : {}
  const next: HashCache = {}
  const walk = async (d: string): Promise<string | undefined> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const full = join(d, e.name)
      const rel = relative(root, full).split(sep).join('/')
      if (e.name.startsWith('.')) continue
      const st = await stat(full, { bigint: true })
      if (st.isDirectory()) {
        const bad = await walk(full)
        if (bad) return bad
        continue
      }
      if (!st.isFile()) continue
      const why = badFilePath(rel)
      if (why) return `${rel}: ${why}`
      const key = `${st.size} ${st.mtimeNs} ${st.ctimeNs} ${st.ino}`
      let sha256 = cache[rel]?.key === key ? cache[rel].sha256 : undefined
      if (!sha256) {
        const h = createHash('sha256')
        for await (const chunk of createReadStream(full)) h.update(chunk as Buffer)
        sha256 = h.digest('hex')
      }
      next[rel] = { key, sha256 }
      files.push({ path: rel, size: Number(st.size), sha256 })
    }
    return undefined
  }
  try {
    const bad = await walk(root)
    if (bad)
      return fail({
        code: 'WEIGHTS_SOURCE_INVALID',
        message: `model.source.runner.dir ${dir}: ${bad}`,
        evidence: { Directory: root },
        fix: 'Rename the file, or leave it out of the directory.',
      })
  } catch (err) {
    return fail({
      code: 'WEIGHTS_SOURCE_INVALID',
      message: `model.source.runner.dir ${dir} cannot be read: ${(err as Error).message}`,
      evidence: { Directory: root },
      fix: "Point model.source.runner.dir at a readable directory on the runner (relative to the manifest file's directory, or absolute).",
    })
  }
  if (cacheFile) {
    try {
      await mkdir(dirname(cacheFile), { recursive: true })
      await writeFile(`${cacheFile}.tmp`, JSON.stringify(next))
      await rename(`${cacheFile}.tmp`, cacheFile)
    } catch {
      // No cache: the next deploy reads the files again.
    }
  }
  if (files.length === 0)
    return fail({
      code: 'WEIGHTS_SOURCE_INVALID',
      message: `model.source.runner.dir ${dir} holds no files`,
      evidence: { Directory: root },
      fix: 'Put the model files there first.',
    })
  return ok(weightsManifest(files))
}

export interface WeightsRun {
  readonly m: Manifest
  readonly transports: ReadonlyMap<string, Transport>
  readonly env: NodeJS.ProcessEnv
  readonly onProgress: (line: string) => void
  readonly signal?: AbortSignal
  /** Plans a hub download (absent: a hub source cannot be fetched by this build). */
  readonly hub?: HubPlanner
  /** The working directory a relative runner dir is read from. */
  readonly cwd?: string
}

export async function deliverWeights(run: WeightsRun): Promise<WeightsOutcome> {
  const { m, transports, onProgress: say } = run
  const model = m.model!
  const kind = sourceKind(model)
  const started = Date.now()
  const head = headOf(m)
  const findings: Finding[] = []
  const timeoutMs = m.ssh.commandTimeoutSeconds * 1000
  const sig = run.signal ? { signal: run.signal } : {}
  const sent = new Map<string, { bytes: number; files: number }>()
  let runnerBytes = 0
  let fabricBytes = 0
  const befores = new Map<string, NodeWeights>()
  const report = (manifest?: WeightsManifest): WeightsReport => {
    const files = manifest?.files.length ?? 0
    const nodes = m.nodes.map((n) => {
      const s = sent.get(n.name) ?? { bytes: 0, files: 0 }
      const b = befores.get(n.name)
      return { node: n.name, before: b ? describeNode(b) : '(not listed)', bytesMoved: s.bytes, filesSent: s.files, filesSkipped: b?.okFiles ?? 0 }
    })
    return {
      source: kind,
      distribution: model.distribution,
      path: model.path,
      ...(manifest && { identity: weightsIdentity(manifest) }),
      files,
      totalBytes: manifest ? totalBytes(manifest.files) : 0,
      bytesMoved: { runner: runnerBytes, fabric: fabricBytes },
      filesSent: nodes.reduce((n, x) => n + x.filesSent, 0),
      filesSkipped: nodes.reduce((n, x) => n + x.filesSkipped, 0),
      nodes,
      durationMs: Date.now() - started,
    }
  }
  const stopWith = (problem: Problem, manifest?: WeightsManifest): WeightsOutcome => ({ ok: false, report: report(manifest), findings, problem })

  const list = async (n: ManifestNode): Promise<Result<NodeListing>> => {
    const t = transports.get(n.name)
    if (!t) return fail({ code: 'NODE_UNREACHABLE', message: `no connection to ${n.name}`, evidence: {}, fix: `Make ${n.name} reachable over SSH.` })
    const r = await t.run(listWeights(model.path), { timeoutMs, ...sig })
    if (!succeeded(r))
      return fail({
        code: 'WEIGHTS_LISTING_FAILED',
        message: `listing ${model.path} on ${n.name} failed (${outcome(r)})`,
        evidence: { Node: n.name, Output: tail(r) },
        fix: `Check that ${n.name} has sh, find, stat, sha256sum and df, and that ${model.path} is readable by the SSH user.`,
      })
    return parseListing(r.stdout, n.name)
  }
  const listAll = async (): Promise<Result<Map<string, NodeListing>>> => {
    const out = new Map<string, NodeListing>()
    const rs = await Promise.all(m.nodes.map(async (n) => [n.name, await list(n)] as const))
    for (const [name, r] of rs) {
      if (!r.ok) return r
      out.set(name, r.value)
    }
    return ok(out)
  }

  // 1. The reference: the runner's directory, or the head's copy once it holds the files.
  let reference: WeightsManifest | undefined
  if (kind === 'runner') {
    const dir = resolve(run.cwd ?? process.cwd(), model.source.runner!.dir)
    say(`hashing ${dir} on the runner`)
    const h = await hashRunnerDir(dir, runnerHashCacheFile(dir, run.env))
    if (!h.ok) return stopWith(h.problem)
    reference = h.value
    say(`${reference.files.length} files, ${mb(totalBytes(reference.files))}, identity ${weightsIdentity(reference).slice(0, 19)}…`)
  } else if (kind === 'hub') {
    const hub = model.source.hub!
    if (!pinnedRevision(hub.revision))
      findings.push({
        code: 'WEIGHTS_REVISION_NOT_PINNED',
        severity: 'warning',
        node: null,
        message: `model.source.hub.revision ${hub.revision} is a tag or a branch: what it names can move, and the release then names the words, not the files.`,
        evidence: { Repository: hub.repo, Revision: hub.revision },
        fix: `Set model.source.hub.revision to the commit (40 hex digits) shown on the repository's page for ${hub.revision}.`,
      })
    if (!run.hub)
      return stopWith({
        code: 'WEIGHTS_HUB_UNAVAILABLE',
        message: 'this build has no hub download planner for model.source.hub',
        evidence: { Repository: hub.repo },
        fix: 'Use model.source.runner or model.source.nodes, or a build of the tool with the hub source.',
      })
    const fetchers = model.distribution === 'relay' ? [head] : m.nodes
    const fetched = await Promise.all(
      fetchers.map(async (n) => {
        for (const step of run.hub!(m, n, model.path, run.env)) {
          say(`[${n.name}] ${step.description ?? 'hub download'}: ${hub.repo}@${hub.revision}`)
          const r = await transports.get(n.name)!.run(step.cmd, {
            timeoutMs: (step.timeoutSeconds ?? m.ssh.commandTimeoutSeconds) * 1000,
            ...(step.stdin !== undefined && { stdin: step.stdin }),
            ...sig,
          })
          if (!succeeded(r)) return `${n.name}: ${outcome(r)}: ${tail(r)}`
        }
        return undefined
      }),
    )
    const bad = fetched.filter((x): x is string => !!x)
    if (bad.length > 0)
      return stopWith({
        code: 'WEIGHTS_FETCH_FAILED',
        message: `the hub download of ${hub.repo}@${hub.revision} failed: ${bad.join('; ')}`,
        evidence: { Repository: hub.repo, Revision: hub.revision },
        fix: "Check the token (hf-token / HF_TOKEN), the revision and the node's link to the hub, then deploy again: files already downloaded are kept.",
      })
  }

  const first = await listAll()
  if (!first.ok) return stopWith(first.problem, reference)
  if (!reference) {
    reference = manifestOfListing(first.value.get(head.name)!)
    if (reference.files.length === 0)
      return stopWith({
        code: 'WEIGHTS_MISSING',
        message: `${model.path} on the head ${head.name} holds no files`,
        evidence: { Node: head.name, Path: model.path },
        fix: kind === 'nodes' ? `Put the model at ${model.path} on every node first, or use model.source.runner or hub.` : 'Deploy again.',
      })
    say(`reference: ${head.name}'s ${reference.files.length} files, ${mb(totalBytes(reference.files))}, identity ${weightsIdentity(reference).slice(0, 19)}…`)
  }
  const ref = reference
  for (const n of m.nodes) {
    const v = compareNode(n.name, ref, first.value.get(n.name)!)
    befores.set(n.name, v)
    say(`[${n.name}] ${describeNode(v)}${v.bytesNeeded > 0 ? `; ${mb(v.bytesNeeded)} to move` : ''}`)
  }

  // 2. Room for what is missing.
  const short = [...befores.values()].filter((v) => v.freeBytes !== undefined && v.bytesNeeded > v.freeBytes)
  if (short.length > 0) {
    for (const v of short)
      findings.push({
        code: 'DISK_SPACE_LOW',
        severity: 'error',
        node: v.node,
        message: `${v.node} has ${mb(v.freeBytes!)} free under ${model.path} but the model needs ${mb(v.bytesNeeded)} more.`,
        evidence: { Path: model.path, 'Free bytes': String(v.freeBytes), 'Bytes to move': String(v.bytesNeeded) },
        fix: `Free space on ${v.node}'s file system holding ${model.path}, or point model.path at a larger one.`,
      })
    return stopWith(
      {
        code: 'DISK_SPACE_LOW',
        message: `not enough free space for the model on ${short.map((v) => v.node).join(', ')}`,
        evidence: {},
        fix: findings.at(-1)!.fix,
      },
      ref,
    )
  }

  // 3. Move only what is missing: the head first, then the workers at once.
  const sends = planSends(m, kind, model.distribution, befores)
  const runnerDir = kind === 'runner' ? resolve(run.cwd ?? process.cwd(), model.source.runner!.dir) : ''
  const failures: string[] = []
  const sendOne = async (s: Send): Promise<boolean> => {
    say(
      `[${s.to}] ${s.from === 'runner' ? 'runner' : head.name} → ${s.to} ${s.check.file.path}: ${s.check.status}, ${mb(s.check.file.size - s.check.resumeFrom)} to send${s.check.resumeFrom > 0 ? `, resuming at ${mb(s.check.resumeFrom)}` : ''}`,
    )
    const node = m.nodes.find((n) => n.name === s.to)!
    const { file } = s.check
    const offset = s.check.resumeFrom
    const t0 = Date.now()
    let r: RunResult
    let moved = 0
    if (s.from === 'runner') {
      // A line at each quarter of a file of a megabyte or more (by bytes, so a test can wait for one mid-copy).
      const rest = file.size - offset
      let quarter = rest >= 1e6 ? 1 : 4
      const counter = new Transform({
        transform(chunk: Buffer, _e, cb) {
          moved += chunk.length
          runnerBytes += chunk.length
          while (quarter < 4 && rest > 0 && moved >= (rest * quarter) / 4) {
            say(`[${s.to}] runner → ${s.to} ${file.path}: ${quarter * 25}% (${mb(offset + moved)} of ${mb(file.size)}, ${rate(moved, Date.now() - t0)})`)
            quarter++
          }
          cb(null, chunk)
        },
      })
      createReadStream(join(runnerDir, file.path), offset > 0 ? { start: offset } : {}).pipe(counter)
      r = await transports.get(s.to)!.run(receiveWeightsFile(model.path, file, offset), { timeoutMs, stdin: counter, ...sig })
    } else {
      r = await transports.get(head.name)!.run(sendWeightsFileToWorker(m, model.path, node, file, offset), { timeoutMs, ...sig })
      if (succeeded(r)) {
        moved = file.size - offset
        fabricBytes += moved
      }
    }
    const ms = Date.now() - t0
    const acc = sent.get(s.to) ?? { bytes: 0, files: 0 }
    acc.bytes += moved
    if (succeeded(r)) acc.files += 1
    sent.set(s.to, acc)
    const from = s.from === 'runner' ? 'runner' : head.name
    if (succeeded(r)) {
      say(
        `[${s.to}] ${from} → ${s.to} ${file.path}${offset > 0 ? ` (resumed at ${mb(offset)})` : ''}: ${mb(moved)} in ${(ms / 1000).toFixed(1)} s (${rate(moved, ms)})`,
      )
      return true
    }
    failures.push(`${from} → ${s.to} ${file.path}: ${outcome(r)}: ${tail(r)}`)
    say(`[${s.to}] ${from} → ${s.to} ${file.path} failed after ${mb(moved)}: ${outcome(r)}`)
    return false
  }
  const perNode = (sendsTo: readonly Send[]) => async () => {
    for (const s of sendsTo) {
      if (run.signal?.aborted) return
      if (!(await sendOne(s)) && run.signal?.aborted) return
    }
  }
  const headSends = sends.filter((s) => s.to === head.name)
  await perNode(headSends)()
  const workerNames = [...new Set(sends.filter((s) => s.to !== head.name).map((s) => s.to))]
  if (!run.signal?.aborted) await Promise.all(workerNames.map((w) => perNode(sends.filter((s) => s.to === w))()))
  if (run.signal?.aborted)
    return stopWith(
      { code: 'CANCELLED', message: 'cancelled during the weights transfer; a cut file resumes on the next deploy', evidence: {}, fix: 'Deploy again.' },
      ref,
    )
  if (sends.length === 0) say('every node already holds every file: 0 bytes moved')

  // 4. Every node now matches the reference.
  const after = sends.length > 0 ? await listAll() : first
  if (!after.ok) return stopWith(after.problem, ref)
  for (const n of m.nodes) {
    const v = compareNode(n.name, ref, after.value.get(n.name)!)
    if (v.bad.length === 0) continue
    findings.push({
      code: 'WEIGHTS_MISMATCH',
      severity: 'error',
      node: n.name,
      message: `${n.name}'s copy of the model at ${model.path} does not match the weights manifest: ${describeNode(v)}.`,
      evidence: Object.fromEntries(
        v.bad
          .slice(0, 5)
          .map((c) => [
            c.file.path,
            `expected ${c.file.size} bytes ${c.file.sha256.slice(0, 12)}, ${c.have ? `found ${c.have.size} bytes ${c.have.sha256?.slice(0, 12) ?? '(partial)'}` : 'missing'}`,
          ]),
      ),
      fix:
        kind === 'nodes' && model.distribution === 'each'
          ? `Put the same files on ${n.name} as on ${headOf(m).name} (model.distribution: relay repairs a worker from the head).`
          : `Deploy again: only the files that differ are sent.${failures.length ? ` The transfer said: ${failures.slice(0, 2).join('; ')}` : ''}`,
    })
  }
  if (findings.some((f) => f.severity === 'error')) {
    const first = findings.find((f) => f.severity === 'error')!
    return stopWith({ code: first.code, message: first.message, evidence: first.evidence, fix: first.fix }, ref)
  }
  const rep = report(ref)
  say(
    `every node verified (${ref.files.length} files, ${mb(rep.totalBytes)}): ${mb(runnerBytes)} from the runner, ${mb(fabricBytes)} over the fabric, ${rep.filesSkipped} files skipped, in ${(rep.durationMs / 1000).toFixed(1)} s`,
  )
  return { ok: true, manifest: ref, report: rep, findings }
}

export const weightsText = weightsManifestText
