// Bundle both front doors into one minified CommonJS file with ncc: dist/index.js is the Action
// (main and post step) and, behind the bin shim dist/cli/index.js, the CLI. The lab (the CLI's `lab`
// command only) is a dynamic import, which ncc splits into a chunk beside it (dist/NNN.index.js):
// the Action never loads it (test/build/action-bundle.test.ts).
//
// Why one shared bundle rather than a CLI built at install: the Action must ship a bundle anyway
// (a runner does not run `npm install` for a JavaScript action), and the CLI is the same code
// behind a different front door; a second bundle doubled dist/ (two copies of ssh2, yaml, zod) for
// nothing, and a build at install would make `npx`/`npm i -g` from git depend on a dev toolchain.
// Node's start-up with the shared bundle is the Action's start-up, which the bench measures.
//
// Run after `npm ci --ignore-scripts`, so no native addon (.node) is built and bundled. Binaries
// beside the bundle are refused: a native addon (.node) or a Windows helper (.exe) never runs on
// the Linux runners this targets, and only weighs dist/ down. dist/ over 3 MiB, or dist/index.js
// (what the Action loads) over 2 MiB, fails the build.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'

// Where the build goes: dist/, or VRD_DIST_DIR (the bench builds the same files elsewhere, so dist/ stays untouched).
const OUT = process.env.VRD_DIST_DIR || 'dist'
const MAX_BYTES = 3 * 1024 * 1024
// What the Action loads at every start (the chunks beside it load only for the CLI's lab and a launch script).
const MAX_ACTION_BYTES = 2 * 1024 * 1024
const ncc = join('node_modules', '.bin', 'ncc')
const walk = (dir) => readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)]))
const sha256 = (buf) => createHash('sha256').update(buf).digest('hex')

// A cache of finished builds, keyed by every input of the build: each file under src/, package.json,
// the lockfile and the tree npm installed from it (node_modules/.package-lock.json: ncc, terser and
// every bundled package at their exact versions), tsconfig.json and this script. The same inputs give
// the same dist/ (check-dist holds that across machines and Node versions already), so a second
// build of them, e.g. the release script's check-dist in the release tests, takes the first one's
// output instead of a minute of CPU. Entries are verified file by file against their SHA-256 sums
// when used; a damaged one is dropped and the build runs. VRD_BUILD_CACHE=0 always builds and
// keeps nothing; VRD_BUILD_CACHE=refresh always builds and keeps the result (.ci/run's check-dist:
// the gate itself never takes a cached build);
// VRD_BUILD_CACHE_DIR moves the cache (default ~/.cache/vllm-ray-deploy/dist, not $XDG_CACHE_HOME:
// act sets that per run, and its runs are the ones that repeat a build).
const CACHE = process.env.VRD_BUILD_CACHE === '0' ? null : process.env.VRD_BUILD_CACHE_DIR || join(homedir(), '.cache', 'vllm-ray-deploy', 'dist')
const CACHE_KEPT = 6

function inputsKey() {
  const extra = ['package.json', 'package-lock.json', 'node_modules/.package-lock.json', 'tsconfig.json', '.ci/build-dist.mjs']
  const h = createHash('sha256')
  // ncc's module ids come from the modules' paths: a node_modules reached through a symlink builds
  // another bundle (docs/development.md), so where node_modules really is counts too.
  h.update(`node_modules -> ${existsSync('node_modules') ? relative('.', realpathSync('node_modules')) : '(none)'}\n`)
  for (const f of [...walk('src'), ...extra.filter((f) => existsSync(f))].sort()) h.update(`${f}\0${sha256(readFileSync(f))}\n`)
  return h.digest('hex').slice(0, 40)
}

/** dist/ from the cache entry `key`, when it is there and every file matches its sum. */
function fromCache(key) {
  const entry = join(CACHE, key)
  if (!existsSync(join(entry, 'SHA256SUMS'))) return false
  const sums = readFileSync(join(entry, 'SHA256SUMS'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => [l.slice(0, 64), l.slice(66)])
  const ok = sums.length > 0 && sums.every(([sum, f]) => existsSync(join(entry, 'files', f)) && sha256(readFileSync(join(entry, 'files', f))) === sum)
  if (!ok) {
    console.error(`build: cache entry ${key} is damaged; dropped, building`)
    rmSync(entry, { recursive: true, force: true })
    return false
  }
  rmSync(OUT, { recursive: true, force: true })
  for (const [, f] of sums) {
    mkdirSync(dirname(join(OUT, f)), { recursive: true })
    writeFileSync(join(OUT, f), readFileSync(join(entry, 'files', f)))
  }
  chmodSync(join(OUT, 'cli', 'index.js'), 0o755)
  console.error(`build: dist/ from the cache (${CACHE}/${key}): a build of these exact inputs; VRD_BUILD_CACHE=0 builds anew`)
  return true
}

/** Keeps the finished dist/ under `key` (written aside, then renamed: a concurrent build never sees half). */
function toCache(key) {
  const entry = join(CACHE, key)
  mkdirSync(CACHE, { recursive: true })
  const tmp = join(CACHE, `.tmp-${key}-${process.pid}`)
  const files = walk(OUT).map((f) => relative(OUT, f))
  for (const f of files) {
    mkdirSync(dirname(join(tmp, 'files', f)), { recursive: true })
    writeFileSync(join(tmp, 'files', f), readFileSync(join(OUT, f)))
  }
  writeFileSync(join(tmp, 'SHA256SUMS'), files.map((f) => `${sha256(readFileSync(join(OUT, f)))}  ${f}\n`).join(''))
  rmSync(entry, { recursive: true, force: true })
  try {
    renameSync(tmp, entry)
  } catch {
    rmSync(tmp, { recursive: true, force: true }) // another build of the same inputs kept it first
  }
  const entries = readdirSync(CACHE)
    .filter((e) => !e.startsWith('.'))
    .map((e) => [e, statSync(join(CACHE, e)).mtimeMs])
  for (const [e] of entries.sort((a, b) => b[1] - a[1]).slice(CACHE_KEPT)) rmSync(join(CACHE, e), { recursive: true, force: true })
}

const key = CACHE ? inputsKey() : null
const built = process.env.VRD_BUILD_CACHE === 'refresh' || !(key && fromCache(key))
if (built) await build()

/**
 * dist/licenses.txt: every package the bundle and its chunks hold, with its licence and the text of
 * its licence file. Written here from ncc's module stats: ncc's own --license writes one file per
 * chunk under the same name, so with the chunks (the lab, the launch-script check) the last one
 * written won and the main bundle's packages went missing.
 */
function writeLicenses(statsFile) {
  const modules = JSON.parse(readFileSync(statsFile, 'utf8')).modules ?? []
  // ncc's own runtime helpers are in every bundle it writes.
  const names = new Set(existsSync('node_modules/@vercel/ncc') ? ['@vercel/ncc'] : [])
  const walkModules = (ms) => {
    for (const m of ms) {
      const name = m.name ?? ''
      const at = name.lastIndexOf('node_modules/')
      if (at >= 0) {
        const parts = name.slice(at + 'node_modules/'.length).split('/')
        names.add(parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0])
      }
      if (m.modules) walkModules(m.modules)
    }
  }
  walkModules(modules)
  // Packages whose licence and licence text are the same (@actions/core, exec and io) are one entry naming them all.
  const byText = new Map()
  for (const name of [...names].sort()) {
    const dir = join('node_modules', name)
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f))
    const text = file ? readFileSync(join(dir, file), 'utf8').trim() : ''
    const key = `${pkg.license ?? '(no licence field)'}\n${text}`
    byText.set(key, [...(byText.get(key) ?? []), name])
  }
  const entries = [...byText].map(([key, packages]) => `${packages.join(', ')}\n${key}`)
  writeFileSync(join(OUT, 'licenses.txt'), `${entries.join('\n\n')}\n`)
}

/**
 * ncc minifies dist/index.js without compressing it, and leaves the chunks beside it (the lab, the
 * launch-script check, each command's task, each dependency) as webpack wrote them. Both are
 * minified here with terser, compressed: webpack marks an export nothing imports as unused and
 * leaves its code for the minifier to drop, so ncc's uncompressed output keeps every unused
 * function (dist/index.js: 32,225 bytes as ncc writes it, 11,135 compressed), and the per-command
 * chunks repeat the small modules they share (3,141,105 bytes without compressing, 210 kB less with).
 *
 * Class names are kept (errors print them; zod and ssh2 read `constructor.name`, and every such read
 * in the bundle is of a class or of a function zod names itself with defineProperty). Function
 * names are kept in dist/index.js only, as ncc keeps them there; in the chunks they are mangled like
 * any other local name: no code in the bundle reads a plain function's `.name` (checked with grep
 * over the chunks as webpack writes them, and the CLI's output is the same either way:
 * docs/development.md), and keeping them cost 114 kB, half of it in mvdan-sh's GopherJS output.
 * Only a stack trace (VRD_DEBUG, or the Action's debug log) shows the mangled names.
 * terser: the minifier ncc itself bundles, as a dev dependency because ncc does not expose its own
 * copy. `passes: 2`: 2.5 kB less for about 20 s more build, kept since dist/ reached its 3 MiB goal (session 62).
 * ES2020 output with `unsafe_arrows` (session 63, dist/ at 3,084 KiB by du against the 3,072 goal): a function expression that
 * reads neither `this` nor `arguments` is written as an arrow (webpack's module wrappers, callbacks, GopherJS's helpers), 12 kB
 * less; node 20 runs ES2020. Unsafe only for a function used with `new` that never reads `this`: every real launch script under
 * test/script-check/fixtures (the bash parser's GopherJS chunk) and every capture under test/preflight/fixtures read through
 * dist/cli gave the same JSON before and after (docs/development.md says how to repeat it).
 */
async function minifyOutput() {
  const { minify } = await import('terser')
  const es2020 = { ecma: 2020, compress: { passes: 2, ecma: 2020, unsafe_arrows: true }, format: { ecma: 2020 } }
  const chunk = { ...es2020, mangle: { keep_classnames: true } }
  const entry = { ...es2020, mangle: { keep_classnames: true, keep_fnames: true } }
  for (const f of readdirSync(OUT).filter((n) => /^(\d+\.)?index\.js$/.test(n))) {
    const path = join(OUT, f)
    const r = await minify(readFileSync(path, 'utf8'), f === 'index.js' ? entry : chunk)
    if (r.code === undefined) throw new Error(`terser gave no code for ${path}`)
    writeFileSync(path, r.code)
  }
}

async function build() {
  rmSync(OUT, { recursive: true, force: true })
  const stats = join(mkdtempSync(join(tmpdir(), 'vrd-ncc-')), 'stats.json')
  // cpu-features (ssh2's optional CPU probe) is only a require of its native binding, which never ships (--ignore-scripts, no .node in
  // dist/): left external, ssh2's own try/catch around require('cpu-features') meets the same missing module, without its stub in the bundle.
  execFileSync(ncc, ['build', 'src/index.ts', '-o', OUT, '--minify', '-e', 'cpu-features', '--stats-out', stats, '--quiet'], { stdio: 'inherit' })
  writeLicenses(stats)
  rmSync(dirname(stats), { recursive: true, force: true })
  await minifyOutput()

  // ncc copies the assets it finds by static analysis. Windows helpers known to be unused here are
  // dropped by name; any other binary fails the build below, so a new one is a decision, not an accident.
  const DROPPED = new Set([
    'pagent.exe', // ssh2's Pageant agent helper: only for a Windows Pageant agent; keys come as text here
  ])
  for (const f of walk(OUT)) if (DROPPED.has(f.split('/').pop())) rmSync(f)

  mkdirSync(join(OUT, 'cli'), { recursive: true })
  writeFileSync(
    join(OUT, 'cli', 'index.js'),
    [
      '#!/usr/bin/env node',
      '// The CLI: the Action bundle behind another front door (see src/index.ts).',
      "globalThis[Symbol.for('vllm-ray-deploy.front-door')] = 'cli'",
      "require('../index.js')",
      '',
    ].join('\n'),
  )
  chmodSync(join(OUT, 'cli', 'index.js'), 0o755)
}

const files = walk(OUT)
const binaries = files.filter((f) => f.endsWith('.node') || f.endsWith('.exe'))
if (binaries.length > 0) {
  console.error(`binaries landed in dist/ (install with --ignore-scripts; Windows helpers are not shipped): ${binaries.join(', ')}`)
  process.exit(1)
}
if (!existsSync(join(OUT, 'index.js'))) process.exit(1)
const total = files.reduce((n, f) => n + statSync(f).size, 0)
const action = statSync(join(OUT, 'index.js')).size
if (action > MAX_ACTION_BYTES) {
  console.error(
    `dist/index.js is ${action} bytes, over the ${MAX_ACTION_BYTES} budget of what the Action loads at start: a dependency that grew, or code of the lab or the launch-script check imported statically`,
  )
  process.exit(1)
}
if (total > MAX_BYTES) {
  console.error(`dist/ is ${total} bytes, over the ${MAX_BYTES} budget: look for a dependency that grew or an asset ncc copied`)
  process.exit(1)
}
console.log([...files.map((f) => `${f} ${statSync(f).size}`), `total ${total}`].join('\n'))
if (key && built) toCache(key)
