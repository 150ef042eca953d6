/**
 * `plan` prints the fit before launch for the seed manifest: the model's config.json and weights
 * read from the runner's hub cache (laid out as huggingface_hub writes it), the nodes' memory from
 * `fit.nodeMemory`. The config is the seed model's (test/preflight/fit/fixtures, with its source);
 * the index's total_size is alibaba/InferSim#11's per-GPU estimate × 2, since the FP8 files' sizes
 * were not found in a public source.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { planTask } from '../../src/tasks/plan-task.js'

const SEED = 'src/manifest/examples/dgx-spark-pair.yml'
const seedFixture = JSON.parse(readFileSync('test/preflight/fit/fixtures/qwen3.5-122b-a10b-fp8.json', 'utf8'))
const COMMIT = '0123456789abcdef0123456789abcdef01234567'

function hubCache(): string {
  const cache = mkdtempSync(join(tmpdir(), 'plan-fit-hub-'))
  const repo = join(cache, 'models--Qwen--Qwen3.5-122B-A10B-FP8')
  mkdirSync(join(repo, 'refs'), { recursive: true })
  mkdirSync(join(repo, 'snapshots', COMMIT), { recursive: true })
  writeFileSync(join(repo, 'refs', 'main'), COMMIT)
  writeFileSync(join(repo, 'snapshots', COMMIT, 'config.json'), JSON.stringify(seedFixture.config))
  const index = { metadata: { total_size: seedFixture.weightsPerGpuBytesAtTp2 * 2 }, weight_map: {} }
  writeFileSync(join(repo, 'snapshots', COMMIT, 'model.safetensors.index.json'), JSON.stringify(index))
  return cache
}

/** The seed manifest with other vllm.args, written beside a copy. */
function seedWithArgs(args: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'plan-fit-'))
  const path = join(dir, 'cluster.yml')
  const text = readFileSync(SEED, 'utf8').replace('args: ["--max-model-len", "32768", "--gpu-memory-utilization", "0.85"]', `args: ${args}`)
  writeFileSync(path, text)
  return path
}

describe('plan prints the fit before launch', () => {
  it('the seed manifest: per-node footprint (weights, KV, reserve) and the verdict, both GB10s fit', async () => {
    const out = await planTask(SEED, {}, { HF_HUB_CACHE: hubCache() })
    expect(out.exitCode).toBe(0)
    expect(out.text).toMatch(/Fit before launch \(Qwen3_5MoeForConditionalGeneration; .*config\.json; .*metadata\.total_size\)/)
    expect(out.text).toMatch(/per GPU: weights 52\.55 GiB, KV cache 0\.45 GiB per sequence of 32768 tokens/)
    expect(out.text).toMatch(/spark-a: fits\n/)
    expect(out.text).toMatch(/spark-b: fits\n/)
    expect(out.text).toMatch(/host reserve 9\.60 GiB/)
    expect(out.summary).toMatch(/\| spark-a \| 121\.69 GiB unified \| 103\.44 GiB \|/)
    const json = out.json as { fit: { computed: boolean; nodes: { fits: boolean }[] } }
    expect(json.fit.computed).toBe(true)
    expect(json.fit.nodes.map((n) => n.fits)).toEqual([true, true])
  })

  it('raising max-model-len past what fits: an error with the largest value that fits, and plan fails', async () => {
    const path = seedWithArgs('["--max-model-len", "262144", "--gpu-memory-utilization", "0.47"]')
    const out = await planTask(path, {}, { HF_HUB_CACHE: hubCache() })
    expect(out.exitCode).toBe(1)
    expect(out.headline).toMatch(/the model does not fit/)
    expect(out.text).toMatch(/spark-a: DOES NOT FIT/)
    expect(out.text).toMatch(/MODEL_DOES_NOT_FIT/)
    const proposed = Number(/--max-model-len in vllm\.args to (\d+)/.exec(out.text)?.[1])
    expect(proposed).toBeGreaterThan(32768)
    const again = await planTask(seedWithArgs(`["--max-model-len", "${proposed}", "--gpu-memory-utilization", "0.47"]`), {}, { HF_HUB_CACHE: hubCache() })
    expect(again.exitCode).toBe(0)
  })

  it('with no copy of config.json on the runner it says which input is missing, as a warning', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'plan-fit-empty-'))
    const out = await planTask(SEED, {}, { HF_HUB_CACHE: empty })
    expect(out.exitCode).toBe(0)
    expect(out.text).toMatch(/Fit before launch: not computed, missing config\.json of Qwen\/Qwen3\.5-122B-A10B-FP8@main: not in the runner's hub cache/)
    expect(out.annotations.map((a) => a.title)).toContain('MODEL_FIT_UNKNOWN on the cluster')
  })
})
