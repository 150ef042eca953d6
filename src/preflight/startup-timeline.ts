/**
 * The start-up timeline of every node: which phase of a vLLM start each is in (startup-phases.ts),
 * since when, how long each phase took, the node that stays in one phase past its budget, and the
 * first failing line across all nodes with the later ones (the cascade) grouped under it.
 *
 * Pure but for its own state: the caller feeds each node's log text with the time it read it
 * (`push`) and asks with the time now (`stalls`, `view`), so a test drives the clock. Bounded: a
 * few lines per node, one unfinished line per source.
 */
import type { Manifest } from '../manifest/schema.js'
import { PHASE_WORDS, type StartupPhase, blamedIp, isFailureLine, lineStamp, phaseOfLine, rayLineIp } from './startup-phases.js'

/** Seconds a node may stay in each phase before it is reported as stalled there. */
export type PhaseBudgets = Readonly<Record<StartupPhase, number>>

/** The manifest's budgets (smoke.phaseBudgetSeconds, whose defaults say where they come from) by phase. */
export function phaseBudgets(b: Manifest['smoke']['phaseBudgetSeconds']): PhaseBudgets {
  return {
    config: b.config,
    'distributed-init': b.distributedInit,
    'weights-loading': b.weightsLoading,
    compilation: b.compilation,
    'kv-cache-profiling': b.kvCacheProfiling,
    'cuda-graph-capture': b.cudaGraphCapture,
    'api-server': b.apiServer,
  }
}

export interface PhaseSpan {
  readonly phase: StartupPhase
  /** When the watcher read the line that entered it (ms since the epoch). */
  readonly enteredAt: number
  /** When the next phase was entered, or the server was ready. */
  readonly endedAt?: number
  /** The last progress the phase printed (`3/5 shards`). */
  readonly progress?: string
}

export interface FailureLine {
  readonly node: string
  readonly line: string
  /** The time the line itself carries (`12-05 16:49:37`), when it has one. */
  readonly stamp?: string
  /** When the watcher read it. */
  readonly at: number
  /** Its place among every line the timeline read (the order of one log breaks a tie). */
  readonly order: number
  /** Ray forwarded it from its node into another node's log (so it was written earlier than it was read). */
  readonly forwarded?: boolean
}

export interface NodeTimeline {
  readonly node: string
  readonly spans: readonly PhaseSpan[]
  /** The node's last log lines (at most LAST_LINES). */
  readonly lastLines: readonly string[]
  /** The node's first failing line, and how many it printed. */
  readonly firstFailure?: FailureLine
  readonly failures: number
}

export interface Stall {
  readonly node: string
  readonly phase: StartupPhase
  /** Seconds in the phase so far, and its budget. */
  readonly seconds: number
  readonly budget: number
  readonly progress?: string
  readonly lastLines: readonly string[]
}

export interface FirstFailure {
  /** The earliest failing line of all nodes: the headline. */
  readonly headline: FailureLine
  /** The first failing line of each other node that failed later (a cascade of the headline). */
  readonly cascade: readonly FailureLine[]
}

export interface StartupTimeline {
  /** Text read from `source`'s log at `at`; a line Ray forwarded from another node (`ip=`) goes to that node. */
  push(source: string, chunk: string, at: number): void
  /** The server answered: the phase each node is in ends. */
  ready(at: number): void
  /** The nodes in one phase past its budget at `now`, the one that entered it first first. */
  stalls(now: number): Stall[]
  firstFailure(): FirstFailure | undefined
  view(): NodeTimeline[]
}

const LAST_LINES = 20
const MAX_LINE_CHARS = 500
const MAX_PENDING = 64 * 1024

interface NodeState {
  spans: PhaseSpan[]
  lastLines: string[]
  firstFailure?: FailureLine
  failures: number
  seen: boolean
  /** The time the node's last line that carried one said. */
  lastStamp?: string
  /** The first line of this node's log that names another node as where its error came from. */
  blames?: FailureLine
}

/** Orders two failing lines: by their own time when both carry one, else by when they were read. */
export function earlier(a: FailureLine, b: FailureLine): number {
  if (a.stamp !== undefined && b.stamp !== undefined) {
    if (a.stamp !== b.stamp) return a.stamp < b.stamp ? -1 : 1
    // The same second: a line Ray forwarded from a worker reaches the driver's log after the
    // driver's own reaction to it (the worker's exception comes back through ray.get at once, its
    // log lines through Ray's log monitor), so within a second the forwarded line is the earlier.
    if (Boolean(a.forwarded) !== Boolean(b.forwarded)) return a.forwarded ? -1 : 1
  }
  return a.at - b.at || a.order - b.order
}

/** The prefix Ray and vLLM put before a message, and terminal colour codes, out of a kept line. */
const shown = (line: string): string => {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes in captured logs
  const plain = line.replace(/\u001b\[[0-9;]*m/g, '').trimEnd()
  return plain.length > MAX_LINE_CHARS ? `${plain.slice(0, MAX_LINE_CHARS)}…` : plain
}

/** The node enters `phase` at `at` (progress inside the phase it is in only updates that). */
function enter(s: NodeState, phase: StartupPhase, at: number, progress?: string): void {
  const current = s.spans.at(-1)
  if (current && current.endedAt === undefined && current.phase === phase) {
    if (progress !== undefined) s.spans[s.spans.length - 1] = { ...current, progress }
    return
  }
  if (current && current.endedAt === undefined) s.spans[s.spans.length - 1] = { ...current, endedAt: at }
  s.spans.push({ phase, enteredAt: at, ...(progress !== undefined && { progress }) })
}

/** One line of a node: its last lines, the phase it marks, and whether it is the node's first failure. */
function observe(s: NodeState, node: string, raw: string, at: number, order: number, forwarded: boolean): void {
  s.seen = true
  const text = shown(raw)
  s.lastLines.push(text)
  if (s.lastLines.length > LAST_LINES) s.lastLines.shift()
  const mark = phaseOfLine(raw)
  if (mark) enter(s, mark.phase, at, mark.progress)
  else if (s.spans.length === 0) enter(s, 'config', at)
  const own = lineStamp(raw)
  if (isFailureLine(raw)) {
    s.failures++
    // A line without a time of its own (a C++ error, a traceback) happened at or after the node's
    // last stamped line, and at or before its next stamped failure line.
    const stamp = own ?? s.lastStamp
    if (!s.firstFailure) s.firstFailure = { node, line: text, ...(stamp !== undefined && { stamp }), at, order, ...(forwarded && { forwarded }) }
    else if (s.firstFailure.stamp === undefined && stamp !== undefined) s.firstFailure = { ...s.firstFailure, stamp }
  }
  if (own !== undefined) s.lastStamp = own
}

/**
 * The earliest failing line of all nodes. When the node it is on names another node as where its
 * error came from (Ray's task error names the worker), that node failed first: its own first
 * failing line leads, or, when its line never reached any log read, the line that names it.
 */
function firstOf(state: ReadonlyMap<string, NodeState>): FirstFailure | undefined {
  const firsts = [...state.values()].flatMap((s) => (s.firstFailure ? [s.firstFailure] : [])).sort(earlier)
  const [headline, ...cascade] = firsts
  if (!headline) return undefined
  const blames = state.get(headline.node)?.blames
  if (!blames) return { headline, cascade }
  const own = state.get(blames.node)?.firstFailure
  return { headline: own ?? blames, cascade: firsts.filter((f) => f !== own) }
}

/** The nodes in one phase past its budget at `now`, the one that entered it first first. */
function stallsOf(state: ReadonlyMap<string, NodeState>, budgets: PhaseBudgets, now: number): Stall[] {
  const out: (Stall & { since: number })[] = []
  for (const [node, s] of state) {
    const current = s.spans.at(-1)
    if (!current || current.endedAt !== undefined) continue
    const seconds = Math.floor((now - current.enteredAt) / 1000)
    const budget = budgets[current.phase]
    if (seconds > budget)
      out.push({
        node,
        phase: current.phase,
        seconds,
        budget,
        since: current.enteredAt,
        ...(current.progress !== undefined && { progress: current.progress }),
        lastLines: s.lastLines.slice(-10),
      })
  }
  return out.sort((a, b) => a.since - b.since).map(({ since: _since, ...stall }) => stall)
}

export function createStartupTimeline(opts: {
  readonly nodes: readonly string[]
  readonly ipOf?: ReadonlyMap<string, string>
  readonly budgets: PhaseBudgets
}): StartupTimeline {
  const budgets = opts.budgets
  const state = new Map<string, NodeState>(opts.nodes.map((n) => [n, { spans: [], lastLines: [], failures: 0, seen: false }]))
  const pending = new Map<string, string>()
  let order = 0
  const nodeOf = (source: string, line: string): string => {
    // A line from an address no node has (Ray's identity is not the node's fabric or management
    // address) goes to that address: it is another node, named as Ray names it.
    const ip = rayLineIp(line)
    return ip === undefined ? source : (opts.ipOf?.get(ip) ?? ip)
  }
  const stateOf = (node: string): NodeState => {
    let s = state.get(node)
    if (!s) {
      s = { spans: [], lastLines: [], failures: 0, seen: false }
      state.set(node, s)
    }
    return s
  }
  const line = (source: string, raw: string, at: number) => {
    if (raw.trim() === '') return
    order++
    const node = nodeOf(source, raw)
    const s = stateOf(node)
    observe(s, node, raw, at, order, node !== source)
    const blamed = blamedIp(raw)
    const other = blamed === undefined ? undefined : (opts.ipOf?.get(blamed) ?? blamed)
    if (other !== undefined && other !== node && !s.blames) {
      const stamp = lineStamp(raw) ?? s.lastStamp
      s.blames = { node: other, line: shown(raw), ...(stamp !== undefined && { stamp }), at, order, forwarded: true }
    }
  }
  return {
    push(source, chunk, at) {
      const text = (pending.get(source) ?? '') + chunk
      const parts = text.split(/\r\n|\r|\n/)
      const rest = parts.pop() ?? ''
      for (const p of parts) line(source, p, at)
      // A progress bar redraws with \r and no newline: judge the unfinished line too, keep it for the next chunk.
      if (rest.length > MAX_PENDING) {
        line(source, rest, at)
        pending.set(source, '')
      } else pending.set(source, rest)
    },
    ready(at) {
      for (const s of state.values()) {
        const current = s.spans.at(-1)
        if (current && current.endedAt === undefined) s.spans[s.spans.length - 1] = { ...current, endedAt: at }
      }
    },
    stalls: (now) => stallsOf(state, budgets, now),
    firstFailure: () => firstOf(state),
    view() {
      return [...state].map(([node, s]) => ({
        node,
        spans: [...s.spans],
        lastLines: [...s.lastLines],
        ...(s.firstFailure && { firstFailure: s.firstFailure }),
        failures: s.failures,
      }))
    },
  }
}

/** "spark-b stalled in weights loading for 95 s (budget 60 s; at 3/5 shards)". */
export function stallSentence(s: Stall): string {
  return `${s.node} stalled in ${PHASE_WORDS[s.phase]} for ${s.seconds} s (budget ${s.budget} s${s.progress ? `; at ${s.progress}` : ''})`
}

/** One line per node: each phase reached with its duration (`weights loading 42 s`), the current one open. */
export function timelineLines(nodes: readonly NodeTimeline[], now: number): string[] {
  return nodes
    .filter((n) => n.spans.length > 0)
    .map((n) => {
      const spans = n.spans.map((s) => {
        const secs = Math.round(((s.endedAt ?? now) - s.enteredAt) / 1000)
        return `${PHASE_WORDS[s.phase]} ${secs} s${s.endedAt === undefined ? ' (still in it)' : ''}${s.progress ? ` [${s.progress}]` : ''}`
      })
      return `${n.node}: ${spans.join(' → ')}`
    })
}
