/**
 * The Action's post step (src/action/post-lock.ts runPost()) in this process, with the state the
 * main step saved (STATE_vrd-lock) and a real sshd on 127.0.0.1 as the head: it releases the lock
 * this run left behind and only that one, and every other path (nothing saved, a corrupt or
 * invalid state, no key, an unreadable manifest, a head it cannot reach, someone else's lock, a
 * lock already gone) is a log line and a step that succeeds. The bundle's post step runs in
 * test/action/post-lock.test.ts.
 */
import { sshConnected } from '../support/ssh-connected.js'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LOCK_STATE, parseSavedLock, runPost } from '../../src/action/post-lock.js'
import { acquireDeployLock, deployLockStatus, releaseDeployLock } from '../../src/deploy/deploy-lock.js'
import { loadManifestFile } from '../../src/manifest/load-manifest.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { LOCK_HOLDER_FILE, deployLockDir } from '../../src/plan/lock-commands.js'
import { shScript } from '../../src/command/shell.js'
import { pinsFromKnownHosts } from '../../src/transport/host-keys.js'
import type { SshTransport } from '../../src/transport/ssh.js'
import { type LoopbackSshd, startLoopbackSshd } from '../support/sshd.js'
import { inProcessStep } from './support/in-process.js'

let sshd: LoopbackSshd
let dir: string
let manifestPath: string
let manifest: Manifest
let head: SshTransport

const token = (c: string) => c.repeat(32)
const saved = (t: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ manifest: manifestPath, cluster: manifest.cluster, token: t, release: 'r1', who: 'ci', ...extra })

/** The post step with this saved state (undefined: none) and these inputs. */
const post = (state: string | undefined, inputs: Record<string, string> = { 'INPUT_SSH-PRIVATE-KEY': sshd.clientKey }) =>
  inProcessStep(runPost, { with: false, env: { STATE_isPost: 'true', ...(state !== undefined && { [`STATE_${LOCK_STATE}`]: state }), ...inputs } })

const lines = (stdout: string) => stdout.split('\n').filter((l) => l !== '' && !l.startsWith('::add-mask::'))

beforeAll(async () => {
  sshd = await startLoopbackSshd()
  dir = mkdtempSync(join(tmpdir(), 'vrd-post-step-'))
  manifestPath = join(dir, 'cluster.yml')
  writeFileSync(
    manifestPath,
    [
      'version: 1',
      `cluster: post-step-${process.pid}-${Date.now()}`,
      'fabric: { interfaces: [lo], subnet: 127.0.0.0/8 }',
      'nodes:',
      `  - { name: head, role: head, ssh: { host: 127.0.0.1, port: ${sshd.port}, hostKeys: ["${sshd.hostPublicKey}"] }, fabricIp: 127.0.0.1, gpus: 1 }`,
      'image: { ref: "vrd-post-step/absent:1" }',
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

describe('the post step, in this process', () => {
  it('releases the lock this run left behind, by its token, and masks the key it reads', async () => {
    const got = await acquireDeployLock(head, manifest, { who: 'ci', run: '7', release: 'r1' })
    if (!got.ok) throw new Error('lock not taken')
    const r = await post(saved(got.value.token))
    expect(r.exitCode).toBeUndefined()
    expect(lines(r.stdout)).toEqual([
      expect.stringMatching(/^vllm-ray-deploy post: released the deploy lock this run left behind: .*\(ci \(run 7, release r1\)/),
    ])
    expect(r.stdout).toContain(`::add-mask::${sshd.clientKey.split('\n')[1]!.trim()}`)
    expect(await deployLockStatus(head, manifest)).toEqual({ held: false })
  })

  it('a lock held under the cluster name it was taken with is found there, whatever the manifest says now', async () => {
    const renamed = { ...manifest, cluster: `${manifest.cluster}-before-rename` }
    const got = await acquireDeployLock(head, renamed, { who: 'ci', release: 'r1' })
    if (!got.ok) throw new Error('lock not taken')
    const r = await post(saved(got.value.token, { cluster: renamed.cluster }))
    expect(lines(r.stdout)[0]).toMatch(/released the deploy lock this run left behind/)
    expect((await deployLockStatus(head, renamed)).held).toBe(false)
    rmSync(deployLockDir(renamed).replace(/\/deploy\.lock$/, ''), { recursive: true, force: true })
  })

  it("someone else's lock is left alone; a lock already gone is said to be gone", async () => {
    const other = await acquireDeployLock(head, manifest, { who: 'another-run', release: 'r2' })
    expect(other.ok).toBe(true)
    const r = await post(saved(token('b')))
    expect(r.exitCode).toBeUndefined()
    expect(lines(r.stdout)).toEqual([expect.stringMatching(/is now held by another-run \(release r2\).*, not by this run: left alone$/)])
    expect((await deployLockStatus(head, manifest)).holder?.who).toBe('another-run')
    await releaseDeployLock(head, manifest)
    const gone = await post(saved(token('c')))
    expect(lines(gone.stdout)).toEqual([`vllm-ray-deploy post: the deploy lock of ${manifest.cluster} is already released; nothing to do`])
  })

  it("a lock whose holder record cannot be read is not this run's to release: left alone, saying so", async () => {
    const lockDir = deployLockDir(manifest)
    const made = await head.run(shScript('mkdir -p "$1" && printf "not json" > "$1/$2"', lockDir, LOCK_HOLDER_FILE), { timeoutMs: 10_000 })
    expect(made.code, made.stderr).toBe(0)
    const r = await post(saved(token('a')))
    expect(r.exitCode).toBeUndefined()
    expect(lines(r.stdout)).toEqual([expect.stringMatching(/is now held by an unreadable record \(.+\), not by this run: left alone$/)])
    expect((await deployLockStatus(head, manifest)).held).toBe(true)
    await releaseDeployLock(head, manifest)
    expect((await deployLockStatus(head, manifest)).held).toBe(false)
  })

  it('nothing saved, or cleared by the main step: nothing to do', async () => {
    for (const state of [undefined, '']) {
      const r = await post(state)
      expect(r.exitCode).toBeUndefined()
      expect(lines(r.stdout)).toEqual(['vllm-ray-deploy post: this run holds no deploy lock; nothing to release'])
    }
  })

  it('every way it cannot release the lock is one warning that says why and what to do, never a failed step', async () => {
    const cases: [string | undefined, Record<string, string>, RegExp][] = [
      ['{"manifest":', {}, /^::warning::vllm-ray-deploy post: the saved lock state is not JSON: "\{\\"manifest\\":"; no lock released$/],
      [saved('not-hex'), {}, /^::warning::vllm-ray-deploy post: the saved lock state is invalid at token: .*; no lock released$/],
      [JSON.stringify([1]), {}, /^::warning::vllm-ray-deploy post: the saved lock state is invalid at \(top\): /],
      [
        saved(token('d')),
        { 'INPUT_SSH-PRIVATE-KEY': '' },
        new RegExp(
          `^::warning::vllm-ray-deploy post: no ssh-private-key input, cannot reach the head to release the deploy lock of ${manifest.cluster} \\(release r1\\); it expires by itself, or: vllm-ray-deploy lock release --manifest .*cluster\\.yml --force$`,
        ),
      ],
      [
        JSON.stringify({ manifest: join(dir, 'gone.yml'), cluster: 'c', token: token('e'), release: 'r1' }),
        {},
        /^::warning::vllm-ray-deploy post: cannot read the manifest .*gone\.yml \(manifest file .*gone\.yml does not exist\); the deploy lock of c was not released$/,
      ],
      [
        saved(token('f')),
        { 'INPUT_SSH-PRIVATE-KEY': 'not a key' },
        /^::warning::vllm-ray-deploy post: cannot reach the head head to release the deploy lock: /,
      ],
    ]
    for (const [state, inputs, warning] of cases) {
      const r = await post(state, { 'INPUT_SSH-PRIVATE-KEY': sshd.clientKey, ...inputs })
      expect(r.exitCode, String(warning)).toBeUndefined()
      expect(lines(r.stdout), String(warning)).toEqual([expect.stringMatching(warning)])
    }
  })

  it('where the manifest pins no host key, the known-hosts input does: a wrong one refuses the head, the right one releases; a passphrase is masked', async () => {
    const unpinnedPath = join(dir, 'unpinned.yml')
    writeFileSync(
      unpinnedPath,
      [
        'version: 1',
        `cluster: ${manifest.cluster}-unpinned`,
        'fabric: { interfaces: [lo], subnet: 127.0.0.0/8 }',
        'nodes:',
        `  - { name: head, role: head, ssh: { host: 127.0.0.1, port: ${sshd.port} }, fabricIp: 127.0.0.1, gpus: 1 }`,
        'image: { ref: "vrd-post-step/absent:1" }',
        'vllm: { model: m, tensorParallelSize: 1 }',
        '',
      ].join('\n'),
    )
    const unpinned = (await loadManifestFile(unpinnedPath)).manifest!
    const got = await acquireDeployLock(head, unpinned, { who: 'ci', release: 'r1' })
    if (!got.ok) throw new Error('lock not taken')
    const state = saved(got.value.token, { manifest: unpinnedPath, cluster: unpinned.cluster })
    // Another server's key for this address: the head is refused, the lock stays.
    const otherKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDxfNNVIlDuqtP02p+brW0EMuojhQ+KVX9bKU/85adLD'
    const wrong = await post(state, {
      'INPUT_SSH-PRIVATE-KEY': sshd.clientKey,
      'INPUT_SSH-KEY-PASSPHRASE': 'unused-passphrase',
      'INPUT_KNOWN-HOSTS': `[127.0.0.1]:${sshd.port} ${otherKey}\n`,
    })
    expect(wrong.exitCode).toBeUndefined()
    expect(wrong.stdout).toContain('::add-mask::unused-passphrase')
    expect(lines(wrong.stdout)).toEqual([expect.stringMatching(/^::warning::vllm-ray-deploy post: cannot reach the head head to release the deploy lock: /)])
    expect((await deployLockStatus(head, unpinned)).held).toBe(true)
    const right = await post(state, { 'INPUT_SSH-PRIVATE-KEY': sshd.clientKey, 'INPUT_KNOWN-HOSTS': sshd.knownHosts })
    expect(lines(right.stdout)).toEqual([expect.stringMatching(/^vllm-ray-deploy post: released the deploy lock this run left behind/)])
    expect((await deployLockStatus(head, unpinned)).held).toBe(false)
    rmSync(deployLockDir(unpinned).replace(/\/deploy\.lock$/, ''), { recursive: true, force: true })
  })
})

describe('parseSavedLock', () => {
  it('keeps the optional run and who; refuses a release that is not text', () => {
    const ok = parseSavedLock(JSON.stringify({ manifest: '/m.yml', cluster: 'c', token: token('a'), release: 'r', run: 'o/r#1' }))
    expect(ok).toEqual({ ok: true, value: { manifest: '/m.yml', cluster: 'c', token: token('a'), release: 'r', run: 'o/r#1' } })
    const bad = parseSavedLock(JSON.stringify({ manifest: '/m.yml', cluster: 'c', token: token('a'), release: 7 }))
    expect(bad.ok).toBe(false)
    if (!bad.ok) expect(bad.problem.message).toMatch(/^the saved lock state is invalid at release: /)
  })
})
