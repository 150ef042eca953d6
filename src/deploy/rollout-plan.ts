/**
 * What `deploy` runs, for `plan` to show: the deploy's own stage list (DEPLOY_STAGES), each stage
 * giving its part with the exact commands (Stage.plan, beside its run in the stage's own file), then
 * the runner's audit and unlock. One model of the rollout: a stage that does not run is not planned,
 * and one that runs is (test/deploy/plan-is-run.test.ts).
 */
import { render } from '../command/shell.js'
import type { Manifest } from '../manifest/schema.js'
import { imageRef } from '../plan/node-commands.js'
import { PHASE_NAMES, type Plan, type PlanOptions, type PlanPhase, type PlannedStep, START_ACTIONS, planRelease } from '../plan/plan.js'
import { releaseServeCmd, releaseStartCmd } from '../plan/release-commands.js'
import { DEPLOY_STAGES } from './rollout.js'
import type { ListedStage } from './stages/stage.js'
import type { PlannedPart, StagePlanInput } from './stages/plan-parts.js'
import { runnerAfterParts } from './stages/runner.js'
import { withModel } from './weights/weights-plan.js'

/**
 * The plan of a deploy of `m0`. The release's phases (files, stop, start, Ray, the gates) come from
 * planRelease, each start step with the command its start.sh or serve.sh holds.
 */
export function planRollout(m0: Manifest, opts: PlanOptions = {}): Plan {
  const m: Manifest = withModel(opts.image ? { ...m0, image: { ...m0.image, ref: opts.image } } : m0)
  const image = imageRef(m)
  const own = planRelease(m, { release: opts.release ?? 'manual', files: 'write' })
  const runs = (s: PlannedStep): PlannedStep => {
    const node = m.nodes.find((n) => n.name === s.node)!
    const cmd = START_ACTIONS.includes(s.action)
      ? releaseStartCmd(m, node, image, own.release)
      : s.action === 'vllm-serve'
        ? releaseServeCmd(m, node)
        : undefined
    return cmd ? { ...s, runs: { cmd, command: render(cmd) } } : s
  }
  const release: Plan = { ...own, phases: own.phases.map((p) => ({ ...p, steps: p.steps.map(runs) })) }
  const input: StagePlanInput = { m, image, release }
  return { ...release, image, ...splitParts([...planStages(DEPLOY_STAGES, input), ...runnerAfterParts(input)]) }
}

/** Each stage's part of the plan, in the order the stages run. */
export const planStages = (stages: readonly ListedStage[], input: StagePlanInput): PlannedPart[] => stages.flatMap((s) => s.plan?.(input) ?? [])

const isPhase = (p: PlannedPart): p is PlanPhase => (PHASE_NAMES as readonly string[]).includes(p.name)

/** The parts as the plan's renderers read them: the stages around the phases, and the phases between. */
function splitParts(parts: readonly PlannedPart[]): Pick<Plan, 'phases' | 'around'> {
  const first = parts.findIndex(isPhase)
  const last = parts.findLastIndex(isPhase)
  if (first < 0) return { phases: [], around: { before: [...parts], after: [] } }
  const middle = parts.slice(first, last + 1)
  const stray = middle.find((p) => !isPhase(p))
  // bug: the stage list is this program's own; a stage part among the phases is a wiring mistake
  if (stray) throw new Error(`plan: the stage part ${stray.name} sits between the release's phases, where the renderers expect phases only`)
  return { phases: middle as PlanPhase[], around: { before: parts.slice(0, first), after: parts.slice(last + 1) } }
}
