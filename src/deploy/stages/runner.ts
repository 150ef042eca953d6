/**
 * The list runner: stages in order until one stops; then on-failure, once, for every stage (keep,
 * stop, or roll back by running the same start-up stages from the release `current` names); then
 * the report derived from the records, the audit line, the node table, and the lock released.
 */
import { headOf, removeContainer } from '../../plan/node-commands.js'
import { markReleaseFailed } from '../../plan/release-commands.js'
import { auditParts, writeAudit } from './audit.js'
import { type PlannedPart, type StagePlanInput, plannedLockHolder } from './plan-parts.js'
import { deployLockDir, removeLockIfCmd } from '../../plan/lock-commands.js'
import { MINUTE, stepOf } from '../../plan/plan.js'
import { releaseDeployLock } from '../deploy-lock.js'
import type { OnFailure, RolloutReport, RolloutStage } from '../rollout-types.js'
import { problem } from '../../result/result.js'
import { causeOfStop } from './stop-causes.js'
import { type AnyOutcome, type ListedStage, type RolloutContext, newContext } from './stage.js'
import type { Finding } from '../../preflight/finding.js'
import type { StepResult } from '../../execute/execute.js'
import { type Handled, type ListRun, type StageRecord, type Stopped, changedBy, deriveReport, nodeTable } from './derive-report.js'

/**
 * The stages in order until one stops. A cancel is looked at before every stage (no stage starts
 * once the rollout is cancelled, so a cancelled rollout never activates or prunes), and a stage that
 * stopped while the cancel was on is a cancel, whatever it stopped on (a request cut by the cancel
 * is not a failure of the release). Gates with only skipped stages between them run at once
 * (gatesAtOnce); each is recorded in the list's order, and the first of them that stopped stops the list.
 */
export async function runList(stages: readonly ListedStage[], ctx: RolloutContext): Promise<ListRun> {
  const records: StageRecord[] = []
  for (let i = 0; i < stages.length; i++) {
    const stage = stages[i]!
    if (stage.when && !stage.when(ctx)) {
      addSkipped(ctx, stage)
      continue
    }
    const { together, skipped } = gatesAtOnce(stages, i, ctx)
    for (const s of skipped) addSkipped(ctx, s)
    for (const s of together) needsPresent(ctx, s)
    if (ctx.io.cancelled) return { records, stopped: { stage: stage.name, by: stage, outcome: cancelledBefore(stage.name) } }
    const lost = ctx.heartbeat?.lost
    if (lost) {
      const outcome = lockLostBefore(ctx, stage.name, lost)
      record(ctx, outcome)
      return { records, stopped: { stage: stage.name, by: stage, outcome } }
    }
    const mark = ctx.io.nodeEvents.mark()
    const ran = await Promise.all(together.map((s) => (s.labelsItself ? s.run(ctx) : ctx.io.inStage(s.name, () => s.run(ctx)))))
    let stopped: ListRun['stopped']
    for (const [k, s] of together.entries()) {
      const outcome = await judged(ctx, ran[k]!, s, mark)
      record(ctx, outcome)
      records.push({ stage: s, outcome })
      if (outcome.next === 'stop') stopped ??= { stage: outcome.at ?? s.name, by: s, outcome }
    }
    if (stopped) return { records, stopped }
    const wrong = skipped.filter((s) => s.when?.(ctx))
    // bug: a stage skipped beside the gates would have run after them (its `when` reads what they added)
    if (wrong.length > 0) throw new Error(`bug: stage ${wrong.map((s) => s.name).join(', ')} was skipped beside gates whose outputs its when reads`)
    i += together.length - 1 + skipped.length
  }
  return { records }
}

/** A stage's outcome as the list records it: a stop during a cancel is a cancel; a stop's cause is looked for. */
const judged = (ctx: RolloutContext, ran: AnyOutcome, stage: ListedStage, mark: number): Promise<AnyOutcome> | AnyOutcome =>
  ran.next === 'stop' && ctx.io.cancelled && !ran.cancelled
    ? { ...ran, cancelled: true }
    : ran.next === 'stop' && !ran.cancelled && !ran.lockLost
      ? causeOfStop(ctx, ran, stage, mark)
      : ran

/**
 * The stage at `i` and the gates that may run beside it: while it is a gate, each next stage that
 * is skipped now (its `when` false) is passed over and each next gate that needs nothing the ones
 * before it add joins it (an unchanged release: preflight and smoke, the vllm stage between them
 * skipped). Only read-only gates run at once, so the order between them changes nothing on the
 * nodes. The skipped stages in between come back to be recorded as skipped.
 */
function gatesAtOnce(stages: readonly ListedStage[], i: number, ctx: RolloutContext): { together: ListedStage[]; skipped: ListedStage[] } {
  const together = [stages[i]!]
  const skipped: ListedStage[] = []
  if (!stages[i]!.gate) return { together, skipped }
  const between: ListedStage[] = []
  for (let j = i + 1; j < stages.length; j++) {
    const s = stages[j]!
    if (s.when && !s.when(ctx)) {
      between.push(s)
      continue
    }
    const added = new Set(together.flatMap((t) => t.adds))
    if (!s.gate || s.needs.some((k) => added.has(k))) break
    together.push(s)
    skipped.push(...between)
    between.length = 0
  }
  return { together, skipped }
}

/** The runner is the one writer of a rollout's record: a stage's outputs, findings and executed steps, as it returned them. */
function record(ctx: RolloutContext, outcome: AnyOutcome): void {
  Object.assign(ctx, outcome.adds ?? {})
  if (outcome.findings) (ctx.findings as Finding[]).push(...outcome.findings)
  if (outcome.executed) (ctx.executed as StepResult[]).push(...outcome.executed)
}

/** A skipped stage adds each of its outputs as undefined (its `when` is allowed only where they may be). */
function addSkipped(ctx: RolloutContext, stage: ListedStage): void {
  const none = Object.fromEntries(stage.adds.filter((k) => !(k in ctx)).map((k) => [k, undefined]))
  Object.assign(ctx, none)
}

/** A bug, not a user's error: the StageList type keeps a stage after what it needs; a list built around it is caught here. */
function needsPresent(ctx: RolloutContext, stage: ListedStage): void {
  const missing = stage.needs.filter((k) => !(k in ctx))
  // bug: the StageList type keeps every stage after what it needs; only a list built around it gets here
  if (missing.length > 0) throw new Error(`bug: stage ${stage.name} needs ${missing.join(', ')}, which no earlier stage added`)
}

const cancelledBefore = (stage: RolloutStage): Stopped =>
  ({
    next: 'stop',
    cancelled: true,
    problem: problem('CANCELLED', `cancelled (SIGINT/SIGTERM) before ${stage}`, 'Run the deploy again when it may go on.'),
  }) as const

/** The lock is gone: another rollout may be changing the nodes now, so this one stops before its next stage, with a finding. */
function lockLostBefore(ctx: RolloutContext, stage: RolloutStage, why: string): Stopped {
  const fix = `Look at what the other rollout did (lock status, the audit log on the nodes), then deploy again; raise deploy.lockTtlMinutes if the head could not be reached for that long.`
  const finding: Finding = {
    code: 'DEPLOY_LOCK_LOST',
    severity: 'error',
    node: headOf(ctx.m).name,
    message: `${why}; the rollout stopped before ${stage} and changed nothing more.`,
    evidence: { Stage: stage, Lock: `${ctx.m.cluster} on ${headOf(ctx.m).name}` },
    fix,
  }
  return { next: 'stop', lockLost: true, findings: [finding], problem: problem('DEPLOY_LOCK_LOST', `${why} (stopped before ${stage})`, fix) } as const
}

/** What a rollout does when a stage stops it: `none` for `rollback` itself (it reports, and changes nothing more). */
export type FailurePolicy = OnFailure | 'none'

export interface Rollout {
  readonly ctx: RolloutContext
  readonly stages: readonly ListedStage[]
  readonly onFailure: FailurePolicy
  /** The stages that start an existing release (on-failure rollback), from the states the deploy read. */
  readonly existing: readonly ListedStage[]
}

async function rollBack(r: Rollout, release: string): Promise<Handled> {
  const { ctx } = r
  const back = newContext(ctx.io, ctx.command, 'existing', {
    m: ctx.m,
    release,
    unchanged: false,
    states: ctx.states ?? new Map(),
    previousRelease: ctx.previousRelease,
    // The deploy's host checks (a rollback comes after stop-previous, so they ran); none: every fact is read again.
    hostFacts: ctx.hostFacts ?? { schemaVersion: 1, gatheredAt: new Date().toISOString(), cluster: ctx.m.cluster, nodes: [] },
  })
  const run = await ctx.io.inStage('rollback', () => runList(r.existing, back))
  const stopped = run.stopped
  return {
    action: 'rollback',
    ok: !stopped,
    release,
    detail: stopped
      ? `rollback to ${release} failed: ${stopped.stage}: ${stopped.outcome.problem.message}`
      : `rolled back: release ${release} started again from its files on the nodes and passed every gate${back.weights?.restore ? `; its weights: ${back.weights.restore.detail}` : ''}`,
    findings: back.findings,
    ...(back.facts && { facts: back.facts }),
  }
}

/**
 * A cancelled rollout: no on-failure action (no rollback, no activate). The containers of the
 * release it was starting are stopped when a stage that starts them had run (the rollout started
 * them and must not leave them behind); otherwise the running release was never touched.
 */
async function cleanUpCancel(ctx: RolloutContext, run: ListRun): Promise<Handled> {
  const at = run.stopped!.stage
  const prev = ctx.previousRelease
    ? `current still names ${ctx.previousRelease}`
    : ctx.current || ctx.states
      ? 'current still names (none)'
      : 'current was not read (the lock was not taken); it was not touched'
  if (!changedBy(run)) return { action: 'none', ok: true, detail: `cancelled at ${at}: nothing was changed on the nodes; ${prev}` }
  return ctx.io.inStage('on-failure', async (): Promise<Handled> => {
    const removed = await ctx.io.onAll(ctx.m, 'stop', removeContainer(ctx.m.container.name))
    return {
      action: 'stop',
      ok: removed.ok,
      detail: `cancelled at ${at}: ${removed.ok ? `stopped the containers of ${ctx.release} it had started` : `could not stop every container of ${ctx.release} it had started (${removed.detail})`}; ${prev}`,
    }
  })
}

/** on-failure, for whichever stage stopped the list. */
export async function handleFailure(r: Rollout, run: ListRun): Promise<Handled | undefined> {
  const { ctx } = r
  const stopped = run.stopped
  if (!stopped) return undefined
  // A cancel is handled for every command and stage: what it started is stopped; no on-failure action runs.
  if (stopped.outcome.cancelled) return cleanUpCancel(ctx, run)
  // Without the lock the nodes may be another rollout's now: no stop, no rollback, and the report says what was left.
  if (stopped.outcome.lockLost) {
    const left = changedBy(run) ? `the containers of ${ctx.release} it had started were left as they are` : 'nothing was changed on the nodes'
    return {
      action: 'none',
      // record: whether the on-failure action succeeded, in the report; not a failure value.
      ok: false,
      detail: `the deploy lock was lost before ${stopped.stage}: no on-failure action ran (another rollout may hold the cluster now); ${left}; current still names ${ctx.previousRelease ?? '(none)'}`,
    }
  }
  await ctx.o.onFailed?.(stopped.stage)
  if (r.onFailure === 'none' || stopped.by.final) return undefined
  const prev = ctx.previousRelease ?? '(none)'
  if (!changedBy(run)) return { action: 'none', ok: true, detail: stopped.by.untouched?.(ctx) ?? 'nothing was changed on the nodes' }
  ctx.io.progress(`release ${ctx.release} failed at ${stopped.stage}: ${stopped.outcome.problem.message}; on-failure: ${r.onFailure}`)
  return ctx.io.inStage('on-failure', async (): Promise<Handled> => {
    if (r.onFailure === 'keep')
      return { action: 'keep', ok: true, detail: `kept the failed release ${ctx.release}'s containers running for debugging; current still names ${prev}` }
    if (r.onFailure === 'rollback' && ctx.previousRelease && ctx.current) return rollBack(r, ctx.previousRelease)
    const removed = await ctx.io.onAll(ctx.m, 'stop', removeContainer(ctx.m.container.name))
    const why = r.onFailure === 'rollback' ? 'no earlier release to roll back to, so stopped the new containers instead' : 'stopped the new containers'
    return { action: 'stop', ok: removed.ok, detail: `${why}${removed.ok ? '' : ` (${removed.detail})`}; current still names ${prev}` }
  })
}

/**
 * A deploy that wrote its release's files and then stopped (failed or cancelled): the release is
 * marked as one that did not pass its gates, so it does not count toward deploy.releasesKept and a
 * rollback lists it as failed. Not after a lost lock (the nodes may be another rollout's).
 */
async function markFailedRelease(ctx: RolloutContext, run: ListRun): Promise<void> {
  if (ctx.command !== 'deploy' || !run.stopped || run.stopped.outcome.lockLost) return
  if (!run.records.some((x) => x.stage.name === 'release-files')) return
  const r = await ctx.io.onAll(ctx.m, 'on-failure', markReleaseFailed(ctx.m, ctx.release))
  if (!r.ok) ctx.io.progress(`release ${ctx.release} not marked as failed everywhere: ${r.detail}`)
}

/** The runner's own work after the stages, whatever happened: the audit line and the unlock. */
export const runnerAfterParts = ({ m, release }: StagePlanInput): PlannedPart[] => [
  ...auditParts(m),
  {
    name: 'unlock',
    description: `release the deploy lock on ${release.head}, if it still holds this deploy's record`,
    parallel: false,
    steps: [stepOf(m)(headOf(m), 'unlock', 'release the deploy lock', removeLockIfCmd(deployLockDir(m), plannedLockHolder(release.release)), MINUTE)],
  },
]

/**
 * Run a rollout's stages and report it; the lock a stage took is released whatever happens. After
 * the stages, the audit line is written and then the lock released while the node table is read
 * (both only append to or remove the lock's own files; the table reads the releases and containers).
 */
export async function runRollout(r: Rollout): Promise<RolloutReport> {
  const { ctx } = r
  const m = ctx.o.manifest
  let unlocked: Promise<void> | undefined
  const unlock = (): Promise<void> =>
    (unlocked ??= (async () => {
      await ctx.heartbeat?.stop()
      if (!ctx.lock) return
      const released = await releaseDeployLock(ctx.o.transports.get(headOf(m).name)!, m, ctx.lock.token, ctx.heartbeat?.holder ?? ctx.lock)
      ctx.io.progress(released.message)
      if (released.released) ctx.o.onLock?.(undefined)
    })())
  try {
    const run = await runList(r.stages, ctx)
    const handled = await handleFailure(r, run)
    await markFailedRelease(ctx, run)
    const core = deriveReport(ctx, run, handled)
    // An unchanged release changed nothing since the state stage read every node: its table is that read.
    const known = core.result === 'unchanged' ? ctx.states : undefined
    const [, nodes] = await Promise.all([
      (async () => {
        if (ctx.lock) await writeAudit(ctx, m, core)
        await unlock()
      })(),
      ctx.io.inStage('report', () => nodeTable(ctx, core.afterRollback?.facts ?? core.facts, known)),
    ])
    return { ...core, nodes, durationMs: Date.now() - ctx.io.started }
  } finally {
    await unlock()
  }
}
