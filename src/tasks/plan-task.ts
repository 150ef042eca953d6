import { planRollout } from '../deploy/rollout-plan.js'
import type { Manifest } from '../manifest/schema.js'
import type { Finding } from '../preflight/finding.js'
import type { FitReport } from '../preflight/fit/fit.js'
import { readLocalModel } from '../preflight/fit/local-model.js'
import { fitFindings, fitOfManifest, kvBytesFlagFindings, nodeMemoryOfManifest } from '../preflight/fit/manifest-fit.js'
import type { PlanOptions } from '../plan/plan.js'
import { renderFindingsText } from '../report/findings.js'
import { fitJson, renderFitMarkdown, renderFitText } from '../report/fit-report.js'
import { verdictLine } from '../report/verdict.js'
import { planJson, renderPlanMarkdown, renderPlanText } from '../report/plan-report.js'
import { findingAnnotations } from './finding-annotations.js'
import type { TaskOutcome } from './outcome.js'
import { checkOverrides, loadWithLaunchScript, withManifestWarnings } from './validate.js'

/**
 * The fit as `plan` can know it without reaching a node: config.json and the weights where the
 * runner can read them (local-model.ts), the nodes' memory from `fit.nodeMemory`.
 */
export function planFit(m: Manifest, manifestPath: string, env: NodeJS.ProcessEnv): { readonly report: FitReport; readonly findings: readonly Finding[] } {
  const report = fitOfManifest(m, readLocalModel(m, manifestPath, env), nodeMemoryOfManifest(m))
  return { report, findings: [...fitFindings(report, 'plan', { unknownAsFinding: true }), ...kvBytesFlagFindings(m)] }
}

export async function planTask(path: string, opts: PlanOptions = {}, env: NodeJS.ProcessEnv = process.env): Promise<TaskOutcome> {
  const bad = checkOverrides(opts)
  if (bad) return bad
  const loaded = await loadWithLaunchScript(path)
  if (!loaded.ok) return loaded.problem
  const plan = planRollout(loaded.value.manifest, opts)
  const fit = planFit(loaded.value.manifest, path, env)
  const steps = plan.phases.reduce((s, p) => s + p.steps.length, 0)
  const json = { ...planJson(plan), fit: fitJson(fit.report), findings: fit.findings }
  const failed = fit.findings.some((f) => f.severity === 'error')
  const headline = `plan for ${plan.cluster}: ${plan.phases.length} phases, ${steps} steps on ${plan.nodes.length} nodes${failed ? '; the model does not fit' : ''}`
  return withManifestWarnings(
    {
      exitCode: failed ? 1 : 0,
      headline,
      text: `${renderPlanText(plan)}\n${renderFitText(fit.report)}${fit.findings.length > 0 ? `\n${renderFindingsText(fit.findings)}` : ''}`,
      json,
      summary: `${verdictLine(failed ? 'failed' : 'passed', headline)}\n\n${renderPlanMarkdown(plan)}\n${renderFitMarkdown(fit.report)}`,
      annotations: findingAnnotations(fit.findings),
      outputs: { result: failed ? 'failed' : 'planned', plan: JSON.stringify(json) },
      files: [{ output: 'plan-file', fileName: 'vllm-ray-deploy-plan.json', content: JSON.stringify(json, null, 2) + '\n' }],
    },
    loaded.value.warnings,
  )
}
