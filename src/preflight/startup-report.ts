/**
 * The start-up timeline (startup-timeline.ts) as the watchers' findings: a node stalled in a phase
 * (STARTUP_PHASE_STALLED), the first failing line of all nodes with the cascade under it
 * (STARTUP_FIRST_FAILURE, first in the list so the report leads with it), and every node's phases
 * with their durations (STARTUP_TIMELINE, info; the diagnostics bundle reads it back).
 */
import type { Manifest } from '../manifest/schema.js'
import { VLLM_LOG } from '../plan/node-commands.js'
import type { Finding } from './finding.js'
import { PHASE_WORDS, type StartupPhase, lineStamp } from './startup-phases.js'
import { type FirstFailure, type Stall, type StartupTimeline, createStartupTimeline, phaseBudgets, stallSentence, timelineLines } from './startup-timeline.js'

/** Every node of the manifest, a line Ray forwarded from a node's fabric or management address going to that node. */
export function startupTimelineFor(m: Manifest): StartupTimeline {
  const ipOf = new Map<string, string>()
  for (const n of m.nodes) {
    ipOf.set(n.ssh.host, n.name)
    ipOf.set(n.fabricIp, n.name)
  }
  return createStartupTimeline({ nodes: m.nodes.map((n) => n.name), ipOf, budgets: phaseBudgets(m.smoke.phaseBudgetSeconds) })
}

/** The manifest key of a phase's budget. */
const BUDGET_KEY: Readonly<Record<StartupPhase, keyof Manifest['smoke']['phaseBudgetSeconds']>> = {
  config: 'config',
  'distributed-init': 'distributedInit',
  'weights-loading': 'weightsLoading',
  compilation: 'compilation',
  'kv-cache-profiling': 'kvCacheProfiling',
  'cuda-graph-capture': 'cudaGraphCapture',
  'api-server': 'apiServer',
}

/** What usually holds a node in a phase, to look at first. */
const LOOK_AT: Readonly<Record<StartupPhase, string>> = {
  config: 'a model config or tokenizer read from a hub that does not answer',
  'distributed-init': "a peer that cannot be reached over the fabric (NCCL_SOCKET_IFNAME, the master port, Ray's placement group)",
  'weights-loading': "the weights' storage (a network filesystem that stopped answering, a disk read at a few MB/s)",
  compilation: 'a kernel autotune that does not finish (FlashInfer on GB10: --disable-flashinfer-autotune), or a compile cache on slow storage',
  'kv-cache-profiling': 'a collective in the profile run waiting for another node',
  'cuda-graph-capture': 'a collective in the capture waiting for another node (try --enforce-eager to confirm)',
  'api-server': 'the API server process (its port, its log)',
}

export function stallFinding(m: Manifest, s: Stall): Finding {
  return {
    code: 'STARTUP_PHASE_STALLED',
    severity: 'error',
    node: s.node,
    message: `${stallSentence(s)}; vLLM would wait until smoke.readyTimeoutSeconds (${m.smoke.readyTimeoutSeconds} s) or its own timeouts.`,
    evidence: {
      phase: PHASE_WORDS[s.phase],
      'seconds in it': String(s.seconds),
      budget: `${s.budget} s (smoke.phaseBudgetSeconds.${BUDGET_KEY[s.phase]})`,
      ...(s.progress && { progress: s.progress }),
      [`${s.node} last lines`]: s.lastLines.join('\n') || '(none)',
    },
    fix: `Look at ${LOOK_AT[s.phase]} on ${s.node} (docker exec ${m.container.name} tail -n 100 ${VLLM_LOG} on the head, Ray's worker logs on the others); if the phase is slow but moving, raise smoke.phaseBudgetSeconds.${BUDGET_KEY[s.phase]}.`,
  }
}

const at = (f: { readonly node: string; readonly stamp?: string }) => `${f.node}${f.stamp ? ` at ${f.stamp}` : ''}`

export function firstFailureFinding(first: FirstFailure): Finding {
  const { headline, cascade } = first
  return {
    code: 'STARTUP_FIRST_FAILURE',
    severity: 'error',
    node: headline.node,
    message: `The first failure of the start was on ${at(headline)}: ${headline.line}${cascade.length > 0 ? ` (then ${cascade.map((c) => c.node).join(', ')}: the cascade, below)` : ''}.`,
    evidence: {
      'first failure': `${at(headline)}: ${headline.line}`,
      ...Object.fromEntries(cascade.map((c) => [`then ${at(c)}`, c.line])),
    },
    fix: `Start from ${headline.node}'s line: what failed later on other nodes follows from it.`,
  }
}

export function timelineFinding(t: StartupTimeline, now: number): Finding | undefined {
  const lines = timelineLines(t.view(), now)
  if (lines.length === 0) return undefined
  return {
    code: 'STARTUP_TIMELINE',
    severity: 'info',
    node: null,
    message: `vLLM's start, phase by phase: ${lines.join('; ')}.`,
    evidence: Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)])),
    fix: 'Nothing to change: where each node spent its start.',
  }
}

/**
 * A failed watch's findings with the timeline's: the first failing line of all nodes leads when
 * another node than the watched one failed first, or several failed (unless a stall already leads);
 * the timeline closes the list.
 */
export function withTimeline(findings: readonly Finding[], t: StartupTimeline, now: number, watched: string): Finding[] {
  const first = t.firstFailure()
  const stalled = findings.some((f) => f.code === 'STARTUP_PHASE_STALLED')
  const lead = first && !stalled && (first.cascade.length > 0 || first.headline.node !== watched) ? [firstFailureFinding(first)] : []
  const timeline = timelineFinding(t, now)
  return [...lead, ...findings, ...(timeline ? [timeline] : [])]
}

/** Phases nobody waits on: a log read after the fact has no clock to stall against. */
const NO_BUDGET = {
  config: Infinity,
  'distributed-init': Infinity,
  'weights-loading': Infinity,
  compilation: Infinity,
  'kv-cache-profiling': Infinity,
  'cuda-graph-capture': Infinity,
  'api-server': Infinity,
} as const

/**
 * `diagnose` on logs a person has, when more than one node failed: the first failing line by the
 * time the lines carry, the other nodes' under it, and each node's phases (a line Ray forwarded from
 * another node goes to that node: named from `nodes` by its fabric or management address, else by
 * the address). A log where one node failed or none says nothing more than its signatures.
 */
export function logTimelineFindings(
  logs: readonly { readonly source: string; readonly text: string }[],
  nodes: readonly { readonly name: string; readonly fabricIp: string; readonly sshHost: string }[] = [],
): Finding[] {
  const ipOf = new Map(nodes.flatMap((n) => [[n.sshHost, n.name] as const, [n.fabricIp, n.name] as const]))
  const t = createStartupTimeline({ nodes: [], ipOf, budgets: NO_BUDGET })
  // The time each line carries is the clock (a line without one: the last line's).
  let at = 0
  for (const log of logs)
    for (const line of log.text.split('\n')) {
      const stamp = lineStamp(line)
      const m = stamp ? /^(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)$/.exec(stamp) : null
      if (m) at = Date.UTC(2000, Number(m[1]) - 1, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]))
      t.push(log.source, `${line}\n`, at)
    }
  const first = t.firstFailure()
  // The same line on every node (one log pasted for each) is one failure, not a cascade.
  if (!first?.cascade.some((c) => c.line !== first.headline.line)) return []
  const timeline = timelineFinding(t, at)
  return [firstFailureFinding(first), ...(timeline ? [timeline] : [])]
}

/** "spark-a: KV cache profiling 12 s, spark-b: weights loading 40 s": where each node is now. */
export function whereNow(t: StartupTimeline, now: number): string {
  return t
    .view()
    .flatMap((n) => {
      const s = n.spans.at(-1)
      return s && s.endedAt === undefined
        ? [`${n.node}: ${PHASE_WORDS[s.phase]} ${Math.round((now - s.enteredAt) / 1000)} s${s.progress ? ` [${s.progress}]` : ''}`]
        : []
    })
    .join(', ')
}
