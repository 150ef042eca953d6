/**
 * The smoke test on the lab's healthy serving cluster (two simulated Sparks, TP 2 over Ray, the
 * vLLM stand-in), through the default SSH tunnel; then with one worker's Ray stopped after vLLM
 * started.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { argv } from '../../src/command/shell.js'
import { labTransports, labUp, loadLabManifest, runLabScenario } from '../support/lab.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { rayAliveNodes } from '../../src/plan/node-commands.js'
import { runSmoke } from '../../src/smoke/gate.js'
import type { Transport } from '../../src/transport/transport.js'
import { leaveLabNodes } from '../deploy/support/lab-nodes.js'

let manifest: Manifest
let transports: Map<string, Transport>
const progress = (m: string) => process.stderr.write(`[smoke-e2e] ${m}\n`)

beforeAll(async () => {
  await labUp({ nodes: 2, onProgress: progress })
  const r = await runLabScenario('healthy', { serve: true, onProgress: progress })
  if (!r.vllm?.ready) throw new Error(`the healthy scenario did not serve: ${r.vllm?.reason ?? JSON.stringify(r.execution.stoppedAt)}`)
  ;({ manifest } = await loadLabManifest())
  transports = await labTransports(manifest)
}, 900_000)

afterAll(async () => {
  await leaveLabNodes(transports, manifest)
}, 120_000)

it('passes on the healthy cluster: TTFT, ITL, tokens/s and p95, a metrics delta equal to the requests made, both nodes in the placement group', async () => {
  const m: Manifest = {
    ...manifest,
    smoke: {
      ...manifest.smoke,
      burst: { requests: 4, maxTokens: 8 },
      prompts: [...manifest.smoke.prompts, { prompt: 'Say hello', maxTokens: 6, chat: true, expect: { finishReason: 'length', regex: '\\w' } }],
    },
  }
  const r = await runSmoke({ manifest: m, transports, env: {}, onProgress: progress })
  process.stderr.write(r.text)
  expect(r.findings.filter((f) => f.severity !== 'info')).toEqual([])
  expect(r.ok).toBe(true)
  for (const k of ['ttft-ms', 'itl-ms', 'tokens-per-second', 'p95-ms']) expect(Number(r.outputs[k]), k).toBeGreaterThan(0)
  const i = r.report.inference!
  expect(i.version).toMatch(/standin/)
  // 2 prompts + 1 streamed + 4 burst, and exactly their tokens: nothing else used the server.
  expect(i.requests.filter((q) => q.ok)).toHaveLength(7)
  expect(i.metrics!.seen).toEqual(i.metrics!.expected)
  expect(i.metrics!.expected.requests).toBe(7)
  expect(r.report.proof!.placementGroup).toMatchObject({ state: 'CREATED', bundles: 2 })
  expect(r.report.proof!.serving.map((s) => `${s.node} ${s.ip}`).sort()).toEqual(manifest.nodes.map((n) => `${n.name} ${n.fabricIp}`).sort())
}, 300_000)

it("one worker's Ray stopped after vLLM started: the smoke fails naming that worker", async () => {
  const worker = manifest.nodes.find((n) => n.role === 'worker')!
  const stop = await transports.get(worker.name)!.run(argv('docker', 'exec', manifest.container.name, 'ray', 'stop', '--force'), { timeoutMs: 120_000 })
  // The worker's container runs `ray start --block`: stopping Ray may end the exec (137) along with it.
  progress(`ray stop on ${worker.name}: ${stop.code} ${stop.stderr.trim().slice(-200)}`)
  // Ray notices a raylet that was killed with its container by its health checks (seconds): the
  // scenario is "Ray stopped", so wait until the head's Ray says so.
  const head = transports.get('spark-a')!
  const deadline = Date.now() + 120_000
  while ((await head.run(rayAliveNodes(manifest, 2), { timeoutMs: 60_000 })).code === 0) {
    if (Date.now() > deadline) throw new Error(`Ray on the head still lists ${worker.name} alive after 120 s`)
    await new Promise((r) => setTimeout(r, 2000))
  }
  const m: Manifest = { ...manifest, smoke: { ...manifest.smoke, readyTimeoutSeconds: 60 } }
  const r = await runSmoke({ manifest: m, transports, env: {}, onProgress: progress })
  process.stderr.write(r.text)
  expect(r.ok).toBe(false)
  const naming = r.findings.filter((f) => f.severity === 'error' && f.node === worker.name)
  expect(naming.map((f) => f.code)).toContain('SMOKE_SERVING_NODE_MISSING')
  expect(naming[0]!.message).toContain(worker.name)
}, 300_000)
