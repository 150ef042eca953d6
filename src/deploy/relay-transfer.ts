/**
 * `image.distribution: relay`. The runner streams `docker save` once into the head, which loads
 * it and, from the same bytes at the same time, feeds every worker's `docker load` over the fabric
 * (src/plan/relay-commands.ts). With `image.relayLanding` (or `landing: true`) the head lands it in
 * a file and, from the same bytes, in a file on every worker, each hashed as written; then every
 * node's `docker load -i` runs at once and removes its file (src/plan/image-landing-commands.ts,
 * relay-landing.ts); a node that cannot take the file makes it stream, with a warning. Either way
 * the image crosses the runner's link once. A head that already holds the image passes it on to the
 * workers that lack it. Nodes in `skip` (they already hold the exact image ID) are left alone. The
 * bytes the runner sends are counted. At the end every node's image ID is read back: each ends on
 * the runner's image ID or with an IMAGE_MISMATCH finding.
 */
import { Transform } from 'node:stream'
import { type Cmd, argv } from '../command/shell.js'
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import { headOf, inspectImage, loadImage } from '../plan/node-commands.js'
import { landFanOut, landedArchive, landingDir } from '../plan/image-landing-commands.js'
import { parseRelayFanOut, relayFanOut, relayToWorker } from '../plan/relay-commands.js'
import type { Finding } from '../preflight/finding.js'
import { LocalTransport } from '../transport/local.js'
import { chooseLanding, landingFramer, loadLandedEverywhere, removeLandedEverywhere } from './relay-landing.js'
import { type RunnerArchive, openRunnerArchive } from './runner-archive.js'
import { type RunResult, type Transport, outcome } from '../transport/transport.js'

/** `docker` of this machine (the runner), as for `load` (`$VRD_DOCKER` overrides). */
const runnerDocker = (): string => process.env.VRD_DOCKER || 'docker'

const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`
const rate = (n: number, ms: number) => (ms > 0 ? `${((n * 8) / (ms / 1000) / 1e6).toFixed(0)} Mbit/s` : '')
const tail = (r: RunResult) => (r.stderr || r.stdout).trim().slice(-400) || '(no output)'
const shortId = (id: string) => id.replace(/^sha256:/, '').slice(0, 12)

function transferFailed(node: string | null, message: string, evidence: Record<string, string>, fix: string): Finding {
  return { code: 'IMAGE_TRANSFER_FAILED', severity: 'error', node, message, evidence, fix }
}

async function imageIdOn(t: Transport, image: string): Promise<string | undefined> {
  const r = await t.run(inspectImage(image), { timeoutMs: 60_000 })
  const id = r.stdout.trim()
  return r.code === 0 && /^sha256:[0-9a-f]{64}$/.test(id) ? id : undefined
}

/** What every step of one relay shares. Steps push their findings; `say` reports progress. */
interface Relay {
  readonly m: Manifest
  readonly image: string
  readonly head: ManifestNode
  readonly headT: Transport
  readonly runnerId: string
  readonly timeoutMs: number
  readonly signal: AbortSignal | undefined
  readonly say: (s: string) => void
  readonly findings: Finding[]
  readonly landing: boolean
  /** Where the runner keeps its `docker save` archive for the next relay of the same image (none: no cache). */
  readonly archiveDir: string | undefined
  /** The runner's archive of this relay, once opened (settled at the end: kept, or dropped after a failure). */
  archive?: RunnerArchive
}

export interface RelayResult {
  readonly ok: boolean
  readonly bytesSent: number
  readonly imageIds: ReadonlyMap<string, string>
  readonly findings: Finding[]
}

export async function relayImage(
  m: Manifest,
  image: string,
  transports: ReadonlyMap<string, Transport>,
  opts: {
    onProgress?: (m: string) => void
    skip?: ReadonlySet<string>
    signal?: AbortSignal
    runnerId?: string
    /** Land the archive on every node first (default: the manifest's `image.relayLanding`). */
    landing?: boolean
    /** Keep the runner's `docker save` archive here for the next relay (runner-archive.ts; none: `docker save` every time). */
    archiveDir?: string
  },
): Promise<RelayResult> {
  const skip = opts.skip ?? new Set<string>()
  const head = headOf(m)
  const findings: Finding[] = []
  const imageIds = new Map<string, string>()
  let bytesSent = 0
  const done = (): RelayResult => ({ ok: !findings.some((f) => f.severity === 'error'), bytesSent, imageIds, findings })

  const runnerId = await runnerImageId(image, opts.runnerId)
  if (typeof runnerId !== 'string') {
    findings.push(runnerId)
    return done()
  }
  const headT = transports.get(head.name)
  if (!headT) {
    findings.push(
      transferFailed(
        head.name,
        `No connection to the head ${head.name}, which relays the image.`,
        { Image: image },
        `Make ${head.name} reachable over SSH, then deploy again.`,
      ),
    )
    return done()
  }
  const r: Relay = {
    m,
    image,
    head,
    headT,
    runnerId,
    timeoutMs: m.ssh.commandTimeoutSeconds * 1000,
    signal: opts.signal,
    say: (s) => opts.onProgress?.(`relay: ${s}`),
    findings,
    landing: opts.landing ?? m.image.relayLanding,
    archiveDir: opts.archiveDir,
  }
  const toRelay = m.nodes.filter((w) => w.role !== 'head' && !skip.has(w.name))

  // 1. runner → head, once; the head loads it and, from the same bytes at the same time, feeds
  //    every worker that lacks it over the fabric (relayFanOut).
  let fedByHead: ReadonlySet<string> = new Set<string>()
  if (skip.has(head.name)) r.say(`${head.name} already holds ${shortId(runnerId)}; nothing sent from the runner`)
  else ({ bytesSent, fedByHead } = await fromRunner(r, toRelay, transports))
  const headId = await imageIdOn(headT, image)
  if (headId) imageIds.set(head.name, headId)

  // 2. a head that already held the image passes it on to the workers that lack it.
  await passOnFromHead(
    r,
    toRelay.filter((w) => !fedByHead.has(w.name)),
    headId,
  )

  // 3. every node ends on the runner's image ID.
  for (const [name, id] of await workerImageIds(m, image, transports)) imageIds.set(name, id)
  findings.push(...mismatches(m, image, runnerId, imageIds, transports))
  await r.archive?.settle(!findings.some((f) => f.severity === 'error'))
  return done()
}

/** The runner's image ID: the one the image gate read, else read here; a finding when the runner lacks the image. */
async function runnerImageId(image: string, given: string | undefined): Promise<string | Finding> {
  if (given) return given
  const present = await new LocalTransport().run(argv(runnerDocker(), 'image', 'inspect', '--format', '{{.Id}}', image), { timeoutMs: 30_000 })
  const id = present.stdout.trim()
  if (present.code === 0 && id.startsWith('sha256:')) return id
  return transferFailed(
    null,
    `Image ${image} is not in this machine's docker, so there is nothing to relay.`,
    { Image: image, 'docker image inspect': tail(present) },
    `Build or pull ${image} on the runner before the deploy, or use image.distribution: pull.`,
  )
}

const workerFailed = (r: Relay, w: ManifestNode, command: string, result: string): void => {
  r.findings.push(
    transferFailed(
      w.name,
      `${r.head.name} could not pass ${r.image} on to ${w.name} over the fabric.`,
      { Command: command, Result: result },
      `Check SSH from ${r.head.name} to ${w.fabricIp} without a prompt (the host checks report RELAY_SSH_FAILED) and docker with free space on ${w.name}, then deploy again.`,
    ),
  )
}

/** How the runner's `docker save` streamed into the head's load (and fan-out) ended. */
interface Streamed {
  readonly load: RunResult
  readonly saved: RunResult
  /** The load ended first and the save was cut off (so the save's failure is not the cause). */
  readonly killed: boolean
  readonly bytesSent: number
  readonly ms: number
}

/**
 * Step 1: the runner's archive to the head and, through it, to `toRelay`: landed first where every
 * node can take it (relay-landing.ts), else streamed into every `docker load` with a warning. The
 * landed file is removed on every node whatever happened.
 */
async function fromRunner(
  r: Relay,
  toRelay: readonly ManifestNode[],
  transports: ReadonlyMap<string, Transport>,
): Promise<{ bytesSent: number; fedByHead: ReadonlySet<string> }> {
  const targets = [r.head, ...toRelay]
  if (!r.landing) return streamFromRunner(r, toRelay)
  const choice = await chooseLanding(r.m, r.image, runnerDocker(), targets, transports)
  if (!choice.land) {
    r.say(`warning: not landing the archive first, streaming it into docker load instead: ${choice.refusals.map((f) => `${f.node}: ${f.why}`).join('; ')}`)
    r.findings.push(...choice.refusals.filter((f) => f.space).map((f) => landingSpaceLow(r, f.node, f.why)))
    return streamFromRunner(r, toRelay)
  }
  try {
    return await landFromRunner(r, toRelay, transports, choice.file)
  } finally {
    await removeLandedEverywhere(targets, choice.file, transports)
  }
}

const landingSpaceLow = (r: Relay, node: string, why: string): Finding => ({
  code: 'DISK_SPACE_LOW',
  severity: 'warning',
  node,
  message: `${node} has no room to land ${r.image} as a file first, so the relay streamed it into docker load (slower).`,
  evidence: { Landing: why },
  fix: `Free space under ${landingDir(r.m)} on ${node} (the archive's size and 10 % more).`,
})

/** Step 1, landed: the framed archive into a file on every node at once, then every node's `docker load -i` at once. */
async function landFromRunner(
  r: Relay,
  toRelay: readonly ManifestNode[],
  transports: ReadonlyMap<string, Transport>,
  file: string,
): Promise<{ bytesSent: number; fedByHead: ReadonlySet<string> }> {
  const { head, image } = r
  const names = toRelay.map((w) => `${w.name} (${w.fabricIp})`).join(', ')
  r.say(
    `runner → ${head.name}${toRelay.length > 0 ? ` → ${names} over the fabric` : ''}, landed first: docker save ${image} into ${file} on every node at once, hashed as written`,
  )
  const framer = landingFramer()
  const s = await saveIntoHead(r, landFanOut(r.m, toRelay, file), framer)
  const fedByHead = new Set(toRelay.map((w) => w.name))
  if (saveFailed(r, s)) return { bytesSent: s.bytesSent, fedByHead }
  const report = parseRelayFanOut(s.load.stdout)
  const landed = [head, ...toRelay].filter((n) => (n === head ? report.head : report.workers.get(n.fabricIp))?.code === 0)
  if (report.head?.code === 0)
    r.say(`runner → ${head.name}: ${mb(s.bytesSent)} landed on every node in ${(s.ms / 1000).toFixed(1)} s (${rate(s.bytesSent, s.ms)})`)
  else headFailed(r, s, report, 'landing')
  for (const w of toRelay.filter((w) => !landed.includes(w)))
    workerFailed(r, w, `the runner's stream, copied on ${head.name} into ssh ${w.fabricIp} (the landing receiver)`, targetResult(s, report, w))
  if (landed.length === 0 || r.signal?.aborted) return { bytesSent: s.bytesSent, fedByHead }
  const started = Date.now()
  const loads = await loadLandedEverywhere(landed, file, transports, { timeoutMs: r.timeoutMs, ...(r.signal && { signal: r.signal }) })
  for (const n of landed) {
    const res = loads.get(n.name)
    if (res?.code === 0) r.say(`${n.name}: docker load -i from the landed file done in ${((Date.now() - started) / 1000).toFixed(1)} s`)
    else if (n === head) headFailed(r, s, undefined, 'load', res)
    else workerFailed(r, n, `docker load -i ${file} (on ${n.name})`, res ? `${outcome(res)}: ${tail(res)}` : '(no connection)')
  }
  return { bytesSent: s.bytesSent, fedByHead }
}

/** A failed save is the cause when it failed by itself (the receivers then read a cut archive): a finding, and true. */
function saveFailed(r: Relay, s: Streamed): boolean {
  if (s.saved.code === 0 || s.killed) return false
  r.findings.push(
    transferFailed(
      r.head.name,
      `docker save ${r.image} on the runner failed, so ${r.head.name} did not get the image.`,
      { 'docker save': `${outcome(s.saved)}: ${tail(s.saved)}` },
      `Check the runner's docker and free space, then deploy again.`,
    ),
  )
  return true
}

/** The head's part failed: its streamed load or landing (from the fan-out's records), or its load of the landed file. */
function headFailed(
  r: Relay,
  s: Streamed,
  report: ReturnType<typeof parseRelayFanOut> | undefined,
  what: 'stream' | 'landing' | 'load',
  load?: RunResult,
): void {
  const why = load
    ? `${outcome(load)}: ${tail(load)}`
    : report?.head
      ? `exit ${report.head.code}: ${report.head.log.join('\n').slice(-400) || '(no output)'}`
      : `${outcome(s.load)}: ${report?.error ?? tail(s.load)}`
  const step = what === 'load' ? `docker load -i ${landedArchive(r.m, r.image)}` : what === 'landing' ? 'the landing of the archive' : 'docker load'
  r.findings.push(
    transferFailed(
      r.head.name,
      `${step} on ${r.head.name} failed${what === 'load' ? '' : ` while the runner streamed ${r.image} to it`}.`,
      { [step]: why, 'Bytes sent': String(s.bytesSent) },
      `Check docker and the free space under docker's data root and under ${landingDir(r.m)} on ${r.head.name} (the host checks report DISK_SPACE_LOW), then deploy again.`,
    ),
  )
}

/** What the fan-out says of one worker, or why it says nothing. */
function targetResult(s: Streamed, report: ReturnType<typeof parseRelayFanOut> | undefined, w: ManifestNode): string {
  const wr = report?.workers.get(w.fabricIp)
  return wr
    ? `exit ${wr.code ?? '?'}: ${wr.log.join('\n').slice(-400) || '(no output)'}`
    : `no result for ${w.fabricIp} from the head (${outcome(s.load)}: ${report?.error ?? tail(s.load)})`
}

/** Step 1, streamed: the runner's `docker save` into the head's `docker load` (and its fan-out to `toRelay`); findings for what failed. */
async function streamFromRunner(r: Relay, toRelay: readonly ManifestNode[]): Promise<{ bytesSent: number; fedByHead: ReadonlySet<string> }> {
  const { head, image } = r
  const names = toRelay.map((w) => `${w.name} (${w.fabricIp})`).join(', ')
  r.say(
    toRelay.length > 0
      ? `runner → ${head.name} → ${names} over the fabric, all at once: docker save ${image} | docker load`
      : `runner → ${head.name}: docker save ${image} | docker load`,
  )
  const s = await saveIntoHead(r, toRelay.length > 0 ? relayFanOut(r.m, toRelay) : loadImage())
  const secs = (s.ms / 1000).toFixed(1)
  if (saveFailed(r, s)) return { bytesSent: s.bytesSent, fedByHead: new Set() }
  const report = toRelay.length > 0 ? parseRelayFanOut(s.load.stdout) : undefined
  const headCode = report ? (report.head?.code ?? null) : s.load.code
  if (headCode !== 0) headFailed(r, s, report, 'stream')
  else r.say(`runner → ${head.name}: ${mb(s.bytesSent)} in ${secs} s (${rate(s.bytesSent, s.ms)})`)
  for (const w of toRelay) {
    if (report?.workers.get(w.fabricIp)?.code === 0) r.say(`${head.name} → ${w.name}: loaded from the same stream, done in ${secs} s`)
    else workerFailed(r, w, `the runner's stream, copied on ${head.name} into ssh ${w.fabricIp} docker load`, targetResult(s, report, w))
  }
  return { bytesSent: s.bytesSent, fedByHead: new Set(toRelay.map((w) => w.name)) }
}

/** The runner's `docker save`, counted (and framed, for a landing), as the stdin of `onHead` run on the head. */
async function saveIntoHead(r: Relay, onHead: Cmd, framer?: ReturnType<typeof landingFramer>): Promise<Streamed> {
  const started = Date.now()
  let counted = 0
  const save = await openRunnerArchive(runnerDocker(), r.image, r.runnerId, r.archiveDir)
  r.archive = save
  if (save.cachedFile) r.say(`the runner's archive of ${shortId(r.runnerId)} from ${save.cachedFile} (no docker save)`)
  const counter =
    framer?.stream ??
    new Transform({
      transform(chunk: Buffer, _enc, cb) {
        counted += chunk.length
        cb(null, chunk)
      },
    })
  let saveEnded = false
  void save.done.then(() => (saveEnded = true))
  save.stdout.pipe(counter)
  const load = await r.headT.run(onHead, { stdin: counter, timeoutMs: r.timeoutMs, ...(r.signal && { signal: r.signal }) })
  // A load that ended early leaves docker save blocked on a full pipe: close it so save ends too.
  // A save whose output was read to its end was not cut off, even if its exit is not in yet.
  const killed = load.code !== 0 && !saveEnded && !save.stdout.readableEnded
  if (killed) save.stdout.destroy()
  const saved = await save.done
  return { load, saved, killed, bytesSent: framer ? framer.bytes() : counted, ms: Date.now() - started }
}

/** Step 2: a head that holds the runner's exact image passes it on to `fromHead`, in parallel. */
async function passOnFromHead(r: Relay, fromHead: readonly ManifestNode[], headId: string | undefined): Promise<void> {
  if (fromHead.length === 0) return
  const { head, image } = r
  if (headId !== r.runnerId) {
    r.say(`${head.name} does not hold the runner's image ${shortId(r.runnerId)}; not passing it on`)
    return
  }
  await Promise.all(
    fromHead.map(async (w) => {
      const started = Date.now()
      r.say(`${head.name} → ${w.name} over the fabric (${w.fabricIp})`)
      const res = await r.headT.run(relayToWorker(r.m, w, image), { timeoutMs: r.timeoutMs, ...(r.signal && { signal: r.signal }) })
      if (res.code !== 0) workerFailed(r, w, `docker save ${image} | ssh ${w.fabricIp} docker load (on ${head.name})`, `${outcome(res)}: ${tail(res)}`)
      else r.say(`${head.name} → ${w.name}: done in ${((Date.now() - started) / 1000).toFixed(1)} s`)
    }),
  )
}

/** Step 3a: each worker's image ID under `image`, read back (absent: no connection or no image). */
async function workerImageIds(m: Manifest, image: string, transports: ReadonlyMap<string, Transport>): Promise<Map<string, string>> {
  const ids = new Map<string, string>()
  await Promise.all(
    m.nodes
      .filter((n) => n.role !== 'head')
      .map(async (w) => {
        const t = transports.get(w.name)
        const id = t ? await imageIdOn(t, image) : undefined
        if (id) ids.set(w.name, id)
      }),
  )
  return ids
}

/** Step 3b: an IMAGE_MISMATCH for each node that does not end on the runner's image ID. */
function mismatches(
  m: Manifest,
  image: string,
  runnerId: string,
  imageIds: ReadonlyMap<string, string>,
  transports: ReadonlyMap<string, Transport>,
): Finding[] {
  return m.nodes
    .filter((n) => imageIds.get(n.name) !== runnerId)
    .map((n) => {
      const id = imageIds.get(n.name)
      return {
        code: 'IMAGE_MISMATCH',
        severity: 'error',
        node: n.name,
        message: id ? `${n.name} holds a different image under ${image} than the runner sent.` : `${n.name} does not hold ${image} after the relay.`,
        evidence: { 'Runner image ID': runnerId, [`${n.name} image ID`]: id ?? (transports.has(n.name) ? '(not present)' : '(no connection)') },
        fix: `Get ${image} with ID ${shortId(runnerId)} onto ${n.name} (see the IMAGE_TRANSFER_FAILED finding, if any) and deploy again; check with docker image inspect --format '{{.Id}}' ${image}.`,
      }
    })
}
