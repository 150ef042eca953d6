/**
 * The list runner: stages in order until one stops; then on-failure, once, for every stage (keep,
 * stop, or roll back by running the same start-up stages from the release `current` names); then
 * the report derived from the records, the audit line, the node table, and the lock released.
 */
import type { Manifest } from '../../manifest/schema.js'
import { headOf, removeContainer } from '../../plan/node-commands.js'
import { appendAudit } from '../../plan/release-commands.js'
import { releaseDeployLock } from '../lock.js'
import type { OnFailure, RolloutReport } from '../rollout-types.js'
import { type RolloutContext, type Stage, newContext } from './context.js'
import { type Handled, type ListRun, type ReportCore, type StageRecord, changedBy, deriveReport, nodeTable } from './report.js'

export async function runList(stages: readonly Stage[], ctx: RolloutContext): Promise<ListRun> {
  const records: StageRecord[] = []
  for (const stage of stages) {
    if (stage.when && !stage.when(ctx)) continue
    const outcome = stage.labelsItself ? await stage.run(ctx) : await ctx.io.inStage(stage.name, () => stage.run(ctx))
    records.push({ stage, outcome })
    if (outcome.next === 'stop') return { records, stopped: { stage: outcome.at ?? stage.name, by: stage, outcome } }
  }
  return { records }
}

/** What a rollout does when a stage stops it: `none` for `rollback` itself (it reports, and changes nothing more). */
export type FailurePolicy = OnFailure | 'none'

export interface Rollout {
  readonly ctx: RolloutContext
  readonly stages: readonly Stage[]
  readonly onFailure: FailurePolicy
  /** The stages that start an existing release (on-failure rollback). */
  readonly existing: readonly Stage[]
}

async function rollBack(r: Rollout, release: string): Promise<Handled> {
  const { ctx } = r
  const back = newContext(ctx.o, ctx.io, ctx.command, 'existing', ctx.m, release)
  back.states = ctx.states
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

/** on-failure, for whichever stage stopped the list. */
export async function handleFailure(r: Rollout, run: ListRun): Promise<Handled | undefined> {
  const { ctx } = r
  const stopped = run.stopped
  if (!stopped || r.onFailure === 'none' || stopped.by.final) return undefined
  const prev = ctx.previousRelease ?? '(none)'
  if (stopped.outcome.cancelled) return { action: 'none', ok: true, detail: `cancelled: stopped at ${stopped.stage}; current still names ${prev}` }
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

async function audit(ctx: RolloutContext, m: Manifest, rep: ReportCore): Promise<void> {
  const { o, io } = ctx
  await io.inStage('audit', async () => {
    const entry = {
      command: rep.command,
      release: rep.release,
      imageId: rep.imageId ?? null,
      ...(rep.command === 'deploy' && { fingerprint: rep.fingerprint ?? null }),
      result: rep.result,
      rolledBack: rep.rolledBack,
      previous: rep.previousRelease ?? null,
      ...(rep.failure && { failedAt: rep.failure.stage }),
      ...(rep.imageContents && {
        imageContents: {
          vllm: rep.imageContents.vllm.version,
          ray: rep.imageContents.ray.module ? rep.imageContents.ray.version : null,
          torch: rep.imageContents.torch.version,
          nccl: rep.imageContents.torch.nccl,
          python: rep.imageContents.python,
        },
      }),
    }
    const line = `${JSON.stringify({ at: new Date().toISOString(), who: o.who, ...(o.run && { run: o.run }), cluster: m.cluster, ...entry })}\n`
    const r = await io.onAll(m, 'audit', appendAudit(m), line)
    io.progress(r.ok ? 'one line appended to audit.jsonl on every node' : `audit not written everywhere: ${r.detail}`)
  })
}

/** Run a rollout's stages and report it; the lock a stage took is released whatever happens. */
export async function runRollout(r: Rollout): Promise<RolloutReport> {
  const { ctx } = r
  const m = ctx.o.manifest
  try {
    const run = await runList(r.stages, ctx)
    const handled = await handleFailure(r, run)
    const core = deriveReport(ctx, run, handled)
    if (ctx.lock) await audit(ctx, m, core)
    const nodes = await ctx.io.inStage('report', () => nodeTable(ctx, core.afterRollback?.facts ?? core.facts))
    return { ...core, nodes, durationMs: Date.now() - ctx.io.started }
  } finally {
    await ctx.heartbeat?.stop()
    if (ctx.lock) {
      const released = await releaseDeployLock(ctx.o.transports.get(headOf(m).name)!, m, ctx.lock.token)
      ctx.io.progress(released.message)
      if (released.released) ctx.o.onLock?.(undefined)
    }
  }
}
