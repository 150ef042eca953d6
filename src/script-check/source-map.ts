/**
 * Positions in the script a user edits. The top-level script maps to itself; a string that a
 * nested shell runs (`bash -c "…"`, `ssh host "…"`) is parsed on its own, and each of its
 * characters maps back to the script index it was written at, so nested findings name the outer
 * file's line and nested patches edit the outer file.
 */

import type { Span } from './model.js'

/** A file the script sources (`source FILE`, `. FILE`), placed after the script in one index space. */
export interface SourcedFile {
  /** As findings name it (relative to where the command ran, like the script's own path). */
  readonly path: string
  readonly text: string
  /** Its first character's index in the index space. */
  readonly offset: number
  /** Its first line's number in the index space (the script's lines come first). */
  readonly firstLine: number
}

/**
 * Lines of the script and of every file it sources, in one index space: the script at 0, each
 * sourced file after what came before, so a value, a span or an edit is one number wherever it was
 * written. `locate` turns a line of that space back into a file and its own line.
 */
export class ScriptLines {
  private readonly starts: number[] = [0]
  private readonly sourced: SourcedFile[] = []
  private all: string

  constructor(
    text: string,
    /** The script's path as findings name it. */
    readonly path = '',
  ) {
    this.all = text
    for (let i = 0; i < text.length; i++) if (text[i] === '\n') this.starts.push(i + 1)
  }

  /** The script and every file added, at their offsets. */
  get text(): string {
    return this.all
  }

  get files(): readonly SourcedFile[] {
    return this.sourced
  }

  /** The script's own line count: lines above it are in sourced files. */
  get scriptLines(): number {
    return this.sourced[0] ? this.sourced[0].firstLine - 1 : this.starts.length
  }

  /** A sourced file's place (added once: sourcing it again reuses it). */
  add(path: string, text: string): SourcedFile {
    const known = this.sourced.find((f) => f.path === path)
    if (known) return known
    const offset = this.all.length
    // The text before ends with a newline: its empty last line is where this file starts.
    if (this.starts[this.starts.length - 1] !== offset) this.starts.push(offset)
    const file: SourcedFile = { path, text, offset, firstLine: this.starts.length }
    for (let i = 0; i < text.length; i++) if (text[i] === '\n' && i + 1 < text.length) this.starts.push(offset + i + 1)
    this.all += text
    this.sourced.push(file)
    return file
  }

  /** 1-based line of an index (a line of the one space). */
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

  /** The file a line of the one space is in, and its line there. */
  locate(line: number): { path: string; line: number; file?: SourcedFile } {
    for (let i = this.sourced.length - 1; i >= 0; i--) {
      const f = this.sourced[i]!
      if (line >= f.firstLine) return { path: f.path, line: line - f.firstLine + 1, file: f }
    }
    return { path: this.path, line }
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
    /** Where the text starts in the index space when it is a sourced file (map undefined). */
    private readonly offset = 0,
  ) {}

  get nested(): boolean {
    return this.map !== undefined
  }

  toScript(i: number): number {
    if (!this.map) return i + this.offset
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
