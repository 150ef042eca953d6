/**
 * The fit stage on simulated nodes (support/sim-cluster.ts, whose host probe is a lab GB10's:
 * unified memory, nvidia-smi's 122502 MiB): the seed model (test/preflight/fit/fixtures, config.json
 * in the runner's hub cache) with a utilisation that leaves the host too little stops a deploy
 * before stop-previous, the running release untouched; with the manifest's own settings it passes.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { deployRelease } from '../../src/deploy/rollout.js'
import { SimCluster, simManifest, simRolloutOptions } from './support/sim-cluster.js'

let sim: SimCluster
afterEach(() => sim?.cleanup())

const seedFixture = JSON.parse(readFileSync('test/preflight/fit/fixtures/qwen3.5-122b-a10b-fp8.json', 'utf8'))
const COMMIT = '0123456789abcdef0123456789abcdef01234567'

function hubCache(): string {
  const cache = mkdtempSync(join(tmpdir(), 'fit-stage-hub-'))
  const snap = join(cache, 'models--Qwen--Qwen3.5-122B-A10B-FP8', 'snapshots', COMMIT)
  mkdirSync(snap, { recursive: true })
  mkdirSync(join(cache, 'models--Qwen--Qwen3.5-122B-A10B-FP8', 'refs'))
  writeFileSync(join(cache, 'models--Qwen--Qwen3.5-122B-A10B-FP8', 'refs', 'main'), COMMIT)
  writeFileSync(join(snap, 'config.json'), JSON.stringify(seedFixture.config))
  writeFileSync(join(snap, 'model.safetensors.index.json'), JSON.stringify({ metadata: { total_size: seedFixture.weightsPerGpuBytesAtTp2 * 2 } }))
  return cache
}

const seedOn = (args: string[]) =>
  simManifest((doc) => {
    const vllm = doc['vllm'] as Record<string, unknown>
    vllm['model'] = 'Qwen/Qwen3.5-122B-A10B-FP8'
    vllm['args'] = args
  })

describe('the fit stage', () => {
  it('a model that would leave the host too little stops the deploy before stop-previous, the running release untouched', async () => {
    const env = { HF_HUB_CACHE: hubCache() }
    sim = new SimCluster(seedOn(['--max-model-len', '32768', '--gpu-memory-utilization', '0.85']))
    const first = await deployRelease(simRolloutOptions(sim, 'r1', { env }))
    expect(first.result).toBe('deployed')
    const before = ['spark-a', 'spark-b'].map((n) => sim.node(n).container)
    sim.imageId = `sha256:${'d'.repeat(64)}`
    const from = sim.log.length
    const stages: string[] = []
    const progress: string[] = []
    const r = await deployRelease(
      simRolloutOptions(sim, 'r2', {
        manifest: seedOn(['--max-model-len', '32768', '--gpu-memory-utilization', '0.95']),
        env,
        onStage: (s, e) => e === 'start' && stages.push(s),
        onProgress: (l) => progress.push(l),
      }),
    )
    expect(r).toMatchObject({ result: 'failed', changed: false, rolledBack: false, failure: { stage: 'fit' } })
    expect(r.findings.map((f) => `${f.code}@${f.node}`)).toEqual(['MODEL_DOES_NOT_FIT@spark-a', 'MODEL_DOES_NOT_FIT@spark-b'])
    expect(r.findings[0]?.fix).toMatch(/vllm\.kvCacheMemoryBytes: \d+ .*--gpu-memory-utilization in vllm\.args to 0\.\d+/)
    expect(stages).not.toContain('stop-previous')
    expect(progress.join('\n')).toMatch(/spark-a: DOES NOT FIT/)
    const changes = sim.log.slice(from).filter((l) => /docker rm -f|start\.sh|serve\.sh|releases\/r2/.test(l.command))
    expect(changes).toEqual([])
    expect(['spark-a', 'spark-b'].map((n) => sim.node(n).container)).toEqual(before)
  })

  it('what the runner cannot read is said in the progress, and the deploy goes on', async () => {
    sim = new SimCluster(seedOn(['--max-model-len', '32768']))
    const progress: string[] = []
    const r = await deployRelease(
      simRolloutOptions(sim, 'r1', { env: { HF_HUB_CACHE: mkdtempSync(join(tmpdir(), 'fit-empty-')) }, onProgress: (l) => progress.push(l) }),
    )
    expect(r.result).toBe('deployed')
    expect(progress.join('\n')).toMatch(/Fit before launch: not computed, missing config\.json of Qwen\/Qwen3\.5-122B-A10B-FP8@main/)
  })

  it('byte-sized KV on an image whose vLLM is not known to have --kv-cache-memory-bytes: refused before stop-previous', async () => {
    // The sim's image reports vLLM 0.17.0+standin, older than every release whose flags are known here.
    const m = simManifest((doc) => {
      ;(doc['vllm'] as Record<string, unknown>)['kvCacheMemoryBytes'] = 20 * 1024 ** 3
    })
    sim = new SimCluster(m)
    const stages: string[] = []
    const r = await deployRelease(simRolloutOptions(sim, 'r1', { onStage: (s, e) => e === 'start' && stages.push(s) }))
    expect(r).toMatchObject({ result: 'failed', changed: false, failure: { stage: 'fit' } })
    expect(r.findings.map((f) => f.code)).toEqual(['KV_BYTES_FLAG_UNKNOWN'])
    expect(r.findings[0]?.message).toMatch(/vLLM 0\.17\.0\+standin .* older than every release whose flags are known here \(0\.19\.1 and later\)/)
    expect(stages).not.toContain('stop-previous')
  })
})
