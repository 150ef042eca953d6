/**
 * The fabric-test stage on simulated nodes (support/sim-cluster.ts): a collective that fails on one
 * node stops a deploy after the image and before anything changes (no container removed, no
 * release files, `current` as it was, no on-failure), naming the node; `preflight.collective: false`
 * skips the stage. What a rank prints is the program's own line (its stdlib path's failure shape,
 * as test/preflight/checks/collective.test.ts runs it for real).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { deployRelease } from '../../src/deploy/rollout.js'
import type { RolloutOptions } from '../../src/deploy/rollout-types.js'
import { COLLECTIVE_MARK } from '../../src/probe/collective-program.js'
import { SimCluster, simManifest, simRolloutOptions } from './support/sim-cluster.js'

let sim: SimCluster
afterEach(() => sim?.cleanup())

const options = (s: SimCluster, release: string, stages: string[] = []): RolloutOptions =>
  simRolloutOptions(s, release, { onStage: (stage, event) => event === 'start' && stages.push(stage) })

describe('the fabric-test stage', () => {
  it('a rank that cannot reach its peer stops the deploy before stop-previous, the running release untouched', async () => {
    sim = new SimCluster(simManifest())
    expect((await deployRelease(options(sim, 'r1'))).result).toBe('deployed')
    const before = ['spark-a', 'spark-b'].map((n) => sim.node(n).container)
    sim.imageId = `sha256:${'c'.repeat(64)}`
    const workerIp = sim.manifest.nodes[1]!.fabricIp
    sim.collective = (_node, a) =>
      a.rank === 0
        ? `vrd-collective: rank 0: connect\n${COLLECTIVE_MARK}${JSON.stringify({ ok: false, stage: 'connect', error: 'TimeoutError: timed out', peer: { rank: 1, addr: `${workerIp}:45001` }, rank: 0, world: 2 })}\n`
        : `${COLLECTIVE_MARK}${JSON.stringify({ ok: false, stage: 'connect', error: `TimeoutError: no connection from rank 0 within ${a.timeout} s`, rank: 1, world: 2 })}\n`
    const from = sim.log.length
    const stages: string[] = []
    const r = await deployRelease(options(sim, 'r2', stages))
    expect(r).toMatchObject({ result: 'failed', changed: false, rolledBack: false, failure: { stage: 'fabric-test' } })
    expect(r.findings.map((f) => `${f.code}@${f.node}`)).toEqual(['FABRIC_COLLECTIVE_FAILED@spark-b'])
    expect(stages.slice(stages.indexOf('fingerprint'))).toEqual(['fingerprint', 'fabric-test', 'audit', 'report'])
    const changes = sim.log.slice(from).filter((l) => /docker rm -f|start\.sh|serve\.sh|releases\/r2/.test(l.command))
    expect(changes).toEqual([])
    expect(['spark-a', 'spark-b'].map((n) => sim.node(n).container)).toEqual(before)
    // Every rank ran in the new image, by its ID, with the release's fabric env and NCCL's init lines on.
    const ranks = sim.log.slice(from).filter((l) => l.command.includes('VRD_COLLECTIVE'))
    expect(ranks.map((l) => l.node).sort()).toEqual(['spark-a', 'spark-b'])
    for (const l of ranks) expect(l.command).toMatch(new RegExp(`--env NCCL_DEBUG=INFO .*--entrypoint python3 ${sim.imageId} -c`))
  })

  it('preflight.collective: false skips the stage', async () => {
    sim = new SimCluster({ ...simManifest(), preflight: { collective: false, collectiveTimeoutSeconds: 45 } })
    const stages: string[] = []
    expect((await deployRelease(options(sim, 'r1', stages))).result).toBe('deployed')
    expect(stages).not.toContain('fabric-test')
    expect(sim.log.some((l) => l.command.includes('VRD_COLLECTIVE'))).toBe(false)
  })
})
