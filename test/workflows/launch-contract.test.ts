/**
 * The launch-script contract in docs/executors.md (launch-contract block) is what the code sets: the same
 * VRD_* variables, no more, no fewer, and each example is the value the code gives the seed
 * cluster's head. Then the variables really reach a script: the plan's command for each node is
 * rendered and run by bash locally, with a script that prints its environment.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { renderScript } from '../../src/command/shell.js'
import { loadManifestFile } from '../../src/manifest/load-manifest.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { headOf, launchScriptEnv, runLaunchScript } from '../../src/plan/node-commands.js'

const DOC = readFileSync('docs/executors.md', 'utf8')
const block = /<!-- launch-contract:start[^>]*-->\n([\s\S]*?)<!-- launch-contract:end -->/.exec(DOC)?.[1] ?? ''
const rows = block
  .split('\n')
  .map((l) => /^\| `(VRD_[A-Z_]+)` \| (.+?) \| `([^`]+)` \|$/.exec(l))
  .filter((m): m is RegExpExecArray => m !== null)
  .map((m) => ({ name: m[1]!, meaning: m[2]!, example: m[3]! }))

let m: Manifest
const RELEASE = '3f2a9c1-118'
beforeAll(async () => {
  const { manifest, errors } = await loadManifestFile('src/manifest/examples/dgx-spark-pair.yml')
  expect(errors).toEqual([])
  // The seed cluster, launched through a script, with one variable of the user's own.
  // With a model: section, so VRD_MODEL_PATH (set only then) is in the table too.
  m = {
    ...manifest!,
    launch: { mode: 'script', path: 'launch.sh', args: ['--x'], env: { MY_VAR: 'mine' } },
    model: { path: '/var/lib/vrd/models/qwen3.5-122b', source: { nodes: {} }, distribution: 'relay' },
  } as Manifest
})

describe('docs/executors.md lists exactly the variables a launch script gets', () => {
  it('the table is there and names every variable once', () => {
    expect(rows.length).toBeGreaterThan(5)
    expect(new Set(rows.map((r) => r.name)).size).toBe(rows.length)
  })

  it('VRD_MODEL_PATH only with a model: section', () => {
    const { model: _, ...without } = m
    expect(launchScriptEnv(without as Manifest, headOf(m), 'sha256:0123')['VRD_MODEL_PATH']).toBeUndefined()
  })

  /** The seed under the native executor: the mp-only variables are set there. */
  const mp = () => ({ ...m, vllm: { ...m.vllm, executorBackend: 'mp' as const } })

  it('the same names as launchScriptEnv sets (besides launch.env), on every node, under either executor, in a deploy', () => {
    for (const node of m.nodes) {
      const names = new Set([
        ...Object.keys(launchScriptEnv(m, node, 'sha256:0123', RELEASE)),
        ...Object.keys(launchScriptEnv(mp(), node, 'sha256:0123', RELEASE)),
      ])
      names.delete('MY_VAR')
      expect([...names].sort()).toEqual(rows.map((r) => r.name).sort())
      expect(launchScriptEnv(m, node, 'sha256:0123')['MY_VAR']).toBe('mine')
    }
    // Under ray no master: the mp-only rows are set only there; without a release (plan) no release.
    expect(launchScriptEnv(m, headOf(m), 'sha256:0123', RELEASE)['VRD_MASTER_ADDR']).toBeUndefined()
    expect(launchScriptEnv(m, headOf(m), 'sha256:0123')['VRD_RELEASE']).toBeUndefined()
  })

  it("each example is the head's value (the image: the ID a deploy passes; the master: under mp)", () => {
    const env: Record<string, string> = {
      ...launchScriptEnv(mp(), headOf(m), 'sha256:0123', RELEASE),
      VRD_EXECUTOR: launchScriptEnv(m, headOf(m), 'sha256:0123')['VRD_EXECUTOR']!,
    }
    for (const r of rows) {
      if (r.name === 'VRD_IMAGE') expect(env[r.name]).toMatch(new RegExp(`^${r.example.replace('…', '')}`))
      else expect(env[r.name], r.name).toBe(r.example)
    }
  })
})

describe('the variables reach the script', () => {
  it('the rendered launch command, run by bash, hands the script each variable and launch.args', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vrd-launch-contract-'))
    const script = join(dir, 'launch.sh')
    writeFileSync(script, 'env | grep -E "^(VRD_|MY_VAR=)" | sort\necho "args: $*"\n')
    for (const node of m.nodes) {
      const r = spawnSync('bash', ['-c', renderScript(runLaunchScript(m, node, 'sha256:0123', script))], { encoding: 'utf8', env: { PATH: process.env.PATH } })
      expect(r.status, r.stderr).toBe(0)
      const got = Object.fromEntries(
        r.stdout
          .split('\n')
          .filter((l) => l.includes('='))
          .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
      )
      expect(got).toEqual(launchScriptEnv(m, node, 'sha256:0123'))
      expect(r.stdout).toContain('args: --x')
      expect(got['VRD_ROLE']).toBe(node.role)
    }
  })
})
