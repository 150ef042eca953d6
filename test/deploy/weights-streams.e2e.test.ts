/**
 * Several weights streams on the lab (issue 40): a cold `relay` with `model.streams: 4` moves every
 * shard through the head to the worker over one shared fabric connection (the streams ride it as
 * channels of their own), every file verified on both nodes; after the stage no master connection
 * or control socket is left on the head; a redeploy moves nothing; and a stage cancelled while the
 * streams run leaves no master behind either.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { argv } from '../../src/command/shell.js'
import { deliverWeights } from '../../src/deploy/weights/transfer.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { FABRIC_SHARE_PERSIST_SECONDS } from '../../src/plan/relay-commands.js'
import type { Transport } from '../../src/transport/transport.js'
import { leaveLabNodes, openLab, shardBytes } from './support/lab-nodes.js'

const MODEL_PATH = '/var/lib/vrd/models/lab-streams'
const SHARDS = [1, 2, 3, 4, 5].map((i) => [`model-0000${i}-of-00005.safetensors`, shardBytes(`s${i}`, 6_000_000 + i * 1_000_000)] as const)
let manifest: Manifest
let transports: Map<string, Transport>
let src: string
let env: NodeJS.ProcessEnv
const log: string[] = []
const progress = (m: string) => {
  log.push(m)
  process.stderr.write(`[weights-streams-e2e] ${m}\n`)
}
const head = () => transports.get(manifest.nodes[0]!.name)!
const masters = async () =>
  (await head().run(argv('sh', '-c', 'pgrep -af "[C]ontrolMaster=yes" ; ls /tmp | grep "^vrd-fabric-" ; true'), { timeoutMs: 30_000 })).stdout.trim()
const deliver = (signal?: AbortSignal, onProgress = progress) =>
  deliverWeights({
    m: { ...manifest, model: { path: MODEL_PATH, source: { runner: { dir: src } }, distribution: 'relay', streams: 4 } },
    transports,
    env,
    onProgress,
    ...(signal && { signal }),
  })

beforeAll(async () => {
  const lab = await openLab(progress, MODEL_PATH)
  manifest = lab.manifest
  transports = lab.transports
  const dir = mkdtempSync(join(tmpdir(), 'vrd-weights-streams-'))
  src = join(dir, 'model')
  mkdirSync(src)
  writeFileSync(join(src, 'config.json'), '{"architectures": ["StandinForCausalLM"]}\n')
  for (const [name, bytes] of SHARDS) writeFileSync(join(src, name), bytes)
  env = { ...process.env, XDG_CACHE_HOME: join(dir, 'cache') }
}, 900_000)

afterAll(async () => {
  await leaveLabNodes(transports, manifest, MODEL_PATH)
}, 120_000)

describe.sequential('four weights streams on the lab', () => {
  it('cold relay: one shared fabric connection, every file verified on both nodes, nothing left open after', async () => {
    const o = await deliver()
    expect(o.ok, o.ok ? '' : o.problem.message).toBe(true)
    const total = SHARDS.reduce((n, [, b]) => n + b.length, 0)
    expect(o.report.bytesMoved.runner).toBeGreaterThanOrEqual(total)
    expect(o.report.bytesMoved.fabric).toBe(o.report.bytesMoved.runner)
    expect(log.some((l) => l.includes('one fabric connection for its streams'))).toBe(true)
    for (const t of transports.values()) {
      const sums = (await t.run(argv('sh', '-c', `cd ${MODEL_PATH} && sha256sum model-*`), { timeoutMs: 60_000 })).stdout
      for (const [name, bytes] of SHARDS) expect(sums).toContain(`${(await import('node:crypto')).createHash('sha256').update(bytes).digest('hex')}  ${name}`)
    }
    expect(await masters()).toBe('')
    const again = await deliver()
    expect(again.report.bytesMoved).toEqual({ runner: 0, fabric: 0 })
  }, 600_000)

  it('cancelled while the streams run: no half-written file, and no master left once ControlPersist has passed', async () => {
    for (const t of transports.values()) await t.run(argv('rm', '-rf', MODEL_PATH), { timeoutMs: 60_000 })
    const cancel = new AbortController()
    const o = await deliver(cancel.signal, (m) => {
      progress(m)
      if (/runner → .*: 50%/.test(m)) cancel.abort()
    })
    expect(o.ok).toBe(false)
    for (const t of transports.values()) {
      // Only verified files carry their own name; anything cut is a .partial.
      const names = (await t.run(argv('sh', '-c', `ls ${MODEL_PATH} 2>/dev/null; true`), { timeoutMs: 30_000 })).stdout.split('\n').filter(Boolean)
      for (const n of names.filter((x) => !x.endsWith('.partial') && x !== 'config.json')) {
        const r = await t.run(argv('sh', '-c', `sha256sum ${MODEL_PATH}/${n} | cut -c1-64`), { timeoutMs: 30_000 })
        const want = SHARDS.find(([name]) => name === n)![1]
        expect(r.stdout.trim()).toBe((await import('node:crypto')).createHash('sha256').update(want).digest('hex'))
      }
    }
    // The shared connection ends by itself FABRIC_SHARE_PERSIST_SECONDS after its last stream: wait for that, with a deadline.
    const deadline = Date.now() + (FABRIC_SHARE_PERSIST_SECONDS + 60) * 1000
    while ((await masters()) !== '' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1000))
    expect(await masters()).toBe('')
    // The next deploy completes from what the cut one left.
    const o2 = await deliver()
    expect(o2.ok, o2.ok ? '' : o2.problem.message).toBe(true)
  }, 600_000)
})
