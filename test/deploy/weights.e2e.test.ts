/**
 * The weights stage on the lab, through the deploy task both front doors call: a model directory
 * on this machine (the runner) relayed to the head and on over the fabric to the worker; served
 * from model.path with HF_HUB_OFFLINE=1 in the container; a redeploy moves 0 weight bytes; a
 * corrupted file on the worker is the only one sent again; a transfer cancelled mid-file resumes
 * from its .partial on the next deploy.
 */
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { argv } from '../../src/command/shell.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { clusterStateDir } from '../../src/plan/release-commands.js'
import { deployLockDir } from '../../src/plan/lock-commands.js'
import { type DeployTaskOptions, deployTask } from '../../src/tasks/deploy-task.js'
import type { TaskOutcome } from '../../src/tasks/outcome.js'
import type { Transport } from '../../src/transport/transport.js'
import { leaveLabNodes, openLab } from './support/lab-nodes.js'

const MODEL_PATH = '/var/lib/vrd/models/lab-tiny'
const SMALL = 'model-00001-of-00002.safetensors'
const BIG = 'model-00002-of-00002.safetensors'
let manifest: Manifest
let transports: Map<string, Transport>
let manifestPath: string
let weightsDir: string
let totalBytes: number
let creds: DeployTaskOptions['credentials']
const log: string[] = []
const progress = (m: string) => {
  log.push(m)
  process.stderr.write(`[weights-e2e] ${m}\n`)
}
const opts = (extra: Partial<DeployTaskOptions> = {}): DeployTaskOptions => ({ credentials: creds, env: process.env, onProgress: progress, ...extra })
const run = async (t: Transport, ...args: string[]) => {
  const r = await t.run(argv(...args), { timeoutMs: 60_000 })
  return r.code === 0 ? r.stdout.trim() : `(exit ${r.code}: ${r.stderr.trim()})`
}
const head = () => transports.get('spark-a')!
const worker = () => transports.get('spark-b')!
interface WeightsJson {
  bytesMoved: { runner: number; fabric: number }
  filesSkipped: number
  filesSent: number
  identity: string
  nodes: { node: string; bytesMoved: number; filesSent: number }[]
}
const weightsOf = (o: TaskOutcome) => (o.json as { weights?: WeightsJson }).weights!
const resultOf = (o: TaskOutcome) => (o.json as { result: string }).result

async function servedRoot(): Promise<string> {
  const out = await run(head(), 'curl', '--silent', '--fail', '--max-time', '30', `http://127.0.0.1:${manifest.vllm.port}/v1/models`)
  return (JSON.parse(out) as { data: { root: string }[] }).data[0]!.root
}

beforeAll(async () => {
  const lab = await openLab(progress, MODEL_PATH)
  creds = lab.creds
  const dir = mkdtempSync(join(tmpdir(), 'vrd-weights-e2e-'))
  weightsDir = join(dir, 'tiny-model')
  mkdirSync(weightsDir)
  writeFileSync(join(weightsDir, 'config.json'), '{"architectures": ["StandinForCausalLM"], "vocab_size": 256}\n')
  writeFileSync(join(weightsDir, 'tokenizer.json'), '{"model": {"type": "BPE"}}\n')
  writeFileSync(join(weightsDir, SMALL), randomBytes(4_000_000))
  writeFileSync(join(weightsDir, BIG), randomBytes(48_000_000))
  totalBytes = ['config.json', 'tokenizer.json', SMALL, BIG].reduce((n, f) => n + statSync(join(weightsDir, f)).size, 0)
  manifestPath = join(dir, 'weights.yml')
  writeFileSync(
    manifestPath,
    `${readFileSync(lab.path, 'utf8')}\nmodel:\n  path: ${MODEL_PATH}\n  source:\n    runner: { dir: ./tiny-model }\n  distribution: relay\n`,
  )
  manifest = lab.manifest
  transports = lab.transports
}, 900_000)

afterAll(async () => {
  await leaveLabNodes(transports, manifest)
}, 120_000)

describe.sequential('weights on the lab', () => {
  it('cold: the runner sends each byte once, the head passes it on over the fabric; served from the path with the hub offline', async () => {
    const o = await deployTask(manifestPath, opts({ release: 'w1' }))
    expect(o.exitCode, o.text).toBe(0)
    expect(resultOf(o)).toBe('deployed')
    const w = weightsOf(o)
    expect(w.bytesMoved).toEqual({ runner: totalBytes, fabric: totalBytes })
    expect(o.outputs['weights-bytes-moved']).toBe(String(2 * totalBytes))
    expect(o.outputs['weights-id']).toBe(w.identity)
    for (const t of [head(), worker()]) {
      expect(await run(t, 'docker', 'exec', manifest.container.name, 'printenv', 'HF_HUB_OFFLINE')).toBe('1')
      expect(await run(t, 'docker', 'exec', manifest.container.name, 'sha256sum', `${MODEL_PATH}/${BIG}`)).toMatch(/^[0-9a-f]{64} /)
      // Mounted read-only.
      expect(await run(t, 'docker', 'exec', manifest.container.name, 'touch', `${MODEL_PATH}/x`)).toMatch(/^\(exit [1-9]/)
    }
    expect(await servedRoot()).toBe(MODEL_PATH)
    const rel = `${clusterStateDir(manifest)}/releases/w1`
    expect(JSON.parse(await run(head(), 'cat', `${rel}/weights.json`)).files).toHaveLength(4)
    expect(await run(head(), 'cat', `${rel}/release.json`)).toContain(w.identity)
    expect(o.summary).toContain('over the fabric')
  }, 600_000)

  it('redeploy with the weights present: 0 bytes moved, every file skipped, unchanged', async () => {
    const o = await deployTask(manifestPath, opts({ release: 'w2' }))
    expect(o.exitCode, o.text).toBe(0)
    expect(resultOf(o)).toBe('unchanged')
    const w = weightsOf(o)
    expect(w.bytesMoved).toEqual({ runner: 0, fabric: 0 })
    expect(w.filesSkipped).toBe(8)
    expect(o.outputs['weights-bytes-moved']).toBe('0')
  }, 600_000)

  it('a corrupted file on the worker: only it is sent again, from the head; the deploy serves', async () => {
    await worker().run(argv('dd', 'if=/dev/zero', `of=${MODEL_PATH}/${SMALL}`, 'bs=1', 'count=16', 'seek=1000', 'conv=notrunc'), { timeoutMs: 30_000 })
    const o = await deployTask(manifestPath, opts({ release: 'w3' }))
    expect(o.exitCode, o.text).toBe(0)
    const w = weightsOf(o)
    expect(w.bytesMoved).toEqual({ runner: 0, fabric: 4_000_000 })
    expect(w.nodes.map((n) => [n.node, n.filesSent])).toEqual([
      ['spark-a', 0],
      ['spark-b', 1],
    ])
    expect(log.some((l) => l.includes(`[spark-b] 3 ok, 1 corrupted (${SMALL})`))).toBe(true)
    expect(await servedRoot()).toBe(MODEL_PATH)
  }, 600_000)

  it('a transfer cancelled mid-file resumes from its .partial on the next deploy', async () => {
    for (const t of [head(), worker()]) await t.run(argv('rm', '-f', `${MODEL_PATH}/${BIG}`), { timeoutMs: 30_000 })
    const cancel = new AbortController()
    const cut = await deployTask(
      manifestPath,
      opts({
        release: 'w4',
        signal: cancel.signal,
        onProgress: (m) => {
          progress(m)
          if (m.includes(`[spark-a] runner → spark-a ${BIG}: 50%`)) cancel.abort()
        },
      }),
    )
    expect(resultOf(cut)).toBe('cancelled')
    // A cancel inside the weights stage: exit 130, no rollback, the lock released, nothing started.
    expect(cut.exitCode).toBe(130)
    expect(cut.json).toMatchObject({ rolledBack: false, failure: { stage: 'weights' } })
    expect((await head().run(argv('test', '-e', deployLockDir(manifest)), { timeoutMs: 30_000 })).code).not.toBe(0)
    expect((await head().run(argv('readlink', `${clusterStateDir(manifest)}/current`), { timeoutMs: 30_000 })).stdout.trim()).not.toMatch(/w4$/)
    const partial = Number(await run(head(), 'stat', '-c', '%s', `${MODEL_PATH}/${BIG}.partial`))
    expect(partial).toBeGreaterThan(0)
    expect(partial).toBeLessThan(48_000_000)
    const o = await deployTask(manifestPath, opts({ release: 'w5' }))
    expect(o.exitCode, o.text).toBe(0)
    const w = weightsOf(o)
    // The runner sent only the rest (the .partial may have grown a little after the cancel, as the head's cat drained its pipe).
    expect(w.bytesMoved.runner).toBeGreaterThan(0)
    expect(w.bytesMoved.runner).toBeLessThanOrEqual(48_000_000 - partial)
    // The worker got the head's stream as it arrived, so it holds a .partial too: it resumes from its own (passed on when
    // both were cut at the same byte, else from the head's copy afterwards).
    expect(w.bytesMoved.fabric).toBeGreaterThan(0)
    expect(w.bytesMoved.fabric).toBeLessThanOrEqual(48_000_000)
    expect(await run(worker(), 'ls', `${MODEL_PATH}/${BIG}.partial`)).toMatch(/^\(exit/)
    expect(log.some((l) => l.includes(`resuming at`))).toBe(true)
    expect(await run(head(), 'ls', `${MODEL_PATH}/${BIG}.partial`)).toMatch(/^\(exit/)
    expect(await servedRoot()).toBe(MODEL_PATH)
  }, 600_000)
})
