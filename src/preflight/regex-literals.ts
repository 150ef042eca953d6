/**
 * The literal words a regular expression needs: a set of strings at least one of which every match
 * contains (folded to lower-case ASCII), or null when no such set can be read from the pattern. It is
 * what lets the log scan try a line only against the rules that can match it (rule-prefilter.ts).
 *
 * Sound by construction, over-cautious where unsure: it reads the pattern's own syntax (ECMAScript,
 * without the u/v flags, Annex B), takes a literal only from plain characters and small character
 * sets, and treats everything else (`.`, `\w`, ranges, back-references, non-ASCII, an unknown escape)
 * as "any text", which needs nothing. A branch of an alternation or an optional part that needs
 * nothing makes the whole need nothing. Lower-case folding is sound for both flags allowed: a
 * case-sensitive match contains the literal itself; an `i` match without `u` compares ASCII letters
 * up to case and never maps a non-ASCII character onto ASCII.
 */

/** The strings a part of a pattern can match, when few and known; `need` when only a requirement is known. */
interface Reading {
  /** Every string this part can match (lower-case), or null when unknown or too many. */
  readonly exact: readonly string[] | null
  /** A set of strings one of which every match of this part contains, or null: nothing known. */
  readonly need: readonly string[] | null
}

/** More exact strings than this and a part reads as "a requirement" instead. */
const MAX_EXACT = 64
/** A character class of at most this many listed characters is read as that many one-character strings. */
const MAX_CLASS = 4

const ANY: Reading = { exact: null, need: null }
const EMPTY: Reading = { exact: [''], need: null }
const exactly = (strings: readonly string[]): Reading => ({ exact: [...new Set(strings)], need: null })

/** The requirement a reading gives on its own: its exact strings unless one is empty (it can match nothing). */
function needOf(r: Reading): readonly string[] | null {
  if (r.exact !== null) return r.exact.includes('') ? null : r.exact
  return r.need
}

/** The better of two requirements: the one whose shortest word is longer, then the one with fewer words. */
function better(a: readonly string[] | null, b: readonly string[] | null): readonly string[] | null {
  if (a === null) return b
  if (b === null) return a
  const shortest = (s: readonly string[]) => s.reduce((least, w) => Math.min(least, w.length), Number.POSITIVE_INFINITY)
  if (shortest(a) !== shortest(b)) return shortest(a) > shortest(b) ? a : b
  return b.length < a.length ? b : a
}

function cross(a: readonly string[], b: readonly string[]): string[] | null {
  if (a.length * b.length > MAX_EXACT) return null
  return a.flatMap((x) => b.map((y) => x + y))
}

const fold = (code: number): string | null => (code < 0x80 ? String.fromCharCode(code).toLowerCase() : null)

class PatternReader {
  private at = 0
  /** The source did not read as a pattern this reader knows (it then needs nothing). */
  private broken = false
  constructor(private readonly src: string) {}

  read(): Reading {
    const r = this.alternation()
    if (this.broken || this.at !== this.src.length) return ANY
    return r
  }

  private alternation(): Reading {
    const branches = [this.sequence()]
    while (this.src[this.at] === '|') {
      this.at++
      branches.push(this.sequence())
    }
    if (branches.length === 1) return branches[0]!
    if (branches.every((b) => b.exact !== null)) {
      const all = branches.flatMap((b) => b.exact!)
      if (new Set(all).size <= MAX_EXACT) return exactly(all)
    }
    const needs = branches.map(needOf)
    return needs.some((n) => n === null) ? ANY : { exact: null, need: [...new Set(needs.flatMap((n) => n!))] }
  }

  private sequence(): Reading {
    let run: readonly string[] | null = ['']
    let best: readonly string[] | null = null
    let allExact = true
    while (this.at < this.src.length && this.src[this.at] !== '|' && this.src[this.at] !== ')') {
      const term = this.quantified(this.atom())
      const joined: readonly string[] | null = run !== null && term.exact !== null ? cross(run, term.exact) : null
      if (joined !== null) {
        run = joined
        continue
      }
      allExact = false
      best = better(best, run === null ? null : needOf({ exact: run, need: null }))
      best = better(best, needOf(term))
      run = term.exact
    }
    if (allExact) return exactly(run!)
    return { exact: null, need: better(best, run === null ? null : needOf({ exact: run, need: null })) }
  }

  /** A quantifier after an atom, if any: `?` adds the empty string; a fixed count repeats; else only the atom's need stays. */
  private quantified(atom: Reading): Reading {
    const m = /^(?:([*+?])|\{(\d+)(,(\d*))?\})(\??)/.exec(this.src.slice(this.at))
    if (!m) return atom
    this.at += m[0].length
    const min = m[1] === '*' || m[1] === '?' ? 0 : m[1] === '+' ? 1 : Number(m[2])
    const max =
      m[1] === '?' ? 1 : m[1] !== undefined ? Number.POSITIVE_INFINITY : m[3] === undefined ? min : m[4] === '' ? Number.POSITIVE_INFINITY : Number(m[4])
    if (min === 0) return max === 1 && atom.exact !== null ? exactly([...atom.exact, '']) : ANY
    if (min === max && atom.exact !== null && min <= 3) {
      let out: readonly string[] | null = ['']
      for (let i = 0; i < min && out !== null; i++) out = cross(out, atom.exact)
      if (out !== null) return exactly(out)
    }
    return { exact: null, need: needOf(atom) }
  }

  private atom(): Reading {
    const c = this.src[this.at]!
    this.at++
    if (c === '^' || c === '$') return EMPTY
    if (c === '.') return ANY
    if (c === '\\') return this.escape()
    if (c === '[') return this.charClass()
    if (c === '(') return this.group()
    const code = c.charCodeAt(0)
    const f = fold(code)
    return f === null ? ANY : exactly([f])
  }

  private group(): Reading {
    const head = /^\?(?:<[=!]|[=!:]|<[A-Za-z_$][\w$]*>)/.exec(this.src.slice(this.at))
    this.at += head ? head[0].length : 0
    const inner = this.alternation()
    if (this.src[this.at] !== ')') this.broken = true
    this.at++
    // A look-around matches no text: it needs nothing of the match itself.
    if (head && /^\?(?:<[=!]|[=!])/.test(head[0])) return EMPTY
    return inner
  }

  private escape(): Reading {
    const c = this.src[this.at]
    if (c === undefined) return ANY
    this.at++
    if (c === 'b' || c === 'B') return EMPTY
    const simple: Record<string, number> = { t: 9, n: 10, v: 11, f: 12, r: 13 }
    if (simple[c] !== undefined) return exactly([String.fromCharCode(simple[c]!)])
    const hex = c === 'x' ? /^[0-9a-fA-F]{2}/.exec(this.src.slice(this.at)) : c === 'u' ? /^[0-9a-fA-F]{4}/.exec(this.src.slice(this.at)) : null
    if (hex) {
      this.at += hex[0].length
      const f = fold(Number.parseInt(hex[0], 16))
      return f === null ? ANY : exactly([f])
    }
    if (c === 'k' && this.src[this.at] === '<') {
      this.at = this.src.indexOf('>', this.at) + 1
      return ANY
    }
    // Any other letter or digit (a class such as \d, a back-reference, \c, an identity escape under Annex B): unknown text.
    const f = fold(c.charCodeAt(0))
    return f === null || /[0-9A-Za-z_]/.test(c) ? ANY : exactly([f])
  }

  private charClass(): Reading {
    const end = this.classEnd()
    if (end < 0) {
      this.broken = true
      this.at = this.src.length
      return ANY
    }
    const body = this.src.slice(this.at, end)
    this.at = end + 1
    if (body.startsWith('^') || body === '') return ANY
    const chars: string[] = []
    for (let i = 0; i < body.length; i++) {
      let ch = body[i]!
      if (ch === '\\') {
        ch = body[++i] ?? ''
        if (/[0-9A-Za-z_]/.test(ch) || ch === '') return ANY
      } else if (ch === '-' && i > 0 && i < body.length - 1) return ANY
      const f = fold(ch.charCodeAt(0))
      if (f === null) return ANY
      chars.push(f)
    }
    const distinct = [...new Set(chars)]
    return distinct.length <= MAX_CLASS ? exactly(distinct) : ANY
  }

  /** Where the class that starts at `this.at` ends (its `]`, escapes skipped), or -1. */
  private classEnd(): number {
    let i = this.at
    while (i < this.src.length && this.src[i] !== ']') i += this.src[i] === '\\' ? 2 : 1
    return i < this.src.length ? i : -1
  }
}

/**
 * Words one of which every match of `pattern` contains (lower-case), or null when none can be read:
 * the pattern can match the empty string, has the u or v flag (other escapes, other case folding), or needs
 * nothing literal. The flags g, y, d, m and s change where a match is looked for or what `^`, `$` and `.` read
 * (no text here either way), never which characters a match holds.
 */
export function requiredLiterals(pattern: RegExp): readonly string[] | null {
  if (/[uv]/.test(pattern.flags)) return null
  const need = needOf(new PatternReader(pattern.source).read())
  return need === null || need.length === 0 || need.some((w) => w === '') ? null : need
}
