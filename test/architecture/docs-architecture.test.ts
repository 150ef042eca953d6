/**
 * docs/architecture.md names every folder under src/ in its hand-written table (the generated file
 * counts below it do not count), and names no folder that is gone.
 */
import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { srcFolders } from '../../src/generated-files.js'

const doc = readFileSync('docs/architecture.md', 'utf8')
const written = doc.slice(0, doc.indexOf('<!-- src-folders:start'))
const named = new Set([...written.matchAll(/`(src\/[A-Za-z0-9_./-]*)`/g)].map((m) => m[1]!.replace(/\/?$/, '/')))
const folders = srcFolders().map((dir) => `${relative('.', dir)}/`)

describe('docs/architecture.md', () => {
  it('sees the folders it checks', () => {
    expect(folders).toContain('src/')
    expect(folders).toContain('src/deploy/stages/')
    expect(written.length).toBeGreaterThan(1000)
  })

  it('names every folder under src/', () => {
    const missing = folders.filter((f) => !named.has(f))
    expect(missing, `describe these folders in docs/architecture.md, "Every folder under src/": ${missing.join(', ')}`).toEqual([])
  })

  it('names no src/ folder that does not exist', () => {
    const files = new Set([...named].filter((p) => /\.[a-z]+\/$/.test(p)))
    const gone = [...named].filter((p) => !files.has(p) && !folders.includes(p))
    expect(gone).toEqual([])
  })
})
