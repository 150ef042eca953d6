/**
 * Positions in the script a user edits. The top-level script maps to itself; a string that a
 * nested shell runs (`bash -c "…"`, `ssh host "…"`) is parsed on its own, and each of its
 * characters maps back to the script index it was written at, so nested findings name the outer
 * file's line and nested patches edit the outer file.
 */

import type { Span } from './model.js'

export class ScriptLines {
  private readonly starts: number[] = [0]
  constructor(text: string) {
    for (let i = 0; i < text.length; i++) if (text[i] === '\n') this.starts.push(i + 1)
  }
  /** 1-based line of a script index. */
  lineOf(index: number): number {
    let lo = 0
    let hi = this.starts.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (this.starts[mid]! <= index) lo = mid
      else hi = mid - 1
    }
    return lo + 1
  }
}

/** How the text being evaluated sits in the script: identity at the top, a character map inside a string. */
export class Positions {
  constructor(
    readonly lines: ScriptLines,
    /** Text index → script index (-1: not in the script); undefined: the identity. */
    private readonly map: readonly number[] | undefined,
    /** Text index → script index just after what wrote that character (model.ts Val.after); undefined: map + 1. */
    private readonly afterMap: readonly number[] | undefined,
    /** Line to name when a position is not in the script (the call that ran the nested shell). */
    readonly fallbackLine: number,
  ) {}

  get nested(): boolean {
    return this.map !== undefined
  }

  toScript(i: number): number {
    if (!this.map) return i
    return this.map[i] ?? -1
  }

  /** Where text appended after character i of the evaluated text goes in the script (-1: nowhere). */
  afterScript(i: number): number {
    if (this.afterMap) return this.afterMap[i] ?? -1
    const x = this.toScript(i)
    return x < 0 ? -1 : x + 1
  }

  /** The script span of a text range [start, end); start -1 when the range is not one run of the script. */
  span(start: number, end: number): Span {
    const s = this.toScript(start)
    const last = end > start ? this.toScript(end - 1) : s
    const contiguous = s >= 0 && last >= 0 && last - s === end - start - (end > start ? 1 : 0)
    const anyMapped = s >= 0 ? s : this.firstMapped(start, end)
    const line = anyMapped >= 0 ? this.lines.lineOf(anyMapped) : this.fallbackLine
    return contiguous ? { start: s, end: end > start ? last + 1 : s, line } : { start: -1, end: -1, line }
  }

  /** The script index of each character of a text range. */
  mapRange(start: number, end: number): number[] {
    const out: number[] = []
    for (let i = start; i < end; i++) out.push(this.toScript(i))
    return out
  }

  /** For each character of a text range, where appended text goes. */
  afterRange(start: number, end: number): number[] {
    const out: number[] = []
    for (let i = start; i < end; i++) out.push(this.afterScript(i))
    return out
  }

  private firstMapped(start: number, end: number): number {
    for (let i = start; i < end; i++) {
      const x = this.toScript(i)
      if (x >= 0) return x
    }
    return -1
  }
}

/**
 * A literal's value as the shell reads it, with the text index of each character: backslash
 * escapes dropped (unquoted: any character; inside double quotes: `$`, `` ` ``, `"`, `\` and newline).
 */
export function unescapeLiteral(raw: string, at: number, quoted: boolean): { text: string; map: number[] } {
  let text = ''
  const map: number[] = []
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!
    if (c === '\\' && i + 1 < raw.length) {
      const n = raw[i + 1]!
      if (n === '\n') {
        i++
        continue
      }
      if (!quoted || '$`"\\'.includes(n)) {
        text += n
        map.push(at + i + 1)
        i++
        continue
      }
    }
    text += c
    map.push(at + i)
  }
  return { text, map }
}
