/**
 * What one delivery of the weights shares between its steps (src/deploy/weights/transfer.ts runs
 * them): the run's inputs, the findings so far, what each node held before and was sent, the bytes
 * moved; and the report and the stop built from them, and the listing of every node.
 */
import type { Cmd } from '../../command/shell.js'
import type { Manifest, ManifestNode, ModelSettings } from '../../manifest/schema.js'
import { headOf } from '../../plan/node-commands.js'
import { listWeights } from '../../plan/weights-commands.js'
import type { Finding } from '../../preflight/finding.js'
import { type Problem, type Result, fail, ok } from '../../result/result.js'
import { type RunResult, type Transport, outcome, succeeded } from '../../transport/transport.js'
import { type NodeListing, type NodeWeights, describeNode, parseListing } from './compare.js'
import { type WeightsManifest, totalBytes, weightsIdentity } from './weights-manifest.js'
import type { HubListing } from './hub-listing.js'
import { type WeightsSourceKind, sourceKind } from './weights-plan.js'

/** One step of a hub download on one node (src/deploy/weights/hub.ts plans them). */
export interface HubStep {
  readonly cmd: Cmd
  /** Bytes for stdin (the token, never in argv). */
  readonly stdin?: string
  readonly timeoutSeconds?: number
  readonly description?: string
  /** Run (with no signal) when the step did not end by itself: a cancel, a timeout, a lost connection. */
  readonly cleanup?: Cmd
  /**
   * Reads what the step printed: the hub's own listing of the revision (its digests, what this run
   * fetched), or the problem it reported. Absent: the step prints nothing to read.
   */
  readonly read?: (r: RunResult) => Result<HubListing>
  /** Removes downloaded files that are not the hub's, so the next deploy downloads them again. */
  readonly discard?: (paths: readonly string[]) => Cmd
}
/** Plans the download of model.source.hub into `dir` on `node`. */
export type HubPlanner = (m: Manifest, node: ManifestNode, dir: string, env: NodeJS.ProcessEnv) => readonly HubStep[]

export interface NodeWeightsReport {
  readonly node: string
  /** Before anything moved: `2 ok, 1 missing (...)`. */
  readonly before: string
  readonly bytesMoved: number
  readonly filesSent: number
  /** Files this node downloaded from the hub in this run (hub source). */
  readonly filesDownloaded: number
  /** Files it already held, verified and not moved or downloaded. */
  readonly filesSkipped: number
}

export interface WeightsReport {
  readonly source: WeightsSourceKind
  readonly distribution: ModelSettings['distribution']
  readonly path: string
  readonly identity?: string
  readonly files: number
  readonly totalBytes: number
  /** Bytes sent from the runner (its link), and from the head to workers (the fabric). */
  readonly bytesMoved: { readonly runner: number; readonly fabric: number }
  readonly filesSent: number
  /** Files downloaded from the hub in this run, over every node. */
  readonly filesDownloaded: number
  readonly filesSkipped: number
  readonly nodes: readonly NodeWeightsReport[]
  readonly durationMs: number
  /** A rollback's check against the target release's weights.json (src/deploy/weights/restore.ts). */
  readonly restore?: { readonly release: string; readonly action: 'verified' | 'redelivered' | 'refused'; readonly detail: string }
}

/** The weights every node now holds (their manifest), or the Problem that stopped the delivery; the report and findings either way. */
export type WeightsOutcome = Result<WeightsManifest> & {
  readonly report: WeightsReport
  readonly findings: Finding[]
}

export interface WeightsRun {
  readonly m: Manifest
  readonly transports: ReadonlyMap<string, Transport>
  readonly env: NodeJS.ProcessEnv
  readonly onProgress: (line: string) => void
  readonly signal?: AbortSignal
  /** Plans a hub download (absent: a hub source cannot be fetched by this build). */
  readonly hub?: HubPlanner
  /** The working directory a relative runner dir is read from. */
  readonly cwd?: string
}

export const mb = (n: number) => (n >= 1e9 ? `${(n / 1e9).toFixed(2)} GB` : n >= 1e5 ? `${(n / 1e6).toFixed(1)} MB` : `${n} bytes`)
export const rate = (n: number, ms: number) => (ms > 0 ? `${((n * 8) / (ms / 1000) / 1e6).toFixed(0)} Mbit/s` : '')
export const tail = (r: RunResult) => (r.stderr || r.stdout).trim().slice(-300) || '(no output)'

/** One delivery in progress: its inputs, and what the steps have found and moved so far. */
export interface Delivery {
  readonly run: WeightsRun
  readonly m: Manifest
  readonly model: ModelSettings
  readonly kind: WeightsSourceKind
  readonly head: ManifestNode
  readonly say: (line: string) => void
  readonly started: number
  readonly timeoutMs: number
  readonly sig: { readonly signal?: AbortSignal }
  readonly findings: Finding[]
  /** Per node, what was sent to it. */
  readonly sent: Map<string, { bytes: number; files: number }>
  /** Per node, its comparison with the reference before anything moved. */
  readonly befores: Map<string, NodeWeights>
  /** Bytes sent from the runner (its link), and from the head to workers (the fabric). */
  readonly moved: { runner: number; fabric: number }
  /** The transfers that failed, for the fix of a mismatch found afterwards. */
  readonly failures: string[]
  /** Per node that downloaded from the hub, the hub's listing (its digests) and what it fetched. */
  readonly hubListings: Map<string, HubListing>
  /** Per node that downloaded from the hub, the step that can remove files that are not the hub's. */
  readonly hubDiscard: Map<string, (paths: readonly string[]) => Cmd>
  /** Runner files hashed in this run (while sent, or because a node holds one of the same size), with their cache keys. */
  readonly runnerHashes: Map<string, { sha256: string; key: string }>
}

export function startDelivery(run: WeightsRun): Delivery {
  const { m } = run
  const model = m.model!
  return {
    run,
    m,
    model,
    kind: sourceKind(model),
    head: headOf(m),
    say: run.onProgress,
    started: Date.now(),
    timeoutMs: m.ssh.commandTimeoutSeconds * 1000,
    sig: run.signal ? { signal: run.signal } : {},
    findings: [],
    sent: new Map(),
    befores: new Map(),
    moved: { runner: 0, fabric: 0 },
    failures: [],
    hubListings: new Map(),
    hubDiscard: new Map(),
    runnerHashes: new Map(),
  }
}

export function weightsReport(d: Delivery, manifest?: WeightsManifest): WeightsReport {
  const files = manifest?.files.length ?? 0
  const nodes = d.m.nodes.map((n) => {
    const s = d.sent.get(n.name) ?? { bytes: 0, files: 0 }
    const b = d.befores.get(n.name)
    // A file the hub download just wrote counts as downloaded, not as one the node already held.
    const fetched = new Set(d.hubListings.get(n.name)?.fetched ?? [])
    const downloaded = manifest ? manifest.files.filter((f) => fetched.has(f.path)).length : fetched.size
    const okFiles = b?.checks.filter((c) => c.status === 'ok' && !fetched.has(c.file.path)).length ?? 0
    return {
      node: n.name,
      before: b ? describeNode(b) : '(not listed)',
      bytesMoved: s.bytes,
      filesSent: s.files,
      filesDownloaded: downloaded,
      filesSkipped: okFiles,
    }
  })
  return {
    source: d.kind,
    distribution: d.model.distribution,
    path: d.model.path,
    // A file not hashed yet (a runner source cut mid-send) leaves the run without an identity.
    ...(manifest?.files.every((f) => f.sha256) && { identity: weightsIdentity(manifest) }),
    files,
    totalBytes: manifest ? totalBytes(manifest.files) : 0,
    bytesMoved: { runner: d.moved.runner, fabric: d.moved.fabric },
    filesSent: nodes.reduce((n, x) => n + x.filesSent, 0),
    filesDownloaded: nodes.reduce((n, x) => n + x.filesDownloaded, 0),
    filesSkipped: nodes.reduce((n, x) => n + x.filesSkipped, 0),
    nodes,
    durationMs: Date.now() - d.started,
  }
}

export const stopWith = (d: Delivery, problem: Problem, manifest?: WeightsManifest): WeightsOutcome => ({
  ...fail(problem),
  report: weightsReport(d, manifest),
  findings: d.findings,
})

async function listNode(d: Delivery, n: ManifestNode): Promise<Result<NodeListing>> {
  const { model } = d
  const t = d.run.transports.get(n.name)
  if (!t) return fail({ code: 'NODE_UNREACHABLE', message: `no connection to ${n.name}`, evidence: {}, fix: `Make ${n.name} reachable over SSH.` })
  const r = await t.run(listWeights(model.path), { timeoutMs: d.timeoutMs, ...d.sig })
  if (!succeeded(r))
    return fail({
      code: 'WEIGHTS_LISTING_FAILED',
      message: `listing ${model.path} on ${n.name} failed (${outcome(r)})`,
      evidence: { Node: n.name, Output: tail(r) },
      fix: `Check that ${n.name} has sh, find, stat, sha256sum and df, and that ${model.path} is readable by the SSH user.`,
    })
  return parseListing(r.stdout, n.name)
}

/** Every node's listing of model.path, all at once; the first that fails stops it. */
export async function listAll(d: Delivery): Promise<Result<Map<string, NodeListing>>> {
  const out = new Map<string, NodeListing>()
  const rs = await Promise.all(d.m.nodes.map(async (n) => [n.name, await listNode(d, n)] as const))
  for (const [name, r] of rs) {
    if (!r.ok) return r
    out.set(name, r.value)
  }
  return ok(out)
}
