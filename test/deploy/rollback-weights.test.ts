/**
 * A rollback's weights (issue #22's follow-up): the decision over every source kind (verified,
 * re-deliver, refuse), then whole rollouts on simulated nodes whose model directory, listing and
 * receive scripts are real (support/sim-cluster.ts runs them on a per-node temporary disk): deploy
 * revision A, deploy revision B, roll back to A and A's bytes are at model.path again; a runner
 * directory that no longer holds A refuses before anything stops; the automatic rollback after a
 * failed deploy does the same and says so; a release without weights.json is not checked.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { RolloutOptions } from '../../src/deploy/rollout-types.js'
import { deployRelease, rollbackRelease } from '../../src/deploy/rollout.js'
import type { SmokeGate } from '../../src/deploy/smoke-seam.js'
import { type NodeListing, compareNode } from '../../src/deploy/weights/compare.js'
import { weightsManifest } from '../../src/deploy/weights/weights-manifest.js'
import type { WeightsSourceKind } from '../../src/deploy/weights/weights-plan.js'
import { type RestoreInput, decideRestore, restoreWeights } from '../../src/deploy/weights/restore.js'
import type { HubPlanner } from '../../src/deploy/weights/transfer.js'
import { argv, render } from '../../src/command/shell.js'
import { LocalTransport } from '../../src/transport/local.js'
import { NODE_STATE_DIR } from '../../src/plan/node-commands.js'
import { renderRolloutText } from '../../src/report/rollout-report.js'
import { SimCluster, simManifest } from './support/sim-cluster.js'

const sha = (b: string) => createHash('sha256').update(b).digest('hex')
const CONFIG = '{"architectures": ["StandinForCausalLM"]}\n'
const SHARD_A = 'revision A '.repeat(500)
const SHARD_B = 'revision B, other bytes '.repeat(300)
const SHARD = 'model-00001-of-00001.safetensors'

describe('what a rollback does about the weights', () => {
  const file = (path: string, body: string) => ({ path, size: body.length, sha256: sha(body) })
  const expected = weightsManifest([file('config.json', CONFIG), file(SHARD, SHARD_A)])
  const listing = (shard: string): NodeListing => ({
    files: new Map([
      ['config.json', { size: CONFIG.length, sha256: sha(CONFIG) }],
      [SHARD, { size: shard.length, sha256: sha(shard) }],
    ]),
    partials: new Map(),
  })
  const nodes = (head: string, worker: string) =>
    new Map([
      ['spark-a', compareNode('spark-a', expected, listing(head))],
      ['spark-b', compareNode('spark-b', expected, listing(worker))],
    ])
  const input = (kind: WeightsSourceKind, extra: Partial<RestoreInput> = {}): RestoreInput => ({
    kind,
    distribution: 'relay',
    head: 'spark-a',
    nodes: nodes(SHARD_B, SHARD_B),
    hubAvailable: true,
    ...extra,
  })

  it('every node already holds the release files: verified, whatever the source', () => {
    for (const kind of ['hub', 'runner', 'nodes'] as const)
      expect(decideRestore(input(kind, { nodes: nodes(SHARD_A, SHARD_A), hubAvailable: false }))).toEqual({ action: 'verified' })
  })

  it('hub: the pinned revision is downloaded again; without a hub planner it refuses', () => {
    expect(decideRestore(input('hub'))).toEqual({ action: 'redeliver' })
    expect(decideRestore(input('hub', { hubAvailable: false }))).toMatchObject({ action: 'refuse', why: expect.stringContaining('hub download') })
  })

  it('runner: re-delivered only while the directory still holds the files that differ', () => {
    expect(decideRestore(input('runner', { runner: expected }))).toEqual({ action: 'redeliver' })
    // A file the nodes already hold may have changed on the runner: only the differing ones count.
    const configChanged = weightsManifest([file('config.json', '{}\n'), file(SHARD, SHARD_A)])
    expect(decideRestore(input('runner', { runner: configChanged }))).toEqual({ action: 'redeliver' })
    const moved = weightsManifest([file('config.json', CONFIG), file(SHARD, SHARD_B)])
    expect(decideRestore(input('runner', { runner: moved }))).toEqual({
      action: 'refuse',
      why: `the runner's directory no longer holds the file the release needs (${SHARD})`,
    })
    expect(decideRestore(input('runner', { runner: 'model.source.runner.dir ./a cannot be read: ENOENT' }))).toMatchObject({
      action: 'refuse',
      why: expect.stringContaining('ENOENT'),
    })
  })

  it('nodes: a worker is repaired from a head that holds the files (relay); otherwise nothing can deliver them', () => {
    expect(decideRestore(input('nodes', { nodes: nodes(SHARD_A, SHARD_B) }))).toEqual({ action: 'redeliver' })
    expect(decideRestore(input('nodes', { nodes: nodes(SHARD_A, SHARD_B), distribution: 'each' }))).toMatchObject({ action: 'refuse' })
    expect(decideRestore(input('nodes'))).toMatchObject({ action: 'refuse', why: expect.stringContaining('model.source.nodes') })
  })
})

describe('rollbacks on simulated nodes with a real model directory', () => {
  const MODEL = `${NODE_STATE_DIR}/models/tiny`
  let sim: SimCluster
  const dirs: string[] = []
  afterEach(() => {
    sim?.cleanup()
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  })
  const tmp = (p: string) => {
    const d = mkdtempSync(join(tmpdir(), p))
    dirs.push(d)
    return d
  }
  const runnerDir = (shard: string) => {
    const d = tmp('vrd-rev-')
    writeFileSync(join(d, 'config.json'), CONFIG)
    writeFileSync(join(d, SHARD), shard)
    return d
  }
  const withRunner = (dir: string) =>
    simManifest((doc) => {
      doc.model = { path: MODEL, source: { runner: { dir } }, distribution: 'each' }
    })
  const passing: SmokeGate = async () => ({ ok: true, findings: [], text: 'smoke passed', outputs: { verdict: 'passed' }, summary: '' })
  const cache = () => ({ XDG_CACHE_HOME: tmp('vrd-cache-') })
  const lines: string[] = []
  /** A progress line (after its `[+1.2s] ` time) is exactly this. */
  const said = (text: string) => lines.some((l) => l.replace(/^\[\+\s*[\d.]+s\] /, '') === text)
  const options = (extra: Partial<RolloutOptions> & { readonly to?: string }): RolloutOptions & { readonly to?: string } => ({
    manifest: sim.manifest,
    manifestPath: '/nonexistent/manifest.yml',
    transports: sim.transports(),
    env: cache(),
    release: 'r1',
    who: 'test',
    smoke: passing,
    onProgress: (m) => lines.push(m),
    ...extra,
  })
  const shardOn = (node: string) => readFileSync(join(sim.node(node).dir, 'state', 'models/tiny', SHARD), 'utf8')
  const current = async (node: string) => (await sim.sh(node, `readlink ${sim.stateDir(node)}/current`)).stdout.trim().replace(/^releases\//, '')

  it("deploy A, deploy B, roll back: A's bytes are served again; with A gone from the runner the rollback refuses before anything stops", async () => {
    const a = runnerDir(SHARD_A)
    const b = runnerDir(SHARD_B)
    sim = new SimCluster(withRunner(a))
    expect((await deployRelease(options({ manifest: withRunner(a), release: 'a1' }))).result).toBe('deployed')
    expect((await deployRelease(options({ manifest: withRunner(b), release: 'b1' }))).result).toBe('deployed')
    expect([shardOn('spark-a'), shardOn('spark-b')]).toEqual([SHARD_B, SHARD_B])

    lines.length = 0
    const back = await rollbackRelease(options({ manifest: withRunner(b) }))
    expect(back.result, JSON.stringify(back.failure)).toBe('rolled-back')
    expect(back.release).toBe('a1')
    expect([shardOn('spark-a'), shardOn('spark-b')]).toEqual([SHARD_A, SHARD_A])
    expect(back.weights?.restore).toMatchObject({ release: 'a1', action: 'redelivered' })
    expect(back.weights?.bytesMoved).toEqual({ runner: 2 * SHARD_A.length, fabric: 0 })
    expect(back.weights?.filesSent).toBe(2)
    expect(lines.some((l) => l.includes('] weights: weights of release a1: delivered 2 files again'))).toBe(true)
    expect(renderRolloutText('lab', back)).toContain(`weights of release a1 at ${MODEL} (2 files; source runner): redelivered: delivered 2 files again`)

    // B again, then A's directory changes on the runner: nothing can deliver A's shard.
    expect((await deployRelease(options({ manifest: withRunner(b), release: 'b2' }))).result).toBe('deployed')
    writeFileSync(join(a, SHARD), 'edited since')
    const before = sim.log.length
    const refused = await rollbackRelease(options({ manifest: withRunner(b), to: 'a1' }))
    expect(refused).toMatchObject({ result: 'failed', changed: false, failure: { stage: 'weights' } })
    expect(refused.weights?.restore?.action).toBe('refused')
    const f = refused.findings.filter((x) => x.code === 'ROLLBACK_WEIGHTS_CHANGED')
    expect(f.map((x) => x.node)).toEqual(['spark-a', 'spark-b'])
    expect(f[0]!.evidence[SHARD]).toBe(
      `expected ${SHARD_A.length} bytes ${sha(SHARD_A).slice(0, 12)}, found ${SHARD_B.length} bytes ${sha(SHARD_B).slice(0, 12)}`,
    )
    expect(f[0]!.evidence['Release weights id']).not.toBe(f[0]!.evidence['Weights id on the node'])
    expect(f[0]!.fix).toContain(a)
    // Nothing stopped, nothing moved: B still serves, current still names b2.
    expect(sim.log.slice(before).filter((l) => /docker rm -f|start\.sh/.test(l.command))).toEqual([])
    expect([shardOn('spark-a'), await current('spark-a'), await current('spark-b')]).toEqual([SHARD_B, 'b2', 'b2'])
  })

  it('the automatic rollback after a failed deploy re-delivers the release files and says so', async () => {
    const a = runnerDir(SHARD_A)
    const b = runnerDir(SHARD_B)
    sim = new SimCluster(withRunner(a))
    expect((await deployRelease(options({ manifest: withRunner(a), release: 'a1' }))).result).toBe('deployed')
    let calls = 0
    const smoke: SmokeGate = async (i) =>
      ++calls === 1 ? { ok: false, findings: [], text: 'smoke failed', outputs: { verdict: 'failed' }, summary: '' } : passing(i)
    const r = await deployRelease(options({ manifest: withRunner(b), release: 'b1', smoke, onFailure: 'rollback' }))
    expect(r).toMatchObject({ result: 'failed', rolledBack: true, onFailure: { action: 'rollback', ok: true, release: 'a1' } })
    expect(r.onFailure?.detail).toMatch(/; its weights: delivered 2 files again/)
    expect([shardOn('spark-a'), shardOn('spark-b')]).toEqual([SHARD_A, SHARD_A])
  })

  it('the automatic rollback refuses when the runner no longer holds the release files, and the report says so', async () => {
    const a = runnerDir(SHARD_A)
    const b = runnerDir(SHARD_B)
    sim = new SimCluster(withRunner(a))
    expect((await deployRelease(options({ manifest: withRunner(a), release: 'a1' }))).result).toBe('deployed')
    writeFileSync(join(a, SHARD), 'edited since')
    const smoke: SmokeGate = async () => ({ ok: false, findings: [], text: 'smoke failed', outputs: { verdict: 'failed' }, summary: '' })
    const r = await deployRelease(options({ manifest: withRunner(b), release: 'b1', smoke, onFailure: 'rollback' }))
    expect(r).toMatchObject({ result: 'failed', rolledBack: false, onFailure: { action: 'rollback', ok: false, release: 'a1' } })
    expect(r.onFailure?.detail).toMatch(/^rollback to a1 failed: weights: the model files at .* differ from release a1's weights\.json/)
    expect(r.findings.some((x) => x.code === 'ROLLBACK_WEIGHTS_CHANGED' && x.message.startsWith('(rollback to a1)'))).toBe(true)
    // Nothing of a1 was started again.
    expect(sim.ran('spark-a', /releases\/a1\/start\.sh/)).toHaveLength(1)
  })

  it('a release without weights.json, or without model:, is not checked, and says so', async () => {
    sim = new SimCluster(simManifest())
    expect((await deployRelease(options({ manifest: simManifest(), release: 'plain' }))).result).toBe('deployed')
    const a = runnerDir(SHARD_A)
    expect((await deployRelease(options({ manifest: withRunner(a), release: 'a1' }))).result).toBe('deployed')
    lines.length = 0
    const back = await rollbackRelease(options({ manifest: withRunner(a), to: 'plain' }))
    expect(back.result).toBe('rolled-back')
    expect(said('weights: release plain has no model: section: its weights are not checked (vLLM fetches the model itself)')).toBe(true)
    expect(back.weights).toBeUndefined()

    // a1 as a release written before the weights stage kept weights.json.
    for (const n of ['spark-a', 'spark-b']) await sim.sh(n, `cd ${sim.stateDir(n)}/releases/a1 && rm weights.json && sed -i '/ weights.json$/d' SHA256SUMS`)
    lines.length = 0
    const old = await rollbackRelease(options({ manifest: withRunner(a), to: 'a1' }))
    expect(old.result, JSON.stringify(old.failure)).toBe('rolled-back')
    expect(said(`weights: release a1 keeps no weights.json (written before the weights stage): the files at ${MODEL} are not checked`)).toBe(true)
  })
})

describe('restoreWeights on two nodes that are directories of this machine', () => {
  const MODEL = '/vrd-rollback-model-path-that-is-rewritten'
  const made: string[] = []
  afterEach(() => {
    for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true })
  })
  const tmp = () => {
    const d = mkdtempSync(join(tmpdir(), 'vrd-restore-'))
    made.push(d)
    return d
  }
  /** A node: every command runs here with model.path rewritten to its own directory. */
  const nodeAt = (dir: string) => {
    const local = new LocalTransport()
    return {
      label: dir,
      run: (cmd: Parameters<LocalTransport['run']>[0], opts: Parameters<LocalTransport['run']>[1]) =>
        local.run(argv('sh', '-c', render(cmd).replaceAll(MODEL, dir)), opts),
      close: async () => {},
    }
  }
  const revision = (shard: string) => {
    const d = tmp()
    writeFileSync(join(d, 'config.json'), CONFIG)
    writeFileSync(join(d, SHARD), shard)
    return d
  }
  const expected = weightsManifest([
    { path: 'config.json', size: CONFIG.length, sha256: sha(CONFIG) },
    { path: SHARD, size: SHARD_A.length, sha256: sha(SHARD_A) },
  ])
  const setup = (source: Record<string, unknown>) => {
    const m = simManifest((doc) => {
      doc.model = { path: MODEL, source, distribution: 'each' }
    })
    const dirs = m.nodes.map(() => revision(SHARD_B))
    return { m, dirs, transports: new Map(m.nodes.map((n, i) => [n.name, nodeAt(dirs[i]!)])) }
  }
  const onProgress = () => {}

  it('hub: the revision is downloaded again on every node (each), then every node verified against weights.json', async () => {
    const hubCopy = revision(SHARD_A)
    const { m, dirs, transports } = setup({ hub: { repo: 'vrd-lab/standin', revision: 'a'.repeat(40) } })
    // The stand-in download: the revision's files copied into the model directory, as snapshot_download leaves them.
    const hub: HubPlanner = (_m, _n, dir) => [{ cmd: argv('sh', '-c', 'mkdir -p "$1" && cp "$2"/* "$1"/', 'sh', dir, hubCopy), description: 'download' }]
    const out = await restoreWeights({ m, transports, env: {}, onProgress, hub }, { release: 'a1', expected })
    expect(out).toMatchObject({ ok: true, action: 'redelivered' })
    for (const d of dirs) expect(readFileSync(join(d, SHARD), 'utf8')).toBe(SHARD_A)
    expect(out.detail).toContain('after a hub download')
    const again = await restoreWeights({ m, transports, env: {}, onProgress, hub }, { release: 'a1', expected })
    expect(again).toMatchObject({ ok: true, action: 'verified', detail: 'verified 2 files on every node against weights.json, 0 bytes moved' })
  })

  it('nodes (each): nothing can deliver the files: refused, nothing written', async () => {
    const { m, dirs, transports } = setup({ nodes: {} })
    const out = await restoreWeights({ m, transports, env: {}, onProgress }, { release: 'a1', expected })
    expect(out).toMatchObject({ ok: false, action: 'refused', problem: { code: 'ROLLBACK_WEIGHTS_CHANGED' } })
    expect(out.findings.map((f) => f.code)).toEqual(['ROLLBACK_WEIGHTS_CHANGED', 'ROLLBACK_WEIGHTS_CHANGED'])
    expect(out.findings[0]!.fix).toContain(MODEL)
    for (const d of dirs) expect(readFileSync(join(d, SHARD), 'utf8')).toBe(SHARD_B)
  })
})
