/**
 * The lab's raw plan: the built-in (and launch-script) commands run one after another without
 * release files, the lock or the gates, which proves on the lab that the commands `plan` prints
 * for Ray and vLLM work when run by hand. A deploy does not run this: it runs the release plan
 * (src/plan/plan.ts planRollout) through its stages (src/deploy/stages). Test support only.
 */
import { distributionOf } from '../../../src/deploy/distribution/index.js'
import type { Manifest, ManifestNode } from '../../../src/manifest/schema.js'
import {
  headOf,
  imageRef,
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
} from '../../../src/plan/node-commands.js'
import { MINUTE, type Plan, type PlanOptions, type PlanPhase, type PlannedStep, clusterPhase, factsSteps, planNodes, stepOf } from '../../../src/plan/plan.js'

function prepareSteps(m: Manifest, node: ManifestNode, image: string): PlannedStep[] {
  const step = stepOf(m)
  const steps = distributionOf(m).planSteps(m, node, image)
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
  return [
    clusterPhase(m),
    {
      name: 'preflight',
      description: 'gather facts from every node and Ray; stop here on any error finding (the seed bug is caught here)',
      parallel: true,
      steps: factsSteps(m),
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
      steps: m.nodes.map((n) => step(n, 'upload-script', `upload ${path}`, uploadLaunchScript(m), MINUTE, { kind: 'file', path })),
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
