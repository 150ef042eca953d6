/**
 * A rollout with vLLM's native executor on simulated nodes (support/sim-cluster.ts): the stages run
 * the native plan (no Ray command anywhere, vllm serve on both nodes), the start-up watcher reads
 * each node's group poll, and a node whose vllm serve is gone stops the rollout at the vllm stage
 * with RENDEZVOUS_NODE_NOT_RUNNING and the automatic rollback. What each node answers to the group
 * poll is given here (the lab e2e, test/deploy/native.e2e.test.ts, reads real nodes).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { deployRelease } from '../../src/deploy/rollout.js'
import type { RolloutOptions } from '../../src/deploy/rollout-types.js'
import { SimCluster, simManifest, simRolloutOptions } from './support/sim-cluster.js'

const native = () =>
  simManifest((doc) => {
    delete doc.ray
    ;(doc.vllm as Record<string, unknown>).executorBackend = 'mp'
  })

let sim: SimCluster
afterEach(() => sim?.cleanup())

const options = (s: SimCluster, release: string, progress: string[], manifest = s.manifest): RolloutOptions =>
  simRolloutOptions(s, release, { manifest, onProgress: (m) => progress.push(m) })

/** The group poll's answer on each node (its command is the only one that prints `@@serving`). */
function groupAnswers(s: SimCluster, head: string, worker: string, times?: number): void {
  s.fail({ node: 'spark-a', when: /@@serving/, result: { code: 0, stderr: '', stdout: head }, ...(times !== undefined && { times }) })
  s.fail({ node: 'spark-b', when: /@@serving/, result: { code: 0, stderr: '', stdout: worker }, ...(times !== undefined && { times }) })
}
const HEAD_FORMED = '@@serving\n@@listen vllm\n@@peer 172.30.200.13 vllm\n@@log\nINFO All ranks joined\n'
const WORKER_JOINED =
  '@@serving\n@@client 172.30.200.12 172.30.200.13\n@@log\nINFO Launching vLLM (v0.17.0+standin) headless multiproc executor, with head node address 172.30.200.12:29501 for torch.distributed process group.\n'

describe('a native-mode rollout', () => {
  it('runs no Ray command, starts vllm serve on every node and proceeds once the group formed', async () => {
    sim = new SimCluster(native())
    groupAnswers(sim, HEAD_FORMED, WORKER_JOINED)
    const progress: string[] = []
    const r = await deployRelease(options(sim, 'n1', progress))
    expect(r.result, JSON.stringify(r.failure)).toBe('deployed')
    expect(sim.log.filter((l) => /\bray (start|status)\b|--entrypoint ray|ray\.nodes/.test(l.command))).toEqual([])
    expect(sim.ran('spark-a', /releases\/n1\/serve\.sh$/)).toHaveLength(1)
    expect(sim.ran('spark-b', /releases\/n1\/serve\.sh$/)).toHaveLength(1)
    expect(progress.some((p) => /process group formed: all 2 nodes joined/.test(p))).toBe(true)
  })

  it('a node whose vllm serve is gone stops the rollout at the vllm stage in one poll, and the rollback restores the previous release', async () => {
    sim = new SimCluster(native())
    groupAnswers(sim, HEAD_FORMED, WORKER_JOINED, 1)
    const first = await deployRelease(options(sim, 'n1', []))
    expect(first.result).toBe('deployed')
    // n2: the worker's vllm serve ended (its log says why); then n1 again forms its group.
    groupAnswers(sim, '@@serving\n@@listen vllm\n@@log\n', '@@log\nValueError: world_size (2) must be a multiple of nnodes (3).\n', 1)
    groupAnswers(sim, HEAD_FORMED, WORKER_JOINED)
    const progress: string[] = []
    const changed = { ...sim.manifest, vllm: { ...sim.manifest.vllm, args: ['--max-model-len', '64'] } }
    const r = await deployRelease(options(sim, 'n2', progress, changed))
    expect(r).toMatchObject({ result: 'failed', rolledBack: true, failure: { stage: 'vllm' } })
    const f = r.findings.find((x) => x.code === 'RENDEZVOUS_NODE_NOT_RUNNING')
    expect(f).toMatchObject({ node: 'spark-b' })
    expect(f?.evidence['log tail']).toContain('must be a multiple of nnodes')
    expect(progress.filter((p) => /process group NOT formed/.test(p))).toHaveLength(1)
    for (const n of ['spark-a', 'spark-b']) expect((await sim.sh(n, `readlink ${sim.stateDir(n)}/current`)).stdout.trim()).toBe('releases/n1')
    // The rollback started n1 from its own files on both nodes and watched its group form again.
    expect(sim.ran('spark-b', /releases\/n1\/serve\.sh$/)).toHaveLength(2)
  })
})
