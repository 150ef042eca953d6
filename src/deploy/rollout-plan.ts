/**
 * What `deploy` runs, for `plan` to show: the stages with their exact commands. Built from the same
 * parts the stages run: the distribution mode's image steps (src/deploy/distribution), the release's
 * own plan (planRelease), and the commands of the stages around them (lock, state and host checks,
 * activate, prune, audit, unlock).
 */
import { type Cmd, render } from '../command/shell.js'
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import { hostProbeCmd } from '../plan/host-check-commands.js'
import { acquireLockCmd, deployLockDir, removeLockIfCmd } from '../plan/lock-commands.js'
import { headOf, imageRef } from '../plan/node-commands.js'
import {
  type AroundStage,
  MINUTE,
  type Plan,
  type PlanOptions,
  type PlanPhase,
  type PlannedStep,
  fabricTestSteps,
  imageContentsStep,
  planRelease,
  stepOf,
} from '../plan/plan.js'
import { START_ACTIONS } from '../plan/plan.js'
import { activateRelease, appendAudit, pruneReleases, readNodeState, releaseServeCmd, releaseStartCmd } from '../plan/release-commands.js'
import { distributionOf } from './distribution/index.js'
import { weightsPhase } from './weights/plan-phase.js'
import { modelRelays } from './weights/plan.js'
import { withModel } from './weights/plan.js'

/**
 * What `deploy` runs, for `plan` to show: the image on every node (the image gate runs these
 * commands, and skips a node that already has the exact image ID), then the release's own plan
 * (planRelease: files, stop, Ray, the preflight gate, vllm serve, the smoke gate), with the
 * stages around them that have no command of their own.
 */
export function planRollout(m0: Manifest, opts: PlanOptions = {}): Plan {
  const m: Manifest = withModel(opts.image ? { ...m0, image: { ...m0.image, ref: opts.image } } : m0)
  const image = imageRef(m)
  const release = planRelease(m, { release: opts.release ?? 'manual', files: 'write' })
  const imagePhase: PlanPhase = {
    name: 'image',
    description: `${image} on every node (image.distribution: ${m.image.distribution}); a node that already has this exact image ID is skipped, and every node must end on one image ID`,
    parallel: distributionOf(m).parallel,
    steps: m.nodes.flatMap((n) => distributionOf(m).planSteps(m, n, image)),
  }
  const contentsPhase: PlanPhase = {
    name: 'image-contents',
    description: `read what ${image} holds, on ${headOf(m).name} in a throw-away container (by its image ID): Ray, vLLM, torch and its NCCL, Python; an image that lacks what vllm.executorBackend (${m.vllm.executorBackend}) needs stops the deploy before the previous release is stopped`,
    parallel: false,
    steps: [imageContentsStep(m, image)],
  }
  const fabricPhase: PlanPhase = {
    name: 'fabric-test',
    description: `a real all-reduce over the fabric in ${image} on every node at once (preflight.collective); a failure, a hang or NCCL on sockets where RDMA was asked for stops the deploy before the previous release is stopped`,
    parallel: true,
    steps: fabricTestSteps(m, image),
  }
  const runs = (s: PlannedStep): PlannedStep => {
    const node = m.nodes.find((n) => n.name === s.node)!
    const cmd = START_ACTIONS.includes(s.action)
      ? releaseStartCmd(m, node, image, release.release)
      : s.action === 'vllm-serve'
        ? releaseServeCmd(m, node)
        : undefined
    return cmd ? { ...s, runs: { cmd, command: render(cmd) } } : s
  }
  return {
    ...release,
    image,
    phases: [
      imagePhase,
      contentsPhase,
      ...(m.model ? [weightsPhase(m)] : []),
      ...(m.preflight.collective ? [fabricPhase] : []),
      ...release.phases.map((p) => ({ ...p, steps: p.steps.map(runs) })),
    ],
    around: aroundStages(m, release.head, release.release),
  }
}

/** The holder record the lock stage sends, with what is only known at run time left as placeholders (the head stamps since and expiresAt by its own clock). */
const holderTemplate = (release: string): string => JSON.stringify({ who: '<who>', run: '<run>', release, token: '<random>' })

function aroundStages(m: Manifest, head: string, release: string): NonNullable<Plan['around']> {
  const step = stepOf(m)
  const headNode = headOf(m)
  const { relay: imageRelay = false, alsoChecked } = distributionOf(m).hostChecks
  const relay = imageRelay || modelRelays(m)
  const every = (action: string, description: string, cmd: (n: ManifestNode) => Cmd) => m.nodes.map((n) => step(n, action, description, cmd(n), 2 * MINUTE))
  const lockDir = deployLockDir(m)
  const before: AroundStage[] = [
    ...(m.launch.mode === 'script'
      ? [
          {
            name: 'script-check',
            description: `read ${m.launch.path} for the seed bug's overrides on this machine (deploy.scriptCheck: ${m.deploy.scriptCheck})`,
            parallel: false,
            steps: [],
          },
        ]
      : []),
    {
      name: 'lock',
      description: `take the cluster's deploy lock on ${head} (mkdir is atomic; an expired lock is broken, a held one stops the deploy)`,
      parallel: false,
      steps: [step(headNode, 'lock', 'take the deploy lock', acquireLockCmd(lockDir, holderTemplate(release), m.deploy.lockTtlMinutes * 60), MINUTE)],
    },
    {
      name: 'state',
      description: `read every node's releases and run the host checks, at once; a release already current everywhere is not started again: only the preflight and the smoke test run`,
      parallel: true,
      steps: [
        ...every('state', 'read current, previous, the releases and the container', () => readNodeState(m)),
        ...every(
          'host-checks',
          `host checks: docker, GPUs, the fabric interfaces, disk${alsoChecked ? `, ${alsoChecked}` : ''}`,
          (n) => hostProbeCmd(m, n, relay).cmd,
        ),
      ],
    },
  ]
  const after: AroundStage[] = [
    {
      name: 'activate',
      description: `point \`current\` at release ${release} on every node`,
      parallel: true,
      steps: every('activate', `current → ${release}, previous → the release current named`, () => activateRelease(m, release)),
    },
    {
      name: 'prune',
      description: `prune releases beyond the last ${m.deploy.releasesKept}`,
      parallel: true,
      steps: every('prune', `keep the newest ${m.deploy.releasesKept} releases, and current and previous`, () => pruneReleases(m)),
    },
    {
      name: 'audit',
      description:
        'append an audit line on every node (also after a failure); on a failed gate, deploy.onFailure says what happens first (rollback, stop or keep)',
      parallel: true,
      steps: every('audit', 'append one JSON line (stdin) to audit.jsonl', () => appendAudit(m)),
    },
    {
      name: 'unlock',
      description: `release the deploy lock on ${head}, if it still holds this deploy's record`,
      parallel: false,
      steps: [step(headNode, 'unlock', 'release the deploy lock', removeLockIfCmd(lockDir, holderTemplate(release)), MINUTE)],
    },
  ]
  return { before, after }
}
