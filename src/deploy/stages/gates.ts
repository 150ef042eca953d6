/**
 * The gates on a started release: the identity preflight (facts from every node and Ray, the
 * checks) once every node is in Ray, and the smoke test once vLLM serves. On an unchanged release
 * they are all that runs, and a failure there changes nothing.
 */
import { option } from '../../command/option-words.js'
import { expectationFromManifest } from '../../manifest/expectation.js'
import { runChecks } from '../../preflight/checks/index.js'
import { sortFindings } from '../../preflight/diagnose.js'
import { gatherFacts } from '../../preflight/gather/gather.js'
import { factsSteps } from '../../plan/plan.js'
import { problem } from '../../result/result.js'
import { runSmokeGate } from '../../smoke/gate.js'
import { type Stage, type StageInput, errorCodes, hasError, proceed, sayFindings, stop } from './context.js'

const unchangedNote = (ctx: StageInput<'unchanged'>): string =>
  ctx.unchanged ? `nothing was changed: the running release itself fails its gates (redeploy with ${option('force')})` : 'nothing was changed on the nodes'

import { releasePhasesPart } from './plan-parts.js'

export const preflightStage: Stage<'m' | 'unchanged', 'facts'> = {
  name: 'preflight',
  needs: ['m', 'unchanged'],
  adds: ['facts'],
  plan: releasePhasesPart(() => ['preflight']),
  untouched: unchangedNote,
  async run(ctx) {
    const { m, o, io } = ctx
    // The plan's preflight steps, as the executor would announce them: gatherFacts runs these commands.
    for (const s of factsSteps(m)) io.progress(`[${s.node}] ${s.action}: ${s.description}`)
    const { facts } = await gatherFacts(m, { transportFor: async (n) => o.transports.get(n.name)!, onProgress: io.progress })
    const findings = sortFindings(runChecks(facts, expectationFromManifest(m)))
    sayFindings(io, findings)
    if (!hasError(findings)) return proceed({ facts }, { findings })
    const first = findings.find((f) => f.severity === 'error')!
    return stop(
      { code: first.code, message: `identity preflight: ${errorCodes(findings)}`, evidence: first.evidence, fix: first.fix },
      { adds: { facts }, findings },
    )
  },
}

export const smokeStage: Stage<'m' | 'unchanged', 'smoke'> = {
  name: 'smoke',
  needs: ['m', 'unchanged'],
  adds: ['smoke'],
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
    if (smoke.cancelled || io.cancelled)
      return stop(problem('CANCELLED', 'cancelled during the smoke test', 'Run the deploy again when it may go on.'), { cancelled: true, adds: { smoke } })
    const findings = smoke.findings
    if (smoke.ok) return proceed({ smoke }, { findings })
    const reason = ctx.unchanged ? 'smoke test failed' : `smoke test: ${smoke.findings.map((f) => f.code).join(', ') || 'failed'}`
    return stop(problem(smoke.findings[0]?.code ?? 'SMOKE_FAILED', reason, smoke.findings[0]?.fix ?? 'Read the smoke findings.'), {
      adds: { smoke },
      findings,
    })
  },
}
