/**
 * Which streams the weights stage opens (pure): every node's missing files spread over
 * `model.streams` streams of about equal bytes, each stream one command on the node that receives
 * it (src/plan/weights-commands.ts `receiveWeightsStream`), so a node costs one exec per stream,
 * never one per file. With `relay` a runner stream to the head is passed on to every worker that
 * lacks exactly the same files from the same offsets (the cold case) as it arrives; what a worker
 * lacks beyond that comes from the head's copy afterwards.
 */
import type { Manifest, ModelSettings } from '../../manifest/schema.js'
import type { FileCheck, NodeWeights } from './compare.js'
import type { WeightsSourceKind } from './weights-plan.js'

export interface WeightsStream {
  /** The node that receives it. */
  readonly to: string
  readonly from: 'runner' | 'head'
  readonly files: readonly FileCheck[]
  /** Workers that receive the same stream through `to` (the head) as it arrives. */
  readonly forward: readonly string[]
}

export interface StreamPlan {
  /** Run at once. */
  readonly first: readonly WeightsStream[]
  /** Run at once after `first` (from the head's now complete copy). */
  readonly after: readonly WeightsStream[]
}

/**
 * Streams per node when the manifest does not say (model.streams): one, from the measurement on
 * the 2-core lab (test/bench/NOTES.md row 7), where a second stream raised the raw link by 0–14%
 * and made the stage slower; nodes with cores to spare set more.
 */
export const DEFAULT_WEIGHTS_STREAMS = 1
export const streamsOf = (model: ModelSettings): number => model.streams ?? DEFAULT_WEIGHTS_STREAMS

const toSend = (c: FileCheck) => c.file.size - c.resumeFrom

/**
 * `files` in at most `n` groups of about equal bytes to send (largest first into the lightest
 * group); no empty group; each group in the files' own order. A stream costs an exec and, passed
 * on, an SSH connection of its own: only a file of at least 1/(4n) of the bytes opens one (a
 * config.json rides along with a shard).
 */
export function spreadFiles(files: readonly FileCheck[], n: number): FileCheck[][] {
  const total = files.reduce((b, f) => b + toSend(f), 0)
  const big = files.filter((f) => toSend(f) * 4 * n >= total).length
  const k = Math.max(1, Math.min(Math.floor(n), big))
  const groups = Array.from({ length: k }, () => ({ bytes: 0, files: [] as FileCheck[] }))
  const order = new Map(files.map((f, i) => [f, i]))
  for (const f of [...files].sort((a, b) => toSend(b) - toSend(a))) {
    const g = groups.reduce((a, b) => (b.bytes < a.bytes ? b : a))
    g.bytes += toSend(f)
    g.files.push(f)
  }
  return groups.filter((g) => g.files.length > 0).map((g) => g.files.sort((a, b) => order.get(a)! - order.get(b)!))
}

/** The worker lacks exactly this group's files, from the same offsets: the head's stream can be passed on to it. */
const sameNeed = (group: readonly FileCheck[], w: NodeWeights): boolean =>
  group.every((c) => w.bad.some((b) => b.file.path === c.file.path && b.resumeFrom === c.resumeFrom))

export function planStreams(
  m: Manifest,
  kind: WeightsSourceKind,
  distribution: ModelSettings['distribution'],
  nodes: ReadonlyMap<string, NodeWeights>,
  streams: number,
): StreamPlan {
  const head = m.nodes.find((n) => n.role === 'head')!.name
  const workers = m.nodes.filter((n) => n.name !== head && nodes.has(n.name)).map((n) => nodes.get(n.name)!)
  const relay = distribution === 'relay'
  if (kind === 'runner' && !relay)
    return {
      first: m.nodes.flatMap((n) =>
        spreadFiles(nodes.get(n.name)?.bad ?? [], streams).map((files) => ({ to: n.name, from: 'runner' as const, files, forward: [] })),
      ),
      after: [],
    }
  if (!relay) return { first: [], after: [] }
  const first: WeightsStream[] =
    kind === 'runner'
      ? spreadFiles(nodes.get(head)?.bad ?? [], streams).map((files) => ({
          to: head,
          from: 'runner',
          files,
          forward: workers.filter((w) => sameNeed(files, w)).map((w) => w.node),
        }))
      : []
  const after = workers.flatMap((w) => {
    const passed = new Set(first.filter((s) => s.forward.includes(w.node)).flatMap((s) => s.files.map((c) => c.file.path)))
    const rest = w.bad.filter((c) => !passed.has(c.file.path))
    return spreadFiles(rest, streams).map((files) => ({ to: w.node, from: 'head' as const, files, forward: [] }))
  })
  return { first, after }
}
