/**
 * The start-up timeline, the first failure and the diagnostics bundle on the lab (issue 39), with
 * the stand-in's faults (VLLM_STANDIN_STALL_IN / _DIE_IN on spark-b only, vllm/standin/faults.py):
 * - spark-b's worker stalls in weights loading: the deploy stops with "spark-b stalled in weights
 *   loading for N s", N within its budget + 10 s (smoke.phaseBudgetSeconds.weightsLoading: 20), with
 *   its last lines, long before readyTimeoutSeconds; the bundle holds both nodes' logs;
 * - spark-b's worker dies in weights loading and the head's engine fails after it: the worker's line
 *   is the first failure, the head's under it.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RolloutReport } from '../../src/deploy/rollout-types.js'
import { runLabScenario } from '../support/lab.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { clusterStateDir } from '../../src/plan/release-commands.js'
import { type DeployTaskOptions, deployTask } from '../../src/tasks/deploy-task.js'
import type { Transport } from '../../src/transport/transport.js'
import { leaveLabNodes, manifestVariant, openLab } from './support/lab-nodes.js'

let manifest: Manifest
let labPath: string
let transports: Map<string, Transport>
let creds: DeployTaskOptions['credentials']
const progress = (m: string) => process.stderr.write(`[startup-timeline-e2e] ${m}\n`)
const BUDGET = 20
/** Planted in the container's env: must not reach the bundle. */
const PLANTED = { VRD_TEST_API_TOKEN: 'hf_PlantedLabTokenAbcdefghijklmnop42', VRD_TEST_DB_PASSWORD: 'planted-lab-password-9' }

/** The lab's manifest with the stand-in's fault on spark-b, a 20 s weights budget, and on-failure stop. */
function faulty(fault: Record<string, string>): string {
  return manifestVariant(labPath, 'startup-timeline', (doc) => {
    const worker = manifest.nodes.find((n) => n.name === 'spark-b')!
    doc.setIn(['container', 'env'], doc.createNode({ ...manifest.container.env, ...PLANTED, ...fault, VLLM_STANDIN_FAULT_NODE: worker.fabricIp }))
    doc.setIn(['smoke', 'phaseBudgetSeconds'], doc.createNode({ weightsLoading: BUDGET }))
    doc.setIn(['deploy', 'onFailure'], 'stop')
  })
}

beforeAll(async () => {
  const lab = await openLab(progress)
  creds = lab.creds
  manifest = lab.manifest
  labPath = lab.path
  transports = lab.transports
}, 900_000)

afterAll(async () => {
  await leaveLabNodes(transports, manifest, clusterStateDir(manifest))
}, 120_000)

describe.sequential('a start that stalls or fails on the worker', () => {
  it(`spark-b stalls in weights loading: reported within its budget + 10 s, with its last lines; the bundle holds both nodes' logs`, async () => {
    const o = await deployTask(faulty({ VLLM_STANDIN_STALL_IN: 'weights-loading' }), {
      credentials: creds,
      env: process.env,
      release: 's1',
      onProgress: progress,
    })
    const r = o.json as RolloutReport
    expect(o.exitCode, o.text).toBe(1)
    expect(r).toMatchObject({ result: 'failed', failure: { stage: 'vllm' } })
    const stall = r.findings.find((f) => f.code === 'STARTUP_PHASE_STALLED')
    expect(stall, o.text).toBeDefined()
    expect(stall!.node).toBe('spark-b')
    const n = Number(/^spark-b stalled in weights loading for (\d+) s/.exec(stall!.message)?.[1])
    expect(n, stall!.message).toBeGreaterThan(BUDGET)
    expect(n, stall!.message).toBeLessThanOrEqual(BUDGET + 10)
    expect(stall!.evidence['spark-b last lines']).toContain('Starting to load model')
    expect(r.failure!.reason).toContain('spark-b stalled in weights loading')
    const files = new Map(o.files.filter((f) => f.output === 'bundle').map((f) => [f.fileName, f.content]))
    expect([...files.keys()]).toContain('bundle/bundle.json')
    expect(files.get('bundle/nodes/spark-a/engine.log')).toContain('(RayWorkerWrapper')
    const workerLogs = [...files].filter(([name]) => name.startsWith('bundle/nodes/spark-b/ray/worker-'))
    expect(
      workerLogs.some(([, text]) => text.includes('Starting to load model')),
      [...files.keys()].join(', '),
    ).toBe(true)
    expect(files.get('bundle/timeline.txt')).toContain('spark-b stalled in weights loading')
    const index = JSON.parse(files.get('bundle/bundle.json')!)
    expect(index.files.map((f: { path: string }) => `bundle/${f.path}`)).toEqual([...files.keys()].filter((k) => k !== 'bundle/bundle.json'))
    expect([...files.values()].reduce((s, t) => s + Buffer.byteLength(t), 0)).toBeLessThan(4 * 1024 * 1024)
    for (const [name, text] of files) for (const secret of Object.values(PLANTED)) expect(text, name).not.toContain(secret)
    expect(files.get('bundle/manifest.effective.json')).toContain('"VRD_TEST_API_TOKEN": "***"')
  }, 600_000)

  it("spark-b dies in weights loading, the head's engine after it: the worker's line first, the head's cascade under it", async () => {
    const o = await deployTask(faulty({ VLLM_STANDIN_DIE_IN: 'weights-loading' }), {
      credentials: creds,
      env: process.env,
      release: 's2',
      onProgress: progress,
    })
    const r = o.json as RolloutReport
    if (process.env.VRD_DUMP_BUNDLE)
      for (const f of o.files) {
        const p = join(process.env.VRD_DUMP_BUNDLE, f.fileName)
        mkdirSync(dirname(p), { recursive: true })
        writeFileSync(p, f.content)
      }
    expect(o.exitCode, o.text).toBe(1)
    const first = r.findings.find((f) => f.code === 'STARTUP_FIRST_FAILURE')
    expect(first, o.text).toBeDefined()
    expect(r.findings.indexOf(first!), 'the first failure leads the findings').toBe(0)
    expect(first!.node, o.text).toBe('spark-b')
    expect(first!.evidence['first failure']).toContain('Error executing method')
    expect(
      Object.keys(first!.evidence).some((k) => k.startsWith('then spark-a')),
      JSON.stringify(first!.evidence),
    ).toBe(true)
  }, 600_000)
})

describe.sequential('the lab scenarios with a worker fault (vllm-ray-deploy lab scenario NAME --serve)', () => {
  it('worker-stalls-loading: "spark-b stalled in weights loading" at the lab\'s 30 s budget, not at the 180 s deadline', async () => {
    const r = await runLabScenario('worker-stalls-loading', { serve: true, onProgress: progress })
    expect(r.execution.ok).toBe(true)
    expect(r.vllm).toMatchObject({ ready: false, stalled: true })
    expect(r.vllm!.reason).toMatch(/^spark-b stalled in weights loading for (3\d|40) s/)
    expect(r.vllm!.findings[0]).toMatchObject({ code: 'STARTUP_PHASE_STALLED', node: 'spark-b' })
  }, 600_000)

  it("worker-dies-loading: the worker's line is the first failure", async () => {
    const r = await runLabScenario('worker-dies-loading', { serve: true, onProgress: progress })
    expect(r.vllm?.ready).toBe(false)
    expect(r.vllm!.findings[0]).toMatchObject({ code: 'STARTUP_FIRST_FAILURE', node: 'spark-b' })
  }, 600_000)
})
