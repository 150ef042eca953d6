/**
 * The Action's post step, run the way the runner runs it: `node dist/index.js` with the state the
 * main step saved (STATE_isPost, STATE_vrd-lock) and the step's inputs, against a real sshd on
 * 127.0.0.1 as the head. Needs a local `npm run build` (dist is not committed by this branch).
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { acquireDeployLock, deployLockStatus, releaseDeployLock } from '../../src/deploy/deploy-lock.js'
import { loadManifestFile } from '../../src/manifest/load-manifest.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { deployLockDir } from '../../src/plan/lock-commands.js'
import { pinsFromKnownHosts } from '../../src/transport/host-keys.js'
import type { SshTransport } from '../../src/transport/ssh.js'
import { inputEnv } from '../support/action.js'
import { type LoopbackSshd, startLoopbackSshd } from '../support/sshd.js'
import { sshConnected } from '../support/ssh-connected.js'

let sshd: LoopbackSshd
let dir: string
let manifestPath: string
let manifest: Manifest
let head: SshTransport

function runStep(env: Record<string, string>) {
  const files = { GITHUB_OUTPUT: join(dir, 'output'), GITHUB_STEP_SUMMARY: join(dir, 'summary'), GITHUB_STATE: join(dir, 'state') }
  for (const f of Object.values(files)) writeFileSync(f, '')
  const r = spawnSync('node', [resolve('dist/index.js')], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      RUNNER_TEMP: dir,
      GITHUB_WORKSPACE: resolve('.'),
      ...files,
      ...inputEnv({}),
      ...env,
    },
    encoding: 'utf8',
  })
  return { ...r, state: readFileSync(files.GITHUB_STATE, 'utf8') }
}

const postEnv = (state: string | undefined, key = sshd.clientKey) => ({
  STATE_isPost: 'true',
  ...(state !== undefined && { 'STATE_vrd-lock': state }),
  'INPUT_SSH-PRIVATE-KEY': key,
  INPUT_COMMAND: 'deploy',
  INPUT_MANIFEST: manifestPath,
})
const savedFor = (token: string) => JSON.stringify({ manifest: manifestPath, cluster: manifest.cluster, token, release: 'r1', who: 'ci' })

beforeAll(async () => {
  expect(existsSync('dist/index.js'), 'run `npm run build` first').toBe(true)
  sshd = await startLoopbackSshd()
  dir = mkdtempSync(join(tmpdir(), 'vrd-post-'))
  manifestPath = join(dir, 'cluster.yml')
  writeFileSync(
    manifestPath,
    [
      'version: 1',
      `cluster: post-test-${process.pid}-${Date.now()}`,
      'fabric: { interfaces: [lo], subnet: 127.0.0.0/8 }',
      'nodes:',
      `  - { name: head, role: head, ssh: { host: 127.0.0.1, port: ${sshd.port}, hostKeys: ["${sshd.hostPublicKey}"] }, fabricIp: 127.0.0.1, gpus: 1 }`,
      'image: { ref: "vrd-lab/vllm-standin:latest" }',
      'vllm: { model: m, tensorParallelSize: 1 }',
      '',
    ].join('\n'),
  )
  const loaded = await loadManifestFile(manifestPath)
  expect(loaded.errors).toEqual([])
  manifest = loaded.manifest!
  head = await sshConnected({
    name: 'head',
    host: '127.0.0.1',
    port: sshd.port,
    user: 'root',
    privateKey: sshd.clientKey,
    pins: pinsFromKnownHosts(sshd.knownHosts, '127.0.0.1', sshd.port),
    connectTimeoutMs: 10_000,
  })
})

afterAll(async () => {
  await head?.close()
  await sshd?.stop()
  if (manifest) rmSync(deployLockDir(manifest).replace(/\/deploy\.lock$/, ''), { recursive: true, force: true })
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe("the post step (node dist/index.js with the runner's post-step env)", () => {
  it('the main step marks itself, so the post step can tell it is the post step', () => {
    const r = runStep({ INPUT_COMMAND: 'validate', INPUT_MANIFEST: manifestPath })
    expect(r.status).toBe(0)
    expect(r.state).toMatch(/^isPost<<ghadelimiter_[^\n]+\ntrue\n/)
  })

  it('releases the lock the main step left behind, by its token', async () => {
    const got = await acquireDeployLock(head, manifest, { who: 'ci', run: '99', release: 'r1' })
    expect(got.ok).toBe(true)
    const r = runStep(postEnv(savedFor(got.ok ? got.value.token : '')))
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/vllm-ray-deploy post: released the deploy lock this run left behind: .* released \(ci \(run 99, release r1\)/)
    expect(await deployLockStatus(head, manifest)).toEqual({ held: false })
  })

  it('a lock already gone: says so and succeeds', () => {
    const r = runStep(postEnv(savedFor('a'.repeat(32))))
    expect(r.status).toBe(0)
    expect(r.stdout).toContain('is already released; nothing to do')
    expect(r.stdout).not.toContain('::error')
  })

  it("someone else's lock is left alone", async () => {
    const other = await acquireDeployLock(head, manifest, { who: 'another-run', release: 'r2' })
    expect(other.ok).toBe(true)
    const r = runStep(postEnv(savedFor('b'.repeat(32))))
    expect(r.status).toBe(0)
    expect(r.stdout).toMatch(/now held by another-run \(release r2\).*not by this run: left alone/)
    expect((await deployLockStatus(head, manifest)).holder?.who).toBe('another-run')
    await releaseDeployLock(head, manifest)
  })

  it('no saved lock, a corrupt state, or a head it cannot reach: logged, never a failed job', () => {
    const none = runStep(postEnv(undefined))
    expect(none.status).toBe(0)
    expect(none.stdout).toContain('this run holds no deploy lock; nothing to release')
    const corrupt = runStep(postEnv('{"manifest":'))
    expect(corrupt.status).toBe(0)
    expect(corrupt.stdout).toMatch(/::warning::vllm-ray-deploy post: the saved lock state is not JSON/)
    const wrongKey = runStep(postEnv(savedFor('c'.repeat(32)), 'not a key'))
    expect(wrongKey.status).toBe(0)
    expect(wrongKey.stdout).toMatch(/::warning::vllm-ray-deploy post: cannot reach the head head/)
  })
})
