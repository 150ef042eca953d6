/**
 * Does the model fit, node by node, before anything starts? Pure: the model's shape, its weights,
 * the `vllm serve` arguments and what each node has in, the footprint and the verdict out.
 *
 * Per rank (one GPU): the weights' share (weights-share.ts), the KV cache for `max-model-len` ×
 * `max-num-seqs` (kv-cache.ts) or `--kv-cache-memory-bytes` when set, and an activation/graph
 * reserve. What vLLM claims: `gpu_memory_utilization × total` (it then gives the KV cache what is
 * left after the weights and the profile run), or, with `--kv-cache-memory-bytes`, the weights,
 * that many bytes and the activations (vLLM's help: the byte size "ignores gpu_memory_utilization").
 *
 * On unified memory (GB10) the GPU's memory is the host's: vLLM's claim and the host's own use
 * (the OS and services, and vLLM's host-side processes, which its accounting leaves out) share one
 * pool, and a claim that leaves the host too little wedges or resets the machine instead of
 * failing cleanly (vllm#46307, NVIDIA/dgx-spark-playbooks#97). On discrete GPUs the claim is
 * against each GPU's memory; the host is a separate pool.
 */
import type { Result } from '../../result/result.js'
import type { Finding } from '../finding.js'
import type { ModelShape } from './model-config.js'
import { type SequenceCache, longestFitting, sequenceBytes, sequenceCache } from './kv-cache.js'
import { type ServeArgs, kvDtypeBytes } from './serve-args.js'
import { GIB, type WeightsInput, formatGiB, weightsShare } from './weights-share.js'

export interface NodeMemory {
  readonly node: string
  readonly unified: boolean
  /** Unified: the one pool (MemTotal, or cudaMemGetInfo's total); discrete: one GPU's memory. */
  readonly totalBytes: number
  /** What the host uses now besides vLLM (MemTotal − MemAvailable with no release running), when measured. */
  readonly hostUsedBytes?: number
  readonly gpus: number
  /** Where the figures come from. */
  readonly source: string
}

export interface FitInput {
  /** The model's shape, or why it is not known (which input is missing). */
  readonly model: Result<{ readonly shape: ModelShape; readonly source: string }>
  readonly weights: WeightsInput | undefined
  readonly args: ServeArgs
  readonly tp: number
  readonly pp: number
  /** What each node has; empty: the footprint is worked out, the verdict is not. */
  readonly nodes: readonly NodeMemory[]
}

/**
 * Activations of vLLM's profile run, CUDA graphs, NCCL buffers and the CUDA context, per rank: an
 * allowance (vLLM measures them only at start-up), plus the sampler's fp32 logits for
 * `max_num_seqs` rows of the vocabulary, which its dummy sampler run allocates.
 */
export const ACTIVATION_ALLOWANCE_BYTES = 2 * GIB
/**
 * vLLM's host-side processes on unified memory (API server, engine core, workers, Ray): memory its
 * own accounting leaves out; measured as ~5.6 GiB on 2×GB10 (MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks#118).
 */
export const VLLM_HOST_SIDE_BYTES = 5.6 * GIB
/** The OS and services on a unified-memory node when nobody measured them (plan): an allowance. */
export const OS_ALLOWANCE_BYTES = 4 * GIB

/** vLLM's server defaults (vllm/engine/arg_utils.py, 0.34.0): GB10 and GPUs under 70 GiB 256 / 2048; ≥70 GiB 1024 / 8192; ≥160 GiB 1024 / 16384. */
export function serverDefaults(unified: boolean, gpuBytes: number | undefined): { maxNumSeqs: number; maxNumBatchedTokens: number } {
  if (unified || gpuBytes === undefined || gpuBytes < 70 * GIB) return { maxNumSeqs: 256, maxNumBatchedTokens: 2048 }
  return gpuBytes >= 160 * GIB ? { maxNumSeqs: 1024, maxNumBatchedTokens: 16384 } : { maxNumSeqs: 1024, maxNumBatchedTokens: 8192 }
}

export interface Footprint {
  readonly model: string
  readonly weightsBytes: number
  readonly weightsHow: string
  readonly maxModelLen: number
  readonly maxModelLenFrom: string
  readonly maxNumSeqs: number
  readonly maxNumBatchedTokens: number
  readonly kvDtypeBytes: number
  /** One sequence of max-model-len. */
  readonly kvOneSequenceBytes: number
  /** max-num-seqs sequences of max-model-len. */
  readonly kvAllSequencesBytes: number
  readonly kvCacheMemoryBytes?: number
  readonly activationBytes: number
  readonly cache: SequenceCache
}

export interface NodeFit {
  readonly node: string
  readonly memory: NodeMemory
  readonly fits: boolean
  /** What vLLM claims on each GPU. */
  readonly claimBytes: number
  /** What the KV cache gets of it. */
  readonly kvBudgetBytes: number
  /** Unified: what the host keeps for itself. */
  readonly hostReserveBytes: number
  /** Sequences of max-model-len the KV budget holds at once. */
  readonly sequencesAtMaxLen: number
  /** The arithmetic, one line per step. */
  readonly lines: readonly string[]
  readonly findings: readonly Finding[]
}

export type FitReport =
  | { readonly computed: false; readonly missing: readonly string[] }
  | { readonly computed: true; readonly footprint: Footprint; readonly nodes: readonly NodeFit[]; readonly sources: readonly string[] }

function footprintOf(input: FitInput, shape: ModelShape, node: NodeMemory | undefined): Footprint | string {
  const share = input.weights ? weightsShare(input.weights, shape.layers.length, input.tp, input.pp, input.args.mtp) : undefined
  if (!share) return 'the weights\u2019 sizes (no weights listing, no safetensors headers and no index total_size were readable)'
  const defaults = serverDefaults(node?.unified ?? true, node?.unified ? undefined : node?.totalBytes)
  const maxNumSeqs = input.args.maxNumSeqs ?? defaults.maxNumSeqs
  const maxNumBatchedTokens = input.args.maxNumBatchedTokens ?? defaults.maxNumBatchedTokens
  const maxModelLen = input.args.maxModelLen ?? shape.maxPositionEmbeddings
  if (maxModelLen === undefined) return 'max-model-len (neither --max-model-len in vllm.args nor max_position_embeddings in config.json)'
  const kvBytes = kvDtypeBytes(input.args.kvCacheDtype, shape.dtypeBytes)
  const cache = sequenceCache(shape, { tp: input.tp, pp: input.pp, kvBytes, maxNumBatchedTokens })
  const one = sequenceBytes(cache, maxModelLen, maxNumBatchedTokens, shape.slidingWindow)
  return {
    model: shape.architecture,
    weightsBytes: share.bytes,
    weightsHow: share.how,
    maxModelLen,
    maxModelLenFrom: input.args.maxModelLen !== undefined ? '--max-model-len' : "config.json's max_position_embeddings (vLLM's default)",
    maxNumSeqs,
    maxNumBatchedTokens,
    kvDtypeBytes: kvBytes,
    kvOneSequenceBytes: one,
    kvAllSequencesBytes: one * maxNumSeqs,
    ...(input.args.kvCacheMemoryBytes !== undefined && { kvCacheMemoryBytes: input.args.kvCacheMemoryBytes }),
    activationBytes: ACTIVATION_ALLOWANCE_BYTES + maxNumSeqs * (shape.vocabSize ?? 0) * 4,
    cache,
  }
}

/** The whole fit: the footprint, and per node the verdict. */
export function fitModel(input: FitInput): FitReport {
  if (!input.model.ok) return { computed: false, missing: [input.model.problem.message] }
  const shape = input.model.value.shape
  const first = input.nodes[0]
  const fp = footprintOf(input, shape, first)
  if (typeof fp === 'string') return { computed: false, missing: [fp] }
  const nodes = input.nodes.map((n) => nodeFit(fp, n, input, shape))
  return { computed: true, footprint: fp, nodes, sources: [input.model.value.source, input.weights?.source ?? ''].filter((s) => s !== '') }
}

const gib = formatGiB
const floor2 = (x: number): number => Math.floor(x * 100) / 100

function hostReserve(n: NodeMemory): { bytes: number; line: string } {
  if (!n.unified) return { bytes: 0, line: '' }
  const os = n.hostUsedBytes ?? OS_ALLOWANCE_BYTES
  const osWords =
    n.hostUsedBytes !== undefined
      ? `${gib(os)} the host uses now (MemTotal − MemAvailable)`
      : `${gib(os)} for the OS and services (an allowance: nothing measured)`
  return {
    bytes: os + VLLM_HOST_SIDE_BYTES,
    line: `host reserve ${gib(os + VLLM_HOST_SIDE_BYTES)} = ${osWords} + ${gib(VLLM_HOST_SIDE_BYTES)} for vLLM's host-side processes`,
  }
}

function nodeFit(fp: Footprint, n: NodeMemory, input: FitInput, shape: ModelShape): NodeFit {
  const util = input.args.gpuMemoryUtilization ?? 0.9
  const host = hostReserve(n)
  const byBytes = fp.kvCacheMemoryBytes !== undefined
  const claim = byBytes ? fp.weightsBytes + fp.kvCacheMemoryBytes! + fp.activationBytes : Math.floor(util * n.totalBytes)
  const kvBudget = byBytes ? fp.kvCacheMemoryBytes! : claim - fp.weightsBytes - fp.activationBytes
  const perSeq = fp.kvOneSequenceBytes
  const sequences = kvBudget > 0 ? Math.floor(kvBudget / perSeq) : 0
  const lines = [
    `weights ${gib(fp.weightsBytes)} per GPU (${fp.weightsHow})`,
    `KV cache ${gib(perSeq)} per sequence of ${fp.maxModelLen} tokens (${fp.maxModelLenFrom}; ${describeCache(fp)}); × max-num-seqs ${fp.maxNumSeqs} = ${gib(fp.kvAllSequencesBytes)}`,
    `activation/graph reserve ${gib(fp.activationBytes)} (an allowance of ${gib(ACTIVATION_ALLOWANCE_BYTES)} + the sampler's logits)`,
    byBytes
      ? `vLLM claims ${gib(claim)} = weights + --kv-cache-memory-bytes ${gib(fp.kvCacheMemoryBytes!)} + reserve`
      : `vLLM claims ${gib(claim)} = gpu-memory-utilization ${util} × ${gib(n.totalBytes)}; the KV cache gets ${gib(Math.max(0, kvBudget))} of it`,
    ...(host.line ? [host.line] : []),
    n.unified
      ? `${gib(claim)} + ${gib(host.bytes)} = ${gib(claim + host.bytes)} of ${gib(n.totalBytes)} unified memory (${n.source})`
      : `${gib(claim)} of ${gib(n.totalBytes)} on each GPU (${n.source})`,
    `the KV cache holds ${sequences} sequence${sequences === 1 ? '' : 's'} of ${fp.maxModelLen} tokens at once`,
  ]
  const findings = verdictFindings({ fp, n, input, shape, claim, kvBudget, host: host.bytes, sequences, lines, util })
  return {
    node: n.node,
    memory: n,
    fits: !findings.some((f) => f.severity === 'error'),
    claimBytes: claim,
    kvBudgetBytes: kvBudget,
    hostReserveBytes: host.bytes,
    sequencesAtMaxLen: sequences,
    lines,
    findings,
  }
}

function describeCache(fp: Footprint): string {
  const c = fp.cache.layerCounts
  const parts = [
    c.full ? `${c.full} full-attention layers` : '',
    c.sliding ? `${c.sliding} sliding-window layers` : '',
    c.mla ? `${c.mla} MLA layers` : '',
    c.linear ? `${c.linear} linear-attention layers (fixed state)` : '',
    c.mamba ? `${c.mamba} Mamba layers (fixed state)` : '',
  ].filter((p) => p !== '')
  return `${parts.join(', ')}; KV dtype ${fp.kvDtypeBytes} byte${fp.kvDtypeBytes === 1 ? '' : 's'}`
}

interface Verdict {
  readonly fp: Footprint
  readonly n: NodeMemory
  readonly input: FitInput
  readonly shape: ModelShape
  readonly claim: number
  readonly kvBudget: number
  readonly host: number
  readonly sequences: number
  readonly lines: readonly string[]
  readonly util: number
}

const evidenceOf = (v: Verdict): Record<string, string> => Object.fromEntries(v.lines.map((l, i) => [`${i + 1}`, l]))

/** The smallest TP (a multiple of the nodes' GPUs that the cluster has) whose weights share leaves room. */
function tpThatFits(v: Verdict): number | undefined {
  const gpus = v.input.nodes.reduce((s, n) => s + n.gpus, 0)
  for (let tp = v.input.tp + 1; tp * v.input.pp <= gpus; tp++) {
    const share = v.input.weights ? weightsShare(v.input.weights, v.shape.layers.length, tp, v.input.pp, v.input.args.mtp) : undefined
    if (share && share.bytes + v.fp.activationBytes + v.fp.kvOneSequenceBytes / (tp / v.input.tp) < v.claim) return tp
  }
  return undefined
}

function verdictFindings(v: Verdict): Finding[] {
  const { fp, n } = v
  const out: Finding[] = []
  const room = n.unified ? n.totalBytes - v.host : n.totalBytes
  if (v.claim > room) {
    const util = floor2(room / n.totalBytes)
    const kvBytes = Math.floor(room - fp.weightsBytes - fp.activationBytes)
    out.push({
      code: 'MODEL_DOES_NOT_FIT',
      severity: 'error',
      node: n.node,
      message: n.unified
        ? `${n.node}: vLLM would claim ${gib(v.claim)} of its ${gib(n.totalBytes)} unified memory and leave the host ${gib(n.totalBytes - v.claim)}, less than the ${gib(v.host)} it needs: the host wedges or resets instead of vLLM failing cleanly.`
        : `${n.node}: vLLM would claim ${gib(v.claim)} on a GPU of ${gib(n.totalBytes)}.`,
      evidence: evidenceOf(v),
      fix:
        kvBytes > fp.kvOneSequenceBytes
          ? `Size the KV cache in bytes: vllm.kvCacheMemoryBytes: ${kvBytes} (${gib(kvBytes)}), or lower --gpu-memory-utilization in vllm.args to ${util}.`
          : `The weights leave no room for a KV cache on ${n.node}: spread the model over more GPUs (tensorParallelSize/pipelineParallelSize) or serve a smaller quantisation.`,
    })
  }
  const usable = Math.min(v.kvBudget, room - fp.weightsBytes - fp.activationBytes)
  if (v.kvBudget < fp.kvOneSequenceBytes) out.push(shortKv(v, usable))
  else if (v.sequences < fp.maxNumSeqs && out.length === 0) {
    out.push({
      code: 'KV_CACHE_CONCURRENCY',
      severity: 'info',
      node: n.node,
      message: `${n.node}: the KV cache holds ${v.sequences} sequences of ${fp.maxModelLen} tokens at once, fewer than max-num-seqs ${fp.maxNumSeqs}: longer requests queue (vLLM preempts), shorter ones share.`,
      evidence: evidenceOf(v),
      fix: `Nothing to do if ${v.sequences} long requests at once are enough; else lower --max-model-len or use --kv-cache-dtype fp8 in vllm.args.`,
    })
  }
  return out
}

function shortKv(v: Verdict, usable: number): Finding {
  const { fp, n } = v
  const longest = usable > 0 ? longestFitting(fp.cache, usable, 1, fp.maxNumBatchedTokens, v.shape.slidingWindow, fp.maxModelLen) : 0
  const tp = tpThatFits(v)
  const proposals = [
    longest > 0 ? `lower --max-model-len in vllm.args to ${longest} (the longest that fits one sequence)` : '',
    tp !== undefined ? `raise tensorParallelSize to ${tp}` : '',
    usable <= 0 ? 'serve a smaller quantisation: the weights alone leave no room' : '',
  ].filter((p) => p !== '')
  return {
    code: 'MODEL_DOES_NOT_FIT',
    severity: 'error',
    node: n.node,
    message: `${n.node}: one sequence of ${fp.maxModelLen} tokens needs ${gib(fp.kvOneSequenceBytes)} of KV cache, and ${v.kvBudget > 0 ? `only ${gib(v.kvBudget)} is left for it` : 'nothing is left for it'} after ${gib(fp.weightsBytes)} of weights: vLLM refuses to start ("larger than the available KV cache memory").`,
    evidence: evidenceOf(v),
    fix: `${proposals.join('; or ')}.`,
  }
}

/** The report as text lines: the footprint per GPU, then per node the verdict and its arithmetic. */
export function fitTextLines(report: FitReport): string[] {
  if (!report.computed) return [`Fit before launch: not computed, missing ${report.missing.join('; ')}`]
  const fp = report.footprint
  const out = [
    `Fit before launch (${fp.model}; ${report.sources.join('; ')}):`,
    `  per GPU: weights ${gib(fp.weightsBytes)}, KV cache ${gib(fp.kvOneSequenceBytes)} per sequence of ${fp.maxModelLen} tokens (× max-num-seqs ${fp.maxNumSeqs} = ${gib(fp.kvAllSequencesBytes)}), activation/graph reserve ${gib(fp.activationBytes)}`,
  ]
  if (report.nodes.length === 0)
    out.push('  verdict: not given, nothing says what the nodes have (set fit.nodeMemory, or run preflight, which reads each node)')
  for (const n of report.nodes) {
    out.push(`  ${n.node}: ${n.fits ? 'fits' : 'DOES NOT FIT'}`)
    for (const l of n.lines) out.push(`    ${l}`)
  }
  return out
}
