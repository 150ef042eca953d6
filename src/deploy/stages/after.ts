/**
 * After every gate passed: `current` moves to the release on every node, and releases beyond
 * `deploy.releasesKept` are pruned. The audit line is written by the runner at the very end, so it
 * records how the rollout ended.
 */
import { activateRelease, pruneReleases } from '../../plan/release-commands.js'
import { problem } from '../../result/result.js'
import { type PlannedPart, type StagePlanInput, onEveryNode } from './plan-parts.js'
import { type Stage, proceed, stop } from './stage.js'

/** The stage's part of `plan`, beside its run. */
const activatePart = ({ m, release }: StagePlanInput): PlannedPart[] => [
  {
    name: 'activate',
    description: `point \`current\` at release ${release.release} on every node`,
    parallel: true,
    steps: onEveryNode(m, 'activate', `current → ${release.release}, previous → the release current named`, () => activateRelease(m, release.release)),
  },
]

export const activateStage: Stage<'m' | 'release' | 'unchanged'> = {
  name: 'activate',
  needs: ['m', 'release', 'unchanged'],
  adds: [],
  plan: activatePart,
  changes: true,
  final: true,
  when: (ctx) => !ctx.unchanged,
  async run(ctx) {
    const act = await ctx.io.onAll(ctx.m, 'activate', activateRelease(ctx.m, ctx.release))
    if (act.ok) return proceed()
    return stop(problem('ACTIVATE_FAILED', act.detail, `Point current at ${ctx.release} by hand, or deploy again.`))
  },
}

/** The stage's part of `plan`, beside its run. */
const prunePart = ({ m }: StagePlanInput): PlannedPart[] => [
  {
    name: 'prune',
    description: `prune releases beyond the last ${m.deploy.releasesKept}`,
    parallel: true,
    steps: onEveryNode(m, 'prune', `keep the newest ${m.deploy.releasesKept} releases, and current and previous`, () => pruneReleases(m)),
  },
]

/** A prune that fails leaves old releases behind: reported as progress, the rollout stands. */
export const pruneStage: Stage<'m' | 'unchanged'> = {
  name: 'prune',
  needs: ['m', 'unchanged'],
  adds: [],
  plan: prunePart,
  final: true,
  when: (ctx) => !ctx.unchanged && ctx.command === 'deploy',
  async run(ctx) {
    await ctx.io.onAll(ctx.m, 'prune', pruneReleases(ctx.m))
    return proceed()
  },
}
