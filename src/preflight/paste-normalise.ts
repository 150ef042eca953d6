/**
 * Pasted logs as people paste them, turned back into the lines the programs printed, before any
 * signature is matched: CRLF and ANSI colour codes dropped, `>` quote markers (GitHub, e-mail)
 * dropped, Ray's `(EngineCore pid=…) (RayWorkerWrapper pid=…, ip=…)` prefixes taken off (the
 * innermost `ip=` kept as the node), `[repeated 3x across cluster]` suffixes taken off (the count
 * kept), and continuation lines joined back:
 *
 * - terminal-wrapped: a paste cut at a fixed width (most lines of exactly one length) is joined
 *   without a separator, because the cut falls inside a word;
 * - a dict or list split across lines (`{…` open at the end of a line) is joined to its close;
 * - logger-wrapped: an indented line that carries on a request (`{…}`, `specs=[…]`) is joined;
 * - a multi-line message (Ray's version-mismatch block) is joined to its head.
 *
 * `createLineJoiner` is the streaming form (the live log watcher); `normalisePaste` the whole-text
 * form, which also detects the terminal width.
 */

export interface LogicalLine {
  /** The joined text without prefixes, quote markers, colour codes or repeat suffixes. */
  readonly text: string
  /** 1-based number of the first physical line it came from. */
  readonly line: number
  /** How many physical lines were joined. */
  readonly physicalLines: number
  /** `[repeated Nx across cluster]`: N (the line was printed N more times on other workers). */
  readonly repeated?: number
  /** The innermost `ip=` of Ray's process prefixes: the node the line was printed on. */
  readonly prefixIp?: string
  /** Brackets still open, or a closing colon, at the end of the text: the line may go on past what was pasted. */
  readonly open: boolean
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts the colour codes this strips from pastes
const ANSI = /(?:\x1b|ESC)\[[0-9;?]*[A-Za-z]/g
const QUOTE = /^[ \t]*(?:>[ \t]?)+/
/**
 * `0: ` (srun), then any number of `(Name pid=N)` / `(Name pid=N, ip=X)` prefixes, then torch's
 * `[rank1]:` (torch >= 2.2 prefixes every line a rank prints); or `[rank1]:` alone.
 */
const PREFIXES = /^\s*(?:\d+: )?(?:(?:\([\w.-]+ pid=\d+(?:, ip=[\d.a-fA-F:]+)?\)\s*)+(?:\[rank\d+\]:\s?)?|\[rank\d+\]:\s?)/
const PREFIX_IP = /\([\w.-]+ pid=\d+, ip=([\d.a-fA-F:]+)\)/g
const REPEATED = /\s*\[repeated (\d+)x across cluster\](?:\s*\(Ray deduplicates logs by default\..*)?\s*$/
/** A line that starts a record of its own (a timestamp, a level, a glog tag, a traceback, an exception, a tool's tag, C++'s `terminate called`, the shell's report of a signal that ended a process). */
const RECORD_START =
  /^\s*(?:\d+: )?(?:\([\w.-]+ pid=\d+[^)]*\)\s*)*(?:\d{4}-\d\d-\d\d[ T]\d|\d\d-\d\d \d\d:\d\d|\[\d{4}-\d\d-\d\d|[IWEFCD]\d{4} |\[[IWEFCD]\d{4}|(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL|FATAL)\b|Traceback|[A-Z]\w*(?:Error|Exception|Warning)\b|\[rank\d+\]|\(autoscaler|NCCL |\w[\w.-]*:\d+:\d+ \[\d+\] NCCL|[\w./-]+\.(?:cc|cu|c):\d+ (?:NCCL )?(?:WARN|INFO)\b|#|(?:Aborted|Segmentation fault|Killed|Terminated|Bus error|Illegal instruction)(?: \(core dumped\))?\s*$|terminate called\b)/
/**
 * Messages a program prints over several lines, as `[head, continuation]`: a line after a record
 * matching `head` joins it while it matches `continuation`. Ray's version check prints
 * `Version mismatch: The cluster was started with:`, indented `Ray: x` / `Python: y` lines (also
 * `Ray location:`, `Cloudpickle:`, `Pyarrow:` in 0.x), then `This process on node <ip> was started with:`
 * and its own indented lines (python/ray/_private/utils.py `check_version_info`; services.py in 0.x).
 */
const BLOCKS: readonly (readonly [RegExp, RegExp])[] = [
  [/Version mismatch: The cluster was started with/i, /^\s+[A-Z][\w ]{1,30}: \S|^\s*This process on (?:Ray )?node \S+ was started with/i],
]
/**
 * A logger record re-wrapped by hand onto indented lines: the record has a level, its text stops
 * mid-sentence (a word or a comma), and the next line is indented and goes on in lower case
 * (`WARNING … is using /tmp instead` / `  of /dev/shm because …`).
 */
const SENTENCE_RECORD = /^\s*\S.{0,40}?\b(?:INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)\b/
const SENTENCE_GOES_ON = /^\s{1,8}[a-z(]/
/**
 * A Python exception's message wrapped onto the next line by a paste or a page (`ValueError: Free memory … is less` /
 * `than desired GPU memory utilization …`): the message stops at a word and the next line goes on in lower case at the margin.
 */
const EXCEPTION_RECORD = /^\s*(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception): \S/
const EXCEPTION_GOES_ON = /^[a-z]{2,} [a-z(]/
/** An indented line that carries on a request or a spec list printed on the line before. */
const CARRIES_ON = /^\s+(?:\{|\[|specs=|placement_group_specs=|current_node_resource=|current_ip=)/
/** Never join more than this: a paste with a stray `{` must not swallow the rest of the log. */
const MAX_JOINED_LINES = 40
const MAX_JOINED_CHARS = 32 * 1024

/** One physical line without its line ending, colour codes and quote markers. */
export const cleanPhysical = (raw: string): string => raw.replace(/\r$/, '').replace(ANSI, '').replace(QUOTE, '')

/** `{`/`[` opened and not closed in a text (quotes ignored: prose apostrophes would mislead). */
function openBrackets(text: string): number {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 123 || c === 91)
      depth++ // { [
    else if ((c === 125 || c === 93) && depth > 0) depth-- // } ]
  }
  return depth
}

function stripPrefixes(text: string): { text: string; ip?: string } {
  const m = PREFIXES.exec(text)
  if (!m) return { text }
  const ips = [...m[0].matchAll(PREFIX_IP)].map((x) => x[1]!)
  const ip = ips[ips.length - 1]
  return { text: text.slice(m[0].length), ...(ip !== undefined ? { ip } : {}) }
}

/** Widths terminals and issue trackers commonly cut at: one longest line of such a width counts as a cut. */
const COMMON_WIDTHS = new Set([60, 64, 72, 76, 78, 79, 80, 90, 96, 100, 110, 120, 128, 130, 132, 140, 150, 160, 180, 200, 220, 240, 250])

/**
 * The width a paste was cut at, if it was: the longest cleaned line length when at least two lines
 * have exactly that length (a log rarely has two longest lines by chance), or when one line has it
 * and it is a common terminal width; wide enough either way.
 */
export function detectWrapWidth(lines: readonly string[]): number | undefined {
  let max = 0
  let count = 0
  for (const l of lines) {
    if (l.length > max) {
      max = l.length
      count = 1
    } else if (l.length === max) count++
  }
  if (max < 40) return undefined
  if (count >= 2) return max
  // One longest line: a cut only at a common width, inside a word or at one blank (the next line carries the rest).
  const i = lines.findIndex((l) => l.length === max)
  const line = lines[i]!
  const next = lines[i + 1] ?? ''
  const cut = (/\w$/.test(line) && /^\w/.test(next)) || / $/.test(line) || /^ \S/.test(next)
  // A terminal ends the record where its continuation ends; a continuation that itself stops mid-sentence and goes on in the
  // next line was wrapped by hand (a PR body or an e-mail at 72 columns), its cuts between words: no terminal wrap.
  const after = lines[i + 2]
  const byHand = after !== undefined && /[\w,]$/.test(next) && /^[a-z0-9(]/.test(after) && !RECORD_START.test(after)
  return COMMON_WIDTHS.has(max) && cut && !byHand && !RECORD_START.test(next) ? max : undefined
}

export interface LineJoinerOptions {
  /** Physical lines of exactly this length continue on the next line (terminal wrap). */
  readonly wrapWidth?: number
}

export interface LineJoiner {
  /** One physical line (without its newline); returns the logical lines it completed. */
  push(raw: string): LogicalLine[]
  /** The text has ended. */
  end(): LogicalLine[]
  /** The logical line still open to continuation, as it stands (null when none). */
  peek(): LogicalLine | null
}

interface Pending {
  /** The first physical line's start: a next line that starts the same way is a new record. */
  start: string
  text: string
  line: number
  physical: number
  ip?: string
  lastLength: number
}

export function createLineJoiner(opts: LineJoinerOptions = {}): LineJoiner {
  let lineNo = 0
  let cur: Pending | null = null

  const emit = (p: Pending): LogicalLine => {
    const rep = p.text.includes('[repeated ') ? REPEATED.exec(p.text) : null
    const text = rep ? p.text.slice(0, rep.index) : p.text
    return {
      text,
      line: p.line,
      physicalLines: p.physical,
      ...(rep ? { repeated: Number(rep[1]) } : {}),
      ...(p.ip !== undefined ? { prefixIp: p.ip } : {}),
      // A line ending in a colon announces more (`…started with:`, `Traceback …:`): a live watcher waits for it.
      open: openBrackets(text) > 0 || /:\s*$/.test(text),
    }
  }

  const continues = (p: Pending, clean: string): 'wrap' | 'join' | false => {
    if (p.physical >= MAX_JOINED_LINES || p.text.length >= MAX_JOINED_CHARS) return false
    // The same message again (a repeated log line of the same length) is a new record, not a wrap.
    if (p.start.length >= 12 && stripPrefixes(clean).text.startsWith(p.start)) return false
    if (opts.wrapWidth !== undefined && p.lastLength === opts.wrapWidth && clean.length > 0 && !RECORD_START.test(clean)) return 'wrap'
    const body = stripPrefixes(clean).text
    if (openBrackets(p.text) > 0 && body.trim() !== '' && !RECORD_START.test(body)) return 'join'
    if (CARRIES_ON.test(body)) return 'join'
    if (BLOCKS.some(([head, next]) => head.test(p.text) && next.test(body))) return 'join'
    if (SENTENCE_RECORD.test(p.text) && /[\w,]$/.test(p.text) && SENTENCE_GOES_ON.test(body)) return 'join'
    if (p.physical === 1 && EXCEPTION_RECORD.test(p.text) && /\w$/.test(p.text) && EXCEPTION_GOES_ON.test(body)) return 'join'
    return false
  }

  return {
    push(raw: string): LogicalLine[] {
      lineNo++
      const clean = cleanPhysical(raw)
      if (cur) {
        const how = continues(cur, clean)
        if (how === 'wrap') {
          cur.text += clean
          cur.physical++
          cur.lastLength = clean.length
          return []
        }
        if (how === 'join') {
          const body = stripPrefixes(clean).text
          cur.text += ` ${body.trim()}`
          cur.physical++
          cur.lastLength = clean.length
          return []
        }
      }
      const done = cur ? [emit(cur)] : []
      const { text, ip } = stripPrefixes(clean)
      cur = { start: text.slice(0, 16), text, line: lineNo, physical: 1, lastLength: clean.length, ...(ip !== undefined ? { ip } : {}) }
      return done
    },
    end(): LogicalLine[] {
      const done = cur ? [emit(cur)] : []
      cur = null
      return done
    },
    peek(): LogicalLine | null {
      return cur ? emit(cur) : null
    },
  }
}
