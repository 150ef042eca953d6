/**
 * The native mode's incident analogues on the lab (issue #23): (a) `--master-addr` the head's
 * management IP, (b) both nodes with the same `--node-rank`, each as a launch script
 * (launch.mode: script, vllm.executorBackend: mp) run on the lab's two nodes as the deploy runs one.
 * The script runs through the deploy's own stages up to the launch (image, release files, stop
 * previous, each node's start.sh running the script: src/deploy/rollout.ts startUntilRay).
 * Live: the `preflight` task against the containers the script started names each while its
 * `vllm serve` processes are still running (the hang seconds old, not ended by torch's timeout).
 * Static: the script check gives the SCRIPT_* twin, whose patch (applied with `git apply`) clears it;
 * the patched script, run on the lab, clears the live finding too.
 *
 * Why the preflight and not a deploy: under launch.mode: script with the native executor the deploy
 * runs the script for the container only, then its own serve.sh starts `vllm serve` on every node
 * with the ranks and master address the tool assigns (src/plan/plan.ts servePhase,
 * src/plan/executor-commands.ts), so a script cannot give a deploy these flags.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { argv } from '../../src/command/shell.js'
import { labPaths, labTransports, labUp, loadLabManifest, resolveLabDir } from '../support/lab.js'
import { nativeLabManifest } from '../../src/lab/native-manifest.js'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { startUntilRay } from '../../src/deploy/rollout.js'
import { clusterStateDir } from '../../src/plan/release-commands.js'
import type { Finding } from '../../src/preflight/finding.js'
import { checkLaunchScript } from '../../src/script-check/index.js'
import { preflightManifest } from '../../src/tasks/preflight.js'
import type { Transport } from '../../src/transport/transport.js'
import { type Analogue, analogueScript } from './support/native-analogues.js'

const progress = (m: string) => process.stderr.write(`[native-analogues] ${m}\n`)
let manifest: Manifest
let manifestPath: string
let dir: string
let transports: Map<string, Transport>
let credentials: { privateKey: string; knownHosts: string }

const removeContainers = () =>
  Promise.all([...transports.values()].map((t) => t.run(argv('docker', 'rm', '-f', manifest.container.name), { timeoutMs: 60_000 })))

let runs = 0
/** Run the launch script on every node at once, as a deploy does: the release's files written, the previous container stopped, every node's start.sh run. */
async function runOnLab(script: string): Promise<void> {
  writeFileSync(join(dir, 'launch.sh'), script)
  const r = await startUntilRay({
    manifest,
    manifestPath,
    transports,
    env: process.env,
    release: `analogue-${++runs}`,
    who: 'native-analogues lab test',
    onProgress: progress,
  })
  expect(r.ok, JSON.stringify(r.stoppedAt)).toBe(true)
  expect(r.results.filter((x) => x.step.action === 'node-start').map((x) => `${x.step.node}=${x.status}`)).toEqual(manifest.nodes.map((n) => `${n.name}=ok`))
}

/** The live preflight; every node's `vllm serve` must still be running when it judged (the hang still live). */
async function livePreflight(): Promise<Finding[]> {
  const pre = await preflightManifest(manifest, { credentials, collective: false, onProgress: progress })
  for (const n of manifest.nodes) {
    const proc = pre.facts.nodes.find((x) => x.node === n.name)?.container?.vllmProcess
    expect(proc?.argv.join(' '), `vllm serve on ${n.name}`).toMatch(/vllm serve .*--nnodes 2/)
  }
  return pre.findings
}

function gitApply(text: string, diff: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'vrd-native-analogue-'))
  writeFileSync(join(dir, 'launch.sh'), text)
  writeFileSync(join(dir, 'fix.patch'), diff)
  execFileSync('git', ['apply', 'fix.patch'], { cwd: dir, stdio: 'pipe' })
  return readFileSync(join(dir, 'launch.sh'), 'utf8')
}

/**
 * The static check finds `code`; each of its patches, applied, clears it, and the combined patch
 * clears every finding. Returns the script with the combined patch applied.
 */
function staticClears(kind: Analogue, code: string): string {
  const script = analogueScript(kind, manifest)
  const check = (text: string) => checkLaunchScript(text, { path: 'launch.sh', manifest }).findings
  const found = check(script).filter((f) => f.code === code)
  expect(found.length, JSON.stringify(check(script).map((f) => f.code))).toBeGreaterThan(0)
  for (const f of found) {
    expect(f.patch, `${code} carries a patch`).toBeDefined()
    expect(check(gitApply(script, f.patch!)).filter((x) => x.code === code && x.message === f.message)).toEqual([])
  }
  const all = checkLaunchScript(script, { path: 'launch.sh', manifest }).patch
  expect(all).toBeDefined()
  const patched = gitApply(script, all!)
  expect(check(patched)).toEqual([])
  return patched
}

beforeAll(async () => {
  await labUp({ nodes: 2, onProgress: progress })
  const lab = await loadLabManifest()
  const paths = labPaths(resolveLabDir())
  credentials = { privateKey: readFileSync(paths.sshKey, 'utf8'), knownHosts: readFileSync(paths.knownHosts, 'utf8') }
  dir = mkdtempSync(join(tmpdir(), 'vrd-native-analogues-'))
  const text = nativeLabManifest(readFileSync(lab.path, 'utf8')).replace(/^launch:\n {2}mode: builtin$/m, 'launch:\n  mode: script\n  path: launch.sh')
  manifestPath = join(dir, 'native-script.yml')
  writeFileSync(manifestPath, text)
  const parsed = parseManifest(text, manifestPath)
  expect(parsed.errors).toEqual([])
  manifest = parsed.manifest!
  expect(manifest.launch.mode).toBe('script')
  expect(manifest.vllm.executorBackend).toBe('mp')
  transports = await labTransports(manifest)
}, 900_000)

afterAll(async () => {
  if (!transports) return
  await removeContainers()
  await Promise.all([...transports.values()].map((t) => t.run(argv('rm', '-rf', clusterStateDir(manifest)), { timeoutMs: 60_000 })))
  await Promise.all([...transports.values()].map((t) => t.close()))
}, 120_000)

describe.sequential('native-mode incident analogues on the lab', () => {
  it("(a) --master-addr on the management network: MASTER_ADDR_NOT_FABRIC on each node, live; SCRIPT_MASTER_ADDR_NOT_FABRIC's patch clears it", async () => {
    const head = manifest.nodes.find((n) => n.role === 'head')!
    await runOnLab(analogueScript('master-mgmt', manifest))
    const findings = await livePreflight()
    const hits = findings.filter((f) => f.code === 'MASTER_ADDR_NOT_FABRIC')
    expect(hits.map((f) => f.node).sort(), JSON.stringify(findings, null, 1)).toEqual(manifest.nodes.map((n) => n.name).sort())
    for (const f of hits) expect(f.message).toContain(`--master-addr ${head.ssh.host}, not the head's fabric IP ${head.fabricIp}`)
    // The patched script, run on the lab, clears the live finding too.
    await runOnLab(staticClears('master-mgmt', 'SCRIPT_MASTER_ADDR_NOT_FABRIC'))
    expect((await livePreflight()).map((f) => f.code)).not.toContain('MASTER_ADDR_NOT_FABRIC')
  }, 600_000)

  it("(b) both nodes with --node-rank 0: NATIVE_RANK_DUPLICATE naming both, live; SCRIPT_NATIVE_RANK_DUPLICATE's patch clears it", async () => {
    await runOnLab(analogueScript('rank-duplicate', manifest))
    const findings = await livePreflight()
    const dup = findings.filter((f) => f.code === 'NATIVE_RANK_DUPLICATE')
    expect(dup.length, JSON.stringify(findings, null, 1)).toBe(1)
    for (const n of manifest.nodes) {
      expect(dup[0]!.message).toContain(n.name)
      expect(dup[0]!.evidence[`--node-rank on ${n.name}`]).toBe('0')
    }
    await runOnLab(staticClears('rank-duplicate', 'SCRIPT_NATIVE_RANK_DUPLICATE'))
    expect((await livePreflight()).map((f) => f.code)).not.toContain('NATIVE_RANK_DUPLICATE')
  }, 600_000)
})
