/**
 * The built-in launcher on the lab, through the deploy users run (`deployTask`, which the CLI's
 * `deploy` and the Action call): Ray head then worker started from the release's start.sh with
 * explicit identities, the preflight gate after Ray is up, then vllm serve, /health and the smoke.
 * This proves the commands `plan` prints for the built-in launcher work, not just that they look
 * right. Then the start-up watcher on that cluster, and the image distribution `load` through the
 * deploy's image stage (streamed from this machine; refused before any node changes when this
 * machine lacks the image).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { argv } from '../../src/command/shell.js'
import { dockerBinary, labPaths, labTransports, labUp, loadLabManifest, resolveLabDir } from '../support/lab.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { VLLM_LOG, vllmHealth } from '../../src/plan/node-commands.js'
import { clusterStateDir } from '../../src/plan/release-commands.js'
import { watchVllmStartup } from '../../src/preflight/watch-vllm.js'
import type { RolloutStage } from '../../src/deploy/rollout.js'
import { type DeployTaskOptions, deployTask } from '../../src/tasks/deploy-task.js'
import type { TaskOutcome } from '../../src/tasks/outcome.js'
import { LocalTransport } from '../../src/transport/local.js'
import type { Transport } from '../../src/transport/transport.js'
import { leaveLabNodes, resetLabNodes } from '../deploy/support/lab-nodes.js'

/** The stand-in as this machine's docker holds it (the lab built it here before pushing it to its registry). */
const STANDIN = 'vrd-lab/vllm-standin:latest'
let manifest: Manifest
let manifestPath: string
let transports: Map<string, Transport>
let credentials: DeployTaskOptions['credentials']
let dir: string
const progress = (m: string) => process.stderr.write(`[builtin] ${m}\n`)

interface Report {
  result: string
  failure?: { stage: string; reason: string }
  findings: { code: string; severity: string; node: string | null; message: string }[]
  image?: { bytesSent: number; actions: Record<string, string> }
}
const report = (o: TaskOutcome) => o.json as Report

/** The lab's manifest with its image section changed: written beside the others, deployed from there. */
function manifestWithImage(name: string, ref: string, distribution: string): string {
  const text = readFileSync(manifestPath, 'utf8')
    .replace(/^( {2}ref: ).*$/m, `$1${ref}`)
    .replace(/^( {2}distribution: ).*$/m, `$1${distribution}`)
  expect(text).toContain(`ref: ${ref}\n  distribution: ${distribution}`)
  const path = join(dir, `${name}.yml`)
  writeFileSync(path, text)
  return path
}

const containerIds = () =>
  Promise.all(
    [...transports.values()].map(async (t) =>
      (await t.run(argv('docker', 'inspect', '--format', '{{.Id}}', manifest.container.name), { timeoutMs: 30_000 })).stdout.trim(),
    ),
  )

beforeAll(async () => {
  await labUp({ nodes: 2, onProgress: progress })
  ;({ manifest, path: manifestPath } = await loadLabManifest())
  const paths = labPaths(resolveLabDir())
  credentials = { privateKey: readFileSync(paths.sshKey, 'utf8'), knownHosts: readFileSync(paths.knownHosts, 'utf8') }
  transports = await labTransports(manifest)
  dir = mkdtempSync(join(tmpdir(), 'vrd-builtin-'))
  process.env.VRD_DOCKER = dockerBinary()
  // A cold start: no container and no release from earlier files.
  await resetLabNodes(transports, manifest, clusterStateDir(manifest))
}, 900_000)

afterAll(async () => {
  await leaveLabNodes(transports, manifest, clusterStateDir(manifest))
}, 120_000)

describe.sequential('the built-in launcher through the deploy', () => {
  it('a deploy brings Ray up on the fabric IPs from start.sh, passes the preflight gate with nothing to warn about, and serves', async () => {
    expect(manifest.launch.mode).toBe('builtin')
    const stages: RolloutStage[] = []
    const o = await deployTask(manifestPath, {
      credentials,
      env: process.env,
      release: 'builtin-1',
      onProgress: progress,
      onStage: (stage, event) => event === 'start' && stages.push(stage),
    })
    expect(o.exitCode, o.text).toBe(0)
    const r = report(o)
    expect(r.result).toBe('deployed')
    expect(r.findings.filter((f) => f.severity !== 'info')).toEqual([])
    // The built-in launcher's own phases ran, in the order `plan` lists them.
    const launch = stages.filter((s) => ['ray-head', 'ray-workers', 'ray-cluster', 'preflight', 'vllm', 'smoke'].includes(s))
    expect(launch).toEqual(['ray-head', 'ray-workers', 'ray-cluster', 'preflight', 'vllm', 'smoke'])
    // Ray really runs with the identities the plan gave it.
    const nodes = await transports
      .get('spark-a')!
      .run(
        argv(
          'docker',
          'exec',
          manifest.container.name,
          'python3',
          '-c',
          'import ray,json;ray.init(address="auto",logging_level="ERROR");print(json.dumps(sorted(n["NodeManagerAddress"] for n in ray.nodes() if n["Alive"])))',
        ),
        { timeoutMs: 60_000 },
      )
    expect(JSON.parse(nodes.stdout.trim().split('\n').pop()!)).toEqual(manifest.nodes.map((n) => n.fabricIp).sort())
    const health = await transports.get('spark-a')!.run(vllmHealth(manifest), { timeoutMs: 30_000 })
    expect(health.code, health.stderr).toBe(0)
  }, 900_000)

  it('the start-up watcher notices a vllm serve that died without a known signature, at the next poll', async () => {
    const head = transports.get('spark-a')!
    // Stop the server the deploy started, then start one that writes a line and exits.
    await head.run(argv('docker', 'exec', manifest.container.name, 'pkill', '-f', 'vllm serve'), { timeoutMs: 30_000 })
    await head.run(
      argv('docker', 'exec', '--detach', manifest.container.name, 'sh', '-c', 'echo "INFO starting, then crashing" >> "$1"; exit 3', 'sh', VLLM_LOG),
      { timeoutMs: 30_000 },
    )
    const w = await watchVllmStartup(head, manifest, { deadlineMs: 120_000, pollMs: 500 })
    expect(w.ready).toBe(false)
    expect(w.reason).toMatch(/vllm serve is no longer running in vllm-ray/)
    expect(w.logTail).toContain('starting, then crashing')
    // It stopped because the process exited, not at its deadline.
    expect(w.notRunning).toBe('exited')
    expect(w.reason).not.toMatch(/not ready after/)
  }, 180_000)

  it('image distribution "load": the deploy streams the image from this machine into every node (docker save | ssh | docker load) and serves it', async () => {
    const local = await new LocalTransport().run(argv(dockerBinary(), 'image', 'inspect', '--format', '{{.Id}}', STANDIN), { timeoutMs: 30_000 })
    expect(local.code, local.stderr).toBe(0)
    // Remove it from the nodes first, so the load really happens.
    for (const t of transports.values()) {
      await t.run(argv('docker', 'rm', '-f', manifest.container.name), { timeoutMs: 60_000 })
      await t.run(argv('docker', 'image', 'rm', '-f', STANDIN), { timeoutMs: 60_000 })
    }
    const o = await deployTask(manifestWithImage('load', STANDIN, 'load'), { credentials, env: process.env, release: 'builtin-load', onProgress: progress })
    expect(o.exitCode, o.text).toBe(0)
    const r = report(o)
    expect(r.result).toBe('deployed')
    expect(r.image?.actions).toEqual({ 'spark-a': 'loaded', 'spark-b': 'loaded' })
    expect(r.image?.bytesSent).toBeGreaterThan(1_000_000)
    for (const t of transports.values()) {
      const id = await t.run(argv('docker', 'image', 'inspect', '--format', '{{.Id}}', STANDIN), { timeoutMs: 30_000 })
      expect(id.stdout.trim(), t.label).toBe(local.stdout.trim())
    }
  }, 900_000)

  it('image distribution "load" of an image this machine does not have stops the deploy at the image stage, saying why, with no container touched', async () => {
    const before = await containerIds()
    expect(before.every((id) => id.length > 0)).toBe(true)
    const o = await deployTask(manifestWithImage('absent', 'vrd-lab/no-such-image:never', 'load'), {
      credentials,
      env: process.env,
      release: 'builtin-absent',
      onProgress: progress,
    })
    expect(o.exitCode, o.text).toBe(1)
    const r = report(o)
    expect(r).toMatchObject({ result: 'failed', failure: { stage: 'image' } })
    expect(r.findings.map((f) => f.code)).toContain('IMAGE_MISSING')
    expect(r.failure!.reason).toMatch(/image\.distribution is load, but vrd-lab\/no-such-image:never is not in this machine's docker/)
    expect(await containerIds()).toEqual(before)
  }, 300_000)
})
