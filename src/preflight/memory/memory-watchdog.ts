/**
 * The start-up memory watchdog's judgement, pure: which nodes it watches (deploy.memoryWatchdog and
 * the host checks' facts), a node's floor, whether a sample (memory-sample.ts) is past it, and the
 * MEMORY_FLOOR_REACHED finding with the node, the start-up phase it was in and the figures.
 *
 * Why: on a GB10 the GPU's memory is the host's; a start that takes more than the host can give does
 * not fail with a CUDA out-of-memory but wedges or resets the host (vllm#46307, vllm#55569,
 * NVIDIA/dgx-spark-playbooks#97). Stopping the engine while the host still answers is the difference
 * between a failed deploy that rolls back and a node someone must power-cycle.
 */
import type { Manifest } from '../../manifest/schema.js'
import type { FactsBundle } from '../facts.js'
import type { Finding } from '../finding.js'
import { formatGiB } from '../fit/weights-share.js'
import { PHASE_WORDS } from '../startup-phases.js'
import type { NodeTimeline } from '../startup-timeline.js'
import type { MemorySample } from './memory-sample.js'

export type WatchdogSettings = Manifest['deploy']['memoryWatchdog']

/** The nodes the watchdog reads: `on` every node, `off` none, `auto` those whose facts say the GPU shares the host's memory. */
export function watchedNodes(m: Manifest, facts: FactsBundle | undefined): string[] {
  const s = m.deploy.memoryWatchdog
  if (s.enabled === 'off') return []
  if (s.enabled === 'on') return m.nodes.map((n) => n.name)
  const unified = new Set((facts?.nodes ?? []).filter((n) => n.host?.unifiedMemory === true).map((n) => n.node))
  return m.nodes.map((n) => n.name).filter((n) => unified.has(n))
}

/** The floor in bytes of MemAvailable for a node of `totalBytes`: the higher of floorBytes and floorPercent of MemTotal. */
export function floorBytesFor(s: WatchdogSettings, totalBytes: number): number {
  return Math.max(s.floorBytes ?? 0, Math.round((totalBytes * s.floorPercent) / 100))
}

/** How the floor is set, in words (for `plan` and the finding); with a known MemTotal (`source` names it), the floor it gives. */
export function floorWords(s: WatchdogSettings, known?: { readonly totalBytes: number; readonly source: string }): string {
  const percent = s.floorPercent > 0 ? `${s.floorPercent} % of MemTotal` : ''
  const bytes = s.floorBytes !== undefined ? formatGiB(s.floorBytes) : ''
  const floor = percent && bytes ? `the higher of ${bytes} and ${percent}` : percent || bytes || 'none'
  const gives = known ? ` (${formatGiB(floorBytesFor(s, known.totalBytes))} of ${known.source}'s ${formatGiB(known.totalBytes)})` : ''
  return `MemAvailable floor ${floor}${gives}; PSI memory full avg10 at most ${s.pressureFullAvg10Max} %`
}

export interface Breach {
  /** `floor`: MemAvailable under the floor; `pressure`: PSI full avg10 over its limit. */
  readonly kind: 'floor' | 'pressure'
  readonly floorBytes: number
  readonly sample: MemorySample
}

/** The sample past the floor or the pressure limit, or undefined. */
export function judgeSample(s: WatchdogSettings, sample: MemorySample): Breach | undefined {
  const floorBytes = floorBytesFor(s, sample.totalBytes)
  if (sample.availableBytes < floorBytes) return { kind: 'floor', floorBytes, sample }
  const full = sample.pressure?.fullAvg10
  if (full !== undefined && full > s.pressureFullAvg10Max) return { kind: 'pressure', floorBytes, sample }
  return undefined
}

/** The phase a node was in at the breach, in words, from the start-up timeline. */
export function phaseAt(node: NodeTimeline | undefined): string {
  const last = node?.spans.at(-1)
  if (!last) return 'the start before its first phase line (container, Ray, the vLLM process)'
  return last.endedAt === undefined ? PHASE_WORDS[last.phase] : 'serving (after the start)'
}

const gib = formatGiB

/** The figures of a sample, by name. */
export function sampleEvidence(sample: MemorySample): Record<string, string> {
  const p = sample.pressure
  const swap =
    sample.swapTotalBytes === undefined
      ? 'not reported'
      : sample.swapTotalBytes === 0
        ? 'none'
        : `${sample.swapFreeBytes !== undefined ? gib(sample.swapFreeBytes) : '?'} free of ${gib(sample.swapTotalBytes)}`
  return {
    MemAvailable: gib(sample.availableBytes),
    MemTotal: gib(sample.totalBytes),
    swap,
    'PSI memory': p
      ? `some avg10=${p.someAvg10.toFixed(2)}${p.fullAvg10 !== undefined ? ` full avg10=${p.fullAvg10.toFixed(2)}` : ''}`
      : 'not available (a kernel without PSI)',
  }
}

export interface Trip {
  readonly node: string
  readonly breach: Breach
  /** Seconds since the watch began. */
  readonly seconds: number
}

/** MEMORY_FLOOR_REACHED: the node, its phase, the figures, the nodes whose engine was stopped, and what to lower. */
export function memoryFloorFinding(m: Manifest, trip: Trip, phase: string, stopped: readonly string[]): Finding {
  const { node, breach } = trip
  const s = m.deploy.memoryWatchdog
  const what =
    breach.kind === 'floor'
      ? `${gib(breach.sample.availableBytes)} available, under the floor of ${gib(breach.floorBytes)}`
      : `memory pressure full avg10=${breach.sample.pressure?.fullAvg10?.toFixed(2)} %, over deploy.memoryWatchdog.pressureFullAvg10Max (${s.pressureFullAvg10Max} %)`
  return {
    code: 'MEMORY_FLOOR_REACHED',
    severity: 'error',
    node,
    message: `${node} had ${what} during ${phase}, ${trip.seconds} s into vLLM's start: the watchdog stopped ${m.container.name} on ${stopped.length > 0 ? stopped.join(', ') : 'no node (none answered)'} before the host could wedge.`,
    evidence: {
      phase,
      ...sampleEvidence(breach.sample),
      floor: `${gib(breach.floorBytes)} (deploy.memoryWatchdog: ${floorWords(s)})`,
      'engine stopped on': stopped.join(', ') || '(none answered)',
    },
    fix: `This start takes more memory than ${node} can give. Lower what vLLM claims there: --max-model-len or --max-num-seqs (vllm.args), vllm.kvCacheMemoryBytes (or --gpu-memory-utilization), or spread the model over more nodes (tensor/pipeline parallel); \`vllm-ray-deploy plan\` shows the footprint per node (weights + KV cache + reserve, docs/fit.md) and the largest max-model-len that fits. Stop whatever else holds memory on ${node}. Lower deploy.memoryWatchdog.floorPercent only if the host is known to stay usable with less free.`,
  }
}
