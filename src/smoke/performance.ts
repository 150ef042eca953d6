/**
 * Performance as a gate with history. The smoke's figures of a release (TTFT, TPOT and ITL kept
 * apart, decode tokens/s, the burst's p50/p95 and tokens/s), with the load that produced them and
 * the vLLM version, are kept in the release's directory on the head; the next deploy compares its
 * own figures with the running release's, under the same load only, and a figure worse than
 * `smoke.regression.maxSlowdown` is PERFORMANCE_REGRESSION (an error or a warning, per
 * `smoke.regression.action`). Pure: the records in, the comparison out.
 *
 * TPOT and ITL are not the same figure: TPOT is the time per output token after the first
 * ((last − first token time) / (tokens − 1)); ITL is the mean gap between output events. One event
 * carries several tokens under speculative decoding or `--stream-interval`, so there ITL > TPOT.
 */
import { createHash } from 'node:crypto'
import type { Manifest } from '../manifest/schema.js'
import type { Finding } from '../preflight/finding.js'
import { type Result, fail, problem } from '../result/result.js'
import { smokeFinding } from './smoke-finding.js'
import type { InferenceResult } from './inference.js'

/** What the figures were measured under: a comparison is made only between equal loads. */
export interface PerformanceLoad {
  readonly model: string
  /** SHA-256 (first 16 hex) of the first prompt, its kind and max_tokens: the streamed request. */
  readonly streamed: string
  readonly burstRequests: number
  readonly burstMaxTokens: number
}

/** The figures, each undefined where the smoke did not measure it. Times in milliseconds. */
export interface PerformanceFigures {
  readonly ttftMs?: number
  readonly tpotMs?: number
  readonly itlMs?: number
  readonly decodeTokensPerSecond?: number
  readonly burstP50Ms?: number
  readonly burstP95Ms?: number
  readonly burstTokensPerSecond?: number
}

export interface PerformanceRecord {
  readonly schemaVersion: 1
  readonly release: string
  readonly measuredAt: string
  readonly vllmVersion?: string
  readonly load: PerformanceLoad
  /** Prompt and output sizes of the streamed request, for the reader. */
  readonly sizes: { readonly streamedCompletionTokens?: number; readonly burstRequests: number }
  readonly figures: PerformanceFigures
}

type FigureName = keyof PerformanceFigures

/** Each figure: its words, its unit, and whether more is better (throughput) or worse (time). */
export const FIGURES: readonly { readonly name: FigureName; readonly label: string; readonly unit: string; readonly higherIsBetter: boolean }[] = [
  { name: 'ttftMs', label: 'time to first token', unit: 'ms', higherIsBetter: false },
  { name: 'tpotMs', label: 'time per output token (TPOT)', unit: 'ms', higherIsBetter: false },
  { name: 'itlMs', label: 'inter-token latency (ITL, per output event)', unit: 'ms', higherIsBetter: false },
  { name: 'decodeTokensPerSecond', label: 'decode tokens/s (streamed request)', unit: 'tok/s', higherIsBetter: true },
  { name: 'burstP50Ms', label: 'burst p50 latency', unit: 'ms', higherIsBetter: false },
  { name: 'burstP95Ms', label: 'burst p95 latency', unit: 'ms', higherIsBetter: false },
  { name: 'burstTokensPerSecond', label: 'burst output tokens/s', unit: 'tok/s', higherIsBetter: true },
]

const loadOf = (m: Manifest): PerformanceLoad => {
  const first = m.smoke.prompts[0]!
  const streamed = createHash('sha256')
    .update(JSON.stringify({ prompt: first.prompt, chat: first.chat, maxTokens: first.maxTokens }))
    .digest('hex')
    .slice(0, 16)
  return { model: m.vllm.servedModelName ?? m.vllm.model, streamed, burstRequests: m.smoke.burst.requests, burstMaxTokens: m.smoke.burst.maxTokens }
}

/** The record of one smoke run's figures, or undefined when it measured none (no stream, no burst). */
export function performanceRecord(m: Manifest, release: string, inference: InferenceResult, at: Date = new Date()): PerformanceRecord | undefined {
  const s = inference.stream
  const b = inference.burst
  const figures: PerformanceFigures = {
    ...(s?.ttftMs !== undefined && { ttftMs: s.ttftMs }),
    ...(s?.tpotMs !== undefined && { tpotMs: s.tpotMs }),
    ...(s?.itlMs !== undefined && { itlMs: s.itlMs }),
    ...(s?.tokensPerSecond !== undefined && { decodeTokensPerSecond: s.tokensPerSecond }),
    ...(b?.p50Ms !== undefined && { burstP50Ms: b.p50Ms }),
    ...(b?.p95Ms !== undefined && { burstP95Ms: b.p95Ms }),
    ...(b?.tokensPerSecond !== undefined && { burstTokensPerSecond: b.tokensPerSecond }),
  }
  if (Object.keys(figures).length === 0) return undefined
  return {
    schemaVersion: 1,
    release,
    measuredAt: at.toISOString(),
    ...(inference.version && { vllmVersion: inference.version }),
    load: loadOf(m),
    sizes: { ...(s && { streamedCompletionTokens: s.completionTokens }), burstRequests: b?.requests ?? 0 },
    figures,
  }
}

const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0

/** A stored record, read back from the head (a document from outside: validated, never trusted). */
export function parsePerformanceRecord(text: string, where: string): Result<PerformanceRecord> {
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch (e) {
    return fail(problem('PERFORMANCE_RECORD_INVALID', `${where} is not JSON: ${(e as Error).message}`, 'Deploy again; the next smoke writes it anew.'))
  }
  const r = doc as Partial<PerformanceRecord> | null
  const bad = (why: string) => fail(problem('PERFORMANCE_RECORD_INVALID', `${where}: ${why}`, 'Deploy again; the next smoke writes it anew.'))
  if (!r || typeof r !== 'object' || r.schemaVersion !== 1) return bad('not a performance record of schema version 1')
  if (typeof r.release !== 'string' || typeof r.measuredAt !== 'string') return bad('release or measuredAt missing')
  const l = r.load
  if (!l || typeof l.model !== 'string' || typeof l.streamed !== 'string' || !isNum(l.burstRequests) || !isNum(l.burstMaxTokens))
    return bad('load missing or malformed')
  if (!r.figures || typeof r.figures !== 'object') return bad('figures missing')
  const figures = Object.fromEntries(FIGURES.flatMap((f) => (isNum(r.figures![f.name]) ? [[f.name, r.figures![f.name]]] : [])))
  return {
    ok: true,
    value: {
      schemaVersion: 1,
      release: r.release,
      measuredAt: r.measuredAt,
      ...(typeof r.vllmVersion === 'string' && { vllmVersion: r.vllmVersion }),
      load: { model: l.model, streamed: l.streamed, burstRequests: l.burstRequests, burstMaxTokens: l.burstMaxTokens },
      sizes: { burstRequests: isNum(r.sizes?.burstRequests) ? r.sizes.burstRequests : 0 },
      figures,
    },
  }
}

/** One figure side by side: before (the running release), now (this one), and how much worse now is (1 = the same, 2 = twice as bad). */
export interface FigureComparison {
  readonly name: FigureName
  readonly label: string
  readonly unit: string
  readonly before: number
  readonly now: number
  /** How many times worse now is than before (time: now/before; throughput: before/now). */
  readonly worseBy: number
  readonly regressed: boolean
}

export interface PerformanceComparison {
  readonly before: PerformanceRecord
  readonly now: PerformanceRecord
  /** Why nothing was compared (a different load): undefined when the figures were compared. */
  readonly notCompared?: string
  readonly rows: readonly FigureComparison[]
  readonly findings: readonly Finding[]
}

/** Times below this are not judged: a smoke's single request jitters by a few ms whatever the release. */
const FLOOR_MS = 2

const loadDiffers = (a: PerformanceLoad, b: PerformanceLoad): string | undefined => {
  if (a.model !== b.model) return `the model differs (${a.model} before, ${b.model} now)`
  if (a.streamed !== b.streamed) return "the first smoke prompt (or its kind or max tokens) changed: the streamed request's load is not the same"
  if (a.burstRequests !== b.burstRequests || a.burstMaxTokens !== b.burstMaxTokens)
    return `the burst differs (${a.burstRequests}×${a.burstMaxTokens} tokens before, ${b.burstRequests}×${b.burstMaxTokens} now)`
  return undefined
}

/** This release's figures against the running release's, under `smoke.regression`. */
export function comparePerformance(m: Manifest, before: PerformanceRecord, now: PerformanceRecord): PerformanceComparison {
  const reg = m.smoke.regression
  const differs = loadDiffers(before.load, now.load)
  if (differs) return { before, now, notCompared: differs, rows: [], findings: [] }
  const rows = FIGURES.flatMap((f): FigureComparison[] => {
    const b = before.figures[f.name]
    const n = now.figures[f.name]
    if (b === undefined || n === undefined) return []
    const worseBy = f.higherIsBetter ? (n > 0 ? b / n : Number.POSITIVE_INFINITY) : b > 0 ? n / b : 1
    const judged = f.higherIsBetter || Math.max(b, n) >= FLOOR_MS
    return [{ name: f.name, label: f.label, unit: f.unit, before: b, now: n, worseBy, regressed: judged && worseBy > reg.maxSlowdown }]
  })
  const worse = rows.filter((r) => r.regressed)
  if (worse.length === 0 || reg.action === 'off') return { before, now, rows, findings: [] }
  const fmt = (x: number, unit: string) => `${x < 10 ? x.toFixed(2) : x.toFixed(1)} ${unit}`
  const evidence = Object.fromEntries([
    ...worse.map((r) => [r.label, `${fmt(r.before, r.unit)} (${before.release}) → ${fmt(r.now, r.unit)} (${now.release}), ${r.worseBy.toFixed(2)}× worse`]),
    ['vLLM', `${before.vllmVersion ?? '?'} → ${now.vllmVersion ?? '?'}`],
    ['threshold', `smoke.regression.maxSlowdown: ${reg.maxSlowdown}`],
  ])
  const finding = smokeFinding(
    'PERFORMANCE_REGRESSION',
    `Release ${now.release} is slower than ${before.release} under the same smoke load: ${worse.map((r) => `${r.label} ${r.worseBy.toFixed(2)}× worse`).join(', ')} (more than smoke.regression.maxSlowdown ${reg.maxSlowdown}).`,
    evidence,
    `Find what changed between the releases (image, vLLM version, vllm.args, weights, the fabric) and fix it; if the new figures are expected, raise smoke.regression.maxSlowdown or set smoke.regression.action: warn for this deploy.`,
    null,
    reg.action === 'fail' ? 'error' : 'warning',
  )
  return { before, now, rows, findings: [finding] }
}

/** The comparison as Markdown rows for the job summary: both figures side by side. */
export function renderPerformanceMarkdown(c: PerformanceComparison): string {
  const head = `**Performance** — ${c.now.release} against ${c.before.release} (vLLM ${c.before.vllmVersion ?? '?'} → ${c.now.vllmVersion ?? '?'})`
  if (c.notCompared) return `${head}: not compared, ${c.notCompared}.`
  const fmt = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1))
  const lines = c.rows.map(
    (r) => `| ${r.label} | ${fmt(r.before)} ${r.unit} | ${fmt(r.now)} ${r.unit} | ${r.worseBy.toFixed(2)}× | ${r.regressed ? '**regressed**' : 'ok'} |`,
  )
  return [head, '', `| figure | ${c.before.release} | ${c.now.release} | worse by | |`, '| --- | --- | --- | --- | --- |', ...lines].join('\n')
}

/** One progress line per comparison. */
export function performanceLine(c: PerformanceComparison): string {
  if (c.notCompared) return `performance: not compared with ${c.before.release}: ${c.notCompared}`
  const parts = c.rows.map((r) => `${r.name} ${r.before.toFixed(1)}→${r.now.toFixed(1)}${r.regressed ? ' (regressed)' : ''}`)
  return `performance against ${c.before.release}: ${parts.join(', ') || 'no figure in common'}`
}
