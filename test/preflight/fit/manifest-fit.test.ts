/**
 * The fit's inputs from a manifest and the nodes' facts: which memory figure each node gives, what
 * its host uses, the byte-sized KV flag against the named vLLM release.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { loadManifestFile } from '../../../src/manifest/load-manifest.js'
import type { Manifest } from '../../../src/manifest/schema.js'
import type { FactsBundle, NodeFacts } from '../../../src/preflight/facts.js'
import { fitFindings, fitOfManifest, kvBytesFlagFindings, nodeMemoryOfFacts } from '../../../src/preflight/fit/manifest-fit.js'
import { vllmServeArgv } from '../../../src/plan/node-commands.js'

const MIB = 1024 * 1024
/** A lab node's probe (fake nvidia-smi reporting a GB10, unified memory). */
const captured: NodeFacts = JSON.parse(readFileSync('test/deploy/fixtures/host-probe-worker-healthy.json', 'utf8'))
const seedFixture = JSON.parse(readFileSync('test/preflight/fit/fixtures/qwen3.5-122b-a10b-fp8.json', 'utf8'))

async function seed(): Promise<Manifest> {
  const { manifest } = await loadManifestFile('src/manifest/examples/dgx-spark-pair.yml')
  return manifest!
}
const bundle = (nodes: NodeFacts[]): FactsBundle => ({ version: 1, collectedAt: '2026-12-05T00:00:00Z', nodes }) as unknown as FactsBundle
const onNode = (node: string, f: Partial<NodeFacts> = {}): NodeFacts => ({ ...captured, node, ok: true, ...f }) as NodeFacts

describe('each node memory from its facts', () => {
  it("unified memory: the driver's total, and what the host uses now (MemTotal − MemAvailable) when no release runs", async () => {
    const m = await seed()
    const [a] = nodeMemoryOfFacts(bundle([onNode('spark-a'), onNode('spark-b')]), m)
    expect(a).toEqual({
      node: 'spark-a',
      unified: true,
      totalBytes: 122502 * MIB,
      gpus: 1,
      source: 'nvidia-smi memory.total',
      hostUsedBytes: captured.host!.memTotalBytes! - captured.host!.memAvailableBytes!,
    })
  })

  it("a running release's memory is not the host's: nothing measured then, the allowance stands", async () => {
    const m = await seed()
    const running = onNode('spark-a', { container: { ...(captured.container ?? {}), running: true } as NodeFacts['container'] })
    expect(nodeMemoryOfFacts(bundle([running]), m)[0]?.hostUsedBytes).toBeUndefined()
  })

  it('discrete GPUs: the GPU memory, no host pool', async () => {
    const m = await seed()
    const h100 = onNode('spark-a', {
      host: { ...captured.host!, unifiedMemory: false },
      gpus: [{ index: 0, name: 'NVIDIA H100 80GB HBM3', uuid: 'GPU-1', memoryTotalMiB: 81559 }] as NodeFacts['gpus'],
    })
    expect(nodeMemoryOfFacts(bundle([h100]), m)[0]).toMatchObject({ unified: false, totalBytes: 81559 * MIB })
  })

  it('the seed model on what the two nodes reported: computed, per node', async () => {
    const m = await seed()
    const files = {
      config: { text: JSON.stringify(seedFixture.config), path: 'fixture/config.json' },
      weights: { fileBytes: seedFixture.weightsPerGpuBytesAtTp2 * 2, source: 'fixture' },
    }
    const report = fitOfManifest(m, files, nodeMemoryOfFacts(bundle([onNode('spark-a'), onNode('spark-b')]), m))
    expect(report.computed && report.nodes.map((n) => n.node)).toEqual(['spark-a', 'spark-b'])
    expect(fitFindings(report, 'preflight').filter((f) => f.severity === 'error')).toEqual([])
  })
})

describe('byte-sized KV', () => {
  it('vllm.kvCacheMemoryBytes reaches vllm serve as --kv-cache-memory-bytes, and the fit sizes the KV cache by it', async () => {
    const m = await seed()
    const withBytes: Manifest = { ...m, vllm: { ...m.vllm, kvCacheMemoryBytes: 20 * 1024 ** 3 } }
    const argv = vllmServeArgv(withBytes)
    expect(argv.slice(argv.indexOf('--kv-cache-memory-bytes'), argv.indexOf('--kv-cache-memory-bytes') + 2)).toEqual([
      '--kv-cache-memory-bytes',
      String(20 * 1024 ** 3),
    ])
    const files = {
      config: { text: JSON.stringify(seedFixture.config), path: 'c' },
      weights: { fileBytes: seedFixture.weightsPerGpuBytesAtTp2 * 2, source: 'f' },
    }
    const report = fitOfManifest(withBytes, files, [{ node: 'spark-a', unified: true, totalBytes: 121.69 * 1024 ** 3, gpus: 1, source: 'x' }])
    expect(report.computed && report.nodes[0]!.kvBudgetBytes).toBe(20 * 1024 ** 3)
  })

  it('a release older than every known one cannot confirm the flag: a warning; a known release with it: nothing', async () => {
    const m = await seed()
    const old: Manifest = { ...m, vllm: { ...m.vllm, kvCacheMemoryBytes: 1, version: '0.9.2' } }
    expect(kvBytesFlagFindings(old).map((f) => f.code)).toEqual(['KV_BYTES_FLAG_UNKNOWN'])
    expect(kvBytesFlagFindings({ ...old, vllm: { ...old.vllm, version: '0.24.0' } })).toEqual([])
    expect(kvBytesFlagFindings({ ...old, vllm: { ...old.vllm, kvCacheMemoryBytes: undefined } })).toEqual([])
  })
})
