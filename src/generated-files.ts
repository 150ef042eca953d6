/**
 * Every file (or block of a file) generated from the code, in one list: the manifest's JSON Schema
 * and the fast path's plan (manifest-plan.generated.ts),
 * the manifest reference, action.yml, the README's command table and the folder table of docs/architecture.md. `npm run schema`
 * (.ci/generate.mjs) writes them; test/manifest/generated-files.test.ts fails when a committed one
 * differs from what this renders.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { renderActionYml } from './action/action-yml.js'
import { renderManifestPlan } from './manifest/fast-plan.js'
import { renderManifestJsonSchema } from './manifest/json-schema.js'
import { renderManifestReference } from './manifest/reference.js'
import { COMMANDS, type CommandSpec } from './tasks/command-table.js'

export interface GeneratedFile {
  /** Absolute path of the committed file. */
  readonly path: string
  readonly render: () => string
}

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const SRC = join(ROOT, 'src')
const ARCHITECTURE = join(ROOT, 'docs', 'architecture.md')
const BLOCK = 'src-folders'
const README = join(ROOT, 'README.md')

/** Every folder under src/ (src/ itself first), depth first in name order. */
export function srcFolders(dir: string = SRC): string[] {
  const children = readdirSync(dir)
    .filter((f) => statSync(join(dir, f)).isDirectory() && f !== '__pycache__')
    .sort()
  return [dir, ...children.flatMap((f) => srcFolders(join(dir, f)))]
}

/** The folder table: each folder under src/ with the files directly in it (TypeScript, other). */
export function renderSrcFolderTable(): string {
  const rows = srcFolders().map((dir) => {
    const files = readdirSync(dir).filter((f) => statSync(join(dir, f)).isFile() && !f.endsWith('.pyc'))
    const ts = files.filter((f) => f.endsWith('.ts')).length
    return `| \`${relative(ROOT, dir)}/\` | ${ts} | ${files.length - ts} |`
  })
  return ['| folder | .ts files | other files |', '| --- | --- | --- |', ...rows].join('\n')
}

/** The README's command table: one row per command of the table, in its order. */
export function renderCommandTable(): string {
  const rows = (COMMANDS as readonly CommandSpec[]).map((c) => `| \`${c.name}\` | ${c.readme ?? c.summary} |`)
  return ['| command | what it does |', '| --- | --- |', ...rows].join('\n')
}

/** `text` with the block `name` (between its start and end comments) holding `body`. */
export function replaceBlock(text: string, name: string, body: string): string {
  const start = new RegExp(`<!-- ${name}:start[^>]*-->`).exec(text)
  const end = text.indexOf(`<!-- ${name}:end -->`)
  // bug: the generator runs on this repository's own files; a missing block is a developer's edit to fix
  if (!start || end < start.index) throw new Error(`no <!-- ${name}:start --> ... <!-- ${name}:end --> block`)
  const from = start.index + start[0].length
  return `${text.slice(0, from)}\n${body}\n${text.slice(end)}`
}

export const GENERATED_FILES: readonly GeneratedFile[] = [
  { path: join(SRC, 'manifest', 'cluster-manifest.schema.json'), render: renderManifestJsonSchema },
  { path: join(SRC, 'manifest', 'manifest-plan.generated.ts'), render: renderManifestPlan },
  { path: join(ROOT, 'docs', 'manifest-reference.md'), render: renderManifestReference },
  { path: join(ROOT, 'action.yml'), render: renderActionYml },
  { path: README, render: () => replaceBlock(readFileSync(README, 'utf8'), 'commands', renderCommandTable()) },
  { path: ARCHITECTURE, render: () => replaceBlock(readFileSync(ARCHITECTURE, 'utf8'), BLOCK, renderSrcFolderTable()) },
]

export async function writeGeneratedFiles(): Promise<string[]> {
  const rendered = GENERATED_FILES.map((file) => ({ path: file.path, text: file.render() }))
  await Promise.all(rendered.map((file) => writeFile(file.path, file.text)))
  return rendered.map((file) => relative(ROOT, file.path))
}
