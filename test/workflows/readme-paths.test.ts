/** Every file of this repository the README names (a test, a source file, an example) exists. */
import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

describe('the README names only files that exist', () => {
  it('each test/, src/, .ci/ and .github/ path in it is there', () => {
    const readme = readFileSync('README.md', 'utf8')
    const paths = [
      ...new Set([...readme.matchAll(/(?:^|[\s`([])((?:test|src|\.ci|\.github)\/[A-Za-z0-9_./-]+\.(?:ts|mts|sh|yml|yaml|md|json|py))/g)].map((m) => m[1]!)),
    ]
    expect(paths.length).toBeGreaterThan(5)
    expect(paths.filter((p) => !existsSync(p))).toEqual([])
  })
})
