// `npm run schema`: writes every file generated from the code (src/generated-files.ts: the manifest's
// JSON Schema, docs/manifest-reference.md, action.yml, the folder table of docs/architecture.md).
// A plain script, no test runner: it runs the TypeScript sources through .ci/ts-hooks.mjs.
// `--check` writes nothing and exits 1 naming each file that differs from what the code renders
// (test/manifest/generated-files.test.ts runs it, and compares the files itself).
import { readFileSync } from 'node:fs'
import { register } from 'node:module'
import { relative } from 'node:path'

register('./ts-hooks.mjs', import.meta.url)
const { GENERATED_FILES, writeGeneratedFiles } = await import('../src/generated-files.ts')

if (process.argv.includes('--check')) {
  const stale = GENERATED_FILES.filter((file) => {
    try {
      return readFileSync(file.path, 'utf8') !== file.render()
    } catch {
      return true
    }
  })
  for (const file of stale) console.error(`out of date: ${relative('.', file.path)} (npm run schema)`)
  if (stale.length === 0) console.log(`${GENERATED_FILES.length} generated files up to date`)
  process.exit(stale.length === 0 ? 0 : 1)
}
for (const path of await writeGeneratedFiles()) console.log(`wrote ${path}`)
