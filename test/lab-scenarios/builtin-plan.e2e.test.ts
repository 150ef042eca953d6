/**
 * The plan's own (built-in) commands, executed for real on the lab: Ray head then worker with
 * explicit identities, the preflight as the gate after Ray is up, then vllm serve and /health.
 * This proves `plan` prints commands that work, not just commands that look right.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { ok } from '../../src/result/result.js'
import { argv } from '../../src/command/shell.js'
import { executePlan } from '../../src/execute/execute.js'
import { stdinProvider } from '../../src/execute/inputs.js'
import { expectationFromManifest } from '../../src/manifest/expectation.js'
import { labUp } from '../../src/lab/index.js'
import { labTransports, loadLabManifest } from '../../src/lab/scenario.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { planDeploy } from './support/raw-plan.js'
import { runChecks } from '../../src/preflight/checks/index.js'
import type { Finding } from '../../src/preflight/finding.js'
import { gatherFacts } from '../../src/preflight/gather/gather.js'
import type { Transport } from '../../src/transport/transport.js'
import { leaveLabNodes } from '../deploy/support/lab-nodes.js'

let manifest: Manifest
let manifestPath: string
let transports: Map<string, Transport>
const progress = (m: string) => process.stderr.write(`[builtin] ${m}\n`)

beforeAll(async () => {
  await labUp({ nodes: 2, onProgress: progress })
  ;({ manifest, path: manifestPath } = await loadLabManifest())
  transports = await labTransports(manifest)
}, 900_000)

afterAll(async () => {
  await leaveLabNodes(transports, manifest)
}, 120_000)

it('the built-in plan brings Ray up on the fabric IPs, passes the preflight gate and serves', async () => {
  expect(manifest.launch.mode).toBe('builtin')
  const plan = planDeploy(manifest, { release: 'e2e' })
  let gateFindings: Finding[] = []
  const r = await executePlan(plan, {
    transports,
    stdinFor: stdinProvider(manifestPath),
    onProgress: progress,
    afterPhase: async (phase) => {
      if (phase !== 'ray-cluster') return undefined
      const { facts } = await gatherFacts(manifest, { transportFor: async (n) => ok(transports.get(n.name)!) })
      gateFindings = runChecks(facts, expectationFromManifest(manifest))
      const errors = gateFindings.filter((f) => f.severity === 'error')
      return errors.length ? errors.map((f) => f.code).join(', ') : undefined
    },
  })
  expect(r.ok, JSON.stringify(r.stoppedAt)).toBe(true)
  expect(gateFindings.filter((f) => f.severity !== 'info')).toEqual([])
  expect(r.results.map((s) => `${s.step.id}=${s.status}`)).toEqual(plan.phases.flatMap((p) => p.steps.map((s) => `${s.id}=ok`)))
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
}, 600_000)

it('the start-up watcher notices a vllm serve that died without a known signature, at the next poll', async () => {
  const head = transports.get('spark-a')!
  const { VLLM_LOG } = await import('../../src/plan/node-commands.js')
  const { watchVllmStartup } = await import('../../src/preflight/watch-vllm.js')
  // Stop the server the previous test started, then start one that writes a line and exits.
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

it('image distribution "load" streams the image from this machine into every node (docker save | ssh | docker load)', async () => {
  const { LocalTransport } = await import('../../src/transport/local.js')
  const { dockerBinary } = await import('../../src/lab/index.js')
  const ref = 'vrd-lab/vllm-standin:latest'
  const local = await new LocalTransport().run(argv(dockerBinary(), 'image', 'inspect', '--format', '{{.Id}}', ref), { timeoutMs: 30_000 })
  expect(local.code, local.stderr).toBe(0)
  // Remove it from the nodes first, so the load really happens.
  for (const t of transports.values()) {
    await t.run(argv('docker', 'rm', '-f', manifest.container.name), { timeoutMs: 60_000 })
    await t.run(argv('docker', 'image', 'rm', '-f', ref), { timeoutMs: 60_000 })
  }
  const m: Manifest = { ...manifest, image: { ...manifest.image, ref, distribution: 'load' } }
  const plan = planDeploy(m, { release: 'e2e-load' })
  expect(plan.phases[0]!.steps.filter((s) => s.action === 'image').map((s) => s.stdin)).toEqual([
    { kind: 'image-archive', image: ref },
    { kind: 'image-archive', image: ref },
  ])
  const r = await executePlan(plan, { transports, stdinFor: stdinProvider(manifestPath), untilPhase: 'prepare', onProgress: progress })
  expect(r.ok, JSON.stringify(r.stoppedAt)).toBe(true)
  for (const t of transports.values()) {
    const id = await t.run(argv('docker', 'image', 'inspect', '--format', '{{.Id}}', ref), { timeoutMs: 30_000 })
    expect(id.stdout.trim(), t.label).toBe(local.stdout.trim())
  }
}, 600_000)

it('image distribution "load" of an image this machine does not have fails before touching the nodes, saying why', async () => {
  const m: Manifest = { ...manifest, image: { ...manifest.image, ref: 'vrd-lab/no-such-image:never', distribution: 'load' } }
  const r = await executePlan(planDeploy(m), { transports, stdinFor: stdinProvider(manifestPath), untilPhase: 'prepare' })
  expect(r.ok).toBe(false)
  expect(r.stoppedAt!.reason).toMatch(/image vrd-lab\/no-such-image:never is not in this machine's docker/)
}, 120_000)
