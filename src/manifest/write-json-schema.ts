/**
 * The files generated from the manifest schema, and writing them. `npm run schema` runs this file
 * (with a TypeScript runner); without one, `WRITE_GENERATED=1 npx vitest run
 * test/manifest/generated-files.test.ts` does the same.
 */
import { writeFile } from 'node:fs/promises'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { renderManifestJsonSchema } from './json-schema.js'
import { renderManifestReference } from './reference.js'

export interface GeneratedFile {
  /** Absolute path of the committed file. */
  readonly path: string
  readonly render: () => string
}

export const GENERATED_FILES: readonly GeneratedFile[] = [
  { path: fileURLToPath(new URL('./cluster-manifest.schema.json', import.meta.url)), render: renderManifestJsonSchema },
  { path: fileURLToPath(new URL('./REFERENCE.md', import.meta.url)), render: renderManifestReference },
]

export async function writeGeneratedFiles(): Promise<string[]> {
  await Promise.all(GENERATED_FILES.map((file) => writeFile(file.path, file.render())))
  return GENERATED_FILES.map((file) => file.path)
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const path of await writeGeneratedFiles()) console.log(`wrote ${path}`)
}
