import { planRollout } from '../deploy/rollout-plan.js'
import type { PlanOptions } from '../plan/plan.js'
import { verdictLine } from '../report/verdict.js'
import { planJson, renderPlanMarkdown, renderPlanText } from '../report/plan.js'
import type { TaskOutcome } from './outcome.js'
import { checkOverrides, loadWithLaunchScript, withManifestWarnings } from './validate.js'

export async function planTask(path: string, opts: PlanOptions = {}): Promise<TaskOutcome> {
  const bad = checkOverrides(opts)
  if (bad) return bad
  const loaded = await loadWithLaunchScript(path)
  if (!loaded.ok) return loaded.problem
  const plan = planRollout(loaded.value.manifest, opts)
  const steps = plan.phases.reduce((s, p) => s + p.steps.length, 0)
  const json = planJson(plan)
  return withManifestWarnings(
    {
      exitCode: 0,
      headline: `plan for ${plan.cluster}: ${plan.phases.length} phases, ${steps} steps on ${plan.nodes.length} nodes`,
      text: renderPlanText(plan),
      json,
      summary: `${verdictLine('passed', `plan for ${plan.cluster}: ${plan.phases.length} phases, ${steps} steps on ${plan.nodes.length} nodes`)}\n\n${renderPlanMarkdown(plan)}`,
      annotations: [],
      outputs: { result: 'planned', plan: JSON.stringify(json) },
      files: [{ output: 'plan-file', fileName: 'vllm-ray-deploy-plan.json', content: JSON.stringify(json, null, 2) + '\n' }],
    },
    loaded.value.warnings,
  )
}
