/**
 * pattern-prefilter.ts: every list of patterns a log line meets (the signature rules, the failure-line
 * markers, the master-address forms, the family hints) is tried only where one of a pattern's literal
 * words occurs. Sound only if a pattern that matches is always offered: checked here on lists from
 * several modules (global and case-insensitive patterns among them) over every logical line of every
 * capture the project holds, in the case written and in upper and lower case.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { captureFiles, logicalLines } from './fixtures/capture-lines.js'
import { MASTER_HINT } from '../../src/preflight/master-address.js'
import { patternPrefilter } from '../../src/preflight/pattern-prefilter.js'
import { FAMILY_HINTS } from '../../src/preflight/signature-family-hints.js'
import { SIGNATURE_RULES } from '../../src/preflight/signature-rules.js'

describe('the literal prefilter of a list of patterns', () => {
  const lists: Record<string, RegExp[]> = {
    'signature rules': SIGNATURE_RULES.map((r) => r.pattern),
    'family hints and their exceptions': FAMILY_HINTS.flatMap((h) => [h.words, ...(h.unless ? [h.unless] : [])]),
    // global patterns (matchAll) read as their source
    'global and sticky forms': [new RegExp(MASTER_HINT.source, 'gi'), /NCCL WARN (\S+)/g, /--master[-_]addr[= ](\S+)/y, /\bray start\b.*?\s--address/g],
  }

  it('offers each line to every pattern that matches it, on every capture', () => {
    const lines = [...captureFiles('test/preflight/fixtures'), ...captureFiles('test/real/captures')].flatMap((p) => logicalLines(readFileSync(p, 'utf8')))
    expect(lines.length).toBeGreaterThan(5000)
    for (const [name, patterns] of Object.entries(lists)) {
      const filter = patternPrefilter(patterns)
      let matched = 0
      for (const written of lines)
        for (const line of [written, written.toUpperCase(), written.toLowerCase()]) {
          filter.read(line)
          patterns.forEach((re, i) => {
            re.lastIndex = 0
            if (!re.test(line)) return
            matched++
            expect(filter.may(i), `${name}: /${re.source.slice(0, 80)}/ matches but is not offered: ${line.slice(0, 200)}`).toBe(true)
          })
        }
      expect(matched, name).toBeGreaterThan(20)
    }
  })

  it('passes over a line holding none of a pattern’s words, and always offers a pattern without words', () => {
    const filter = patternPrefilter([/CUDA out of memory/, /NCCL WARN/gi, /^/, /\d+/])
    expect(filter.words).toEqual([['cuda out of memory'], ['nccl warn'], null, null])
    filter.read('INFO 01-12 06:15:19 [api_server.py:1] Starting vLLM API server on http://0.0.0.0:8000')
    expect([0, 1, 2, 3].map((i) => filter.may(i))).toEqual([false, false, true, true])
    filter.read('host:1:2 [0] nccl warn NET/IB : Got completion with error 12')
    expect([0, 1].map((i) => filter.may(i))).toEqual([false, true])
    // each read forgets the last
    filter.read('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB')
    expect([0, 1].map((i) => filter.may(i))).toEqual([true, false])
  })
})
