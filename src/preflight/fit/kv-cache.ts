/**
 * The KV cache (and the linear-attention / Mamba state) one sequence needs on the largest rank,
 * as vLLM sizes it (vllm/v1/kv_cache_interface.py, vLLM 0.34.0). Pure.
 *
 * Per layer of the rank's pipeline stage:
 * - full attention: `ceil(L / block) × block × kv_heads_per_rank × (head_dim + v_head_dim) × kv_bytes`,
 *   with `kv_heads_per_rank = max(1, kv_heads // TP)` (vLLM replicates a KV head when TP exceeds them);
 * - sliding window: the same per token, for at most `window − 1 + max_num_batched_tokens` tokens
 *   (never more than L) plus one block (SlidingWindowSpec.max_admission_blocks_per_request);
 * - MLA: `(kv_lora_rank + qk_rope_head_dim) × kv_bytes` per token, on every TP rank;
 * - Gated DeltaNet: a fixed state, conv `(2·k_heads·k_dim + v_heads·v_dim)/TP × (kernel − 1)` plus
 *   recurrent `v_heads/TP × v_dim × k_dim` elements;
 * - Mamba2: conv `(heads·head_dim + 2·groups·state)/TP × (kernel − 1)` plus `heads/TP × head_dim × state`.
 */
import type { LayerKind, ModelShape } from './model-config.js'
import { ppPartitions } from './weights-share.js'

/** vLLM's default KV block size in tokens. */
export const BLOCK_TOKENS = 16

export interface CacheInputs {
  readonly tp: number
  readonly pp: number
  readonly kvBytes: number
  readonly maxNumBatchedTokens: number
}

export interface SequenceCache {
  /** Bytes per token of the layers whose cache grows with the sequence (full attention, MLA). */
  readonly perTokenBytes: number
  /** Bytes of a sliding-window layer per token (counted up to the window). */
  readonly slidingPerTokenBytes: number
  readonly slidingLayers: number
  /** Bytes per sequence that do not depend on its length (linear attention, Mamba). */
  readonly stateBytes: number
  /** The layers of the largest stage, by kind, for the arithmetic. */
  readonly layerCounts: Readonly<Partial<Record<LayerKind, number>>>
}

const cdiv = (a: number, b: number): number => Math.ceil(a / b)

function attentionPerToken(m: ModelShape, tp: number, kvBytes: number): number {
  const a = m.attention
  if (!a) return 0
  const heads = Math.max(1, Math.floor(a.kvHeads / tp))
  return heads * (a.headDim + a.headDimV) * kvBytes
}

function linearState(m: ModelShape, tp: number): number {
  const l = m.linear
  if (!l) return 0
  const conv = ((2 * l.keyHeads * l.keyHeadDim + l.valueHeads * l.valueHeadDim) / tp) * (l.convKernel - 1) * m.dtypeBytes
  const recurrent = (l.valueHeads / tp) * l.valueHeadDim * l.keyHeadDim * (m.ssmDtypeBytes ?? m.dtypeBytes)
  return conv + recurrent
}

function mambaState(m: ModelShape, tp: number): number {
  const s = m.mamba
  if (!s) return 0
  const conv = ((s.heads * s.headDim + 2 * s.groups * s.stateSize) / tp) * (s.convKernel - 1) * m.dtypeBytes
  const ssm = (s.heads / tp) * s.headDim * s.stateSize * (m.ssmDtypeBytes ?? m.dtypeBytes)
  return conv + ssm
}

/** The layers of each pipeline stage, by kind; the stage with the largest cache per token is the one that counts. */
function stageLayers(m: ModelShape, pp: number): LayerKind[][] {
  const parts = ppPartitions(m.layers.length, pp)
  let start = 0
  return parts.map((n) => {
    const slice = m.layers.slice(start, start + n)
    start += n
    return [...slice]
  })
}

export function sequenceCache(m: ModelShape, c: CacheInputs): SequenceCache {
  const attn = attentionPerToken(m, c.tp, c.kvBytes)
  const mla = m.mla ? (m.mla.kvLoraRank + m.mla.ropeHeadDim) * c.kvBytes : 0
  const linear = linearState(m, c.tp)
  const mamba = mambaState(m, c.tp)
  const stages = stageLayers(m, c.pp).map((layers) => {
    const count = (k: LayerKind) => layers.filter((l) => l === k).length
    const counts: Partial<Record<LayerKind, number>> = {}
    for (const k of layers) counts[k] = (counts[k] ?? 0) + 1
    return {
      perTokenBytes: count('full') * attn + count('mla') * mla,
      slidingPerTokenBytes: attn,
      slidingLayers: count('sliding'),
      stateBytes: count('linear') * linear + count('mamba') * mamba,
      layerCounts: counts,
    }
  })
  // The stage that needs the most for a long sequence is the one the fit must hold.
  return stages.reduce((a, b) => (b.perTokenBytes + b.stateBytes > a.perTokenBytes + a.stateBytes ? b : a))
}

/** Bytes one sequence of `len` tokens holds on the rank. */
export function sequenceBytes(s: SequenceCache, len: number, maxNumBatchedTokens: number, window: number | undefined): number {
  const tokens = cdiv(len, BLOCK_TOKENS) * BLOCK_TOKENS
  const slidingTokens = window === undefined ? 0 : (cdiv(Math.min(window - 1 + maxNumBatchedTokens, len), BLOCK_TOKENS) + 1) * BLOCK_TOKENS
  return tokens * s.perTokenBytes + s.slidingLayers * slidingTokens * s.slidingPerTokenBytes + s.stateBytes
}

/**
 * The longest sequence (a multiple of 1024 tokens where it is that long, else of the block size)
 * for which `sequences` of them fit in `budget` bytes; 0 when not even one block does.
 */
export function longestFitting(
  s: SequenceCache,
  budget: number,
  sequences: number,
  maxNumBatchedTokens: number,
  window: number | undefined,
  upTo: number,
): number {
  const fits = (len: number) => sequences * sequenceBytes(s, len, maxNumBatchedTokens, window) <= budget
  if (!fits(BLOCK_TOKENS)) return 0
  let lo = BLOCK_TOKENS
  let hi = Math.max(upTo, BLOCK_TOKENS)
  if (fits(hi)) return hi
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2)
    if (fits(mid)) lo = mid
    else hi = mid
  }
  return lo >= 1024 ? lo - (lo % 1024) : lo - (lo % BLOCK_TOKENS)
}
