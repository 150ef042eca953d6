/**
 * Watch vLLM start on the head: poll /health and read the serve log as it grows, scanning it for
 * the known failure signatures. A pending placement group fails the watch within seconds instead
 * of after vLLM's own 1800 s timeout.
 */
import type { Manifest } from '../manifest/schema.js'
import { argv } from '../command/shell.js'
import type { RayView } from '../preflight/facts.js'
import type { Finding } from '../preflight/finding.js'
import { createLogWatcher } from '../preflight/signatures.js'
import { VLLM_LOG, vllmHealth } from '../plan/node-commands.js'
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
}

export async function watchVllmStartup(head: Transport, m: Manifest, opts: WatchOptions): Promise<WatchResult> {
  const started = Date.now()
  const watcher = createLogWatcher({ source: `${head.label}:${VLLM_LOG}`, ...(opts.ray && { ray: opts.ray }) })
  const stopOn = opts.stopOn ?? ((f: Finding) => f.severity === 'error')
  let offset = 0
  let text = ''
  const tail = () => text.split('\n').slice(-40).join('\n')
  for (;;) {
    const log = await head.run(argv('docker', 'exec', m.container.name, 'tail', '-c', `+${offset + 1}`, VLLM_LOG), { timeoutMs: 15_000 })
    if (log.code === 0 && log.stdout.length > 0) {
      offset += Buffer.byteLength(log.stdout)
      text += log.stdout
      const fresh = watcher.push(log.stdout)
      for (const f of fresh) opts.onProgress?.(`vllm log: ${f.code}: ${f.message}`)
      const stopping = watcher.findings.filter(stopOn)
      if (stopping.length > 0) {
        return { ready: false, findings: stopping, waitedMs: Date.now() - started, reason: `${stopping[0]!.code} after ${((Date.now() - started) / 1000).toFixed(1)} s`, logTail: tail() }
      }
    }
    const health = await head.run(vllmHealth(m), { timeoutMs: 10_000 })
    if (health.code === 0) return { ready: true, findings: watcher.findings, waitedMs: Date.now() - started, reason: 'GET /health answered 200', logTail: tail() }
    if (Date.now() - started > opts.deadlineMs) {
      return { ready: false, findings: watcher.findings, waitedMs: Date.now() - started, reason: `not ready after ${Math.round(opts.deadlineMs / 1000)} s`, logTail: tail() }
    }
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 2000))
  }
}
