/**
 * plan → execute: run a plan's phases in order over one transport per node. Steps of different
 * nodes in a parallel phase run at the same time; one node's steps always run in order. The first
 * failing step stops the run after its phase (nothing half-started is left unreported: every
 * step's result is returned, run or not). The rollout's stages (src/deploy/stages) each run their
 * own phases through here; the gates between them (preflight, vLLM's start-up, the smoke) are stages.
 */
import type { Readable } from 'node:stream'
import type { PhaseName, Plan, PlanPhase, PlannedStep, StepInput } from '../plan/plan.js'
import { type RunResult, type Transport, outcome, succeeded } from '../transport/transport.js'
import type { StepStdin } from './step-inputs.js'

export interface StepResult {
  readonly step: PlannedStep
  readonly phase: PhaseName
  readonly status: 'ok' | 'failed' | 'skipped'
  readonly result?: RunResult
  /** Why it failed or was skipped, in words. */
  readonly detail?: string
}

export interface ExecuteOptions {
  /** One open transport per node name. */
  readonly transports: ReadonlyMap<string, Transport>
  /** Supplies a step's stdin (file contents, secrets, the probe program, an image archive stream). */
  readonly stdinFor: (input: StepInput, step: PlannedStep) => Promise<StepStdin>
  readonly onProgress?: (message: string) => void
  /** A phase starts or ends (log groups in the Action, phase prefixes in progress lines). */
  readonly onPhase?: (phase: PlanPhase, event: 'start' | 'end') => void
  /** Cancellation (SIGINT/SIGTERM): no step starts once it is aborted; the run stops as `cancelled`. */
  readonly signal?: AbortSignal
}

export interface ExecuteResult {
  readonly ok: boolean
  readonly results: readonly StepResult[]
  /** The phase that stopped the run, and why. */
  readonly stoppedAt?: { readonly phase: PhaseName; readonly reason: string }
  readonly durationMs: number
  /** True when the run stopped because `signal` was aborted. */
  readonly cancelled?: boolean
}

export const CANCELLED = 'cancelled (SIGINT/SIGTERM): the step in flight was stopped and no further step was started'

async function runStep(step: PlannedStep, phase: PhaseName, opts: ExecuteOptions): Promise<StepResult> {
  if (opts.signal?.aborted) return { step, phase, status: 'skipped', detail: CANCELLED }
  const t = opts.transports.get(step.node)
  if (!t) return { step, phase, status: 'failed', detail: `no connection to ${step.node}` }
  let stdin: string | Readable | undefined
  if (step.stdin) {
    const prepared = await opts.stdinFor(step.stdin, step)
    if (!prepared.ok) return { step, phase, status: 'failed', detail: `cannot prepare stdin (${step.stdin.kind}): ${prepared.problem.message}` }
    stdin = prepared.value
  }
  opts.onProgress?.(`[${step.node}] ${step.action}: ${step.description}`)
  const result = await t.run(step.cmd, {
    timeoutMs: step.timeoutSeconds * 1000,
    ...(stdin !== undefined && { stdin }),
    ...(opts.signal && { signal: opts.signal }),
  })
  if (succeeded(result)) {
    opts.onProgress?.(`[${step.node}] ${step.action}: ok in ${(result.durationMs / 1000).toFixed(1)} s`)
    return { step, phase, status: 'ok', result }
  }
  const tail = (result.stderr || result.stdout).trim().split('\n').slice(-5).join('\n')
  opts.onProgress?.(`[${step.node}] ${step.action}: FAILED (${outcome(result)})${tail ? `\n${tail}` : ''}`)
  return { step, phase, status: 'failed', result, detail: `${outcome(result)}${tail ? `: ${tail}` : ''}` }
}

/** One node's steps of a phase, in order, stopping at that node's first failure. */
async function runNodeSteps(steps: readonly PlannedStep[], phase: PhaseName, opts: ExecuteOptions): Promise<StepResult[]> {
  const out: StepResult[] = []
  for (const s of steps) {
    if (out.some((r) => r.status === 'failed')) {
      out.push({ step: s, phase, status: 'skipped', detail: `an earlier step on ${s.node} failed` })
      continue
    }
    out.push(await runStep(s, phase, opts))
  }
  return out
}

export async function executePlan(plan: Plan, opts: ExecuteOptions): Promise<ExecuteResult> {
  const started = Date.now()
  const results: StepResult[] = []
  let stoppedAt: ExecuteResult['stoppedAt']
  for (const phase of plan.phases) {
    if (!stoppedAt && opts.signal?.aborted) stoppedAt = { phase: phase.name, reason: CANCELLED }
    if (stoppedAt) {
      results.push(...phase.steps.map((step): StepResult => ({ step, phase: phase.name, status: 'skipped', detail: `stopped at ${stoppedAt!.phase}` })))
      continue
    }
    opts.onPhase?.(phase, 'start')
    opts.onProgress?.(`== ${phase.name}: ${phase.description}`)
    const byNode = new Map<string, PlannedStep[]>()
    for (const s of phase.steps) byNode.set(s.node, [...(byNode.get(s.node) ?? []), s])
    const groups = [...byNode.values()]
    const phaseResults = phase.parallel
      ? (await Promise.all(groups.map((g) => runNodeSteps(g, phase.name, opts)))).flat()
      : await (async () => {
          const acc: StepResult[] = []
          for (const g of groups) acc.push(...(await runNodeSteps(g, phase.name, opts)))
          return acc
        })()
    // Report in plan order whatever order they finished in.
    const order = new Map(phase.steps.map((s, i) => [s.id, i]))
    phaseResults.sort((a, b) => (order.get(a.step.id) ?? 0) - (order.get(b.step.id) ?? 0))
    for (const x of phaseResults) results.push(x)
    const failed = phaseResults.filter((r) => r.status === 'failed')
    if (opts.signal?.aborted) {
      stoppedAt = { phase: phase.name, reason: CANCELLED }
    } else if (failed.length > 0) {
      stoppedAt = { phase: phase.name, reason: failed.map((r) => `${r.step.id}: ${r.detail}`).join('; ') }
    }
    opts.onPhase?.(phase, 'end')
  }
  const cancelled = stoppedAt?.reason === CANCELLED
  return { ok: !stoppedAt, results, ...(stoppedAt && { stoppedAt }), durationMs: Date.now() - started, ...(cancelled && { cancelled }) }
}
