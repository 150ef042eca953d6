/**
 * Issue 24 item 5: a cancel while waiting for vLLM's /health ends the watch at once as `cancelled`
 * (not "not ready"), whether it arrives during a poll or during the wait between polls.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { Cmd } from '../../src/command/shell.js'
import { parseManifest } from '../../src/manifest/load-manifest.js'
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

/** A head whose vLLM printed `log` and exited (the first poll says so). */
function exitedHead(log: string): Transport {
  return {
    label: 'head',
    async run(): Promise<RunResult> {
      return { code: 0, signal: null, stdout: `@@exited\n@@log\n${log}`, stderr: '', durationMs: 1, timedOut: false }
    },
    async close() {},
  }
}

describe('never silent when vLLM exits (issue 36)', () => {
  it('a log no signature names: the watch ends with UNRECOGNISED_FAILURE (error) quoting its exception', async () => {
    const w = await watchVllmStartup(
      exitedHead('INFO starting\nTraceback (most recent call last):\n  File "x.py", line 1, in <module>\nKeyError: \'model_type\'\n'),
      manifest,
      {
        deadlineMs: 60_000,
        pollMs: 1,
      },
    )
    expect(w).toMatchObject({ ready: false, notRunning: 'exited' })
    expect(w.findings).toEqual([
      expect.objectContaining({ code: 'UNRECOGNISED_FAILURE', severity: 'error', evidence: expect.objectContaining({ 'Exception type': 'KeyError' }) }),
      // The start-up timeline closes a failed watch's findings.
      expect.objectContaining({ code: 'STARTUP_TIMELINE', severity: 'info' }),
    ])
  })

  it("this round's families end the watch with their values (NCCL's version check, the driver's node outside the placement group, a Gloo interface)", async () => {
    const logs: [string, string, Record<string, string>][] = [
      ['NCCL WARN Mismatched NCCL version detected : rank 1 version 22705 rank 0 version 22703\n', 'VERSION_SKEW', { 'NCCL of rank 1': '2.27.5' }],
      [
        "RuntimeError: driver node id 3e48e24bfb174f5d7e32b56b500214c34fde9d46eac3208b382f0a18 is not included in a placement group 40b1afdfd00d099e6f456e30b24f02000000. Node id -> bundles {'9a1c': [{'GPU': 1.0}]}. You don't have enough GPUs available in a current node.\n",
        'DRIVER_NO_GPU',
        { 'Placement group': '40b1afdfd00d099e6f456e30b24f02000000' },
      ],
      [
        "terminate called after throwing an instance of 'gloo::EnforceNotMet'\n  what():  [enforce fail at gloo/transport/tcp/device.cc:88] ifa != nullptr. Unable to find address for: eth9\nAborted (core dumped)\n",
        'SOCKET_IFNAME_MISSING',
        { 'Interface Gloo was told': 'eth9' },
      ],
    ]
    for (const [log, code, evidence] of logs) {
      const w = await watchVllmStartup(exitedHead(log), manifest, { deadlineMs: 60_000, pollMs: 1 })
      // Beside the start-up timeline (info), exactly the family's error.
      expect(
        w.findings.filter((f) => f.code !== 'STARTUP_TIMELINE'),
        code,
      ).toEqual([expect.objectContaining({ code, severity: 'error', evidence: expect.objectContaining(evidence) })])
    }
  })

  it('a log a signature names: that finding, with its value, and no UNRECOGNISED_FAILURE beside it', async () => {
    const w = await watchVllmStartup(exitedHead('vllm: error: unrecognized arguments: --omni\n'), manifest, { deadlineMs: 60_000, pollMs: 1 })
    expect(w.findings.filter((f) => f.severity !== 'info').map((f) => [f.code, f.evidence['Unrecognised arguments']])).toEqual([
      ['VLLM_FLAG_UNKNOWN', '--omni'],
    ])
  })
})
