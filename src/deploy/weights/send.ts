/**
 * Moving what the nodes lack (src/deploy/weights/streams.ts plans it): every stream at once, each
 * one command on the receiving node that writes its files to .partial names, hashes them as they
 * arrive and renames each only once its SHA-256 matches the one the sender computed as it read
 * the bytes (and the manifest's). A runner stream to the head is passed on to the workers that
 * lack the same files as it arrives; the rest goes from the head's copy afterwards.
 */
import { createHash, randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import { closeFabricShare, openFabricShare, parseFabricShare } from '../../plan/relay-commands.js'
import { type StreamFile, receiveWeightsStream, sendWeightsStreamToWorker } from '../../plan/weights-commands.js'
import { outcome, succeeded } from '../../transport/transport.js'
import type { FileCheck } from './compare.js'
import { type Delivery, mb, rate, tail } from './delivery.js'
import { runnerDirOf } from './reference-manifest.js'
import { PENDING_SHA256, fileKey, openRunnerFile } from './runner-hash.js'
import { type StreamPlan, type WeightsStream, mayShareFabric, planStreams, streamsOf } from './streams.js'
import { parseStreamOutput, recordBytes } from './stream-output.js'

/** The delivery's streams, planned from every node's comparison with the reference. */
export const planDelivery = (d: Delivery): StreamPlan => planStreams(d.m, d.kind, d.model.distribution, d.befores, streamsOf(d.model))

/**
 * The head's shared fabric connections under one control path: to `workers`, being opened
 * (`ready`) from before the listing (`shareEarly`), or none.
 */
export interface FabricShare {
  readonly path: string
  readonly workers: readonly string[]
  readonly ready: Promise<void>
  /** Stops the opening where it is (the plan shares nothing): what did come up is closed by `closeShare`, the rest never starts. */
  readonly stop: () => void
}

/**
 * Every stream of the plan: `first` at once, then `after` at once; stops early once the run is
 * cancelled. The workers of `plan.shareFabric` get one connection from the head first, which their
 * streams share (closed after them): the one `early` opened while the nodes were listed, when given
 * (what it opened beyond the plan is closed first, what the plan needs beyond it opened now).
 * Once the streams have ended the connections are being closed: `closed` says when they are.
 */
export async function sendAll(d: Delivery, plan: StreamPlan, early?: FabricShare): Promise<{ readonly closed: Promise<void> }> {
  // The early share is exactly what the plan needs (the cold case): the streams start now and the head's ssh to a worker waits for its master (SHARE_UP_SH).
  const exact = early && early.workers.length === plan.shareFabric.length && plan.shareFabric.every((w) => early.workers.includes(w))
  const share = exact ? early.path : await settleShare(d, plan.shareFabric, early)
  let ended = false
  try {
    await Promise.all([sendWaves(d, plan, share), exact && early.ready])
    ended = true
  } finally {
    if (share && !ended) await closeShare(d, plan.shareFabric, share)
  }
  // Closed beside what follows (the verifying listing), not before it: 0.1 s off the stage on the lab. The caller awaits `closed` before the stage ends.
  return { closed: share ? closeShare(d, plan.shareFabric, share) : Promise.resolve() }
}

/**
 * Before the listing: the shared connections the manifest says the streams may use
 * (`mayShareFabric`), opening while the nodes are listed. The caller hands it to `sendAll` or, when
 * the stage stops before the streams, to `closeEarly`.
 */
export function shareEarly(d: Delivery, referenceBytes?: number): FabricShare | undefined {
  const workers = mayShareFabric(d.m, d.model, referenceBytes)
  if (workers.length === 0 || d.run.signal?.aborted) return undefined
  const path = sharePath()
  const stopping = new AbortController()
  d.run.signal?.addEventListener('abort', () => stopping.abort(), { once: true })
  return { path, workers, ready: openShare(d, workers, path, stopping.signal), stop: () => stopping.abort() }
}

/** Closes every connection of an early share (once it has opened): the stage stopped before its streams. */
export async function closeEarly(d: Delivery, early: FabricShare): Promise<void> {
  early.stop()
  await early.ready
  await closeShare(d, early.workers, early.path)
}

/** The control path the plan's streams share (none: undefined), every connection the plan needs open and none other. */
async function settleShare(d: Delivery, workers: readonly string[], early: FabricShare | undefined): Promise<string | undefined> {
  if (!early) {
    if (workers.length === 0 || d.run.signal?.aborted) return undefined
    const path = sharePath()
    await openShare(d, workers, path)
    return path
  }
  // Nothing to share (an unchanged redeploy): the opening is not waited for, only stopped and closed.
  if (workers.length === 0) early.stop()
  await early.ready
  const extra = early.workers.filter((w) => !workers.includes(w))
  const lacking = workers.filter((w) => !early.workers.includes(w))
  await Promise.all([extra.length > 0 && closeShare(d, extra, early.path), lacking.length > 0 && !d.run.signal?.aborted && openShare(d, lacking, early.path)])
  return workers.length > 0 ? early.path : undefined
}

const sharePath = () => `/tmp/vrd-fabric-${randomBytes(6).toString('hex')}`

/** Opens the head's shared connections to `workers` under `path` and says which did (one that did not: its streams connect by themselves). */
async function openShare(d: Delivery, workers: readonly string[], path: string, signal = d.run.signal): Promise<void> {
  const nodes = workers.map((w) => d.m.nodes.find((n) => n.name === w)!)
  const t0 = Date.now()
  const r = await d.run.transports.get(d.head.name)!.run(openFabricShare(d.m, nodes, path), { timeoutMs: d.timeoutMs, ...(signal && { signal }) })
  if (r.cancelled && !d.run.signal?.aborted) return
  const opened = parseFabricShare(r.stdout)
  for (const n of nodes) {
    const o = opened.get(n.fabricIp)
    // Not fatal: a stream whose connection is not there connects by itself (and says why if it cannot either).
    d.say(
      o?.code === 0
        ? `[${n.name}] ${d.head.name} → ${n.name}: one fabric connection for its streams (${Date.now() - t0} ms)`
        : `[${n.name}] ${d.head.name} → ${n.name}: no shared fabric connection (${o ? `exit ${o.code}${o.log.length ? `: ${o.log.join(' / ')}` : ''}` : `${outcome(r)}: ${tail(r)}`}); each stream connects by itself`,
    )
  }
}

/** Never fails (a connection left open ends FABRIC_SHARE_PERSIST_SECONDS after its last stream). */
async function closeShare(d: Delivery, workers: readonly string[], path: string): Promise<void> {
  const nodes = workers.map((w) => d.m.nodes.find((n) => n.name === w)!)
  // Without the run's signal: a cancelled stage still closes them (ControlPersist ends them anyway).
  await d.run.transports
    .get(d.head.name)!
    .run(closeFabricShare(d.m, nodes, path), { timeoutMs: 30_000 })
    .catch(() => undefined)
}

async function sendWaves(d: Delivery, plan: StreamPlan, share: string | undefined): Promise<void> {
  const runnerDir = d.kind === 'runner' ? runnerDirOf(d) : ''
  await Promise.all(plan.first.map((s) => sendStream(d, s, runnerDir, share)))
  if (d.run.signal?.aborted) return
  // From the head's copy: a file hashed only while the runner sent it takes that hash; one the head never got in full is not sent.
  const after = plan.after.map((s) => ({
    ...s,
    files: s.files.flatMap((c) => {
      if (c.file.sha256 !== PENDING_SHA256) return [c]
      const h = d.runnerHashes.get(c.file.path)
      if (!h) d.failures.push(`${d.head.name} → ${s.to} ${c.file.path}: not sent (the head never received it in full)`)
      return h ? [{ ...c, file: { ...c.file, sha256: h.sha256 } }] : []
    }),
  }))
  await Promise.all(after.filter((s) => s.files.length > 0).map((s) => sendStream(d, s, runnerDir, share)))
}

const streamFile = (c: FileCheck): StreamFile => ({ path: c.file.path, size: c.file.size, sha256: c.file.sha256 || '-', offset: c.resumeFrom })

async function sendStream(d: Delivery, s: WeightsStream, runnerDir: string, share: string | undefined): Promise<void> {
  const { head, say, m } = d
  const from = s.from === 'runner' ? 'runner' : head.name
  for (const c of s.files)
    say(
      `[${s.to}] ${from} → ${s.to} ${c.file.path}: ${c.status}, ${mb(c.file.size - c.resumeFrom)} to send${c.resumeFrom > 0 ? `, resuming at ${mb(c.resumeFrom)}` : ''}${s.forward.length ? ` (passed on to ${s.forward.join(', ')} as it arrives)` : ''}`,
    )
  const files = s.files.map(streamFile)
  const t0 = Date.now()
  const forward = s.forward.map((w) => m.nodes.find((n) => n.name === w)!)
  const runner = s.from === 'runner' ? runnerStream(d, s, runnerDir, t0) : undefined
  const cmd = runner
    ? receiveWeightsStream(m, d.model.path, files, forward, share)
    : sendWeightsStreamToWorker(m, d.model.path, m.nodes.find((n) => n.name === s.to)!, files, share)
  const on = runner ? s.to : head.name
  // Each file keeps the budget it had as a command of its own (ssh.commandTimeoutSeconds): a stream of 30 shards over a slow link is not cut at one file's.
  const timeoutMs = d.timeoutMs * Math.max(1, s.files.length)
  const r = await d.run.transports.get(on)!.run(cmd, { timeoutMs, ...(runner && { stdin: runner.stream }), ...d.sig })
  const ms = Date.now() - t0
  if (runner?.problem()) d.failures.push(`runner → ${s.to}: ${runner.problem()}`)
  const out = parseStreamOutput(r.stdout)
  const tally = (node: string, recs: typeof out.files, fabric: boolean) => {
    const acc = d.sent.get(node) ?? { bytes: 0, files: 0 }
    for (const c of s.files) {
      const rec = recs.get(c.file.path)
      const got = rec?.got ?? 0
      acc.bytes += got
      if (fabric) d.moved.fabric += got
      const via = fabric && s.from === 'runner' ? `${head.name} (passed on)` : from
      if (rec?.status === 'ok') {
        acc.files += 1
        say(
          `[${node}] ${via} → ${node} ${c.file.path}${c.resumeFrom > 0 ? ` (resumed at ${mb(c.resumeFrom)})` : ''}: ${mb(got)}, verified as it arrived (stream of ${s.files.length} files in ${(ms / 1000).toFixed(1)} s, ${rate(recordBytes(recs), ms)})`,
        )
      } else {
        const why = rec ? rec.detail : `not received (${outcome(r)}: ${tail(r)})`
        d.failures.push(`${via} → ${node} ${c.file.path}: ${why}`)
        say(`[${node}] ${via} → ${node} ${c.file.path} failed after ${mb(got)}: ${why}`)
      }
    }
    d.sent.set(node, acc)
  }
  tally(s.to, out.files, s.from === 'head')
  for (const w of forward) {
    const code = out.forwarded.get(w.fabricIp)
    if (code !== 0)
      d.failures.push(
        `${head.name} → ${w.name} (passed on): ${code === undefined ? 'never started' : `exit ${code}`}${out.logs.get(w.fabricIp)?.length ? `: ${out.logs.get(w.fabricIp)!.slice(-3).join(' / ')}` : ''}`,
      )
    tally(w.name, out.at.get(w.fabricIp) ?? new Map(), true)
  }
  // A receiver that did not reach its `end` (killed, out of memory, a shell without bash) is said even when its exit looked clean.
  if ((!succeeded(r) || !out.complete) && !r.cancelled)
    d.failures.push(`${from} → ${s.to}: ${out.complete ? outcome(r) : 'the receiver stopped before its end'}: ${tail(r)}`)
}

/**
 * The runner's side of one stream: each file from its offset, read from the handle opened inside
 * the directory at the size that was hashed, then the SHA-256 of the whole file computed while
 * reading it (a resumed file's earlier bytes read here, not sent). A file that cannot be opened or
 * changes size ends the stream there: the node keeps .partial files, never a wrong file.
 */
function runnerStream(d: Delivery, s: WeightsStream, runnerDir: string, t0: number) {
  let problem: string | undefined
  async function* bytes(): AsyncGenerator<Buffer> {
    for (const c of s.files) {
      const { file } = c
      const offset = c.resumeFrom
      const opened = await openRunnerFile(runnerDir, file.path, file.size)
      if (!opened.ok) {
        problem = opened.problem.message
        return
      }
      const h = createHash('sha256')
      const key = fileKey(await opened.value.stat({ bigint: true }))
      const rest = file.size - offset
      let moved = 0
      let quarter = rest >= 1e6 ? 1 : 4
      try {
        if (offset > 0) for await (const chunk of opened.value.createReadStream({ start: 0, end: offset - 1, autoClose: false })) h.update(chunk as Buffer)
        for await (const chunk of opened.value.createReadStream({ start: offset, autoClose: false })) {
          const b = chunk as Buffer
          h.update(b)
          moved += b.length
          d.moved.runner += b.length
          // A line at each quarter of a file of a megabyte or more (by bytes, so a test can wait for one mid-copy).
          while (quarter < 4 && moved >= (rest * quarter) / 4) {
            d.say(`[${s.to}] runner → ${s.to} ${file.path}: ${quarter * 25}% (${mb(offset + moved)} of ${mb(file.size)}, ${rate(moved, Date.now() - t0)})`)
            quarter++
          }
          yield b
        }
      } catch (err) {
        problem = `reading ${file.path} on the runner failed mid-file: ${(err as Error).message}`
        return
      } finally {
        await opened.value.close()
      }
      if (moved !== rest) {
        problem = `${file.path} changed on the runner while it was sent (${offset + moved} bytes, ${file.size} when it was hashed)`
        return
      }
      const sha = h.digest('hex')
      const known = file.sha256 || d.runnerHashes.get(file.path)?.sha256
      if (known && sha !== known) problem = `${file.path} changed on the runner since it was hashed (its SHA-256 is now ${sha.slice(0, 12)})`
      else d.runnerHashes.set(file.path, { sha256: sha, key })
      yield Buffer.from(sha)
    }
  }
  return { stream: Readable.from(bytes(), { objectMode: false }), problem: () => problem }
}
