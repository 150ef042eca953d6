/**
 * Every file of this repository the README and each docs/*.md name (a test, a source file, an
 * example) exists, every relative link in them reaches a file, and the adoption list's files are
 * there to copy.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { adoptionList } from './act/run-act.js'

const DOCS = [
  'README.md',
  ...readdirSync('docs')
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f)),
]

/** Repository paths named in `text`: test/, src/, .ci/, .github/ and docs/ files, with or without backticks. */
export function namedPaths(text: string): string[] {
  const named = /(?:^|[\s`([])((?:test|src|docs|\.ci|\.github)\/[A-Za-z0-9_./-]+\.(?:ts|mts|mjs|sh|yml|yaml|md|json|py))/g
  return [...new Set([...text.matchAll(named)].map((m) => m[1]!))]
}

/** Relative link targets of `text` (`[text](target)`), without their #anchor; URLs and pure anchors left out. */
export function relativeLinks(text: string): string[] {
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!.split('#')[0]!).filter((t) => t !== '' && !/^[a-z]+:/.test(t))
}

describe('the README and docs/ name only files that exist', () => {
  it('reads the paths and links it checks', () => {
    expect(namedPaths('see `src/a.ts` and (test/b/c.test.ts), not xsrc/d.ts')).toEqual(['src/a.ts', 'test/b/c.test.ts'])
    expect(relativeLinks('[a](../src/a.ts) [b](https://x.org/y) [c](#top) [d](e.md#f)')).toEqual(['../src/a.ts', 'e.md'])
    expect(DOCS).toContain('docs/architecture.md')
    expect(DOCS.length).toBeGreaterThan(10)
  })

  for (const doc of DOCS) {
    it(`each repository path ${doc} names is there`, () => {
      const paths = namedPaths(readFileSync(doc, 'utf8'))
      expect(paths.filter((p) => !existsSync(p))).toEqual([])
    })

    it(`each relative link of ${doc} reaches a file`, () => {
      const links = relativeLinks(readFileSync(doc, 'utf8'))
      expect(links.filter((l) => !existsSync(join(dirname(doc), l)))).toEqual([])
    })
  }

  it("the adoption list's files are there to copy", () => {
    const list = adoptionList()
    expect(list.length).toBeGreaterThan(2)
    expect(list.filter(({ from }) => !existsSync(from))).toEqual([])
  })
})
