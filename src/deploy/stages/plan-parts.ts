/**
 * What each stage of the rollout will run, for `plan`: each stage names its part here beside its
 * run (Stage.plan), and `plan` renders the stage list itself (rollout-plan.ts), so the plan cannot
 * describe a stage that does not run, nor leave out one that does (test/deploy/plan-is-run.test.ts).
 */
import { type Cmd, render } from '../../command/shell.js'
import { floorWords } from '../../preflight/memory/memory-watchdog.js'
import { killEngineCmd, memorySampleCmd } from '../../plan/memory-watch-commands.js'
import type { Manifest, ManifestNode } from '../../manifest/schema.js'
import { hostProbeCmd } from '../../plan/host-check-commands.js'
import { acquireLockCmd, deployLockDir, removeLockIfCmd } from '../../plan/lock-commands.js'
import { headOf } from '../../plan/node-commands.js'
import { type AroundStage, MINUTE, type Plan, type PhaseName, fabricTestSteps, imageContentsStep, stepOf } from '../../plan/plan.js'
import { activateRelease, pruneReleases, readNodeState } from '../../plan/release-commands.js'
import { distributionOf } from '../distribution/index.js'
import { auditParts } from './audit.js'
import { weightsPhase } from '../weights/plan-phase.js'
import { modelRelays } from '../weights/weights-plan.js'

/** What a stage's plan is made from: the manifest (the image override applied), the image, the release's own plan. */
export interface StagePlanInput {
  readonly m: Manifest
  readonly image: string
  /** planRelease's phases (files, stop, start, Ray, the gates), each start step with the command its file holds. */
  readonly release: Plan
}

/** One part of the plan: a name, what it does, and its exact commands per node. */
export type PlannedPart = AroundStage

/** The holder record the lock stage sends, with what is only known at run time left as placeholders (the head stamps since and expiresAt by its own clock). */
const holderTemplate = (release: string): string => JSON.stringify({ who: '<who>', run: '<run>', release, token: '<random>' })

const every = (m: Manifest, action: string, description: string, cmd: (n: ManifestNode) => Cmd): AroundStage['steps'] =>
  m.nodes.map((n) => stepOf(m)(n, action, description, cmd(n), 2 * MINUTE))

export const scriptCheckPart = ({ m }: StagePlanInput): PlannedPart[] =>
  m.launch.mode === 'script'
    ? [
        {
          name: 'script-check',
          description: `read ${m.launch.path} for the seed bug's overrides on this machine (deploy.scriptCheck: ${m.deploy.scriptCheck})`,
          parallel: false,
          steps: [],
        },
      ]
    : []

export const lockPart = ({ m, release }: StagePlanInput): PlannedPart[] => [
  {
    name: 'lock',
    description: `take the cluster's deploy lock on ${release.head} (mkdir is atomic; an expired lock is broken, a held one stops the deploy)`,
    parallel: false,
    steps: [
      stepOf(m)(
        headOf(m),
        'lock',
        'take the deploy lock',
        acquireLockCmd(deployLockDir(m), holderTemplate(release.release), m.deploy.lockTtlMinutes * 60),
        MINUTE,
      ),
    ],
  },
]

export const statePart = ({ m }: StagePlanInput): PlannedPart[] => {
  const { relay: imageRelay = false, alsoChecked } = distributionOf(m).hostChecks
  const relay = imageRelay || modelRelays(m)
  return [
    {
      name: 'state',
      description: `read every node's releases and run the host checks, at once; a release already current everywhere is not started again: only the preflight and the smoke test run`,
      parallel: true,
      steps: [
        ...every(m, 'state', 'read current, previous, the releases and the container', () => readNodeState(m)),
        ...every(
          m,
          'host-checks',
          `host checks: docker, GPUs, the fabric interfaces, disk${alsoChecked ? `, ${alsoChecked}` : ''}`,
          (n) => hostProbeCmd(m, n, relay).cmd,
        ),
      ],
    },
  ]
}

export const imagePart = ({ m, image }: StagePlanInput): PlannedPart[] => [
  {
    name: 'image',
    description: `${image} on every node (image.distribution: ${m.image.distribution}); a node that already has this exact image ID is skipped, and every node must end on one image ID`,
    parallel: distributionOf(m).parallel,
    steps: m.nodes.flatMap((n) => distributionOf(m).planSteps(m, n, image)),
  },
]

export const imageContentsPart = ({ m, image }: StagePlanInput): PlannedPart[] => [
  {
    name: 'image-contents',
    description: `read what ${image} holds, on ${headOf(m).name} in a throw-away container (by its image ID): Ray, vLLM, torch and its NCCL, Python; an image that lacks what vllm.executorBackend (${m.vllm.executorBackend}) needs stops the deploy before the previous release is stopped`,
    parallel: false,
    steps: [imageContentsStep(m, image)],
  },
]

export const weightsPart = ({ m }: StagePlanInput): PlannedPart[] => (m.model ? [weightsPhase(m)] : [])

export const fabricTestPart = ({ m, image }: StagePlanInput): PlannedPart[] =>
  m.preflight.collective
    ? [
        {
          name: 'fabric-test',
          description: `a real all-reduce over the fabric in ${image} on every node at once (preflight.collective); a failure, a hang or NCCL on sockets where RDMA was asked for stops the deploy before the previous release is stopped`,
          parallel: true,
          steps: fabricTestSteps(m, image),
        },
      ]
    : []

/** The release's own phases a stage runs (files, stop, start, Ray, the gates), from planRelease. */
export const releasePhasesPart =
  (phases: (m: Manifest) => readonly PhaseName[]) =>
  ({ m, release }: StagePlanInput): PlannedPart[] => {
    const names = phases(m)
    return release.phases.filter((p) => names.includes(p.name))
  }

/**
 * The start-up memory watchdog of the `vllm` stage (deploy.memoryWatchdog), for `plan`: which nodes,
 * how often, the floor, what it runs. Which nodes `auto` watches is known only from the host checks'
 * facts, so `plan` says what decides.
 */
export function memoryWatchdogWords(m: Manifest): string | undefined {
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
export const servePart = (input: StagePlanInput): PlannedPart[] => {
  const words = memoryWatchdogWords(input.m)
  return releasePhasesPart(() => ['vllm'])(input).map((p) => (words ? { ...p, description: `${p.description}; ${words}` } : p))
}

export const activatePart = ({ m, release }: StagePlanInput): PlannedPart[] => [
  {
    name: 'activate',
    description: `point \`current\` at release ${release.release} on every node`,
    parallel: true,
    steps: every(m, 'activate', `current → ${release.release}, previous → the release current named`, () => activateRelease(m, release.release)),
  },
]

export const prunePart = ({ m }: StagePlanInput): PlannedPart[] => [
  {
    name: 'prune',
    description: `prune releases beyond the last ${m.deploy.releasesKept}`,
    parallel: true,
    steps: every(m, 'prune', `keep the newest ${m.deploy.releasesKept} releases, and current and previous`, () => pruneReleases(m)),
  },
]

/** The runner's own work after the stages, whatever happened: the audit line and the unlock. */
export const runnerAfterParts = ({ m, release }: StagePlanInput): PlannedPart[] => [
  ...auditParts(m),
  {
    name: 'unlock',
    description: `release the deploy lock on ${release.head}, if it still holds this deploy's record`,
    parallel: false,
    steps: [stepOf(m)(headOf(m), 'unlock', 'release the deploy lock', removeLockIfCmd(deployLockDir(m), holderTemplate(release.release)), MINUTE)],
  },
]
