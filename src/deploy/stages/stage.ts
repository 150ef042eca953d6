/**
 * A stage of the rollout and what the stages share. A stage reads the outputs it needs, and returns
 * `continue` with the outputs it adds or `stop(problem)`, with its findings; the list runner
 * (runner.ts) runs them in order, is the one writer of the rollout's record, handles on-failure once,
 * and the report is derived from what they left (report.ts).
 */
import type { Cmd } from '../../command/shell.js'
import type { StepResult } from '../../execute/execute.js'
import type { Manifest } from '../../manifest/schema.js'
import type { CollectiveFacts, FactsBundle } from '../../preflight/facts.js'
import type { Finding } from '../../preflight/finding.js'
import type { ImageContents } from '../../probe/image-contents-probe.js'
import type { Problem } from '../../result/result.js'
import { outcome, succeeded } from '../../transport/transport.js'
import { NodeEvents } from '../node-events.js'
import type { PlannedPart, StagePlanInput } from './plan-parts.js'
import type { LockHeartbeat, LockHolder } from '../deploy-lock.js'
import { StageProgress } from '../progress.js'
import type { NodeState } from '../node-state.js'
import type { FabricTestReport, RolloutOptions, RolloutReport, RolloutStage } from '../rollout-types.js'
import type { SmokeGateResult } from '../smoke-seam.js'
import type { PerformanceComparison } from '../../smoke/performance.js'
import type { WeightsReport } from '../weights/transfer.js'

/**
 * What the stages of a rollout add to it, by name. Each stage declares the outputs it reads
 * (`needs`) and the ones it adds (`adds`); it sees only what it needs, returns what it adds, and
 * the runner alone writes the record (runner.ts). A stage list is built with `StageList`, whose type
 * grows with each stage's outputs: a stage placed before the stage that adds what it needs does not
 * compile (test/deploy/stage-order.typecheck.ts).
 */
export interface StageOutputs {
  /** The manifest the release runs with: the effective one, or an existing release's own snapshot. */
  readonly m: Manifest
  readonly release: string
  /** The running release already is this content: nothing is restarted, only the gates run. */
  readonly unchanged: boolean
  readonly lock: LockHolder
  /** Renews the lock while it is held (lock.ts); stopped before the lock is released. */
  readonly heartbeat: LockHeartbeat
  readonly states: ReadonlyMap<string, NodeState>
  /** The state every node's `current` agrees on. */
  readonly current: NodeState | undefined
  /** The release `current` named before this rollout. */
  readonly previousRelease: string | undefined
  /** The host checks' facts (before anything changed). */
  readonly hostFacts: FactsBundle
  /** An existing release: the image ID its files name (a new release expects none). */
  readonly expectImageId: string | undefined
  readonly imageId: string
  readonly image: NonNullable<RolloutReport['image']>
  /** What the release's image holds (the image-contents stage), when the probe could read it. */
  readonly imageContents: ImageContents | undefined
  /** What the weights stage moved and verified (with `model:`). */
  readonly weights: WeightsReport | undefined
  /** The weights manifest every node was verified against, for the fingerprint and weights.json. */
  readonly weightsManifest: { readonly identity: string; readonly text: string } | undefined
  readonly fingerprint: string
  /** The release's files for one node, as the writer reads them (a new release; an existing one's are verified, not written). */
  readonly releaseFilesFor: ((release: string, node: string) => string) | undefined
  /** The fabric collective (the fabric-test stage). */
  readonly collective: CollectiveFacts | undefined
  /** The fabric test's result for the report (the fabric-test stage). */
  readonly fabricTest: FabricTestReport | undefined
  readonly facts: FactsBundle
  readonly smoke: SmokeGateResult
  /** This release's smoke figures against the running release's (a new release whose smoke passed, when both have figures). */
  readonly performance: PerformanceComparison | undefined
}

export type OutputKey = keyof StageOutputs

/** The outputs every rollout starts with. */
export type StartKey = 'm' | 'release' | 'unchanged'

/** What every stage sees besides its outputs: the options, the io, what kind of rollout this is. */
export interface RolloutBase {
  readonly o: RolloutOptions
  readonly io: RolloutIo
  readonly command: 'deploy' | 'rollback'
  /** `new`: the release comes from this machine's manifest; `existing`: from its own files on the nodes. */
  readonly source: 'new' | 'existing'
}

/** What a stage sees: the rollout and exactly the outputs it declared it needs. */
export type StageInput<N extends OutputKey> = RolloutBase & Pick<StageOutputs, N>

/**
 * The whole record, for the runner and the report: any output may be missing (the list may have
 * stopped early). Written by the runner only; the findings and the executed steps are append-only.
 */
export type RolloutContext = RolloutBase &
  Pick<StageOutputs, StartKey> &
  Partial<StageOutputs> & {
    /** Every finding the stages returned, in order. */
    readonly findings: readonly Finding[]
    /** Every plan step the stages ran through the executor, in order. */
    readonly executed: readonly StepResult[]
  }

/** What every outcome may carry besides its outputs: findings and the plan steps it ran. */
interface Reported {
  readonly findings?: readonly Finding[]
  readonly executed?: readonly StepResult[]
}

/** A stop, with what the stage did add before it stopped. */
export type StageStop<A extends OutputKey = never> = {
  readonly next: 'stop'
  readonly problem: Problem
  /** What it did add before it stopped, for the report (the image's bytes, the lock, the weights). */
  readonly adds?: Partial<Pick<StageOutputs, A>>
  /** The stage to name in the report, when not the stage's own name (a phase of the launch). */
  readonly at?: RolloutStage
  readonly cancelled?: boolean
  /** The deploy lock was lost (broken, taken, or not renewable): nothing more may change the nodes. */
  readonly lockLost?: boolean
} & Reported

export type StageOutcome<A extends OutputKey = never> = ({ readonly next: 'continue'; readonly adds: Pick<StageOutputs, A> } & Reported) | StageStop<A>

/** A stage's outcome as the runner holds it (its outputs by name, whatever they are). */
export type AnyOutcome = ({ readonly next: 'continue'; readonly adds: Partial<StageOutputs> } & Reported) | StageStop<OutputKey>

/** Go on, adding these outputs (none: `proceed()`), with these findings. */
export function proceed(): StageOutcome<never>
export function proceed<A extends OutputKey>(adds: Pick<StageOutputs, A>, more?: Reported): StageOutcome<A>
export function proceed<A extends OutputKey>(adds?: Pick<StageOutputs, A>, more: Reported = {}): StageOutcome<A> {
  return { next: 'continue', adds: adds ?? ({} as Pick<StageOutputs, A>), ...more }
}

export const stop = <A extends OutputKey = never>(
  problem: Problem,
  opts: { at?: RolloutStage; cancelled?: boolean; adds?: Partial<Pick<StageOutputs, A>> } & Reported = {},
): StageStop<A> => ({ next: 'stop', problem, ...opts })

/** A `when` only for stages whose outputs may be undefined: a skipped stage adds each as undefined. */
type WhenAllowed<A extends OutputKey, F> = [A] extends [never] ? F : undefined extends StageOutputs[A] ? F : never

export interface Stage<N extends OutputKey = never, A extends OutputKey = never> {
  readonly name: RolloutStage
  /** The outputs of earlier stages it reads. */
  readonly needs: readonly N[]
  /** The outputs it adds when it goes on. */
  readonly adds: readonly A[]
  /** It changes the nodes' containers: once it has started, a stop is on-failure's to handle. */
  readonly changes?: boolean
  /** Every gate has passed when it runs: a stop here leaves the release as it is (no on-failure). */
  readonly final?: boolean
  /** It reports its own parts' start and end (the executor's phases, two reads at once). */
  readonly labelsItself?: boolean
  /**
   * A gate on the running cluster: it changes nothing a later stage reads on the nodes. Two gates
   * with only skipped stages between them (an unchanged release: preflight, then smoke without the
   * vllm stage) run at once when the second needs nothing the first adds (runner.ts).
   */
  readonly gate?: boolean
  /** It runs only when this holds (default: always); skipped, it adds each of its outputs as undefined. */
  readonly when?: WhenAllowed<A, (ctx: StageInput<N>) => boolean>
  /**
   * What it will run, for `plan`: its parts with their exact commands, from the same manifest its
   * run reads (none: it runs nothing on the nodes). `plan` renders the stage list with these.
   */
  readonly plan?: (p: StagePlanInput) => readonly PlannedPart[]
  /** What the report says when it stops before anything changed. */
  readonly untouched?: (ctx: StageInput<N>) => string
  readonly run: (ctx: StageInput<N>) => Promise<StageOutcome<A>>
}

/** A stage as a list holds it at run time, its types erased (the StageList checked the order). */
export interface ListedStage {
  readonly name: RolloutStage
  readonly needs: readonly OutputKey[]
  readonly adds: readonly OutputKey[]
  readonly changes?: boolean
  readonly final?: boolean
  readonly labelsItself?: boolean
  readonly gate?: boolean
  when?(ctx: RolloutContext): boolean
  readonly plan?: (p: StagePlanInput) => readonly PlannedPart[]
  untouched?(ctx: RolloutContext): string
  run(ctx: RolloutContext): Promise<AnyOutcome>
}

/**
 * Stages in order, typed by the outputs the rollout has after them (`Have`) and the ones its first
 * stage may read (`Start`): `add` takes only a stage whose needs are in `Have`, so a stage placed
 * before the one that adds what it reads is a compile error.
 */
export class StageList<Start extends OutputKey, Have extends OutputKey> {
  /** Type only: the outputs the list's context must hold before its first stage. */
  declare readonly startsWith: Start
  private constructor(readonly stages: readonly ListedStage[]) {}

  /** An empty list whose context starts with these outputs. */
  static startingWith<S extends OutputKey>(): StageList<S, S> {
    return new StageList<S, S>([])
  }

  add<N extends Have, A extends OutputKey>(stage: Stage<N, A>): StageList<Start, Have | A> {
    // Erased for the runner, which looks that every need is there before the stage runs (runner.ts).
    return new StageList<Start, Have | A>([...this.stages, stage as unknown as ListedStage])
  }

  /** This list, then another whose start this one's outputs cover. */
  concat<S extends Have, H extends OutputKey>(rest: StageList<S, H>): StageList<Start, Have | H> {
    return new StageList<Start, Have | H>([...this.stages, ...rest.stages])
  }
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

/** A rollout's record before its first stage: the base, and the outputs its list starts with. */
export function newContext<S extends OutputKey>(
  io: RolloutIo,
  command: RolloutBase['command'],
  source: RolloutBase['source'],
  start: Pick<StageOutputs, S | StartKey>,
): RolloutContext {
  return { o: io.o, io, command, source, ...start, findings: [], executed: [] }
}

/** `CODE, CODE` of the error findings, for a stop's one-line reason. */
export const errorCodes = (findings: readonly Finding[]): string => [...new Set(findings.filter((f) => f.severity === 'error').map((f) => f.code))].join(', ')

export const hasError = (findings: readonly Finding[]): boolean => findings.some((f) => f.severity === 'error')

/** One progress line per finding. */
export const sayFindings = (io: RolloutIo, findings: readonly Finding[]): void => {
  for (const f of findings) io.progress(`${f.severity} ${f.code}${f.node ? ` on ${f.node}` : ''}: ${f.message}`)
}
