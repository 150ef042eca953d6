/**
 * Variants of the workload image for lab faults, derived from the stand-in image (never from a
 * registry outside the lab) and pushed to the lab's own registry for the nodes to pull.
 *
 * - `no-ray`: the stand-in with Ray uninstalled — the `ray` module and the `ray` command gone, vLLM
 *   still there — like the stock vllm/vllm-openai image since vLLM 0.19 (vllm-project/vllm#33445;
 *   NVIDIA/dgx-spark-playbooks#109). The build asserts both are gone.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { labContext } from './lab-context.js'
import { inspectImage } from './images.js'
import type { LabOptions } from './lab-types.js'
import { IMAGES, LABEL, REGISTRY, WORKLOAD_REPOSITORY } from './layout.js'
import { ok } from '../result/result.js'
import { type LabResult, labFail } from './lab-problem.js'

export const NO_RAY_TAG = 'no-ray'

export const noRayRefs = {
  host: `${REGISTRY.hostHost}/${WORKLOAD_REPOSITORY}:${NO_RAY_TAG}`,
  node: `${REGISTRY.nodeHost}/${WORKLOAD_REPOSITORY}:${NO_RAY_TAG}`,
} as const

export const NO_RAY_DOCKERFILE = `FROM ${IMAGES.workload}
RUN pip uninstall --yes --disable-pip-version-check ray \\
 && ! python3 -c "import ray" 2>/dev/null \\
 && ! command -v ray \\
 && vllm --version
`

export interface LabImageVariant {
  /** As the lab nodes pull it. */
  readonly ref: string
  /** As this machine pushes it. */
  readonly hostRef: string
  readonly id: string
}

/** Build the Ray-less variant of the workload image (`lab up` built the stand-in) and push it to the lab registry. */
export async function ensureNoRayImage(opts: LabOptions = {}): Promise<LabResult<LabImageVariant>> {
  const context = labContext(opts)
  if (!context.ok) return context
  const ctx = context.value
  if (!(await inspectImage(ctx, IMAGES.workload))) return labFail('not-ready', `${IMAGES.workload} is missing`, 'run vllm-ray-deploy lab up first')
  const dir = join(ctx.paths.build, 'no-ray-context')
  await rm(dir, { recursive: true, force: true })
  await mkdir(dir, { recursive: true })
  try {
    await writeFile(join(dir, 'Dockerfile'), NO_RAY_DOCKERFILE)
    ctx.progress(`workload: building ${noRayRefs.host} (the stand-in with Ray uninstalled)`)
    const built = await ctx.runner.step(
      `build ${noRayRefs.host}`,
      ctx.docker.build({ tag: noRayRefs.host, context: dir, dockerfile: join(dir, 'Dockerfile'), labels: { [LABEL]: '1' } }),
      { timeoutMs: 10 * 60_000 },
    )
    if (!built.ok) return built
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
  const pushed = await ctx.runner.step(`push ${noRayRefs.host}`, ctx.docker.push(noRayRefs.host), {
    timeoutMs: 10 * 60_000,
    fix: 'the lab registry must be running: vllm-ray-deploy lab up',
  })
  if (!pushed.ok) return pushed
  const image = await inspectImage(ctx, noRayRefs.host)
  if (!image) return labFail('command-failed', `${noRayRefs.host} is missing right after its build`, 'run docker image ls; build it again')
  return ok({ ref: noRayRefs.node, hostRef: noRayRefs.host, id: image.id })
}
