/**
 * manifest → plan. Pure and deterministic: the same manifest and options always give the same
 * plan. The plan lists, phase by phase, which command runs on which node; the executor
 * (src/execute/execute.ts) runs the phases in order and the steps of a parallel phase at the same time.
 */
import { type Cmd, render } from '../command/shell.js'
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import { boundedTimeoutSeconds, describeSshEndpoint, sshEndpointOf } from '../manifest/ssh-settings.js'
import { PROBE_TIMEOUT_SECONDS, probeCommand } from '../probe/probe-command.js'
import {
  headOf,
  imageRef,
  inspectImage,
  loadImage,
  pullImage,
  rayAliveNodes,
  rayHeadReady,
  removeContainer,
  retry,
  runLaunchScript,
  runRayContainer,
  startVllm,
  uploadLaunchScript,
  vllmHealth,
  vllmHealthUrl,
  writeSecretEnv,
} from './node-commands.js'
import { relayFanOut } from './relay-commands.js'
import { RELEASE_FILE, releaseServeCmd, releaseStartCmd, runReleaseFile, verifyRelease, writeReleaseFiles, writeReleaseSecretEnv } from './release-commands.js'

/** Where a step's stdin comes from. Secrets are named, never included. */
export type StepInput =
  | { readonly kind: 'secret-env'; readonly names: readonly string[] }
  | { readonly kind: 'image-archive'; readonly image: string }
  | { readonly kind: 'file'; readonly path: string; readonly allowOutsideRepository?: boolean }
  /** The facts probe program (src/probe/node-probe.ts). */
  | { readonly kind: 'probe' }
  /** A release's files for this node (src/deploy/release-files.ts), as the JSON the writer reads. */
  | { readonly kind: 'release-files'; readonly release: string }

export interface PlannedStep {
  /** `<node>/<action>`, unique in the plan. */
  readonly id: string
  readonly node: string
  readonly action: string
  readonly description: string
  readonly cmd: Cmd
  /** The exact line the node's shell runs (rendered by the one quoting function). */
  readonly command: string
  readonly timeoutSeconds: number
  readonly stdin?: StepInput
  /**
   * For a step that runs a release file (start.sh, serve.sh): the command in that file, as `plan`
   * shows it (the written file names the image by its ID where this shows the reference).
   */
  readonly runs?: { readonly cmd: Cmd; readonly command: string }
}

/** Every phase a plan can hold, in the order a rollout runs them. */
export const PHASE_NAMES = [
  'prepare',
  'image',
  'release-files',
  'stop-previous',
  'upload-launch-script',
  'ray-head',
  'ray-workers',
  'launch-head',
  'launch-workers',
  'ray-cluster',
  'preflight',
  'vllm',
  'smoke',
] as const
export type PhaseName = (typeof PHASE_NAMES)[number]

export interface PlanPhase {
  readonly name: PhaseName
  readonly description: string
  /** Steps of different nodes run at the same time; steps of one node always run in order. */
  readonly parallel: boolean
  readonly steps: readonly PlannedStep[]
}

export interface Plan {
  readonly cluster: string
  readonly image: string
  readonly release: string
  readonly head: string
  readonly nodes: readonly { readonly name: string; readonly role: string; readonly ssh: string; readonly fabricIp: string }[]
  readonly launch: 'builtin' | 'script'
  readonly phases: readonly PlanPhase[]
  /**
   * What the rollout does around the phases without a command of its own (checks, the lock, the
   * release pointer), in order: `before` the first phase, `after` the last one.
   */
  readonly around?: { readonly before: readonly string[]; readonly after: readonly string[] }
}

export interface PlanOptions {
  /** Image reference overriding the manifest's (the action's `image` input). */
  readonly image?: string
  /** Release id recorded on the containers (e.g. the commit SHA). Default: `manual`. */
  readonly release?: string
}

const MINUTE = 60

/** Every step's timeout is bounded by `ssh.commandTimeoutSeconds` (src/manifest/ssh-settings.ts). */
function stepOf(m: Manifest) {
  return (node: ManifestNode, action: string, description: string, cmd: Cmd, ownTimeoutSeconds: number, stdin?: StepInput): PlannedStep => ({
    id: `${node.name}/${action}`,
    node: node.name,
    action,
    description,
    cmd,
    command: render(cmd),
    timeoutSeconds: boundedTimeoutSeconds(m.ssh, ownTimeoutSeconds),
    ...(stdin && { stdin }),
  })
}

const planNodes = (m: Manifest): Plan['nodes'] =>
  m.nodes.map((n) => ({ name: n.name, role: n.role, ssh: describeSshEndpoint(sshEndpointOf(m.ssh, n)), fabricIp: n.fabricIp }))

function imageSteps(m: Manifest, node: ManifestNode, image: string): PlannedStep[] {
  const step = stepOf(m)
  switch (m.image.distribution) {
    case 'pull':
      return [step(node, 'image', `pull ${image}`, pullImage(image), m.ssh.commandTimeoutSeconds)]
    case 'load':
      return [
        step(node, 'image', `load ${image} streamed from the runner (docker save)`, loadImage(), m.ssh.commandTimeoutSeconds, { kind: 'image-archive', image }),
      ]
    case 'relay': {
      // The head gets the archive from the runner, loads it and copies the same stream into each
      // worker's docker load over the fabric, all at once.
      if (node.role !== 'head') return []
      const workers = m.nodes.filter((w) => w.role !== 'head')
      const to = workers.map((w) => `${w.name} (${w.fabricIp})`).join(', ')
      return [
        step(
          node,
          'image',
          workers.length > 0
            ? `load ${image} streamed from the runner (docker save), once for the whole cluster, and copy the same stream into ${to} over the fabric`
            : `load ${image} streamed from the runner (docker save)`,
          workers.length > 0 ? relayFanOut(m, workers) : loadImage(),
          60 * MINUTE,
          { kind: 'image-archive', image },
        ),
      ]
    }
    case 'preloaded':
      return [step(node, 'image', `check ${image} is present`, inspectImage(image), MINUTE)]
  }
}

function prepareSteps(m: Manifest, node: ManifestNode, image: string): PlannedStep[] {
  const step = stepOf(m)
  const steps = imageSteps(m, node, image)
  if (m.container.secretEnv.length > 0) {
    steps.push(
      step(node, 'secret-env', `write ${m.container.secretEnv.join(', ')} to a root-only env file`, writeSecretEnv(m), MINUTE, {
        kind: 'secret-env',
        names: m.container.secretEnv,
      }),
    )
  }
  steps.push(step(node, 'remove-old', `remove the previous ${m.container.name} container`, removeContainer(m.container.name), 2 * MINUTE))
  return steps
}

function builtinPhases(m: Manifest, image: string, release: string): PlanPhase[] {
  const step = stepOf(m)
  const head = headOf(m)
  const workers = m.nodes.filter((n) => n.role === 'worker')
  const rayWait = 2 * MINUTE
  return [
    {
      name: 'ray-head',
      description: `start the Ray head on ${head.name} as ${head.fabricIp}`,
      parallel: false,
      steps: [
        step(
          head,
          'ray-start',
          `docker run ${m.container.name}: ray start --head --node-ip-address=${head.fabricIp}`,
          runRayContainer(m, head, image, release),
          5 * MINUTE,
        ),
        step(head, 'ray-ready', 'wait until the Ray head answers `ray status`', retry(rayHeadReady(m), rayWait), rayWait + 30),
      ],
    },
    {
      name: 'ray-workers',
      description: `join ${workers.length} worker(s) to ${head.fabricIp}:${m.ray.port}`,
      parallel: true,
      steps: workers.map((w) =>
        step(
          w,
          'ray-start',
          `docker run ${m.container.name}: ray start --address=${head.fabricIp}:${m.ray.port} --node-ip-address=${w.fabricIp}`,
          runRayContainer(m, w, image, release),
          5 * MINUTE,
        ),
      ),
    },
    ...tailPhases(m),
  ]
}

/** After Ray is started (by us or by the user's script): wait for every node, check, then serve. */
function tailPhases(m: Manifest): PlanPhase[] {
  const step = stepOf(m)
  const head = headOf(m)
  const wait = 3 * MINUTE
  return [
    {
      name: 'ray-cluster',
      description: `wait until Ray on ${head.name} lists ${m.nodes.length} alive nodes`,
      parallel: false,
      steps: [step(head, 'ray-cluster', `wait for ${m.nodes.length} alive Ray nodes`, retry(rayAliveNodes(m, m.nodes.length), wait, 2), wait + 30)],
    },
    {
      name: 'preflight',
      description: 'gather facts from every node and Ray; stop here on any error finding (the seed bug is caught here)',
      parallel: true,
      steps: m.nodes.map((n) =>
        step(
          n,
          'facts',
          n.role === 'head'
            ? "facts probe (interfaces, routes, GPUs, container env, vLLM's IP) plus Ray's node list"
            : "facts probe (interfaces, routes, GPUs, container env, vLLM's IP)",
          probeCommand(m, n).cmd,
          PROBE_TIMEOUT_SECONDS,
          { kind: 'probe' },
        ),
      ),
    },
    {
      name: 'vllm',
      description: `start vllm serve on ${head.name} (TP=${m.vllm.tensorParallelSize}, PP=${m.vllm.pipelineParallelSize}) and wait for /health`,
      parallel: false,
      steps: [
        step(head, 'vllm-serve', `vllm serve ${m.vllm.model}`, startVllm(m), 2 * MINUTE),
        step(
          head,
          'vllm-health',
          `wait for ${vllmHealthUrl(m)} (up to ${m.smoke.readyTimeoutSeconds} s; the placement-group log is watched meanwhile)`,
          retry(vllmHealth(m), m.smoke.readyTimeoutSeconds, 5),
          m.smoke.readyTimeoutSeconds + 30,
        ),
      ],
    },
  ]
}

function scriptPhases(m: Manifest, image: string): PlanPhase[] {
  const step = stepOf(m)
  if (m.launch.mode !== 'script') return []
  const head = headOf(m)
  const workers = m.nodes.filter((n) => n.role === 'worker')
  const path = m.launch.path
  return [
    {
      name: 'upload-launch-script',
      description: `copy ${path} to every node`,
      parallel: true,
      steps: m.nodes.map((n) =>
        step(n, 'upload-script', `upload ${path}`, uploadLaunchScript(m), MINUTE, {
          kind: 'file',
          path,
          ...(m.launch.mode === 'script' && m.launch.allowOutsideRepository && { allowOutsideRepository: true }),
        }),
      ),
    },
    {
      name: 'launch-head',
      description: `run the launch script on ${head.name} (VRD_ROLE=head)`,
      parallel: false,
      steps: [step(head, 'launch', 'run the launch script as head', runLaunchScript(m, head, image), 30 * MINUTE)],
    },
    {
      name: 'launch-workers',
      description: 'run the launch script on the workers (VRD_ROLE=worker)',
      parallel: true,
      steps: workers.map((w) => step(w, 'launch', 'run the launch script as worker', runLaunchScript(m, w, image), 30 * MINUTE)),
    },
    ...tailPhases(m),
  ]
}

export function planDeploy(m: Manifest, opts: PlanOptions = {}): Plan {
  const image = imageRef(m, opts.image)
  const release = opts.release ?? 'manual'
  const head = headOf(m)
  const prepare: PlanPhase = {
    name: 'prepare',
    description: 'image on every node, secrets written, previous container removed',
    parallel: true,
    steps: m.nodes.flatMap((n) => prepareSteps(m, n, image)),
  }
  return {
    cluster: m.cluster,
    image,
    release,
    head: head.name,
    nodes: planNodes(m),
    launch: m.launch.mode,
    phases: [prepare, ...(m.launch.mode === 'builtin' ? builtinPhases(m, image, release) : scriptPhases(m, image))],
  }
}

/** The plan seen per node: every step of that node, in execution order. */
export function stepsByNode(plan: Plan): Map<string, PlannedStep[]> {
  const byNode = new Map<string, PlannedStep[]>(plan.nodes.map((n) => [n.name, []]))
  for (const phase of plan.phases) for (const s of phase.steps) byNode.get(s.node)?.push(s)
  return byNode
}

export interface ReleasePlanOptions {
  readonly release: string
  /**
   * `write`: the release's files are sent to every node (a deploy); `verify`: they are already on
   * the nodes and are checked against their SHA256SUMS (a rollback starts a release from its own files).
   */
  readonly files: 'write' | 'verify'
}

/**
 * A rollout of one release whose image is already on every node: its files, the previous container
 * stopped, Ray up from the release's own start.sh (built-in or the user's script), every node in
 * Ray, the identity preflight (a gate, no commands of its own), vllm serve from serve.sh (gated by
 * the start-up watcher) and the smoke test (a gate). The gates run between phases (executor's
 * afterPhase).
 */
export function planRelease(m: Manifest, opts: ReleasePlanOptions): Plan {
  const step = stepOf(m)
  const head = headOf(m)
  const workers = m.nodes.filter((n) => n.role === 'worker')
  const id = opts.release
  const files: PlanPhase = {
    name: 'release-files',
    description:
      opts.files === 'write' ? `write release ${id} to every node (secrets apart, 0600)` : `check release ${id}'s files on every node against their SHA256SUMS`,
    parallel: true,
    steps: m.nodes.flatMap((n) =>
      opts.files === 'write'
        ? [
            step(
              n,
              'release-files',
              `write release ${id}: start/serve scripts, env, manifest snapshot, image ID, SHA256SUMS`,
              writeReleaseFiles(m, id),
              MINUTE,
              { kind: 'release-files', release: id },
            ),
            ...(m.container.secretEnv.length > 0
              ? [
                  step(
                    n,
                    'secret-env',
                    `write ${m.container.secretEnv.join(', ')} to release ${id}'s root-only env file`,
                    writeReleaseSecretEnv(m, id),
                    MINUTE,
                    { kind: 'secret-env', names: m.container.secretEnv },
                  ),
                ]
              : []),
          ]
        : [step(n, 'release-verify', `sha256sum --check release ${id}`, verifyRelease(m, id), MINUTE)],
    ),
  }
  const stop: PlanPhase = {
    name: 'stop-previous',
    description: `stop and remove the running ${m.container.name} container on every node`,
    parallel: true,
    steps: m.nodes.map((n) => step(n, 'remove-old', `remove the previous ${m.container.name} container`, removeContainer(m.container.name), 2 * MINUTE)),
  }
  const start = (n: ManifestNode) =>
    step(
      n,
      'ray-start',
      `start release ${id} (${RELEASE_FILE.start}, ${m.launch.mode === 'builtin' ? `ray start on ${n.fabricIp}` : 'the launch script'})`,
      runReleaseFile(m, id, RELEASE_FILE.start),
      m.launch.mode === 'builtin' ? 5 * MINUTE : 30 * MINUTE,
    )
  const rayWait = 2 * MINUTE
  const [headPhase, workerPhase]: [PhaseName, PhaseName] = m.launch.mode === 'builtin' ? ['ray-head', 'ray-workers'] : ['launch-head', 'launch-workers']
  const tail = tailPhases(m)
  const cluster = tail.find((p) => p.name === 'ray-cluster')!
  return {
    cluster: m.cluster,
    image: m.image.ref,
    release: id,
    head: head.name,
    nodes: planNodes(m),
    launch: m.launch.mode,
    phases: [
      files,
      stop,
      {
        name: headPhase,
        description: `start release ${id} on the head ${head.name}`,
        parallel: false,
        steps: [
          start(head),
          ...(m.launch.mode === 'builtin'
            ? [step(head, 'ray-ready', 'wait until the Ray head answers `ray status`', retry(rayHeadReady(m), rayWait), rayWait + 30)]
            : []),
        ],
      },
      { name: workerPhase, description: `start release ${id} on ${workers.length} worker(s)`, parallel: true, steps: workers.map(start) },
      cluster,
      {
        name: 'preflight',
        description: 'gather facts from every node and Ray and check the Ray/vLLM identity wiring (the gate that catches the seed bug)',
        parallel: true,
        steps: [],
      },
      {
        name: 'vllm',
        description: `start vllm serve on ${head.name} from ${RELEASE_FILE.serve} and watch it until /health answers (up to ${m.smoke.readyTimeoutSeconds} s)`,
        parallel: false,
        steps: [step(head, 'vllm-serve', `vllm serve ${m.vllm.model}`, runReleaseFile(m, id, RELEASE_FILE.serve), 2 * MINUTE)],
      },
      { name: 'smoke', description: 'the smoke test against the new server', parallel: false, steps: [] },
    ],
  }
}

/**
 * What `deploy` runs, for `plan` to show: the image on every node (the image gate runs these
 * commands, and skips a node that already has the exact image ID), then the release's own plan
 * (planRelease: files, stop, Ray, the preflight gate, vllm serve, the smoke gate), with the
 * stages around them that have no command of their own.
 */
export function planRollout(m0: Manifest, opts: PlanOptions = {}): Plan {
  const m: Manifest = opts.image ? { ...m0, image: { ...m0.image, ref: opts.image } } : m0
  const image = imageRef(m)
  const release = planRelease(m, { release: opts.release ?? 'manual', files: 'write' })
  const imagePhase: PlanPhase = {
    name: 'image',
    description: `${image} on every node (image.distribution: ${m.image.distribution}); a node that already has this exact image ID is skipped, and every node must end on one image ID`,
    parallel: m.image.distribution !== 'relay',
    steps: m.nodes.flatMap((n) => imageSteps(m, n, image)),
  }
  const runs = (s: PlannedStep): PlannedStep => {
    const node = m.nodes.find((n) => n.name === s.node)!
    const cmd = s.action === 'ray-start' ? releaseStartCmd(m, node, image, release.release) : s.action === 'vllm-serve' ? releaseServeCmd(m) : undefined
    return cmd ? { ...s, runs: { cmd, command: render(cmd) } } : s
  }
  return {
    ...release,
    image,
    phases: [imagePhase, ...release.phases.map((p) => ({ ...p, steps: p.steps.map(runs) }))],
    around: {
      before: [
        ...(m.launch.mode === 'script' ? [`read ${m.launch.path} for the seed bug's overrides (deploy.scriptCheck: ${m.deploy.scriptCheck})`] : []),
        `take the cluster's deploy lock on ${release.head}`,
        `read every node's releases and run the host checks (docker, GPUs, the fabric interfaces, disk${m.image.distribution === 'relay' ? ', SSH from the head to each worker over the fabric' : ''}); a release already current everywhere is not started again: only the preflight and the smoke test run`,
      ],
      after: [
        `point \`current\` at release ${release.release} on every node`,
        `prune releases beyond the last ${m.deploy.releasesKept}`,
        'append an audit line on every node and release the lock; on a failed gate, deploy.onFailure says what happens (rollback, stop or keep)',
      ],
    },
  }
}
