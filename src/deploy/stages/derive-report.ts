/**
 * The rollout's report, derived from what its stages did by one function: the result, whether the
 * nodes changed (a stage that changes containers started), where it stopped and what on-failure did.
 */
import type { FactsBundle } from '../../preflight/facts.js'
import type { Finding } from '../../preflight/finding.js'
import { nodeRank } from '../../plan/executor-commands.js'
import { type NodeState, containerState, readNodeStates } from '../node-state.js'
import type { NodeRow, OnFailureReport, RolloutReport, RolloutStage } from '../rollout-types.js'
import type { AnyOutcome, ListedStage, RolloutContext } from './stage.js'
import { fabricTestReport } from './fabric-test.js'

export type Stopped = Extract<AnyOutcome, { next: 'stop' }>

export interface StageRecord {
  readonly stage: ListedStage
  readonly outcome: AnyOutcome
}

/** The stages that ran, in order, and the stop that ended the list, if one did. */
export interface ListRun {
  readonly records: readonly StageRecord[]
  readonly stopped?: { readonly stage: RolloutStage; readonly by: ListedStage; readonly outcome: Stopped }
}

/** What on-failure did, with the findings and facts of a rollback it ran. */
export interface Handled extends OnFailureReport {
  readonly findings?: readonly Finding[]
  readonly facts?: FactsBundle
}

export const changedBy = (run: ListRun): boolean => run.records.some((r) => r.stage.changes)

export type ReportCore = Omit<RolloutReport, 'nodes' | 'durationMs'>

export function deriveReport(ctx: RolloutContext, run: ListRun, handled?: Handled): ReportCore {
  const stopped = run.stopped
  const changed = changedBy(run)
  const result = stopped?.outcome.cancelled
    ? 'cancelled'
    : stopped
      ? 'failed'
      : ctx.unchanged
        ? 'unchanged'
        : ctx.command === 'rollback'
          ? 'rolled-back'
          : 'deployed'
  const rolledBack = ctx.command === 'rollback' ? result === 'rolled-back' : handled?.action === 'rollback' && handled.ok
  const { findings: backFindings = [], facts: backFacts, ...onFailure } = handled ?? {}
  // After a rollback, `facts` and the rest of `findings` stay what the failed release showed;
  // `afterRollback` holds what the release that runs now showed its gates.
  const facts = ctx.facts
  const marked = backFindings.map((f) => ({ ...f, message: `(rollback to ${handled?.release}) ${f.message}` }))
  const back = handled?.action === 'rollback' && handled.release ? handled.release : undefined
  // The stage was reached when a stage after the fingerprint (which decides `unchanged`) ran.
  const fabricTest = fabricTestReport(
    ctx,
    run.records.some((r) => r.stage.name === 'fingerprint' && r.outcome.next === 'continue'),
  )
  return {
    command: ctx.command,
    executor: ctx.m.vllm.executorBackend,
    result,
    release: ctx.release,
    ...(ctx.previousRelease && { previousRelease: ctx.previousRelease }),
    ...(ctx.imageId && { imageId: ctx.imageId }),
    ...(ctx.fingerprint && { fingerprint: ctx.fingerprint }),
    changed,
    rolledBack,
    ...(stopped && { failure: { stage: stopped.stage, reason: stopped.outcome.problem.message } }),
    ...(handled && { onFailure: onFailure as OnFailureReport }),
    findings: [...ctx.findings, ...marked],
    ...(back && { afterRollback: { release: back, ...(backFacts && { facts: backFacts }), findings: marked } }),
    ...(ctx.smoke && { smoke: ctx.smoke }),
    ...(ctx.performance && { performance: ctx.performance }),
    ...(ctx.image && { image: ctx.image }),
    ...(ctx.imageContents && { imageContents: ctx.imageContents }),
    ...(ctx.weights && { weights: ctx.weights }),
    ...(fabricTest && { fabricTest }),
    ...(facts && { facts }),
  }
}

const short = (id: string | undefined): string => (id ? id.replace(/^sha256:/, '').slice(0, 12) : '-')

/** Every node as it is now (`known`: as a read this rollout made and nothing changed since): its current release, image, Ray identity and container. */
export async function nodeTable(ctx: RolloutContext, facts: FactsBundle | undefined, known?: ReadonlyMap<string, NodeState>): Promise<NodeRow[]> {
  const m = ctx.o.manifest
  const states = known ?? (await readNodeStates(m, ctx.o.transports))
  return m.nodes.map((n) => {
    const s = states.get(n.name)!
    const rayNode = facts?.ray?.nodes.find((r) => r.alive && r.address === n.fabricIp)
    const container = facts?.nodes.find((f) => f.node === n.name)?.container
    const rayIdentity = rayNode ? `${rayNode.address}${rayNode.isHead ? ' (head)' : ''}` : (container?.rayNodeIp ?? '-')
    return {
      node: n.name,
      role: n.role,
      release: s.current ?? '-',
      imageId: short(s.container?.imageId ?? s.imageId),
      rayIdentity: m.vllm.executorBackend === 'mp' ? '-' : rayIdentity,
      ...(m.vllm.executorBackend === 'mp' && { nativeRank: nodeRank(m, n) }),
      state: s.error ? `unknown (${s.error})` : containerState(s),
    }
  })
}
