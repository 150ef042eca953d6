/**
 * The memory watchdog in the rollout (issue 38), on the simulated cluster (whose nodes' facts say
 * unified memory, as the lab's GB10s do): a node under its floor while r2 starts stops the vllm stage
 * with MEMORY_FLOOR_REACHED, the engine is killed on every node, and on-failure's rollback starts r1
 * again (itself watched, and within the floor once r2's engine is gone). The lab proves the same
 * with real memory (memory-watchdog.e2e.test.ts).
 */
import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { deployRelease } from '../../src/deploy/rollout.js'
import { SimCluster, simManifest, simRolloutOptions } from './support/sim-cluster.js'

let sim: SimCluster | undefined
afterEach(() => sim?.cleanup())

const fixture = (f: string) => readFileSync(`test/preflight/fixtures/memory/${f}`, 'utf8')
/** A real meminfo (15.6 GiB) with 300 MiB available: under the 5 % floor (0.78 GiB). */
const SHORT = fixture('meminfo-debian11-swap.txt').replace(/^MemAvailable:.*$/m, `MemAvailable:   ${300 * 1024} kB`) + fixture('psi-thrashing.txt')

describe('the memory watchdog in a deploy', () => {
  it('spark-b short while r2 starts: MEMORY_FLOOR_REACHED at the vllm stage, the engine killed everywhere, r1 started again', async () => {
    const s = new SimCluster(simManifest((d) => ((d.deploy as Record<string, unknown>).memoryWatchdog = { intervalSeconds: 1 })))
    sim = s
    expect((await deployRelease(simRolloutOptions(s, 'r1', { force: true }))).result).toBe('deployed')
    // spark-b is short only while r2's engine runs there; the head's /health stays "starting" meanwhile.
    s.memory = (node) =>
      node === 'spark-b' && s.node(node).container?.release === 'r2' && s.node(node).container?.running ? SHORT : fixture('meminfo-x86-24g-noswap.txt')
    s.fail({ node: 'spark-a', when: /@@ready/, result: { code: 0, stdout: '@@log\nINFO Starting to load model /models/toy...\n' }, times: 3 })
    const progress: string[] = []
    const r = await deployRelease(simRolloutOptions(s, 'r2', { force: true, onFailure: 'rollback', onProgress: (x) => progress.push(x) }))
    s.faults.length = 0
    expect(r, JSON.stringify(r.onFailure)).toMatchObject({ result: 'failed', rolledBack: true, failure: { stage: 'vllm' } })
    const f = r.findings.find((x) => x.code === 'MEMORY_FLOOR_REACHED')
    expect(f, JSON.stringify(r.failure)).toMatchObject({
      node: 'spark-b',
      evidence: { MemAvailable: '0.29 GiB', 'engine stopped on': 'spark-a, spark-b', 'PSI memory': 'some avg10=70.24 full avg10=57.59' },
    })
    expect(f!.message).toMatch(/^spark-b had 0\.29 GiB available, under the floor of 0\.78 GiB during the start before its first phase line/)
    for (const node of ['spark-a', 'spark-b']) expect(s.ran(node, /^docker kill --signal KILL /).length).toBeGreaterThanOrEqual(1)
    expect(r.failure?.reason).toBe(f!.message)
    for (const node of ['spark-a', 'spark-b']) expect(s.node(node).container).toMatchObject({ running: true, release: 'r1' })
    expect(
      progress.some((p) => p.includes('memory watchdog: spark-a, spark-b every 1 s')),
      progress.join('\n'),
    ).toBe(true)
  })

  it('off: no read, no kill, whatever the memory', async () => {
    const s = new SimCluster(simManifest((d) => ((d.deploy as Record<string, unknown>).memoryWatchdog = { enabled: 'off' })))
    sim = s
    s.memory = () => SHORT
    expect((await deployRelease(simRolloutOptions(s, 'r1', { force: true }))).result).toBe('deployed')
    expect(s.log.filter((l) => l.command.startsWith('cat /proc/meminfo') || l.command.startsWith('docker kill'))).toEqual([])
  })
})
