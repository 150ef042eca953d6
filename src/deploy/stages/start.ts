/**
 * The stages that start a release from its files: write (or verify) them, stop the previous
 * container, launch Ray (head, then workers), wait for every node in Ray, and vllm serve (watched
 * until /health answers). Each runs its own phases of the release's plan (planRelease) through the
 * executor, so `plan` shows exactly what they run.
 */
import { executePlan } from '../../execute/execute.js'
import { stdinProvider } from '../../execute/step-inputs.js'
import type { Finding } from '../../preflight/finding.js'
import { startupTimelineFor } from '../../preflight/startup-report.js'
import type { StartupTimeline } from '../../preflight/startup-timeline.js'
import { watchRendezvous } from '../../preflight/watch-rendezvous.js'
import { watchVllmStartup } from '../../preflight/watch-vllm.js'
import { headOf } from '../../plan/node-commands.js'
import { type PhaseName, type Plan, launchLabels, launchPhases, planRelease } from '../../plan/plan.js'
import { problem } from '../../result/result.js'
import type { RolloutStage } from '../rollout-types.js'
import { type Stage, type StageInput, type StageOutcome, proceed, stop } from './stage.js'
import { type PlannedPart, type StagePlanInput, releasePhasesPart } from './plan-parts.js'
import { guardMemory } from '../memory-guard.js'
import { parseTeardown, teardownFinding, teardownLine } from '../teardown.js'
import { TEARDOWN_LEFT } from '../../plan/teardown-commands.js'
import type { Manifest } from '../../manifest/schema.js'
import { render } from '../../command/shell.js'
import { floorWords } from '../../preflight/memory/memory-watchdog.js'
import { killEngineCmd, memorySampleCmd } from '../../plan/memory-watch-commands.js'

const notUnchanged = (ctx: StageInput<'unchanged'>): boolean => !ctx.unchanged

/** What a stage that runs phases of the release's plan reads. */
type PhaseNeeds = 'm' | 'release' | 'unchanged'

/** The release's plan (planRelease is pure: each stage that runs phases of it asks again and gets the same plan). */
export const releasePlan = (ctx: StageInput<'m' | 'release'>): Plan =>
  planRelease(ctx.m, { release: ctx.release, files: ctx.source === 'new' ? 'write' : 'verify' })

const stepFailed = (r: { step: { node: string; action: string; command: string }; phase: string; detail?: string }): Finding => ({
  code: 'DEPLOY_STEP_FAILED',
  severity: 'error',
  node: r.step.node,
  message: `Step ${r.step.action} of phase ${r.phase} failed on ${r.step.node}: ${r.detail ?? 'failed'}.`,
  evidence: { command: r.step.command.length > 400 ? `${r.step.command.slice(0, 400)}…` : r.step.command, result: r.detail ?? '' },
  fix: `Run the command on ${r.step.node} by hand to see why (vllm-ray-deploy plan shows every command).`,
})

/** Run these phases of the release's plan; a failed step or a cancel stops the rollout at its phase. */
export async function runPhases(
  ctx: StageInput<'m' | 'release'>,
  names: readonly PhaseName[],
  releaseFilesFor?: (release: string, node: string) => string,
): Promise<StageOutcome> {
  const { o, io } = ctx
  const plan = releasePlan(ctx)
  const exec = await executePlan(
    { ...plan, phases: plan.phases.filter((p) => names.includes(p.name)) },
    {
      transports: o.transports,
      stdinFor: stdinProvider(o.manifestPath, o.env, { ...(releaseFilesFor && { releaseFiles: releaseFilesFor }) }),
      ...(o.signal && { signal: o.signal }),
      onProgress: (x) => io.progress(x.replace(/^== /, '')),
      onPhase: (phase, event) => {
        if (event === 'start') io.setLabel(phase.name)
        o.onStage?.(phase.name, event)
      },
    },
  )
  const executed = exec.results
  if (exec.ok) return proceed({}, { executed })
  const at = exec.stoppedAt!
  if (exec.cancelled) return stop(problem('CANCELLED', at.reason, 'Run the deploy again when it may go on.'), { at: at.phase, cancelled: true, executed })
  const failed = exec.results.filter((x) => x.status === 'failed').map(stepFailed)
  return stop(problem('DEPLOY_STEP_FAILED', at.reason, failed[0]?.fix ?? 'Run the failed step by hand to see why.'), {
    at: at.phase,
    executed,
    findings: failed,
  })
}

/** A stage that runs phases of the release's plan: the same function names them for its run and for `plan`. */
const phaseStage = (name: RolloutStage, phases: (m: Manifest) => readonly PhaseName[]): Stage<PhaseNeeds> => ({
  name,
  needs: ['m', 'release', 'unchanged'],
  adds: [],
  changes: true,
  labelsItself: true,
  when: notUnchanged,
  plan: releasePhasesPart(phases),
  run: (ctx) => runPhases(ctx, phases(ctx.m)),
})

/**
 * Writes (or verifies) the release's own directory from what the fingerprint made of it: no
 * container is touched, so a stop here leaves the running release as it was.
 */
export const releaseFilesStage: Stage<PhaseNeeds | 'releaseFilesFor'> = {
  name: 'release-files',
  needs: ['m', 'release', 'unchanged', 'releaseFilesFor'],
  adds: [],
  labelsItself: true,
  when: notUnchanged,
  plan: releasePhasesPart(() => ['release-files']),
  run: (ctx) => runPhases(ctx, ['release-files'], ctx.releaseFilesFor),
}
/** Removes the previous containers, then holds the launch until the release current names is gone and the GPU holds nothing (verified teardown). */
export const stopPreviousStage: Stage<PhaseNeeds> = {
  ...phaseStage('stop-previous', () => ['stop-previous']),
  run: async (ctx) => teardownOutcome(ctx, await runPhases(ctx, ['stop-previous'])),
}

/** The teardown's word on each node: progress lines, and what it left as PREVIOUS_RELEASE_NOT_GONE instead of a bare failed step. */
function teardownOutcome(ctx: StageInput<'m'>, ran: StageOutcome): StageOutcome {
  const left: Finding[] = []
  for (const r of ran.executed ?? []) {
    if (r.step.action !== 'verify-stopped' || !r.result) continue
    const t = parseTeardown(r.result.stdout, r.step.node)
    if (!t.ok) continue
    ctx.io.progress(teardownLine(r.step.node, t.value))
    if (r.result.code === TEARDOWN_LEFT && t.value.left.length > 0) left.push(teardownFinding(r.step.node, t.value, ctx.m.deploy.teardownTimeoutSeconds))
  }
  if (ran.next === 'continue' || left.length === 0) return ran
  const nodes = new Set(left.map((f) => f.node))
  const findings = [...(ran.findings ?? []).filter((f) => !(f.code === 'DEPLOY_STEP_FAILED' && nodes.has(f.node))), ...left]
  const first = left[0]!
  return { ...ran, findings, problem: problem(first.code, left.map((f) => f.message).join(' '), first.fix, first.evidence) }
}
/** Each node's start.sh: its phases carry the names launchLabels gives (Ray's only where this tool starts Ray). */
/**
 * The start-up memory watchdog of the `vllm` stage (deploy.memoryWatchdog), for `plan`: which nodes,
 * how often, the floor, what it runs. Which nodes `auto` watches is known only from the host checks'
 * facts, so `plan` says what decides.
 */
function memoryWatchdogWords(m: Manifest): string | undefined {
  const s = m.deploy.memoryWatchdog
  if (s.enabled === 'off') return undefined
  const said = m.fit.nodeMemory ? `; fit.nodeMemory says ${m.fit.nodeMemory.unified ? 'unified' : 'discrete GPUs'}` : ''
  const which =
    s.enabled === 'on'
      ? `every node (${m.nodes.map((n) => n.name).join(', ')})`
      : `each node whose host checks say its GPU shares the host's memory (GB10 / DGX Spark${said})`
  const known = m.fit.nodeMemory?.unified ? { totalBytes: m.fit.nodeMemory.bytes, source: 'fit.nodeMemory' } : undefined
  return `memory watchdog until /health answers: every ${s.intervalSeconds} s \`${render(memorySampleCmd())}\` on ${which}; ${floorWords(s, known)}; past it: \`${render(killEngineCmd(m))}\` on every node and MEMORY_FLOOR_REACHED (then deploy.onFailure)`
}

/** The `vllm` phase, its description naming the memory watchdog that runs beside it. */
const servePart = (input: StagePlanInput): PlannedPart[] => {
  const words = memoryWatchdogWords(input.m)
  return releasePhasesPart(() => ['vllm'])(input).map((p) => (words ? { ...p, description: `${p.description}; ${words}` } : p))
}

export const launchStage = phaseStage('launch', launchPhases)
/** The wait until every node is in Ray, where Ray runs. */
const clusterPhases = (m: Manifest): PhaseName[] => {
  const cluster = launchLabels(m).cluster
  return cluster ? [cluster] : []
}
export const clusterWaitStage: Stage<PhaseNeeds> = {
  ...phaseStage('cluster', clusterPhases),
  when: (ctx) => notUnchanged(ctx) && clusterPhases(ctx.m).length > 0,
}

/**
 * vLLM's native mode: every node's vllm serve until all are in the process group; a rendezvous that
 * cannot complete stops here within seconds (src/preflight/watch-rendezvous.ts).
 */
async function rendezvousGate(ctx: StageInput<'m'>, timeline: StartupTimeline, signal: AbortSignal | undefined): Promise<StageOutcome> {
  const { m, o, io } = ctx
  const w = await watchRendezvous(o.transports, m, {
    timeline,
    deadlineMs: m.smoke.readyTimeoutSeconds * 1000,
    ...(signal && { signal }),
    onProgress: io.progress,
  })
  io.progress(`vllm: process group ${w.formed ? 'formed' : 'NOT formed'}: ${w.reason} (${(w.waitedMs / 1000).toFixed(1)} s)`)
  if (w.formed) return proceed()
  if (w.cancelled || io.cancelled)
    return stop(problem('CANCELLED', 'cancelled while waiting for the process group', 'Run the deploy again when it may go on.'), { cancelled: true })
  const first = w.findings[0]
  return stop(problem(first?.code ?? 'RENDEZVOUS_INCOMPLETE', `vllm serve: ${w.reason}`, first?.fix ?? "Read every node's vllm serve log."), {
    findings: w.findings,
  })
}

/** vllm serve from the release's serve.sh, then the start-up watcher until /health answers or it cannot. */
export const serveStage: Stage<PhaseNeeds | 'facts'> = {
  name: 'vllm',
  needs: ['m', 'release', 'unchanged', 'facts'],
  adds: [],
  plan: servePart,
  changes: true,
  labelsItself: true,
  when: notUnchanged,
  async run(ctx) {
    const started = await runPhases(ctx, ['vllm'])
    if (started.next === 'stop') return started
    const { executed } = started
    const { m, o, io } = ctx
    const head = headOf(m)
    // Every node's phases (src/preflight/startup-timeline.ts), across the rendezvous and the head's watch.
    const timeline = startupTimelineFor(m)
    // The memory watchdog (deploy.memoryWatchdog) runs beside the waits below and ends them when it trips.
    const guard = guardMemory({ m, facts: ctx.facts, transports: o.transports, ...(o.signal && { signal: o.signal }), progress: io.progress })
    const tripped = async (): Promise<StageOutcome | undefined> => {
      const t = await guard.settle(timeline)
      return t && { ...t, executed }
    }
    if (m.vllm.executorBackend === 'mp') {
      const group = await rendezvousGate(ctx, timeline, guard.signal)
      if (group.next === 'stop') return (await tripped()) ?? { ...group, executed }
    }
    const w = await watchVllmStartup(o.transports.get(head.name)!, m, {
      timeline,
      nodes: o.transports,
      deadlineMs: m.smoke.readyTimeoutSeconds * 1000,
      ...(ctx.facts.ray && { ray: ctx.facts.ray }),
      ...(guard.signal && { signal: guard.signal }),
      onProgress: io.progress,
    })
    const memory = await tripped()
    if (memory) return memory
    io.progress(`vllm: ${w.ready ? 'ready' : 'NOT ready'}: ${w.reason} (${(w.waitedMs / 1000).toFixed(1)} s)`)
    for (const line of w.timeline) io.progress(`vllm start-up: ${line}`)
    if (w.ready) return proceed({}, { executed })
    // A cancel while waiting for /health is a cancel, not a failure of vLLM: no on-failure action.
    if (w.cancelled || io.cancelled)
      return stop(problem('CANCELLED', 'cancelled while waiting for /health', 'Run the deploy again when it may go on.'), { cancelled: true, executed })
    const errors = w.findings.filter((f) => f.severity === 'error')
    const fix = `Read the full log on ${head.name}: docker exec ${m.container.name} cat /tmp/vllm-ray-deploy-serve.log`
    // A failure no signature names keeps the log's tail beside UNRECOGNISED_FAILURE.
    const add = errors.some((f) => f.code !== 'UNRECOGNISED_FAILURE')
      ? errors
      : [
          ...errors,
          {
            code: 'VLLM_NOT_READY' as const,
            severity: 'error' as const,
            node: head.name,
            message: `vllm serve did not become ready: ${w.reason}.`,
            evidence: { 'log tail': w.logTail.split('\n').slice(-10).join('\n') },
            fix,
          },
        ]
    // Each node's phases (info) with the errors: the report and the diagnostics bundle show where the start got to.
    const timelineFindings = w.findings.filter((f) => f.code === 'STARTUP_TIMELINE')
    return stop(problem('VLLM_NOT_READY', `vllm serve: ${w.reason}`, fix), { executed, findings: [...add, ...timelineFindings] })
  },
}
