/**
 * The inference checks, over any `SmokeHttp` (tunnel or URL): /v1/models, /version, every prompt,
 * one streamed request (TTFT, ITL), an optional burst, and /metrics before and after. Each problem
 * becomes a finding; the figures are returned for the report.
 */
import type { Manifest, SmokePrompt } from '../manifest/schema.js'
import type { Finding } from '../preflight/finding.js'
import { checkAnswer } from './assertions.js'
import { smokeFinding } from './smoke-finding.js'
import { elapsedMs, type HttpResult, type SmokeHttp } from './http.js'
import { type BurstFigures, type StreamFigures, burstFigures, percentile, streamFigures } from './latency.js'
import { type Counters, type MetricsDelta, metricsDelta, parseMetrics, vllmCounters } from './metrics.js'
import { type Answer, describeApiError, parseAnswer, parseErrorBody, parseModels, parseStreamChunk, parseVersion } from './openai.js'
import { createSseParser } from './sse.js'

export interface RequestRecord {
  readonly label: string
  readonly ms: number
  readonly completionTokens?: number
  readonly ok: boolean
}

// record: `ok` is the request's status in the smoke report's JSON (src/smoke/smoke-report.ts), not a failure value.
const failedRequest = (label: string, ms: number): RequestRecord => ({ label, ms, ok: false })

export interface InferenceResult {
  readonly findings: readonly Finding[]
  readonly version?: string
  readonly models: readonly string[]
  readonly requests: readonly RequestRecord[]
  readonly stream?: StreamFigures & { readonly completionTokens: number; readonly text: string }
  readonly burst?: BurstFigures
  /** p95 over the burst, or over every smoke request without a burst. */
  readonly p95Ms?: number
  readonly p50Ms?: number
  readonly tokensPerSecond?: number
  readonly metrics?: MetricsDelta
}

export const servedName = (m: Manifest): string => m.vllm.servedModelName ?? m.vllm.model

const FIX_REACH = (http: SmokeHttp) =>
  `Check that vLLM listens where the smoke test connects (${http.target}): vllm.port / --port, --host, or smoke.url; a firewall in between; the head's sshd allowing TCP forwarding (AllowTcpForwarding).`

/** A finding for an HTTP exchange that did not give a 2xx, or undefined when it did. */
export function httpProblem(what: string, r: HttpResult, http: SmokeHttp, served: string): Finding | undefined {
  if (!r.ok) return smokeFinding('SMOKE_UNREACHABLE', `${what} failed: ${r.problem.message}.`, { request: what, via: http.target }, FIX_REACH(http))
  return answerProblem(what, r.value, http, served)
}

/** A finding for an answer that is not a 2xx, or undefined when it is. */
function answerProblem(what: string, r: { readonly status: number; readonly body: string }, http: SmokeHttp, served: string): Finding | undefined {
  if (r.status >= 200 && r.status < 300) return undefined
  const e = parseErrorBody(r.body)
  const evidence = { request: what, via: http.target, status: String(r.status), 'error body shape': e.shape, body: r.body.slice(0, 500) }
  const msg = `${what}: ${describeApiError(r.status, e)}`
  if (r.status === 401 || r.status === 403)
    return smokeFinding(
      'SMOKE_UNAUTHORIZED',
      `${msg}. The server wants an API key.`,
      evidence,
      'Set smoke.apiKeySecret to the name of the environment variable that holds the key vLLM was started with (--api-key / VLLM_API_KEY), and pass that secret to the step.',
    )
  if (r.status === 404 && (e.param === 'model' || /model/i.test(e.message)))
    return smokeFinding(
      'SMOKE_MODEL_MISSING',
      `${msg}.`,
      evidence,
      `The server does not serve "${served}": set vllm.servedModelName to the name vLLM serves (--served-model-name), or redeploy.`,
    )
  return smokeFinding(
    'SMOKE_HTTP_ERROR',
    `${msg}.`,
    evidence,
    r.status >= 500
      ? "The engine failed while answering: read vLLM's log on the head (ENGINE_DEAD and friends), restart vllm serve."
      : 'Fix the request settings in smoke.prompts (maxTokens against --max-model-len, the prompt), or the server flags.',
  )
}

function body(m: Manifest, p: SmokePrompt, maxTokens: number, stream: boolean) {
  const common = {
    model: servedName(m),
    max_tokens: maxTokens,
    temperature: 0,
    seed: 0,
    ...(stream && { stream: true, stream_options: { include_usage: true } }),
  }
  return p.chat ? { ...common, messages: [{ role: 'user', content: p.prompt }] } : { ...common, prompt: p.prompt }
}
const path = (p: SmokePrompt) => (p.chat ? '/v1/chat/completions' : '/v1/completions')
const kind = (p: SmokePrompt) => (p.chat ? 'chat' : 'completion')

async function scrape(http: SmokeHttp, served: string): Promise<Counters | string> {
  const r = await http.request('GET', '/metrics')
  if (!r.ok) return r.problem.message
  if (r.value.status !== 200) return `HTTP ${r.value.status}`
  return vllmCounters(parseMetrics(r.value.body), served) ?? 'no vllm:request_success_total or vllm:generation_tokens_total in the text'
}

export interface InferenceOptions {
  readonly onProgress?: (m: string) => void
  /** How long to wait for the counters to catch up after the last answer (vLLM records stats asynchronously). */
  readonly metricsSettleMs?: number
}

/** What every step of one inference run shares; steps push findings and request records. */
interface Run {
  readonly m: Manifest
  readonly http: SmokeHttp
  readonly served: string
  readonly findings: Finding[]
  readonly requests: RequestRecord[]
  /** What the smoke's own successful requests produced, for the metrics delta. */
  readonly produced: { requests: number; generationTokens: number; promptTokens: number }
  readonly say: (t: string) => void
}

export async function runInference(m: Manifest, http: SmokeHttp, opts: InferenceOptions = {}): Promise<InferenceResult> {
  const s = m.smoke
  const run: Run = {
    m,
    http,
    served: servedName(m),
    findings: [],
    requests: [],
    produced: { requests: 0, generationTokens: 0, promptTokens: 0 },
    say: (t) => opts.onProgress?.(t),
  }
  const { findings, requests } = run

  // /v1/models first: it tells whether we reach a vLLM at all.
  const models = await listModels(run)
  if (!Array.isArray(models)) return { findings: [...findings, ...models.findings], models: models.models, requests }
  run.say(`smoke: ${http.target} serves ${run.served}`)
  const ver = await http.request('GET', '/version')
  const version = ver.ok && ver.value.status === 200 ? parseVersion(ver.value.body) : undefined
  const before = s.metrics ? await scrape(http, run.served) : undefined
  if (typeof before === 'string')
    findings.push(
      smokeFinding(
        'SMOKE_METRICS_UNAVAILABLE',
        `GET /metrics gave no vLLM counters: ${before}.`,
        { via: http.target },
        "Do not disable vLLM's metrics endpoint, or set smoke.metrics: false.",
        null,
        'warning',
      ),
    )

  await askPrompts(run)
  const first = s.prompts[0]!
  const stream = s.stream ? await streamOne(run, first) : undefined
  const burst = s.burst.requests > 0 ? await runBurst(run, first) : undefined

  const timed = burst ? requests.filter((r) => r.label.startsWith('burst ') && r.ok) : requests.filter((r) => r.ok)
  const p95Ms =
    burst?.p95Ms ??
    percentile(
      timed.map((r) => r.ms),
      95,
    )
  const p50Ms =
    burst?.p50Ms ??
    percentile(
      timed.map((r) => r.ms),
      50,
    )
  const tokensPerSecond = burst?.tokensPerSecond ?? stream?.tokensPerSecond
  findings.push(...latencyFindings(run, stream, p95Ms, tokensPerSecond))

  const metrics = s.metrics && typeof before === 'object' ? await metricsAfter(run, before, opts.metricsSettleMs ?? 5000) : undefined
  return {
    findings,
    models,
    requests,
    ...(version?.ok && { version: version.value }),
    ...(stream && { stream }),
    ...(burst && { burst }),
    ...(p95Ms !== undefined && { p95Ms }),
    ...(p50Ms !== undefined && { p50Ms }),
    ...(tokensPerSecond !== undefined && { tokensPerSecond }),
    ...(metrics && { metrics }),
  }
}

/** GET /v1/models: the served names, or why the run stops here (unreachable, not vLLM, not serving the model). */
async function listModels(run: Run): Promise<string[] | { findings: Finding[]; models: string[] }> {
  const { http, served } = run
  const models = await http.request('GET', '/v1/models')
  const modelsProblem = httpProblem('GET /v1/models', models, http, served)
  if (modelsProblem || !models.ok) return { findings: modelsProblem ? [modelsProblem] : [], models: [] }
  const ids = parseModels(models.value.body)
  if (!ids.ok)
    return {
      findings: [
        smokeFinding(
          'SMOKE_BAD_RESPONSE',
          `GET /v1/models answered something that is not vLLM's model list: ${ids.problem.message}.`,
          { via: http.target, body: models.value.body.slice(0, 500) },
          `Check that ${http.target} is vLLM's OpenAI API and not another service or a proxy error page.`,
        ),
      ],
      models: [],
    }
  if (ids.value.includes(served)) return ids.value
  return {
    findings: [
      smokeFinding(
        'SMOKE_MODEL_MISSING',
        `The server lists ${ids.value.map((i) => `"${i}"`).join(', ') || 'no models'}, not "${served}".`,
        { expected: served, listed: ids.value.join(', ') || '(none)', via: http.target },
        `Set vllm.servedModelName to the name vLLM serves (--served-model-name), or check that ${http.target} is this deployment.`,
      ),
    ],
    models: ids.value,
  }
}

/** One non-streamed request: its answer, or undefined with a finding; recorded either way. */
async function ask(run: Run, p: SmokePrompt, maxTokens: number, label: string): Promise<Answer | undefined> {
  const { http, served, findings, requests, produced } = run
  const r = await http.request('POST', path(p), body(run.m, p, maxTokens, false))
  const problem = httpProblem(`${label} (POST ${path(p)})`, r, http, served)
  if (problem || !r.ok) {
    if (problem) findings.push(problem)
    requests.push(failedRequest(label, elapsedMs(r)))
    return undefined
  }
  const a = parseAnswer(r.value.body, p.chat)
  if (!a.ok) {
    findings.push(
      smokeFinding(
        'SMOKE_BAD_RESPONSE',
        `${label}: the response is not a valid ${kind(p)}: ${a.problem.message}.`,
        { request: label, via: http.target, body: r.value.body.slice(0, 500) },
        `vLLM answers with JSON: check that ${http.target} is vLLM and not a proxy or another service.`,
      ),
    )
    requests.push(failedRequest(label, r.value.ms))
    return undefined
  }
  requests.push({ label, ms: r.value.ms, ok: true, ...(a.value.usage && { completionTokens: a.value.usage.completionTokens }) })
  produced.requests++
  produced.generationTokens += a.value.usage?.completionTokens ?? 0
  produced.promptTokens += a.value.usage?.promptTokens ?? 0
  return a.value
}

/** Every prompt in turn, each answer checked against its expectations. */
async function askPrompts(run: Run): Promise<void> {
  for (const [i, p] of run.m.smoke.prompts.entries()) {
    const label = `prompt ${i + 1} (${kind(p)})`
    const a = await ask(run, p, p.maxTokens, label)
    if (a) {
      run.findings.push(...checkAnswer(p, p.maxTokens, a, label, run.served))
      run.say(`smoke: ${label}: ${a.usage?.completionTokens ?? '?'} tokens in ${run.requests.at(-1)!.ms} ms, finish_reason ${a.finishReason}`)
    }
  }
}

/** What one streamed request delivered, event by event. */
interface StreamRead {
  readonly r: Awaited<ReturnType<SmokeHttp['stream']>>
  readonly sentAt: number
  readonly tokenTimes: number[]
  readonly text: string
  readonly usage: Answer['usage']
  readonly finishReason: string | null
  /** `data: [DONE]` arrived. */
  readonly done: boolean
  /** Events that are not valid chunks. */
  readonly bad: string[]
  readonly streamError: string | undefined
  readonly unterminated: string | undefined
}

/** POST the first prompt streamed and read its SSE events as they arrive (the arrival time of each chunk with text). */
async function readStream(run: Run, first: SmokePrompt): Promise<StreamRead> {
  const sse = createSseParser()
  const tokenTimes: number[] = []
  let text = ''
  let usage: Answer['usage']
  let finishReason: string | null = null
  let done = false
  const bad: string[] = []
  let streamError: string | undefined
  const handle = (events: ReturnType<typeof sse.push>, at: number) => {
    for (const ev of events) {
      const c = parseStreamChunk(ev.data, first.chat)
      if (!c.ok) bad.push(c.problem.message)
      else if (c.value.kind === 'done') done = true
      else if (c.value.kind === 'error') streamError = c.value.error.message
      else {
        if (c.value.text !== '') {
          tokenTimes.push(at)
          text += c.value.text
        }
        if (c.value.finishReason) finishReason = c.value.finishReason
        if (c.value.usage) usage = c.value.usage
      }
    }
  }
  const sentAt = Date.now()
  const r = await run.http.stream(path(first), body(run.m, first, first.maxTokens, true), (chunk, at) => handle(sse.push(chunk), at))
  const tail = sse.end()
  handle(tail.events, Date.now())
  return { r, sentAt, tokenTimes, text, usage, finishReason, done, bad, streamError, unterminated: tail.unterminated }
}

/** The streamed request: TTFT and ITL when it streamed whole, else a finding for how it broke. */
async function streamOne(run: Run, first: SmokePrompt): Promise<InferenceResult['stream']> {
  const { http, served, findings } = run
  const label = `streamed ${kind(first)}`
  const st = await readStream(run, first)
  const { r, tokenTimes, text, usage, bad, streamError } = st
  const evidence = { request: label, via: http.target, 'text so far': JSON.stringify(text.slice(0, 200)), 'chunks with text': String(tokenTimes.length) }
  if (!r.ok && r.problem.status !== undefined && r.problem.body !== undefined) {
    findings.push(answerProblem(`${label} (POST ${path(first)})`, { status: r.problem.status, body: r.problem.body }, http, served)!)
    return undefined
  }
  if (!r.ok || !st.done || streamError || bad.length > 0) {
    const reason = streamError
      ? `the server sent an error event: ${streamError}`
      : bad.length > 0
        ? `an SSE event is not a valid chunk: ${bad[0]}`
        : !r.ok
          ? `${r.problem.message}, after ${tokenTimes.length} chunk(s) with text and before data: [DONE]`
          : 'the stream ended without data: [DONE]'
    findings.push(
      smokeFinding(
        bad.length > 0 ? 'SMOKE_BAD_RESPONSE' : 'SMOKE_STREAM_BROKEN',
        `${label}: ${reason}.`,
        { ...evidence, ...(st.unterminated && { 'unterminated event': st.unterminated.slice(0, 300) }) },
        streamError
          ? "Read vLLM's log on the head for the engine error, then restart vllm serve."
          : `Something between the runner and vLLM cuts or rewrites streamed responses (a proxy buffering or timing out SSE?), or the engine died mid-request: read vLLM's log on the head.`,
      ),
    )
    run.requests.push(failedRequest(label, elapsedMs(r)))
    return undefined
  }
  const completionTokens = usage?.completionTokens ?? tokenTimes.length
  const figures = streamFigures({ sentAt: st.sentAt, tokenTimes, endedAt: st.sentAt + r.value.ms, completionTokens })
  run.requests.push({ label, ms: r.value.ms, ok: true, completionTokens })
  run.produced.requests++
  run.produced.generationTokens += usage?.completionTokens ?? 0
  run.produced.promptTokens += usage?.promptTokens ?? 0
  findings.push(
    ...checkAnswer(first, first.maxTokens, { model: served, text, finishReason: st.finishReason, ...(usage && { usage }) }, label, served).filter(
      (f) => f.code !== 'SMOKE_ASSERTION_FAILED',
    ),
  )
  if (usage && tokenTimes.length > usage.completionTokens) {
    findings.push(
      smokeFinding(
        'SMOKE_USAGE_INCONSISTENT',
        `${label}: ${tokenTimes.length} chunks with text but usage says ${usage.completionTokens} completion tokens.`,
        evidence,
        'A server that miscounts tokens is not vLLM or is misconfigured: check smoke.url and the image.',
      ),
    )
  }
  run.say(`smoke: ${label}: TTFT ${fmt(figures.ttftMs)} ms, ITL ${fmt(figures.itlMs)} ms over ${tokenTimes.length} chunks`)
  return { ...figures, completionTokens, text }
}

/** smoke.burst.requests copies of the first prompt at once: latency percentiles and aggregate tokens/s; empty answers are findings. */
async function runBurst(run: Run, first: SmokePrompt): Promise<BurstFigures> {
  const { burst: b } = run.m.smoke
  run.say(`smoke: burst of ${b.requests} concurrent requests`)
  const started = Date.now()
  const answers = await Promise.all(Array.from({ length: b.requests }, (_, i) => ask(run, first, b.maxTokens, `burst request ${i + 1}/${b.requests}`)))
  const wall = Date.now() - started
  const ok = run.requests.filter((r) => r.label.startsWith('burst ') && r.ok)
  const figures = burstFigures(
    ok.map((r) => r.ms),
    answers.reduce((a, x) => a + (x?.usage?.completionTokens ?? 0), 0),
    wall,
  )
  for (const [i, a] of answers.entries())
    if (a && a.text.trim() === '')
      run.findings.push(
        ...checkAnswer(first, b.maxTokens, a, `burst request ${i + 1}/${b.requests}`, run.served).filter((f) => f.code === 'SMOKE_EMPTY_COMPLETION'),
      )
  return figures
}

/** smoke.latency's limits against what was measured. */
function latencyFindings(run: Run, stream: InferenceResult['stream'], p95Ms: number | undefined, tokensPerSecond: number | undefined): Finding[] {
  const lim = run.m.smoke.latency
  const { requests } = run
  const findings: Finding[] = []
  const over = (what: string, value: number | undefined, limit: number | undefined, above = true) => {
    if (value === undefined || limit === undefined) return
    if (above ? value > limit : value < limit)
      findings.push(
        smokeFinding(
          'SMOKE_LATENCY_EXCEEDED',
          `${what} is ${fmt(value)}, the limit is ${limit}.`,
          { measured: fmt(value), limit: String(limit), via: run.http.target },
          'Find out why the server is slower than expected (load, GPU clocks, the fabric: NCCL on sockets instead of RDMA is slow), or raise the limit in smoke.latency.',
        ),
      )
  }
  over('time to first token (ms)', stream?.ttftMs, lim.maxTimeToFirstTokenMs)
  over('mean inter-token latency (ms)', stream?.itlMs, lim.maxInterTokenMs)
  over('p95 request latency (ms)', p95Ms, lim.maxP95Ms)
  over('slowest request (ms)', requests.length ? requests.reduce((m, r) => (r.ok ? Math.max(m, r.ms) : m), 0) : undefined, lim.maxTotalMs)
  over('output tokens per second', tokensPerSecond, lim.minTokensPerSecond, false)
  return findings
}

/**
 * /metrics again until vLLM's counters have grown by what the smoke produced, or `settleMs` has
 * passed (vLLM records stats asynchronously); SMOKE_METRICS_MISMATCH when they fall short.
 */
async function metricsAfter(run: Run, before: Counters, settleMs: number): Promise<MetricsDelta | undefined> {
  const { http, findings } = run
  let metrics: MetricsDelta | undefined
  const settleUntil = Date.now() + settleMs
  for (;;) {
    const after = await scrape(http, run.served)
    if (typeof after === 'string') {
      findings.push(
        smokeFinding(
          'SMOKE_METRICS_UNAVAILABLE',
          `GET /metrics after the requests gave no vLLM counters: ${after}.`,
          { via: http.target },
          "Check vLLM's /metrics endpoint, or set smoke.metrics: false.",
          null,
          'warning',
        ),
      )
      break
    }
    metrics = metricsDelta(before, after, run.produced)
    if (metrics.short.length === 0 || Date.now() > settleUntil) break
    await new Promise((r) => setTimeout(r, 500))
  }
  if (metrics && metrics.short.length > 0) {
    const m = metrics
    findings.push(
      smokeFinding(
        'SMOKE_METRICS_MISMATCH',
        `vLLM's counters grew by less than the smoke requests produced (${m.short.map((k) => `${k}: +${m.seen[k]}, expected +${m.expected[k]}`).join('; ')}): the answers did not all come from this server's engine.`,
        { expected: JSON.stringify(m.expected), seen: JSON.stringify(m.seen), via: http.target },
        `Check that ${http.target} reaches this deployment's vLLM and not another server or a caching proxy.`,
      ),
    )
  }
  return metrics
}

export const fmt = (n: number | undefined): string => (n === undefined ? '-' : n >= 100 ? String(Math.round(n)) : n.toFixed(1))
