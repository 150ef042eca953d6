// Bundle the Action (dist/index.js) and the CLI (dist/cli/index.js) with ncc, as CommonJS.
// Run after `npm ci --ignore-scripts`, so no native addon (.node) is built and bundled.
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'

const ncc = join('node_modules', '.bin', 'ncc')
rmSync('dist', { recursive: true, force: true })
for (const [entry, out] of [
  ['src/index.ts', 'dist'],
  ['src/cli.ts', 'dist/cli'],
]) {
  execFileSync(ncc, ['build', entry, '-o', out, '--license', 'licenses.txt', '--quiet'], { stdio: 'inherit' })
}
chmodSync('dist/cli/index.js', 0o755)

const walk = (dir) => readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)]))
const native = walk('dist').filter((f) => f.endsWith('.node'))
if (native.length > 0) {
  console.error(`native addons landed in dist/ (install with --ignore-scripts): ${native.join(', ')}`)
  process.exit(1)
}
if (!existsSync('dist/index.js')) process.exit(1)
console.log(
  walk('dist')
    .map((f) => `${f} ${statSync(f).size}`)
    .join('\n'),
)
