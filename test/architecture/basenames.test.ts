/**
 * Names and places (issue 35): no two files under src/ share a basename, so a name in a stack trace,
 * an import or a conversation points at one file. A folder's `index.ts` (its registry or entry) is
 * the one name folders share.
 */
import { readdirSync } from 'node:fs'
import { basename, join } from 'node:path'
import { describe, expect, it } from 'vitest'

const walk = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? (e.name === 'workload' || e.name === 'node_modules' ? [] : walk(join(dir, e.name))) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  )

describe('file names under src/', () => {
  it('no basename is used twice (index.ts apart)', () => {
    const byName = new Map<string, string[]>()
    for (const f of walk('src')) {
      const n = basename(f)
      if (n === 'index.ts') continue
      byName.set(n, [...(byName.get(n) ?? []), f])
    }
    expect([...byName.values()].filter((fs) => fs.length > 1)).toEqual([])
  })
})
