/**
 * A rollback's weights on the lab, through the deploy and rollback tasks both front doors call:
 * revision A deployed from one runner directory, revision B (other bytes in a shard) from another,
 * then `rollback`: A's files are at model.path on every node and inside the serving container
 * again (by SHA-256), only the differing shard moved. Then B's directory edited on the runner, and
 * a rollback to B refuses with ROLLBACK_WEIGHTS_CHANGED before anything stops: A still serves,
 * `current` still names it.
 */
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { argv } from '../../src/command/shell.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { clusterStateDir } from '../../src/plan/release-commands.js'
import { type DeployTaskOptions, deployTask, rollbackTask } from '../../src/tasks/deploy-task.js'
import type { TaskOutcome } from '../../src/tasks/outcome.js'
import type { Transport } from '../../src/transport/transport.js'
import { leaveLabNodes, openLab, shardBytes } from './support/lab-nodes.js'

const MODEL_PATH = '/var/lib/vrd/models/lab-rollback'
const SHARD = 'model-00001-of-00001.safetensors'
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex')
const bytes = shardBytes
const SHARD_A = bytes('revision A', 6_000_000)
const SHARD_B = bytes('revision B', 5_000_000)

let manifest: Manifest
let transports: Map<string, Transport>
let dir: string
let creds: DeployTaskOptions['credentials']
const log: string[] = []
const progress = (m: string) => {
  log.push(m)
  process.stderr.write(`[weights-rollback-e2e] ${m}\n`)
}
const opts = (extra: Partial<DeployTaskOptions> = {}): DeployTaskOptions => ({ credentials: creds, env: process.env, onProgress: progress, ...extra })
const manifestOf = (rev: 'a' | 'b') => join(dir, `rev-${rev}.yml`)
const run = async (t: Transport, ...args: string[]) => {
  const r = await t.run(argv(...args), { timeoutMs: 60_000 })
  return r.code === 0 ? r.stdout.trim() : `(exit ${r.code}: ${r.stderr.trim()})`
}
const resultOf = (o: TaskOutcome) => (o.json as { result: string }).result
/** The shard's SHA-256 on the node, and as the serving container sees it. */
const shardSums = async () =>
  Promise.all(
    [...transports.values()].flatMap((t) => [
      run(t, 'sha256sum', `${MODEL_PATH}/${SHARD}`),
      run(t, 'docker', 'exec', manifest.container.name, 'sha256sum', `${MODEL_PATH}/${SHARD}`),
    ]),
  ).then((xs) => xs.map((x) => x.split(' ')[0]))

beforeAll(async () => {
  const lab = await openLab(progress, MODEL_PATH)
  creds = lab.creds
  dir = mkdtempSync(join(tmpdir(), 'vrd-weights-rollback-e2e-'))
  for (const [rev, shard] of [
    ['a', SHARD_A],
    ['b', SHARD_B],
  ] as const) {
    const model = join(dir, `model-${rev}`)
    mkdirSync(model)
    writeFileSync(join(model, 'config.json'), '{"architectures": ["StandinForCausalLM"], "vocab_size": 256}\n')
    writeFileSync(join(model, 'tokenizer.json'), '{"model": {"type": "BPE"}}\n')
    writeFileSync(join(model, SHARD), shard)
    writeFileSync(
      manifestOf(rev),
      `${readFileSync(lab.path, 'utf8')}\nmodel:\n  path: ${MODEL_PATH}\n  source:\n    runner: { dir: ./model-${rev} }\n  distribution: relay\n`,
    )
  }
  manifest = lab.manifest
  transports = lab.transports
}, 900_000)

afterAll(async () => {
  await leaveLabNodes(transports, manifest, MODEL_PATH)
}, 120_000)

describe.sequential('a rollback after a deploy that changed the model', () => {
  it("deploy A, deploy B, roll back: A's shard is served again on every node, only it moved", async () => {
    expect((await deployTask(manifestOf('a'), opts({ release: 'rev-a' }))).exitCode).toBe(0)
    const b = await deployTask(manifestOf('b'), opts({ release: 'rev-b' }))
    expect(b.exitCode, b.text).toBe(0)
    expect(await shardSums()).toEqual(Array(4).fill(sha(SHARD_B)))

    const back = await rollbackTask(manifestOf('b'), opts())
    expect(back.exitCode, back.text).toBe(0)
    expect(resultOf(back)).toBe('rolled-back')
    expect(await shardSums()).toEqual(Array(4).fill(sha(SHARD_A)))
    const w = (back.json as { weights: { restore: { action: string }; bytesMoved: { runner: number; fabric: number } } }).weights
    expect(w.restore.action).toBe('redelivered')
    // The runner's link carried the shard once (to the head), the fabric once (to the worker).
    expect(w.bytesMoved).toEqual({ runner: SHARD_A.length, fabric: SHARD_A.length })
    expect(back.text).toContain('weights of release rev-a at')
    expect(back.outputs['weights-bytes-moved']).toBe(String(2 * SHARD_A.length))
  }, 900_000)

  it('with B gone from the runner, a rollback to B refuses before anything stops; A keeps serving', async () => {
    // Where the first test left the lab: rev-a current and serving A's shard, rev-b the one before.
    for (const t of transports.values()) expect(await run(t, 'readlink', `${clusterStateDir(manifest)}/current`)).toBe('releases/rev-a')
    const container = await run(transports.get('spark-a')!, 'docker', 'inspect', '--format', '{{.Id}}', manifest.container.name)
    writeFileSync(join(dir, 'model-b', SHARD), bytes('edited since', 1000))
    const refused = await rollbackTask(manifestOf('a'), opts({ to: 'rev-b' }))
    expect(refused.exitCode).toBe(1)
    expect(refused.json).toMatchObject({ result: 'failed', changed: false, failure: { stage: 'weights' } })
    const f = (refused.json as { findings: { code: string; node: string; evidence: Record<string, string> }[] }).findings.filter(
      (x) => x.code === 'ROLLBACK_WEIGHTS_CHANGED',
    )
    expect(f.map((x) => x.node)).toEqual(['spark-a', 'spark-b'])
    expect(f[0]!.evidence[SHARD]).toContain(`expected ${SHARD_B.length} bytes ${sha(SHARD_B).slice(0, 12)}, found ${SHARD_A.length} bytes`)
    expect(await shardSums()).toEqual(Array(4).fill(sha(SHARD_A)))
    expect(await run(transports.get('spark-a')!, 'docker', 'inspect', '--format', '{{.Id}}', manifest.container.name)).toBe(container)
    for (const t of transports.values()) expect(await run(t, 'readlink', `${clusterStateDir(manifest)}/current`)).toBe('releases/rev-a')
  }, 900_000)
})
