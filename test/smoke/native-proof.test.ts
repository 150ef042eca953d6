/**
 * The native mode's cluster proof (src/smoke/native-proof.ts) against each node's group poll: a node
 * the proof could not look at (no connection, a poll that did not finish, a head whose store could not
 * be read) is SMOKE_CHECK_INCOMPLETE, never SMOKE_NATIVE_NODE_MISSING, and its fix proposes no restart.
 * A node that was looked at and does not serve is still SMOKE_NATIVE_NODE_MISSING, named.
 */
import { describe, expect, it } from 'vitest'
import type { Cmd } from '../../src/command/shell.js'
import { proveNativeCluster } from '../../src/smoke/native-proof.js'
import type { RunResult, Transport } from '../../src/transport/transport.js'
import { simManifest } from '../deploy/support/sim-cluster.js'

const m = simManifest((doc) => {
  delete doc.ray
  ;(doc.vllm as Record<string, unknown>).executorBackend = 'mp'
})
const [head, worker] = m.nodes
const HEAD_FORMED = `@@serving\n@@listen vllm\n@@peer ${worker!.fabricIp} vllm\n@@log\n`
const WORKER_JOINED = `@@serving\n@@client ${head!.fabricIp} ${worker!.fabricIp}\n@@log\n`
const WORKER_STOPPED = '@@log\n'

const result = (stdout: string, code: number | null = 0, extra: Partial<RunResult> = {}): RunResult => ({
  code,
  signal: null,
  stdout,
  stderr: '',
  durationMs: 1,
  timedOut: false,
  ...extra,
})
const answering = (label: string, r: RunResult): Transport => ({ label, run: async (_c: Cmd) => r, close: async () => {} })

describe('the native proof', () => {
  it('passes when every node serves and the head holds the worker connection', async () => {
    const p = await proveNativeCluster(
      m,
      new Map([
        [head!.name, answering('h', result(HEAD_FORMED))],
        [worker!.name, answering('w', result(WORKER_JOINED))],
      ]),
    )
    expect(p.findings).toEqual([])
    expect(p.group?.formed).toBe(true)
  })

  it('a worker that was looked at and does not serve is SMOKE_NATIVE_NODE_MISSING, named', async () => {
    const p = await proveNativeCluster(
      m,
      new Map([
        [head!.name, answering('h', result(`@@serving\n@@listen vllm\n@@log\n`))],
        [worker!.name, answering('w', result(WORKER_STOPPED))],
      ]),
    )
    expect(p.findings.map((f) => [f.code, f.node])).toEqual([['SMOKE_NATIVE_NODE_MISSING', worker!.name]])
  })

  const unseen: [string, Map<string, Transport>, ReadonlyMap<string, string> | undefined, RegExp][] = [
    ['no connection to the worker', new Map([[head!.name, answering('h', result(HEAD_FORMED))]]), undefined, /no SSH connection/],
    [
      'no connection to the worker, with the connect error',
      new Map([[head!.name, answering('h', result(HEAD_FORMED))]]),
      new Map([[worker!.name, 'SSH to 10.0.0.2:22 failed: ECONNREFUSED']]),
      /ECONNREFUSED/,
    ],
    [
      "the worker's poll timed out",
      new Map([
        [head!.name, answering('h', result(HEAD_FORMED))],
        [worker!.name, answering('w', result('', null, { timedOut: true, durationMs: 60_000 }))],
      ]),
      undefined,
      /timed out/,
    ],
    [
      "the head's poll failed (its store could not be read)",
      new Map([
        [head!.name, answering('h', result('', 255, { stderr: 'connection reset' }))],
        [worker!.name, answering('w', result(WORKER_JOINED))],
      ]),
      undefined,
      /store could not be read/,
    ],
  ]
  for (const [what, transports, unreachable, why] of unseen)
    it(`${what}: SMOKE_CHECK_INCOMPLETE for the worker, no restart proposed`, async () => {
      const p = await proveNativeCluster(m, transports, unreachable ? { unreachable } : {})
      const w = p.findings.filter((f) => f.node === worker!.name)
      expect(w.map((f) => f.code)).toEqual(['SMOKE_CHECK_INCOMPLETE'])
      expect(w[0]!.message).toMatch(why)
      expect(w[0]!.fix).not.toMatch(/--force|restart/i)
      expect(p.findings.map((f) => f.code)).not.toContain('SMOKE_NATIVE_NODE_MISSING')
    })
})
