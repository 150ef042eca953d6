/**
 * The gates on a started release: the identity preflight (facts from every node and Ray, the
 * checks) once every node is in Ray, and the smoke test once vLLM serves. On an unchanged release
 * they are all that runs, and a failure there changes nothing.
 */
import { problemOf } from '../../preflight/finding.js'
import { option } from '../../command/option-words.js'
import { expectationFromManifest } from '../../manifest/expectation.js'
import { runChecks } from '../../preflight/checks/index.js'
import { sortFindings } from '../../preflight/offline-diagnosis.js'
import { gatherFacts } from '../../preflight/gather/gather.js'
import { factsSteps } from '../../plan/plan.js'
import { ok, problem } from '../../result/result.js'
import { runSmokeGate } from '../../smoke/gate.js'
import { type Stage, type StageInput, errorCodes, hasError, proceed, sayFindings, stop } from './stage.js'
import { headOf } from '../../plan/node-commands.js'
import { RELEASE_FILE, readReleaseFile, releaseDir, writeReleasePerformance } from '../../plan/release-commands.js'
import { type PerformanceComparison, comparePerformance, parsePerformanceRecord, performanceLine, renderPerformanceMarkdown } from '../../smoke/performance.js'
import { outcome, succeeded } from '../../transport/transport.js'
import type { SmokeGateResult } from '../smoke-seam.js'

const unchangedNote = (ctx: StageInput<'unchanged'>): string =>
  ctx.unchanged ? `nothing was changed: the running release itself fails its gates (redeploy with ${option('force')})` : 'nothing was changed on the nodes'

import { releasePhasesPart } from './plan-parts.js'

export const preflightStage: Stage<'m' | 'unchanged' | 'hostFacts', 'facts'> = {
  name: 'preflight',
  needs: ['m', 'unchanged', 'hostFacts'],
  adds: ['facts'],
  plan: releasePhasesPart(() => ['preflight']),
  gate: true,
  untouched: unchangedNote,
  async run(ctx) {
    const { m, o, io } = ctx
    // The plan's preflight steps, as the executor would announce them: gatherFacts runs these commands.
    for (const s of factsSteps(m)) io.progress(`[${s.node}] ${s.action}: ${s.description}`)
    // The host checks' facts of this rollout: what a start does not change is not read again.
    const { facts } = await gatherFacts(m, { transportFor: async (n) => ok(o.transports.get(n.name)!), onProgress: io.progress, hostFacts: ctx.hostFacts })
    const findings = sortFindings(runChecks(facts, expectationFromManifest(m)))
    sayFindings(io, findings)
    if (!hasError(findings)) return proceed({ facts }, { findings })
    const first = findings.find((f) => f.severity === 'error')!
    return stop(problemOf(first, `identity preflight: ${errorCodes(findings)}`), { adds: { facts }, findings })
  },
}

export const smokeStage: Stage<'m' | 'release' | 'unchanged' | 'previousRelease', 'smoke' | 'performance'> = {
  name: 'smoke',
  needs: ['m', 'release', 'unchanged', 'previousRelease'],
  adds: ['smoke', 'performance'],
  plan: releasePhasesPart(() => ['smoke']),
  // A new release's figures are written to its own directory, which no other stage reads.
  gate: true,
  untouched: unchangedNote,
  async run(ctx) {
    const { m, o, io } = ctx
    const measured = await (o.smoke ?? runSmokeGate)({
      manifest: m,
      transports: o.transports,
      env: o.env,
      onProgress: io.progress,
      release: ctx.release,
      ...(o.signal && { signal: o.signal }),
    })
    if (measured.cancelled || io.cancelled)
      return stop(problem('CANCELLED', 'cancelled during the smoke test', 'Run the deploy again when it may go on.'), {
        cancelled: true,
        adds: { smoke: measured },
      })
    const performance = measured.ok ? await performanceGate(ctx, measured) : undefined
    const smoke = withPerformance(measured, performance)
    const adds = { smoke, performance }
    const findings = smoke.findings
    if (smoke.ok) return proceed(adds, { findings })
    const reason = ctx.unchanged ? 'smoke test failed' : `smoke test: ${smoke.findings.map((f) => f.code).join(', ') || 'failed'}`
    const first = smoke.findings.find((f) => f.severity === 'error')
    return stop(problem(first?.code ?? 'SMOKE_FAILED', reason, first?.fix ?? 'Read the smoke findings.'), { adds, findings })
  },
}

/**
 * A new release's smoke figures: kept in its directory on the head, and compared with the running
 * release's own (smoke.regression). Not on a rollback (the release keeps the figures it was
 * deployed with) nor on an unchanged release (it is the running one).
 */
async function performanceGate(
  ctx: StageInput<'m' | 'release' | 'unchanged' | 'previousRelease'>,
  smoke: SmokeGateResult,
): Promise<PerformanceComparison | undefined> {
  const { m, o, io } = ctx
  const now = smoke.performance
  if (ctx.command !== 'deploy' || ctx.source !== 'new' || ctx.unchanged || !now) return undefined
  const head = o.transports.get(headOf(m).name)!
  const wrote = await head.run(writeReleasePerformance(m, ctx.release), { timeoutMs: 30_000, stdin: `${JSON.stringify(now, null, 2)}\n` })
  if (!succeeded(wrote))
    io.progress(`performance: the figures of ${ctx.release} were not kept on ${headOf(m).name} (${outcome(wrote)} ${wrote.stderr.trim().slice(-200)})`)
  const previous = ctx.previousRelease
  if (!previous || previous === ctx.release || m.smoke.regression.action === 'off') return undefined
  const read = await head.run(readReleaseFile(m, previous, RELEASE_FILE.performance), { timeoutMs: 30_000 })
  if (!succeeded(read)) {
    io.progress(`performance: release ${previous} keeps no figures (deployed before they were kept, or its smoke measured none): nothing to compare with`)
    return undefined
  }
  const before = parsePerformanceRecord(read.stdout, `${headOf(m).name}:${releaseDir(m, previous)}/${RELEASE_FILE.performance}`)
  if (!before.ok) {
    io.progress(`performance: ${before.problem.message}; not compared`)
    return undefined
  }
  const compared = comparePerformance(m, before.value, now)
  io.progress(performanceLine(compared))
  return compared
}

/** The smoke's result with the comparison: its findings, its verdict, and both figures side by side in its summary. */
function withPerformance(smoke: SmokeGateResult, c: PerformanceComparison | undefined): SmokeGateResult {
  if (!c) return smoke
  const findings = [...smoke.findings, ...c.findings]
  return {
    ...smoke,
    ok: smoke.ok && !hasError(c.findings),
    findings,
    text: `${smoke.text}\n${performanceLine(c)}`,
    summary: `${smoke.summary}\n\n${renderPerformanceMarkdown(c)}\n`,
  }
}
