/**
 * Timing for the benchmark: wall-clock milliseconds around an async call, and figure/baseline pairs
 * measured interleaved (A B A B ...) so that a noisy neighbour slows both alike.
 */
import { performance } from 'node:perf_hooks'

export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now()
  const value = await fn()
  return { ms: performance.now() - start, value }
}

export interface Pair {
  readonly figure: number[]
  readonly baseline: number[]
}

/** One untimed warm-up of each, then `n` interleaved rounds. */
export async function interleaved(n: number, figure: () => Promise<unknown>, baseline: () => Promise<unknown>): Promise<Pair> {
  await baseline()
  await figure()
  const out: Pair = { figure: [], baseline: [] }
  for (let i = 0; i < n; i++) {
    out.baseline.push((await timed(baseline)).ms)
    out.figure.push((await timed(figure)).ms)
  }
  return out
}

export const log = (msg: string): void => {
  process.stderr.write(`bench: ${msg}\n`)
}
