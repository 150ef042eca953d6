/**
 * vLLM's native multi-node mode (vllm.executorBackend: mp, no Ray) on the lab, end to end through the
 * deploy task: a cold deploy of 2 nodes that passes the preflight, joins the process group and the
 * smoke test (its proof read from the nodes, not from Ray) and serves; a broken release (its master
 * port taken by sshd on the head) stopped by the start-up watcher within seconds and rolled back to
 * the native release, which serves again; rollback on demand.
 */
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { argv } from '../../src/command/shell.js'
import { labPaths, labTransports, labUp, loadLabManifest, resolveLabDir } from '../support/lab.js'
import { nativeLabManifest } from '../../src/lab/native-manifest.js'
import { parseManifest } from '../../src/manifest/load-manifest.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { clusterStateDir } from '../../src/plan/release-commands.js'
import { type DeployTaskOptions, deployTask, rollbackTask } from '../../src/tasks/deploy-task.js'
import { headCompletion } from './support/head-completion.js'
import { smokeTask } from '../../src/tasks/smoke.js'
import type { Transport } from '../../src/transport/transport.js'
import { resetLabNodes, leaveLabNodes } from './support/lab-nodes.js'

let manifest: Manifest
let transports: Map<string, Transport>
let native: string
let broken: string
let creds: DeployTaskOptions['credentials']
const log: string[] = []
const progress = (m: string) => {
  log.push(m)
  process.stderr.write(`[native-e2e] ${m}\n`)
}
const opts = (extra: Partial<DeployTaskOptions> = {}): DeployTaskOptions => ({ credentials: creds, env: process.env, onProgress: progress, ...extra })
const run = async (t: Transport, ...args: string[]) => (await t.run(argv(...args), { timeoutMs: 60_000 })).stdout.trim()
const head = () => transports.get('spark-a')!
const worker = () => transports.get('spark-b')!
type Report = { result: string; release: string; rolledBack: boolean; failure?: { stage: string }; findings: { code: string; node: string | null }[] }
const json = (o: { json: unknown }) => o.json as Report

async function currentOnEveryNode(): Promise<string[]> {
  return Promise.all([...transports.values()].map(async (t) => (await run(t, 'readlink', `${clusterStateDir(manifest)}/current`)).split('/').pop() ?? ''))
}
/** Every node's vllm serve as `docker top` shows it (the command lines the deploy started; docker top needs the pid column). */
async function serving(): Promise<string[]> {
  return Promise.all(
    [...transports.values()].map(async (t) =>
      (await run(t, 'sh', '-c', `docker top ${manifest.container.name} -eo pid,args | grep "vllm serve" || true`)).trim(),
    ),
  )
}
const completion = () => headCompletion(head(), manifest)

beforeAll(async () => {
  await labUp({ nodes: 2, onProgress: progress })
  const lab = await loadLabManifest()
  const paths = labPaths(resolveLabDir())
  creds = { privateKey: readFileSync(paths.sshKey, 'utf8'), knownHosts: readFileSync(paths.knownHosts, 'utf8') }
  const dir = mkdtempSync(join(tmpdir(), 'vrd-native-e2e-'))
  const text = nativeLabManifest(readFileSync(lab.path, 'utf8'))
  native = join(dir, 'native.yml')
  writeFileSync(native, text)
  broken = join(dir, 'broken.yml')
  // sshd holds port 22 on the head: vLLM's store cannot listen there, so the head's vllm serve ends at start-up.
  writeFileSync(broken, nativeLabManifest(readFileSync(lab.path, 'utf8'), ['masterPort: 22']))
  const parsed = parseManifest(text, native)
  expect(parsed.errors).toEqual([])
  manifest = parsed.manifest!
  transports = await labTransports(manifest)
  await resetLabNodes(transports, manifest, clusterStateDir(manifest))
}, 900_000)

afterAll(async () => {
  await leaveLabNodes(transports, manifest)
}, 120_000)

describe.sequential('the native executor on the lab', () => {
  it('a cold deploy passes the preflight, forms the process group, passes the smoke test and serves; no Ray anywhere', async () => {
    const o = await deployTask(native, opts({ release: 'n1' }))
    expect(o.exitCode, o.text).toBe(0)
    expect(json(o).result).toBe('deployed')
    expect(await currentOnEveryNode()).toEqual(['n1', 'n1'])
    const procs = await serving()
    const headFabric = manifest.nodes[0]!.fabricIp
    expect(procs[0]).toContain(`--nnodes 2 --node-rank 0 --master-addr ${headFabric} --master-port 29501`)
    expect(procs[1]).toContain(`--node-rank 1 --master-addr ${headFabric} --master-port 29501 --headless`)
    expect(log.some((l) => /process group formed: all 2 nodes joined/.test(l))).toBe(true)
    expect(log.some((l) => l.includes(`smoke: process group at ${headFabric}:29501: spark-a in, spark-b in`))).toBe(true)
    // No Ray was started: no raylet or GCS process in either container.
    for (const t of transports.values())
      expect(await run(t, 'sh', '-c', `docker top ${manifest.container.name} -eo pid,args | grep -c -E "raylet|gcs_server" || true`)).toBe('0')
    expect(o.summary).toContain('vllm serve rank 1<br/>--headless')
    expect((await completion()).length).toBeGreaterThan(0)
  }, 600_000)

  it('a release whose rendezvous cannot complete is stopped by the watcher in seconds and rolled back; n1 serves again', async () => {
    const o = await deployTask(broken, opts({ release: 'bad1' }))
    expect(o.exitCode, o.text).toBe(1)
    const r = json(o)
    expect(r.failure?.stage).toBe('vllm')
    // The head's vllm serve ends at start-up (the store cannot listen on sshd's port): the watcher reads
    // that from the head's log (ENGINE_DEAD in the lab's stand-in) or sees the process gone.
    expect(r.findings.filter((f) => f.node === 'spark-a').map((f) => f.code)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^(ENGINE_DEAD|RENDEZVOUS_NODE_NOT_RUNNING)$/)]),
    )
    // Stopped by the watcher's own judgement (its line and code), not by torch's store timeout (RENDEZVOUS_RANKS_MISSING after 601 s).
    const formed = log.find((l) => /process group NOT formed/.test(l))
    expect(formed).toBeDefined()
    process.stderr.write(`[native-e2e] measured: ${formed}\n`)
    expect(r.findings.map((f) => f.code)).not.toContain('RENDEZVOUS_RANKS_MISSING')
    expect(r.rolledBack).toBe(true)
    expect(await currentOnEveryNode()).toEqual(['n1', 'n1'])
    expect((await serving())[1]).toMatch(/--headless/)
    expect((await completion()).length).toBeGreaterThan(0)
  }, 600_000)

  it('rollback on demand starts the previous native release from its own files', async () => {
    const o2 = await deployTask(native, opts({ release: 'n2', force: true }))
    expect(o2.exitCode, o2.text).toBe(0)
    const back = await rollbackTask(native, opts({ to: 'n1' }))
    expect(back.exitCode, back.text).toBe(0)
    expect(await currentOnEveryNode()).toEqual(['n1', 'n1'])
    expect((await completion()).length).toBeGreaterThan(0)
  }, 900_000)

  it('`smoke` (the task the CLI, the Action and the scheduled workflow run) passes on the healthy cluster, and names the worker whose vllm serve stopped', async () => {
    const healthy = await smokeTask(native, { credentials: creds, env: process.env, onProgress: progress })
    expect(healthy.exitCode, healthy.text).toBe(0)
    expect(healthy.outputs?.verdict).toBe('passed')
    await worker().run(argv('docker', 'exec', manifest.container.name, 'pkill', '-f', 'vllm serve'), { timeoutMs: 30_000 })
    const broken = await smokeTask(native, { credentials: creds, env: process.env, onProgress: progress })
    expect(broken.exitCode, broken.text).toBe(1)
    const findings = (broken.json as { findings: { code: string; node: string | null }[] }).findings
    expect(findings).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'SMOKE_NATIVE_NODE_MISSING', node: 'spark-b' })]))
    expect(findings.map((f) => f.code)).not.toContain('SMOKE_CHECK_INCOMPLETE')
  }, 600_000)
})
