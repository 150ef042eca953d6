/**
 * A write that fails on a full node says the disk is full (issue 33): the node's release state on a
 * real tmpfs filled to the last byte, written by the rollout's own commands (the sim runs the state
 * commands for real). The head full before the lock (dash's `printf: I/O error` was all it said),
 * and a worker that fills up after the host checks passed, in release-files (`No space left on device`): each
 * stops as DISK_SPACE_LOW naming the node, its free bytes measured then, and the command's words.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { deployRelease } from '../../src/deploy/rollout.js'
import type { RolloutStage } from '../../src/deploy/rollout-types.js'
import { SimCluster, simManifest, simRolloutOptions } from './support/sim-cluster.js'

let sim: SimCluster | undefined
const mounted: string[] = []
afterEach(() => {
  for (const m of mounted.splice(0)) execFileSync('umount', ['-l', m])
  sim?.cleanup()
})

/** The node's state directory on its own 1 MiB tmpfs (what was there copied in). */
function smallDisk(s: SimCluster, node: string): string {
  const dir = join(s.node(node).dir, 'state')
  const keep = `${dir}.keep`
  execFileSync('cp', ['-a', dir, keep])
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir])
  mounted.push(dir)
  execFileSync('cp', ['-a', `${keep}/.`, dir])
  return dir
}

/** Every free byte taken. */
function fill(dir: string): void {
  mkdirSync(join(dir, 'filler'), { recursive: true })
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${join(dir, 'filler', 'zeros')}`, 'bs=4k'], { stdio: 'ignore' })
  } catch {
    // dd ends with ENOSPC: that is the point.
  }
  for (let i = 0; i < 64; i++) {
    try {
      execFileSync('sh', ['-c', `echo x > ${join(dir, 'filler', `f${i}`)}`], { stdio: 'ignore' })
    } catch {
      break
    }
  }
}

describe('a full node', () => {
  it('the head full before the lock: DISK_SPACE_LOW on spark-a at lock, with the bytes free and what the write said', async () => {
    sim = new SimCluster(simManifest())
    fill(smallDisk(sim, 'spark-a'))
    const r = await deployRelease(simRolloutOptions(sim, 'r1', { force: true }))
    expect(r).toMatchObject({ result: 'failed', changed: false, failure: { stage: 'lock' } })
    expect(r.failure?.reason).toMatch(
      /^spark-a: a write failed during lock and the disk is full \(spark-a has 0 B \(0 bytes\) free under \S+\); the command said: .*(I\/O error|No space left on device)/,
    )
    const f = r.findings.find((x) => x.code === 'DISK_SPACE_LOW')
    expect(f).toMatchObject({ severity: 'error', node: 'spark-a' })
    expect(f?.evidence?.['Filesystem size']).toBe('1.0 MiB (1048576 bytes)')
  })

  it("a full disk the command names (docker's data root on its own filesystem): measured there, not under the release state", async () => {
    sim = new SimCluster(simManifest())
    const s = sim
    // Docker's data root as its own small filesystem on spark-b, full; the release state has room.
    const dataRoot = join(s.node('spark-b').dir, 'docker')
    mkdirSync(dataRoot)
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dataRoot])
    mounted.push(dataRoot)
    fill(dataRoot)
    s.fail({
      node: 'spark-b',
      when: /^docker pull/,
      result: { code: 1, stderr: `failed to register layer: write ${dataRoot}/overlay2/3f/diff/usr/lib/libnccl.so.2: no space left on device\n` },
    })
    const r = await deployRelease(simRolloutOptions(s, 'r1', { force: true }))
    expect(r).toMatchObject({ result: 'failed', failure: { stage: 'image' } })
    const f = r.findings.find((x) => x.code === 'DISK_SPACE_LOW')
    expect(f).toMatchObject({ node: 'spark-b', evidence: { Directory: dataRoot, 'Filesystem size': '1.0 MiB (1048576 bytes)' } })
    expect(r.failure?.reason).toMatch(/^spark-b: a write failed during image and the disk is full/)
  })

  it.each(['release-files'] as RolloutStage[])('a worker that fills up once the host checks passed, at %s: DISK_SPACE_LOW on spark-b', async (at) => {
    sim = new SimCluster(simManifest())
    const s = sim
    const disk = smallDisk(s, 'spark-b')
    const r = await deployRelease(simRolloutOptions(s, 'r1', { force: true, onStage: (stage, e) => e === 'start' && stage === at && fill(disk) }))
    expect(r.result).toBe('failed')
    expect(r.failure?.stage).toBe(at)
    expect(r.failure?.reason).toMatch(new RegExp(`^spark-b: a write failed during ${at} and the disk is full`))
    expect(r.failure?.reason).toMatch(/the command said: .*No space left on device/)
    expect(r.findings.filter((x) => x.code === 'DISK_SPACE_LOW').map((x) => x.node)).toEqual(['spark-b'])
  })
})
