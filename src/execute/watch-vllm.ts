/**
 * Watch vLLM start on the head: poll /health and read the serve log as it grows, scanning it for
 * the known failure signatures. A pending placement group fails the watch within seconds instead
 * of after vLLM's own 1800 s timeout.
 */
import type { Manifest } from '../manifest/schema.js'
import { shScript } from '../command/shell.js'
import type { RayView } from '../preflight/facts.js'
import type { Finding } from '../preflight/finding.js'
import { createLogWatcher } from '../preflight/signatures.js'
import { VLLM_LOG, vllmHealthUrl } from '../plan/node-commands.js'
import type { Transport } from '../transport/transport.js'

export interface WatchResult {
  readonly ready: boolean
  /** Error findings that stopped the watch (or every finding seen, when ready). */
  readonly findings: readonly Finding[]
  readonly waitedMs: number
  readonly reason: string
  readonly logTail: string
}

export interface WatchOptions {
  readonly deadlineMs: number
  readonly pollMs?: number
  readonly ray?: RayView
  /** Stop on these codes as soon as they appear (default: any error-severity finding). */
  readonly stopOn?: (f: Finding) => boolean
  readonly onProgress?: (message: string) => void
  /** Stop watching (not ready) once aborted: a cancelled rollout. */
  readonly signal?: AbortSignal
}

/**
 * One poll, one SSH exec: is /health up, is `vllm serve` still alive in the container (seen from the
 * host with `docker top`, so the image needs no tools), and the log from a byte offset.
 */
const POLL_SCRIPT = [
  'c=$1; log=$2; off=$3; url=$4',
  'if curl --silent --fail --max-time 5 "$url" >/dev/null 2>&1; then echo "@@ready"; fi',
  'if ! docker top "$c" -eo pid,args 2>/dev/null | grep -q "vllm serve"; then echo "@@exited"; fi',
  'echo "@@log"',
  'docker exec "$c" tail -c +"$off" "$log" 2>/dev/null || true',
].join('\n')

/** Keep this much of the log for the report. */
const KEPT = 64 * 1024

export async function watchVllmStartup(head: Transport, m: Manifest, opts: WatchOptions): Promise<WatchResult> {
  const started = Date.now()
  const watcher = createLogWatcher({ source: `${head.label}:${VLLM_LOG}`, ...(opts.ray && { ray: opts.ray }) })
  const stopOn = opts.stopOn ?? ((f: Finding) => f.severity === 'error')
  let offset = 0
  let text = ''
  const tail = () => text.split('\n').slice(-40).join('\n')
  const result = (ready: boolean, findings: readonly Finding[], reason: string): WatchResult => ({ ready, findings, waitedMs: Date.now() - started, reason, logTail: tail() })
  for (;;) {
    const poll = await head.run(shScript(POLL_SCRIPT, m.container.name, VLLM_LOG, String(offset + 1), vllmHealthUrl(m)), { timeoutMs: 30_000 })
    const at = poll.stdout.indexOf('@@log\n')
    const flags = at < 0 ? poll.stdout : poll.stdout.slice(0, at)
    const chunk = at < 0 ? '' : poll.stdout.slice(at + '@@log\n'.length)
    if (chunk.length > 0) {
      offset += Buffer.byteLength(chunk)
      text = (text + chunk).slice(-KEPT)
      for (const f of watcher.push(chunk)) opts.onProgress?.(`vllm log: ${f.code}: ${f.message}`)
      const stopping = watcher.findings.filter(stopOn)
      if (stopping.length > 0) return result(false, stopping, `${stopping[0]!.code} after ${((Date.now() - started) / 1000).toFixed(1)} s`)
    }
    if (flags.includes('@@ready')) return result(true, watcher.findings, 'GET /health answered 200')
    if (flags.includes('@@exited')) {
      const last = [...watcher.findings, ...watcher.end()]
      return result(false, last, `vllm serve is no longer running in ${m.container.name} (see the log tail)`)
    }
    if (opts.signal?.aborted) return result(false, watcher.findings, 'cancelled while waiting for /health')
    if (Date.now() - started > opts.deadlineMs) return result(false, watcher.findings, `not ready after ${Math.round(opts.deadlineMs / 1000)} s`)
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 2000))
  }
}
