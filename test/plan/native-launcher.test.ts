/** The built-in launcher with vLLM's native executor (vllm.executorBackend: mp): no Ray anywhere, ranks by construction. */
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { releaseFiles } from '../../src/deploy/release-files.js'
import { planRollout } from '../../src/deploy/rollout-plan.js'
import { loadManifestFile } from '../../src/manifest/load-manifest.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { nodeRank } from '../../src/plan/executor-commands.js'
import { vllmServeArgv } from '../../src/plan/node-commands.js'
import { planRelease } from '../../src/plan/plan.js'

const EXAMPLE = fileURLToPath(new URL('../../src/manifest/examples/dgx-spark-pair.yml', import.meta.url))
const ID = `sha256:${'cd'.repeat(32)}`
const meta = { who: 'tester', createdAt: '2026-12-04T13:00:00.000Z' }
let ray: Manifest
let mp: Manifest
/** Three nodes, the head listed last: ranks follow the role, not the list position. */
let three: Manifest

beforeAll(async () => {
  ray = (await loadManifestFile(EXAMPLE)).manifest!
  mp = { ...ray, vllm: { ...ray.vllm, executorBackend: 'mp', masterPort: 29600 } }
  const [head, worker] = mp.nodes
  three = {
    ...mp,
    nodes: [
      { ...worker!, name: 'w1' },
      { ...worker!, name: 'w2', fabricIp: '192.168.200.14' },
      { ...head!, name: 'h' },
    ],
    vllm: { ...mp.vllm, tensorParallelSize: 3 },
  }
})

const flag = (args: readonly string[], name: string) => args[args.indexOf(name) + 1]

describe('native executor: the built-in launcher', () => {
  it('the head serves with --nnodes, rank 0 and its own fabric IP as master; each other node is --headless with its own rank', () => {
    const head = three.nodes.find((n) => n.role === 'head')!
    const headArgs = vllmServeArgv(three, head)
    expect(flag(headArgs, '--distributed-executor-backend')).toBe('mp')
    expect([flag(headArgs, '--nnodes'), flag(headArgs, '--node-rank'), flag(headArgs, '--master-addr'), flag(headArgs, '--master-port')]).toEqual([
      '3',
      '0',
      head.fabricIp,
      '29600',
    ])
    expect(headArgs).not.toContain('--headless')
    const ranks = three.nodes.map((n) => nodeRank(three, n))
    expect(ranks).toEqual([1, 2, 0])
    for (const w of three.nodes.filter((n) => n.role === 'worker')) {
      const a = vllmServeArgv(three, w)
      expect(a).toContain('--headless')
      expect(flag(a, '--master-addr')).toBe(head.fabricIp)
      expect(flag(a, '--node-rank')).toBe(String(nodeRank(three, w)))
    }
    // Ray's executor keeps its head-only serve without the native flags.
    expect(vllmServeArgv(ray)).not.toContain('--nnodes')
    expect(flag(vllmServeArgv(ray), '--distributed-executor-backend')).toBe('ray')
  })

  it('every node gets a start.sh without ray and a serve.sh; under ray only the head has serve.sh', () => {
    for (const n of mp.nodes) {
      const files = releaseFiles({ manifest: mp, release: 'r1', imageId: ID }, n, meta)
      expect(files['start.sh']!.content).toContain(`--entrypoint sleep ${ID} infinity`)
      expect(files['start.sh']!.content).not.toMatch(/--entrypoint ray|\bray start\b/)
      expect(files['start.sh']!.content).toContain(`VLLM_HOST_IP=${n.fabricIp}`)
      expect(files['serve.sh']!.content).toContain(`--node-rank ${nodeRank(mp, n)}`)
    }
    const worker = ray.nodes.find((n) => n.role === 'worker')!
    expect(Object.keys(releaseFiles({ manifest: ray, release: 'r1', imageId: ID }, worker, meta))).not.toContain('serve.sh')
  })

  it('the plan: no Ray phases or steps, vllm serve on every node at once, the rendezvous named in the vllm phase', () => {
    const p = planRelease(mp, { release: 'r1', files: 'write' })
    expect(p.phases.map((x) => x.name)).toEqual(['release-files', 'stop-previous', 'launch-head', 'launch-workers', 'preflight', 'vllm', 'smoke'])
    const all = p.phases.flatMap((x) => x.steps)
    expect(all.filter((s) => /ray/.test(s.action) || /\bray (start|status)\b/.test(s.command))).toEqual([])
    const vllm = p.phases.find((x) => x.name === 'vllm')!
    expect(vllm.parallel).toBe(true)
    expect(vllm.steps.map((s) => s.node)).toEqual(mp.nodes.map((n) => n.name))
    expect(vllm.description).toContain(`joined the process group at ${mp.nodes[0]!.fabricIp}:29600`)
  })

  it("plan's output shows what each node's files run (the rendered serve and start commands)", () => {
    const p = planRollout(mp, { release: 'r1' })
    const serve = p.phases.find((x) => x.name === 'vllm')!.steps
    expect(serve.map((s) => s.runs?.command ?? '')).toEqual([expect.stringContaining('--node-rank 0'), expect.stringContaining('--headless')])
    const start = p.phases.find((x) => x.name === 'launch-head')!.steps[0]!
    expect(start.action).toBe('node-start')
    expect(start.runs?.command).toContain('--entrypoint sleep')
  })
})
