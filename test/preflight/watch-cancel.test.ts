/**
 * Issue 24 item 5: a cancel while waiting for vLLM's /health ends the watch at once as `cancelled`
 * (not "not ready"), whether it arrives during a poll or during the wait between polls.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { Cmd } from '../../src/command/shell.js'
import { parseManifest } from '../../src/manifest/load.js'
import { watchVllmStartup } from '../../src/preflight/watch-vllm.js'
import type { RunOptions, RunResult, Transport } from '../../src/transport/transport.js'

const manifest = parseManifest(readFileSync('src/manifest/examples/dgx-spark-pair.yml', 'utf8'), 'm.yml').manifest!

/** A head where vLLM is still starting: every poll says "running, not ready", with one log line. */
function startingHead(onPoll: (n: number, opts: RunOptions) => void): Transport & { polls: number } {
  const head = {
    label: 'head',
    polls: 0,
    async run(_cmd: Cmd, opts: RunOptions): Promise<RunResult> {
      head.polls++
      onPoll(head.polls, opts)
      const cancelled = opts.signal?.aborted === true
      return {
        code: cancelled ? null : 0,
        signal: null,
        stdout: cancelled ? '' : '@@log\nINFO loading weights\n',
        stderr: '',
        durationMs: 1,
        timedOut: false,
        ...(cancelled && { cancelled }),
      }
    },
    async close() {},
  }
  return head
}

describe('a cancel during the /health wait', () => {
  it('during the pause between polls: the watch ends at once as cancelled (an hour-long poll interval never elapses)', async () => {
    const ac = new AbortController()
    const head = startingHead((n) => {
      if (n === 1) setImmediate(() => ac.abort()) // after the poll's result is read: during the pause
    })
    const w = await watchVllmStartup(head, manifest, { deadlineMs: 3_600_000, pollMs: n(2), signal: ac.signal })
    expect(w).toMatchObject({ ready: false, cancelled: true, reason: 'cancelled while waiting for /health' })
    expect(head.polls).toBe(1)
  })

  it('during a poll: the poll gets the signal and the watch ends as cancelled', async () => {
    const ac = new AbortController()
    let sawSignal = false
    const head = startingHead((n, opts) => {
      sawSignal = opts.signal === ac.signal
      if (n === 1) ac.abort()
    })
    const w = await watchVllmStartup(head, manifest, { deadlineMs: 3_600_000, pollMs: n(1), signal: ac.signal })
    expect(sawSignal).toBe(true)
    expect(w.cancelled).toBe(true)
  })
})

/** A poll interval far longer than any test may take: only an abort can end the wait. */
function n(hours: number): number {
  return hours * 3_600_000
}
