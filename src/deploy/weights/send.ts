/**
 * Moving what the nodes lack: the head's sends first, then every worker's at once (each node's
 * files one after another), each file from the runner over the node's SSH transport or from the
 * head over the fabric, received into a .partial that is renamed only once its SHA-256 matches.
 */
import { Transform } from 'node:stream'
import { receiveWeightsFile, sendWeightsFileToWorker } from '../../plan/weights-commands.js'
import { type RunResult, outcome, succeeded } from '../../transport/transport.js'
import { type Delivery, mb, rate, tail } from './delivery.js'
import type { Send } from './weights-plan.js'
import { runnerDirOf } from './reference-manifest.js'
import { openRunnerFile } from './runner-hash.js'

/** Every send, the head's first; stops early once the run is cancelled. */
export async function sendAll(d: Delivery, sends: readonly Send[]): Promise<void> {
  const runnerDir = d.kind === 'runner' ? runnerDirOf(d) : ''
  const signal = d.run.signal
  const perNode = (sendsTo: readonly Send[]) => async () => {
    for (const s of sendsTo) {
      if (signal?.aborted) return
      if (!(await sendOne(d, s, runnerDir)) && signal?.aborted) return
    }
  }
  const headSends = sends.filter((s) => s.to === d.head.name)
  await perNode(headSends)()
  const workerNames = [...new Set(sends.filter((s) => s.to !== d.head.name).map((s) => s.to))]
  if (!signal?.aborted) await Promise.all(workerNames.map((w) => perNode(sends.filter((s) => s.to === w))()))
}

interface Moved {
  readonly r: RunResult
  readonly moved: number
}

/** One file to one node; tallied in d.sent and d.moved, a failure kept in d.failures. */
async function sendOne(d: Delivery, s: Send, runnerDir: string): Promise<boolean> {
  const { head, say } = d
  say(
    `[${s.to}] ${s.from === 'runner' ? 'runner' : head.name} → ${s.to} ${s.check.file.path}: ${s.check.status}, ${mb(s.check.file.size - s.check.resumeFrom)} to send${s.check.resumeFrom > 0 ? `, resuming at ${mb(s.check.resumeFrom)}` : ''}`,
  )
  const { file } = s.check
  const offset = s.check.resumeFrom
  const t0 = Date.now()
  const { r, moved } = s.from === 'runner' ? await sendFromRunner(d, s, runnerDir, t0) : await sendFromHead(d, s)
  const ms = Date.now() - t0
  const acc = d.sent.get(s.to) ?? { bytes: 0, files: 0 }
  acc.bytes += moved
  if (succeeded(r)) acc.files += 1
  d.sent.set(s.to, acc)
  const from = s.from === 'runner' ? 'runner' : head.name
  if (succeeded(r)) {
    say(
      `[${s.to}] ${from} → ${s.to} ${file.path}${offset > 0 ? ` (resumed at ${mb(offset)})` : ''}: ${mb(moved)} in ${(ms / 1000).toFixed(1)} s (${rate(moved, ms)})`,
    )
    return true
  }
  d.failures.push(`${from} → ${s.to} ${file.path}: ${outcome(r)}: ${tail(r)}`)
  say(`[${s.to}] ${from} → ${s.to} ${file.path} failed after ${mb(moved)}: ${outcome(r)}`)
  return false
}

/** The runner streams the file (from its offset) into the node's receiver, counting the bytes. */
async function sendFromRunner(d: Delivery, s: Send, runnerDir: string, t0: number): Promise<Moved> {
  const { file } = s.check
  const offset = s.check.resumeFrom
  let moved = 0
  // A line at each quarter of a file of a megabyte or more (by bytes, so a test can wait for one mid-copy).
  const rest = file.size - offset
  let quarter = rest >= 1e6 ? 1 : 4
  const counter = new Transform({
    transform(chunk: Buffer, _e, cb) {
      moved += chunk.length
      d.moved.runner += chunk.length
      while (quarter < 4 && rest > 0 && moved >= (rest * quarter) / 4) {
        d.say(`[${s.to}] runner → ${s.to} ${file.path}: ${quarter * 25}% (${mb(offset + moved)} of ${mb(file.size)}, ${rate(moved, Date.now() - t0)})`)
        quarter++
      }
      cb(null, chunk)
    },
  })
  // Opened once, inside the directory, the size it had when hashed; the bytes come from this handle.
  const opened = await openRunnerFile(runnerDir, file.path, file.size)
  if (!opened.ok) return { r: notRun(opened.problem.message), moved: 0 }
  let readError: Error | undefined
  const source = opened.value.createReadStream({ start: offset, autoClose: true })
  // A read that fails mid-file ends the stream: the node gets a short file (never renamed: its SHA-256 fails) and the failure is said.
  source.on('error', (err) => {
    readError = err
    counter.end()
  })
  source.pipe(counter)
  const r = await d.run.transports.get(s.to)!.run(receiveWeightsFile(d.model.path, file, offset), { timeoutMs: d.timeoutMs, stdin: counter, ...d.sig })
  if (readError) return { r: notRun(`reading ${file.path} on the runner failed mid-file: ${readError.message}`), moved }
  return { r, moved }
}

/** A send that did not happen (or whose source broke), as the result of a command that failed. */
const notRun = (why: string): RunResult => ({ code: 1, signal: null, stdout: '', stderr: why, durationMs: 0, timedOut: false })

/** The head sends the file (from its offset) to a worker over the fabric. */
async function sendFromHead(d: Delivery, s: Send): Promise<Moved> {
  const { file } = s.check
  const offset = s.check.resumeFrom
  const node = d.m.nodes.find((n) => n.name === s.to)!
  const r = await d.run.transports.get(d.head.name)!.run(sendWeightsFileToWorker(d.m, d.model.path, node, file, offset), { timeoutMs: d.timeoutMs, ...d.sig })
  let moved = 0
  if (succeeded(r)) {
    moved = file.size - offset
    d.moved.fabric += moved
  }
  return { r, moved }
}
