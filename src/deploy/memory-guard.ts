/**
 * The start-up memory watchdog around the `vllm` stage (deploy.memoryWatchdog): it watches the nodes
 * (src/preflight/memory/watch-memory.ts) while the stage waits for the start (the rendezvous, the
 * head's /health); the first node under its floor aborts that wait, the release's container is
 * killed on every node at once, and the stage stops with MEMORY_FLOOR_REACHED (the node, the phase the
 * start-up timeline had it in, the figures). The rollout's on-failure (by default: rollback) follows.
 */
import type { Finding } from '../preflight/finding.js'
import { floorWords, memoryFloorFinding, phaseAt, watchedNodes } from '../preflight/memory/memory-watchdog.js'
import { watchMemory } from '../preflight/memory/watch-memory.js'
import { timelineFinding } from '../preflight/startup-report.js'
import type { StartupTimeline } from '../preflight/startup-timeline.js'
import type { FactsBundle } from '../preflight/facts.js'
import { boundedTimeoutSeconds } from '../manifest/ssh-settings.js'
import type { Manifest } from '../manifest/schema.js'
import { killEngineCmd } from '../plan/memory-watch-commands.js'
import { problem } from '../result/result.js'
import type { Transport } from '../transport/transport.js'
import { type StageOutcome, stop } from './stages/stage.js'

export interface MemoryGuard {
  /** Aborted when the rollout is cancelled or the watchdog trips: the start-up wait runs on it. */
  readonly signal: AbortSignal | undefined
  /** Ends the watch. When it tripped: the engine is stopped on every node, and the stage's stop. */
  settle(timeline: StartupTimeline): Promise<StageOutcome | undefined>
}

export interface GuardInput {
  readonly m: Manifest
  readonly facts: FactsBundle | undefined
  readonly transports: ReadonlyMap<string, Transport>
  readonly signal?: AbortSignal
  readonly progress: (message: string) => void
}

/** The release's container killed on every node at once; the nodes where it was. */
async function stopEngines(m: Manifest, transports: ReadonlyMap<string, Transport>): Promise<string[]> {
  const done = await Promise.all(
    m.nodes.map(async (n) => {
      const t = transports.get(n.name)
      if (!t) return undefined
      const r = await t.run(killEngineCmd(m), { timeoutMs: boundedTimeoutSeconds(m.ssh, 30) * 1000 })
      return r.code === 0 ? n.name : undefined
    }),
  )
  return done.filter((n): n is string => n !== undefined)
}

/** Start watching the nodes deploy.memoryWatchdog names (none: a guard that never trips). */
export function guardMemory(g: GuardInput): MemoryGuard {
  const { m } = g
  const nodes = watchedNodes(m, g.facts)
  if (nodes.length === 0) return { signal: g.signal, settle: async () => undefined }
  const tripped = new AbortController()
  const ended = new AbortController()
  const outer = g.signal ? [g.signal] : []
  g.progress(`memory watchdog: ${nodes.join(', ')} every ${m.deploy.memoryWatchdog.intervalSeconds} s (${floorWords(m.deploy.memoryWatchdog)})`)
  const trip = watchMemory(m, g.transports, nodes, { signal: AbortSignal.any([ended.signal, ...outer]), onProgress: g.progress }).then((t) => {
    if (t) tripped.abort()
    return t
  })
  return {
    signal: AbortSignal.any([tripped.signal, ...outer]),
    async settle(timeline) {
      ended.abort()
      const t = await trip
      if (!t) return undefined
      const phase = phaseAt(timeline.view().find((n) => n.node === t.node))
      g.progress(`memory watchdog: ${t.node} under its floor during ${phase}; killing ${m.container.name} on every node`)
      const stopped = await stopEngines(m, g.transports)
      const finding = memoryFloorFinding(m, t, phase, stopped)
      const timelineInfo = timelineFinding(timeline, Date.now())
      const findings: Finding[] = [finding, ...(timelineInfo ? [timelineInfo] : [])]
      return stop(problem(finding.code, finding.message, finding.fix, finding.evidence), { findings })
    },
  }
}
