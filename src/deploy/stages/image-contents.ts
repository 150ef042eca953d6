/**
 * The image-contents stage: right after the image is on every node and before anything changes,
 * one throw-away container of the release's image (by its image ID) on the head says what the image
 * holds; an image that lacks what the executor needs (a Ray-less image under the Ray executor)
 * stops the deploy here, with the running release untouched. The versions go into the report.
 */
import { imageContentsFindings, contentsSummary } from '../../preflight/checks/image-contents.js'
import { IMAGE_CONTENTS_TIMEOUT_SECONDS, imageContentsProbe } from '../../plan/image-contents-commands.js'
import { headOf, imageRef } from '../../plan/node-commands.js'
import { parseImageContents } from '../../probe/image-contents.js'
import { problem } from '../../result/result.js'
import { outcome, succeeded } from '../../transport/transport.js'
import { type Stage, errorCodes, hasError, proceed, sayFindings, stop } from './context.js'

/** The tail of a failed probe's output, for evidence. */
const tail = (s: string): string => s.trim().slice(-300)

export const imageContentsStage: Stage = {
  name: 'image-contents',
  untouched: () => "nothing was changed on the nodes (the image's contents are read before the previous release is stopped)",
  async run(ctx) {
    const { m, o, io } = ctx
    const head = headOf(m)
    const imageId = ctx.imageId ?? imageRef(m)
    const t = o.transports.get(head.name)
    if (!t) return stop(problem('NODE_UNREACHABLE', `no connection to ${head.name}`, `Make sure ${head.name} is reachable over SSH.`))
    io.progress(`[${head.name}] reading what ${imageRef(m)} holds (docker run --rm ${imageId.replace(/^sha256:/, '').slice(0, 12)})`)
    const r = await t.run(imageContentsProbe(imageId), { timeoutMs: (IMAGE_CONTENTS_TIMEOUT_SECONDS + 15) * 1000 })
    const probe = !succeeded(r)
      ? { ok: false as const, error: `docker run ${outcome(r)}`, detail: tail(`${r.stderr}\n${r.stdout}`) }
      : parseImageContents(r.stdout)
    const input = { executor: m.vllm.executorBackend, imageRef: imageRef(m), imageId, node: head.name, probe }
    const findings = imageContentsFindings(input)
    if (probe.ok) {
      ctx.imageContents = probe.contents
      io.progress(`image holds ${contentsSummary(probe.contents)}`)
    }
    ctx.findings.push(...findings)
    sayFindings(io, findings)
    if (!hasError(findings)) return proceed
    const first = findings.find((f) => f.severity === 'error')!
    return stop({ code: first.code, message: `image contents: ${errorCodes(findings)}: ${first.message}`, evidence: first.evidence, fix: first.fix })
  },
}
