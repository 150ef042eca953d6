import type { Result } from '../result/result.js'
import type { Manifest, ManifestNode } from '../manifest/schema.js'
import type { Finding } from '../preflight/finding.js'
import { runSmoke } from '../smoke/gate.js'
import { SshTransport } from '../transport/ssh.js'
import { type SshCredentials, sshTargetFor } from '../transport/targets.js'
import type { Transport } from '../transport/transport.js'
import { headOf } from '../plan/node-commands.js'
import { executorOf } from '../plan/executor-commands.js'
import { smokeFinding } from '../smoke/smoke-finding.js'
import { latencyRowsFrom, smokeNodeRows } from '../report/smoke-summary.js'
import { escapeMarkdown } from '../report/escape.js'
import { renderSummary } from '../report/summary.js'
import { renderSmokeFiguresMarkdown } from '../smoke/smoke-report.js'
import type { TaskOutcome } from './outcome.js'
import { findingAnnotations } from './finding-annotations.js'
import { loadOrFail } from './validate.js'

export interface SmokeOptions {
  readonly credentials: SshCredentials
  readonly env: NodeJS.ProcessEnv
  readonly onProgress?: (message: string) => void
  /** Override how nodes are reached (tests); default SSH from the manifest. */
  readonly connect?: (m: Manifest, node: ManifestNode) => Promise<Result<Transport>>
  /** A cancel (SIGINT/SIGTERM): the smoke stops and exits 130 with no verdict on the cluster. */
  readonly signal?: AbortSignal
}

/** `smoke`: the same gate the deploy ends with (src/smoke/gate.ts), on a serving cluster. */
export async function smokeTask(path: string, opts: SmokeOptions): Promise<TaskOutcome> {
  const loaded = await loadOrFail(path)
  if (!loaded.ok) return loaded.problem
  const m = loaded.value.manifest
  const connect = opts.connect ?? ((mm: Manifest, node: ManifestNode) => SshTransport.connect(sshTargetFor(mm, node, opts.credentials)))
  // The nodes the smoke's checks read: the head (readiness, the tunnel, Ray's tables), and under the
  // native executor every serving node (its own process and sockets prove it is in the group).
  const head = headOf(m)
  const needed = m.vllm.executorBackend === 'mp' && m.smoke.clusterProof ? executorOf(m).serveNodes(m) : [head]
  const transports = new Map<string, Transport>()
  const unreachable = new Map<string, string>()
  await Promise.all(
    needed.map(async (node) => {
      const r = await connect(m, node)
      if (r.ok) transports.set(node.name, r.value)
      else unreachable.set(node.name, `SSH to ${node.ssh.host}:${node.ssh.port ?? m.ssh.port} failed: ${r.problem.message}`)
    }),
  )
  const headError = unreachable.get(head.name)
  const connectProblem: Finding | undefined = headError
    ? smokeFinding(
        'SMOKE_UNREACHABLE',
        `Cannot reach the head ${head.name} over SSH: ${headError}`,
        { head: `${head.ssh.host}:${head.ssh.port ?? m.ssh.port}` },
        'Fix SSH to the head (key, host key pin, network): vllm-ray-deploy preflight says more.',
        head.name,
      )
    : undefined
  try {
    const r = await runSmoke({
      manifest: m,
      transports,
      env: opts.env,
      ...(unreachable.size > 0 && { unreachable }),
      ...(opts.signal && { signal: opts.signal }),
      ...(opts.onProgress && { onProgress: opts.onProgress }),
    })
    const findings = connectProblem ? [connectProblem, ...r.findings] : r.findings
    const cancelled = r.cancelled === true
    const ok = r.ok && !connectProblem
    const errors = findings.filter((f) => f.severity === 'error').length
    const verdict = cancelled ? 'cancelled' : ok ? 'passed' : 'failed'
    const headline = cancelled
      ? `smoke test of ${m.cluster}: cancelled before it reached a verdict (nothing on the cluster was changed)`
      : ok
        ? `smoke test of ${m.cluster}: passed (${r.outputs.model})`
        : `smoke test of ${m.cluster}: failed with ${errors} error${errors === 1 ? '' : 's'} (${[...new Set(findings.filter((f) => f.severity === 'error').map((f) => f.code))].join(', ')})`
    return {
      exitCode: cancelled ? 130 : ok ? 0 : 1,
      headline,
      text: connectProblem ? `${connectProblem.message}\n${r.text}` : r.text,
      json: { ...r.json, verdict, findings },
      // The operator's view (node table, diagram, latency, findings), then the smoke's own figures.
      summary: `${renderSummary({
        verdict: cancelled ? 'cancelled' : ok ? (findings.some((f) => f.severity === 'warning') ? 'warnings' : 'passed') : 'failed',
        headline,
        fabricSubnet: m.fabric.subnet,
        nodes: smokeNodeRows(m, r.report.proof, findings),
        findings,
        checks: ['smoke test'],
        latency: latencyRowsFrom(r.report.inference),
      })}\n#### Smoke test of ${escapeMarkdown(m.cluster)}: ${verdict}\n\n${renderSmokeFiguresMarkdown(r.report)}`,
      annotations: findingAnnotations(findings),
      outputs: {
        ...r.outputs,
        verdict,
        result: verdict,
        findings: JSON.stringify(findings),
        'error-count': String(errors),
        'warning-count': String(findings.filter((f) => f.severity === 'warning').length),
      },
      files: [],
    }
  } finally {
    await Promise.all([...transports.values()].map((t) => t.close()))
  }
}
