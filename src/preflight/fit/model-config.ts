/**
 * A model's `config.json` read into the figures the fit needs: which decoder layers keep a cache
 * and of what kind, the cache's dimensions, the dtype. Pure. The kinds follow vLLM's own KV cache
 * specs (vllm/v1/kv_cache_interface.py, read in vLLM 0.34.0):
 *
 * - `full`: attention over every token (FullAttentionSpec): K and V per token, per KV head.
 * - `sliding`: attention over a window (SlidingWindowSpec): at most the window (plus the tokens in
 *   flight) per sequence, whatever `max-model-len` is.
 * - `mla`: multi-head latent attention (MLAAttentionSpec, DeepSeek V2/V3, Kimi K2): one latent
 *   vector of `kv_lora_rank + qk_rope_head_dim` per token, the same on every TP rank.
 * - `linear`: Gated DeltaNet linear attention (Qwen3-Next, Qwen3.5; MambaSpec): a fixed state per
 *   sequence, sharded over TP (vllm/model_executor/layers/mamba/mamba_utils.py
 *   `gated_delta_net_state_shape`).
 * - `mamba`: Mamba2 (Nemotron-H; `mamba2_state_shape`): a fixed state per sequence.
 * - `none`: a layer without a cache (Nemotron-H's MLP and MoE layers).
 *
 * A layer kind this module does not know is a Problem naming it: the fit then says it cannot
 * compute the cache instead of guessing.
 */
import { type Problem, type Result, fail, ok } from '../../result/result.js'

export type LayerKind = 'full' | 'sliding' | 'mla' | 'linear' | 'mamba' | 'none'

export interface AttentionShape {
  readonly kvHeads: number
  readonly headDim: number
  /** V's head size when it differs from K's. */
  readonly headDimV: number
}

export interface LinearShape {
  readonly keyHeads: number
  readonly valueHeads: number
  readonly keyHeadDim: number
  readonly valueHeadDim: number
  readonly convKernel: number
}

export interface MambaShape {
  readonly heads: number
  readonly headDim: number
  readonly groups: number
  readonly stateSize: number
  readonly convKernel: number
}

export interface ModelShape {
  /** `architectures[0]`, else `model_type`. */
  readonly architecture: string
  /** The weights' dtype (`torch_dtype` / `dtype`), which vLLM's `--kv-cache-dtype auto` uses. */
  readonly dtype: string
  readonly dtypeBytes: number
  /** The SSM state's dtype (`mamba_ssm_dtype`), when the config names one. */
  readonly ssmDtypeBytes?: number
  readonly hiddenSize: number
  readonly vocabSize?: number
  /** `max_position_embeddings`: vLLM's `max-model-len` when the arguments do not set one. */
  readonly maxPositionEmbeddings?: number
  readonly layers: readonly LayerKind[]
  readonly attention?: AttentionShape
  readonly slidingWindow?: number
  readonly mla?: { readonly kvLoraRank: number; readonly ropeHeadDim: number }
  readonly linear?: LinearShape
  readonly mamba?: MambaShape
}

const DTYPE_BYTES: Readonly<Record<string, number>> = {
  float32: 4,
  float: 4,
  float16: 2,
  half: 2,
  bfloat16: 2,
  float8_e4m3fn: 1,
  float8_e5m2: 1,
}

type Json = Readonly<Record<string, unknown>>

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)
const num = (c: Json, key: string): number | undefined => {
  const v = c[key]
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined
}

const unreadable = (where: string, why: string): Problem => ({
  code: 'MODEL_CONFIG_UNREADABLE',
  message: `${where}: ${why}`,
  evidence: { 'config.json': where },
  fix: `Check ${where}: it must be the model's Hugging Face config.json (the file vLLM reads).`,
})

/** vLLM's hf_text_config: a multimodal config keeps the language model's under `text_config`. */
const textConfigOf = (c: Json): Json => (isObject(c['text_config']) ? { ...c, ...c['text_config'] } : c)

const LAYER_TYPE: Readonly<Record<string, LayerKind>> = {
  full_attention: 'full',
  attention: 'full',
  sliding_attention: 'sliding',
  linear_attention: 'linear',
  mamba: 'mamba',
}

/** Nemotron-H's `hybrid_override_pattern`: `M` Mamba2, `*` attention, `-` MLP, `E` MoE. */
const PATTERN_KIND: Readonly<Record<string, LayerKind>> = { M: 'mamba', '*': 'full', '-': 'none', E: 'none' }

function layerKinds(c: Json, count: number, where: string): Result<LayerKind[]> {
  const types = c['layer_types']
  if (Array.isArray(types)) {
    const kinds = types.map((t) => (typeof t === 'string' ? LAYER_TYPE[t] : undefined))
    const bad = types.find((_, i) => kinds[i] === undefined)
    if (bad !== undefined) return fail(unreadable(where, `layer_types holds ${JSON.stringify(bad)}, a layer kind the fit does not know`))
    return ok(kinds.slice(0, count) as LayerKind[])
  }
  const pattern = c['hybrid_override_pattern']
  if (typeof pattern === 'string') {
    const kinds = [...pattern].map((ch) => PATTERN_KIND[ch])
    if (kinds.some((k) => k === undefined))
      return fail(unreadable(where, `hybrid_override_pattern ${JSON.stringify(pattern)} holds a layer kind the fit does not know`))
    return ok(kinds as LayerKind[])
  }
  const interval = num(c, 'full_attention_interval')
  if (interval !== undefined && interval > 0 && num(c, 'linear_num_value_heads') !== undefined) {
    return ok(Array.from({ length: count }, (_, i) => ((i + 1) % interval === 0 ? 'full' : 'linear')))
  }
  if (num(c, 'kv_lora_rank') !== undefined) return ok(Array.from({ length: count }, () => 'mla'))
  const window = num(c, 'sliding_window')
  const pattern2 = num(c, 'sliding_window_pattern')
  if (window !== undefined && c['use_sliding_window'] !== false) {
    if (pattern2 !== undefined && pattern2 > 0) return ok(Array.from({ length: count }, (_, i) => ((i + 1) % pattern2 === 0 ? 'full' : 'sliding')))
    return ok(Array.from({ length: count }, () => 'sliding'))
  }
  return ok(Array.from({ length: count }, () => 'full'))
}

function dtypeOf(c: Json, where: string): Result<{ name: string; bytes: number }> {
  const name = c['torch_dtype'] ?? c['dtype']
  if (name === undefined) return ok({ name: 'bfloat16 (assumed: config.json names no dtype)', bytes: 2 })
  const bytes = typeof name === 'string' ? DTYPE_BYTES[name] : undefined
  if (bytes === undefined) return fail(unreadable(where, `dtype ${JSON.stringify(name)} is not one the fit knows`))
  return ok({ name: name as string, bytes })
}

function linearShape(c: Json): LinearShape | undefined {
  const keyHeads = num(c, 'linear_num_key_heads')
  const valueHeads = num(c, 'linear_num_value_heads')
  const keyHeadDim = num(c, 'linear_key_head_dim')
  const valueHeadDim = num(c, 'linear_value_head_dim')
  const convKernel = num(c, 'linear_conv_kernel_dim')
  if (keyHeads === undefined || valueHeads === undefined || keyHeadDim === undefined || valueHeadDim === undefined || convKernel === undefined) return undefined
  return { keyHeads, valueHeads, keyHeadDim, valueHeadDim, convKernel }
}

function mambaShape(c: Json): MambaShape | undefined {
  const heads = num(c, 'mamba_num_heads')
  const headDim = num(c, 'mamba_head_dim')
  const groups = num(c, 'n_groups')
  const stateSize = num(c, 'ssm_state_size')
  const convKernel = num(c, 'conv_kernel')
  if (heads === undefined || headDim === undefined || groups === undefined || stateSize === undefined || convKernel === undefined) return undefined
  return { heads, headDim, groups, stateSize, convKernel }
}

/** What each layer kind needs from the config, and the shape read for it. */
function shapesFor(c: Json, kinds: readonly LayerKind[], hidden: number, where: string): Result<Partial<ModelShape>> {
  const has = (k: LayerKind) => kinds.includes(k)
  const out: { -readonly [K in keyof ModelShape]?: ModelShape[K] } = {}
  if (has('full') || has('sliding')) {
    const heads = num(c, 'num_attention_heads')
    if (heads === undefined || heads === 0) return fail(unreadable(where, 'no num_attention_heads'))
    const headDim = num(c, 'head_dim') ?? hidden / heads
    out.attention = { kvHeads: num(c, 'num_key_value_heads') ?? heads, headDim, headDimV: num(c, 'v_head_dim') ?? headDim }
  }
  if (has('sliding')) {
    const window = num(c, 'sliding_window')
    if (window === undefined) return fail(unreadable(where, 'sliding-window layers but no sliding_window'))
    out.slidingWindow = window
  }
  if (has('mla')) {
    const kvLoraRank = num(c, 'kv_lora_rank')
    const ropeHeadDim = num(c, 'qk_rope_head_dim')
    if (kvLoraRank === undefined || ropeHeadDim === undefined) return fail(unreadable(where, 'MLA layers but no kv_lora_rank / qk_rope_head_dim'))
    out.mla = { kvLoraRank, ropeHeadDim }
  }
  if (has('linear')) {
    const linear = linearShape(c)
    if (!linear)
      return fail(
        unreadable(
          where,
          'linear-attention layers but not all of linear_num_key_heads, linear_num_value_heads, linear_key_head_dim, linear_value_head_dim, linear_conv_kernel_dim',
        ),
      )
    out.linear = linear
  }
  if (has('mamba')) {
    const mamba = mambaShape(c)
    if (!mamba) return fail(unreadable(where, 'Mamba layers but not all of mamba_num_heads, mamba_head_dim, n_groups, ssm_state_size, conv_kernel'))
    out.mamba = mamba
  }
  return ok(out)
}

/** A parsed config.json (any JSON value) → the model's shape, or why it cannot be read. */
export function modelShape(doc: unknown, where: string): Result<ModelShape> {
  if (!isObject(doc)) return fail(unreadable(where, 'not a JSON object'))
  const c = textConfigOf(doc)
  const count = num(c, 'num_hidden_layers')
  const hidden = num(c, 'hidden_size')
  if (count === undefined || count === 0) return fail(unreadable(where, 'no num_hidden_layers'))
  if (hidden === undefined) return fail(unreadable(where, 'no hidden_size'))
  const kinds = layerKinds(c, count, where)
  if (!kinds.ok) return kinds
  const dtype = dtypeOf(c, where)
  if (!dtype.ok) return dtype
  const shapes = shapesFor(c, kinds.value, hidden, where)
  if (!shapes.ok) return shapes
  const architectures = doc['architectures']
  const architecture = Array.isArray(architectures) && typeof architectures[0] === 'string' ? architectures[0] : String(c['model_type'] ?? 'unknown')
  const ssm = c['mamba_ssm_dtype']
  const vocabSize = num(c, 'vocab_size')
  const maxPositionEmbeddings = num(c, 'max_position_embeddings')
  return ok({
    architecture,
    dtype: dtype.value.name,
    dtypeBytes: dtype.value.bytes,
    ...(typeof ssm === 'string' && DTYPE_BYTES[ssm] !== undefined && { ssmDtypeBytes: DTYPE_BYTES[ssm] }),
    hiddenSize: hidden,
    ...(vocabSize !== undefined && { vocabSize }),
    ...(maxPositionEmbeddings !== undefined && { maxPositionEmbeddings }),
    layers: kinds.value,
    ...shapes.value,
  })
}

/** config.json's text → the model's shape. */
export function parseModelConfig(text: string, where: string): Result<ModelShape> {
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch (err) {
    return fail(unreadable(where, `not JSON (${(err as Error).message})`))
  }
  return modelShape(doc, where)
}
