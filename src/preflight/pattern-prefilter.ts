/**
 * Which of a list of patterns can match a line, from one pass over it: each pattern names the literal
 * words one of which every match contains (regex-literals.ts); one scan of the line for all of them at
 * once (literal-scan.ts) marks the patterns whose words occur, and only those need to be tried. A
 * pattern whose words cannot be read (it can match the empty string, its caller decides) is always
 * tried. So a line no pattern can match costs one table step per character, however many patterns
 * there are. Every list of patterns a log line meets goes through one: the signature rules
 * (signatures.ts), the failure-line markers (signature-fallback.ts), the master-address forms
 * (master-address.ts), the family hints (signature-family-hints.ts).
 */

import { type LiteralScanner, literalScanner } from './literal-scan.js'
import { requiredLiterals } from './regex-literals.js'

export interface PatternPrefilter {
  /** Each pattern's words (lower case), null where the pattern is always tried. */
  readonly words: readonly (readonly string[] | null)[]
  /** Reads `text`; until the next read, `may(i)` says whether pattern i can match it (or any part of it). */
  read(text: string): void
  may(index: number): boolean
  /** The indices of the patterns that can match the text last read, in order: those whose words occur in it and those always tried (valid until the next read). */
  candidates(): readonly number[]
}

const byNumber = (a: number, b: number): number => a - b

export function patternPrefilter(patterns: readonly RegExp[]): PatternPrefilter {
  const words = patterns.map((p) => requiredLiterals(p))
  // Built at the first read, so loading a module that holds a prefilter stays cheap (the Action's start-up).
  let scanner: LiteralScanner | undefined
  /** Per pattern, the number of the last read whose text held one of its words. */
  let marks = new Uint32Array(patterns.length)
  let serial = 0
  /** The patterns whose words the last read found, in the order found. */
  const found: number[] = []
  const mark = (index: number): void => {
    if (marks[index] === serial) return
    marks[index] = serial
    found.push(index)
  }
  const always = words.flatMap((w, i) => (w === null ? [i] : []))
  return {
    words,
    read(text) {
      scanner ??= literalScanner(words.map((w) => w ?? []))
      if (++serial === 0xffffffff) {
        marks = new Uint32Array(patterns.length)
        serial = 1
      }
      found.length = 0
      scanner.scan(text, mark)
    },
    may: (index) => words[index] === null || marks[index] === serial,
    candidates() {
      if (found.length === 0) return always
      if (always.length === 0) return found.length === 1 ? found : [...found].sort(byNumber)
      return [...found, ...always].sort(byNumber)
    },
  }
}
