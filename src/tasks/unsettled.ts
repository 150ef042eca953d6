/**
 * A run whose promise nothing will ever settle (an await on something that holds no handle, e.g.
 * a fetch whose only timer is AbortSignal.timeout's unref'd one) lets Node's event loop empty, and
 * Node then exits 0: a deploy step that did not finish would pass. Each entry (CLI, Action,
 * bench) wraps its run in this: if the loop empties while the run is pending, `onUnsettled` says
 * so and sets a failing exit code.
 */
import type { EventEmitter } from 'node:events'

export const UNSETTLED_MESSAGE =
  'the run ended before it finished: nothing was left running and its last step never reported back (a bug in vllm-ray-deploy); what was done is in the log above'

export function failIfUnsettled<T>(work: Promise<T>, onUnsettled: () => void, proc: Pick<EventEmitter, 'on' | 'off'> = process): Promise<T> {
  let settled = false
  const guard = () => {
    if (settled) return
    settled = true
    onUnsettled()
  }
  proc.on('beforeExit', guard)
  return work.finally(() => {
    settled = true
    proc.off('beforeExit', guard)
  })
}
