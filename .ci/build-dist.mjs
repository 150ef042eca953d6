// Bundle both front doors into one minified CommonJS file with ncc: dist/index.js is the Action
// (main and post step) and, behind the bin shim dist/cli/index.js, the CLI.
//
// Why one shared bundle rather than a CLI built at install: the Action must ship a bundle anyway
// (a runner does not run `npm install` for a JavaScript action), and the CLI is the same code
// behind a different front door; a second bundle doubled dist/ (two copies of ssh2, yaml, zod) for
// nothing, and a build at install would make `npx`/`npm i -g` from git depend on a dev toolchain.
// Node's start-up with the shared bundle is the Action's start-up, which the bench measures.
//
// Run after `npm ci --ignore-scripts`, so no native addon (.node) is built and bundled. Binaries
// beside the bundle are refused: a native addon (.node) or a Windows helper (.exe) never runs on
// the Linux runners this targets, and only weighs dist/ down. dist/ over 3 MB fails the build.
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const MAX_BYTES = 3 * 1024 * 1024
const ncc = join('node_modules', '.bin', 'ncc')
rmSync('dist', { recursive: true, force: true })
execFileSync(ncc, ['build', 'src/index.ts', '-o', 'dist', '--minify', '--license', 'licenses.txt', '--quiet'], { stdio: 'inherit' })

// ncc copies the assets it finds by static analysis. Windows helpers known to be unused here are
// dropped by name; any other binary fails the build below, so a new one is a decision, not an accident.
const DROPPED = new Set([
  'pagent.exe', // ssh2's Pageant agent helper: only for a Windows Pageant agent; keys come as text here
])
const walk = (dir) => readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)]))
for (const f of walk('dist')) if (DROPPED.has(f.split('/').pop())) rmSync(f)

mkdirSync('dist/cli', { recursive: true })
writeFileSync(
  'dist/cli/index.js',
  [
    '#!/usr/bin/env node',
    '// The CLI: the Action bundle behind another front door (see src/index.ts).',
    "globalThis[Symbol.for('vllm-ray-deploy.front-door')] = 'cli'",
    "require('../index.js')",
    '',
  ].join('\n'),
)
chmodSync('dist/cli/index.js', 0o755)

const files = walk('dist')
const binaries = files.filter((f) => f.endsWith('.node') || f.endsWith('.exe'))
if (binaries.length > 0) {
  console.error(`binaries landed in dist/ (install with --ignore-scripts; Windows helpers are not shipped): ${binaries.join(', ')}`)
  process.exit(1)
}
if (!existsSync('dist/index.js')) process.exit(1)
const total = files.reduce((n, f) => n + statSync(f).size, 0)
if (total > MAX_BYTES) {
  console.error(`dist/ is ${total} bytes, over the ${MAX_BYTES} budget: look for a dependency that grew or an asset ncc copied`)
  process.exit(1)
}
console.log([...files.map((f) => `${f} ${statSync(f).size}`), `total ${total}`].join('\n'))
