/**
 * Every generated file is what the code renders today (src/generated-files.ts): the manifest's JSON
 * Schema, docs/manifest-reference.md, action.yml and the folder table of docs/architecture.md.
 * `npm run schema` (.ci/generate.mjs, a plain script) writes them; this only compares.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import { describe, expect, test } from 'vitest'
import { GENERATED_FILES, replaceBlock } from '../../src/generated-files.js'

const REGENERATE = 'npm run schema'

describe('files generated from the code', () => {
  for (const file of GENERATED_FILES) {
    test(`${relative('.', file.path)} is up to date`, () => {
      let committed: string
      try {
        committed = readFileSync(file.path, 'utf8')
      } catch {
        throw new Error(`${file.path} is missing; generate it with: ${REGENERATE}`)
      }
      expect(committed === file.render(), `${file.path} is out of date; regenerate it with: ${REGENERATE}`).toBe(true)
    })
  }

  test('npm run schema is a plain script that runs on this Node (its --check mode writes nothing)', () => {
    const run = spawnSync(process.execPath, ['.ci/generate.mjs', '--check'], { encoding: 'utf8', timeout: 60_000 })
    expect(run.stderr).toBe('')
    expect(run.stdout).toBe(`${GENERATED_FILES.length} generated files up to date\n`)
    expect(run.status).toBe(0)
    expect(JSON.parse(readFileSync('package.json', 'utf8')).scripts.schema).toBe('node .ci/generate.mjs')
  })

  test('a block is replaced between its markers and nowhere else', () => {
    const text = 'a\n<!-- x:start (note) -->\nold\n<!-- x:end -->\nb\n'
    expect(replaceBlock(text, 'x', 'new')).toBe('a\n<!-- x:start (note) -->\nnew\n<!-- x:end -->\nb\n')
    expect(() => replaceBlock('no block', 'x', 'new')).toThrow(/x:start/)
  })
})
