/**
 * The smoke test as one function: the deploy's last gate and the whole of `smoke` (CLI and
 * Action). Readiness through the start-up watcher on the head, then the API through an SSH tunnel
 * (or smoke.url), the inference checks and the metrics delta, then the cluster proof from Ray.
 * The deploy's seam (src/deploy/smoke-seam.ts) takes its input and result types from here.
 */
import { type WatchResult, lastLogLine, watchVllmStartup } from '../preflight/watch-vllm.js'
import type { Manifest } from '../manifest/schema.js'
import { VLLM_LOG, headOf } from '../plan/node-commands.js'
import { sortFindings } from '../preflight/offline-diagnosis.js'
import type { Finding } from '../preflight/finding.js'
import { argv } from '../command/shell.js'
import type { Transport } from '../transport/transport.js'
import { outcome } from '../transport/transport.js'
import { type ClusterProof, RAY_PLACEMENT_PY, parseRayPlacement, proveCluster } from './cluster-proof.js'
import { nativeProofLine, proveNativeCluster } from './native-proof.js'
import { smokeFinding } from './smoke-finding.js'
import { type SmokeHttp, createHttpClient } from './http.js'
import { type InferenceResult, runInference, servedName } from './inference.js'
import { type PerformanceRecord, performanceRecord } from './performance.js'
import { type SmokeReport, renderSmokeMarkdown, renderSmokeText, smokeJson, smokeOutputs } from './smoke-report.js'

export interface SmokeGateInput {
  readonly manifest: Manifest
  readonly transports: ReadonlyMap<string, Transport>
  readonly env: NodeJS.ProcessEnv
  readonly onProgress?: (m: string) => void
  /** Nodes with no transport, and why (their connection error): a check that needs them says it could not look. */
  readonly unreachable?: ReadonlyMap<string, string>
  /** A cancel: the waits and node commands in flight stop, and the smoke ends without a verdict on the release. */
  readonly signal?: AbortSignal
  /** The release the smoke measures: its figures come back as a performance record (src/smoke/performance.ts). */
  readonly release?: string
}

export interface SmokeGateResult {
  readonly ok: boolean
  readonly findings: readonly Finding[]
  readonly text: string
  readonly outputs: Readonly<Record<string, string>>
  readonly summary: string
  /** The smoke was cancelled (its signal aborted) before it reached a verdict. */
  readonly cancelled?: boolean
  /** The figures it measured, for the performance gate (with a release, when it measured any). */
  readonly performance?: PerformanceRecord
}

/** Everything the gate saw, for the task's JSON. */
export interface SmokeGateDetail extends SmokeGateResult {
  readonly report: SmokeReport
  readonly json: ReturnType<typeof smokeJson>
}

export async function runSmokeGate(input: SmokeGateInput): Promise<SmokeGateResult> {
  const { ok, findings, text, outputs, summary, cancelled, report } = await runSmoke(input)
  const performance = input.release && report.inference ? performanceRecord(input.manifest, input.release, report.inference) : undefined
  return { ok, findings, text, outputs, summary, ...(cancelled && { cancelled }), ...(performance && { performance }) }
}

/** The Ray query on the head: vLLM's placement group and the node list. */
export const rayPlacementQuery = (m: Manifest) => argv('docker', 'exec', m.container.name, 'python3', '-c', RAY_PLACEMENT_PY)

/** The cluster proof's progress line: where the bundles sit, or that there is no placement group (never "on no nodes"). */
export function placementLine(proof: ClusterProof): string {
  const pg = proof.placementGroup
  const on = proof.serving.map((x) => x.node ?? x.ip).join(', ')
  if (!pg) return "smoke: Ray has no live placement group with GPU bundles for vLLM (the cluster's finding says more)"
  return `smoke: placement group ${pg.state}, ${on ? `bundles on ${on}` : 'no bundle on a live Ray node'}`
}

/** What the smoke saw so far; `smokeDetail` turns it into the result. */
interface SmokeSeen {
  via: string
  readyAfterMs?: number
  inference?: InferenceResult
  proof?: ClusterProof
  /** Cancelled before it could finish: no verdict on the release. */
  cancelled?: boolean
  readonly findings: Finding[]
}

export async function runSmoke(input: SmokeGateInput): Promise<SmokeGateDetail> {
  const m = input.manifest
  const s = m.smoke
  const say = (t: string) => input.onProgress?.(t)
  const head = headOf(m)
  const seen: SmokeSeen = { via: s.url ?? `SSH tunnel through ${head.name} to 127.0.0.1:${m.vllm.port}`, findings: [] }
  const { findings } = seen
  const finish = () => smokeDetail(m, seen)

  /** The cluster proof runs even when readiness or inference failed: it names the node that is missing. */
  const prove = async (t: Transport): Promise<void> => {
    if (!s.clusterProof) return
    if (m.vllm.executorBackend === 'mp') {
      const native = await proveNativeCluster(m, input.transports, {
        ...(input.unreachable && { unreachable: input.unreachable }),
        ...(input.signal && { signal: input.signal }),
      })
      seen.proof = native
      findings.push(...native.findings)
      return say(nativeProofLine(native))
    }
    const proved = await proveFromRay(m, t)
    if ('code' in proved) {
      findings.push(proved)
      return
    }
    seen.proof = proved
    findings.push(...proved.findings)
    say(placementLine(proved))
  }

  const headT = input.transports.get(head.name)
  if (!headT) {
    findings.push(
      smokeFinding(
        'SMOKE_UNREACHABLE',
        `No connection to the head node ${head.name}.`,
        { head: head.name },
        `Check that ${head.name} (${head.ssh.host}) is reachable over SSH.`,
        head.name,
      ),
    )
    return finish()
  }

  // 1. Readiness: /health on the head, the process and its log on every poll.
  say(`smoke: waiting for vLLM on ${head.name} (up to ${s.readyTimeoutSeconds} s)`)
  const w = await watchVllmStartup(headT, m, {
    deadlineMs: s.readyTimeoutSeconds * 1000,
    ...(input.onProgress && { onProgress: input.onProgress }),
    ...(input.signal && { signal: input.signal }),
  })
  if (input.signal?.aborted) {
    seen.cancelled = true
    return finish()
  }
  if (!w.ready) {
    findings.push(...notReadyFindings(m, w))
    await prove(headT)
    return finish()
  }
  seen.readyAfterMs = w.waitedMs
  // The server is up: what its log showed on the way (a placement group that waited, then formed) is history, not a failure.
  findings.push(
    ...w.findings.map((f) =>
      f.severity === 'error' ? { ...f, severity: 'warning' as const, message: `Before vLLM became ready, its log showed: ${f.message}` } : f,
    ),
  )
  say(`smoke: vLLM ready after ${(w.waitedMs / 1000).toFixed(1)} s`)

  // 2. Reach.
  const apiKey = apiKeyOf(m, input.env)
  if (typeof apiKey === 'object') {
    findings.push(apiKey)
    return finish()
  }
  const http = httpClient(m, headT, seen.via, apiKey)
  if ('code' in http) {
    seen.via = `${headT.label} (no tunnel)`
    findings.push(http)
    return finish()
  }

  // 3, 4. Inference and metrics; 5. the cluster proof from Ray on the head, at the same time
  // (it reads Ray's placement groups in its own Python process, which costs as long as the
  // requests themselves, and neither depends on the other).
  const [inferred] = await Promise.all([runInference(m, http, input.onProgress ? { onProgress: input.onProgress } : {}), prove(headT)])
  seen.inference = inferred
  findings.push(...inferred.findings)
  if (input.signal?.aborted) seen.cancelled = true
  return finish()
}

/** The report and its renderings from what the smoke saw. */
function smokeDetail(m: Manifest, seen: SmokeSeen): SmokeGateDetail {
  const sorted = sortFindings(seen.findings)
  const report: SmokeReport = {
    cluster: m.cluster,
    model: servedName(m),
    via: seen.via,
    ...(seen.readyAfterMs !== undefined && { readyAfterMs: seen.readyAfterMs }),
    ...(seen.inference && { inference: seen.inference }),
    ...(seen.proof && { proof: seen.proof }),
    findings: sorted,
  }
  return {
    ok: !seen.cancelled && !sorted.some((f) => f.severity === 'error'),
    ...(seen.cancelled && { cancelled: true }),
    findings: sorted,
    text: renderSmokeText(report),
    outputs: smokeOutputs(report),
    summary: renderSmokeMarkdown(report),
    report,
    json: smokeJson(report),
  }
}

/** Ray's placement groups read on the head and proved against the manifest; SMOKE_RAY_QUERY_FAILED when they cannot be read. */
async function proveFromRay(m: Manifest, t: Transport): Promise<ClusterProof | Finding> {
  const head = headOf(m)
  const q = await t.run(rayPlacementQuery(m), { timeoutMs: 60_000 })
  const data = q.code === 0 ? parseRayPlacement(q.stdout) : `${outcome(q)}: ${(q.stderr.trim().split('\n').pop() ?? '').slice(0, 300)}`
  if (typeof data !== 'string') return proveCluster(m, data)
  return smokeFinding(
    'SMOKE_RAY_QUERY_FAILED',
    `Ray's placement groups could not be read on ${head.name}: ${data}.`,
    { command: `docker exec ${m.container.name} python3 -c <placement query>` },
    `Check that Ray runs in ${m.container.name} on ${head.name} (ray status there).`,
    head.name,
  )
}

/** Why a server that never became ready is not: the watcher's own errors, else not started, exited, or not ready in time. */
function notReadyFindings(m: Manifest, w: WatchResult): Finding[] {
  const head = headOf(m)
  const s = m.smoke
  const last = lastLogLine(w.logTail) || '(the log is empty)'
  if (w.findings.some((f) => f.severity === 'error')) return [...w.findings]
  if (w.notRunning && w.notRunning !== 'exited') {
    // It never ran (or its container is down): say so, not that it stopped.
    return [
      ...w.findings,
      smokeFinding(
        'SMOKE_SERVER_NOT_STARTED',
        `On ${head.name}, ${w.reason}.`,
        { head: head.name, container: m.container.name, log: `${head.name}:${VLLM_LOG}` },
        w.notRunning === 'no-container' || w.notRunning === 'container-stopped'
          ? `Deploy the release (vllm-ray-deploy deploy) or start ${m.container.name} on ${head.name}; the smoke test checks a server that runs.`
          : `Start vllm serve in ${m.container.name} on ${head.name} (a deploy does; with launch.mode: script, your script must start it), then run the smoke test again.`,
        head.name,
      ),
    ]
  }
  if (w.notRunning === 'exited') {
    return [
      ...w.findings,
      smokeFinding(
        'SMOKE_SERVER_EXITED',
        `vllm serve is no longer running in ${m.container.name} on ${head.name}. Last log line: ${last}`,
        { log: `${head.name}:${VLLM_LOG}`, 'log tail': w.logTail.split('\n').slice(-10).join('\n') },
        `Read the log (docker exec ${m.container.name} tail -n 100 ${VLLM_LOG} on ${head.name}) and start vllm serve again (a deploy does).`,
        head.name,
      ),
    ]
  }
  return [
    ...w.findings,
    smokeFinding(
      'SMOKE_NOT_READY',
      `vLLM on ${head.name} did not answer GET /health with 200 within ${s.readyTimeoutSeconds} s (smoke.readyTimeoutSeconds). Last log line: ${last}`,
      { waited: `${(w.waitedMs / 1000).toFixed(1)} s`, 'last log line': last, 'log tail': w.logTail.split('\n').slice(-10).join('\n') },
      `If the log shows the model still loading, raise smoke.readyTimeoutSeconds; otherwise read the log (${VLLM_LOG} in ${m.container.name} on ${head.name}) for why /health fails.`,
      head.name,
    ),
  ]
}

/** The API key from the variable smoke.apiKeySecret names (none when it names none); SMOKE_UNAUTHORIZED when that variable is empty. */
function apiKeyOf(m: Manifest, env: NodeJS.ProcessEnv): string | undefined | Finding {
  const secret = m.smoke.apiKeySecret
  if (!secret) return undefined
  const apiKey = env[secret]
  if (apiKey) return apiKey
  return smokeFinding(
    'SMOKE_UNAUTHORIZED',
    `smoke.apiKeySecret names ${secret}, but that environment variable is empty or unset.`,
    { variable: secret },
    `Pass the secret to the step: env: { ${secret}: \${{ secrets.${secret} }} }.`,
  )
}

/** The API client: smoke.url, else a tunnel through the head; SMOKE_UNREACHABLE when the head's connection cannot forward. */
function httpClient(m: Manifest, headT: Transport, via: string, apiKey: string | undefined): SmokeHttp | Finding {
  const s = m.smoke
  const timeoutMs = s.requestTimeoutSeconds * 1000
  if (s.url) return createHttpClient({ baseUrl: s.url, target: s.url, timeoutMs, ...(apiKey && { apiKey }) })
  if (headT.forwardTcp) {
    const forward = headT.forwardTcp.bind(headT)
    return createHttpClient({
      baseUrl: `http://127.0.0.1:${m.vllm.port}`,
      target: via,
      timeoutMs,
      connect: () => forward('127.0.0.1', m.vllm.port),
      ...(apiKey && { apiKey }),
    })
  }
  const head = headOf(m)
  return smokeFinding(
    'SMOKE_UNREACHABLE',
    `The connection to ${head.name} cannot forward TCP, so the API cannot be reached through it.`,
    { head: headT.label },
    'Set smoke.url to the URL the runner can reach the API at.',
    head.name,
  )
}
