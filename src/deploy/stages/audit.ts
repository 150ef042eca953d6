/**
 * The audit line: the runner's own work after the stages, whatever happened (a rollout that took
 * the lock appends one JSON line to audit.jsonl on every node). What it runs and what `plan` shows
 * of it are both here, so a setting that changes one changes the other in this file.
 */
import type { Manifest } from '../../manifest/schema.js'
import { type AroundStage, MINUTE, stepOf } from '../../plan/plan.js'
import { appendAudit } from '../../plan/release-commands.js'
import type { RolloutContext } from './stage.js'
import type { ReportCore } from './derive-report.js'

/** The audit's part of the plan. */
export const auditParts = (m: Manifest): AroundStage[] => [
  {
    name: 'audit',
    description:
      'append an audit line on every node (also after a failure); on a failed gate, deploy.onFailure says what happens first (rollback, stop or keep)',
    parallel: true,
    steps: m.nodes.map((n) => stepOf(m)(n, 'audit', 'append one JSON line (stdin) to audit.jsonl', appendAudit(m), 2 * MINUTE)),
  },
]

/** Append the rollout's audit line on every node. */
export async function writeAudit(ctx: RolloutContext, m: Manifest, rep: ReportCore): Promise<void> {
  const { o, io } = ctx
  await io.inStage('audit', async () => {
    const entry = {
      command: rep.command,
      release: rep.release,
      imageId: rep.imageId ?? null,
      ...(rep.command === 'deploy' && { fingerprint: rep.fingerprint ?? null }),
      result: rep.result,
      rolledBack: rep.rolledBack,
      previous: rep.previousRelease ?? null,
      ...(rep.failure && { failedAt: rep.failure.stage }),
      ...(rep.imageContents && {
        imageContents: {
          vllm: rep.imageContents.vllm.version,
          ray: rep.imageContents.ray.module ? rep.imageContents.ray.version : null,
          torch: rep.imageContents.torch.version,
          nccl: rep.imageContents.torch.nccl,
          python: rep.imageContents.python,
        },
      }),
    }
    const line = `${JSON.stringify({ at: new Date().toISOString(), who: o.who, ...(o.run && { run: o.run }), cluster: m.cluster, ...entry })}\n`
    const r = await io.onAll(m, 'audit', appendAudit(m), line)
    io.progress(r.ok ? 'one line appended to audit.jsonl on every node' : `audit not written everywhere: ${r.detail}`)
  })
}
