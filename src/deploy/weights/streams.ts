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
  /** Workers whose fabric streams share one OpenSSH connection from the head (see `sharedFabric`). */
  readonly shareFabric: readonly string[]
}

/**
 * Bytes per fabric stream below which a worker's streams share one connection from the head. An
 * OpenSSH connection costs the head's ssh about 90 ms of CPU (sntrup761x25519 key exchange,
 * reading the key, signing) and the worker's sshd about 40 ms, and a new sshd per connection;
 * measured on the lab (test/bench/NOTES.md, row 7: 4 streams of 40 MB spent 0.6 s more CPU on the
 * head and 0.35 s more on the worker than one stream of the same bytes). One connection encrypts
 * on one core, so a stream big enough to repay its own connection (a 125 GB checkpoint over 8
 * streams: 16 GB each) keeps it: at about 1 GB/s per core for AES-GCM, a stream of 1 GB or more
 * spends over a second on its cipher, ten times the connection's cost.
 */
export const SHARE_FABRIC_BELOW_BYTES = 1e9

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
      shareFabric: [],
    }
  if (!relay) return { first: [], after: [], shareFabric: [] }
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
  return {
    first,
    after,
    shareFabric: sharedFabric(
      workers.map((w) => w.node),
      first,
      after,
    ),
  }
}

/**
 * The workers whose fabric streams in one wave (`first`: passed on by the head's receivers;
 * `after`: from the head's copy) are two or more and carry less than SHARE_FABRIC_BELOW_BYTES each
 * on average: for them the head opens one connection that every stream of the wave rides as a
 * channel of its own (OpenSSH's ControlMaster), as the runner's streams to a node share its one
 * SSH connection, instead of a connection per stream.
 */
export function sharedFabric(workers: readonly string[], first: readonly WeightsStream[], after: readonly WeightsStream[]): string[] {
  const bytes = (s: WeightsStream) => s.files.reduce((n, c) => n + toSend(c), 0)
  const shares = (wave: readonly WeightsStream[]) => wave.length >= 2 && wave.reduce((n, s) => n + bytes(s), 0) / wave.length < SHARE_FABRIC_BELOW_BYTES
  return workers.filter((w) => shares(first.filter((s) => s.forward.includes(w))) || shares(after.filter((s) => s.to === w)))
}

/**
 * Before the nodes are listed: the workers whose streams may share one fabric connection, so the
 * head can open it while the listing runs instead of after it, on the streams' critical path (it
 * took 0.2–0.35 s there: test/bench/NOTES.md, issue 40). Only the manifest decides it (relay, two
 * or more streams, a worker), and, where the reference is known before the listing (a runner
 * directory), not when even a cold copy's streams would carry SHARE_FABRIC_BELOW_BYTES each or
 * more. A guess: `settleShare` (src/deploy/weights/send.ts) closes what the plan does not use and
 * opens what it needs beyond it.
 */
export function mayShareFabric(m: Manifest, model: ModelSettings, referenceBytes?: number): string[] {
  const n = streamsOf(model)
  if (model.distribution !== 'relay' || n < 2) return []
  if (referenceBytes !== undefined && referenceBytes / n >= SHARE_FABRIC_BELOW_BYTES) return []
  return m.nodes.filter((x) => x.role !== 'head').map((x) => x.name)
}
