/**
 * The image-contents stage: right after the image is on every node and before anything changes,
 * one throw-away container of the release's image (by its image ID) on the head says what the image
 * holds; an image that lacks what the executor needs (a Ray-less image under the Ray executor)
 * stops the deploy here, with the running release untouched. The versions go into the report.
 */
import { problemOf } from '../../preflight/finding.js'
import { imageContentsFindings, contentsSummary } from '../../preflight/checks/image-contents-checks.js'
import { cudaDriverFindings } from '../../preflight/checks/cuda-driver.js'
import { manifestVllmVersion } from '../../manifest/vllm-release.js'
import { imageRef, vllmServeArgv } from '../../plan/node-commands.js'
import { imageContentsStep } from '../../plan/plan.js'
import { type ImageContentsParse, parseImageContents } from '../../probe/image-contents-probe.js'
import { fail, ok, problem } from '../../result/result.js'
import { type Transport, outcome, succeeded } from '../../transport/transport.js'
import type { PlannedStep } from '../../plan/plan.js'
import { rememberedImageContents } from '../image-contents-memo.js'
import { type Stage, type StageInput, errorCodes, hasError, proceed, sayFindings, stop } from './stage.js'

/** The tail of a failed probe's output, for evidence. */
const tail = (s: string): string => s.trim().slice(-300)

import type { PlannedPart, StagePlanInput } from './plan-parts.js'
import { headOf } from '../../plan/node-commands.js'
import { RELEASE_FILE } from '../../plan/release-commands.js'

/** The stage's part of `plan`, beside its run. */
const imageContentsPart = ({ m, image }: StagePlanInput): PlannedPart[] => [
  {
    name: 'image-contents',
    description: `read what ${image} holds, on ${headOf(m).name} in a throw-away container (by its image ID): Ray, vLLM, torch and its NCCL, Python; an image that lacks what vllm.executorBackend (${m.vllm.executorBackend}) needs stops the deploy before the previous release is stopped; an image ID the current release already read is not read again (its ${RELEASE_FILE.imageContents})`,
    parallel: false,
    steps: [imageContentsStep(m, image)],
  },
]

/**
 * The probe's answer for this image ID: what the head's current release recorded for the same image
 * ID and probe program (src/deploy/image-contents-memo.ts), else one throw-away container on the head.
 */
async function readContents(ctx: StageInput<'m' | 'imageId' | 'states'>, step: PlannedStep, t: Transport): Promise<ImageContentsParse> {
  const head = ctx.states.get(step.node)
  const kept = rememberedImageContents(head?.imageContentsRecord, ctx.imageId)
  if (kept) {
    ctx.io.progress(
      `[${step.node}] image contents of ${ctx.imageId.replace(/^sha256:/, '').slice(0, 19)} as release ${head?.current} recorded them (same image ID): not read again`,
    )
    return ok(kept)
  }
  ctx.io.progress(`[${step.node}] ${step.action}: ${step.description} of ${imageRef(ctx.m)} (${ctx.imageId.replace(/^sha256:/, '').slice(0, 19)})`)
  const r = await t.run(step.cmd, { timeoutMs: step.timeoutSeconds * 1000 })
  return !succeeded(r)
    ? fail(problem('IMAGE_PROBE_FAILED', `docker run ${outcome(r)}`, undefined, { output: tail(`${r.stderr}\n${r.stdout}`) }))
    : parseImageContents(r.stdout)
}

export const imageContentsStage: Stage<'m' | 'imageId' | 'hostFacts' | 'states', 'imageContents'> = {
  name: 'image-contents',
  needs: ['m', 'imageId', 'hostFacts', 'states'],
  adds: ['imageContents'],
  plan: imageContentsPart,
  untouched: () => "nothing was changed on the nodes (the image's contents are read before the previous release is stopped)",
  async run(ctx) {
    const { m, o, io } = ctx
    const { imageId } = ctx
    // The plan's step, as `plan` shows it, with the image named by its ID.
    const step = imageContentsStep(m, imageId)
    const t = o.transports.get(step.node)
    if (!t) return stop(problem('NODE_UNREACHABLE', `no connection to ${step.node}`, `Make sure ${step.node} is reachable over SSH.`))
    const probe = await readContents(ctx, step, t)
    const stated = manifestVllmVersion(m)
    // What vllm serve will be given on every node: the tool's own flags and vllm.args.
    const serveWords = m.nodes.flatMap((n) => vllmServeArgv(m, n).slice(2))
    const input = {
      executor: m.vllm.executorBackend,
      imageRef: imageRef(m),
      imageId,
      node: step.node,
      probe,
      vllmArgs: m.vllm.args,
      serveWords,
      ...(stated && { statedVersion: stated }),
    }
    // The image's CUDA against every node's driver (the host checks read each one's).
    const drivers = ctx.hostFacts.nodes.map((f) => ({
      node: f.node,
      ...(f.host?.driverVersion && { driverVersion: f.host.driverVersion }),
      ...(f.host?.cudaVersion && { cudaVersion: f.host.cudaVersion }),
      ...(f.gpus[0]?.name && { gpuName: f.gpus[0].name }),
    }))
    const findings = [...imageContentsFindings(input), ...(probe.ok ? cudaDriverFindings(imageRef(m), probe.value, drivers, m.launch.mode === 'builtin') : [])]
    if (probe.ok) io.progress(`image holds ${contentsSummary(probe.value)}`)
    const adds = { imageContents: probe.ok ? probe.value : undefined }
    sayFindings(io, findings)
    if (!hasError(findings)) return proceed(adds, { findings })
    const first = findings.find((f) => f.severity === 'error')!
    return stop(problemOf(first, `image contents: ${errorCodes(findings)}: ${first.message}`), { adds, findings })
  },
}
