/**
 * The rollout's stages and the list runner's failure paths, on simulated nodes (support/sim-cluster.ts:
 * the state commands run for real on a temporary disk, Docker, Ray and vLLM are simulated, every
 * command is recorded). Each on-failure path: stop, rollback with no earlier release, a rollback
 * that itself fails, a smoke failure mid-deploy, and pruning by releasesKept.
 */
import { option } from '../../src/command/option-words.js'
import { render } from '../../src/command/shell.js'
import { afterEach, describe, expect, it } from 'vitest'
import { deployRelease, rollbackRelease, startUntilRay } from '../../src/deploy/rollout.js'
import type { RolloutOptions, RolloutReport } from '../../src/deploy/rollout-types.js'
import type { SmokeGate } from '../../src/deploy/smoke-seam.js'
import type { Finding } from '../../src/preflight/finding.js'
import { SimCluster, healthyProbe, hostCapture, simManifest } from './support/sim-cluster.js'

const passing: SmokeGate = async () => ({ ok: true, findings: [], text: 'smoke passed', outputs: { verdict: 'passed' }, summary: '' })
const smokeFinding: Finding = {
  code: 'SMOKE_HTTP_ERROR',
  severity: 'error',
  node: 'spark-a',
  message: 'The completion request failed.',
  evidence: { status: '500' },
  fix: 'Read the vLLM log.',
}
const failing: SmokeGate = async () => ({ ok: false, findings: [smokeFinding], text: 'smoke failed', outputs: { verdict: 'failed' }, summary: '' })

let sim: SimCluster
afterEach(() => sim?.cleanup())

function options(s: SimCluster, extra: Partial<RolloutOptions> = {}): RolloutOptions & { lines: string[]; stages: string[] } {
  const lines: string[] = []
  const stages: string[] = []
  return {
    manifest: s.manifest,
    manifestPath: '/nonexistent/manifest.yml',
    transports: s.transports(),
    env: {},
    release: 'r1',
    who: 'test',
    smoke: passing,
    onProgress: (m) => lines.push(m),
    onStage: (stage, event) => event === 'start' && stages.push(stage),
    ...extra,
    lines,
    stages,
  }
}

const deploy = (s: SimCluster, extra: Partial<RolloutOptions> = {}) => deployRelease(options(s, extra))
const current = async (s: SimCluster, node = 'spark-a') =>
  (await s.sh(node, `readlink ${s.stateDir(node)}/current || true`)).stdout.trim().replace(/^releases\//, '')
const releases = async (s: SimCluster, node = 'spark-a') => (await s.sh(node, `ls ${s.stateDir(node)}/releases`)).stdout.trim().split('\n').filter(Boolean)
const lockHeld = async (s: SimCluster) => (await s.sh('spark-a', `test -d ${s.stateDir('spark-a')}/deploy.lock && echo held || echo free`)).stdout.trim()
const audit = async (s: SimCluster) =>
  (await s.sh('spark-b', `cat ${s.stateDir('spark-b')}/audit.jsonl`)).stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { release: string; result: string; rolledBack: boolean })

async function deployed(s: SimCluster, release: string): Promise<RolloutReport> {
  const r = await deploy(s, { release, force: true })
  expect(r.result, JSON.stringify(r.failure)).toBe('deployed')
  return r
}

describe('a deploy through every stage', () => {
  it('a cold deploy runs the stages in order, ends serving with current on every node, audits and unlocks', async () => {
    sim = new SimCluster(simManifest())
    const o = options(sim)
    const r = await deployRelease(o)
    expect(r.result, JSON.stringify(r.failure)).toBe('deployed')
    expect(r).toMatchObject({ command: 'deploy', release: 'r1', changed: true, rolledBack: false, imageId: sim.imageId })
    expect(r.previousRelease).toBeUndefined()
    expect(o.stages).toEqual([
      'inputs',
      'script-check',
      'lock',
      'state',
      'host-checks',
      'image',
      'image-contents',
      'fingerprint',
      'fabric-test',
      'fit',
      'release-files',
      'stop-previous',
      'ray-head',
      'ray-workers',
      'ray-cluster',
      'preflight',
      'vllm',
      'smoke',
      'activate',
      'prune',
      'audit',
      'report',
    ])
    expect([await current(sim, 'spark-a'), await current(sim, 'spark-b')]).toEqual(['r1', 'r1'])
    expect(r.nodes.map((n) => [n.release, n.state])).toEqual([
      ['r1', 'running r1'],
      ['r1', 'running r1'],
    ])
    expect(await lockHeld(sim)).toBe('free')
    expect(await audit(sim)).toMatchObject([{ release: 'r1', result: 'deployed', rolledBack: false }])
    // The preflight's probe took what a start does not change from the host checks' facts of this
    // deploy (issue 40: no second docker info, nvidia-smi, CDI walk per node); the host checks read it all.
    const probes = sim.log.filter((e) => e.command.startsWith('python3 - '))
    expect(
      probes.map((e) => [e.node, JSON.parse(e.command.slice('python3 - '.length).replace(/^'|'$/g, '')).exec, Object.keys(e.knownHost ?? {}).sort()]),
    ).toEqual([
      ['spark-a', false, []],
      ['spark-b', false, []],
      // The sim's host captures predate the NVIDIA tooling and OOM guard fields: only what was read is taken.
      ['spark-a', true, ['cudaVersion', 'docker']],
      ['spark-b', true, ['cudaVersion', 'docker']],
    ])
    // The snapshot carries its version.
    const snap = JSON.parse((await sim.sh('spark-a', `cat ${sim.stateDir('spark-a')}/releases/r1/manifest.json`)).stdout)
    expect(snap.snapshotVersion).toBe(2)
  })

  it('the same content again restarts nothing and says unchanged; the gates still run', async () => {
    sim = new SimCluster(simManifest())
    await deploy(sim)
    const before = sim.log.length
    const o = options(sim, { release: 'r2' })
    const r = await deployRelease(o)
    expect(r).toMatchObject({ result: 'unchanged', release: 'r1', previousRelease: 'r1', changed: false })
    const after = sim.log.slice(before).map((l) => l.command)
    expect(after.filter((c) => /start\.sh|serve\.sh|docker rm -f/.test(c))).toEqual([])
    expect(r.image).toEqual({ bytesSent: 0, actions: { 'spark-a': 'up-to-date', 'spark-b': 'up-to-date' } })
    expect(o.stages).toContain('preflight')
    expect(o.stages).toContain('smoke')
    expect(o.stages).not.toContain('release-files')
  })

  it('an unchanged release whose own gates fail changes nothing and says so', async () => {
    sim = new SimCluster(simManifest())
    await deploy(sim)
    const r = await deploy(sim, { release: 'r2', smoke: failing })
    expect(r).toMatchObject({ result: 'failed', changed: false, failure: { stage: 'smoke' } })
    expect(r.onFailure).toEqual({
      action: 'none',
      ok: true,
      detail: `nothing was changed: the running release itself fails its gates (redeploy with ${option('force')})`,
    })
  })

  it('a key outside start/serve that changes what runs is not unchanged (the fingerprint covers the whole manifest)', async () => {
    sim = new SimCluster(simManifest())
    const first = await deploy(sim)
    // ray.port changes where the workers join; no rendered script names it as such a field.
    const changed = simManifest((d) => {
      ;(d.ray as Record<string, unknown>).objectStoreMemoryBytes = 200_000_000
    })
    const again = await deployRelease({ ...options(sim, { release: 'r2' }), manifest: changed })
    expect(again.fingerprint).not.toBe(first.fingerprint)
    expect(again.result).toBe('deployed')
  })
})

describe('each stage stops the rollout before anything changes', () => {
  it('a held lock stops it at lock: no audit line, nothing changed', async () => {
    sim = new SimCluster(simManifest())
    await sim.sh('spark-a', `mkdir -p ${sim.stateDir('spark-a')}/deploy.lock && echo '{}' > ${sim.stateDir('spark-a')}/deploy.lock/holder.json`)
    const r = await deploy(sim)
    expect(r).toMatchObject({ result: 'failed', changed: false, failure: { stage: 'lock' } })
    expect(r.onFailure?.detail).toBe('nothing was changed: another rollout holds the lock')
    expect(sim.ran('spark-b', /audit/)).toEqual([])
  })

  it('a failed host check stops it at host-checks, before the image', async () => {
    sim = new SimCluster(simManifest())
    // The host probe (its host mode: no docker exec) as it prints when docker's daemon is down: no container read.
    const { container: _, ...down } = hostCapture('spark-b')
    const docker = {
      ok: false,
      missing: false,
      error: 'exit 1: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?',
    }
    sim.fail({ node: 'spark-b', when: /^python3 - .*"exec":false/, result: { code: 0, stdout: JSON.stringify({ ...down, host: { ...down.host, docker } }) } })
    const r = await deploy(sim)
    expect(r).toMatchObject({ result: 'failed', changed: false, failure: { stage: 'host-checks' } })
    expect(r.findings.map((f) => f.code)).toContain('DOCKER_UNUSABLE')
    expect(r.onFailure?.detail).toMatch(/host checks come before anything changes/)
    expect(sim.ran('spark-a', /docker pull/)).toEqual([])
    expect(await lockHeld(sim)).toBe('free')
  })

  it('an unreadable node state stops it at state', async () => {
    sim = new SimCluster(simManifest())
    sim.fail({ node: 'spark-b', when: /readlink/, result: { code: 255, stderr: 'connection lost' } })
    const r = await deploy(sim)
    expect(r).toMatchObject({ result: 'failed', changed: false, failure: { stage: 'state' } })
    expect(r.failure?.reason).toMatch(/spark-b/)
  })

  it('a failed pull stops it at image with nothing changed', async () => {
    sim = new SimCluster(simManifest())
    sim.fail({ node: 'spark-b', when: /^docker pull/, result: { code: 1, stderr: 'manifest unknown' } })
    const r = await deploy(sim)
    expect(r).toMatchObject({ result: 'failed', changed: false, failure: { stage: 'image' } })
    expect(r.onFailure?.detail).toBe('nothing was changed on the nodes (the image gate comes first)')
    expect(sim.ran('spark-a', /start\.sh/)).toEqual([])
  })

  it('image.distribution load of an image this machine does not have stops at image, before any node is touched', async () => {
    sim = new SimCluster(
      simManifest((d) => {
        ;(d.image as Record<string, unknown>).distribution = 'load'
      }),
    )
    const saved = process.env.VRD_DOCKER
    // This machine's docker: the simulated one, which has no images.
    process.env.VRD_DOCKER = `${sim.root}/bin/docker`
    try {
      const r = await deploy(sim)
      expect(r).toMatchObject({ result: 'failed', changed: false, failure: { stage: 'image' } })
      expect(r.findings.map((f) => [f.code, f.node])).toContainEqual(['IMAGE_MISSING', null])
      expect(r.failure?.reason).toMatch(/image\.distribution is load, but \S+ is not in this machine's docker/)
      expect(sim.ran('spark-a', /docker load/)).toEqual([])
    } finally {
      if (saved === undefined) delete process.env.VRD_DOCKER
      else process.env.VRD_DOCKER = saved
    }
  })

  it('image.distribution preloaded only checks: present everywhere goes on, missing on one node stops with IMAGE_MISSING there', async () => {
    sim = new SimCluster(
      simManifest((d) => {
        ;(d.image as Record<string, unknown>).distribution = 'preloaded'
      }),
    )
    sim.node('spark-a').images.set(sim.manifest.image.ref, sim.imageId)
    const missing = await deploy(sim)
    expect(missing).toMatchObject({ result: 'failed', changed: false, failure: { stage: 'image' } })
    expect(missing.findings.map((f) => [f.code, f.node])).toEqual([['IMAGE_MISSING', 'spark-b']])
    sim.node('spark-b').images.set(sim.manifest.image.ref, sim.imageId)
    const r = await deploy(sim)
    expect(r.result, JSON.stringify(r.failure)).toBe('deployed')
    expect(r.image?.actions).toEqual({ 'spark-a': 'present', 'spark-b': 'present' })
    expect(sim.log.filter((l) => l.command.startsWith('docker pull'))).toEqual([])
  })

  it('a cancel before anything changed ends cancelled at image', async () => {
    sim = new SimCluster(simManifest())
    const cancel = new AbortController()
    cancel.abort()
    const r = await deploy(sim, { signal: cancel.signal })
    // No stage starts once the rollout is cancelled: not even the lock is taken.
    expect(r).toMatchObject({ result: 'cancelled', changed: false, failure: { stage: 'inputs' } })
    expect(r.onFailure?.detail).toBe('cancelled at inputs: nothing was changed on the nodes; current was not read (the lock was not taken); it was not touched')
  })

  it('a release id that names other content on the nodes is refused at release-files', async () => {
    sim = new SimCluster(simManifest())
    await deploy(sim)
    const other = simManifest((d) => {
      ;(d.vllm as Record<string, unknown>).args = ['--max-model-len', '128']
    })
    const r = await deployRelease({ ...options(sim, { release: 'r1' }), manifest: other })
    expect(r).toMatchObject({ result: 'failed', changed: false, failure: { stage: 'release-files' } })
    expect(r.failure?.reason).toMatch(/already exists on the nodes with other content/)
  })
})

describe('on-failure, once for every stage', () => {
  it('a smoke failure mid-deploy rolls back to the release current names, which serves again', async () => {
    sim = new SimCluster(simManifest())
    await deployed(sim, 'r1')
    let calls = 0
    const smoke: SmokeGate = async (i) => (++calls === 1 ? failing(i) : passing(i))
    const r = await deploy(sim, { release: 'r2', force: true, smoke })
    expect(r).toMatchObject({ result: 'failed', changed: true, rolledBack: true, failure: { stage: 'smoke' }, previousRelease: 'r1' })
    expect(r.onFailure).toMatchObject({ action: 'rollback', ok: true, release: 'r1' })
    expect([await current(sim, 'spark-a'), await current(sim, 'spark-b')]).toEqual(['r1', 'r1'])
    expect(r.nodes.map((n) => n.state)).toEqual(['running r1', 'running r1'])
    // The rollback verified r1's files and started it from them.
    expect(sim.ran('spark-b', /sha256sum --check/).length).toBe(1)
    expect(sim.ran('spark-b', /releases\/r1\/start\.sh/).length).toBe(2)
    // The rollback's preflight, too, takes the unchanging host facts from the deploy's host checks.
    expect(sim.log.filter((e) => e.command.startsWith('python3 - ') && e.knownHost).length).toBe(2 * 3)
    expect(await audit(sim)).toMatchObject([{ release: 'r1' }, { release: 'r2', result: 'failed', rolledBack: true }])
  })

  it('on-failure stop removes the new containers and leaves current alone', async () => {
    sim = new SimCluster(simManifest())
    await deployed(sim, 'r1')
    const r = await deploy(sim, { release: 'r2', force: true, smoke: failing, onFailure: 'stop' })
    expect(r).toMatchObject({ result: 'failed', changed: true, rolledBack: false })
    expect(r.onFailure).toEqual({ action: 'stop', ok: true, detail: 'stopped the new containers; current still names r1' })
    expect(r.nodes.map((n) => n.state)).toEqual(['no container', 'no container'])
    expect(await current(sim)).toBe('r1')
  })

  it('on-failure keep leaves the failed containers running', async () => {
    sim = new SimCluster(simManifest())
    await deployed(sim, 'r1')
    const r = await deploy(sim, { release: 'r2', force: true, smoke: failing, onFailure: 'keep' })
    expect(r.onFailure).toMatchObject({ action: 'keep', ok: true })
    expect(r.nodes.map((n) => n.state)).toEqual(['running r2', 'running r2'])
    expect(await current(sim)).toBe('r1')
  })

  it('a rollback with no earlier release stops the new containers instead', async () => {
    sim = new SimCluster(simManifest())
    const r = await deploy(sim, { smoke: failing, onFailure: 'rollback' })
    expect(r).toMatchObject({ result: 'failed', changed: true, rolledBack: false })
    expect(r.onFailure).toEqual({
      action: 'stop',
      ok: true,
      detail: 'no earlier release to roll back to, so stopped the new containers instead; current still names (none)',
    })
    expect(r.nodes.map((n) => n.state)).toEqual(['no container', 'no container'])
  })

  it('a rollback that itself fails says where, and reports both failures', async () => {
    sim = new SimCluster(simManifest())
    await deployed(sim, 'r1')
    // The new release fails its preflight (vLLM pinned outside Ray); then r1's own start fails on the worker.
    sim.probe = (node) => healthyProbe(node, sim.imageId, node === 'spark-a' ? '10.9.9.9' : undefined)
    sim.fail({ node: 'spark-b', when: /releases\/r1\/start\.sh/ })
    const r = await deploy(sim, { release: 'r2', force: true })
    expect(r).toMatchObject({ result: 'failed', changed: true, rolledBack: false, failure: { stage: 'preflight' } })
    expect(r.onFailure).toMatchObject({ action: 'rollback', ok: false, release: 'r1' })
    expect(r.onFailure?.detail).toMatch(/^rollback to r1 failed: ray-workers: /)
    expect(r.findings.some((f) => f.code === 'DEPLOY_STEP_FAILED' && f.message.startsWith('(rollback to r1)'))).toBe(true)
    expect(await current(sim)).toBe('r1')
    expect(await lockHeld(sim)).toBe('free')
  })

  it('a cancel mid-launch ends cancelled at its phase, is not rolled back, starts no later step and stops what it started', async () => {
    sim = new SimCluster(simManifest())
    await deployed(sim, 'r1')
    const cancel = new AbortController()
    sim.fail({ node: 'spark-a', when: /releases\/r2\/start\.sh/, result: { code: null, cancelled: true } })
    const o = options(sim, { release: 'r2', force: true, signal: cancel.signal })
    const inner = o.transports.get('spark-a')!
    const wrapped = new Map(o.transports)
    wrapped.set('spark-a', {
      ...inner,
      run: (cmd, opts) => {
        // SIGTERM arrives while the head's start.sh runs.
        if (render(cmd).includes('r2/start.sh')) cancel.abort()
        return inner.run(cmd, opts)
      },
    })
    const r = await deployRelease({ ...o, transports: wrapped })
    expect(r).toMatchObject({ result: 'cancelled', changed: true, rolledBack: false, failure: { stage: 'ray-head' } })
    expect(r.onFailure).toEqual({
      action: 'stop',
      ok: true,
      detail: 'cancelled at ray-head: stopped the containers of r2 it had started; current still names r1',
    })
    expect(sim.ran('spark-b', /r2\/start\.sh/)).toEqual([])
  })

  it('a failed step is DEPLOY_STEP_FAILED naming the step, its node and its command; at release-files nothing ran yet, so on-failure stops nothing', async () => {
    sim = new SimCluster(simManifest())
    await deployed(sim, 'r1')
    sim.fail({ node: 'spark-b', when: /WRITE|hashlib/, result: { code: 1, stderr: 'No space left on device' } })
    const before = sim.log.length
    const r = await deploy(sim, { release: 'r2', force: true, onFailure: 'stop' })
    // The release's files are its own directory: the running r1 was never touched, and on-failure
    // 'stop' must not remove r1's containers (they share the container name with r2's).
    expect(r).toMatchObject({ result: 'failed', changed: false, failure: { stage: 'release-files' } })
    expect(r.onFailure?.action).toBe('none')
    expect(sim.log.slice(before).filter((l) => l.command.includes('docker rm -f'))).toEqual([])
    const f = r.findings.find((x) => x.code === 'DEPLOY_STEP_FAILED')!
    expect(f).toMatchObject({ node: 'spark-b', severity: 'error' })
    expect(f.message).toMatch(/^Step release-files of phase release-files failed on spark-b: exit 1: No space left on device\.$/)
    expect(f.evidence.command).toMatch(/^python3 -c /)
  })

  it('a step that fails once containers changed runs on-failure (stop removes the new containers)', async () => {
    sim = new SimCluster(simManifest())
    await deployed(sim, 'r1')
    sim.fail({ node: 'spark-b', when: /releases\/r2\/start\.sh/, result: { code: 1, stderr: 'ray start failed' } })
    const r = await deploy(sim, { release: 'r2', force: true, onFailure: 'stop' })
    expect(r).toMatchObject({ result: 'failed', changed: true })
    expect(r.onFailure).toMatchObject({ action: 'stop', ok: true })
  })

  it('prunes releases beyond deploy.releasesKept, never current or previous', async () => {
    sim = new SimCluster(
      simManifest((d) => {
        d.deploy = { releasesKept: 2 }
      }),
    )
    for (const id of ['r1', 'r2', 'r3', 'r4']) await deployed(sim, id)
    expect((await releases(sim, 'spark-a')).sort()).toEqual(['r3', 'r4'])
    expect((await releases(sim, 'spark-b')).sort()).toEqual(['r3', 'r4'])
    expect(sim.ran('spark-a', /keep=\$2/).length).toBe(4)
  })
})

describe('rollback runs the same stages from an existing release', () => {
  it('rollback goes to previous and makes it current', async () => {
    sim = new SimCluster(simManifest())
    await deployed(sim, 'r1')
    await deployed(sim, 'r2')
    const r = await rollbackRelease(options(sim))
    expect(r).toMatchObject({ command: 'rollback', result: 'rolled-back', release: 'r1', previousRelease: 'r2', changed: true, rolledBack: true })
    expect(await current(sim)).toBe('r1')
    expect(r.onFailure).toBeUndefined()
  })

  it('with no previous release it says so and changes nothing', async () => {
    sim = new SimCluster(simManifest())
    await deployed(sim, 'r1')
    const r = await rollbackRelease(options(sim))
    expect(r).toMatchObject({ result: 'failed', changed: false, failure: { stage: 'state' } })
    expect(r.failure?.reason).toBe('nothing to roll back to on spark-a: its previous link names no release (current is r1); releases there: r1 (current)')
  })

  it('a release missing on a node is RELEASE_NOT_FOUND', async () => {
    sim = new SimCluster(simManifest())
    await deployed(sim, 'r1')
    const r = await rollbackRelease({ ...options(sim), to: 'r0' })
    expect(r).toMatchObject({ result: 'failed', changed: false, failure: { stage: 'snapshot' } })
    expect(r.findings.map((f) => f.code)).toEqual(['RELEASE_NOT_FOUND'])
  })
})

describe("the lab's scenarios run the deploy's own stages until Ray is up", () => {
  it('image, release files, stop previous, launch and cluster wait, with no lock, no gates and current untouched', async () => {
    sim = new SimCluster(simManifest())
    const r = await startUntilRay(options(sim, { release: 'lab-healthy' }))
    expect(r.ok, JSON.stringify(r.stoppedAt)).toBe(true)
    expect([...new Set(r.results.map((x) => x.phase))]).toEqual(['release-files', 'stop-previous', 'ray-head', 'ray-workers', 'ray-cluster'])
    expect(r.results.every((x) => x.status === 'ok')).toBe(true)
    expect(await current(sim)).toBe('')
    expect(sim.ran('spark-a', /deploy\.lock|audit\.jsonl|@@ready/)).toEqual([])
    expect(sim.node('spark-b').container?.release).toBe('lab-healthy')
  })

  it('a launch that fails stops at its phase', async () => {
    sim = new SimCluster(simManifest())
    sim.fail({ node: 'spark-b', when: /start\.sh/ })
    const r = await startUntilRay(options(sim, { release: 'lab-seed-bug' }))
    expect(r.ok).toBe(false)
    expect(r.stoppedAt).toMatchObject({ stage: 'ray-workers' })
  })
})
