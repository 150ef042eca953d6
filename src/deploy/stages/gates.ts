/**
 * The gates on a started release: the identity preflight (facts from every node and Ray, the
 * checks) once every node is in Ray, and the smoke test once vLLM serves. On an unchanged release
 * they are all that runs, and a failure there changes nothing.
 */
import { problemOf } from '../../preflight/finding.js'
import { option } from '../../command/option-words.js'
import { expectationFromManifest } from '../../manifest/expectation.js'
import { runChecks } from '../../preflight/checks/index.js'
import { sortFindings } from '../../preflight/diagnose.js'
import { gatherFacts } from '../../preflight/gather/gather.js'
import { factsSteps } from '../../plan/plan.js'
import { ok, problem } from '../../result/result.js'
import { runSmokeGate } from '../../smoke/gate.js'
import { type RolloutContext, type Stage, errorCodes, hasError, proceed, sayFindings, stop } from './context.js'

const unchangedNote = (ctx: RolloutContext): string =>
  ctx.unchanged ? `nothing was changed: the running release itself fails its gates (redeploy with ${option('force')})` : 'nothing was changed on the nodes'

import { releasePhasesPart } from './plan-parts.js'

export const preflightStage: Stage = {
  name: 'preflight',
  plan: releasePhasesPart(() => ['preflight']),
  untouched: unchangedNote,
  async run(ctx) {
    const { m, o, io } = ctx
    // The plan's preflight steps, as the executor would announce them: gatherFacts runs these commands.
    for (const s of factsSteps(m)) io.progress(`[${s.node}] ${s.action}: ${s.description}`)
    const { facts } = await gatherFacts(m, { transportFor: async (n) => ok(o.transports.get(n.name)!), onProgress: io.progress })
    const findings = sortFindings(runChecks(facts, expectationFromManifest(m)))
    ctx.facts = facts
    ctx.findings.push(...findings)
    sayFindings(io, findings)
    if (!hasError(findings)) return proceed
    const first = findings.find((f) => f.severity === 'error')!
    return stop(problemOf(first, `identity preflight: ${errorCodes(findings)}`))
  },
}

export const smokeStage: Stage = {
  name: 'smoke',
  plan: releasePhasesPart(() => ['smoke']),
  untouched: unchangedNote,
  async run(ctx) {
    const { m, o, io } = ctx
    const smoke = await (o.smoke ?? runSmokeGate)({
      manifest: m,
      transports: o.transports,
      env: o.env,
      onProgress: io.progress,
      ...(o.signal && { signal: o.signal }),
    })
    ctx.smoke = smoke
    if (smoke.cancelled || io.cancelled)
      return stop(problem('CANCELLED', 'cancelled during the smoke test', 'Run the deploy again when it may go on.'), { cancelled: true })
    ctx.findings.push(...smoke.findings)
    if (smoke.ok) return proceed
    const reason = ctx.unchanged ? 'smoke test failed' : `smoke test: ${smoke.findings.map((f) => f.code).join(', ') || 'failed'}`
    return stop(problem(smoke.findings[0]?.code ?? 'SMOKE_FAILED', reason, smoke.findings[0]?.fix ?? 'Read the smoke findings.'))
  },
}
