/**
 * Log signature analysis: find the lines that name a known Ray/vLLM multi-node failure.
 *
 * `createLogWatcher` is the incremental form for a live log (vLLM's startup output arriving in
 * chunks): `push` returns the findings completed by that chunk, so a caller can stop a deploy
 * seconds after "Waiting for creating a placement group" instead of after vLLM's 1800 s timeout.
 * `scanLog` is the same over a whole text. Each signature is reported once per distinct evidence
 * (the same pinned node, the same Gloo failure mode...), from its first line.
 */

import { createStopReader } from './deliberate-stop.js'
import type { RayView } from './facts.js'
import { EVIDENCE, type Finding } from './finding.js'
import { createLineJoiner, detectPasteWidths, cleanPhysical, type LogicalLine } from './paste-normalise.js'
import { createFailureCollector } from './signature-fallback.js'
import { createCauseTracker, createFindingBook, shown } from './log-findings.js'
import { patternPrefilter } from './pattern-prefilter.js'
import { SIGNATURE_RULES, type SignatureRule } from './signature-rules.js'

/** The signature rules' prefilter (pattern-prefilter.ts): a line is tried only against the rules whose words it holds. */
const RULES = patternPrefilter(SIGNATURE_RULES.map((r) => r.pattern))
/** Each rule's literal words, null for a rule tried on every line. */
export const RULE_WORDS = RULES.words

/** The rules to try on `line`, in their order: those whose words occur in it, and those always tried. */
export function candidateRules(line: string): SignatureRule[] {
  RULES.read(line)
  return RULES.candidates().map((i) => SIGNATURE_RULES[i]!)
}

export interface LogWatcherOptions {
  /** Where the text comes from, for evidence: `spark-a:vllm-serve.log`, `docker logs vllm-ray`. */
  readonly source: string
  /** Ray's nodes, to set a requested `node:<ip>` beside the addresses Ray knows. */
  readonly ray?: RayView
  /** Called for each finding as soon as the line that proves it is complete. */
  readonly onFinding?: (finding: Finding) => void
  /** The width a pasted text was cut at (terminal wrap), when known (`scanLog` detects it). */
  readonly wrapWidth?: number
  /** The width a pasted text was re-wrapped at between words, when known (`scanLog` detects it). */
  readonly foldWidth?: number
}

export interface LogWatcher {
  /** Feed more text; returns the findings completed by it (lines may be split across chunks). */
  push(chunk: string): Finding[]
  /** The text has ended: judge a last line without a newline. */
  end(): Finding[]
  /** Every finding so far, in order. */
  readonly findings: readonly Finding[]
  /** Complete lines read so far. */
  readonly lines: number
  /** First physical line of every logical line a signature matched, reported or deduplicated. */
  readonly matchedLines: ReadonlySet<number>
  /**
   * The failure lines no signature explained, as one UNRECOGNISED_FAILURE (error) and a warning per
   * family their words name, when no error finding was made ([] otherwise): what a caller reports once
   * the log has ended (vLLM exited, the watch gave up).
   */
  unexplained(): Finding[]
}

/** A line longer than this is judged in pieces, so a stream without newlines cannot grow memory. */
const MAX_LINE = 64 * 1024

/** Each complete line of a text (an endless one in MAX_LINE pieces) to `line`; returns the unfinished rest. */
function eachLine(text: string, line: (l: string) => void): string {
  let start = 0
  for (;;) {
    const nl = text.indexOf('\n', start)
    if (nl >= 0 && nl - start <= MAX_LINE) {
      line(text.slice(start, nl))
      start = nl + 1
    } else if (text.length - start > MAX_LINE) {
      line(text.slice(start, start + MAX_LINE))
      start += MAX_LINE
    } else {
      return text.slice(start)
    }
  }
}

export function createLogWatcher(opts: LogWatcherOptions): LogWatcher {
  const book = createFindingBook()
  const failures = createFailureCollector()
  const causes = createCauseTracker(book)
  const matchedLines = new Set<number>()
  let pending = ''
  let lineNo = 0
  const joiner = createLineJoiner({
    ...(opts.wrapWidth !== undefined ? { wrapWidth: opts.wrapWidth } : {}),
    ...(opts.foldWidth !== undefined ? { foldWidth: opts.foldWidth } : {}),
  })
  /** The still-open logical line judged early (a live log must not wait for the next line). */
  let judgedEarly: { line: number; text: string } | null = null
  /** Facts a rule keeps from earlier lines of this log (LineContext.memory). */
  const memory = new Map<string, string>()

  /** Lines after vLLM's engine received a stop signal are its teardown, not failures (deliberate-stop.ts). */
  const afterStop = createStopReader()

  const judge = (logical: LogicalLine): Finding[] => {
    if (judgedEarly && judgedEarly.line === logical.line && judgedEarly.text === logical.text) return []
    const line = logical.text
    if (afterStop(line)) return []
    const found: Finding[] = []
    let matched = false
    for (const rule of candidateRules(line)) {
      const m = rule.pattern.exec(line)
      if (!m) continue
      const hit = rule.hit(m, line, opts.ray, logical.prefixIp !== undefined ? { prefixIp: logical.prefixIp, memory } : { memory })
      if (hit === null) continue
      matched = true
      matchedLines.add(logical.line)
      const finding = book.record(rule.code, hit, () => ({
        code: rule.code,
        severity: hit.severity,
        node: logical.prefixIp ?? null,
        message: hit.message,
        evidence: {
          [EVIDENCE.logLine]: `${opts.source}:${logical.line}${logical.physicalLines > 1 ? `-${logical.line + logical.physicalLines - 1}` : ''}`,
          Line: shown(line, m.index),
          ...(logical.repeated !== undefined ? { 'Repeated on other workers': `${logical.repeated}x` } : {}),
          ...hit.evidence,
        },
        fix: hit.fix,
      }))
      if (finding === null) continue
      found.push(finding)
      opts.onFinding?.(finding)
    }
    failures.observe(logical, matched)
    causes.note(logical)
    return found
  }

  const physical = (raw: string): Finding[] => {
    lineNo++
    return joiner.push(raw).flatMap(judge)
  }
  /** A complete (no open bracket) line still waiting for a possible continuation is judged now. */
  const early = (): Finding[] => {
    const open = joiner.peek()
    if (!open || open.open || (judgedEarly?.line === open.line && judgedEarly.text === open.text)) return []
    const found = judge(open)
    judgedEarly = { line: open.line, text: open.text }
    return found
  }

  return {
    push(chunk: string): Finding[] {
      const out: Finding[] = []
      pending = eachLine(pending + chunk, (line) => out.push(...physical(line)))
      out.push(...early())
      return out
    },
    end(): Finding[] {
      const out: Finding[] = []
      if (pending !== '') {
        const last = pending
        pending = ''
        out.push(...physical(last))
      }
      out.push(...joiner.end().flatMap(judge))
      return out
    },
    get findings() {
      return book.findings
    },
    get lines() {
      return lineNo
    },
    get matchedLines() {
      return matchedLines
    },
    unexplained: () => failures.findings(opts.source, book.findings),
  }
}

/**
 * Every signature in a whole log text; when none of them is an error and the text holds failure
 * lines nothing explained, one UNRECOGNISED_FAILURE (error) quoting them (signature-fallback.ts): a
 * pasted crash never reads as "No findings".
 */
export function scanLog(text: string, source: string, ray?: RayView): Finding[] {
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  const { wrapWidth, foldWidth } = detectPasteWidths(lines.map(cleanPhysical))
  const watcher = createLogWatcher({
    source,
    ...(ray ? { ray } : {}),
    ...(wrapWidth !== undefined ? { wrapWidth } : {}),
    ...(foldWidth !== undefined ? { foldWidth } : {}),
  })
  // The whole text is here: its last line is complete (no early judgement of a line the next one may carry on).
  watcher.push(text.endsWith('\n') ? text : `${text}\n`)
  watcher.end()
  // The watcher's list: findings completed by later lines (a repo id, a root cause) in their final form.
  const found = [...watcher.findings]
  return [...found, ...watcher.unexplained()]
}
