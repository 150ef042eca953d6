/**
 * vLLM's Prometheus `/metrics` text, and the check that its counters grew by what the smoke
 * requests produced. Pure.
 *
 * Counter names as vLLM's v1 PrometheusStatLogger registers them (vllm/v1/metrics/loggers.py):
 * `vllm:request_success_total{finished_reason=...}`, `vllm:generation_tokens_total`,
 * `vllm:prompt_tokens_total`, each labelled `model_name` (the first served model name) and `engine`.
 */

export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\S+)?$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

/** Every sample line of the exposition text (comments and blank lines skipped; bad lines ignored). */
export function parseMetrics(text: string): Sample[] {
  const out: Sample[] = []
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) continue
    const m = LINE.exec(line)
    if (!m) continue
    const labels: Record<string, string> = {}
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c))
    const value = Number(m[3] === '+Inf' ? Infinity : m[3] === '-Inf' ? -Infinity : m[3])
    if (!Number.isNaN(value)) out.push({ name: m[1]!, labels, value })
  }
  return out
}

export const REQUEST_SUCCESS = 'vllm:request_success_total'
export const GENERATION_TOKENS = 'vllm:generation_tokens_total'
export const PROMPT_TOKENS = 'vllm:prompt_tokens_total'

/** Finished reasons that are not a served answer. */
const NOT_SERVED = new Set(['abort', 'error'])

export interface Counters {
  readonly requests: number
  readonly generationTokens: number
  readonly promptTokens: number
}

/**
 * The three counters, summed over engines, for one served model (series without a `model_name`
 * label count too). Undefined when the text has none of vLLM's counters at all.
 */
export function vllmCounters(samples: readonly Sample[], model: string): Counters | undefined {
  const mine = samples.filter((s) => s.labels.model_name === undefined || s.labels.model_name === model)
  const sum = (name: string, keep: (s: Sample) => boolean = () => true) => mine.filter((s) => s.name === name && keep(s)).reduce((a, s) => a + s.value, 0)
  if (!samples.some((s) => s.name === REQUEST_SUCCESS || s.name === GENERATION_TOKENS)) return undefined
  return {
    requests: sum(REQUEST_SUCCESS, (s) => !NOT_SERVED.has(s.labels.finished_reason ?? '')),
    generationTokens: sum(GENERATION_TOKENS),
    promptTokens: sum(PROMPT_TOKENS),
  }
}

export interface MetricsDelta {
  readonly expected: Counters
  readonly seen: Counters
  /** Counter names that grew by less than the smoke requests produced. */
  readonly short: readonly (keyof Counters)[]
}

/**
 * Did the counters grow by at least what the smoke produced? At least, not exactly: other clients
 * may use the server at the same time. Less means the answers did not come from this server's
 * engine (another server behind the URL, a proxy cache) or its metrics are broken.
 */
export function metricsDelta(before: Counters, after: Counters, expected: Counters): MetricsDelta {
  const seen: Counters = {
    requests: after.requests - before.requests,
    generationTokens: after.generationTokens - before.generationTokens,
    promptTokens: after.promptTokens - before.promptTokens,
  }
  const short = (Object.keys(expected) as (keyof Counters)[]).filter((k) => seen[k] < expected[k])
  return { expected, seen, short }
}
