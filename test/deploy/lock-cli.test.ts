/** `vllm-ray-deploy lock status|release` against a real sshd on 127.0.0.1 as the head. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../src/cli/cli-main.js'
import { acquireDeployLock, deployLockStatus } from '../../src/deploy/deploy-lock.js'
import { loadManifestFile } from '../../src/manifest/load-manifest.js'
import type { Manifest } from '../../src/manifest/schema.js'
import { deployLockDir } from '../../src/plan/lock-commands.js'
import { pinsFromKnownHosts } from '../../src/transport/host-keys.js'
import type { SshTransport } from '../../src/transport/ssh.js'
import { type LoopbackSshd, startLoopbackSshd } from '../support/sshd.js'
import { sshConnected } from '../support/ssh-connected.js'

let sshd: LoopbackSshd
let dir: string
let path: string
let manifest: Manifest
let head: SshTransport

async function cli(...args: string[]) {
  let out = ''
  let err = ''
  const code = await main(args, { out: (s) => (out += s), err: (s) => (err += s), env: { VRD_SSH_PRIVATE_KEY: sshd.clientKey } })
  return { code, out, err }
}

beforeAll(async () => {
  sshd = await startLoopbackSshd()
  dir = mkdtempSync(join(tmpdir(), 'vrd-lock-cli-'))
  path = join(dir, 'cluster.yml')
  writeFileSync(
    path,
    [
      'version: 1',
      `cluster: lock-cli-${process.pid}-${Date.now()}`,
      'deploy: { lockTtlMinutes: 5 }',
      'fabric: { interfaces: [lo], subnet: 127.0.0.0/8 }',
      'nodes:',
      `  - { name: head, role: head, ssh: { host: 127.0.0.1, port: ${sshd.port}, hostKeys: ["${sshd.hostPublicKey}"] }, fabricIp: 127.0.0.1, gpus: 1 }`,
      'image: { ref: "x:1" }',
      'vllm: { model: m, tensorParallelSize: 1 }',
      '',
    ].join('\n'),
  )
  manifest = (await loadManifestFile(path)).manifest!
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

describe('vllm-ray-deploy lock', () => {
  it('status says free, then names the holder; release refuses a live lock without --force', async () => {
    expect(await cli('lock', 'status', '--manifest', path)).toMatchObject({ code: 0, out: expect.stringMatching(/deploy lock of lock-cli-\S+ on head: free/) })
    const got = await acquireDeployLock(head, manifest, { who: 'alice', run: '12', release: 'abc' })
    expect(got.ok).toBe(true)
    const s = await cli('lock', 'status', '--manifest', path, '--json')
    expect(s.code).toBe(0)
    expect(JSON.parse(s.out)).toMatchObject({ result: 'held', held: true, stale: false, holder: { who: 'alice', run: '12', release: 'abc' } })
    const refused = await cli('lock', 'release', '--manifest', path)
    expect(refused.code).toBe(1)
    expect(refused.out).toMatch(/held by alice \(run 12, release abc\).*not released\. If that deploy is no longer running, add --force/)
    expect((await deployLockStatus(head, manifest)).held).toBe(true)
    const forced = await cli('lock', 'release', '--manifest', path, '--force')
    expect(forced).toMatchObject({ code: 0, out: expect.stringMatching(/removed \(forced\)/) })
    expect((await deployLockStatus(head, manifest)).held).toBe(false)
  })

  it('a holder record written by a hostile node prints nothing the runner would run (the log sink), in text and JSON', async () => {
    const { execFileSync } = await import('node:child_process')
    const lock = deployLockDir(manifest)
    const who = '::error::pwned\r::add-mask::x ##[error]mid \u001b[2J\u0007'
    execFileSync('mkdir', ['-p', lock])
    const holder = { who, release: 'r1', since: new Date().toISOString(), expiresAt: new Date(Date.now() + 60_000).toISOString(), token: 'a'.repeat(32) }
    writeFileSync(join(lock, 'holder.json'), JSON.stringify(holder))
    const text = await cli('lock', 'status', '--manifest', path)
    const json = await cli('lock', 'status', '--manifest', path, '--json')
    await cli('lock', 'release', '--manifest', path, '--force')
    expect(text.out).toContain('held by ::error::pwned\\x0d::add-mask::x ## [error]mid \\x1b[2J\\x07')
    expect(JSON.parse(json.out).holder.who).toBe(who)
    for (const printed of [text.out, text.err, json.out]) {
      const lines = printed.split(/\r\n|\r|\n/)
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this looks for
      const control = /[\u0000-\u0008\u000b-\u001f]/
      expect(lines.filter((l) => /^\s*::/.test(l) || l.includes('##[') || control.test(l))).toEqual([])
    }
  })

  it('wrong usage exits 2', async () => {
    expect((await cli('lock', 'grab', '--manifest', path)).code).toBe(2)
    expect((await cli('lock', 'status', '--manifest', path, '--force')).code).toBe(2)
    expect((await cli('lock', 'status')).code).toBe(2)
  })
})
