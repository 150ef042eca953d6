/**
 * Verified teardown (issue 38): stop-previous holds the launch until the release current names is
 * gone on every node. Its leftovers (VRD_RELEASE in their environment) are killed and said; one that
 * will not stay dead, or another process on the GPU, stops the deploy before the launch with its PID
 * and command, and on-failure rolls back. The node side (the script) runs on a real process tree
 * below; the stage through real deploys of the simulated cluster.
 */
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { deployRelease } from '../../src/deploy/rollout.js'
import { parseTeardown } from '../../src/deploy/teardown.js'
import { TEARDOWN_LEFT, TEARDOWN_PY } from '../../src/plan/teardown-commands.js'
import { SimCluster, simManifest, simRolloutOptions } from './support/sim-cluster.js'

let sim: SimCluster
afterEach(() => sim?.cleanup())

describe('stop-previous waits for the old release to be gone (simulated cluster)', () => {
  it("a leftover of the old release is killed and said; the deploy goes on; another's process is never named as killed", async () => {
    sim = new SimCluster(simManifest())
    await deployRelease(simRolloutOptions(sim, 'r1'))
    sim.leftovers.set('spark-b', [{ pid: 4242, command: 'python3 -m vllm.v1.engine.core_worker', ours: true }])
    const lines: string[] = []
    const r = await deployRelease(simRolloutOptions(sim, 'r2', { force: true, onProgress: (l) => lines.push(l) }))
    expect(r.result).toBe('deployed')
    expect(lines.join('\n')).toMatch(/teardown on spark-b: release r1; killed 1 leftover process\(es\): 4242 python3 -m vllm\.v1\.engine\.core_worker/)
    expect(lines.join('\n')).toMatch(/teardown on spark-a: release r1; nothing of it left, no process on the GPU/)
  })

  it('one that will not stay dead stops the deploy before the launch with its PID and command; the rollback meets it too and says so', async () => {
    sim = new SimCluster(simManifest())
    await deployRelease(simRolloutOptions(sim, 'r1'))
    sim.leftovers.set('spark-b', [{ pid: 777, command: 'ray::RayWorkerWrapper', ours: true, stays: true }])
    const r = await deployRelease(simRolloutOptions(sim, 'r2', { force: true }))
    expect(r.result).toBe('failed')
    expect(r.failure?.stage).toBe('stop-previous')
    const f = r.findings.find((x) => x.code === 'PREVIOUS_RELEASE_NOT_GONE')!
    expect(f).toMatchObject({ node: 'spark-b', severity: 'error' })
    expect(f.evidence['pid 777']).toMatch(/ray::RayWorkerWrapper \(release r1: VRD_RELEASE in its environment\)/)
    expect(f.fix).toMatch(/what restarts it/)
    // No bare step failure beside it for that node, and nothing of r2 was launched.
    expect(r.findings.filter((x) => x.code === 'DEPLOY_STEP_FAILED' && x.node === 'spark-b')).toEqual([])
    expect(sim.log.filter((l) => l.command.includes('releases/r2/start.sh'))).toEqual([])
    // The rollback to r1 stops at the same leftover: r1 is not started beside its own old worker.
    expect(r.onFailure).toMatchObject({ action: 'rollback', ok: false })
    expect(r.onFailure?.detail).toMatch(/rollback to r1 failed: stop-previous: .*would not stay dead/)
  })

  it('another process holding the GPU is named and left alone', async () => {
    sim = new SimCluster(simManifest())
    await deployRelease(simRolloutOptions(sim, 'r1'))
    sim.leftovers.set('spark-a', [{ pid: 5150, command: 'python3 train.py', ours: false, gpuMiB: '61000' }])
    const r = await deployRelease(simRolloutOptions(sim, 'r2', { force: true, onFailure: 'stop' }))
    expect(r.failure?.stage).toBe('stop-previous')
    const f = r.findings.find((x) => x.code === 'PREVIOUS_RELEASE_NOT_GONE')!
    expect(f.message).toMatch(/1 other process\(es\) hold the GPU/)
    expect(f.evidence['pid 5150']).toBe('python3 train.py (GPU 61000 MiB) (not this release: left alone)')
  })
})

describe('the teardown script on a real process tree', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  })
  /** A state directory whose current names `release`, and `docker`/`nvidia-smi` that find nothing. */
  function stateFor(release: string): { state: string; env: NodeJS.ProcessEnv } {
    const root = mkdtempSync(join(tmpdir(), 'vrd-teardown-'))
    dirs.push(root)
    const state = join(root, 'state')
    mkdirSync(join(state, 'releases', release), { recursive: true })
    symlinkSync(join(state, 'releases', release), join(state, 'current'))
    const bin = join(root, 'bin')
    mkdirSync(bin)
    for (const tool of ['docker', 'nvidia-smi']) spawnSync('sh', ['-c', `printf '#!/bin/sh\\nexit 0\\n' > ${bin}/${tool} && chmod +x ${bin}/${tool}`])
    // No dockerd at DOCKER_HOST: the script asks the (fake) docker CLI.
    return { state, env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, DOCKER_HOST: `unix://${root}/no-dockerd.sock` } }
  }
  const unique = () => `t${process.pid}-${Math.random().toString(36).slice(2, 8)}`

  it("kills a process carrying the release's marker and leaves one of another release (and another cluster) alone", async () => {
    const rel = unique()
    const { state, env } = stateFor(rel)
    const ours = spawn('sleep', ['300'], { env: { ...env, VRD_RELEASE: rel, VRD_CLUSTER: 'lab' }, detached: true, stdio: 'ignore' })
    const other = spawn('sleep', ['300'], { env: { ...env, VRD_RELEASE: `${rel}-other`, VRD_CLUSTER: 'lab' }, detached: true, stdio: 'ignore' })
    const otherCluster = spawn('sleep', ['300'], { env: { ...env, VRD_RELEASE: rel, VRD_CLUSTER: 'elsewhere' }, detached: true, stdio: 'ignore' })
    const gone = new Promise((r) => ours.on('exit', r))
    try {
      const r = spawnSync('python3', ['-c', TEARDOWN_PY, state, 'lab', 'io.vllm-ray-deploy.release', '20'], { env, encoding: 'utf8' })
      expect(r.status, r.stderr).toBe(0)
      const t = parseTeardown(r.stdout, 'here')
      expect(t.ok && t.value.killed.map((k) => k.pid)).toEqual([ours.pid])
      expect(t.ok && t.value.left).toEqual([])
      await gone
      expect(other.exitCode).toBeNull()
      expect(otherCluster.exitCode).toBeNull()
    } finally {
      for (const p of [ours, other, otherCluster]) p.kill('SIGKILL')
    }
  }, 60_000)

  it('a marked process a supervisor restarts is left at the deadline: exit 3, its PID and command', async () => {
    const rel = unique()
    const { state, env } = stateFor(rel)
    // The supervisor carries no marker; each child it starts does.
    const sup = spawn('sh', ['-c', `while true; do VRD_RELEASE=${rel} sleep 300 & wait $!; done`], { env, detached: true, stdio: 'ignore' })
    try {
      const r = spawnSync('python3', ['-c', TEARDOWN_PY, state, 'lab', 'io.vllm-ray-deploy.release', '3'], { env, encoding: 'utf8' })
      expect(r.status).toBe(TEARDOWN_LEFT)
      const t = parseTeardown(r.stdout, 'here')
      expect(t.ok && t.value.left.length).toBe(1)
      expect(t.ok && t.value.left[0]).toMatchObject({ command: 'sleep 300', ours: true })
    } finally {
      process.kill(-sup.pid!, 'SIGKILL')
    }
  }, 60_000)

  it("removes the release's containers of this cluster (or of none: a launch script's own), never another cluster's", () => {
    const rel = unique()
    const { state, env } = stateFor(rel)
    const bin = (env.PATH ?? '').split(':')[0]!
    const log = join(bin, '..', 'docker.log')
    // docker ps answers three containers with the release label: this cluster's, another's, one with no
    // cluster label; as the real CLI, only to a format it can run: `index .Labels` fails there
    // (test/fixtures/hardware/lab-docker-cli-ps-release.txt), `.Label "k"` reads one label.
    const refused = readFileSync('test/fixtures/hardware/lab-docker-cli-ps-release.txt', 'utf8').split('\n')[4]!
    writeFileSync(
      join(bin, 'docker'),
      `#!/bin/sh\nif [ "$1" = ps ]; then case "$*" in *'index .Labels'*) echo '${refused}' >&2; exit 1 ;; *'.Label "io.vllm-ray-deploy.cluster"'*) printf 'aaa111 lab\\nbbb222 elsewhere\\nccc333 \\n' ;; esac; else echo "$*" >> ${log}; fi\n`,
    )
    chmodSync(join(bin, 'docker'), 0o755)
    const r = spawnSync('python3', ['-c', TEARDOWN_PY, state, 'lab', 'io.vllm-ray-deploy.release', '5'], { env, encoding: 'utf8' })
    expect(r.status, r.stderr).toBe(0)
    const t = parseTeardown(r.stdout, 'here')
    expect(t.ok && t.value.containers).toEqual(['aaa111', 'ccc333'])
    expect(spawnSync('cat', [log], { encoding: 'utf8' }).stdout).toBe('rm -f aaa111\nrm -f ccc333\n')
  })

  it("reads the release's containers from dockerd's socket where the CLI would ask it: no docker ps", async () => {
    const { state, env } = stateFor('20261206T050359Z')
    const bin = (env.PATH ?? '').split(':')[0]!
    const log = join(bin, '..', 'docker.log')
    writeFileSync(join(bin, 'docker'), `#!/bin/sh\necho "$*" >> ${log}\n`)
    chmodSync(join(bin, 'docker'), 0o755)
    // A dockerd answering the teardown's query with a lab node's answer (its release container, cluster lab).
    const sock = join(bin, '..', 'docker.sock')
    const asked: string[] = []
    const answer = readFileSync('test/fixtures/hardware/lab-docker-api-ps-release.txt', 'utf8').split('\n').slice(1).join('\n')
    const server = createServer((c) =>
      c.once('data', (req) => {
        asked.push(decodeURIComponent(req.toString('latin1').split(' ')[1] ?? ''))
        c.end(answer)
      }),
    )
    await new Promise<void>((ok) => server.listen(sock, ok))
    try {
      const child = spawn('python3', ['-c', TEARDOWN_PY, state, 'lab', 'io.vllm-ray-deploy.release', '5'], { env: { ...env, DOCKER_HOST: `unix://${sock}` } })
      let out = ''
      child.stdout.on('data', (b) => (out += b))
      expect(await new Promise((ok) => child.on('close', ok))).toBe(0)
      expect(asked).toEqual(['/containers/json?all=1&filters={"label": ["io.vllm-ray-deploy.release=20261206T050359Z"]}'])
      const t = parseTeardown(out, 'here')
      expect(t.ok && t.value.containers).toEqual(['d192eb62c022'])
      expect(readFileSync(log, 'utf8')).toBe('rm -f d192eb62c022ab68495a9617fa3c4d78e2abe6dbdec966e6f7928705397df9eb\n')
    } finally {
      server.close()
    }
  })

  it('the teardown output is validated', () => {
    expect(parseTeardown('', 'n')).toMatchObject({ ok: false })
    expect(parseTeardown('{"release":"r1"}', 'n')).toMatchObject({ ok: false })
    expect(parseTeardown('{"release":"r1","containers":[],"killed":[{"pid":"x","command":"y"}],"left":[]}', 'n')).toMatchObject({ ok: false })
    expect(parseTeardown('noise\n{"release":"r1","containers":[],"killed":[],"left":[],"waitedSeconds":0.5}', 'n')).toMatchObject({ ok: true })
  })
})
