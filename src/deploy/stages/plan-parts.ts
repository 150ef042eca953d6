/**
 * What a stage's part of the plan is made from and what it is, and the helpers several stages'
 * parts share. Each stage's part lives beside its run in the stage's own file (Stage.plan), and
 * `plan` renders the stage list itself (rollout-plan.ts), so the plan cannot describe a stage that
 * does not run, nor leave out one that does (test/deploy/plan-is-run.test.ts).
 */
import type { Cmd } from '../../command/shell.js'
import type { Manifest, ManifestNode } from '../../manifest/schema.js'
import { type AroundStage, MINUTE, type Plan, type PhaseName, stepOf } from '../../plan/plan.js'

/** What a stage's plan is made from: the manifest (the image override applied), the image, the release's own plan. */
export interface StagePlanInput {
  readonly m: Manifest
  readonly image: string
  /** planRelease's phases (files, stop, start, Ray, the gates), each start step with the command its file holds. */
  readonly release: Plan
}

/** One part of the plan: a name, what it does, and its exact commands per node. */
export type PlannedPart = AroundStage

/** The holder record the lock stage sends and the unlock compares, with what is only known at run time left as placeholders (the head stamps since and expiresAt by its own clock). */
export const plannedLockHolder = (release: string): string => JSON.stringify({ who: '<who>', run: '<run>', release, token: '<random>' })

/** One step per node, each running `cmd(node)`. */
export const onEveryNode = (m: Manifest, action: string, description: string, cmd: (n: ManifestNode) => Cmd): AroundStage['steps'] =>
  m.nodes.map((n) => stepOf(m)(n, action, description, cmd(n), 2 * MINUTE))

/** The release's own phases a stage runs (files, stop, start, Ray, the gates), from planRelease. */
export const releasePhasesPart =
  (phases: (m: Manifest) => readonly PhaseName[]) =>
  ({ m, release }: StagePlanInput): PlannedPart[] => {
    const names = phases(m)
    return release.phases.filter((p) => names.includes(p.name))
  }
