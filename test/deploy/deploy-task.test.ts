/** deploy and rollback as tasks: the outcome both front doors get, over simulated nodes. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { fail, ok, problem } from '../../src/result/result.js'
import type { SmokeGate } from '../../src/deploy/smoke-seam.js'
import type { DeployTaskOptions } from '../../src/tasks/deploy-task.js'
import { deployTask, rollbackTask } from '../../src/tasks/deploy-task.js'
import { SimCluster, simManifest } from './support/sim-cluster.js'

const passing: SmokeGate = async () => ({ ok: true, findings: [], text: '', outputs: { verdict: 'passed' }, summary: '' })
let sim: SimCluster
let dir: string
afterEach(() => {
  sim?.cleanup()
  rmSync(dir, { recursive: true, force: true })
})

function setup() {
  sim = new SimCluster(simManifest())
  dir = mkdtempSync(join(tmpdir(), 'vrd-task-'))
  const path = join(dir, 'cluster.yml')
  // JSON is YAML: the lab's manifest as written.
  writeFileSync(path, JSON.stringify(sim.manifest))
  const transports = sim.transports()
  return {
    path,
    opts: (extra: Partial<DeployTaskOptions> = {}): DeployTaskOptions => ({
      credentials: { privateKey: 'unused: the nodes are simulated' },
      env: {},
      smoke: passing,
      connect: async (_m, n) => ok(transports.get(n.name)!),
      ...extra,
    }),
  }
}

describe('deploy and rollback tasks', () => {
  it('deploy sets the outputs; rollback after a second deploy goes back', async () => {
    const { path, opts } = setup()
    const first = await deployTask(path, opts({ release: 'r1' }))
    expect(first.exitCode, first.text).toBe(0)
    expect(first.outputs).toMatchObject({ result: 'deployed', release: 'r1', changed: 'true', 'rolled-back': 'false', verdict: 'passed' })
    expect(first.files.map((f) => f.output)).toEqual(['facts-file'])
    expect((await deployTask(path, opts({ release: 'r2', force: true }))).exitCode).toBe(0)
    const back = await rollbackTask(path, opts())
    expect(back.exitCode, back.text).toBe(0)
    expect(back.outputs).toMatchObject({ result: 'rolled-back', release: 'r1', 'previous-release': 'r2' })
  })

  it('a node that cannot be reached fails with nothing changed; a bad on-failure or release id is a usage error', async () => {
    const { path, opts } = setup()
    const unreachable = await deployTask(
      path,
      opts({
        release: 'r1',
        connect: async (_m, n) => {
          if (n.name === 'spark-b') return fail(problem('SSH_CONNECT_FAILED', 'connect ECONNREFUSED 172.30.230.13:22'))
          return ok(sim.transports().get(n.name)!)
        },
      }),
    )
    expect(unreachable.exitCode).toBe(1)
    expect(unreachable.outputs.result).toBe('failed')
    expect(unreachable.headline).toMatch(/cannot reach every node, nothing was changed: spark-b: connect ECONNREFUSED/)
    expect(sim.log).toEqual([])
    const bad = await deployTask(path, opts({ release: 'r1', onFailure: 'retry' }))
    expect(bad.exitCode).toBe(2)
    expect(bad.headline).toBe('on-failure must be one of rollback, stop, keep, got "retry"')
    expect((await rollbackTask(path, opts({ to: '../etc' }))).exitCode).toBe(2)
  })
})
