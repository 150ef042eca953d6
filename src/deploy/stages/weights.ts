/**
 * The weights stage (with `model:`): after the image stages and before the fingerprint and
 * anything that stops the running release, the model's files onto every node at model.path,
 * verified by SHA-256, only what a node lacks moved (src/deploy/weights/transfer.ts). Its
 * manifest's identity goes into the fingerprint and the manifest into the release's weights.json.
 */
import { dirname } from 'node:path'
import { problem } from '../../result/result.js'
import { hubPlanner } from '../weights/hub-seam.js'
import { weightsManifestText, weightsIdentity } from '../weights/manifest.js'
import { deliverWeights } from '../weights/transfer.js'
import { type Stage, proceed, sayFindings, stop } from './context.js'

export const weightsStage: Stage = {
  name: 'weights',
  when: (ctx) => ctx.source === 'new' && ctx.m.model !== undefined,
  untouched: () => 'the running release was not touched (the weights stage runs before the previous release is stopped)',
  async run(ctx) {
    const { m, o, io } = ctx
    if (io.cancelled) return stop(problem('CANCELLED', 'cancelled before the weights stage', 'Deploy again.'), { cancelled: true })
    const out = await deliverWeights({
      m,
      transports: o.transports,
      env: o.env,
      cwd: dirname(o.manifestPath),
      onProgress: io.progress,
      ...(o.signal && { signal: o.signal }),
      ...(hubPlanner && { hub: hubPlanner }),
    })
    ctx.weights = out.report
    ctx.findings.push(...out.findings)
    sayFindings(
      io,
      out.findings.filter((f) => f.severity !== 'error'),
    )
    if (out.manifest) ctx.weightsManifest = { identity: weightsIdentity(out.manifest), text: weightsManifestText(out.manifest) }
    if (!out.ok) return stop(out.problem!, { ...(out.problem?.code === 'CANCELLED' && { cancelled: true }) })
    return proceed
  },
}
