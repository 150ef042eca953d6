/**
 * The native mode's cluster proof (src/smoke/native-proof.ts) against each node's group poll: a node
 * the proof could not look at (no connection, a poll that did not finish, a head whose store could not
 * be read) is SMOKE_CHECK_INCOMPLETE, never SMOKE_NATIVE_NODE_MISSING, and its fix proposes no restart.
 * A node that was looked at and does not serve is still SMOKE_NATIVE_NODE_MISSING, named.
 */
import { describe, expect, it } from 'vitest'
import { inWords } from '../../src/command/option-words.js'
import type { Cmd } from '../../src/command/shell.js'
import { nativeProofLine, proveNativeCluster } from '../../src/smoke/native-proof.js'
import type { RunOptions, RunResult, Transport } from '../../src/transport/transport.js'
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

  const prove = (h: string, w: string) =>
    proveNativeCluster(
      m,
      new Map([
        [head!.name, answering('h', result(h))],
        [worker!.name, answering('w', result(w))],
      ]),
    )
  const store = `${head!.fabricIp}:${m.vllm.masterPort}`

  it('says why a node that was looked at is not in the group: no container, a stopped one, no vllm serve in a running one', async () => {
    for (const [poll, why] of [
      ['@@no-container\n@@log\n', `its container ${m.container.name} is missing`],
      ['@@container-stopped\n@@log\n', `its container ${m.container.name} is stopped`],
      [WORKER_STOPPED, 'its vllm serve is not running'],
    ] as const) {
      const p = await prove(`@@serving\n@@listen vllm\n@@log\n`, poll)
      expect(p.findings.map((f) => f.message)).toEqual([
        `${worker!.name} (node rank 1) is not in vLLM's process group: ${why}; the model's ranks there are gone, so the server cannot generate.`,
      ])
      expect(p.findings[0]!.evidence).toMatchObject({ store, [`${worker!.name} vllm serve`]: 'not running', [`${worker!.name} connected`]: '(no connection)' })
      // The option stays marked until a front door words it (src/command/option-words.ts).
      expect(inWords(p.findings[0]!.fix, 'cli')).toMatch(/^Restart the release on every node \(vllm-ray-deploy deploy --force\)/)
    }
  })

  it('a head that serves but holds no store (nothing listens on the master port, no member connected) is missing, and so is every worker', async () => {
    const p = await prove('@@serving\n@@log\n', WORKER_JOINED)
    expect(p.group?.formed).toBe(false)
    expect(p.findings.map((f) => [f.code, f.node])).toEqual([
      ['SMOKE_NATIVE_NODE_MISSING', head!.name],
      ['SMOKE_NATIVE_NODE_MISSING', worker!.name],
    ])
    expect(p.findings[0]!.message).toContain(`nothing listens on the master port ${m.vllm.masterPort}`)
    expect(p.findings[1]!.message).toContain(`the head's store has no connection from ${worker!.fabricIp}`)
  })

  it('a worker that joined the store from outside the fabric is missing, and the evidence names where it connected from', async () => {
    const mgmt = '10.9.9.2'
    const p = await prove(`@@serving\n@@listen vllm\n@@peer ${mgmt} vllm\n@@log\n`, `@@serving\n@@client ${head!.fabricIp} ${mgmt}\n@@log\n`)
    expect(p.findings.map((f) => [f.code, f.node])).toEqual([['SMOKE_NATIVE_NODE_MISSING', worker!.name]])
    expect(p.findings[0]!.message).toContain(`the head's store has no connection from ${worker!.fabricIp}`)
    expect(p.findings[0]!.evidence).toEqual({
      store,
      [`${worker!.name} vllm serve`]: 'running',
      [`${worker!.name} connected`]: `${mgmt} -> ${head!.fabricIp}`,
      'connected from outside the fabric': mgmt,
    })
  })

  it('reports the ranks each node serves and one progress line naming every node, in or missing', async () => {
    const formed = await prove(HEAD_FORMED, WORKER_JOINED)
    const ranks = (m.vllm.tensorParallelSize * m.vllm.pipelineParallelSize) / 2
    expect(formed.group).toEqual({ store, ranksPerNode: ranks, formed: true })
    expect(formed.serving).toEqual([
      { ip: head!.fabricIp, node: head!.name, bundles: ranks, alive: true },
      { ip: worker!.fabricIp, node: worker!.name, bundles: ranks, alive: true },
    ])
    expect(nativeProofLine(formed)).toBe(`smoke: process group at ${store}: ${head!.name} in, ${worker!.name} in`)
    expect(nativeProofLine(await prove(HEAD_FORMED, WORKER_STOPPED))).toBe(`smoke: process group at ${store}: ${head!.name} in, ${worker!.name} MISSING`)
  })

  it("polls every node once, past any log, with the caller's cancel signal", async () => {
    const seen: RunOptions[] = []
    const recording = (r: RunResult): Transport => ({
      label: 'x',
      run: async (_c: Cmd, o?: RunOptions) => {
        seen.push(o!)
        return r
      },
      close: async () => {},
    })
    const signal = new AbortController().signal
    await proveNativeCluster(
      m,
      new Map([
        [head!.name, recording(result(HEAD_FORMED))],
        [worker!.name, recording(result(WORKER_JOINED))],
      ]),
      { signal },
    )
    expect(seen.map((o) => [o.signal, o.timeoutMs])).toEqual([
      [signal, 60_000],
      [signal, 60_000],
    ])
  })
})
