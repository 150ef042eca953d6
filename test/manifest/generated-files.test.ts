import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { GENERATED_FILES, writeGeneratedFiles } from '../../src/manifest/write-json-schema.js'

const REGENERATE = 'WRITE_GENERATED=1 npx vitest run test/manifest/generated-files.test.ts'

describe('files generated from the manifest schema', () => {
  if (process.env['WRITE_GENERATED'] === '1') {
    test('are rewritten', async () => {
      expect(await writeGeneratedFiles()).toHaveLength(GENERATED_FILES.length)
    })
  }

  for (const file of GENERATED_FILES) {
    test(`${file.path.split('/').pop()} is up to date with the schema`, () => {
      let committed: string
      try {
        committed = readFileSync(file.path, 'utf8')
      } catch {
        throw new Error(`${file.path} is missing; generate it with: ${REGENERATE}`)
      }
      expect(committed === file.render(), `${file.path} is out of date; regenerate it with: ${REGENERATE}`).toBe(true)
    })
  }
})
