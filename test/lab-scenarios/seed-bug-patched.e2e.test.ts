/**
 * The fix as a patch, proven on the lab: the seed-bug scenario's launch script (common.sh +
 * seed-bug.sh, as the lab runs it) is read by the script check, patched with the tool's own diff
 * (applied by `git apply`, as a user would), run on the lab's two nodes, and then passes the live
 * preflight and serves a completion.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { argv } from '../../src/command/shell.js'
import { type LabInfo, labTransports, labUp, loadLabManifest, runLabScenario, scenarioScript } from '../support/lab.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { checkLaunchScript } from '../../src/script-check/index.js'
import { preflightManifest } from '../../src/tasks/preflight.js'
import { LocalTransport } from '../../src/transport/local.js'

const progress = (m: string) => process.stderr.write(`[seed-bug-patched] ${m}\n`)
let info: LabInfo
let manifest: Manifest

beforeAll(async () => {
  info = await labUp({ nodes: 2, onProgress: progress })
  manifest = (await loadLabManifest()).manifest
}, 900_000)

describe("lab: the seed-bug launch script, patched with the tool's own diff", () => {
  it('the script check finds the seed bug; git apply takes the patch; the patched script passes the live preflight and serves', async () => {
    const original = scenarioScript('seed-bug')
    const check = checkLaunchScript(original, { path: 'seed-bug.sh', manifest })
    expect(check.findings.map((f) => f.code)).toContain('SCRIPT_HEAD_IDENTITY_UNPINNED')
    expect(check.patch).toBeDefined()

    const dir = mkdtempSync(join(tmpdir(), 'vrd-seed-patch-'))
    writeFileSync(join(dir, 'seed-bug.sh'), original)
    writeFileSync(join(dir, 'fix.patch'), check.patch!)
    execFileSync('git', ['apply', 'fix.patch'], { cwd: dir, stdio: 'pipe' })
    const patched = readFileSync(join(dir, 'seed-bug.sh'), 'utf8')
    expect(patched).not.toBe(original)
    expect(checkLaunchScript(patched, { path: 'seed-bug.sh', manifest }).findings).toEqual([])

    const r = await runLabScenario('seed-bug', { script: patched, serve: true, serveDeadlineMs: 120_000, onProgress: progress })
    expect(r.execution.ok, JSON.stringify(r.execution.stoppedAt)).toBe(true)
    expect(readFileSync(r.launchScript, 'utf8')).toBe(patched)

    const privateKey = readFileSync(info.sshKeyPath, 'utf8')
    const knownHosts = readFileSync(info.knownHostsPath, 'utf8')
    const pre = await preflightManifest(manifest, { credentials: { privateKey, knownHosts } })
    const fabric = info.nodes.map((n) => n.fabricIp).sort()
    expect(
      pre.facts
        .ray!.nodes.filter((n) => n.alive)
        .map((n) => n.address)
        .sort(),
    ).toEqual(fabric)
    expect(
      pre.findings.filter((f) => f.severity !== 'info'),
      JSON.stringify(pre.findings, null, 1),
    ).toEqual([])

    expect(r.vllm?.ready, `${r.vllm?.reason}\n${r.vllm?.logTail}`).toBe(true)
    const head = info.nodes.find((n) => n.name === 'spark-a')!
    const res = await new LocalTransport().run(
      argv(
        'curl',
        '-sS',
        '--max-time',
        '30',
        '-H',
        'Content-Type: application/json',
        '-d',
        JSON.stringify({ model: manifest.vllm.servedModelName, prompt: 'Hello lab', max_tokens: 8 }),
        `http://${head.mgmtIp}:${manifest.vllm.port}/v1/completions`,
      ),
      { timeoutMs: 40_000 },
    )
    const body = JSON.parse(res.stdout) as { usage: { completion_tokens: number } }
    expect(body.usage.completion_tokens).toBeGreaterThan(0)
  }, 600_000)
})

afterAll(async () => {
  if (!manifest) return
  const ts = await labTransports(manifest).catch(() => new Map())
  await Promise.all(
    [...ts.values()].map(async (t) => {
      await t.run(argv('docker', 'rm', '-f', manifest.container.name), { timeoutMs: 60_000 })
      await t.close()
    }),
  )
}, 120_000)
