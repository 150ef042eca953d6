/** Latency figures from measured timings. Pure; times in milliseconds. */

/** Nearest-rank percentile (p in 0..100) of the values; undefined for none. */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]
}

/** One streamed request: when it was sent and when each chunk with text arrived. */
export interface StreamTiming {
  readonly sentAt: number
  readonly tokenTimes: readonly number[]
  readonly endedAt: number
  readonly completionTokens: number
}

export interface StreamFigures {
  /** Time to first token. */
  readonly ttftMs: number | undefined
  /** Inter-token latency as vLLM's clients see it: the mean gap between output events (a chunk may carry several tokens). */
  readonly itlMs: number | undefined
  /** Time per output token after the first: (last − first token time) / (tokens − 1); below ITL when an event carries several tokens. */
  readonly tpotMs: number | undefined
  /** Decode speed: tokens after the first over the time after the first. */
  readonly tokensPerSecond: number | undefined
}

export function streamFigures(t: StreamTiming): StreamFigures {
  const first = t.tokenTimes[0]
  const last = t.tokenTimes[t.tokenTimes.length - 1]
  const ttftMs = first === undefined ? undefined : first - t.sentAt
  const gaps = t.tokenTimes.slice(1).map((x, i) => x - t.tokenTimes[i]!)
  const itlMs = gaps.length === 0 ? undefined : gaps.reduce((a, b) => a + b, 0) / gaps.length
  const span = first !== undefined && last !== undefined ? last - first : 0
  const tokensPerSecond = span > 0 && t.completionTokens > 1 ? ((t.completionTokens - 1) * 1000) / span : undefined
  const tpotMs = span > 0 && t.completionTokens > 1 ? span / (t.completionTokens - 1) : undefined
  return { ttftMs, itlMs, tpotMs, tokensPerSecond }
}

export interface BurstFigures {
  readonly requests: number
  readonly p50Ms: number | undefined
  readonly p95Ms: number | undefined
  /** All completion tokens over the wall time from the first send to the last answer. */
  readonly tokensPerSecond: number | undefined
}

export function burstFigures(latenciesMs: readonly number[], completionTokens: number, wallMs: number): BurstFigures {
  return {
    requests: latenciesMs.length,
    p50Ms: percentile(latenciesMs, 50),
    p95Ms: percentile(latenciesMs, 95),
    tokensPerSecond: wallMs > 0 && completionTokens > 0 ? (completionTokens * 1000) / wallMs : undefined,
  }
}
