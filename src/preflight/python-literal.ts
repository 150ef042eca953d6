/**
 * A reader for the Python literals people paste from Ray and vLLM: dicts, lists, tuples, quoted
 * strings, numbers, True/False/None (JSON's true/false/null too). It tolerates the ways pasted
 * text gets cut: a literal `...` element (as in `{'GPU': 1.0, ...}`) and text that ends before the
 * closing brackets. Either marks the result `truncated`. It never throws: unreadable input gives
 * `{ error, at }`.
 */

export type PyValue = string | number | boolean | null | PyValue[] | { [key: string]: PyValue }

export interface PyParsed {
  readonly value: PyValue
  /** True when part of the literal was missing (`...`, or the text ended early). */
  readonly truncated: boolean
  /** Index just past the literal. */
  readonly end: number
}

export interface PyParseError {
  readonly error: string
  readonly at: number
}

export const isPyParseError = (r: PyParsed | PyParseError): r is PyParseError => 'error' in r

class Reader {
  pos: number
  truncated = false
  constructor(
    readonly text: string,
    start: number,
  ) {
    this.pos = start
  }

  skipSpace(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos] ?? '')) this.pos++
  }

  atEnd(): boolean {
    this.skipSpace()
    return this.pos >= this.text.length
  }

  peek(): string {
    this.skipSpace()
    return this.text[this.pos] ?? ''
  }

  /** Consume `...` (or the single character `…`) if it comes next. */
  ellipsis(): boolean {
    this.skipSpace()
    if (this.text.startsWith('...', this.pos)) {
      this.pos += 3
    } else if (this.text[this.pos] === '…') {
      this.pos += 1
    } else {
      return false
    }
    this.truncated = true
    return true
  }
}

class Fail {
  constructor(
    readonly error: string,
    readonly at: number,
  ) {}
}

const CLOSERS: Record<string, string> = { '{': '}', '[': ']', '(': ')' }

function readValue(r: Reader): PyValue {
  const c = r.peek()
  if (c === '') throw new Fail('unexpected end of text', r.pos)
  if (c === '{') return readDict(r)
  if (c === '[' || c === '(') return readSequence(r, c)
  if (c === "'" || c === '"' || (/[rbuRBU]/.test(c) && /['"]/.test(r.text[r.pos + 1] ?? ''))) return readString(r)
  const rest = r.text.slice(r.pos)
  const num = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/.exec(rest)
  if (num) {
    r.pos += num[0].length
    return Number(num[0])
  }
  const word = /^[A-Za-z_]+/.exec(rest)?.[0]
  const words: Record<string, PyValue> = { True: true, False: false, None: null, true: true, false: false, null: null }
  if (word !== undefined && word in words) {
    r.pos += word.length
    return words[word] ?? null
  }
  throw new Fail(`unexpected ${JSON.stringify(c)}`, r.pos)
}

/** Read elements up to `closer`, handling commas, `...` and an early end of text. */
function readItems(r: Reader, closer: string, readItem: () => void): void {
  for (;;) {
    if (r.atEnd()) {
      r.truncated = true
      return
    }
    if (r.ellipsis()) continue
    if (r.peek() === closer) {
      r.pos++
      return
    }
    readItem()
    if (r.atEnd()) {
      r.truncated = true
      return
    }
    const next = r.peek()
    if (next === ',') {
      r.pos++
    } else if (next === closer) {
      r.pos++
      return
    } else if (!r.ellipsis()) {
      throw new Fail(`expected ',' or '${closer}'`, r.pos)
    }
  }
}

function readDict(r: Reader): PyValue {
  r.pos++ // {
  const out: { [key: string]: PyValue } = {}
  readItems(r, '}', () => {
    const key = readValue(r)
    if (r.atEnd()) {
      r.truncated = true
      return
    }
    if (r.peek() !== ':') throw new Fail("expected ':'", r.pos)
    r.pos++
    if (r.atEnd() || r.ellipsis()) {
      r.truncated = true
      return
    }
    out[String(key)] = readValue(r)
  })
  return out
}

function readSequence(r: Reader, opener: string): PyValue {
  r.pos++
  const out: PyValue[] = []
  readItems(r, CLOSERS[opener] ?? ']', () => {
    out.push(readValue(r))
  })
  return out
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0', '\\': '\\', "'": "'", '"': '"' }

function readString(r: Reader): string {
  while (/[rbuRBU]/.test(r.text[r.pos] ?? '')) r.pos++
  const quote = r.text[r.pos]
  r.pos++
  let out = ''
  while (r.pos < r.text.length) {
    const ch = r.text[r.pos] ?? ''
    if (ch === quote) {
      r.pos++
      return out
    }
    if (ch === '\\') {
      const next = r.text[r.pos + 1] ?? ''
      const hex = next === 'x' ? 2 : next === 'u' ? 4 : 0
      if (hex > 0 && /^[0-9a-fA-F]+$/.test(r.text.slice(r.pos + 2, r.pos + 2 + hex))) {
        out += String.fromCharCode(parseInt(r.text.slice(r.pos + 2, r.pos + 2 + hex), 16))
        r.pos += 2 + hex
      } else {
        out += ESCAPES[next] ?? next
        r.pos += 2
      }
      continue
    }
    out += ch
    r.pos++
  }
  r.truncated = true
  return out
}

/** Parse one literal starting at `start` (leading white space allowed). */
export function parsePythonLiteral(text: string, start = 0): PyParsed | PyParseError {
  const r = new Reader(text, start)
  try {
    const value = readValue(r)
    return { value, truncated: r.truncated, end: r.pos }
  } catch (e) {
    if (e instanceof Fail) return { error: e.error, at: e.at }
    throw e
  }
}

export const isPyDict = (v: PyValue | undefined): v is { [key: string]: PyValue } => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The numeric entries of a dict (a Ray resource map); other values are dropped. */
export function numericEntries(v: PyValue | undefined): Record<string, number> {
  const out: Record<string, number> = {}
  if (!isPyDict(v)) return out
  for (const [k, val] of Object.entries(v)) if (typeof val === 'number') out[k] = val
  return out
}
