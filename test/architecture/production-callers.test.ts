/**
 * No checker, parser or verifier that only tests call (issue 33): a hub digest parser once was
 * written and tested but never called, and wrong weights went live as "verified". Every function
 * exported from the stages that decide whether a rollout may go on (src/deploy, src/smoke,
 * src/preflight) must have a caller in production code; a verifier-like name without one fails
 * with the reason, and the few helpers kept for tests are named below with why.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name)
    return e.isDirectory() ? files(p) : /\.(ts|mts)$/.test(e.name) ? [p] : []
  })
const strip = (t: string) => t.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1')

/** Exported functions (declarations and arrow constants) of `text`. */
export const exportedFunctions = (text: string): string[] =>
  [...text.matchAll(/^export (?:async )?function (\w+)|^export const (\w+)\s*(?::[^=\n]+)?=\s*(?:async\s*)?(?:\([^)]*\)|\w+)\s*(?::[^=\n]+)?=>/gm)].map(
    (m) => (m[1] ?? m[2])!,
  )

/** Exported functions of `dirs` that no other production file (nor their own file) calls. */
export function testOnlyExports(srcText: ReadonlyMap<string, string>, dirs: RegExp): string[] {
  const out: string[] = []
  for (const [f, text] of srcText) {
    if (!dirs.test(f)) continue
    for (const name of exportedFunctions(text)) {
      const re = new RegExp(`\\b${name}\\b`)
      const used = [...srcText].some(([g, t]) => g !== f && re.test(t)) || text.split(re).length - 1 > 1
      if (!used) out.push(`${name} (${f})`)
    }
  }
  return out.sort()
}

const VERIFIER = /verif|check|parse|validat|compare|digest|hash|guard|bound|redact|escape|sanit|proof|prove|match/i
/** Kept for tests, with the reason; anything else without a production caller fails. */
const KEPT: Record<string, string> = {
  renameKey: 'src/deploy/snapshot.ts: the building block of the next snapshot migration; its test builds one with it',
}

describe('every exported function of src/deploy, src/smoke and src/preflight has a production caller', () => {
  const src = new Map(files('src').map((f) => [f, strip(readFileSync(f, 'utf8'))]))
  const orphans = testOnlyExports(src, /^src\/(deploy|smoke|preflight)\//)

  it('no verifier, checker or parser is called only by tests', () => {
    expect(orphans.filter((o) => VERIFIER.test(o.split(' ')[0]!))).toEqual([])
  })
  it('and no other function either, but the ones kept on purpose', () => {
    expect(orphans.filter((o) => !(o.split(' ')[0]! in KEPT))).toEqual([])
  })
  it('the rule finds what it is for: a parser exported and never called is listed', () => {
    const planted = new Map([
      ['src/deploy/a.ts', 'export function parseThing(x: string) { return x }\nexport const used = (x: string) => x\n'],
      ['src/deploy/b.ts', "import { used } from './a.js'\nused('y')\n"],
      ['src/tasks/c.ts', 'export function lonely() {}\n'],
    ])
    expect(testOnlyExports(planted, /^src\/(deploy|smoke|preflight)\//)).toEqual(['parseThing (src/deploy/a.ts)'])
  })
})
