/**
 * The fit before launch on real 2026 DGX Spark models (fixtures/*.json name their sources): the
 * arithmetic on two GB10s (121.69 GiB of unified memory each, as cudaMemGetInfo reports it), TP 2.
 */
import { ok } from '../../../src/result/result.js'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { type FitInput, type FitReport, type NodeMemory, fitModel } from '../../../src/preflight/fit/fit.js'
import { type ModelShape, modelShape, parseModelConfig } from '../../../src/preflight/fit/model-config.js'
import { serveArgs } from '../../../src/preflight/fit/serve-args.js'
import { parseSafetensorsHeader, ppPartitions, weightsShare } from '../../../src/preflight/fit/weights-share.js'

const GIB = 1024 ** 3
interface Fixture {
  readonly model: string
  readonly config: unknown
  readonly safetensorsBytes: number | null
  readonly weightsPerGpuBytesAtTp2?: number
}
const fixture = (name: string): Fixture => JSON.parse(readFileSync(`test/preflight/fit/fixtures/${name}.json`, 'utf8'))
const shapeOf = (f: Fixture): ModelShape => {
  const r = modelShape(f.config, f.model)
  if (!r.ok) throw new Error(r.problem.message)
  return r.value
}
/** The figure the fixture has: the files' size, else (seed) the per-GPU estimate × 2 it names. */
const weightsBytes = (f: Fixture): number => f.safetensorsBytes ?? f.weightsPerGpuBytesAtTp2! * 2

const gb10 = (node: string, hostUsedBytes?: number): NodeMemory => ({
  node,
  unified: true,
  totalBytes: 121.69 * GIB,
  gpus: 1,
  source: 'GB10, cudaMemGetInfo',
  ...(hostUsedBytes !== undefined && { hostUsedBytes }),
})
const twoSparks = [gb10('spark-a'), gb10('spark-b')]

function fit(f: Fixture, args: readonly string[], nodes: readonly NodeMemory[] = twoSparks, tp = 2): Extract<FitReport, { computed: true }> {
  const input: FitInput = {
    model: ok({ shape: shapeOf(f), source: 'fixture' }),
    weights: { fileBytes: weightsBytes(f), source: 'fixture' },
    args: serveArgs(args),
    tp,
    pp: 1,
    nodes,
  }
  const r = fitModel(input)
  if (!r.computed) throw new Error(r.missing.join('; '))
  return r
}
const errors = (r: Extract<FitReport, { computed: true }>) => r.nodes.flatMap((n) => n.findings.filter((x) => x.severity === 'error'))
const SEED_ARGS = ['--max-model-len', '32768', '--gpu-memory-utilization', '0.85']

describe('the seed model, Qwen3.5-122B-A10B-FP8, on two GB10s at TP 2', () => {
  const seed = fixture('qwen3.5-122b-a10b-fp8')

  it('reads the hybrid layout: 12 full-attention layers with 2 KV heads of 256, 36 Gated DeltaNet layers', () => {
    const s = shapeOf(seed)
    expect(s.layers.filter((l) => l === 'full')).toHaveLength(12)
    expect(s.layers.filter((l) => l === 'linear')).toHaveLength(36)
    expect(s.attention).toEqual({ kvHeads: 2, headDim: 256, headDimV: 256 })
    expect(s.linear).toEqual({ keyHeads: 16, valueHeads: 64, keyHeadDim: 128, valueHeadDim: 128, convKernel: 4 })
    expect(s.ssmDtypeBytes).toBe(4)
  })

  it('the manifest as shipped (max-model-len 32768, utilisation 0.85) fits, and the arithmetic says why', () => {
    const r = fit(seed, SEED_ARGS)
    // Per token per GPU: 12 layers × max(1, 2 KV heads / TP 2) × (256 + 256) × 2 bytes (bf16).
    const perToken = 12 * 1 * 512 * 2
    // Per sequence per GPU: 36 layers × (conv (2·16·128 + 64·128)/2 × 3 × 2 bytes + recurrent 64/2 × 128 × 128 × 4 bytes).
    const state = 36 * (((2 * 16 * 128 + 64 * 128) / 2) * 3 * 2 + (64 / 2) * 128 * 128 * 4)
    expect(r.footprint.kvOneSequenceBytes).toBe(32768 * perToken + state)
    expect(r.footprint.weightsBytes).toBe(56_420_000_000)
    for (const n of r.nodes) {
      expect(n.fits).toBe(true)
      expect(n.claimBytes).toBe(Math.floor(0.85 * 121.69 * GIB))
      expect(n.lines.join('\n')).toMatch(/103\.44 GiB \+ 9\.60 GiB = 113\.04 GiB of 121\.69 GiB unified memory/)
      expect(n.sequencesAtMaxLen).toBe(Math.floor(n.kvBudgetBytes / r.footprint.kvOneSequenceBytes))
    }
  })

  it('a max-model-len past what fits is an error that names the largest that does, and that one fits', () => {
    const tight = ['--max-model-len', '262144', '--gpu-memory-utilization', '0.47']
    const [finding] = errors(fit(seed, tight))
    expect(finding?.code).toBe('MODEL_DOES_NOT_FIT')
    const proposed = Number(/--max-model-len in vllm\.args to (\d+)/.exec(finding?.fix ?? '')?.[1])
    expect(proposed).toBeGreaterThan(32768)
    expect(proposed).toBeLessThan(262144)
    expect(errors(fit(seed, ['--max-model-len', String(proposed), '--gpu-memory-utilization', '0.47']))).toEqual([])
    expect(errors(fit(seed, ['--max-model-len', String(proposed + 1024), '--gpu-memory-utilization', '0.47']))).not.toEqual([])
  })

  it('a utilisation that leaves the host less than it needs is an error with the utilisation and the KV bytes that fit', () => {
    const [finding] = errors(fit(seed, ['--max-model-len', '32768', '--gpu-memory-utilization', '0.95']))
    expect(finding?.message).toMatch(/leave the host 6\.08 GiB, less than the 9\.60 GiB it needs/)
    const util = /to (0\.\d+)\.$/.exec(finding?.fix ?? '')?.[1]
    const kvBytes = /kvCacheMemoryBytes: (\d+)/.exec(finding?.fix ?? '')?.[1]
    expect(errors(fit(seed, ['--max-model-len', '32768', '--gpu-memory-utilization', util!]))).toEqual([])
    expect(errors(fit(seed, ['--max-model-len', '32768', '--kv-cache-memory-bytes', kvBytes!]))).toEqual([])
  })

  it('what the host really uses (MemTotal − MemAvailable) replaces the OS allowance', () => {
    const measured = fit(seed, SEED_ARGS, [gb10('spark-a', 14 * GIB), gb10('spark-b')])
    expect(measured.nodes[0]!.hostReserveBytes).toBe(14 * GIB + 5.6 * GIB)
    expect(measured.nodes[0]!.findings.find((f) => f.severity === 'error')?.code).toBe('MODEL_DOES_NOT_FIT')
    expect(measured.nodes[1]!.fits).toBe(true)
  })

  it('on one GB10 (TP 1) the weights alone do not leave room, and TP 2 is proposed', () => {
    const r = fit(seed, SEED_ARGS, [gb10('spark-a'), gb10('spark-b')], 1)
    const finding = errors(r)[0]
    expect(finding?.fix).toMatch(/raise tensorParallelSize to 2/)
  })
})

describe('two other 2026 Spark models on two GB10s at TP 2', () => {
  it('Qwen3.5-35B-A3B (FP8): 10 full-attention layers, 30 linear; fits with room for most of max-num-seqs', () => {
    const f = fixture('qwen3.5-35b-a3b-fp8')
    const r = fit(f, SEED_ARGS)
    const perToken = 10 * 1 * 512 * 2
    const state = 30 * (((2 * 16 * 128 + 32 * 128) / 2) * 3 * 2 + (32 / 2) * 128 * 128 * 4)
    expect(r.footprint.kvOneSequenceBytes).toBe(32768 * perToken + state)
    expect(r.footprint.weightsBytes).toBe(36_800_000_000 / 2)
    expect(errors(r)).toEqual([])
  })

  it('gpt-oss-120b: 18 full and 18 sliding-window (128) layers; the window caps what a sliding layer holds', () => {
    const f = fixture('gpt-oss-120b')
    const s = shapeOf(f)
    expect(s.slidingWindow).toBe(128)
    const r = fit(f, SEED_ARGS)
    // 8 KV heads / TP 2 = 4 per GPU, × (64 + 64) × 2 bytes = 1024 bytes per token per layer.
    const full = 18 * 32768 * 1024
    // A sliding layer: ceil((128 − 1 + 2048 batched tokens) / 16) + 1 blocks of 16 tokens.
    const sliding = 18 * (Math.ceil((127 + 2048) / 16) + 1) * 16 * 1024
    expect(r.footprint.kvOneSequenceBytes).toBe(full + sliding)
    expect(errors(r)).toEqual([])
  })
})

describe('discrete GPUs: two pools, no host reserve', () => {
  it('two 80 GiB GPUs hold gpt-oss-120b at TP 2 with the server defaults of a large GPU', () => {
    const h100 = (node: string): NodeMemory => ({ node, unified: false, totalBytes: 80 * GIB, gpus: 1, source: 'nvidia-smi' })
    const r = fit(fixture('gpt-oss-120b'), ['--max-model-len', '131072'], [h100('a'), h100('b')])
    expect(r.footprint.maxNumSeqs).toBe(1024)
    expect(r.nodes[0]!.hostReserveBytes).toBe(0)
    expect(r.nodes[0]!.claimBytes).toBe(Math.floor(0.9 * 80 * GIB))
    expect(errors(r)).toEqual([])
  })
})

describe('other architectures and what cannot be computed', () => {
  it('MLA (DeepSeek V3, alibaba/InferSim hf_configs/deepseek_v3_config.json @ c1c36d65): one latent per token on every TP rank', () => {
    const s = modelShape(
      {
        architectures: ['DeepseekV3ForCausalLM'],
        kv_lora_rank: 512,
        qk_rope_head_dim: 64,
        num_hidden_layers: 61,
        hidden_size: 7168,
        num_attention_heads: 128,
        torch_dtype: 'bfloat16',
      },
      'deepseek',
    )
    expect(s.ok && s.value.layers.every((l) => l === 'mla')).toBe(true)
    if (!s.ok) return
    const r = fitModel({
      model: ok({ shape: s.value, source: 'x' }),
      weights: { fileBytes: 8e9, source: 'x' },
      args: serveArgs(['--max-model-len', '1024']),
      tp: 8,
      pp: 1,
      nodes: [],
    })
    expect(r.computed && r.footprint.kvOneSequenceBytes).toBe(61 * 1024 * (512 + 64) * 2)
  })

  it('Mamba2 layers (Nemotron-H pattern) keep a fixed state; MLP layers none', () => {
    const s = modelShape(
      {
        hybrid_override_pattern: 'M-M*',
        num_hidden_layers: 4,
        hidden_size: 64,
        num_attention_heads: 4,
        num_key_value_heads: 2,
        head_dim: 16,
        mamba_num_heads: 8,
        mamba_head_dim: 16,
        n_groups: 2,
        ssm_state_size: 32,
        conv_kernel: 4,
        torch_dtype: 'bfloat16',
      },
      'nemotron-h',
    )
    expect(s.ok && s.value.layers).toEqual(['mamba', 'none', 'mamba', 'full'])
  })

  it('a layer kind the fit does not know is a problem that names it, not a guess', () => {
    const r = parseModelConfig(JSON.stringify({ num_hidden_layers: 2, hidden_size: 8, layer_types: ['full_attention', 'hash_attention'] }), 'x/config.json')
    expect(r.ok).toBe(false)
    expect(!r.ok && r.problem.message).toMatch(/"hash_attention"/)
  })

  it('no weights figure: the footprint is not computed, and the missing input is named', () => {
    const r = fitModel({
      model: ok({ shape: shapeOf(fixture('gpt-oss-120b')), source: 'x' }),
      weights: undefined,
      args: serveArgs([]),
      tp: 2,
      pp: 1,
      nodes: twoSparks,
    })
    expect(r).toEqual({ computed: false, missing: [expect.stringMatching(/the weights. sizes/)] })
  })
})

describe('weights from safetensors headers', () => {
  const header = JSON.stringify({
    __metadata__: { format: 'pt' },
    'model.embed_tokens.weight': { dtype: 'BF16', shape: [100, 10], data_offsets: [0, 2000] },
    'model.layers.0.mlp.weight': { dtype: 'BF16', shape: [10, 10], data_offsets: [2000, 2200] },
    'model.layers.1.mlp.weight': { dtype: 'BF16', shape: [10, 10], data_offsets: [2200, 2400] },
    'model.layers.1.input_layernorm.weight': { dtype: 'BF16', shape: [10], data_offsets: [2400, 2420] },
    'model.norm.weight': { dtype: 'BF16', shape: [10], data_offsets: [2420, 2440] },
    'lm_head.weight': { dtype: 'BF16', shape: [100, 10], data_offsets: [2440, 4440] },
    'mtp.layers.0.mlp.weight': { dtype: 'BF16', shape: [10, 10], data_offsets: [4440, 4640] },
  })

  it('places tensors by pipeline stage, splits matrices over TP, keeps vectors whole, leaves mtp.* out without MTP', () => {
    const tensors = parseSafetensorsHeader(header, 'model-00001.safetensors')
    expect(tensors.ok).toBe(true)
    if (!tensors.ok) return
    // PP 2: stage 0 = embedding + layer 0 = (2000 + 200) / 2; stage 1 = layer 1 + norm + lm_head = (200 + 2000) / 2 + 20 + 20.
    expect(weightsShare({ tensors: tensors.value, source: 'x' }, 2, 2, 2, false)?.bytes).toBe(1140)
    expect(weightsShare({ tensors: tensors.value, source: 'x' }, 2, 2, 2, false)?.how).toMatch(/mtp\.\* tensors left out/)
    expect(weightsShare({ tensors: tensors.value, source: 'x' }, 2, 1, 1, true)?.bytes).toBe(4640)
  })

  it("vLLM's uneven split gives the extra layers to the stages before the last", () => {
    expect(ppPartitions(10, 4)).toEqual([2, 3, 3, 2])
    expect(ppPartitions(48, 2)).toEqual([24, 24])
  })
})
