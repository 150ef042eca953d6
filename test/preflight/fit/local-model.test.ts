/**
 * What the runner can read of a model: a `model.source.runner.dir` with config.json and safetensors
 * files (their headers read, 8-byte little-endian length then JSON), and the hub cache layout.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadManifestFile } from '../../../src/manifest/load-manifest.js'
import type { Manifest } from '../../../src/manifest/schema.js'
import { hubCacheDir, readLocalModel } from '../../../src/preflight/fit/local-model.js'

/** A safetensors file: the header's length (u64 LE), the header, then the tensors' bytes. */
function safetensors(header: Record<string, unknown>, dataBytes: number): Buffer {
  const json = Buffer.from(JSON.stringify(header))
  const len = Buffer.alloc(8)
  len.writeBigUInt64LE(BigInt(json.length))
  return Buffer.concat([len, json, Buffer.alloc(dataBytes)])
}

async function withRunnerDir(dir: string): Promise<{ m: Manifest; path: string }> {
  const { manifest } = await loadManifestFile('src/manifest/examples/dgx-spark-pair.yml')
  const m: Manifest = { ...manifest!, model: { path: '/var/lib/vrd/models/x', source: { runner: { dir } }, distribution: 'relay' } }
  return { m, path: join(dir, '..', 'cluster.yml') }
}

describe('the model files on the runner', () => {
  it('a runner directory: config.json, the files sizes and every tensor from the headers', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'local-model-')), 'model')
    mkdirSync(dir)
    writeFileSync(join(dir, 'config.json'), '{"num_hidden_layers": 1, "hidden_size": 8}')
    writeFileSync(join(dir, 'a.safetensors'), safetensors({ 'model.layers.0.w': { dtype: 'BF16', shape: [4, 4], data_offsets: [0, 32] } }, 32))
    writeFileSync(join(dir, 'b.safetensors'), safetensors({ 'lm_head.weight': { dtype: 'BF16', shape: [2, 8], data_offsets: [0, 32] }, __metadata__: {} }, 32))
    const { m, path } = await withRunnerDir(dir)
    const files = readLocalModel(m, path, {})
    expect(files.config?.path).toBe(join(dir, 'config.json'))
    expect(files.weights?.tensors?.map((t) => t.name).sort()).toEqual(['lm_head.weight', 'model.layers.0.w'])
    expect(files.weights?.fileBytes).toBeGreaterThan(64)
  })

  it('a file whose header cannot be read: sizes only, said so by the absence of tensors', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'local-model-')), 'model')
    mkdirSync(dir)
    writeFileSync(join(dir, 'config.json'), '{}')
    writeFileSync(join(dir, 'a.safetensors'), Buffer.from('not a safetensors file'))
    const { m, path } = await withRunnerDir(dir)
    const files = readLocalModel(m, path, {})
    expect(files.weights).toMatchObject({ fileBytes: 22 })
    expect(files.weights?.tensors).toBeUndefined()
  })

  it("huggingface_hub's cache directory: HF_HUB_CACHE, else HF_HOME/hub, else XDG_CACHE_HOME/huggingface/hub", () => {
    expect(hubCacheDir({ HF_HUB_CACHE: '/c', HF_HOME: '/h' })).toBe('/c')
    expect(hubCacheDir({ HF_HOME: '/h' })).toBe('/h/hub')
    expect(hubCacheDir({ XDG_CACHE_HOME: '/x' })).toBe('/x/huggingface/hub')
  })
})
