/**
 * manifest → plan. Pure and deterministic: the same manifest and options always give the same
 * plan. The plan lists, phase by phase, which command runs on which node; the executor
 * (src/execute/execute.ts) runs the phases in order and the steps of a parallel phase at the same time.
 * The deploy's full plan, with its image phase and the stages around the phases, is
 * src/deploy/rollout-plan.ts.
 */
import { verifyTeardown } from './teardown-commands.js'
import { type Cmd, render, seq } from '../command/shell.js'
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import { boundedTimeoutSeconds, describeSshEndpoint, sshEndpointOf } from '../manifest/ssh-settings.js'
import { PROBE_TIMEOUT_SECONDS, probeCommand } from '../probe/probe-command.js'
import { executorOf, nodeRank } from './executor-commands.js'
import { headOf, rayAliveNodes, rayHeadReady, removeContainer, retry } from './node-commands.js'
import { RELEASE_FILE, runReleaseFile, verifyRelease, writeReleaseFiles, writeReleaseSecretEnv } from './release-commands.js'
import { COLLECTIVE_BYTES, COLLECTIVE_ITERS, COLLECTIVE_START_SLACK_SECONDS, collectiveRank } from './collective-commands.js'
import { collectiveWholeSeconds } from '../probe/collective-program.js'
import { IMAGE_CONTENTS_TIMEOUT_SECONDS, imageContentsProbe } from './image-contents-commands.js'

/** Where a step's stdin comes from. Secrets are named, never included. */
export type StepInput =
  | { readonly kind: 'secret-env'; readonly names: readonly string[] }
  /** One secret's raw value (a token file's content, e.g. HF_TOKEN for a hub download). */
  | { readonly kind: 'secret-value'; readonly name: string }
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
  'image',
  'image-contents',
  'weights',
  'fabric-test',
  'fit',
  'release-files',
  'stop-previous',
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

/** A rollout stage outside the executor's phases, shown with its commands like a phase. */
export interface AroundStage {
  readonly name: string
  readonly description: string
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
   * The rollout's stages around the phases, in order, with the exact commands they run: `before`
   * the first phase (script check, lock, node state and host checks), `after` the last one
   * (activate, prune, audit, unlock). The rollout's stages run these themselves, not the executor.
   */
  readonly around?: { readonly before: readonly AroundStage[]; readonly after: readonly AroundStage[] }
}

export interface PlanOptions {
  /** Image reference overriding the manifest's (the action's `image` input). */
  readonly image?: string
  /** Release id recorded on the containers (e.g. the commit SHA). Default: `manual`. */
  readonly release?: string
}

export const MINUTE = 60

/** Every step's timeout is bounded by `ssh.commandTimeoutSeconds` (src/manifest/ssh-settings.ts). */
export function stepOf(m: Manifest) {
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

export const planNodes = (m: Manifest): Plan['nodes'] =>
  m.nodes.map((n) => ({ name: n.name, role: n.role, ssh: describeSshEndpoint(sshEndpointOf(m.ssh, n)), fabricIp: n.fabricIp }))

/** The image-contents probe on the head: what the image-contents stage runs (`image` is the image ID at run time). */
export const imageContentsStep = (m: Manifest, image: string): PlannedStep =>
  stepOf(m)(headOf(m), 'image-contents', 'image-contents probe (docker run --rm, no network)', imageContentsProbe(image), IMAGE_CONTENTS_TIMEOUT_SECONDS + 15)

/** The action name of the step that runs a release's start.sh. */
export const START_ACTIONS: readonly string[] = ['ray-start', 'node-start']

/**
 * The names the launch's phases and steps go by, in progress lines, log groups, the report's
 * `failure.stage` and `plan`: the one place they come from. Ray's names only where this tool starts
 * Ray itself (the built-in launcher with the Ray executor); a launch script starts whatever it
 * starts (`launch-head`, `node-start`); the cluster wait (Ray's node list) only where Ray runs.
 */
export interface LaunchLabels {
  readonly head: PhaseName
  readonly workers: PhaseName
  /** The wait until every node is in Ray; unset where no Ray runs (vLLM's native executor). */
  readonly cluster?: PhaseName
  /** The step that runs start.sh on a node. */
  readonly start: (typeof START_ACTIONS)[number]
  /** The head's wait for `ray status`, after its start (the built-in Ray launcher). */
  readonly ready?: string
}

export function launchLabels(m: Manifest): LaunchLabels {
  const ray = executorOf(m).startsRay
  if (m.launch.mode === 'builtin' && ray) return { head: 'ray-head', workers: 'ray-workers', cluster: 'ray-cluster', start: 'ray-start', ready: 'ray-ready' }
  return { head: 'launch-head', workers: 'launch-workers', ...(ray && { cluster: 'ray-cluster' as const }), start: 'node-start' }
}

/** The phases that start the nodes: Ray's with the built-in Ray launcher, else the generic launch phases. */
export const launchPhases = (m: Manifest): readonly [PhaseName, PhaseName] => {
  const l = launchLabels(m)
  return [l.head, l.workers]
}
/**
 * The fabric collective's ranks, one per node, at once: what the fabric-test stage runs (`image` is
 * the image ID at run time; the rendezvous port is one the head picks free at run time, 0 here).
 */
export const fabricTestSteps = (m: Manifest, image: string): PlannedStep[] => {
  const head = headOf(m)
  const timeout = m.preflight.collectiveTimeoutSeconds
  return m.nodes.map((n, rank) =>
    stepOf(m)(
      n,
      'fabric-test',
      `rank ${rank} of an all-reduce over the fabric (docker run --rm --network host, the release's env, NCCL_DEBUG=INFO), rendezvous on ${head.fabricIp} at a port picked free on ${head.name}`,
      collectiveRank(m, n, image, {
        rank,
        world: m.nodes.length,
        addr: head.fabricIp,
        port: 0,
        ip: n.fabricIp,
        bytes: COLLECTIVE_BYTES,
        iters: COLLECTIVE_ITERS,
        timeout,
      }),
      collectiveWholeSeconds(timeout) + COLLECTIVE_START_SLACK_SECONDS + 15,
    ),
  )
}

/** Wait until Ray on the head lists every node alive. */
export function clusterPhase(m: Manifest): PlanPhase {
  const head = headOf(m)
  const wait = 3 * MINUTE
  return {
    name: 'ray-cluster',
    description: `wait until Ray on ${head.name} lists ${m.nodes.length} alive nodes`,
    parallel: false,
    steps: [stepOf(m)(head, 'ray-cluster', `wait for ${m.nodes.length} alive Ray nodes`, retry(rayAliveNodes(m, m.nodes.length), wait, 2), wait + 30)],
  }
}

/** The facts probe on every node: what the preflight gate runs (src/preflight/gather). */
export function factsSteps(m: Manifest): PlannedStep[] {
  const step = stepOf(m)
  return m.nodes.map((n) =>
    step(
      n,
      'facts',
      n.role === 'head' && executorOf(m).startsRay
        ? "facts probe (interfaces, routes, GPUs, container env, vLLM's IP) plus Ray's node list"
        : "facts probe (interfaces, routes, GPUs, container env, vLLM's IP)",
      probeCommand(m, n).cmd,
      PROBE_TIMEOUT_SECONDS,
      { kind: 'probe' },
    ),
  )
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

/** vllm serve from each serving node's serve.sh: the head alone under Ray, every node at once in the native mode. */
function servePhase(m: Manifest, id: string): PlanPhase {
  const step = stepOf(m)
  const head = headOf(m)
  const native = m.vllm.executorBackend === 'mp'
  const serving = executorOf(m).serveNodes(m)
  return {
    name: 'vllm',
    description: native
      ? `start vllm serve on every node from ${RELEASE_FILE.serve} (${head.name} rank 0 with the API, the others --headless), watch every node until all ${m.nodes.length} joined the process group at ${head.fabricIp}:${m.vllm.masterPort} (a rendezvous that does not complete stops the deploy within seconds), then ${head.name} until /health answers (up to ${m.smoke.readyTimeoutSeconds} s)`
      : `start vllm serve on ${head.name} from ${RELEASE_FILE.serve} and watch it until /health answers (up to ${m.smoke.readyTimeoutSeconds} s)`,
    parallel: native,
    steps: serving.map((n) =>
      step(
        n,
        'vllm-serve',
        native ? `vllm serve ${m.vllm.model} --node-rank ${nodeRank(m, n)}${n.role === 'head' ? '' : ' --headless'}` : `vllm serve ${m.vllm.model}`,
        runReleaseFile(m, id, RELEASE_FILE.serve),
        2 * MINUTE,
      ),
    ),
  }
}

/**
 * A rollout of one release whose image is already on every node: its files, the previous container
 * stopped, Ray up from the release's own start.sh (built-in or the user's script), every node in
 * Ray, the identity preflight (a gate, no commands of its own), vllm serve from serve.sh (gated by
 * the start-up watcher) and the smoke test (a gate). The rollout's stages run these phases and the
 * gates between them (src/deploy/stages).
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
    description: `stop and remove the running ${m.container.name} container on every node, then wait until every process of the release current names is gone and the GPU holds none (up to ${m.deploy.teardownTimeoutSeconds} s)`,
    parallel: true,
    // One command per node (one round trip): the removal, then the check, whose JSON line is the last of its output.
    steps: m.nodes.map((n) =>
      step(
        n,
        'verify-stopped',
        `remove the previous ${m.container.name} container, then wait until every process and container of the release current names is gone (its leftovers killed, never another's) and no process is on the GPU`,
        seq(removeContainer(m.container.name), verifyTeardown(m)),
        2 * MINUTE + m.deploy.teardownTimeoutSeconds + MINUTE,
      ),
    ),
  }
  const ex = executorOf(m)
  const start = (n: ManifestNode) =>
    step(
      n,
      labels.start,
      `start release ${id} (${RELEASE_FILE.start}, ${m.launch.mode === 'builtin' ? ex.startWords(m, n) : 'the launch script'})`,
      runReleaseFile(m, id, RELEASE_FILE.start),
      m.launch.mode === 'builtin' ? 5 * MINUTE : 30 * MINUTE,
    )
  const rayWait = 2 * MINUTE
  const labels = launchLabels(m)
  const native = m.vllm.executorBackend === 'mp'
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
        name: labels.head,
        description: `start release ${id} on the head ${head.name}`,
        parallel: false,
        steps: [
          start(head),
          ...(labels.ready ? [step(head, labels.ready, 'wait until the Ray head answers `ray status`', retry(rayHeadReady(m), rayWait), rayWait + 30)] : []),
        ],
      },
      { name: labels.workers, description: `start release ${id} on ${workers.length} worker(s)`, parallel: true, steps: workers.map(start) },
      ...(labels.cluster ? [clusterPhase(m)] : []),
      {
        name: 'preflight',
        description: native
          ? 'gather facts from every node and check the native-mode identity wiring (master address, ranks, fabric variables)'
          : 'gather facts from every node and Ray and check the Ray/vLLM identity wiring (the gate that catches the seed bug)',
        parallel: true,
        steps: factsSteps(m),
      },
      servePhase(m, id),
      { name: 'smoke', description: 'the smoke test against the new server', parallel: false, steps: [] },
    ],
  }
}
