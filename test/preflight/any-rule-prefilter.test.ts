/**
 * signatures.ts tries a line against the rules only when ANY_RULE (the alternation of every rule's
 * pattern) matches it. That is sound only if every line a rule matches, ANY_RULE matches too: checked
 * on every logical line of every capture the project holds (the development logs, held-out batches 1
 * to 8, the real vLLM captures) and on lines in other cases than the rules were written in.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createLineJoiner } from '../../src/preflight/paste-normalise.js'
import { SIGNATURE_RULES } from '../../src/preflight/signature-rules.js'
import { ANY_RULE } from '../../src/preflight/signatures.js'

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f)
    return statSync(p).isDirectory() ? files(p) : /\.(txt|log)$/.test(f) ? [p] : []
  })
}

const logical = (text: string): string[] => {
  const j = createLineJoiner({})
  return [...text.split('\n').flatMap((l) => j.push(l)), ...j.end()].map((l) => l.text)
}

describe('the one-pass prefilter of the log rules', () => {
  it('matches every line any rule matches, on every capture in the repository', () => {
    const paths = [...files('test/preflight/fixtures'), ...files('test/real/captures')]
    expect(paths.length).toBeGreaterThan(300)
    let matched = 0
    for (const path of paths)
      for (const line of logical(readFileSync(path, 'utf8')))
        for (const rule of SIGNATURE_RULES)
          if (!rule.pattern.test('') && rule.pattern.test(line)) {
            matched++
            expect(ANY_RULE.test(line), `${path}: ${rule.code} matches but the prefilter does not: ${line.slice(0, 200)}`).toBe(true)
          }
    expect(matched).toBeGreaterThan(500)
  })

  it('lets through what a case-sensitive rule would take, and passes over plain lines', () => {
    expect(ANY_RULE.test('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB')).toBe(true)
    expect(ANY_RULE.test('INFO 01-12 06:15:19 [api_server.py:1] Starting vLLM API server on http://0.0.0.0:8000')).toBe(false)
  })
})
