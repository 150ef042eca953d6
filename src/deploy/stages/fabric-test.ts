/**
 * The fabric-test stage: a real all-reduce over the fabric, one throw-away container of the
 * release's image (by its image ID) per node, all at once, with the release's env
 * (src/preflight/gather/run-collective.ts). It runs after the image is on every node and the
 * fingerprint said the release is new, and before release-files and stop-previous: a fabric that
 * cannot carry the collective (a firewall, an MTU, NCCL on sockets where RDMA was asked for) stops
 * the deploy with the running release untouched, where the same fault after stop-previous would be
 * a hung vLLM start and a rollback. `preflight.collective: false` skips it.
 */
import { problemOf } from '../../preflight/finding.js'
import { runCollectiveChecks } from '../../preflight/checks/index.js'
import { sortFindings } from '../../preflight/offline-diagnosis.js'
import { runCollective } from '../../preflight/gather/run-collective.js'
import { expectationFromManifest } from '../../manifest/expectation.js'
import type { CollectiveFacts } from '../../preflight/facts.js'
import { collectivePath } from '../../probe/collective-program.js'
import type { FabricTestRank, FabricTestReport } from '../rollout-types.js'
import { type RolloutContext, type Stage, errorCodes, hasError, proceed, sayFindings, stop } from './stage.js'
import type { PlannedPart, StagePlanInput } from './plan-parts.js'
import { fabricTestSteps } from '../../plan/plan.js'

/** Each rank as its own result line says: the path that ran, the bytes it moved, its time and bus bandwidth. */
export function fabricTestRanks(c: CollectiveFacts): FabricTestRank[] {
  return c.ranks.map((r): FabricTestRank => {
    const l = r.line
    return {
      node: r.node,
      rank: r.rank,
      ok: l?.ok === true,
      ...(l?.ok && { path: collectivePath(l) }),
      ...(l?.ok && typeof l.bytes === 'number' && { bytes: l.bytes }),
      ...(l?.ok && typeof l.seconds === 'number' && { msPerAllReduce: l.seconds * 1000 }),
      ...(l?.ok && typeof l.busbwGBps === 'number' && { busGBps: l.busbwGBps }),
      ...(r.nccl?.network && { ncclNetwork: r.nccl.network }),
      ...(!l?.ok && { error: l ? `in ${l.stage ?? '?'}: ${l.error ?? 'failed'}` : (r.error ?? 'no result') }),
    }
  })
}

/**
 * The report's fabric test: what the stage found, or why it did not run when the deploy got past it
 * without running it. Undefined when nothing can be said (a rollback, or a stop before the stage).
 */
export function fabricTestReport(ctx: RolloutContext, reached: boolean): FabricTestReport | undefined {
  if (ctx.fabricTest) return ctx.fabricTest
  if (ctx.command !== 'deploy') return undefined
  if (!ctx.m.preflight.collective) return { status: 'disabled', reason: 'preflight.collective: false in the manifest' }
  if (reached && ctx.unchanged) return { status: 'skipped', reason: 'the release is unchanged: nothing was started, so the fabric was not tested again' }
  return undefined
}

/** The stage's part of `plan`, beside its run. */
const fabricTestPart = ({ m, image }: StagePlanInput): PlannedPart[] =>
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

export const fabricTestStage: Stage<'m' | 'unchanged' | 'imageId' | 'hostFacts', 'collective' | 'fabricTest'> = {
  name: 'fabric-test',
  needs: ['m', 'unchanged', 'imageId', 'hostFacts'],
  adds: ['collective', 'fabricTest'],
  plan: fabricTestPart,
  when: (ctx) => !ctx.unchanged && ctx.m.preflight.collective,
  untouched: () => 'nothing was changed on the nodes (the fabric test runs before the previous release is stopped)',
  async run(ctx) {
    const { m, o, io } = ctx
    const collective = await runCollective(m, o.transports, {
      image: ctx.imageId,
      onProgress: io.progress,
      ...(o.signal && { signal: o.signal }),
    })
    // Host facts (RDMA devices) come from the host checks when they ran; the collective's entries read the rest.
    const facts = { schemaVersion: 1 as const, gatheredAt: new Date().toISOString(), cluster: m.cluster, nodes: ctx.hostFacts.nodes, collective }
    const findings = sortFindings(runCollectiveChecks(facts, expectationFromManifest(m)))
    const fabricTest: FabricTestReport = {
      status: hasError(findings) || collective.ranks.some((r) => !r.line?.ok) ? 'failed' : 'passed',
      ranks: fabricTestRanks(collective),
    }
    const adds = { collective, fabricTest }
    sayFindings(io, findings)
    if (!hasError(findings)) return proceed(adds, { findings })
    const first = findings.find((f) => f.severity === 'error')!
    return stop(problemOf(first, `fabric test: ${errorCodes(findings)}: ${first.message}`), { adds, findings })
  },
}
