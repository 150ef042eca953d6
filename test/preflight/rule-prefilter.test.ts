/**
 * signatures.ts tries a line only against the rules whose literal words occur in it: each rule's words
 * are read from its own pattern (regex-literals.ts) and found in one pass (literal-scan.ts). That is
 * sound only if every match of a rule contains one of its words. Checked three ways: on every logical
 * line of every capture the project holds (the development logs, every held-out batch, the real vLLM
 * captures), in the case written and in upper and lower case, each match a rule makes holds one of its
 * words and the line is offered to that rule; the reader itself on the constructs that could fool it;
 * and the scanner against a plain `includes` on random text. A new rule is covered by the first check
 * as soon as its fixture line is in the repository.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { captureFiles, logicalLines } from './fixtures/capture-lines.js'
import { literalScanner } from '../../src/preflight/literal-scan.js'
import { requiredLiterals } from '../../src/preflight/regex-literals.js'
import { SIGNATURE_RULES } from '../../src/preflight/signature-rules.js'
import { RULE_WORDS, candidateRules } from '../../src/preflight/signatures.js'

describe('the literal prefilter of the log rules', () => {
  it('offers every line to every rule that matches it, and each match holds one of the rule’s words, on every capture', () => {
    const paths = [...captureFiles('test/preflight/fixtures'), ...captureFiles('test/real/captures')]
    expect(paths.length).toBeGreaterThan(300)
    let matched = 0
    for (const path of paths)
      for (const written of logicalLines(readFileSync(path, 'utf8')))
        for (const line of [written, written.toUpperCase(), written.toLowerCase()]) {
          const offered = new Set(candidateRules(line))
          SIGNATURE_RULES.forEach((rule, i) => {
            const m = rule.pattern.exec(line)
            if (!m) return
            matched++
            expect(offered.has(rule), `${path}: ${rule.code} /${rule.pattern.source.slice(0, 80)}/ matches but is not offered: ${line.slice(0, 200)}`).toBe(
              true,
            )
            const words = RULE_WORDS[i]
            if (words)
              expect(
                words.some((w) => m[0].toLowerCase().includes(w)),
                `${rule.code}: "${m[0]}" holds none of ${JSON.stringify(words)}`,
              ).toBe(true)
          })
        }
    expect(matched).toBeGreaterThan(1500)
  })

  it('gives nearly every rule words of its own (a rule without them is tried on every line)', () => {
    const without = SIGNATURE_RULES.filter((_r, i) => RULE_WORDS[i] === null).map((r) => `${r.code} /${r.pattern.source}/`)
    // RAY_BRIDGE_ADDRESS's `^`: its hit function reads a Ray log prefix's address on any line.
    expect(without).toEqual(['RAY_BRIDGE_ADDRESS /^/'])
  })

  it('passes over a plain line without trying the rules that need words', () => {
    const plain = candidateRules('INFO 01-12 06:15:19 [api_server.py:1] Starting vLLM API server on http://0.0.0.0:8000')
    // The rule without words, and one whose shortest word is " [" (an NCCL line's `host:pid:tid [rank]`).
    expect(plain.length).toBeLessThanOrEqual(2)
    const oom = candidateRules('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB').map((r) => r.code)
    expect(oom).toContain('GPU_OUT_OF_MEMORY')
  })
})

describe('the words a pattern needs (regex-literals.ts)', () => {
  const words = (re: RegExp) => requiredLiterals(re)?.slice().sort() ?? null
  it('joins the plain characters of a sequence and folds case', () => {
    expect(words(/Connection Refused/)).toEqual(['connection refused'])
    expect(words(/master[-_]?addr/i)).toEqual(['master-addr', 'master_addr', 'masteraddr'])
    expect(words(/an? (?:placement|group)/)).toEqual(['a group', 'a placement', 'an group', 'an placement'])
  })
  it('takes one word per branch, the longest fixed run of each', () => {
    expect(words(/Killed (\d+) workers|OOM-kill:constraint=/)).toEqual([' workers', 'oom-kill:constraint='])
    expect(words(/\bfoo\d+barbaz\b/)).toEqual(['barbaz'])
  })
  it('needs nothing where a branch, an optional part or the whole can be empty or unknown', () => {
    expect(words(/foo|\d+/)).toBeNull()
    expect(words(/(?:foo)?/)).toBeNull()
    expect(words(/^/)).toBeNull()
    expect(words(/.*/)).toBeNull()
    expect(words(/(?:abc)*/)).toBeNull()
    expect(words(/foo|/)).toBeNull()
    expect(words(/[a-z]+/)).toBeNull()
    expect(words(/(a)\1/)).toEqual(['a'])
    expect(words(/ünïcode/)).toEqual(['code'])
    expect(words(/x/u)).toBeNull()
  })
  it('reads a global, sticky or multi-line pattern as its source (those flags say where, not what, a match is)', () => {
    expect(words(/x/g)).toEqual(['x'])
    expect(words(/^ab$/gimsy)).toEqual(['ab'])
  })
  it('reads what a look-around asserts as no text, and a class as its few characters', () => {
    expect(words(/(?<=abc)def(?!ghi)/)).toEqual(['def'])
    expect(words(/v[12]\.x/)).toEqual(['v1.x', 'v2.x'])
    expect(words(/[^a]bcd/)).toEqual(['bcd'])
    expect(words(/a{2}b/)).toEqual(['aab'])
    expect(words(/(?:ab)+c/)).toEqual(['ab'])
    expect(words(/\x41\.\/\t/)).toEqual(['a./\t'])
  })
  it('every word it gives is in every string the pattern matches (random strings from the words themselves)', () => {
    let seed = 7
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    for (let i = 0; i < SIGNATURE_RULES.length; i++) {
      const { pattern } = SIGNATURE_RULES[i]!
      const ws = RULE_WORDS[i]
      if (!ws) continue
      const pieces = [...ws, ' ', ':', '0', 'x', '(', ')', '[', ']', "'", '"', '10.0.0.1', 'Error']
      for (let k = 0; k < 300; k++) {
        const text = Array.from({ length: 1 + rnd(6) }, () => pieces[rnd(pieces.length)]!).join('')
        const variant = [text, text.toUpperCase(), text.replace(/[a-z]/g, (c) => (rnd(2) ? c.toUpperCase() : c))][rnd(3)]!
        const m = pattern.exec(variant)
        if (m)
          expect(
            ws.some((w) => m[0].toLowerCase().includes(w)),
            `${pattern} on ${JSON.stringify(variant)}`,
          ).toBe(true)
      }
    }
  })
})

describe('the one-pass word scanner (literal-scan.ts)', () => {
  it('finds the same groups as a plain includes, overlapping words and case folded', () => {
    const groups = [['he', 'she'], ['his', 'hers'], ['ray start'], ['start --'], ['a'], ['--node-ip-address=']]
    const s = literalScanner(groups)
    let seed = 11
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    const alphabet = ['h', 'e', 's', 'i', 'r', 'a', 'y', ' ', 't', '-', 'S', 'H', 'é', 'RAY START --node-ip-address=']
    for (let k = 0; k < 2000; k++) {
      const text = Array.from({ length: rnd(20) }, () => alphabet[rnd(alphabet.length)]!).join('')
      const found = new Set<number>()
      s.scan(text, (g) => found.add(g))
      const want = groups.flatMap((ws, g) => (ws.some((w) => text.toLowerCase().includes(w)) ? [g] : []))
      expect([...found].sort(), text).toEqual(want)
    }
  })
})
