/**
 * Log signature analysis: find the lines that name a known Ray/vLLM multi-node failure.
 *
 * `createLogWatcher` is the incremental form for a live log (vLLM's startup output arriving in
 * chunks): `push` returns the findings completed by that chunk, so a caller can stop a deploy
 * seconds after "Waiting for creating a placement group" instead of after vLLM's 1800 s timeout.
 * `scanLog` is the same over a whole text. Each signature is reported once per distinct evidence
 * (the same pinned node, the same Gloo failure mode...), from its first line.
 */

import type { RayView } from './facts.js'
import { EVIDENCE, type Finding } from './finding.js'
import { SIGNATURE_RULES } from './signature-rules.js'

export interface LogWatcherOptions {
  /** Where the text comes from, for evidence: `spark-a:vllm-serve.log`, `docker logs vllm-ray`. */
  readonly source: string
  /** Ray's nodes, to set a requested `node:<ip>` beside the addresses Ray knows. */
  readonly ray?: RayView
  /** Called for each finding as soon as the line that proves it is complete. */
  readonly onFinding?: (finding: Finding) => void
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
}

/** A line longer than this is judged in pieces, so a stream without newlines cannot grow memory. */
const MAX_LINE = 64 * 1024
/** How much of a matched line goes into evidence. */
const SHOWN = 300

// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts the colour codes this strips from logs
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g

/** Ray prefixes worker output with `(RayWorkerWrapper pid=1890, ip=10.41.0.8)`: the node it ran on. */
const rayPrefixIp = (line: string): string | null => /\([\w.]+ pid=\d+, ip=([\d.]+)\)/.exec(line)?.[1] ?? null

/** The part of a long line around the match, trimmed. */
function shown(line: string, at: number): string {
  const text = line.trim()
  if (text.length <= SHOWN) return text
  const start = Math.max(0, Math.min(at - 60, text.length - SHOWN))
  return `${start > 0 ? '…' : ''}${text.slice(start, start + SHOWN)}${start + SHOWN < text.length ? '…' : ''}`
}

export function createLogWatcher(opts: LogWatcherOptions): LogWatcher {
  const findings: Finding[] = []
  const seen = new Set<string>()
  let pending = ''
  let lineNo = 0

  const judge = (raw: string): Finding[] => {
    lineNo++
    const line = raw.replace(ANSI, '').replace(/\r$/, '')
    const found: Finding[] = []
    for (const rule of SIGNATURE_RULES) {
      const m = rule.pattern.exec(line)
      if (!m) continue
      const hit = rule.hit(m, line, opts.ray)
      const dedupe = `${rule.code}\u0000${hit.key}`
      if (seen.has(dedupe)) continue
      seen.add(dedupe)
      const finding: Finding = {
        code: rule.code,
        severity: hit.severity,
        node: rayPrefixIp(line),
        message: hit.message,
        evidence: { [EVIDENCE.logLine]: `${opts.source}:${lineNo}`, Line: shown(line, m.index), ...hit.evidence },
        fix: hit.fix,
      }
      found.push(finding)
      findings.push(finding)
      opts.onFinding?.(finding)
    }
    return found
  }

  return {
    push(chunk: string): Finding[] {
      const text = pending + chunk
      const out: Finding[] = []
      let start = 0
      for (;;) {
        const nl = text.indexOf('\n', start)
        if (nl >= 0 && nl - start <= MAX_LINE) {
          out.push(...judge(text.slice(start, nl)))
          start = nl + 1
        } else if (text.length - start > MAX_LINE) {
          out.push(...judge(text.slice(start, start + MAX_LINE)))
          start += MAX_LINE
        } else {
          break
        }
      }
      pending = text.slice(start)
      return out
    },
    end(): Finding[] {
      if (pending === '') return []
      const last = pending
      pending = ''
      return judge(last)
    },
    get findings() {
      return findings
    },
    get lines() {
      return lineNo
    },
  }
}

/** Every signature in a whole log text. */
export function scanLog(text: string, source: string, ray?: RayView): Finding[] {
  const watcher = createLogWatcher({ source, ...(ray ? { ray } : {}) })
  return [...watcher.push(text), ...watcher.end()]
}
