/**
 * The weights' bytes on the largest rank. Pure. Two ways, the better first:
 *
 * - Tensors read from the safetensors headers (the 8-byte length and the JSON header at the start
 *   of each file: name → dtype, shape, data_offsets): each tensor is placed the way vLLM places it.
 *   Decoder layer `N` goes to the pipeline stage `get_pp_indices` gives it
 *   (vllm/distributed/utils.py: layers split evenly, the remainder to the stages before the last);
 *   the embedding to the first stage, the final norm and `lm_head` to the last; a tensor of two or
 *   more dimensions is split over TP, a one-dimensional one (norms, biases, scales) is on every
 *   rank; `mtp.*` (the multi-token-prediction head) is loaded only with an MTP speculative config.
 * - Only the files' sizes (a weights listing, or the index's `total_size`): split evenly over
 *   TP × PP, and said so.
 */
import { type Problem, type Result, fail, ok } from '../../result/result.js'

export interface Tensor {
  readonly name: string
  readonly bytes: number
  readonly dims: number
}

export interface WeightsInput {
  /** Bytes of every weights file (`*.safetensors`), when known. */
  readonly fileBytes?: number
  /** Every tensor, when the headers were read. */
  readonly tensors?: readonly Tensor[]
  /** Where the figures come from, in words. */
  readonly source: string
}

export interface WeightsShare {
  readonly bytes: number
  readonly totalBytes: number
  /** How the share was worked out, in words. */
  readonly how: string
}

/** One safetensors header (the JSON after the 8-byte length) → its tensors. */
export function parseSafetensorsHeader(json: string, where: string): Result<Tensor[]> {
  let doc: unknown
  try {
    doc = JSON.parse(json)
  } catch (err) {
    return fail(headerProblem(where, `the header is not JSON (${(err as Error).message})`))
  }
  if (typeof doc !== 'object' || doc === null) return fail(headerProblem(where, 'the header is not an object'))
  const tensors: Tensor[] = []
  for (const [name, entry] of Object.entries(doc as Record<string, unknown>)) {
    if (name === '__metadata__') continue
    const e = entry as { shape?: unknown; data_offsets?: unknown }
    const offsets = e?.data_offsets
    if (!Array.isArray(offsets) || offsets.length !== 2 || !Array.isArray(e.shape))
      return fail(headerProblem(where, `tensor ${name} has no shape or data_offsets`))
    const [start, end] = offsets as [number, number]
    if (typeof start !== 'number' || typeof end !== 'number' || end < start) return fail(headerProblem(where, `tensor ${name} has bad data_offsets`))
    tensors.push({ name, bytes: end - start, dims: e.shape.length })
  }
  return ok(tensors)
}

const headerProblem = (where: string, why: string): Problem => ({
  code: 'MODEL_CONFIG_UNREADABLE',
  message: `${where}: ${why}`,
  evidence: { File: where },
  fix: `Check ${where}: a safetensors file starts with an 8-byte little-endian length and a JSON header.`,
})

/** The first and the end layer of each pipeline stage, as vLLM's get_pp_indices splits them. */
export function ppPartitions(layers: number, pp: number): number[] {
  const parts = Array.from({ length: pp }, () => Math.floor(layers / pp))
  const remaining = layers % pp
  for (let i = 2; i < remaining + 2; i++) parts[pp - i] = (parts[pp - i] ?? 0) + 1
  return parts
}

const LAYER = /(?:^|\.)layers\.(\d+)\./

function stageOf(name: string, layerStage: (layer: number) => number, last: number): number {
  const m = LAYER.exec(name)
  if (m) return layerStage(Number(m[1]))
  if (/(?:^|\.)lm_head\.|(?:^|\.)model\.norm\.|(?:^|\.)language_model\.norm\.|^norm\./.test(name)) return last
  return 0
}

const isMtp = (name: string): boolean => /(?:^|\.)mtp\./.test(name)

/** The largest rank's bytes, from the tensors: see the module comment. */
function shareOfTensors(tensors: readonly Tensor[], layers: number, tp: number, pp: number, mtp: boolean): WeightsShare {
  const parts = ppPartitions(layers, pp)
  const starts = parts.map((_, i) => parts.slice(0, i).reduce((a, b) => a + b, 0))
  const layerStage = (layer: number): number => {
    for (let s = pp - 1; s >= 0; s--) if (layer >= (starts[s] ?? 0)) return s
    return 0
  }
  const stages = Array.from({ length: pp }, () => 0)
  let skipped = 0
  for (const t of tensors) {
    if (isMtp(t.name) && !mtp) {
      skipped += t.bytes
      continue
    }
    const s = stageOf(t.name, layerStage, pp - 1)
    stages[s] = (stages[s] ?? 0) + (t.dims >= 2 ? t.bytes / tp : t.bytes)
  }
  const total = tensors.reduce((n, t) => n + t.bytes, 0)
  const bytes = Math.ceil(stages.reduce((a, b) => Math.max(a, b), 0))
  const mtpNote = skipped > 0 ? `; ${formatGiB(skipped)} of mtp.* tensors left out (no MTP speculative config)` : ''
  return {
    bytes,
    totalBytes: total,
    how: `${tensors.length} tensors from the safetensors headers, placed by layer over PP ${pp} and split over TP ${tp}${mtpNote}`,
  }
}

/** The largest rank's weights, or why they cannot be known. */
export function weightsShare(input: WeightsInput, layers: number, tp: number, pp: number, mtp: boolean): WeightsShare | undefined {
  if (input.tensors && input.tensors.length > 0) return shareOfTensors(input.tensors, layers, tp, pp, mtp)
  if (input.fileBytes === undefined) return undefined
  return {
    bytes: Math.ceil(input.fileBytes / (tp * pp)),
    totalBytes: input.fileBytes,
    how: `the files' ${formatGiB(input.fileBytes)} split evenly over TP ${tp} × PP ${pp} (${input.source}; no tensor headers read, so mtp.* and replicated tensors are not told apart)`,
  }
}

export const GIB = 1024 ** 3
export const formatGiB = (bytes: number): string => `${(bytes / GIB).toFixed(2)} GiB`
