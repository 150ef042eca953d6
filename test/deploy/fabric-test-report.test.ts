/**
 * The fabric test says only what is so: its progress lines state the bytes each rank moved and the
 * path that ran, from the ranks' own result lines (the stdlib ring caps what it moves, whatever the
 * plan asked), and the rollout's report (text, JSON, job summary, the Action's `fabric-test` output)
 * carries every rank's path, time and bus bandwidth, or why the test did not run.
 *
 * Sources: the real program run here on its standard-library path (two ranks over loopback), the
 * real H200 captures of its NCCL and Gloo paths (test/fixtures/hardware/h200), and rollouts on
 * simulated nodes (support/sim-cluster.ts).
 */
import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { argv } from '../../src/command/shell.js'
import { deployRelease, rollbackRelease } from '../../src/deploy/rollout.js'
import type { RolloutOptions } from '../../src/deploy/rollout-types.js'
import { fabricTestRanks } from '../../src/deploy/stages/fabric-test.js'
import type { CollectiveFacts } from '../../src/preflight/facts.js'
import { collectiveOutcomeLine, rankFacts, runCollective } from '../../src/preflight/gather/run-collective.js'
import { COLLECTIVE_BYTES, FREE_PORT_PY } from '../../src/plan/collective-commands.js'
import { COLLECTIVE_MARK, COLLECTIVE_PY, STDLIB_MAX_BYTES } from '../../src/probe/collective-program.js'
import { rolloutOutcome } from '../../src/tasks/deploy-task.js'
import { LocalTransport } from '../../src/transport/local.js'
import type { Transport } from '../../src/transport/transport.js'
import { SimCluster, simManifest, simRolloutOptions } from './support/sim-cluster.js'

/**
 * A node on this machine: the collective's `docker run … python3 -c PROGRAM ARGS` runs the same
 * program directly, its fabric addresses moved to loopback; the free-port probe likewise.
 */
const loopbackNode = (): Transport => {
  const local = new LocalTransport()
  return {
    label: 'loopback',
    run: (cmd, opts) => {
      if (cmd.kind !== 'argv') return local.run(cmd, opts)
      if (cmd.argv.includes(FREE_PORT_PY)) return local.run(argv('python3', '-c', FREE_PORT_PY, '127.0.0.1'), opts)
      const args = { ...JSON.parse(cmd.argv.at(-1)!), addr: '127.0.0.1', ip: '127.0.0.1', iters: 1 }
      return local.run(argv('python3', '-c', COLLECTIVE_PY, JSON.stringify(args)), opts)
    },
    close: () => local.close(),
  }
}

describe('the progress lines of the fabric test', () => {
  it('say what the stdlib path moved (not the 64 MiB the plan asks) and that the stdlib path ran, from the real program', async () => {
    const m = simManifest()
    const lines: string[] = []
    const c = await runCollective(m, new Map(m.nodes.map((n) => [n.name, loopbackNode()])), { image: 'img', onProgress: (l) => lines.push(l) })
    const moved = Math.floor(STDLIB_MAX_BYTES / 8) * 8
    expect(COLLECTIVE_BYTES).toBeGreaterThan(moved)
    expect(c.ranks.map((r) => r.line?.bytes)).toEqual([moved, moved])
    expect(lines.join('\n')).not.toMatch(new RegExp(`${COLLECTIVE_BYTES / 2 ** 20} MiB`))
    expect(lines.filter((l) => /ok in/.test(l)).sort()).toEqual([
      expect.stringMatching(/^\[spark-a\] fabric-test: ok in [\d.]+ s: rank 0, stdlib TCP ring, 4 MiB all-reduced, \d+ ms per all-reduce/),
      expect.stringMatching(/^\[spark-b\] fabric-test: ok in [\d.]+ s: rank 1, stdlib TCP ring, 4 MiB all-reduced, \d+ ms per all-reduce/),
    ])
    expect(lines.at(-1)).toBe('fabric-test: all-reduce of 4 MiB over stdlib TCP ring on 2 of 2 nodes')
  }, 60_000)

  const h200 = (name: string): string[] => {
    const text = readFileSync(`test/fixtures/hardware/h200/collective-${name}.txt`, 'utf8')
    const parts = text.split(/^--- rank \d+$/m).slice(1)
    return parts.length > 0 ? parts : [text.split('\n').slice(1).join('\n')]
  }
  const facts = (outs: string[]): CollectiveFacts => ({
    image: 'img',
    addr: '127.0.0.1',
    port: 1,
    bytes: COLLECTIVE_BYTES,
    timeoutSeconds: 45,
    durationMs: 1,
    ranks: outs.map((o, r) => rankFacts({ name: `n${r}`, fabricIp: '127.0.0.1' }, r, o)),
  })

  it('name NCCL and Gloo, with the bytes their own lines report, from real H200 runs', () => {
    const nccl = facts(h200('nccl-world1'))
    const ncclBytes = nccl.ranks[0]!.line!.bytes!
    expect(collectiveOutcomeLine(nccl)).toBe(`fabric-test: all-reduce of ${ncclBytes / 2 ** 20} MiB over NCCL (torch 2.11.0+cu130) on 1 of 1 nodes`)
    expect(fabricTestRanks(nccl)[0]).toMatchObject({ ok: true, path: 'NCCL (torch 2.11.0+cu130)', ncclNetwork: 'Socket', bytes: ncclBytes })
    expect(collectiveOutcomeLine(facts(h200('gloo-world2-lo')))).toMatch(
      /^fabric-test: all-reduce of [\d.]+ MiB over Gloo \(torch 2\.11\.0\+cu130\) on 2 of 2 nodes$/,
    )
    expect(collectiveOutcomeLine(facts(h200('gloo-ifname-nomatch')))).toMatch(/^fabric-test: no all-reduce completed: 2 of 2 ranks failed \(n0, n1\)$/)
  })
})

let sim: SimCluster
afterEach(() => sim?.cleanup())
const options = (s: SimCluster, release: string, manifest = s.manifest): RolloutOptions => simRolloutOptions(s, release, { manifest })

describe("the rollout's report of the fabric test", () => {
  it('a deploy: every rank with its path, bytes, time and bus bandwidth in the text, the JSON, the job summary and the fabric-test output', async () => {
    sim = new SimCluster(simManifest())
    const r = await deployRelease(options(sim, 'r1'))
    const o = rolloutOutcome('lab', r, sim.manifest)
    expect(r.fabricTest).toEqual({
      status: 'passed',
      ranks: [
        { node: 'spark-a', rank: 0, ok: true, path: 'stdlib TCP ring', bytes: 4 * 2 ** 20, msPerAllReduce: 10, busGBps: 0.4 },
        { node: 'spark-b', rank: 1, ok: true, path: 'stdlib TCP ring', bytes: 4 * 2 ** 20, msPerAllReduce: 10, busGBps: 0.4 },
      ],
    })
    expect(o.text).toContain(
      'fabric test: passed: spark-a rank 0 stdlib TCP ring, 4 MiB, 10.0 ms per all-reduce, bus 0.40 GB/s; spark-b rank 1 stdlib TCP ring, 4 MiB, 10.0 ms per all-reduce, bus 0.40 GB/s',
    )
    expect((o.json as { fabricTest: unknown }).fabricTest).toEqual(r.fabricTest)
    expect(o.summary).toContain(
      [
        '#### Fabric test: passed',
        '',
        '| Node | Rank | Path | All-reduced | Per all-reduce | Bus bandwidth |',
        '| --- | --- | --- | --- | --- | --- |',
        '| spark-a | 0 | ✅ stdlib TCP ring | 4 MiB | 10.0 ms | 0.40 GB/s |',
        '| spark-b | 1 | ✅ stdlib TCP ring | 4 MiB | 10.0 ms | 0.40 GB/s |',
      ].join('\n'),
    )
    expect(o.outputs['fabric-test']).toBe('passed')

    // The same content again: nothing is started, so the fabric test did not run; the report says so.
    const again = rolloutOutcome('lab', await deployRelease(options(sim, 'r2')), sim.manifest)
    expect(again.outputs).toMatchObject({ result: 'unchanged', 'fabric-test': 'skipped' })
    expect(again.summary).toMatch(/\*\*Fabric test:\*\* skipped \(the release is unchanged: nothing was started/)
    expect(again.summary).not.toContain('#### Fabric test')

    // A rollback runs no fabric test and claims none.
    const back = rolloutOutcome('lab', await rollbackRelease({ ...options(sim, 'x'), to: 'r1' }), sim.manifest)
    expect(back.outputs).not.toHaveProperty('fabric-test')
    expect(back.text).not.toMatch(/fabric test/i)
    expect(back.summary).not.toMatch(/fabric test/i)
  })

  it('a failed rank: ❌ with its own error in the table, failed in the output', async () => {
    sim = new SimCluster(simManifest())
    sim.collective = (_node, a) =>
      a.rank === 0
        ? `${COLLECTIVE_MARK}${JSON.stringify({ ok: true, backend: 'tcp', impl: 'stdlib', bytes: 4194304, iters: 5, seconds: 0.02, algbwGBps: 0.2, busbwGBps: 0.2, rank: 0, world: 2 })}\n`
        : `${COLLECTIVE_MARK}${JSON.stringify({ ok: false, stage: 'connect', error: 'TimeoutError: no connection from rank 0 within 45 s', rank: 1, world: 2 })}\n`
    const r = await deployRelease(options(sim, 'r1'))
    const o = rolloutOutcome('lab', r, sim.manifest)
    expect(o.outputs['fabric-test']).toBe('failed')
    expect(o.summary).toContain('| spark-a | 0 | ✅ stdlib TCP ring | 4 MiB | 20.0 ms | 0.20 GB/s |')
    expect(o.summary).toContain('| spark-b | 1 | ❌ in connect: TimeoutError: no connection from rank 0 within 45 s | — | — | — |')
    expect(o.text).toContain('spark-b rank 1 FAILED in connect: TimeoutError: no connection from rank 0 within 45 s')
    // The finding states no size it cannot know.
    expect(r.findings.find((f) => f.code === 'FABRIC_COLLECTIVE_FAILED')?.message).toMatch(/^An all-reduce over the fabric hung/)
  })

  it('preflight.collective: false: disabled, and why, in one line', async () => {
    sim = new SimCluster({ ...simManifest(), preflight: { collective: false, collectiveTimeoutSeconds: 45 } })
    const r = await deployRelease(options(sim, 'r1'))
    const o = rolloutOutcome('lab', r, sim.manifest)
    expect(r.fabricTest).toEqual({ status: 'disabled', reason: 'preflight.collective: false in the manifest' })
    expect(o.outputs['fabric-test']).toBe('disabled')
    expect(o.text).toContain('fabric test: disabled (preflight.collective: false in the manifest)')
    expect(o.summary).toContain('**Fabric test:** disabled (preflight.collective: false in the manifest).')
  })
})
