/**
 * The runner-fed distributions' deliveries (load, relay) without Docker: the runner's docker is the
 * stub on $VRD_DOCKER (set before the modules load: src/execute/step-inputs.ts reads it once), each node
 * a recording transport. What each node ends with is recorded in `actions`; a node that already
 * holds the wanted image is left alone.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Delivery, Distribution, NodeImage } from '../../src/deploy/distribution/types.js'
import type { Manifest } from '../../src/manifest/schema.js'
import type { Finding } from '../../src/preflight/finding.js'
import type { PlannedStep } from '../../src/plan/plan.js'
import type { Readable } from 'node:stream'
import { type Answer, RUNNER_DOCKER, recording } from './support/recording.js'
import { simManifest } from './support/sim-cluster.js'

const IMAGE = 'vrd/test:1'
const RUNNER_ID = `sha256:${'a'.repeat(64)}`
const saved = { ...process.env }
let dir: string
let load: Distribution
let relay: Distribution
let stdinProvider: typeof import('../../src/execute/step-inputs.js').stdinProvider
let m: Manifest

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vrd-deliver-'))
  const docker = join(dir, 'docker')
  writeFileSync(docker, RUNNER_DOCKER)
  chmodSync(docker, 0o755)
  Object.assign(process.env, { VRD_DOCKER: docker, STUB_IMAGE: IMAGE, STUB_RUNNER_ID: RUNNER_ID, STUB_SAVE_BYTES: '200000' })
  ;({ load } = await import('../../src/deploy/distribution/load.js'))
  ;({ relay } = await import('../../src/deploy/distribution/relay.js'))
  ;({ stdinProvider } = await import('../../src/execute/step-inputs.js'))
  m = simManifest()
})
afterAll(() => {
  process.env = saved
  rmSync(dir, { recursive: true, force: true })
})

function delivery(nodes: Record<string, Answer>, before: Record<string, string | undefined>) {
  const { transports, calls } = recording(nodes)
  const findings: Finding[] = []
  const actions = new Map<string, NodeImage>()
  const progress: string[] = []
  let bytes = 0
  const d: Delivery = {
    m,
    image: IMAGE,
    manifestPath: '/nonexistent/manifest.yml',
    transports,
    nodes: m.nodes.filter((n) => transports.has(n.name)),
    before: new Map(Object.entries(before)),
    want: RUNNER_ID,
    actions,
    findings,
    addBytes: (n) => (bytes += n),
    progress: (s) => progress.push(s),
  }
  return { d, calls, findings, actions: () => Object.fromEntries(actions), bytes: () => bytes, progress }
}

const loads = (c: string) => /^docker load/.test(c)
const inspect = /docker image inspect/
const holds =
  (id: string | undefined, other: Answer = () => ({})): Answer =>
  (c) =>
    inspect.test(c) ? (id ? { stdout: `${id}\n` } : { code: 1, stderr: 'Error: No such image' }) : other(c)

describe('load: docker save | ssh | docker load into each node that lacks the image', () => {
  it('a node that holds the wanted ID is left alone; the other loads the runner stream, its bytes counted', async () => {
    const x = delivery({ 'spark-a': () => ({}), 'spark-b': () => ({ stdout: 'Loaded image: vrd/test:1\n' }) }, { 'spark-a': RUNNER_ID, 'spark-b': undefined })
    await load.deliver(x.d)
    expect(x.actions()).toEqual({ 'spark-a': { action: 'present', imageId: RUNNER_ID }, 'spark-b': { action: 'loaded' } })
    expect(x.calls.map((c) => [c.node, loads(c.command), c.stdinBytes])).toEqual([['spark-b', true, 200000]])
    expect(x.bytes()).toBe(200000)
    expect(x.progress).toContainEqual(expect.stringMatching(/^\[spark-b\] image: docker save vrd\/test:1 \| ssh \| docker load/))
  })

  it("a load that fails is 'failed' on that node with docker's words", async () => {
    const x = delivery(
      { 'spark-a': () => ({ code: 1, stderr: 'Error processing tar file: no space left on device' }), 'spark-b': () => ({}) },
      { 'spark-a': undefined, 'spark-b': undefined },
    )
    await load.deliver(x.d)
    expect(x.actions()).toEqual({
      'spark-a': { action: 'failed', detail: 'docker load exit 1: Error processing tar file: no space left on device' },
      'spark-b': { action: 'loaded' },
    })
  })
})

describe('relay: the image gate hands the transfer to relayImage and records its outcome per node', () => {
  it('delivered everywhere: relayed on each node that lacked it, present where it was, the bytes added', async () => {
    const worker = m.nodes.find((n) => n.role !== 'head')!
    const x = delivery(
      { 'spark-a': holds(RUNNER_ID), 'spark-b': holds(RUNNER_ID, () => ({ stdout: 'Loaded image\n' })) },
      { 'spark-a': RUNNER_ID, 'spark-b': undefined },
    )
    await relay.deliver(x.d)
    expect(x.findings).toEqual([])
    expect(x.actions()).toEqual({ 'spark-a': { action: 'present', imageId: RUNNER_ID }, 'spark-b': { action: 'relayed' } })
    // The head held it already: it passes it on itself, nothing comes from the runner.
    expect(x.calls.filter((c) => !inspect.test(c.command)).map((c) => c.node)).toEqual(['spark-a'])
    expect(x.calls.find((c) => !inspect.test(c.command))!.command).toContain(worker.fabricIp)
    expect(x.bytes()).toBe(0)
  })

  it("a node the relay did not reach is 'failed', and relayImage's findings are the delivery's", async () => {
    const x = delivery(
      {
        'spark-a': holds(undefined, () => ({ code: 1, stdout: 'relay\thead\t1\nlog\thead\tno space left on device\nend\n' })),
        'spark-b': holds(undefined),
      },
      { 'spark-a': undefined, 'spark-b': undefined },
    )
    await relay.deliver(x.d)
    expect(x.actions()).toEqual({
      'spark-a': { action: 'failed', detail: 'the relay did not deliver it' },
      'spark-b': { action: 'failed', detail: 'the relay did not deliver it' },
    })
    expect(x.findings.map((f) => [f.code, f.node])).toContainEqual(['IMAGE_TRANSFER_FAILED', 'spark-a'])
    // (seen once in a loaded CI run as 0 and not reproduced since: the message carries what the relay said, for the next time)
    expect(x.bytes(), JSON.stringify({ calls: x.calls, progress: x.progress, findings: x.findings.map((f) => [f.code, f.message, f.evidence]) })).toBe(200000)
  })
})

describe("the runner's image archive a node's transport reads (step-inputs.ts): counted without losing a byte", () => {
  it('a transport that starts reading only after docker save has ended still reads every byte, and the count is given once', async () => {
    process.env.STUB_SAVE_BYTES = '1000'
    try {
      const counts: number[] = []
      let ended!: () => void
      const saveEnded = new Promise<void>((resolve) => (ended = resolve))
      const provide = stdinProvider('/nonexistent/manifest.yml', process.env, {
        onImageBytes: (_node, bytes) => {
          counts.push(bytes)
          ended()
        },
      })
      const r = await provide({ kind: 'image-archive', image: IMAGE }, { node: 'spark-b' } as PlannedStep)
      if (!r.ok) throw new Error(r.problem.message)
      // The count is given when docker save's stream ends: here before anything reads the archive (an SSH channel still opening).
      await saveEnded
      let read = 0
      for await (const chunk of r.value as Readable) read += (chunk as Buffer).length
      expect(read).toBe(1000)
      expect(counts).toEqual([1000])
    } finally {
      process.env.STUB_SAVE_BYTES = '200000'
    }
  })
})
