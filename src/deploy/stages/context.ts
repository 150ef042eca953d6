/**
 * A stage of the rollout and what the stages share. A stage reads and adds to the context, and says
 * `continue` or `stop(problem)`; the list runner (runner.ts) runs them in order, handles on-failure
 * once, and the report is derived from what they left (report.ts).
 */
import type { Cmd } from '../../command/shell.js'
import type { StepResult } from '../../execute/execute.js'
import type { Manifest } from '../../manifest/schema.js'
import type { CollectiveFacts, FactsBundle } from '../../preflight/facts.js'
import type { Finding } from '../../preflight/finding.js'
import type { Plan } from '../../plan/plan.js'
import type { ImageContents } from '../../probe/image-contents.js'
import type { Problem } from '../../result/result.js'
import { outcome, succeeded } from '../../transport/transport.js'
import { NodeEvents } from '../node-events.js'
import type { PlannedPart, StagePlanInput } from './plan-parts.js'
import type { LockHeartbeat, LockHolder } from '../lock.js'
import { StageProgress } from '../progress.js'
import type { NodeState } from '../node-state.js'
import type { FabricTestReport, RolloutOptions, RolloutReport, RolloutStage } from '../rollout-types.js'
import type { SmokeGateResult } from '../smoke-seam.js'
import type { WeightsReport } from '../weights/transfer.js'

export type StageOutcome =
  | { readonly next: 'continue' }
  | {
      readonly next: 'stop'
      readonly problem: Problem
      /** The stage to name in the report, when not the stage's own name (a phase of the launch). */
      readonly at?: RolloutStage
      readonly cancelled?: boolean
      /** The deploy lock was lost (broken, taken, or not renewable): nothing more may change the nodes. */
      readonly lockLost?: boolean
    }

export const proceed: StageOutcome = { next: 'continue' }
export const stop = (problem: Problem, opts: { at?: RolloutStage; cancelled?: boolean } = {}): StageOutcome => ({ next: 'stop', problem, ...opts })

export interface Stage {
  readonly name: RolloutStage
  /** It changes the nodes' containers: once it has started, a stop is on-failure's to handle. */
  readonly changes?: boolean
  /** Every gate has passed when it runs: a stop here leaves the release as it is (no on-failure). */
  readonly final?: boolean
  /** It reports its own parts' start and end (the executor's phases, two reads at once). */
  readonly labelsItself?: boolean
  /** It runs only when this holds (default: always). */
  readonly when?: (ctx: RolloutContext) => boolean
  /**
   * What it will run, for `plan`: its parts with their exact commands, from the same manifest its
   * run reads (none: it runs nothing on the nodes). `plan` renders the stage list with these.
   */
  readonly plan?: (p: StagePlanInput) => readonly PlannedPart[]
  /** What the report says when it stops before anything changed. */
  readonly untouched?: (ctx: RolloutContext) => string
  run(ctx: RolloutContext): Promise<StageOutcome>
}

/** Progress lines, stage labels and commands on every node, for the stages of one rollout. */
export class RolloutIo {
  /** Progress lines, each labelled once with the stage of the call chain it comes from (progress.ts). */
  private readonly labels: StageProgress<RolloutStage>
  readonly started: number
  /** The rollout's options, its transports watched for lost connections and failed writes (node-events.ts). */
  readonly o: RolloutOptions
  readonly nodeEvents: NodeEvents
  constructor(o: RolloutOptions) {
    this.nodeEvents = new NodeEvents(o.transports)
    this.o = { ...o, transports: this.nodeEvents.transports }
    this.labels = new StageProgress<RolloutStage>(o.onProgress, 'lock')
    this.started = this.labels.started
  }

  progress = (m: string): void => this.labels.progress(m)

  /** A progress line labelled with `stage` (two stages that run at once each keep their own label). */
  say(stage: RolloutStage, m: string): void {
    this.labels.say(stage, m)
  }

  /** A phase the executor entered: it labels the rest of the caller's stage. */
  setLabel(stage: RolloutStage): void {
    this.labels.entered(stage)
  }

  async inStage<T>(stage: RolloutStage, fn: () => Promise<T>): Promise<T> {
    this.o.onStage?.(stage, 'start')
    try {
      return await this.labels.within(stage, fn)
    } finally {
      this.o.onStage?.(stage, 'end')
    }
  }

  get cancelled(): boolean {
    return this.o.signal?.aborted ?? false
  }

  /** One command on every node of `m`; its output as progress, the failures in words. */
  async onAll(m: Manifest, what: string, cmd: Cmd, stdin?: string): Promise<{ ok: boolean; detail: string }> {
    const rs = await Promise.all(
      m.nodes.map(async (n) => {
        const t = this.o.transports.get(n.name)
        if (!t) return `${n.name}: no connection`
        const r = await t.run(cmd, { timeoutMs: 120_000, ...(stdin !== undefined && { stdin }) })
        if (succeeded(r)) {
          if (r.stdout.trim()) this.progress(`[${n.name}] ${what}: ${r.stdout.trim().split('\n').join('; ')}`)
          return undefined
        }
        return `${n.name}: ${what} ${outcome(r)} ${r.stderr.trim().slice(-200)}`
      }),
    )
    const bad = rs.filter((x): x is string => !!x)
    return { ok: bad.length === 0, detail: bad.join('; ') }
  }
}

/** What the stages of one rollout share. */
export interface RolloutContext {
  readonly o: RolloutOptions
  readonly io: RolloutIo
  readonly command: 'deploy' | 'rollback'
  /** `new`: the release comes from this machine's manifest; `existing`: from its own files on the nodes. */
  readonly source: 'new' | 'existing'
  /** The manifest the release runs with: the effective one, or an existing release's own snapshot. */
  m: Manifest
  release: string
  states?: ReadonlyMap<string, NodeState>
  /** The state every node's `current` agrees on. */
  current?: NodeState
  /** The release `current` named before this rollout. */
  previousRelease?: string
  /** An existing release: the image ID its files name. */
  expectImageId?: string
  imageId?: string
  image?: RolloutReport['image']
  /** What the release's image holds (the image-contents stage). */
  imageContents?: ImageContents
  /** What the weights stage moved and verified (with `model:`). */
  weights?: WeightsReport
  /** The weights manifest every node was verified against, for the fingerprint and weights.json. */
  weightsManifest?: { readonly identity: string; readonly text: string }
  fingerprint?: string
  /** The release's files for one node, as the writer reads them (a new release). */
  releaseFilesFor?: (release: string, node: string) => string
  /** The running release already is this content: nothing is restarted, only the gates run. */
  unchanged: boolean
  plan?: Plan
  readonly findings: Finding[]
  /** Every plan step the stages ran through the executor, in order. */
  readonly executed: StepResult[]
  facts?: FactsBundle
  /** The host checks' facts (before anything changed). */
  hostFacts?: FactsBundle
  /** The fabric collective (the fabric-test stage). */
  collective?: CollectiveFacts
  /** The fabric test's result for the report (the fabric-test stage). */
  fabricTest?: FabricTestReport
  smoke?: SmokeGateResult
  lock?: LockHolder
  /** Renews the lock while it is held (lock.ts); stopped before the lock is released. */
  heartbeat?: LockHeartbeat
}

export function newContext(io: RolloutIo, command: RolloutContext['command'], source: RolloutContext['source'], m: Manifest, release: string): RolloutContext {
  return { o: io.o, io, command, source, m, release, unchanged: false, findings: [], executed: [] }
}

/** `CODE, CODE` of the error findings, for a stop's one-line reason. */
export const errorCodes = (findings: readonly Finding[]): string => [...new Set(findings.filter((f) => f.severity === 'error').map((f) => f.code))].join(', ')

export const hasError = (findings: readonly Finding[]): boolean => findings.some((f) => f.severity === 'error')

/** One progress line per finding. */
export const sayFindings = (io: RolloutIo, findings: readonly Finding[]): void => {
  for (const f of findings) io.progress(`${f.severity} ${f.code}${f.node ? ` on ${f.node}` : ''}: ${f.message}`)
}
