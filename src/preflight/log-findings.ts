/**
 * The findings of one log as it is read: each code and key once, a later line completing an earlier
 * finding with the values it lacked, and engine deaths joined to their cause line. Used by the log
 * watcher (signatures.ts); pure bookkeeping, no rules.
 */

import type { Finding, FindingCode } from './finding.js'
import type { LogicalLine } from './paste-normalise.js'
import type { RuleHit } from './signature-rules.js'

/** How much of a matched line goes into evidence. */
const SHOWN = 300

/** The part of a long line around the match, trimmed. */
export function shown(line: string, at: number): string {
  const text = line.trim()
  if (text.length <= SHOWN) return text
  const start = Math.max(0, Math.min(at - 60, text.length - SHOWN))
  return `${start > 0 ? '…' : ''}${text.slice(start, start + SHOWN)}${start + SHOWN < text.length ? '…' : ''}`
}

/** Where a finding's cause is: the exception line before a death line, or the first one after it. */
const CAUSE = 'Root cause'
/** Engine deaths whose cause vLLM prints before them ("See root cause above") or after them (the traceback that follows). */
// (multiproc_executor.py raises "WorkerProc initialization failed …" after the worker's own traceback was printed)
const CAUSE_ABOVE = /See root cause above|See stack trace \(above\)|See stack trace for root cause|WorkerProc initialization failed/
/**
 * An exception line, also behind a log record's header ("ERROR 06-15 13:57:57 [core.py:517] TimeoutError: …",
 * "| [2025-03-10T15:07:20Z] ERROR … [core.py:302] ValueError: …"): the candidate cause of an engine death.
 */
const EXCEPTION_LINE = /(?:^|\]\s|\|\s)\s*((?:[a-z_]\w*\.)*[A-Z]\w*(?:Error|Exception))(?::\s|:?\s*$)/
const DEATH =
  /EngineDeadError|EngineCore failed to start|Engine core initialization failed|EngineCore encountered (?:a fatal error|an issue)|EngineCore hit an exception|WorkerProc (?:initialization failed|failed to start)/

/**
 * A later line of the same finding (same code and key) that carries values the first lacked — the
 * repo id a gated-repo error names two lines down, the allocation of a CUDA OOM — completes it: its
 * evidence is added and its message and fix (written with those values) replace the first ones.
 */
function refine(prior: Finding, hit: RuleHit): Finding | null {
  const added = Object.entries(hit.evidence).filter(([k]) => !(k in prior.evidence))
  if (added.length === 0) return null
  return { ...prior, message: hit.message, fix: hit.fix, evidence: { ...prior.evidence, ...Object.fromEntries(added) } }
}

/**
 * A rule that cannot read a value on its line (the CUDA OOM line without the GPU and the allocation)
 * ends its key with "?"; a later hit of the same code whose key starts the same way completes that
 * finding instead of making a second one (its key could not match: it holds the value the first line lacked).
 */
const completes = (provisional: string, key: string): boolean => provisional.endsWith('?') && key !== provisional && key.startsWith(provisional.slice(0, -1))

export interface FindingBook {
  /** Every finding so far, in order, each in its latest (completed) form. */
  readonly findings: readonly Finding[]
  /**
   * A rule's hit: a new finding (built by `make`), or null when the code and key were seen (or the hit
   * completes an earlier finding, which is then updated in place).
   */
  record(code: FindingCode, hit: RuleHit, make: () => Finding): Finding | null
  /** The index of the finding with this code and key. */
  indexOf(code: FindingCode, key: string): number | undefined
  update(index: number, change: (f: Finding) => Finding): void
}

export function createFindingBook(): FindingBook {
  const findings: Finding[] = []
  /** code + key → index in findings. */
  const seen = new Map<string, number>()
  /** code → indices in findings, for a later hit that completes an earlier finding under another key. */
  const byCode = new Map<string, number[]>()
  /** The key of each finding, by index. */
  const keys: string[] = []
  return {
    findings,
    record(code, hit, make) {
      const dedupe = `${code}\u0000${hit.key}`
      const prior = seen.get(dedupe) ?? (byCode.get(code) ?? []).find((i) => completes(keys[i]!, hit.key))
      if (prior !== undefined) {
        const better = refine(findings[prior]!, hit)
        if (better) findings[prior] = better
        seen.set(dedupe, prior)
        return null
      }
      seen.set(dedupe, findings.length)
      byCode.set(code, [...(byCode.get(code) ?? []), findings.length])
      keys.push(hit.key)
      const finding = make()
      findings.push(finding)
      return finding
    },
    indexOf: (code, key) => seen.get(`${code}\u0000${key}`),
    update(index, change) {
      findings[index] = change(findings[index]!)
    },
  }
}

/** Engine deaths carry their cause: the exception before "See root cause above", or the first after a death whose traceback follows. */
export function createCauseTracker(book: FindingBook): { note(logical: LogicalLine): void } {
  /** The last exception line seen ("line: text"), and a death whose cause comes after it (index in findings). */
  let lastException: string | undefined
  let deathAwaitingCause: number | undefined
  const withCause =
    (cause: string) =>
    (f: Finding): Finding => ({
      ...f,
      message: `${f.message.replace(/;? ?the cause is logged above this line\.?$/, '').replace(/\.$/, '')}: ${cause.replace(/^\d+: /, '')}`.slice(0, 600),
      evidence: { ...f.evidence, [CAUSE]: cause },
    })
  return {
    note(logical) {
      const text = logical.text
      const death = DEATH.exec(text)
      if (death) {
        const at = book.indexOf('ENGINE_DEAD', death[0])
        if (at === undefined || CAUSE in book.findings[at]!.evidence) return
        if (CAUSE_ABOVE.test(text) && lastException !== undefined) book.update(at, withCause(lastException))
        else deathAwaitingCause = at
        return
      }
      const exception = EXCEPTION_LINE.exec(text.slice(0, 2000))
      if (!exception) return
      lastException = `${logical.line}: ${shown(text.slice(exception.index).replace(/^[\]|]\s*/, ''), 0)}`
      if (deathAwaitingCause !== undefined) {
        book.update(deathAwaitingCause, withCause(lastException))
        deathAwaitingCause = undefined
      }
    },
  }
}
