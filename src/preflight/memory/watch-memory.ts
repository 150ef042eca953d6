/**
 * The start-up memory watchdog's loop: every `intervalSeconds`, one `cat /proc/meminfo
 * /proc/pressure/memory` on each watched node, over the deploy's own connections; the first node past
 * its floor ends the watch with a Trip. A read that fails or that cannot be parsed is
 * reported once per node and skipped (a watchdog that cannot read is no reason to stop a start).
 * Aborting the signal ends the watch (the start finished, or the rollout was cancelled).
 */
import type { Manifest } from '../../manifest/schema.js'
import { boundedTimeoutSeconds } from '../../manifest/ssh-settings.js'
import { memorySampleCmd } from '../../plan/memory-watch-commands.js'
import type { Transport } from '../../transport/transport.js'
import { pause } from '../watch-vllm.js'
import { parseMemorySample } from './memory-sample.js'
import { type Trip, judgeSample } from './memory-watchdog.js'

export interface MemoryWatchOptions {
  readonly signal: AbortSignal
  readonly onProgress?: (message: string) => void
}

/** One read of one node: its breach, or undefined (within the floor, or unreadable: said once). */
async function readNode(m: Manifest, node: string, t: Transport, o: MemoryWatchOptions, said: Set<string>, started: number): Promise<Trip | undefined> {
  const r = await t.run(memorySampleCmd(), { timeoutMs: boundedTimeoutSeconds(m.ssh, 15) * 1000, signal: o.signal })
  if (r.cancelled || o.signal.aborted) return undefined
  const sample = parseMemorySample(r.stdout)
  if (!sample.ok) {
    if (!said.has(node))
      o.onProgress?.(`memory watchdog: cannot read ${node}'s memory (${r.code === null ? 'no answer' : sample.problem.message}); going on without it`)
    said.add(node)
    return undefined
  }
  const breach = judgeSample(m.deploy.memoryWatchdog, sample.value)
  return breach && { node, breach, seconds: Math.round((Date.now() - started) / 1000) }
}

/**
 * Watch `nodes` until one is past its floor (its Trip) or the signal is aborted (undefined). Each node
 * on its own clock: a node slow to answer (a host under memory pressure) never delays another's read.
 */
export async function watchMemory(
  m: Manifest,
  transports: ReadonlyMap<string, Transport>,
  nodes: readonly string[],
  o: MemoryWatchOptions,
): Promise<Trip | undefined> {
  const started = Date.now()
  const said = new Set<string>()
  const tripped = new AbortController()
  const each: MemoryWatchOptions = { ...o, signal: AbortSignal.any([o.signal, tripped.signal]) }
  const watch = async (node: string, t: Transport): Promise<Trip | undefined> => {
    while (!each.signal.aborted) {
      const trip = await readNode(m, node, t, each, said, started)
      if (trip && !each.signal.aborted) {
        tripped.abort()
        return trip
      }
      await pause(m.deploy.memoryWatchdog.intervalSeconds * 1000, each.signal)
    }
    return undefined
  }
  const trips = await Promise.all(nodes.filter((n) => transports.has(n)).map((n) => watch(n, transports.get(n)!)))
  return trips.find((x) => x !== undefined)
}
