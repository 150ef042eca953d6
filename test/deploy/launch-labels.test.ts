/**
 * The launch's labels name what happens, from one place (src/plan/plan.ts `launchLabels`): Ray's
 * names (ray-head, ray-workers, ray-start, ray-ready, ray-cluster) only where this tool starts Ray
 * itself; vLLM's native executor and a launch script get launch-head / launch-workers / node-start,
 * and the Ray cluster wait only where Ray runs. Held in the plan, the progress lines, the log groups
 * (onStage), the report's failure stage and the job summary, for every executor × launch mode.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ok } from '../../src/result/result.js'
import { deployRelease } from '../../src/deploy/rollout.js'
import type { RolloutOptions } from '../../src/deploy/rollout-types.js'
import type { SmokeGate } from '../../src/deploy/smoke-seam.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { launchLabels, planRelease } from '../../src/plan/plan.js'
import { rolloutOutcome } from '../../src/tasks/deploy-task.js'
import { preflightTask } from '../../src/tasks/preflight.js'
import { SimCluster, simManifest } from './support/sim-cluster.js'

const ray = () => simManifest()
const mp = () =>
  simManifest((doc) => {
    delete doc.ray
    ;(doc.vllm as Record<string, unknown>).executorBackend = 'mp'
  })
const script = (m: Manifest): Manifest => ({ ...m, launch: { mode: 'script', path: 'launch.sh', args: [], env: {} } })

const RAY_WORDS = /\bray-(head|workers|start|ready|cluster)\b/

const SOURCES: readonly { name: string; m: () => Manifest; phases: string[]; actions: string[] }[] = [
  {
    name: 'built-in launcher, Ray executor',
    m: ray,
    phases: ['release-files', 'stop-previous', 'ray-head', 'ray-workers', 'ray-cluster', 'preflight', 'vllm', 'smoke'],
    actions: ['ray-start', 'ray-ready', 'ray-start', 'ray-cluster'],
  },
  {
    name: 'built-in launcher, native executor (mp)',
    m: mp,
    phases: ['release-files', 'stop-previous', 'launch-head', 'launch-workers', 'preflight', 'vllm', 'smoke'],
    actions: ['node-start', 'node-start'],
  },
  {
    name: 'launch script, Ray executor (the script starts Ray: the cluster wait stays)',
    m: () => script(ray()),
    phases: ['release-files', 'stop-previous', 'launch-head', 'launch-workers', 'ray-cluster', 'preflight', 'vllm', 'smoke'],
    actions: ['node-start', 'node-start', 'ray-cluster'],
  },
  {
    name: 'launch script, native executor (mp)',
    m: () => script(mp()),
    phases: ['release-files', 'stop-previous', 'launch-head', 'launch-workers', 'preflight', 'vllm', 'smoke'],
    actions: ['node-start', 'node-start'],
  },
]

describe('the launch phases and steps in the plan', () => {
  for (const s of SOURCES)
    it(s.name, () => {
      const m = s.m()
      const p = planRelease(m, { release: 'r1', files: 'write' })
      expect(p.phases.map((x) => x.name)).toEqual(s.phases)
      const l = launchLabels(m)
      const launch = p.phases.filter((x) => [l.head, l.workers, l.cluster].includes(x.name)).flatMap((x) => x.steps.map((st) => st.action))
      expect(launch).toEqual(s.actions)
      if (m.vllm.executorBackend === 'mp') {
        expect(JSON.stringify(p)).not.toMatch(RAY_WORDS)
        // The head's facts step reads no Ray node list where no Ray runs.
        expect(
          p.phases
            .find((x) => x.name === 'preflight')!
            .steps.map((st) => st.description)
            .join('\n'),
        ).not.toMatch(/Ray/)
      }
    })
})

const passing: SmokeGate = async () => ({ ok: true, findings: [], text: 'smoke passed', outputs: { verdict: 'passed' }, summary: '' })
let sim: SimCluster
afterEach(() => sim?.cleanup())

/** vLLM's native group forms on both nodes (what the start-up watcher polls). */
const nativeGroupForms = (s: SimCluster) => {
  s.fail({ node: 'spark-a', when: /@@serving/, result: { code: 0, stderr: '', stdout: '@@serving\n@@listen vllm\n@@peer 172.30.200.13 vllm\n@@log\n' } })
  s.fail({ node: 'spark-b', when: /@@serving/, result: { code: 0, stderr: '', stdout: '@@serving\n@@client 172.30.200.12 172.30.200.13\n@@log\n' } })
}

async function rollout(m: Manifest, release = 'r1', before?: (s: SimCluster) => void) {
  sim = new SimCluster(m)
  if (m.vllm.executorBackend === 'mp') nativeGroupForms(sim)
  before?.(sim)
  const progress: string[] = []
  const stages: string[] = []
  const o: RolloutOptions = {
    manifest: m,
    manifestPath: '/nonexistent/manifest.yml',
    transports: sim.transports(),
    env: {},
    release,
    who: 'test',
    smoke: passing,
    onProgress: (l) => progress.push(l),
    onStage: (st, e) => e === 'start' && stages.push(st),
  }
  const r = await deployRelease(o)
  return { r, progress, stages, out: rolloutOutcome('lab', r, m) }
}

describe('a rollout says what its launch did', () => {
  it('native executor: no Ray label in the progress, the log groups, the report or the job summary; the identity check is named as native', async () => {
    const { r, progress, stages, out } = await rollout(mp())
    expect(r.result, JSON.stringify(r.failure)).toBe('deployed')
    expect(stages).toEqual(expect.arrayContaining(['launch-head', 'launch-workers']))
    expect(progress.filter((l) => / (launch-head|launch-workers): \[spark-[ab]\] node-start: start release r1/.test(l))).toHaveLength(2)
    for (const text of [progress.join('\n'), stages.join(' '), out.text, out.summary, JSON.stringify(out.json)]) expect(text).not.toMatch(RAY_WORDS)
    expect(out.summary).toContain('**fabric test, native-mode identity preflight, smoke test:** no findings.')
    expect(out.summary).toContain("vLLM's native-mode identities (ranks, master address, fabric variables) as the preflight gate saw them")
    expect(out.summary).not.toMatch(/Ray identity preflight|Ray and vLLM identities/)
    // The text report's node table: each node's rank, not a Ray identity.
    expect(out.text).toMatch(/^NODE +ROLE +RELEASE +IMAGE ID +NATIVE RANK +STATE$/m)
    expect(out.text).toMatch(/^spark-b +worker +r1 +\w+ +rank 1 +running r1$/m)
    expect(out.text).not.toMatch(/RAY IDENTITY/)
  })

  it("Ray executor: Ray's own labels, and a failure at the head's start is reported at ray-head", async () => {
    const ok = await rollout(ray())
    expect(ok.r.result).toBe('deployed')
    expect(ok.stages).toEqual(expect.arrayContaining(['ray-head', 'ray-workers', 'ray-cluster']))
    expect(ok.out.summary).toContain('**fabric test, Ray identity preflight, smoke test:** no findings.')
    expect(ok.out.text).toMatch(/^NODE +ROLE +RELEASE +IMAGE ID +RAY IDENTITY +STATE$/m)
    const bad = await rollout(ray(), 'r1', (s) =>
      s.fail({ node: 'spark-a', when: /releases\/r1\/start\.sh$/, result: { code: 1, stdout: '', stderr: 'boom' } }),
    )
    expect(bad.r.failure?.stage).toBe('ray-head')
  })

  it('native executor: a failure at the head start is reported at launch-head, in the report and its headline', async () => {
    const { r, out } = await rollout(mp(), 'r1', (s) =>
      s.fail({ node: 'spark-a', when: /releases\/r1\/start\.sh$/, result: { code: 1, stdout: '', stderr: 'boom' } }),
    )
    expect(r.failure?.stage).toBe('launch-head')
    expect(out.headline).toMatch(/failed at launch-head/)
    expect(out.summary).not.toMatch(RAY_WORDS)
  })
})

describe('the preflight command names the identity check of the executor it checks', () => {
  for (const [name, manifest, check, not] of [
    ['Ray executor', ray, 'Ray identity preflight', 'native-mode identity preflight'],
    ['native executor', mp, 'native-mode identity preflight', 'Ray identity preflight'],
  ] as const)
    it(`${name}: "${check}: no findings" on a healthy cluster`, async () => {
      sim = new SimCluster(manifest())
      const dir = mkdtempSync(join(tmpdir(), 'vrd-labels-'))
      // The sim's manifest as the file the command reads (JSON is YAML).
      writeFileSync(join(dir, 'm.yml'), JSON.stringify(sim.manifest))
      const transports = sim.transports()
      const out = await preflightTask(join(dir, 'm.yml'), { credentials: { privateKey: 'unused' }, connect: async (_m, n) => ok(transports.get(n.name)!) })
      expect(out.summary).toMatch(new RegExp(`\\*\\*${check}, fabric collective:\\*\\* no findings`))
      expect(out.summary).not.toContain(not)
    })
})
