import type { Manifest, ManifestNode } from '../manifest/schema.js'
import type { Finding } from '../preflight/finding.js'
import { runSmoke } from '../smoke/gate.js'
import { SshTransport } from '../transport/ssh.js'
import { type SshCredentials, sshTargetFor } from '../transport/targets.js'
import type { Transport } from '../transport/transport.js'
import { headOf } from '../plan/node-commands.js'
import { smokeFinding } from '../smoke/finding.js'
import { latencyRowsFrom, smokeNodeRows } from '../report/smoke-summary.js'
import { escapeMarkdown } from '../report/escape.js'
import { renderSummary } from '../report/summary.js'
import { renderSmokeFiguresMarkdown } from '../smoke/report.js'
import type { TaskOutcome } from './outcome.js'
import { findingAnnotations } from './findings-outcome.js'
import { loadOrFail } from './validate.js'

export interface SmokeOptions {
  readonly credentials: SshCredentials
  readonly env: NodeJS.ProcessEnv
  readonly onProgress?: (message: string) => void
  /** Override how nodes are reached (tests); default SSH from the manifest. */
  readonly connect?: (m: Manifest, node: ManifestNode) => Promise<Transport>
}

/** `smoke`: the same gate the deploy ends with (src/smoke/gate.ts), on a serving cluster. */
export async function smokeTask(path: string, opts: SmokeOptions): Promise<TaskOutcome> {
  const loaded = await loadOrFail(path)
  if (!loaded.ok) return loaded.outcome
  const m = loaded.manifest
  const connect = opts.connect ?? ((mm: Manifest, node: ManifestNode) => SshTransport.connect(sshTargetFor(mm, node, opts.credentials)))
  // The smoke needs only the head: readiness, the tunnel and Ray's tables all live there.
  const head = headOf(m)
  let t: Transport | undefined
  let connectProblem: Finding | undefined
  try {
    t = await connect(m, head)
  } catch (err) {
    connectProblem = smokeFinding(
      'SMOKE_UNREACHABLE',
      `Cannot reach the head ${head.name} over SSH: ${(err as Error).message}`,
      { head: `${head.ssh.host}:${head.ssh.port ?? m.ssh.port}` },
      'Fix SSH to the head (key, host key pin, network): vllm-ray-deploy preflight says more.',
      head.name,
    )
  }
  try {
    const r = await runSmoke({
      manifest: m,
      transports: new Map(t ? [[head.name, t]] : []),
      env: opts.env,
      ...(opts.onProgress && { onProgress: opts.onProgress }),
    })
    const findings = connectProblem ? [connectProblem, ...r.findings] : r.findings
    const ok = r.ok && !connectProblem
    const errors = findings.filter((f) => f.severity === 'error').length
    const headline = ok
      ? `smoke test of ${m.cluster}: passed (${r.outputs.model})`
      : `smoke test of ${m.cluster}: failed with ${errors} error${errors === 1 ? '' : 's'} (${[...new Set(findings.filter((f) => f.severity === 'error').map((f) => f.code))].join(', ')})`
    return {
      exitCode: ok ? 0 : 1,
      headline,
      text: connectProblem ? `${connectProblem.message}\n${r.text}` : r.text,
      json: { ...r.json, verdict: ok ? 'passed' : 'failed', findings },
      // The operator's view (node table, diagram, latency, findings), then the smoke's own figures.
      summary: `${renderSummary({
        verdict: ok ? (findings.some((f) => f.severity === 'warning') ? 'warnings' : 'passed') : 'failed',
        headline,
        fabricSubnet: m.fabric.subnet,
        nodes: smokeNodeRows(m, r.report.proof, findings),
        findings,
        checks: ['smoke test'],
        latency: latencyRowsFrom(r.report.inference),
      })}\n#### Smoke test of ${escapeMarkdown(m.cluster)}: ${ok ? 'passed' : 'failed'}\n\n${renderSmokeFiguresMarkdown(r.report)}`,
      annotations: findingAnnotations(findings),
      outputs: {
        ...r.outputs,
        verdict: ok ? 'passed' : 'failed',
        result: ok ? 'passed' : 'failed',
        findings: JSON.stringify(findings),
        'error-count': String(errors),
        'warning-count': String(findings.filter((f) => f.severity === 'warning').length),
      },
      files: [],
    }
  } finally {
    await t?.close()
  }
}
