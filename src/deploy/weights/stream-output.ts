/** The records a weights stream's receiver prints (src/plan/weights-commands.ts), read. Pure. */

export interface FileRecord {
  readonly status: 'ok' | 'short' | 'bad' | 'fail'
  /** Bytes this run wrote to the file. */
  readonly got: number
  readonly sha256?: string
  /** What went wrong, in words (for a status other than ok). */
  readonly detail: string
}

export interface StreamOutput {
  /** The receiving node's records, by file path. */
  readonly files: ReadonlyMap<string, FileRecord>
  /** Per worker fabric IP the stream was passed on to: the exit code of its ssh + receiver. */
  readonly forwarded: ReadonlyMap<string, number>
  /** Per worker fabric IP: its receiver's records. */
  readonly at: ReadonlyMap<string, ReadonlyMap<string, FileRecord>>
  /** Per worker fabric IP: the last lines it printed when it failed. */
  readonly logs: ReadonlyMap<string, readonly string[]>
  /** The receiver printed its `end`. */
  readonly complete: boolean
}

/** Bytes written over a set of records. */
export const recordBytes = (recs: ReadonlyMap<string, FileRecord>): number => [...recs.values()].reduce((n, r) => n + r.got, 0)

function fileRecord(f: readonly string[]): [string, FileRecord] | undefined {
  const [kind, path, got, a, b] = f
  if (!path) return undefined
  const n = Number(got)
  if (kind === 'ok' && f.length === 4 && /^\d+$/.test(got!) && /^[0-9a-f]{64}$/.test(a!)) return [path, { status: 'ok', got: n, sha256: a!, detail: 'ok' }]
  if (kind === 'short' && f.length === 3 && /^\d+$/.test(got!))
    return [path, { status: 'short', got: n, detail: `the stream ended after ${n} bytes of it (the .partial is kept: the next deploy resumes)` }]
  if (kind === 'bad' && f.length === 5 && /^\d+$/.test(got!))
    return [
      path,
      {
        status: 'bad',
        got: n,
        sha256: a!,
        detail: `received ${n} bytes with SHA-256 ${a!.slice(0, 12)}, the sender's is ${b!.slice(0, 12) || '(none)'}: removed`,
      },
    ]
  if (kind === 'fail' && f.length >= 3) return [path, { status: 'fail', got: 0, detail: f.slice(2).join(' ') }]
  return undefined
}

export function parseStreamOutput(stdout: string): StreamOutput {
  const files = new Map<string, FileRecord>()
  const forwarded = new Map<string, number>()
  const at = new Map<string, Map<string, FileRecord>>()
  const logs = new Map<string, string[]>()
  let complete = false
  for (const line of stdout.split('\n')) {
    const f = line.replace(/\r$/, '').split('\t')
    if (f[0] === 'end' && f.length === 1) complete = true
    else if (f[0] === 'fwd' && f.length === 3 && /^\d+$/.test(f[2]!)) forwarded.set(f[1]!, Number(f[2]))
    else if (f[0] === 'log' && f.length >= 3) logs.set(f[1]!, [...(logs.get(f[1]!) ?? []), f.slice(2).join(' ')])
    else if (f[0] === 'at' && f.length >= 3) {
      const rec = fileRecord(f.slice(2))
      if (rec) at.set(f[1]!, (at.get(f[1]!) ?? new Map()).set(...rec))
    } else {
      const rec = fileRecord(f)
      if (rec) files.set(...rec)
    }
  }
  return { files, forwarded, at, logs, complete }
}
