/**
 * The waits between the polls of a long wait (vLLM's /health and log, the native process group, the
 * Ray head's `ray status`): one schedule and one abortable pause, for every poller in the tool.
 *
 * The schedule starts short and doubles up to the poller's interval: a thing that is ready almost at
 * once (a small model, a Ray head on a warm machine, a rerun) is seen within a quarter second, and a
 * thing that takes minutes (a 122B model loading) is asked no more often than before. A poll is an SSH
 * command, so the first few cost a few extra commands per wait, never more.
 */

/** The first wait of a schedule. */
export const FIRST_POLL_MS = 250

/** The wait before poll number `attempt + 1` (0-based): 250 ms, doubling, capped at `maxMs`. */
export function backoffMs(attempt: number, maxMs: number): number {
  if (maxMs <= FIRST_POLL_MS) return Math.max(0, maxMs)
  return Math.min(maxMs, FIRST_POLL_MS * 2 ** Math.max(0, Math.min(attempt, 30)))
}

/** The same schedule in whole and fractional seconds, as `sleep` on a node takes them (0.25 0.5 1 2). */
export function backoffSeconds(maxSeconds: number): string[] {
  const out: string[] = []
  for (let i = 0; ; i++) {
    const ms = backoffMs(i, maxSeconds * 1000)
    out.push(String(ms / 1000))
    if (ms >= maxSeconds * 1000) return out
  }
}

/** Waits `ms`; an abort ends the wait at once (it resolves, the caller checks the signal). */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve()
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
}
