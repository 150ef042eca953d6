/**
 * .ci/build-dist.mjs's cache of finished builds, run for real in a scratch tree whose ncc is a shim
 * that logs each call and writes a bundle of src/'s text: the same inputs are built once; any input
 * that changes, a damaged entry, or VRD_BUILD_CACHE=0 builds again; the cached dist/ is byte for
 * byte the built one, the CLI shim executable.
 */
import { spawnSync } from 'node:child_process'
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const SCRIPT = resolve('.ci/build-dist.mjs')
let tree: string
let cache: string

const NCC_SHIM = `#!/bin/sh
# ncc build src/index.ts -o dist ...: logs the call, writes src/'s files into dist/index.js as one
# module of strings (JavaScript the build's terser parses and keeps, text for the tests to find)
echo build >>"$NCC_LOG"
mkdir -p dist && node -e 'const fs = require("fs"); const texts = fs.readdirSync("src").filter((f) => f.endsWith(".ts")).sort().map((f) => fs.readFileSync("src/" + f, "utf8")); fs.writeFileSync("dist/index.js", "module.exports = " + JSON.stringify(texts) + "\\n")'
# --stats-out FILE: the modules bundled (none from node_modules here)
while [ $# -gt 0 ]; do [ "$1" = --stats-out ] && echo '{"modules":[]}' >"$2"; shift; done
`

const run = (env: Record<string, string> = {}) => {
  const r = spawnSync('node', [SCRIPT], {
    cwd: tree,
    encoding: 'utf8',
    env: { ...process.env, VRD_BUILD_CACHE_DIR: cache, NCC_LOG: join(tree, 'ncc.log'), ...env },
  })
  expect(r.status, r.stderr).toBe(0)
  return r
}
const builds = () => readFileSync(join(tree, 'ncc.log'), 'utf8').trim().split('\n').length
const distFiles = () => Object.fromEntries(['index.js', 'licenses.txt', 'cli/index.js'].map((f) => [f, readFileSync(join(tree, 'dist', f), 'utf8')] as const))

beforeAll(() => {
  const root = mkdtempSync(join(tmpdir(), 'vrd-build-cache-'))
  tree = join(root, 'tree')
  cache = join(root, 'cache')
  mkdirSync(join(tree, 'src'), { recursive: true })
  mkdirSync(join(tree, 'node_modules', '.bin'), { recursive: true })
  writeFileSync(join(tree, 'node_modules', '.bin', 'ncc'), NCC_SHIM)
  chmodSync(join(tree, 'node_modules', '.bin', 'ncc'), 0o755)
  writeFileSync(join(tree, 'src', 'index.ts'), 'export const a = 1\n')
  writeFileSync(join(tree, 'package.json'), '{"name":"x","version":"1.0.0"}\n')
  writeFileSync(join(tree, 'package-lock.json'), '{"lockfileVersion":3}\n')
  writeFileSync(join(tree, 'tsconfig.json'), '{}\n')
  writeFileSync(join(tree, 'ncc.log'), '')
})
afterAll(() => rmSync(join(tree, '..'), { recursive: true, force: true }))

describe('.ci/build-dist.mjs: the build cache', () => {
  it('builds once for the same inputs; the cached dist/ is the built one, the CLI executable', () => {
    run()
    expect(builds()).toBe(1)
    const built = distFiles()
    rmSync(join(tree, 'dist'), { recursive: true })
    const again = run()
    expect(builds()).toBe(1)
    expect(again.stderr).toMatch(/build: dist\/ from the cache/)
    expect(distFiles()).toEqual(built)
    expect(statSync(join(tree, 'dist', 'cli', 'index.js')).mode & 0o111).not.toBe(0)
  })

  it('any input that changes builds again: a file under src/, package.json, the lockfile', () => {
    const before = builds()
    writeFileSync(join(tree, 'src', 'more.ts'), 'export const b = 2\n')
    run()
    expect(builds()).toBe(before + 1)
    expect(readFileSync(join(tree, 'dist', 'index.js'), 'utf8')).toContain('b = 2')
    writeFileSync(join(tree, 'package.json'), '{"name":"x","version":"1.1.0"}\n')
    run()
    writeFileSync(join(tree, 'package-lock.json'), '{"lockfileVersion":3,"packages":{}}\n')
    run()
    expect(builds()).toBe(before + 3)
    run()
    expect(builds()).toBe(before + 3)
  })

  it('a damaged entry is dropped and the build runs; VRD_BUILD_CACHE=0 always builds; refresh builds and keeps it', () => {
    const before = builds()
    const [entry] = readdirSync(cache)
      .map((e) => join(cache, e))
      .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)
    writeFileSync(join(entry!, 'files', 'index.js'), 'tampered\n')
    const r = run()
    expect(r.stderr).toMatch(/damaged; dropped, building/)
    expect(builds()).toBe(before + 1)
    expect(readFileSync(join(tree, 'dist', 'index.js'), 'utf8')).not.toContain('tampered')
    run({ VRD_BUILD_CACHE: '0' })
    expect(builds()).toBe(before + 2)
    // refresh (.ci/run's check-dist): builds although the entry is there, and keeps what it built.
    const r2 = run({ VRD_BUILD_CACHE: 'refresh' })
    expect(r2.stderr).not.toMatch(/from the cache/)
    expect(builds()).toBe(before + 3)
    expect(run().stderr).toMatch(/from the cache/)
    expect(builds()).toBe(before + 3)
  })

  it('a node_modules reached through a symlink is another input (ncc names modules by their paths)', () => {
    const before = builds()
    const real = join(tree, '..', 'real_modules')
    mkdirSync(real, { recursive: true })
    renameSync(join(tree, 'node_modules'), join(real, 'node_modules'))
    symlinkSync(join(real, 'node_modules'), join(tree, 'node_modules'))
    run()
    expect(builds()).toBe(before + 1)
    rmSync(join(tree, 'node_modules'))
    renameSync(join(real, 'node_modules'), join(tree, 'node_modules'))
    run()
    expect(builds()).toBe(before + 1)
  })

  it('keeps a bounded number of entries', () => {
    for (let i = 0; i < 8; i++) {
      copyFileSync(join(tree, 'src', 'index.ts'), join(tree, 'src', `copy${i}.ts`))
      run()
    }
    expect(readdirSync(cache).filter((e) => !e.startsWith('.')).length).toBeLessThanOrEqual(6)
  })
})
