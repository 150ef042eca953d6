/**
 * A log line that a collector or a program wrapped in a structured record, turned back into the
 * line(s) the program printed, before the paste normaliser reads it:
 *
 * - JSON, one record per line: docker's json-file driver (`{"log":"…\n","stream":"stderr","time":…}`,
 *   what /var/lib/docker/containers/<id>/<id>-json.log and many collectors ship), `journalctl -o json`
 *   (`MESSAGE`, `_PID`, `__REALTIME_TIMESTAMP`), Grafana/Loki exports (`line`, `timestamp`), Google Cloud
 *   Logging (`textPayload` or `jsonPayload.message`, `severity`), Go and Kubernetes structured loggers
 *   (zap/klog/slog JSON: `msg`, `level`, `ts`, `err`/`error`), Fluent Bit/Vector (`log`, `kubernetes`);
 * - logfmt: Go's log/slog and logrus text handlers, `time=… level=INFO msg="…" component=vllm` (docker
 *   model-runner forwards vLLM's output that way).
 *
 * The message's own newlines become lines of their own (a traceback in one Cloud Logging record). A
 * one-line record whose level is error/fatal/critical while its message carries no level word of its own
 * gets `ERROR ` before it, so the failure it reports is read as one. Only records that look like log records
 * are unwrapped (a message key and a time/level/stream key beside it): an API's JSON error body
 * (`{"object":"error","message":…,"code":404}`) stays as printed.
 */

/** Keys that hold the printed message, in the order they are tried. */
const MESSAGE_KEYS = ['log', 'message', 'msg', 'MESSAGE', 'textPayload', 'line', 'text'] as const
/** Keys a log record carries beside its message (one is enough to call the object a log record). */
const RECORD_KEYS = new Set([
  'time',
  'timestamp',
  '@timestamp',
  'ts',
  'level',
  'lvl',
  'severity',
  'stream',
  'logger',
  'caller',
  'source',
  'component',
  '_PID',
  '__REALTIME_TIMESTAMP',
  'SYSLOG_IDENTIFIER',
  'PRIORITY',
  'kubernetes',
  'container_name',
  'receiveTimestamp',
  'insertId',
])
const ERROR_LEVELS = /^(?:err(?:or)?|fatal|crit(?:ical)?|panic|alert|emerg(?:ency)?|[0-3])$/i
/** A message that already names its level (vLLM's `ERROR 04-16 …`, Python's `2025-… ERROR …`, glog's `E0220`, Ray's `[… E 1 2]`). */
const OWN_LEVEL = /^\s*(?:\S+\s+){0,3}?(?:\[?(?:ERROR|FATAL|CRITICAL|WARNING|WARN|INFO|DEBUG)\b|[EFWI](?:\d{8}|\d{4}) )/
/** The longest line read as a record (a longer one is left as printed). */
const MAX_RECORD = 64 * 1024

/** logfmt pairs: `key=value` or `key="quoted \" value"`. */
const LOGFMT_PAIR = /([A-Za-z_@][\w.@-]*)=("(?:[^"\\]|\\.)*"|[^\s"]*)/g

function unescapeLogfmt(value: string): string {
  if (!value.startsWith('"')) return value
  return value.slice(1, -1).replace(/\\(["\\nrt])/g, (_, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : c === 'r' ? '' : c))
}

function withLevel(message: string, level: unknown): string {
  const text = message.replace(/\r?\n+$/, '')
  if (typeof level !== 'string' && typeof level !== 'number') return text
  // (A message of several lines, a traceback, is read by its own lines.)
  if (!ERROR_LEVELS.test(String(level)) || OWN_LEVEL.test(text) || text.includes('\n')) return text
  return `ERROR ${text}`
}

function fromJson(line: string): string | undefined {
  let record: unknown
  try {
    record = JSON.parse(line)
  } catch {
    return undefined
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return undefined
  const r = record as Record<string, unknown>
  if (!Object.keys(r).some((k) => RECORD_KEYS.has(k))) return undefined
  const payload = r.jsonPayload
  const nested = typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>).message : undefined
  const key = MESSAGE_KEYS.find((k) => typeof r[k] === 'string')
  const message = key !== undefined ? (r[key] as string) : typeof nested === 'string' ? nested : undefined
  if (message === undefined) return undefined
  const err = typeof r.err === 'string' ? r.err : typeof r.error === 'string' ? r.error : undefined
  return withLevel(err !== undefined && !message.includes(err) ? `${message}: ${err}` : message, r.level ?? r.severity ?? r.lvl ?? r.PRIORITY)
}

function fromLogfmt(line: string): string | undefined {
  const pairs = new Map<string, string>()
  let covered = 0
  for (const m of line.matchAll(LOGFMT_PAIR)) {
    pairs.set(m[1]!, m[2]!)
    covered += m[0].length + 1
  }
  // A record is pairs and the spaces between them, nothing else (a prose line with one `a=b` in it is not).
  if (pairs.size < 2 || covered < line.trim().length) return undefined
  const key = ['msg', 'message'].find((k) => pairs.has(k))
  if (key === undefined || ![...pairs.keys()].some((k) => RECORD_KEYS.has(k))) return undefined
  const message = unescapeLogfmt(pairs.get(key)!)
  const err = pairs.get('err') ?? pairs.get('error')
  const errText = err !== undefined ? unescapeLogfmt(err) : undefined
  const level = pairs.get('level') ?? pairs.get('lvl')
  return withLevel(
    errText !== undefined && errText !== '' && !message.includes(errText) ? `${message}: ${errText}` : message,
    level !== undefined ? unescapeLogfmt(level) : undefined,
  )
}

/**
 * The lines a structured record wraps, or undefined when the line is not one (then it is read as
 * printed). `line` is one physical line, quote markers and colour codes already off.
 */
export function unwrapRecord(line: string): string[] | undefined {
  if (line.length > MAX_RECORD) return undefined
  const t = line.trim()
  let message: string | undefined
  if (t.startsWith('{') && t.endsWith('}')) message = fromJson(t)
  else if (t.includes('msg=') || t.includes('message=')) message = fromLogfmt(t)
  return message === undefined ? undefined : message.split(/\r?\n/)
}
