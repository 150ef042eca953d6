/**
 * `deploy.scriptCheck: block` on the DGX Spark style launch script whose container carries
 * VLLM_HOST_IP and whose head runs `docker exec NAME ray start --head` without --node-ip-address
 * (test/script-check/fixtures/spark-docker-exec.sh): the deploy stops at the script-check stage,
 * before the lock, so nothing on a node changes; the finding carries the patch. Under `warn` the
 * same finding is a warning and the deploy goes on to the nodes.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { deployRelease } from '../../src/deploy/rollout.js'
import { SimCluster, simManifest, simRolloutOptions } from './support/sim-cluster.js'

const FIXTURE = join(__dirname, '..', 'script-check', 'fixtures', 'spark-docker-exec.sh')
let sim: SimCluster | undefined
let dir: string | undefined
afterEach(() => {
  sim?.cleanup()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

function scriptCluster(scriptCheck: 'block' | 'warn'): { sim: SimCluster; manifestPath: string } {
  dir = mkdtempSync(join(tmpdir(), 'vrd-script-check-'))
  copyFileSync(FIXTURE, join(dir, 'launch.sh'))
  sim = new SimCluster(
    simManifest((doc) => {
      doc.launch = { mode: 'script', path: 'launch.sh', allowOutsideRepository: true }
      ;(doc.deploy as Record<string, unknown>).scriptCheck = scriptCheck
    }),
  )
  return { sim, manifestPath: join(dir, 'cluster.yml') }
}

describe('the deploy reads the launch script first (deploy.scriptCheck)', () => {
  it('block: the docker-exec incident stops the deploy before anything on the nodes changes, with the patch', async () => {
    const { sim, manifestPath } = scriptCluster('block')
    const r = await deployRelease(simRolloutOptions(sim, 'r1', { manifestPath, force: true }))
    expect(r.result).toBe('failed')
    expect(r.failure?.stage).toBe('script-check')
    expect(r.failure?.reason).toContain('SCRIPT_HEAD_IDENTITY_UNPINNED')
    expect(r.changed).toBe(false)
    // The only node commands are the report's read of `current` (readlink): no lock, no container, no file.
    expect(sim.log.length).toBeLessThanOrEqual(2)
    for (const l of sim.log) {
      expect(l.command).toMatch(/^sh -c 'd=\$1; c=\$2; f=\$3\ncur=\$\(readlink /)
      expect(l.command).not.toMatch(/deploy\.lock|docker (run|rm|stop)|mkdir|ln -s/)
    }
    const f = r.findings.find((x) => x.code === 'SCRIPT_HEAD_IDENTITY_UNPINNED')!
    expect(f.severity).toBe('error')
    expect(f.node).toBe('spark-a')
    expect(f.patch).toContain('+    docker exec "$NAME" ray start --head --port "$PORT" --node-ip-address=192.168.200.12')
  })

  it('warn: the same finding is a warning and the deploy reaches the nodes', async () => {
    const { sim, manifestPath } = scriptCluster('warn')
    const r = await deployRelease(simRolloutOptions(sim, 'r1', { manifestPath, force: true }))
    expect(r.failure?.stage).not.toBe('script-check')
    expect(r.findings.find((x) => x.code === 'SCRIPT_HEAD_IDENTITY_UNPINNED')?.severity).toBe('warning')
    expect(sim.log.length).toBeGreaterThan(0)
  })
})
