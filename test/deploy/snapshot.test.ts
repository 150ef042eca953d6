/**
 * Release snapshots age well: a rollback reads a snapshot written by an older version through the
 * migrations, and a key this version no longer knows is dropped with a note instead of failing.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { deployRelease, rollbackRelease } from '../../src/deploy/rollout.js'
import type { SmokeGate } from '../../src/deploy/smoke-seam.js'
import { MIGRATIONS, SNAPSHOT_VERSION, type SnapshotMigration, readSnapshot, renameKey, snapshotText } from '../../src/deploy/snapshot.js'
import { SimCluster, simManifest } from './support/sim-cluster.js'

const m = simManifest()
const passing: SmokeGate = async () => ({ ok: true, findings: [], text: '', outputs: {}, summary: '' })

describe('readSnapshot', () => {
  it('reads what this version writes, unchanged', () => {
    const r = readSnapshot('r1', snapshotText(m))
    expect(r.ok && r.value).toMatchObject({ version: SNAPSHOT_VERSION, notes: [] })
    expect(r.ok && r.value.manifest).toEqual(m)
  })

  it('reads a version-1 snapshot (the bare manifest) through the migration', () => {
    const r = readSnapshot('r1', JSON.stringify(m))
    expect(r.ok && r.value.version).toBe(1)
    expect(r.ok && r.value.manifest).toEqual(m)
    expect(r.ok && r.value.notes[0]).toMatch(/^migrated from version 1/)
  })

  it('drops keys it does not know, at any depth, with a note for each', () => {
    const doc = JSON.parse(snapshotText(m))
    doc.manifest.weights = { source: 'hf' }
    doc.manifest.deploy.canary = true
    const r = readSnapshot('r1', JSON.stringify(doc))
    expect(r.ok).toBe(true)
    expect(r.ok && r.value.manifest).toEqual(m)
    expect(r.ok && r.value.notes.sort()).toEqual([
      'dropped deploy.canary, a key this version does not know',
      'dropped weights, a key this version does not know',
    ])
  })

  it('a key renamed since is moved by its migration', () => {
    // As if version 3 had renamed deploy.keepReleases to deploy.releasesKept: a version-2 snapshot
    // with the old name reaches today's name through the migration.
    const renamed: SnapshotMigration = {
      from: 2,
      why: 'deploy.keepReleases became deploy.releasesKept',
      up: (doc) => ({
        ...doc,
        snapshotVersion: 3,
        manifest: renameKey(doc.manifest as Record<string, unknown>, ['deploy', 'keepReleases'], ['deploy', 'releasesKept']),
      }),
    }
    const doc = JSON.parse(snapshotText({ ...m, deploy: { ...m.deploy, releasesKept: 7 } }))
    doc.manifest.deploy.keepReleases = doc.manifest.deploy.releasesKept
    delete doc.manifest.deploy.releasesKept
    const r = readSnapshot('r1', JSON.stringify(doc), [...MIGRATIONS, renamed], 3)
    expect(r.ok && r.value.manifest.deploy.releasesKept).toBe(7)
    // Without the migration the old name would be an unknown key and the value lost.
    const without = readSnapshot('r1', JSON.stringify(doc))
    expect(without.ok && without.value.manifest.deploy.releasesKept).toBe(3)
  })

  it('a snapshot it cannot read is a Problem naming the release, with a fix', () => {
    const newer = readSnapshot('r9', JSON.stringify({ snapshotVersion: 99, manifest: {} }))
    expect(newer.ok).toBe(false)
    expect(!newer.ok && newer.problem).toMatchObject({ code: 'RELEASE_SNAPSHOT_UNREADABLE', evidence: { 'snapshot version': '99' } })
    expect(!newer.ok && newer.problem.fix).toMatch(/--release r9/)
    const broken = readSnapshot('r9', '{"snapshotVersion": 2, "manifest": {"version": 1}}')
    expect(!broken.ok && broken.problem.message).toMatch(/^release r9's manifest snapshot does not validate/)
    expect(readSnapshot('r9', 'not json').ok).toBe(false)
  })
})

describe('rollback to a release written by an older version', () => {
  let sim: SimCluster
  afterEach(() => sim?.cleanup())

  const opts = (release: string) => ({
    manifest: sim.manifest,
    manifestPath: '/nonexistent/m.yml',
    transports: sim.transports(),
    env: {},
    release,
    who: 'test',
    smoke: passing,
    force: true,
  })

  /** Rewrite r1's snapshot on every node as an older version would have, and fix its checksums. */
  async function age(content: string): Promise<void> {
    for (const n of ['spark-a', 'spark-b']) {
      const dir = `${sim.stateDir(n)}/releases/r1`
      await sim.sh(n, `cat > ${dir}/manifest.json <<'EOF'\n${content}\nEOF\ncd ${dir} && sha256sum $(awk '{print $2}' SHA256SUMS) > SHA256SUMS`)
    }
  }

  for (const [what, content] of [
    ['a version-1 snapshot (the bare manifest)', () => JSON.stringify(simManifest())],
    [
      'a snapshot with a key this version does not know',
      () => {
        const doc = JSON.parse(snapshotText(simManifest()))
        doc.manifest.vllm.speculative = { method: 'eagle' }
        return JSON.stringify(doc)
      },
    ],
  ] as const) {
    it(`${what} rolls back`, async () => {
      sim = new SimCluster(simManifest())
      expect((await deployRelease(opts('r1'))).result).toBe('deployed')
      expect((await deployRelease(opts('r2'))).result).toBe('deployed')
      await age(content())
      const lines: string[] = []
      const r = await rollbackRelease({ ...opts('r1'), onProgress: (l) => lines.push(l) })
      expect(r.result, JSON.stringify(r.failure)).toBe('rolled-back')
      expect(r.release).toBe('r1')
      expect(lines.some((l) => /snapshot: (migrated from version 1|dropped vllm\.speculative)/.test(l))).toBe(true)
    })
  }
})
