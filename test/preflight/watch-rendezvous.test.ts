/**
 * The native mode's rendezvous watcher (src/preflight/watch-rendezvous.ts) over scripted nodes: each
 * node's poll answers as nativeGroupPoll's script prints on a real node (native-group.ts reads it),
 * so every way the watch ends is tried without a lab: the group forms; a node's vllm serve is not
 * running (its container stopped, missing, or the process gone); a node serves but never joins the
 * head's store once it is up (it connected elsewhere); a node's log shows a known failure; the
 * deadline; a cancel. The lab runs the real thing (test/deploy/native.e2e.test.ts).
 */
import { describe, expect, it } from 'vitest'
import { watchRendezvous } from '../../src/preflight/watch-rendezvous.js'
import type { RunResult, Transport } from '../../src/transport/transport.js'
import { simManifest } from '../deploy/support/sim-cluster.js'

const m = simManifest((d) => {
  d.vllm = { ...(d.vllm as object), executorBackend: 'mp' }
})
const [headNode, workerNode] = m.nodes
const head = headNode!
const worker = workerNode!
const port = m.vllm.masterPort

/** What a node's poll prints on poll number `i` (0-based). */
type Script = (i: number) => string

function cluster(scripts: Record<string, Script>): Map<string, Transport> {
  return new Map(
    Object.entries(scripts).map(([name, script]) => {
      let i = 0
      const t: Transport = {
        label: name,
        run: async (): Promise<RunResult> => ({ code: 0, signal: null, stdout: script(i++), stderr: '', durationMs: 1, timedOut: false }),
        close: async () => {},
      }
      return [name, t]
    }),
  )
}

const headStore = (log = ''): string => `@@serving\n@@listen vllm\n@@peer ${worker.fabricIp}\n@@log\n${log}`
const headListening = (log = ''): string => `@@serving\n@@listen vllm\n@@log\n${log}`
const workerJoined = (log = ''): string => `@@serving\n@@client ${head.fabricIp}:${port} ${worker.fabricIp}\n@@log\n${log}`
const fast = { pollMs: 5, deadlineMs: 60_000 }

describe('watchRendezvous', () => {
  it('every node serves and the worker is connected from its fabric IP: the group formed', async () => {
    const r = await watchRendezvous(cluster({ [head.name]: () => headStore(), [worker.name]: () => workerJoined() }), m, fast)
    expect(r).toMatchObject({ formed: true, findings: [], reason: 'all 2 nodes joined the process group' })
    expect(r.group?.members.map((x) => x.joined)).toEqual([true, true])
  })

  it.each([
    ['its container is stopped', '@@container-stopped\n@@log\n', /its container vllm-ray is stopped/],
    ['there is no container', '@@no-container\n@@log\n', /there is no container vllm-ray/],
    ['its process exited', '@@log\nINFO starting\n', /its process exited/],
  ])('the worker is not running (%s): RENDEZVOUS_NODE_NOT_RUNNING on it, with its log tail', async (_, poll, why) => {
    const r = await watchRendezvous(cluster({ [head.name]: () => headListening(), [worker.name]: () => poll }), m, fast)
    expect(r.formed).toBe(false)
    expect(r.reason).toBe(`vllm serve is not running on ${worker.name}`)
    const f = r.findings.find((x) => x.code === 'RENDEZVOUS_NODE_NOT_RUNNING')
    expect(f).toMatchObject({ node: worker.name, severity: 'error', evidence: { 'node rank': '1' } })
    expect(f?.message).toMatch(why)
  })

  it('the store is up and the worker serves but connected to the head’s management address: RENDEZVOUS_INCOMPLETE after the grace, naming where it went', async () => {
    const elsewhere = `@@serving\n@@client ${head.ssh.host}:${port} ${worker.ssh.host}\n@@log\n`
    const r = await watchRendezvous(cluster({ [head.name]: () => headListening(), [worker.name]: () => elsewhere }), m, { ...fast, joinGraceMs: 20 })
    expect(r.formed).toBe(false)
    expect(r.reason).toBe(`${worker.name} did not join`)
    const f = r.findings[0]!
    expect(f).toMatchObject({ code: 'RENDEZVOUS_INCOMPLETE', node: worker.name })
    expect(f.evidence).toMatchObject({
      store: `${head.fabricIp}:${port}`,
      'joined from (seen on the head)': '(none)',
      [`${worker.name} connected to a master port`]: `${worker.ssh.host} -> ${head.ssh.host}:${port}`,
    })
  })

  it('a node’s log shows a known failure: that finding, on that node, at once', async () => {
    const refused = `torch.distributed.DistNetworkError: The client socket has timed out after 600s while trying to connect to (${head.fabricIp}, ${port}).\n`
    const r = await watchRendezvous(cluster({ [head.name]: () => headListening(), [worker.name]: () => `@@serving\n@@log\n${refused}` }), m, {
      ...fast,
      joinGraceMs: 60_000,
    })
    expect(r.formed).toBe(false)
    expect(r.findings.length).toBeGreaterThan(0)
    expect(r.findings.every((f) => f.severity === 'error' && f.node === worker.name)).toBe(true)
    expect(r.reason).toMatch(new RegExp(`^${r.findings[0]!.code} on ${worker.name} after \\d+ s$`))
  })

  it('the store never comes up: the deadline ends the watch, saying so', async () => {
    const r = await watchRendezvous(cluster({ [head.name]: () => '@@serving\n@@log\n', [worker.name]: () => '@@serving\n@@log\n' }), m, {
      pollMs: 5,
      deadlineMs: 30,
    })
    expect(r).toMatchObject({ formed: false, findings: [], reason: 'the process group did not form in 0 s' })
    expect(r.group?.storeUp).toBe(false)
  })

  it('a cancel ends the watch as cancelled, between polls', async () => {
    const cancel = new AbortController()
    let polls = 0
    const r = await watchRendezvous(
      cluster({
        [head.name]: () => {
          if (++polls === 3) cancel.abort()
          return '@@serving\n@@log\n'
        },
        [worker.name]: () => '@@serving\n@@log\n',
      }),
      m,
      { ...fast, signal: cancel.signal },
    )
    expect(r).toMatchObject({ formed: false, cancelled: true, reason: 'cancelled while waiting for the process group' })
  })

  it('the log is read on from where it stopped: each poll asks from the bytes already read', async () => {
    const offsets: string[] = []
    const t: Transport = {
      label: head.name,
      run: async (cmd) => {
        offsets.push(JSON.stringify(cmd))
        return { code: 0, signal: null, stdout: offsets.length === 1 ? headListening('line one\n') : headStore(), stderr: '', durationMs: 1, timedOut: false }
      },
      close: async () => {},
    }
    const w: Transport = {
      label: worker.name,
      run: async () => ({ code: 0, signal: null, stdout: workerJoined(), stderr: '', durationMs: 1, timedOut: false }),
      close: async () => {},
    }
    const r = await watchRendezvous(
      new Map([
        [head.name, t],
        [worker.name, w],
      ]),
      m,
      fast,
    )
    expect(r.formed).toBe(true)
    // The poll's `tail -c +OFF` (1-based): the first from byte 1, the second past "line one\n" (9 bytes read).
    const from = (cmd: string) => (JSON.parse(cmd) as { argv: string[] }).argv[6]
    expect(offsets.map(from)).toEqual(['1', '10'])
  })
})
