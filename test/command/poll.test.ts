/**
 * The one poll schedule (src/command/poll.ts): every long wait starts with short pauses and settles on
 * its own interval; the node-side retry (plan's `retry`, the Ray head's and the cluster's waits) runs
 * the same schedule in bash, checked here by running it for real.
 */
import { describe, expect, it } from 'vitest'
import { backoffMs, backoffSeconds, pause } from '../../src/command/poll.js'
import { type Argv, argv } from '../../src/command/shell.js'
import { retry } from '../../src/plan/node-commands.js'
import { LocalTransport } from '../../src/transport/local.js'

describe('the poll schedule', () => {
  it('starts at 250 ms, doubles, and stays at the poller interval', () => {
    expect([0, 1, 2, 3, 4, 5].map((i) => backoffMs(i, 2000))).toEqual([250, 500, 1000, 2000, 2000, 2000])
    expect([0, 1, 2, 3].map((i) => backoffMs(i, 1000))).toEqual([250, 500, 1000, 1000])
    expect([0, 1, 2, 3, 4].map((i) => backoffMs(i, 5000))).toEqual([250, 500, 1000, 2000, 4000])
    expect(backoffMs(5, 5000)).toBe(5000)
    // An interval at or under the first pause is kept as it is; a huge attempt number does not overflow.
    expect(backoffMs(0, 100)).toBe(100)
    expect(backoffMs(10_000, 2000)).toBe(2000)
  })

  it('the node-side schedule is the same, in seconds, ending with the interval', () => {
    expect(backoffSeconds(2)).toEqual(['0.25', '0.5', '1', '2'])
    expect(backoffSeconds(5)).toEqual(['0.25', '0.5', '1', '2', '4', '5'])
    expect(backoffSeconds(1)).toEqual(['0.25', '0.5', '1'])
  })

  it('an abort ends a pause at once', async () => {
    const ac = new AbortController()
    const waiting = pause(600_000, ac.signal)
    ac.abort()
    await waiting
    await pause(600_000, ac.signal) // already aborted: returns at once
  })
})

describe('retry on a node (bash)', () => {
  const local = new LocalTransport()

  it('pauses on the schedule, then at the interval, until the command succeeds', async () => {
    // The command logs each try and succeeds at the sixth; `sleep` is a shim that logs its argument.
    const dir = (await local.run(argv('mktemp', '-d'), { timeoutMs: 5000 })).stdout.trim()
    const shim = `${dir}/sleep`
    await local.run(argv('sh', '-c', `printf '#!/bin/sh\\necho "sleep $1" >>"${dir}/log"\\n' >"${shim}" && chmod +x "${shim}"`), { timeoutMs: 5000 })
    const attempt = `echo try >>"${dir}/log"; [ "$(grep -c try "${dir}/log")" -ge 6 ]`
    const cmd = retry(argv('sh', '-c', attempt), 60, 2) as Argv
    const r = await local.run(argv('env', `PATH=${dir}:${process.env.PATH}`, ...cmd.argv), { timeoutMs: 30_000 })
    expect(r.code).toBe(0)
    const log = (await local.run(argv('cat', `${dir}/log`), { timeoutMs: 5000 })).stdout.trim().split('\n')
    expect(log).toEqual(['try', 'sleep 0.25', 'try', 'sleep 0.5', 'try', 'sleep 1', 'try', 'sleep 2', 'try', 'sleep 2', 'try'])
    await local.run(argv('rm', '-rf', dir), { timeoutMs: 5000 })
  })

  it('gives up with exit 1 once the deadline has passed', async () => {
    const r = await local.run(retry(argv('false'), 0, 2), { timeoutMs: 30_000 })
    expect(r.code).toBe(1)
  })
})
