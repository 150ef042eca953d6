/**
 * The fabric-test stage: a real all-reduce over the fabric, one throw-away container of the
 * release's image (by its image ID) per node, all at once, with the release's env
 * (src/preflight/gather/collective.ts). It runs after the image is on every node and the
 * fingerprint said the release is new, and before release-files and stop-previous: a fabric that
 * cannot carry the collective (a firewall, an MTU, NCCL on sockets where RDMA was asked for) stops
 * the deploy with the running release untouched, where the same fault after stop-previous would be
 * a hung vLLM start and a rollback. `preflight.collective: false` skips it.
 */
import { runCollectiveChecks } from '../../preflight/checks/index.js'
import { sortFindings } from '../../preflight/diagnose.js'
import { runCollective } from '../../preflight/gather/collective.js'
import { expectationFromManifest } from '../../manifest/expectation.js'
import { imageRef } from '../../plan/node-commands.js'
import { type Stage, errorCodes, hasError, proceed, sayFindings, stop } from './context.js'

export const fabricTestStage: Stage = {
  name: 'fabric-test',
  when: (ctx) => !ctx.unchanged && ctx.m.preflight.collective,
  untouched: () => 'nothing was changed on the nodes (the fabric test runs before the previous release is stopped)',
  async run(ctx) {
    const { m, o, io } = ctx
    const collective = await runCollective(m, o.transports, {
      image: ctx.imageId ?? imageRef(m),
      onProgress: io.progress,
      ...(o.signal && { signal: o.signal }),
    })
    // Host facts (RDMA devices) come from the host checks when they ran; the collective's entries read the rest.
    const facts = { schemaVersion: 1 as const, gatheredAt: new Date().toISOString(), cluster: m.cluster, nodes: ctx.hostFacts?.nodes ?? [], collective }
    const findings = sortFindings(runCollectiveChecks(facts, expectationFromManifest(m)))
    ctx.collective = collective
    ctx.findings.push(...findings)
    sayFindings(io, findings)
    if (!hasError(findings)) return proceed
    const first = findings.find((f) => f.severity === 'error')!
    return stop({ code: first.code, message: `fabric test: ${errorCodes(findings)}: ${first.message}`, evidence: first.evidence, fix: first.fix })
  },
}
