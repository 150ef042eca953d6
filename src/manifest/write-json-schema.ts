/**
 * The files generated from the manifest schema (the JSON Schema, REFERENCE.md and the reference
 * block in README.md), and writing them: `npm run schema`.
 */
import { readFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { renderManifestJsonSchema } from './json-schema.js'
import { renderManifestReference } from './reference.js'

export interface GeneratedFile {
  /** Absolute path of the committed file. */
  readonly path: string
  readonly render: () => string
}

const README = fileURLToPath(new URL('../../README.md', import.meta.url))
const START = '<!-- manifest-reference:start (generated from src/manifest/schema.ts; do not edit) -->'
const END = '<!-- manifest-reference:end -->'

/** The README with its manifest-reference block replaced by the reference, one heading level down. */
export function embedReference(readme: string, reference: string = renderManifestReference()): string {
  const from = readme.indexOf(START)
  const to = readme.indexOf(END)
  if (from < 0 || to < from) throw new Error(`README.md has no ${START} ... ${END} block`)
  const body = reference
    .slice(reference.indexOf('\n## '))
    .trim()
    .replace(/^(#+) /gm, '#$1 ')
  return `${readme.slice(0, from + START.length)}\n\n${body}\n\n${readme.slice(to)}`
}

export const GENERATED_FILES: readonly GeneratedFile[] = [
  { path: fileURLToPath(new URL('./cluster-manifest.schema.json', import.meta.url)), render: renderManifestJsonSchema },
  { path: fileURLToPath(new URL('./REFERENCE.md', import.meta.url)), render: renderManifestReference },
  { path: README, render: () => embedReference(readFileSync(README, 'utf8')) },
]

export async function writeGeneratedFiles(): Promise<string[]> {
  await Promise.all(GENERATED_FILES.map((file) => writeFile(file.path, file.render())))
  return GENERATED_FILES.map((file) => file.path)
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const path of await writeGeneratedFiles()) console.log(`wrote ${path}`)
}
