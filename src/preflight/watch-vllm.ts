/**
 * Watch vLLM start on the head: poll /health and read the serve log as it grows, scanning it for
 * the known failure signatures. A pending placement group fails the watch within seconds instead
 * of after vLLM's own 1800 s timeout.
 *
 * It lives with the preflight, not the executor: what it produces are findings, by the same log
 * signatures `diagnose` scans with, over a transport the deploy already holds. The executor stays
 * free of findings; a deploy (a later stage) runs the plan, then this watch.
 */
import type { Manifest } from '../manifest/schema.js'
import { shScript } from '../command/shell.js'
import { boundedTimeoutSeconds } from '../manifest/ssh-settings.js'
import { VLLM_LOG, headOf, vllmHealthUrl } from '../plan/node-commands.js'
import type { Transport } from '../transport/transport.js'
import type { RayView } from './facts.js'
import type { Finding } from './finding.js'
import { createLogWatcher, type LogWatcher } from './signatures.js'
import { stallFinding, startupTimelineFor, whereNow, withTimeline } from './startup-report.js'
import { type StartupTimeline, stallSentence, timelineLines } from './startup-timeline.js'

export interface WatchResult {
  readonly ready: boolean
  /** Error findings that stopped the watch (or every finding seen, when ready). */
  readonly findings: readonly Finding[]
  readonly waitedMs: number
  readonly reason: string
  readonly logTail: string
  /**
   * Why `vllm serve` is not running, when it is not: it ran and exited, or it never started (no
   * container, a stopped container, a running container without its log).
   */
  readonly notRunning?: NotRunning
  /** The watch ended because its signal was aborted (a cancelled rollout): not a failure of vLLM. */
  readonly cancelled?: boolean
  /** A node stayed in one phase of the start past its budget (smoke.phaseBudgetSeconds). */
  readonly stalled?: boolean
  /** Each node's phases with their durations, one line per node (the findings carry them too when the start failed). */
  readonly timeline: readonly string[]
}

export type NotRunning = 'exited' | 'no-container' | 'container-stopped' | 'never-started'

export interface WatchOptions {
  readonly deadlineMs: number
  readonly pollMs?: number
  readonly ray?: RayView
  /** Stop on these codes as soon as they appear (default: any error-severity finding). */
  readonly stopOn?: (f: Finding) => boolean
  readonly onProgress?: (message: string) => void
  /** Stop watching (not ready) once aborted: a cancelled rollout. */
  readonly signal?: AbortSignal
  /** A "still waiting" progress line (elapsed time, last log line) at most this often; default 5000. */
  readonly progressEveryMs?: number
  /** The start-up timeline to go on with (the native mode's rendezvous watch began it); default a new one. */
  readonly timeline?: StartupTimeline
  /**
   * Every node's transport: when the start fails, each other node's own lines are read into the
   * timeline (under Ray its newest Ray worker logs: a driver that exits at once never receives the
   * lines Ray would forward from the worker that failed first; in the native mode its serve log).
   */
  readonly nodes?: ReadonlyMap<string, Transport>
}

/**
 * One poll, one SSH exec: is /health up, is `vllm serve` still alive in the container (seen from the
 * host with `docker top`, so the image needs no tools), and the log from a byte offset.
 */
const POLL_SCRIPT = [
  'c=$1; log=$2; off=$3; url=$4',
  'if curl --silent --fail --max-time 5 "$url" >/dev/null 2>&1; then echo "@@ready"; fi',
  // Not running: say whether it ever started (the container, then the log it writes from its first line).
  'if ! docker top "$c" -eo pid,args 2>/dev/null | grep -q "vllm serve"; then echo "@@exited"',
  '  if ! running=$(docker inspect -f "{{.State.Running}}" "$c" 2>/dev/null); then echo "@@no-container"',
  '  elif [ "$running" != true ]; then echo "@@container-stopped"',
  '  elif ! docker exec "$c" test -s "$log" 2>/dev/null; then echo "@@never-started"; fi',
  'fi',
  'echo "@@log"',
  'docker exec "$c" tail -c +"$off" "$log" 2>/dev/null | head -c "$5" || true',
].join('\n')

/** The newest Ray worker logs of a node's container (a worker's vLLM lines under Ray), each from its end. */
const WORKER_LOGS = [
  'c=$1; n=$2; ray=/tmp/ray/session_latest/logs',
  'for f in $(docker exec "$c" ls -t "$ray" 2>/dev/null | grep -E "^worker-[0-9a-f-]+\\.(out|err)$" | head -4); do docker exec "$c" tail -c "$n" "$ray/$f" 2>/dev/null; echo; done',
].join('\n')

/** A node's own vllm serve log (the native mode's other nodes), from its end. */
const SERVE_LOG = 'docker exec "$1" tail -c "$2" "$3" 2>/dev/null || true'

/**
 * Each other node's own lines into the timeline: its newest Ray worker logs under Ray, its vllm serve
 * log in the native mode (its end: lines the rendezvous watch read already change nothing).
 */
async function readWorkerLogs(m: Manifest, nodes: ReadonlyMap<string, Transport>, timeline: StartupTimeline): Promise<void> {
  const head = headOf(m).name
  const read =
    m.vllm.executorBackend === 'mp'
      ? shScript(SERVE_LOG, m.container.name, String(16 * 1024), VLLM_LOG)
      : shScript(WORKER_LOGS, m.container.name, String(16 * 1024))
  await Promise.all(
    m.nodes
      .filter((n) => n.name !== head && nodes.has(n.name))
      .map(async (n) => {
        const r = await nodes.get(n.name)!.run(read, { timeoutMs: boundedTimeoutSeconds(m.ssh, 30) * 1000 })
        if (r.stdout.trim() !== '') timeline.push(n.name, r.stdout, Date.now())
      }),
  )
}

/** At most this much of the log per poll (the transport's output limit is far above it); the rest comes next poll. */
const LOG_BYTES_PER_POLL = 1024 * 1024

/** One poll's deadline, under `ssh.commandTimeoutSeconds`. */
const POLL_TIMEOUT_SECONDS = 30

/** Keep this much of the log for the report. */
const KEPT = 64 * 1024

/** The last non-empty line of a log text. */
export const lastLogLine = (text: string): string =>
  text
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l !== '')
    .pop() ?? ''

export async function watchVllmStartup(head: Transport, m: Manifest, opts: WatchOptions): Promise<WatchResult> {
  const started = Date.now()
  const watcher = createLogWatcher({ source: `${head.label}:${VLLM_LOG}`, ...(opts.ray && { ray: opts.ray }) })
  const stopOn = opts.stopOn ?? ((f: Finding) => f.severity === 'error')
  let offset = 0
  let text = ''
  const tail = () => text.split('\n').slice(-40).join('\n')
  let lastProgress = started
  // Every node's phases, from the head's log (Ray forwards each worker's lines to it, with its address).
  const timeline = opts.timeline ?? startupTimelineFor(m)
  const source = headOf(m).name
  const result = (ready: boolean, findings: readonly Finding[], reason: string): WatchResult => {
    const now = Date.now()
    if (ready) timeline.ready(now)
    // A start that succeeded keeps its findings as they were; one that failed leads with its first failure.
    const all = ready ? [...findings] : withTimeline(findings, timeline, now, source)
    const first = all[0]?.code === 'STARTUP_FIRST_FAILURE' ? all[0].evidence['first failure'] : undefined
    return {
      ready,
      findings: all,
      waitedMs: now - started,
      reason: first ? `${reason}; the first failure: ${first}` : reason,
      logTail: tail(),
      timeline: timelineLines(timeline.view(), now),
    }
  }
  // A failed start: the other nodes' own lines first (the first failure may be one of them).
  const failed = async (findings: readonly Finding[], reason: string): Promise<WatchResult> => {
    if (opts.nodes) await readWorkerLogs(m, opts.nodes, timeline)
    return result(false, findings, reason)
  }
  const cancelled = (): WatchResult => ({ ...result(false, watcher.findings, 'cancelled while waiting for /health'), cancelled: true })
  for (;;) {
    if (opts.signal?.aborted) return cancelled()
    const poll = await head.run(shScript(POLL_SCRIPT, m.container.name, VLLM_LOG, String(offset + 1), vllmHealthUrl(m), String(LOG_BYTES_PER_POLL)), {
      timeoutMs: boundedTimeoutSeconds(m.ssh, POLL_TIMEOUT_SECONDS) * 1000,
      ...(opts.signal && { signal: opts.signal }),
    })
    if (poll.cancelled || opts.signal?.aborted) return cancelled()
    const at = poll.stdout.indexOf('@@log\n')
    const flags = at < 0 ? poll.stdout : poll.stdout.slice(0, at)
    const chunk = at < 0 ? '' : poll.stdout.slice(at + '@@log\n'.length)
    if (chunk.length > 0) {
      offset += Buffer.byteLength(chunk)
      text = (text + chunk).slice(-KEPT)
      timeline.push(source, chunk, Date.now())
      for (const f of watcher.push(chunk)) opts.onProgress?.(`vllm log: ${f.code}: ${f.message}`)
      const stopping = watcher.findings.filter(stopOn)
      // A server that answers /health 200 is ready, whatever its log said on the way (a placement group that waited, then formed).
      if (stopping.length > 0 && !flags.includes('@@ready'))
        return failed(stopping, `${stopping[0]!.code} after ${((Date.now() - started) / 1000).toFixed(1)} s`)
    }
    if (flags.includes('@@ready')) return result(true, watcher.findings, 'GET /health answered 200')
    // A node past its phase's budget: reported now, not at the deadline.
    const stalls = timeline.stalls(Date.now())
    if (stalls.length > 0 && !flags.includes('@@exited'))
      return { ...result(false, [...stalls.map((x) => stallFinding(m, x)), ...withUnexplained(watcher)], stallSentence(stalls[0]!)), stalled: true }
    if (flags.includes('@@exited')) {
      watcher.end()
      // Never silent: a log that names no known failure still brings its failure lines (UNRECOGNISED_FAILURE).
      const last = withUnexplained(watcher)
      const c = m.container.name
      const why: NotRunning = flags.includes('@@no-container')
        ? 'no-container'
        : flags.includes('@@container-stopped')
          ? 'container-stopped'
          : flags.includes('@@never-started')
            ? 'never-started'
            : 'exited'
      const reason: Record<NotRunning, string> = {
        exited: `vllm serve is no longer running in ${c} (see the log tail)`,
        'no-container': `vllm serve never started: there is no container ${c}`,
        'container-stopped': `vllm serve is not running: the container ${c} is stopped`,
        'never-started': `vllm serve never started in ${c}: it is not running and ${VLLM_LOG} is empty or missing`,
      }
      return { ...(await failed(last, reason[why])), notRunning: why }
    }
    if (Date.now() - started > opts.deadlineMs) return failed(withUnexplained(watcher), `not ready after ${Math.round(opts.deadlineMs / 1000)} s`)
    if (opts.onProgress && Date.now() - lastProgress >= (opts.progressEveryMs ?? 5000)) {
      lastProgress = Date.now()
      const phases = whereNow(timeline, lastProgress)
      opts.onProgress(
        `waiting for vLLM on ${head.label}: ${Math.round((lastProgress - started) / 1000)} s; last log line: ${lastLogLine(text) || '(none yet)'}${phases ? `; phases now: ${phases}` : ''}`,
      )
    }
    await pause(opts.pollMs ?? 2000, opts.signal)
  }
}

/** The watcher's findings, and the failure lines no signature explained when none of them is an error. */
export function withUnexplained(watcher: LogWatcher): Finding[] {
  return [...watcher.findings, ...watcher.unexplained()]
}

/** Wait between polls; an abort ends the wait at once. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve()
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
}
